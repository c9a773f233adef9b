// The version's two spellings checked against each other, once, when the
// library is compiled: include/broadphase/version.hpp writes the numbers
// (CMake and setup.py parse them) and the string (a literal, so that it can
// be pasted into other literals); a bump of one and not the other fails here.
#include <broadphase/version.hpp>

namespace broadphase {
namespace {

/// Whether s spells "major.minor.patch". O(length of s).
constexpr bool spells_version(const char* s, Version v) {
    const int parts[3] = {v.major, v.minor, v.patch};
    for (int p = 0; p < 3; ++p) {
        if (p > 0 && *s++ != '.') return false;
        if (*s < '0' || *s > '9') return false;
        int n = 0;
        while (*s >= '0' && *s <= '9') n = n * 10 + (*s++ - '0');
        if (n != parts[p]) return false;
    }
    return *s == '\0';
}

static_assert(spells_version(BROADPHASE_VERSION_STRING, version()),
              "BROADPHASE_VERSION_STRING differs from BROADPHASE_VERSION_MAJOR/MINOR/PATCH");

}  // namespace
}  // namespace broadphase
