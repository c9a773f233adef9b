// Stable LSD radix sort of 32-bit keys carrying 32-bit values, and the
// float-to-key map it needs. O(n) per pass, three 11-bit passes at most;
// passes where every key has the same digit are skipped. Stable, so equal
// keys keep their input order and the result is the same on every run.
#pragma once

#include <cstdint>
#include <cstring>
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

}  // namespace detail
}  // namespace broadphase
