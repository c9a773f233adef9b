// Stable LSD radix sort of 32-bit keys carrying 32-bit values, and the
// float-to-key map it needs. O(n) per pass, three 11-bit passes at most;
// passes where every key has the same digit are skipped. Stable, so equal
// keys keep their input order and the result is the same on every run.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include <broadphase/detail/parallel.hpp>

namespace broadphase {
namespace detail {

/// Maps a float to an unsigned key with the same order (-inf lowest, +inf
/// highest; -0 just below +0). NaN never reaches here (invalid boxes are removed).
inline std::uint32_t float_key(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

/// The same for double.
inline std::uint64_t double_key(double d) {
    std::uint64_t u;
    std::memcpy(&u, &d, sizeof u);
    return (u & 0x8000000000000000ull) ? ~u : (u | 0x8000000000000000ull);
}

/// Scratch memory for radix_sort, kept by the caller between calls.
template <class V = std::vector<std::uint32_t>>
struct BasicRadixScratch {
    V keys, values;
    std::vector<std::uint32_t> hist;
};
using RadixScratch = BasicRadixScratch<>;

/// Sorts keys[0..n) ascending, permuting values alongside. Reuses scratch.
/// Large inputs are cut into parts on up to `threads` threads: in each
/// pass every part counts the digits of its stretch of the current order,
/// the counts are laid out digit by digit and part by part, and each part
/// scatters its stretch; stable, so the result is the same for any thread
/// count. (One thread counts all passes' digits at once: totals do not
/// depend on the order.) Parts: plan_threads at Work::quarter an item.
template <class V>
void radix_sort(V& keys, V& values, BasicRadixScratch<V>& scratch, unsigned threads = 1,
                std::size_t min_boxes_per_thread = default_min_boxes_per_thread) {
    const std::size_t n = keys.size();
    if (n < 2) return;
    constexpr int bits = 11, buckets = 1 << bits, passes = 3;
    const std::size_t parts = part_count(plan_threads(threads, n, Work::quarter, min_boxes_per_thread), n);
    std::vector<std::uint32_t>& hist = scratch.hist;
    scratch.keys.resize(n);
    scratch.values.resize(n);
    std::uint32_t* src_k = keys.data();
    std::uint32_t* src_v = values.data();
    std::uint32_t* dst_k = scratch.keys.data();
    std::uint32_t* dst_v = scratch.values.data();
    if (parts == 1) {
        hist.assign(static_cast<std::size_t>(buckets) * passes, 0);
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint32_t k = keys[i];
            ++hist[k & (buckets - 1)];
            ++hist[buckets + ((k >> bits) & (buckets - 1))];
            ++hist[2 * buckets + (k >> (2 * bits))];
        }
    }
    for (int p = 0; p < passes; ++p) {
        const int shift = p * bits;
        // Counters of pass p: one run of `buckets` per part.
        std::uint32_t* h = hist.data() + (parts == 1 ? static_cast<std::size_t>(p) * buckets : 0);
        if (parts > 1) {
            hist.assign(static_cast<std::size_t>(buckets) * parts, 0);
            h = hist.data();
            run_parts(static_cast<unsigned>(parts), n, [&](std::size_t part, std::size_t first, std::size_t last) {
                std::uint32_t* const c = h + part * buckets;
                const std::uint32_t* const sk = src_k;
                for (std::size_t i = first; i < last; ++i) ++c[(sk[i] >> shift) & (buckets - 1)];
            });
        }
        const std::uint32_t first_digit = (src_k[0] >> shift) & (buckets - 1);
        std::size_t same = 0;
        for (std::size_t part = 0; part < parts; ++part) same += h[part * buckets + first_digit];
        if (same == n) continue;  // one digit only
        std::uint32_t sum = 0;
        for (std::size_t b = 0; b < static_cast<std::size_t>(buckets); ++b)
            for (std::size_t part = 0; part < parts; ++part) {
                std::uint32_t& c = h[part * buckets + b];
                const std::uint32_t k = c;
                c = sum;
                sum += k;
            }
        run_parts(static_cast<unsigned>(parts), n, [&](std::size_t part, std::size_t first, std::size_t last) {
            std::uint32_t* const at = h + part * buckets;
            const std::uint32_t* const sk = src_k;
            const std::uint32_t* const sv = src_v;
            std::uint32_t* const dk = dst_k;
            std::uint32_t* const dv = dst_v;
            for (std::size_t i = first; i < last; ++i) {
                const std::uint32_t k = sk[i];
                const std::uint32_t to = at[(k >> shift) & (buckets - 1)]++;
                dk[to] = k;
                dv[to] = sv[i];
            }
        });
        std::swap(src_k, dst_k);
        std::swap(src_v, dst_v);
    }
    if (src_k != keys.data()) {
        keys.swap(scratch.keys);
        values.swap(scratch.values);
    }
}

/// Reusable memory for sort_by_value.
struct SortScratch {
    std::vector<std::uint32_t> keys;
    RadixScratch radix;
    std::vector<std::pair<std::uint64_t, std::uint32_t>> keyed;
};

/// order = 0..n-1 sorted by values[i], ties in index order: a stable radix
/// sort for float (on up to `threads` threads), a comparison sort on exact
/// 64-bit keys otherwise (no rounding: sweeps rely on the order being
/// exact). No allocation once the buffers have grown.
template <class T>
void sort_by_value(const T* values, std::size_t n, std::vector<std::uint32_t>& order, SortScratch& s,
                   unsigned threads = 1, std::size_t min_boxes_per_thread = default_min_boxes_per_thread) {
    order.resize(n);
    if constexpr (std::is_same_v<T, float>) {
        s.keys.resize(n);
        const unsigned key_threads = plan_threads(threads, n, Work::eighth, min_boxes_per_thread);
        run_parts(key_threads, n, [&](std::size_t, std::size_t first, std::size_t last) {
            for (std::size_t i = first; i < last; ++i) {
                s.keys[i] = float_key(values[i]);
                order[i] = static_cast<std::uint32_t>(i);
            }
        });
        radix_sort(s.keys, order, s.radix, threads, min_boxes_per_thread);
    } else {
        s.keyed.resize(n);
        for (std::size_t i = 0; i < n; ++i)
            s.keyed[i] = {double_key(static_cast<double>(values[i])), static_cast<std::uint32_t>(i)};
        std::sort(s.keyed.begin(), s.keyed.end());
        for (std::size_t i = 0; i < n; ++i) order[i] = s.keyed[i].second;
    }
}

}  // namespace detail
}  // namespace broadphase
