// Built by a parent project that brought broadphase in with add_subdirectory:
// the library works, its version is the one CMake read from the header, and
// the parent's build type reached this file (a Debug build keeps assert).
// Either the compiled library's public header or the one generated file
// (broadphase::single_header), as the parent asked.
#if EXPECT_SINGLE_HEADER
#include "broadphase.hpp"
#else
#include <broadphase/broadphase.hpp>
#endif

#include <cstdio>
#include <cstring>
#include <vector>

int main() {
    int failures = 0;

    const float rows[] = {
        0, 0, 0, 1, 1, 1,  // 0
        1, 0, 0, 2, 1, 1,  // 1: touches 0 (counts)
        5, 5, 5, 6, 6, 6,  // 2: alone
    };
    broadphase::Boxes boxes;
    boxes.assign_rows(rows, 3);
    std::vector<broadphase::Pair> pairs;
    const broadphase::Report r = broadphase::find_pairs(boxes, pairs);
    if (!r.ok() || pairs.size() != 1 || pairs[0].a != 0 || pairs[0].b != 1) {
        std::printf("find_pairs: %zu pairs, expected (0, 1)\n", pairs.size());
        ++failures;
    }

    // project(VERSION) in broadphase's CMakeLists.txt is read from version.hpp.
    if (std::strcmp(BROADPHASE_CMAKE_VERSION, BROADPHASE_VERSION_STRING) != 0 ||
        std::strcmp(broadphase::version_string(), BROADPHASE_VERSION_STRING) != 0) {
        std::printf("version: CMake says %s, the header %s\n", BROADPHASE_CMAKE_VERSION, BROADPHASE_VERSION_STRING);
        ++failures;
    }
    constexpr broadphase::Version v = broadphase::version();
    static_assert(v.major == BROADPHASE_VERSION_MAJOR && v.minor == BROADPHASE_VERSION_MINOR &&
                      v.patch == BROADPHASE_VERSION_PATCH,
                  "broadphase::version() and the macros disagree");

#ifdef NDEBUG
    const bool debug = false;
#else
    const bool debug = true;
#endif
    if (debug != static_cast<bool>(EXPECT_DEBUG)) {
        std::printf("compiled %s a Debug build: the parent's build type was not used\n", debug ? "as" : "not as");
        ++failures;
    }

    if (failures != 0) return 1;
    std::printf("broadphase %s as a subproject: ok\n", broadphase::version_string());
    return 0;
}
