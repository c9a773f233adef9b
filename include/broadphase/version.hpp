// The library's version: the one place it is written down.
//
// CMake's project(VERSION), the package config version file, the CLI's
// `--version`, Python's `broadphase.__version__` and setup.py all read the
// three numbers below (CMake and setup.py parse the
// `#define BROADPHASE_VERSION_* N` lines, so keep their shape). Semantic
// versioning: MAJOR changes break the API, MINOR adds to it, PATCH fixes;
// before 1.0 a MINOR release may also break it (the CMake package accepts
// 0.1.z for a request of 0.1).
#pragma once

#define BROADPHASE_VERSION_MAJOR 0
#define BROADPHASE_VERSION_MINOR 1
#define BROADPHASE_VERSION_PATCH 0

#define BROADPHASE_VERSION_STRINGIFY_(x) #x
#define BROADPHASE_VERSION_STRINGIFY(x) BROADPHASE_VERSION_STRINGIFY_(x)

/// "MAJOR.MINOR.PATCH", a string literal.
#define BROADPHASE_VERSION_STRING                      \
    BROADPHASE_VERSION_STRINGIFY(BROADPHASE_VERSION_MAJOR) \
    "." BROADPHASE_VERSION_STRINGIFY(BROADPHASE_VERSION_MINOR) "." BROADPHASE_VERSION_STRINGIFY(BROADPHASE_VERSION_PATCH)

/// One number that orders versions: MAJOR * 10000 + MINOR * 100 + PATCH,
/// for `#if BROADPHASE_VERSION >= 100` (0.1.0) in code that supports several.
#define BROADPHASE_VERSION \
    (BROADPHASE_VERSION_MAJOR * 10000 + BROADPHASE_VERSION_MINOR * 100 + BROADPHASE_VERSION_PATCH)

namespace broadphase {

/// The version of the headers this translation unit was compiled with.
struct Version {
    int major;
    int minor;
    int patch;
};

/// The version as numbers: {MAJOR, MINOR, PATCH}.
constexpr Version version() noexcept {
    return Version{BROADPHASE_VERSION_MAJOR, BROADPHASE_VERSION_MINOR, BROADPHASE_VERSION_PATCH};
}

/// The version as "MAJOR.MINOR.PATCH".
constexpr const char* version_string() noexcept { return BROADPHASE_VERSION_STRING; }

}  // namespace broadphase
