// Writes the input files of the broadphase-mpi CLI tests into a directory:
//   make_inputs DIR
// Good files (each compared, as pairs, between `broadphase pairs --sorted`
// and `mpirun -n P broadphase-mpi pairs --sorted`):
//   f32.npy    float32 (N, 6), invalid rows (NaN, min > max), touching
//              faces, identical boxes, an infinite coordinate
//   f64.npy    float64, the same kinds of boxes, with coordinates that are
//              not floats and pairs that touch only in float64
//   f64v2.npy  the same as format version 2.0
//   mixed.csv  a header, blank lines, spaces, "nan", invalid rows, values
//              that are not floats (searched in float64)
//   f32.csv    every value a float (searched in float32)
//   tiny.npy   2 rows (fewer than the ranks: some read none)
//   empty.npy  0 rows
// Malformed files (the same message and exit status from both tools):
//   bad_magic.npy, truncated.npy, trailing.npy, bad_shape.npy, f16.npy,
//   fields.csv (a line of 5 fields), word.csv (a field that is not a number)
// The .npy and .csv writers here are independent of the tools' own code.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "../../cli/npy_writer.hpp"

namespace {

using broadphase_test_files::npy_header;
using broadphase_test_files::row_bytes;

std::string npy(const std::vector<double>& rows, bool float64, int major = 1) {
    return broadphase_test_files::npy_file(rows, float64, major);
}

std::string text(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

std::string csv(const std::vector<double>& rows) {
    std::string out = "minx, miny, minz, maxx, maxy, maxz\n\n";
    for (std::size_t i = 0; i < rows.size(); i += 6) {
        for (int c = 0; c < 6; ++c) out += (c ? (c % 2 ? ", " : ",") : "") + text(rows[i + c]);
        out += '\n';
        if (i % 600 == 0) out += "  \n";  // blank lines are skipped
    }
    return out;
}

/// Boxes in a cube of side `side`: most random, some touching face to
/// face, a few identical, a few invalid, one reaching to infinity.
/// `fine`: shifts coordinates by amounts no float can hold.
std::vector<double> boxes(std::size_t n, double side, bool fine, std::uint64_t seed) {
    std::uint64_t s = seed;
    auto unit = [&] {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<double>(s >> 11) * (1.0 / 9007199254740992.0);
    };
    std::vector<double> r;
    const double eps = fine ? 1e-9 : 0;
    for (std::size_t i = 0; i < n; ++i) {
        double lo[3], hi[3];
        for (int k = 0; k < 3; ++k) {
            lo[k] = std::floor(unit() * side * 4) / 4 + eps;
            hi[k] = lo[k] + 0.5 + std::floor(unit() * 8) / 4;
        }
        if (i % 97 == 5) {  // touching the previous box's max x face (exactly, in either precision)
            const std::size_t p = r.size() - 6;
            lo[0] = r[p + 3];
            hi[0] = lo[0] + 1;
            for (int k = 1; k < 3; ++k) lo[k] = r[p + k], hi[k] = r[p + 3 + k];
        }
        if (i % 131 == 7) {  // identical to the previous box
            const std::size_t p = r.size() - 6;
            for (int k = 0; k < 3; ++k) lo[k] = r[p + k], hi[k] = r[p + 3 + k];
        }
        if (i % 89 == 3) lo[1] = std::numeric_limits<double>::quiet_NaN();  // invalid: NaN
        if (i % 113 == 11) std::swap(lo[2], hi[2]);                         // invalid: min > max
        if (i == n / 2) hi[0] = std::numeric_limits<double>::infinity();      // reaches to +inf
        if (fine && i % 53 == 9) {
            // Touches the previous box in float64 only: its min x is the
            // previous max x, a value float32 would round.
            const std::size_t p = r.size() - 6;
            lo[0] = r[p + 3];
            hi[0] = lo[0] + 0.75;
            for (int k = 1; k < 3; ++k) lo[k] = r[p + k] + 0.1, hi[k] = r[p + 3 + k];
        }
        for (int k = 0; k < 3; ++k) r.push_back(lo[k]);
        for (int k = 0; k < 3; ++k) r.push_back(hi[k]);
    }
    return r;
}

bool write(const std::string& dir, const std::string& name, const std::string& bytes) {
    std::ofstream out(dir + "/" + name, std::ios::binary);
    out << bytes;
    return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: make_inputs DIR\n");
        return 2;
    }
    const std::string dir = argv[1];
    const std::vector<double> coarse = boxes(3001, 60, false, 1);
    const std::vector<double> fine = boxes(2500, 50, true, 2);
    std::vector<double> float_values = boxes(1200, 30, false, 3);
    const std::vector<double> tiny = {0, 0, 0, 1, 1, 1, 1, 1, 1, 2, 2, 2};
    std::string truncated = npy_header("<f4", "(100, 6)") + row_bytes(std::vector<double>(50 * 6, 1.0), false);
    std::string fields = "1,2,3,4,5,6\n1,2,3,4,5,6\n0,0,0,1,1\n";
    std::string word = "1,2,3,4,5,6\n1,2,3,4,5,six\n";
    bool ok = write(dir, "f32.npy", npy(coarse, false)) && write(dir, "f64.npy", npy(fine, true)) &&
              write(dir, "f64v2.npy", npy(fine, true, 2)) && write(dir, "mixed.csv", csv(fine)) &&
              write(dir, "f32.csv", csv(float_values)) && write(dir, "tiny.npy", npy(tiny, false)) &&
              write(dir, "empty.npy", npy({}, true)) && write(dir, "bad_magic.npy", "\x93NUMPX\x01\x00junk") &&
              write(dir, "truncated.npy", truncated) && write(dir, "trailing.npy", npy(tiny, false) + "x") &&
              write(dir, "bad_shape.npy", npy_header("<f4", "(4, 5)") + std::string(80, '\0')) &&
              write(dir, "f16.npy", npy_header("<f2", "(4, 6)") + std::string(48, '\0')) &&
              write(dir, "fields.csv", fields) && write(dir, "word.csv", word);
    if (!ok) {
        std::fprintf(stderr, "make_inputs: cannot write to %s\n", dir.c_str());
        return 1;
    }
    return 0;
}
