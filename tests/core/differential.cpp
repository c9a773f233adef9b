// The parts of the harness that need no template: comparisons and the list
// of algorithms. The float 3-D subjects: subjects.cpp.
#include "differential.hpp"

#include <sstream>

namespace bptest {

std::string pair_string(Pair p) {
    return "(" + std::to_string(p.a) + ", " + std::to_string(p.b) + ")";
}

std::string status_string(Status s) { return std::string("status: ") + broadphase::to_string(s); }

std::string index_list(const std::vector<std::uint32_t>& v, std::size_t limit) {
    std::ostringstream os;
    os << "[";
    for (std::size_t i = 0; i < v.size() && i < limit; ++i) os << (i ? ", " : "") << v[i];
    if (v.size() > limit) os << ", ... (" << v.size() << " in all)";
    os << "]";
    return os.str();
}

namespace {

std::vector<std::uint64_t> keys_of(const std::vector<Pair>& v) {
    std::vector<std::uint64_t> k(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) k[i] = (std::uint64_t(v[i].a) << 32) | v[i].b;
    return k;
}

Pair pair_of(std::uint64_t k) { return Pair{std::uint32_t(k >> 32), std::uint32_t(k)}; }

void list_some(std::ostream& os, const std::vector<std::uint64_t>& keys, const char* what) {
    if (keys.empty()) return;
    os << "\n  " << keys.size() << " " << what << ":";
    for (std::size_t i = 0; i < keys.size() && i < 8; ++i) os << " " << pair_string(pair_of(keys[i]));
    if (keys.size() > 8) os << " ...";
}

}  // namespace

::testing::AssertionResult same_pair_set(std::vector<Pair> got_pairs, std::vector<Pair> want_pairs) {
    std::vector<std::uint64_t> got = keys_of(got_pairs);
    std::vector<std::uint64_t> want = keys_of(want_pairs);
    got_pairs.clear();
    got_pairs.shrink_to_fit();
    std::sort(got.begin(), got.end());
    if (!std::is_sorted(want.begin(), want.end())) std::sort(want.begin(), want.end());

    std::vector<std::uint64_t> dups;
    for (std::size_t i = 1; i < got.size(); ++i)
        if (got[i] == got[i - 1] && (dups.empty() || dups.back() != got[i])) dups.push_back(got[i]);
    got.erase(std::unique(got.begin(), got.end()), got.end());

    std::vector<std::uint64_t> missing, extra;
    std::set_difference(want.begin(), want.end(), got.begin(), got.end(), std::back_inserter(missing));
    std::set_difference(got.begin(), got.end(), want.begin(), want.end(), std::back_inserter(extra));
    if (dups.empty() && missing.empty() && extra.empty()) return ::testing::AssertionSuccess();

    std::ostringstream os;
    os << "pair sets differ: expected " << want.size() << " pairs, got " << got.size() << " distinct";
    list_some(os, missing, "missing");
    list_some(os, extra, "extra (not overlapping, invalid or out of range)");
    list_some(os, dups, "delivered more than once");
    return ::testing::AssertionFailure() << os.str();
}

::testing::AssertionResult subset_of_pairs(std::vector<Pair> got_pairs, std::vector<Pair> want_pairs) {
    std::vector<std::uint64_t> got = keys_of(got_pairs);
    std::vector<std::uint64_t> want = keys_of(want_pairs);
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    std::vector<std::uint64_t> dups;
    for (std::size_t i = 1; i < got.size(); ++i)
        if (got[i] == got[i - 1]) dups.push_back(got[i]);
    got.erase(std::unique(got.begin(), got.end()), got.end());
    std::vector<std::uint64_t> extra;
    std::set_difference(got.begin(), got.end(), want.begin(), want.end(), std::back_inserter(extra));
    if (dups.empty() && extra.empty()) return ::testing::AssertionSuccess();
    std::ostringstream os;
    os << "incomplete result is not a subset of the " << want.size() << " true pairs";
    list_some(os, extra, "extra (not overlapping, invalid or out of range)");
    list_some(os, dups, "delivered more than once");
    return ::testing::AssertionFailure() << os.str();
}

::testing::AssertionResult identical_pairs(const std::vector<Pair>& first, const std::vector<Pair>& second) {
    if (first.size() != second.size())
        return ::testing::AssertionFailure() << "not deterministic: " << first.size() << " pairs, then "
                                             << second.size();
    for (std::size_t i = 0; i < first.size(); ++i)
        if (first[i] != second[i])
            return ::testing::AssertionFailure() << "not deterministic: position " << i << " was "
                                                 << pair_string(first[i]) << ", then " << pair_string(second[i]);
    return ::testing::AssertionSuccess();
}

::testing::AssertionResult sorted_pairs(const std::vector<Pair>& v) {
    for (std::size_t i = 1; i < v.size(); ++i)
        if (v[i] < v[i - 1] || v[i] == v[i - 1])
            return ::testing::AssertionFailure() << "not strictly sorted by (a, b): position " << i << " "
                                                 << pair_string(v[i - 1]) << " then " << pair_string(v[i]);
    return ::testing::AssertionSuccess();
}

::testing::AssertionResult well_formed_self(const std::vector<Pair>& v, std::size_t n) {
    for (std::size_t i = 0; i < v.size(); ++i)
        if (!(v[i].a < v[i].b) || v[i].b >= n)
            return ::testing::AssertionFailure() << "self pair " << pair_string(v[i]) << " at position " << i
                                                 << " breaks a < b < n (n = " << n << ")";
    return ::testing::AssertionSuccess();
}

::testing::AssertionResult well_formed_cross(const std::vector<Pair>& v, std::size_t na, std::size_t nb) {
    for (std::size_t i = 0; i < v.size(); ++i)
        if (v[i].a >= na || v[i].b >= nb)
            return ::testing::AssertionFailure() << "pair " << pair_string(v[i]) << " at position " << i
                                                 << " out of range (" << na << " x " << nb << ")";
    return ::testing::AssertionSuccess();
}

::testing::AssertionResult same_index_set(std::vector<std::uint32_t> got, const std::vector<std::uint32_t>& want) {
    std::sort(got.begin(), got.end());
    std::vector<std::uint32_t> dups;
    for (std::size_t i = 1; i < got.size(); ++i)
        if (got[i] == got[i - 1]) dups.push_back(got[i]);
    got.erase(std::unique(got.begin(), got.end()), got.end());
    if (dups.empty() && got == want) return ::testing::AssertionSuccess();
    std::vector<std::uint32_t> missing, extra;
    std::set_difference(want.begin(), want.end(), got.begin(), got.end(), std::back_inserter(missing));
    std::set_difference(got.begin(), got.end(), want.begin(), want.end(), std::back_inserter(extra));
    return ::testing::AssertionFailure() << "hits differ: expected " << want.size() << ", got " << got.size()
                                         << " distinct; missing " << index_list(missing, 8) << ", extra "
                                         << index_list(extra, 8) << ", duplicated " << index_list(dups, 8);
}

std::vector<Algorithm> all_algorithms() {
    return {std::begin(broadphase::concrete_algorithms), std::end(broadphase::concrete_algorithms)};
}

}  // namespace bptest
