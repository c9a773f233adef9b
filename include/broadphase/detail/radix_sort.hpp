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
struct RadixScratch {
    std::vector<std::uint32_t> keys, values, hist;
};

/// Sorts keys[0..n) ascending, permuting values alongside. Reuses scratch.
inline void radix_sort(std::vector<std::uint32_t>& keys, std::vector<std::uint32_t>& values, RadixScratch& scratch) {
    const std::size_t n = keys.size();
    if (n < 2) return;
    constexpr int bits = 11, buckets = 1 << bits, passes = 3;
    std::vector<std::uint32_t>& hist = scratch.hist;
    hist.assign(static_cast<std::size_t>(buckets) * passes, 0);
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t k = keys[i];
        ++hist[k & (buckets - 1)];
        ++hist[buckets + ((k >> bits) & (buckets - 1))];
        ++hist[2 * buckets + (k >> (2 * bits))];
    }
    scratch.keys.resize(n);
    scratch.values.resize(n);
    std::uint32_t* src_k = keys.data();
    std::uint32_t* src_v = values.data();
    std::uint32_t* dst_k = scratch.keys.data();
    std::uint32_t* dst_v = scratch.values.data();
    for (int p = 0; p < passes; ++p) {
        std::uint32_t* h = hist.data() + static_cast<std::size_t>(p) * buckets;
        const int shift = p * bits;
        if (h[(src_k[0] >> shift) & (buckets - 1)] == n) continue;  // one digit only
        std::uint32_t sum = 0;
        for (int b = 0; b < buckets; ++b) {
            const std::uint32_t c = h[b];
            h[b] = sum;
            sum += c;
        }
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint32_t k = src_k[i];
            const std::uint32_t at = h[(k >> shift) & (buckets - 1)]++;
            dst_k[at] = k;
            dst_v[at] = src_v[i];
        }
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
/// sort for float, a comparison sort on exact 64-bit keys otherwise (no
/// rounding: sweeps rely on the order being exact). No allocation once the
/// buffers have grown.
template <class T>
void sort_by_value(const T* values, std::size_t n, std::vector<std::uint32_t>& order, SortScratch& s) {
    order.resize(n);
    if constexpr (std::is_same_v<T, float>) {
        s.keys.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            s.keys[i] = float_key(values[i]);
            order[i] = static_cast<std::uint32_t>(i);
        }
        radix_sort(s.keys, order, s.radix);
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
