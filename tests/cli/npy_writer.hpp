// .npy files written byte by byte, independently of the programs' own
// readers: what the CLI's, the lab's and the MPI CLI's tests feed them
// (tests/cli/cli_harness.hpp, tests/mpi/cli/make_inputs.cpp). No GoogleTest.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace broadphase_test_files {

inline void append_le(std::string& out, std::uint64_t v, int bytes) {
    for (int k = 0; k < bytes; ++k) out += static_cast<char>((v >> (8 * k)) & 0xff);
}

/// A .npy header of any version, padded so the data is 64-byte aligned.
inline std::string npy_header(const std::string& descr, const std::string& shape, bool fortran = false, int major = 1) {
    std::string dict = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
                       ", 'shape': " + shape + ", }";
    const std::size_t prefix = 8 + (major == 1 ? 2 : 4);
    dict.append((64 - (prefix + dict.size() + 1) % 64) % 64, ' ');
    dict += '\n';
    std::string out = "\x93NUMPY";
    out += static_cast<char>(major);
    out += '\0';
    append_le(out, dict.size(), major == 1 ? 2 : 4);
    return out + dict;
}

/// Rows (minx miny minz maxx maxy maxz) as little-endian float32 or float64 bytes.
inline std::string row_bytes(const std::vector<double>& rows, bool float64) {
    std::string out;
    for (double v : rows) {
        if (float64) {
            std::uint64_t u;
            std::memcpy(&u, &v, 8);
            append_le(out, u, 8);
        } else {
            const float f = static_cast<float>(v);
            std::uint32_t u;
            std::memcpy(&u, &f, 4);
            append_le(out, u, 4);
        }
    }
    return out;
}

inline std::string npy_file(const std::vector<double>& rows, bool float64 = false, int major = 1) {
    return npy_header(float64 ? "<f8" : "<f4", "(" + std::to_string(rows.size() / 6) + ", 6)", false, major) +
           row_bytes(rows, float64);
}

}  // namespace broadphase_test_files
