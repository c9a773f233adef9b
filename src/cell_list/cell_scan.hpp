// The cell list's distance scans (cell_list.hpp): one particle against a
// run of sorted particles, eight candidates an instruction with AVX-512,
// four with AVX2 (two with SSE2, one in the portable loop), every level
// with the same roundings (no FMA), so every level gives the same list.
// Here: the rule, the portable loop, and CellKernels, the kernels of one
// SIMD copy by its tag; the vector kernels are in src/simd/<set>/cell_kernels.hpp.
#pragma once

#include <cstddef>
#include <cstdint>

#include <broadphase/simd.hpp>
#include "simd/common.hpp"

namespace broadphase {
namespace detail {

/// One particle against a run of sorted particles: the arguments of a scan.
/// A candidate j in [jb, je) is kept iff it is within reach (the rule
/// above), ids[j] >= lim, and j != skip; its id is appended to out, which
/// has room for (je - jb) + 8 entries. The arrays are padded by 8 past
/// their end (kernels read whole vectors).
struct ScanArgs {
    const double* X;
    const double* Y;
    const double* Z;
    const double* R;  // null: one radius (rr_one)
    const std::uint32_t* ids;
    double xi, yi, zi, ri, rr_one, extra;
    double sh[3];
    bool shifted;
    std::uint32_t lim;
    std::size_t skip;
};

/// The cell list's kernels of one SIMD copy (Isa: a tag of src/simd/common.hpp):
/// scan<One, Shifted> (ScanArgs, jb, je, out) -> entries written, and for AVX2
/// and AVX-512 cluster<G, One, Shifted, Mode> (ClusterArgs, jb, je, rows)
/// (cell_cluster.hpp). Specialised below for the portable loop and in
/// src/simd/<set>/cell_kernels.hpp for the others.
template <class Isa>
struct CellKernels;

namespace cell_scan {

inline int ctz(unsigned x) {
#if defined(__GNUC__)
    return __builtin_ctz(x);
#else
    int n = 0;
    while (!(x & 1u)) x >>= 1, ++n;
    return n;
#endif
}

/// The portable loop (and the reference the vector kernels must match).
template <bool One, bool Shifted>
inline std::size_t scalar(const ScanArgs& a, std::size_t jb, std::size_t je, std::uint32_t* out) {
    std::size_t w = 0;
    for (std::size_t j = jb; j < je; ++j) {
        double dx = a.X[j] - a.xi, dy = a.Y[j] - a.yi, dz = a.Z[j] - a.zi;
        if (Shifted) dx += a.sh[0], dy += a.sh[1], dz += a.sh[2];
        const double d2 = (dx * dx + dy * dy) + dz * dz;
        double rr = a.rr_one;
        if (!One) {
            const double reach = (a.ri + a.R[j]) + a.extra;
            rr = reach * reach;
        }
        const std::uint32_t id = a.ids[j];
        out[w] = id;
        w += (d2 <= rr) & (id >= a.lim) & (j != a.skip);
    }
    return w;
}

/// The scan at the copy `Isa` (src/simd/common.hpp's tags), shifted or not.
template <class Isa, bool One>
inline std::size_t run(const ScanArgs& a, std::size_t jb, std::size_t je, std::uint32_t* out) {
    using K = CellKernels<Isa>;
    return a.shifted ? K::template scan<One, true>(a, jb, je, out) : K::template scan<One, false>(a, jb, je, out);
}

}  // namespace cell_scan

template <>
struct CellKernels<simd_scalar::Isa> {
    template <bool One, bool Shifted>
    static std::size_t scan(const ScanArgs& a, std::size_t jb, std::size_t je, std::uint32_t* out) {
        return cell_scan::scalar<One, Shifted>(a, jb, je, out);
    }
};

}  // namespace detail
}  // namespace broadphase
