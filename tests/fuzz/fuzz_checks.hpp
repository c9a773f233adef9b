// Checks shared by the fuzz targets: pair lists against the reference's.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include <broadphase/pairs.hpp>

#include "fuzz_input.hpp"

namespace bpfuzz {

inline bool no_duplicates(std::vector<broadphase::Pair> v) {
    std::sort(v.begin(), v.end());
    return std::adjacent_find(v.begin(), v.end()) == v.end();
}

inline bool subset_of(std::vector<broadphase::Pair> v, const std::vector<broadphase::Pair>& sorted_ref) {
    std::sort(v.begin(), v.end());
    return std::includes(sorted_ref.begin(), sorted_ref.end(), v.begin(), v.end());
}

/// What a call returned, against the reference's sorted pairs, under
/// `budget`: within it, exactly the reference (sorted when asked); over it,
/// pair_budget_exceeded with at most `budget` true pairs, none twice.
inline void check_pairs(const broadphase::Report& r, std::vector<broadphase::Pair> got,
                        const std::vector<broadphase::Pair>& ref, std::uint64_t budget, bool sorted) {
    if (ref.size() <= budget) {
        BPFUZZ_CHECK(r.status == broadphase::Status::ok);
        if (sorted) BPFUZZ_CHECK(std::is_sorted(got.begin(), got.end()));
        std::sort(got.begin(), got.end());
        BPFUZZ_CHECK(got == ref);
    } else {
        BPFUZZ_CHECK(r.status == broadphase::Status::pair_budget_exceeded);
        BPFUZZ_CHECK(got.size() <= budget);
        BPFUZZ_CHECK(no_duplicates(got));
        BPFUZZ_CHECK(subset_of(got, ref));
    }
}

}  // namespace bpfuzz
