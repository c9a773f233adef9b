// The cell list's geometry (cell_list.hpp): a simulation cell as the
// kernel reads it, the wrap into the cell and the images' shifts, which
// together define the arithmetic of the neighbour lists' rule
// (neighbor_list.hpp) and of periodic sphere pairs (spheres.hpp).
#pragma once

#include <cmath>
#include <cstdint>

namespace broadphase {
namespace detail {

/// A cell as the kernel reads it: the edge vectors as rows of h (zero
/// rows on open axes), which axes wrap, and whether h is diagonal.
struct CellFrame {
    double h[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    double inv[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};  // h^-1 on the periodic block (general cells: all of it)
    bool periodic[3] = {false, false, false};
    bool diagonal = true;  // every periodic axis is along its own coordinate axis (orthorhombic)

    bool any() const { return periodic[0] || periodic[1] || periodic[2]; }

    /// From edge vectors (rows). Open axes must have zero rows and then
    /// the periodic rows must be diagonal; the caller has checked that.
    template <class Rows>
    static CellFrame of(const Rows& v) {
        CellFrame f;
        for (int r = 0; r < 3; ++r)
            for (int k = 0; k < 3; ++k) f.h[r][k] = v[r][k];
        for (int r = 0; r < 3; ++r) f.periodic[r] = v[r][0] != 0 || v[r][1] != 0 || v[r][2] != 0;
        for (int r = 0; r < 3; ++r)
            for (int k = 0; k < 3; ++k)
                if (r != k && f.h[r][k] != 0) f.diagonal = false;
        if (f.diagonal) {
            for (int k = 0; k < 3; ++k) f.inv[k][k] = f.periodic[k] ? 1 / f.h[k][k] : 0;
        } else {
            const double(&h)[3][3] = f.h;
            const double det = h[0][0] * (h[1][1] * h[2][2] - h[1][2] * h[2][1]) -
                               h[0][1] * (h[1][0] * h[2][2] - h[1][2] * h[2][0]) +
                               h[0][2] * (h[1][0] * h[2][1] - h[1][1] * h[2][0]);
            for (int r = 0; r < 3; ++r)
                for (int k = 0; k < 3; ++k) {
                    // inv[r][k] = cofactor(k, r) / det
                    const int r1 = (k + 1) % 3, r2 = (k + 2) % 3, c1 = (r + 1) % 3, c2 = (r + 2) % 3;
                    f.inv[r][k] = (h[r1][c1] * h[r2][c2] - h[r1][c2] * h[r2][c1]) / det;
                }
        }
        return f;
    }

    /// The cell's width across axis k (its volume over the area of the
    /// face the other two vectors span). O(1).
    double width(int k) const {
        if (diagonal) return std::fabs(h[k][k]);
        const int a = (k + 1) % 3, b = (k + 2) % 3;
        double c[3];
        for (int i = 0; i < 3; ++i) c[i] = h[a][(i + 1) % 3] * h[b][(i + 2) % 3] - h[a][(i + 2) % 3] * h[b][(i + 1) % 3];
        const double area = std::sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
        const double vol = std::fabs(h[k][0] * c[0] + h[k][1] * c[1] + h[k][2] * c[2]);
        return vol / area;
    }

    /// Fractional coordinate of a point along periodic axis k.
    double frac(const double x[3], int k) const {
        if (diagonal) return x[k] * inv[k][k];
        return (x[0] * inv[0][k] + x[1] * inv[1][k]) + x[2] * inv[2][k];
    }

    /// Wraps a finite point into the cell: w = x - n h on the periodic
    /// axes, n[k] the image count (0 on open axes). Orthorhombic axes use
    /// fmod (exact), plus L when negative (rounded once), and a result of L
    /// becomes 0: w in [0, L). General cells: n = floor(s), w_k = ((x_k -
    /// n_0 h_0k) - n_1 h_1k) - n_2 h_2k, rounded at each step. O(1).
    void wrap(const double x[3], double w[3], double n[3]) const {
        if (diagonal) {
            for (int k = 0; k < 3; ++k) {
                if (!periodic[k]) {
                    w[k] = x[k], n[k] = 0;
                    continue;
                }
                const double L = std::fabs(h[k][k]);
                if (x[k] >= 0 && x[k] < L) {  // inside already: fmod would return x (most calls)
                    w[k] = x[k], n[k] = 0;
                    continue;
                }
                double v = std::fmod(x[k], L);
                if (v < 0) v += L;
                if (v >= L) v = 0;
                w[k] = v;
                n[k] = std::nearbyint((x[k] - v) / L);
                if (h[k][k] < 0) n[k] = -n[k];
            }
            return;
        }
        for (int k = 0; k < 3; ++k) n[k] = std::floor(frac(x, k));
        for (int k = 0; k < 3; ++k) w[k] = ((x[k] - n[0] * h[0][k]) - n[1] * h[1][k]) - n[2] * h[2][k];
    }

    /// (P h)_k for an image P, in the rule's order. O(1).
    double shift(const int p[3], int k) const {
        return (static_cast<double>(p[0]) * h[0][k] + static_cast<double>(p[1]) * h[1][k]) + static_cast<double>(p[2]) * h[2][k];
    }
};

/// An image P packed in one 32-bit word (8 bits an axis, offset by 128);
/// P is within [-127, 127] (the stencil's reach, at most 127 cells).
inline constexpr int zero_image[3] = {0, 0, 0};
inline std::uint32_t pack_image(const int p[3]) {
    return static_cast<std::uint32_t>(p[0] + 128) | static_cast<std::uint32_t>(p[1] + 128) << 8 |
           static_cast<std::uint32_t>(p[2] + 128) << 16;
}
inline void unpack_image(std::uint32_t code, int p[3]) {
    for (int k = 0; k < 3; ++k) p[k] = static_cast<int>((code >> (8 * k)) & 0xff) - 128;
}

}  // namespace detail
}  // namespace broadphase
