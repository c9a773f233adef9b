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

/// "MAJOR.MINOR.PATCH", a string literal: bump it with the numbers above (a
/// static_assert in src/core/version.cpp fails to compile when they differ).
#define BROADPHASE_VERSION_STRING "0.1.0"

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
