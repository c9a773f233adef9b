// The cell list's cluster kernels (cell_list.hpp, issue 46): a cluster of up
// to four consecutive particles of one bin (the i side) against a run of
// sorted particles (the j side), M x N: each vector of j candidates is loaded
// once and tested against every i of the cluster, each i's hits compressed
// into a row of its own. The rule and its roundings are the scans' own
// (cell_scan.hpp): fl(fl(x_j - x_i) + (P h)), squares summed as ((dx dx + dy
// dy) + dz dz), no FMA, compared with fl(reach^2), so every kernel, the
// scans' included, keeps the same candidates.
//
// AVX-512 (eight j a vector) and AVX2 (four) only, in
// src/simd/<set>/cell_kernels.hpp: SSE2 and the portable loop keep the
// per-particle scans (cell_scan.hpp), which give the same rows.
#pragma once

#include <cstddef>
#include <cstdint>

#include <type_traits>

#include <broadphase/simd.hpp>
#include "cell_list/cell_scan.hpp"

namespace broadphase {
namespace detail {

/// A cluster of G <= 4 particles (sorted positions pos[q]) against runs of
/// candidates. `sh` is the run's image shift (Shifted kernels add it).
struct ClusterArgs {
    const double* X;
    const double* Y;
    const double* Z;
    const double* R;  // null: one radius (rr_one)
    const std::uint32_t* ids;
    double xi[4], yi[4], zi[4], ri[4];
    double rr_one, extra;
    double sh[3];
    std::size_t pos[4];
};

namespace cell_cluster {

/// Which candidates a cluster's row takes besides the rule: every one
/// (all), all but the particle itself (not_self: a full list's own bin
/// through image 0), or those after it (after: a half list's own bin).
enum Mode { all = 0, not_self = 1, after = 2 };

/// Lanes [j, j + width) whose sorted position passes Mode for particle p.
template <int Mode, int Width>
inline unsigned mode_mask(std::size_t p, std::size_t j) {
    constexpr unsigned full = (1u << Width) - 1;
    if (Mode == not_self) return p - j < static_cast<std::size_t>(Width) ? full & ~(1u << (p - j)) : full;
    if (Mode == after) {
        if (p < j) return full;
        const std::size_t k = p - j + 1;  // lanes 0 .. k-1 are at or before p
        return k >= static_cast<std::size_t>(Width) ? 0u : (full << k) & full;
    }
    return full;
}

/// The kernel of the copy `Isa` (AVX2 or AVX-512: CellKernels in
/// src/simd/<set>/cell_kernels.hpp) for a cluster of g particles.
template <class Isa, bool One, int Mode>
inline void run(const ClusterArgs& a, int g, bool shifted, std::size_t jb, std::size_t je, std::uint32_t** w) {
    using K = CellKernels<Isa>;
    const auto of = [&](auto size) {
        constexpr int G = decltype(size)::value;
        if (shifted) K::template cluster<G, One, true, Mode>(a, jb, je, w);
        else K::template cluster<G, One, false, Mode>(a, jb, je, w);
    };
    switch (g) {
    case 1: return of(std::integral_constant<int, 1>{});
    case 2: return of(std::integral_constant<int, 2>{});
    case 3: return of(std::integral_constant<int, 3>{});
    default: return of(std::integral_constant<int, 4>{});
    }
}

}  // namespace cell_cluster
}  // namespace detail
}  // namespace broadphase
