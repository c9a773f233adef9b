// The bodies of <broadphase/periodic.hpp>: BasicPeriodicPairFinder and the
// exact arithmetic of its test. Compiled once in the library
// (src/periodic/periodic.cpp) for the types BROADPHASE_COMPILED_TYPES lists;
// header-only, periodic.hpp includes this file at its end. A file that uses
// other scalar types or dimensions with the compiled library
// (BasicPeriodicPairFinder<float, 1>, say) includes it after periodic.hpp
// (it brings the PairFinder's bodies, src/core/pair_finder_impl.hpp, for them).
//
// It comes after periodic.hpp and does not include it back: no file
// includes the file that includes it (detail/extern_templates.hpp).
#pragma once

#include <broadphase/periodic.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include <broadphase/pairs.hpp>
#include <broadphase/detail/box_rules.hpp>
#include "core/pair_finder_impl.hpp"  // PairFinder for every T, D
#include <broadphase/detail/buffers.hpp>

namespace broadphase {
namespace detail {

/// s + e == a + b exactly (s the rounded sum), unless a + b overflows. O(1).
inline void two_sum(double a, double b, double& s, double& e) {
    s = a + b;
    const double bb = s - a;
    e = (a - (s - bb)) + (b - bb);
}

/// The sign (-1, 0 or 1) of the exact sum of t[0..n), n <= 16: the terms
/// are summed into a non-overlapping expansion (error-free sums, zero
/// components dropped), whose largest component has the sum's sign. The
/// partial sums must not overflow (the caller keeps the terms far below
/// max()). O(n^2).
inline int exact_sign(const double* t, int n) {
    double h[16];
    int m = 0;
    for (int i = 0; i < n; ++i) {
        double q = t[i];
        int w = 0;
        for (int j = 0; j < m; ++j) {
            double s, e;
            two_sum(q, h[j], s, e);
            if (e != 0) h[w++] = e;
            q = s;
        }
        if (q != 0) h[w++] = q;
        m = w;
    }
    return m == 0 ? 0 : (h[m - 1] > 0 ? 1 : -1);
}

/// The sign of the exact sum of t[0..n), n <= 16: the rounded sum when it
/// is clear of its error bound (n 2^-52 of the sum of magnitudes, and the
/// smallest normal double), which is nearly always; exact_sign otherwise.
/// O(n), O(n^2) near a tie.
inline int sign_of_sum(const double* t, int n) {
    double s = 0, mag = 0;
    for (int i = 0; i < n; ++i) s += t[i], mag += std::abs(t[i]);
    const double bound = mag * (n * 0x1p-52) + std::numeric_limits<double>::min();
    if (s > bound) return 1;
    if (s < -bound) return -1;
    return exact_sign(t, n);
}

/// The largest T <= v (v a double within T's range). O(1).
template <class T>
T below(double v) {
    if constexpr (std::is_same_v<T, double>) {
        return v;
    } else {
        const T f = static_cast<T>(v);
        return static_cast<double>(f) > v ? std::nextafter(f, -std::numeric_limits<T>::infinity()) : f;
    }
}
/// The smallest T >= v. O(1).
template <class T>
T above(double v) {
    return -below<T>(-v);
}


inline int popcount(unsigned v) {
    int c = 0;
    for (; v; v &= v - 1) ++c;
    return c;
}

/// An interval [lo, hi] of doubles holding the wrapped box [m, m + w]
/// (m = wrapped min in [0, L), w the extent < L): the rounded values
/// widened by L * 2^-40, far above their rounding errors (a few units of
/// L * 2^-53).
inline void enclose(const PeriodicAxis& a, double L, double& lo, double& hi) {
    const double m = a.r < 0 ? a.r + L : a.r;
    const double margin = L * 0x1p-40 + std::numeric_limits<double>::denorm_min();
    lo = m - margin;
    hi = (m + a.ws) + margin;
}

/// The wrapped max, rounded (for the crossing test, which is
/// conservative: enclose()'s hi >= L iff this is >= L - margin).
inline double wrapped_hi(const PeriodicAxis& a, double L) {
    double lo, hi;
    enclose(a, L, lo, hi);
    return hi;
}

}  // namespace detail

template <class T, int D>
Report BasicPeriodicPairFinder<T, D>::find_checked(const BasicBoxes<T, D>& boxes,
                                                   const BasicPeriodicDomain<T, D>& domain, std::vector<Pair>& out,
                                                   const Options& options) {
    ghosts_ = 0;
    if (!domain.any()) return finder_.find_pairs(boxes, out, options);
    Report rep;
    out.clear();
    const std::size_t n = boxes.size();
    if (!fits_indices(n)) {
        rep.status = Status::too_many_boxes;
        return rep;
    }
    const bool done = detail::guarded(rep, [&] {
        if (!wrap(boxes, domain)) {
            rep.status = Status::too_many_boxes;
            return;
        }
        Options inner = options;
        inner.sorted = false;
        inner.max_pairs = no_budget;
        rep = finder_.find_pairs(work_, out, inner);
        if (!rep.ok()) {
            out.clear();
            return;
        }
        keep_canonical(out, n);
        if (options.sorted) sort_pairs(out, n, sort_scratch_);
        if (out.size() > options.max_pairs) {
            out.resize(static_cast<std::size_t>(options.max_pairs));
            rep.status = Status::pair_budget_exceeded;
        }
    });
    if (!done) out.clear();
    rep.pairs = out.size();
    return rep;
}

template <class T, int D>
bool BasicPeriodicPairFinder<T, D>::wrap(const BasicBoxes<T, D>& boxes, const BasicPeriodicDomain<T, D>& domain) {
    const std::size_t n = boxes.size();
    axes_ = 0;
    for (int k = 0; k < D; ++k)
        if (domain.periodic(k)) axis_of_[axes_++] = k;
    for (int p = 0; p < axes_; ++p) data_[p].resize(n);
    span_.resize(n);
    cross_.resize(n);
    // Pass 1: validity, spans, crossings; count the ghosts.
    std::uint64_t ghosts = 0;
    for (std::size_t i = 0; i < n; ++i) {
        bool valid = true;
        for (int k = 0; k < D; ++k) valid = valid && detail::valid_interval(boxes.min(k)[i], boxes.max(k)[i]);
        std::uint8_t span = 0, cross = 0;
        if (valid) {
            for (int p = 0; p < axes_; ++p) {
                const int k = axis_of_[p];
                const double L = static_cast<double>(domain.period[k]);
                const double lo = static_cast<double>(boxes.min(k)[i]), hi = static_cast<double>(boxes.max(k)[i]);
                detail::PeriodicAxis& a = data_[p][i];
                if (!std::isfinite(lo) || !std::isfinite(hi)) {
                    span |= std::uint8_t(1u << p);
                    continue;
                }
                detail::two_sum(hi, -lo, a.ws, a.wt);
                if (std::isinf(a.ws)) {  // hi - lo > max() >= L
                    span |= std::uint8_t(1u << p);
                    continue;
                }
                const double t[3] = {a.ws, a.wt, -L};
                if (detail::sign_of_sum(t, 3) >= 0) {
                    span |= std::uint8_t(1u << p);
                    continue;
                }
                a.r = std::fmod(lo, L);
                if (detail::wrapped_hi(a, L) >= L) cross |= std::uint8_t(1u << p);
            }
            ghosts += (std::uint64_t(1) << detail::popcount(cross)) - 1;
        }
        span_[i] = valid ? span : std::uint8_t(0xff);
        cross_[i] = valid ? cross : std::uint8_t(0);
    }
    if (!fits_indices(n + ghosts)) return false;
    ghosts_ = static_cast<std::size_t>(ghosts);
    work_.resize(n + ghosts_);
    owner_.resize(ghosts_);
    shift_.resize(ghosts_);
    // Pass 2: the originals, wrapped, then each box's ghosts.
    std::size_t g = n;
    for (std::size_t i = 0; i < n; ++i) {
        if (span_[i] == 0xff) {  // invalid: as given (the broad phase skips and reports it)
            for (int k = 0; k < D; ++k) work_.min(k)[i] = boxes.min(k)[i], work_.max(k)[i] = boxes.max(k)[i];
            continue;
        }
        for (int k = 0; k < D; ++k) work_.min(k)[i] = boxes.min(k)[i], work_.max(k)[i] = boxes.max(k)[i];
        for (int p = 0; p < axes_; ++p) {
            const int k = axis_of_[p];
            const T L = domain.period[k];
            if (span_[i] & (1u << p)) {
                work_.min(k)[i] = 0, work_.max(k)[i] = L;
            } else {
                double lo, hi;
                detail::enclose(data_[p][i], static_cast<double>(L), lo, hi);
                work_.min(k)[i] = detail::below<T>(lo), work_.max(k)[i] = detail::above<T>(hi);
            }
        }
        const unsigned cross = cross_[i];
        for (unsigned s = cross; s != 0; s = (s - 1) & cross) {  // every non-empty subset
            for (int k = 0; k < D; ++k) work_.min(k)[g] = work_.min(k)[i], work_.max(k)[g] = work_.max(k)[i];
            for (int p = 0; p < axes_; ++p) {
                if (!(s & (1u << p))) continue;
                const int k = axis_of_[p];
                const double L = static_cast<double>(domain.period[k]);
                double lo, hi;
                detail::enclose(data_[p][i], L, lo, hi);
                work_.min(k)[g] = detail::below<T>(lo - L), work_.max(k)[g] = detail::above<T>(hi - L);
            }
            owner_[g - n] = static_cast<std::uint32_t>(i);
            shift_[g - n] = static_cast<std::uint8_t>(s);
            ++g;
        }
    }
    for (int p = 0; p < axes_; ++p) period_[p] = static_cast<double>(domain.period[axis_of_[p]]);
    return true;
}

template <class T, int D>
bool BasicPeriodicPairFinder<T, D>::valid_shift(std::size_t a, std::size_t b, int p, int j) const {
    const double L = period_[p];
    const detail::PeriodicAxis& x = data_[p][a];
    const detail::PeriodicAxis& y = data_[p][b];
    const double la_wrap = x.r < 0 ? L : 0, lb_wrap = y.r < 0 ? L : 0;
    const double jl = j * L;  // exact: j is -1, 0 or 1
    // (la + wa) - (lb + jL) >= 0
    const double t1[7] = {x.r, la_wrap, x.ws, x.wt, -y.r, -lb_wrap, -jl};
    if (detail::sign_of_sum(t1, 7) < 0) return false;
    // (lb + jL + wb) - la >= 0
    const double t2[7] = {y.r, lb_wrap, jl, y.ws, y.wt, -x.r, -la_wrap};
    return detail::sign_of_sum(t2, 7) >= 0;
}

template <class T, int D>
void BasicPeriodicPairFinder<T, D>::keep_canonical(std::vector<Pair>& pairs, std::size_t n) const {
    std::size_t w = 0;
    for (const Pair c : pairs) {
        std::uint32_t a = c.a, b = c.b;
        unsigned sa = 0, sb = 0;
        if (a >= n) sa = shift_[a - n], a = owner_[a - n];
        if (b >= n) sb = shift_[b - n], b = owner_[b - n];
        if (a == b) continue;
        if (a > b) std::swap(a, b), std::swap(sa, sb);
        bool keep = true;
        for (int p = 0; p < axes_ && keep; ++p) {
            const unsigned bit_a = (sa >> p) & 1u, bit_b = (sb >> p) & 1u;
            if (((span_[a] | span_[b]) >> p) & 1u) {
                keep = bit_a == 0 && bit_b == 0;  // the unshifted copies, which always meet
                continue;
            }
            // The smallest shift j of b's image that overlaps a; the
            // candidate must be the copies that stand for it: j = 0
            // both unshifted, j = -1 b's ghost, j = 1 a's ghost.
            int j = -1;
            while (j <= 1 && !valid_shift(a, b, p, j)) ++j;
            keep = (j == 0 && bit_a == 0 && bit_b == 0) || (j == -1 && bit_a == 0 && bit_b == 1) ||
                   (j == 1 && bit_a == 1 && bit_b == 0);
        }
        if (keep) pairs[w++] = Pair{a, b};
    }
    pairs.resize(w);
}

}  // namespace broadphase
