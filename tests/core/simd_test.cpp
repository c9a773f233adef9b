// Every SIMD level the kernels can run on (broadphase/simd.hpp), forced one
// at a time with set_simd_level: the kernels themselves against plain loops
// over every run length and alignment, then every algorithm against the
// scalar reference (differential.hpp). Levels this CPU or build lacks are
// skipped, visibly (GTEST_SKIP names the level). Also the level API and
// the BROADPHASE_SIMD environment variable. Levels switched while other
// threads run: simd_threads_test.cpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "simd/dispatch.hpp"  // the kernels, tested directly
#include <broadphase/simd.hpp>

#include "differential.hpp"
#include "test_scenes.hpp"

namespace broadphase {
/// Failures print a level by name.
inline void PrintTo(SimdLevel l, std::ostream* os) { *os << simd_level_name(l); }
}  // namespace broadphase

namespace bptest {
namespace {

using broadphase::SimdLevel;
namespace bd = broadphase::detail;

const SimdLevel kLevels[] = {SimdLevel::scalar, SimdLevel::sse2, SimdLevel::avx2, SimdLevel::avx512};

std::string level_name(SimdLevel l) { return broadphase::simd_level_name(l); }

/// Forces the parameter's level for one test and restores the previous
/// one after; skips (visibly) where the level cannot run here.
class AtLevel : public ::testing::TestWithParam<SimdLevel> {
protected:
    void SetUp() override {
        saved_ = broadphase::simd_level();
        const SimdLevel want = GetParam();
        if (!broadphase::simd_level_supported(want))
            GTEST_SKIP() << "SIMD level " << level_name(want) << " not supported here (best: "
                         << level_name(broadphase::best_simd_level()) << ")";
        ASSERT_EQ(broadphase::set_simd_level(want), want);
        ASSERT_EQ(broadphase::simd_level(), want);
    }
    void TearDown() override { broadphase::set_simd_level(saved_); }

private:
    SimdLevel saved_ = SimdLevel::scalar;
};

std::string level_param_name(const ::testing::TestParamInfo<SimdLevel>& info) { return level_name(info.param); }

// ---------------------------------------------------------------------------
// The kernels against plain loops

/// Struct-of-arrays boxes padded as the algorithms pad them (simd::width
/// NaN lanes past n, which must never be reported), plus the view.
struct Soa {
    std::vector<float> lo[3], hi[3];
    bd::SoaView<float, 3> view;

    explicit Soa(const Boxes& b) {
        const std::size_t n = b.size();
        const std::size_t pad = static_cast<std::size_t>(bd::simd::width);
        for (int k = 0; k < 3; ++k) {
            lo[k].assign(n + pad, std::numeric_limits<float>::quiet_NaN());
            hi[k].assign(n + pad, std::numeric_limits<float>::quiet_NaN());
            for (std::size_t i = 0; i < n; ++i) {
                lo[k][i] = b[i].min[k];
                hi[k][i] = b[i].max[k];
            }
            view.lo[k] = lo[k].data();
            view.hi[k] = hi[k].data();
        }
        view.n = n;
    }
};

/// The definition: closed boxes overlap iff no axis separates them.
bool overlap(const Box& a, const Box& b) {
    for (int k = 0; k < 3; ++k)
        if (a.max[k] < b.min[k] || b.max[k] < a.min[k]) return false;
    return true;
}

/// n valid boxes on a small integer grid (many touching faces and equal
/// coordinates), some with infinite sides and signed zeros.
Boxes kernel_boxes(std::size_t n, std::uint64_t seed) {
    Random r(seed);
    Boxes out;
    const float inf = std::numeric_limits<float>::infinity();
    for (std::size_t i = 0; i < n; ++i) {
        Box b;
        for (int k = 0; k < 3; ++k) {
            b.min[k] = static_cast<float>(r.below(8));
            b.max[k] = b.min[k] + static_cast<float>(r.below(3));
        }
        switch (r.below(12)) {
            case 0: b.min[0] = -inf; break;
            case 1: b.max[1] = inf; break;
            case 2: b.min[2] = -0.0f, b.max[2] = 0.0f; break;
            default: break;
        }
        out.push_back(b);
    }
    return out;
}

std::vector<Box> kernel_queries() {
    const float inf = std::numeric_limits<float>::infinity();
    return {box3(0, 0, 0, 0, 0, 0),       box3(2, 3, 1, 4, 5, 3),        box3(7, 7, 7, 9, 9, 9),
            box3(-inf, -inf, -inf, inf, inf, inf), box3(3, -inf, 0, 3, inf, 0), box3(0.0f, 0, -0.0f, 0.0f, 8, 0.0f),
            box3(100, 100, 100, 101, 101, 101)};
}

/// Boxes sorted by min on `axis`.
Boxes sorted_by(const Boxes& b, int axis) {
    std::vector<Box> v;
    for (std::size_t i = 0; i < b.size(); ++i) v.push_back(b[i]);
    std::stable_sort(v.begin(), v.end(), [axis](const Box& x, const Box& y) { return x.min[axis] < y.min[axis]; });
    return boxes_of(v);
}

constexpr std::size_t kKernelN = 45;  // every begin/end alignment for 16 lanes, and tails

// Calls `kernel(tag, args)` on the copy of `level` directly (the tag of
// detail::on_level: the widest copy compiled at or below `level`, found by
// argument-dependent lookup): the entry points send short runs to the SSE2
// copy at every level, so the wide copies' short-run paths are tested this way.
#define BPTEST_COPY(level, kernel, ...) bd::on_level(level, [&](auto isa) { return kernel(isa, __VA_ARGS__); })

class Kernels : public AtLevel {};

TEST_P(Kernels, ScanEveryRange) {
    const Boxes b = kernel_boxes(kKernelN, 3);
    const Soa s(b);
    for (const Box& q : kernel_queries()) {
        for (std::size_t begin = 0; begin <= kKernelN; ++begin) {
            for (std::size_t end = begin; end <= kKernelN; ++end) {
                std::vector<std::size_t> want, got, got_padded, copy, copy_padded;
                for (std::size_t j = begin; j < end; ++j)
                    if (overlap(b[j], q)) want.push_back(j);
                bd::scan_overlaps(s.view, begin, end, q, [&](std::size_t j) { got.push_back(j); });
                bd::scan_overlaps_padded(s.view, begin, end, q, [&](std::size_t j) { got_padded.push_back(j); });
                auto to_copy = [&](std::size_t j) { copy.push_back(j); };
                auto to_copy_padded = [&](std::size_t j) { copy_padded.push_back(j); };
                BPTEST_COPY(GetParam(), scan_overlaps, s.view, begin, end, q, to_copy);
                BPTEST_COPY(GetParam(), scan_overlaps_padded, s.view, begin, end, q, to_copy_padded);
                ASSERT_EQ(got, want) << "scan_overlaps [" << begin << ", " << end << ")";
                ASSERT_EQ(got_padded, want) << "scan_overlaps_padded [" << begin << ", " << end << ")";
                ASSERT_EQ(copy, want) << "this level's scan_overlaps [" << begin << ", " << end << ")";
                ASSERT_EQ(copy_padded, want) << "this level's scan_overlaps_padded [" << begin << ", " << end << ")";
            }
        }
    }
}

/// scan_runs_padded: several runs for one query, the hits of each run in
/// order, run after run; also past the kernel's hit buffer (the AVX-512
/// copy gathers up to 256 hits before emitting them).
TEST_P(Kernels, ScanRunsInOrder) {
    auto check = [&](const Boxes& b, const Box& q, const std::vector<std::size_t>& b0,
                     const std::vector<std::size_t>& b1) {
        const Soa s(b);
        std::vector<std::size_t> want, got, copy;
        for (std::size_t r = 0; r < b0.size(); ++r)
            for (std::size_t j = b0[r]; j < b1[r]; ++j)
                if (overlap(b[j], q)) want.push_back(j);
        const int runs = static_cast<int>(b0.size());
        bd::scan_runs_padded(s.view, b0.data(), b1.data(), runs, q, [&](std::size_t j) { got.push_back(j); });
        auto to_copy = [&](std::size_t j) { copy.push_back(j); };
        BPTEST_COPY(GetParam(), scan_runs_padded, s.view, b0.data(), b1.data(), runs, q, to_copy);
        ASSERT_EQ(got, want);
        ASSERT_EQ(copy, want) << "this level's scan_runs_padded";
    };
    const Boxes b = kernel_boxes(kKernelN, 5);
    std::uint64_t state = 12345;
    auto below = [&](std::size_t n) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<std::size_t>((state >> 33) % n);
    };
    for (const Box& q : kernel_queries()) {
        for (int trial = 0; trial < 200; ++trial) {
            std::vector<std::size_t> b0, b1;
            const std::size_t runs = below(6);
            for (std::size_t r = 0; r < runs; ++r) {
                const std::size_t x = below(kKernelN + 1), y = below(kKernelN + 1);
                b0.push_back(std::min(x, y));
                b1.push_back(std::max(x, y));
            }
            check(b, q, b0, b1);
        }
    }
    // Every box hit, five whole runs of 300: 1,500 hits.
    const float inf = std::numeric_limits<float>::infinity();
    check(kernel_boxes(300, 6), box3(-inf, -inf, -inf, inf, inf, inf), {0, 0, 0, 0, 0}, {300, 300, 300, 300, 300});
}

/// scan_short_runs_padded: the same hits in the same order as the runs
/// scanned in turn when every run is short (lengths 0-6 here, so both
/// answers come up), and nothing emitted when it declines.
TEST_P(Kernels, ScanShortRunsInOrderOrDecline) {
    const Boxes b = kernel_boxes(kKernelN, 7);
    const Soa s(b);
    std::uint64_t state = 777;
    auto below = [&](std::size_t n) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<std::size_t>((state >> 33) % n);
    };
    std::size_t taken = 0;
    for (const Box& q : kernel_queries()) {
        for (int trial = 0; trial < 300; ++trial) {
            std::size_t b0[5], b1[5];
            const int runs = 1 + static_cast<int>(below(5));
            for (int r = 0; r < runs; ++r) {
                b0[r] = below(kKernelN + 1);
                b1[r] = std::min(kKernelN, b0[r] + below(7));
            }
            std::vector<std::size_t> want, got, copy;
            for (int r = 0; r < runs; ++r)
                for (std::size_t j = b0[r]; j < b1[r]; ++j)
                    if (overlap(b[j], q)) want.push_back(j);
            const bool done =
                bd::scan_short_runs_padded(s.view, b0, b1, runs, q, [&](std::size_t j) { got.push_back(j); });
            auto to_copy = [&](std::size_t j) { copy.push_back(j); };
            const bool copy_done =
                BPTEST_COPY(GetParam(), scan_short_runs_padded, s.view, b0, b1, runs, q, to_copy);
            if (done) ++taken;
            ASSERT_EQ(got, done ? want : std::vector<std::size_t>{});
            ASSERT_EQ(copy, copy_done ? want : std::vector<std::size_t>{}) << "this level's scan_short_runs_padded";
        }
    }
    if (GetParam() != SimdLevel::scalar) {
        EXPECT_GT(taken, 0u);
    }
}

TEST_P(Kernels, SweepEveryRange) {
    for (int axis = 0; axis < 3; ++axis) {
        const Boxes b = sorted_by(kernel_boxes(kKernelN, 4 + static_cast<std::uint64_t>(axis)), axis);
        const Soa s(b);
        for (const Box& q : kernel_queries()) {
            for (std::size_t begin = 0; begin <= kKernelN; ++begin) {
                for (std::size_t end = begin; end <= kKernelN; ++end) {
                    std::vector<std::size_t> want, got, copy;
                    for (std::size_t j = begin; j < end; ++j)
                        if (overlap(b[j], q)) want.push_back(j);
                    bd::sweep_overlaps(s.view, begin, end, axis, q, [&](std::size_t j) { got.push_back(j); });
                    auto to_copy = [&](std::size_t j) { copy.push_back(j); };
                    BPTEST_COPY(GetParam(), sweep_overlaps, s.view, begin, end, axis, q, to_copy);
                    ASSERT_EQ(got, want) << "sweep_overlaps axis " << axis << " [" << begin << ", " << end << ")";
                    ASSERT_EQ(copy, want) << "this level's sweep_overlaps axis " << axis << " [" << begin << ", "
                                          << end << ")";
                }
            }
        }
    }
}

TEST_P(Kernels, SweepPairsEveryLengthAndStart) {
    // Windows short and long (the diagonal steps and the per-box finish).
    for (std::size_t n = 0; n <= kKernelN; ++n) {
        for (int axis = 0; axis < 3; ++axis) {
            const Boxes b = sorted_by(kernel_boxes(n, 50 + n), axis);
            const Soa s(b);
            for (std::size_t first_end : {n, n / 2, std::size_t(1), std::size_t(0), n + 5}) {
                std::vector<Pair> want, got, copy;
                for (std::size_t i = 0; i < std::min(first_end, n); ++i)
                    for (std::size_t j = i + 1; j < n; ++j)
                        if (overlap(b[i], b[j]))
                            want.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j)});
                bd::sweep_pairs(s.view, axis, first_end, [&](std::size_t i, std::size_t j) {
                    got.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j)});
                });
                auto to_copy = [&](std::size_t i, std::size_t j) {
                    copy.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j)});
                };
                BPTEST_COPY(GetParam(), sweep_pairs, s.view, axis, std::min(first_end, n), to_copy);
                ASSERT_TRUE(same_pair_set(got, want))
                    << "sweep_pairs n=" << n << " axis=" << axis << " first_end=" << first_end;
                ASSERT_TRUE(same_pair_set(copy, want))
                    << "this level's sweep_pairs n=" << n << " axis=" << axis << " first_end=" << first_end;
            }
        }
    }
}

TEST_P(Kernels, ScaleClampTruncBitExact) {
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float specials[] = {0.0f, -0.0f, 1e-40f, -1e-40f, 0.5f, -0.5f, 0.99999994f, 1.0f, 2.5f, -2.5f,
                              1e7f, -1e7f, 3e38f, -3e38f, inf, -inf, nan, 12345.678f, -0.25f, 7.0f};
    std::vector<float> x;
    Random r(11);
    for (float f : specials) x.push_back(f);
    for (int i = 0; i < 60; ++i) x.push_back(static_cast<float>(r.uniform(-5000, 5000)));
    const float lim = 1 << 20;
    for (float origin : {0.0f, -3.25f, 1e6f}) {
        for (float scale : {1.0f, 0.37f, 1e-3f, 1e5f}) {
            for (std::size_t begin = 0; begin < 20; ++begin) {
                const std::size_t n = x.size() - begin;
                std::vector<std::int32_t> got(n, -7), copy(n, -7);
                bd::scale_clamp_trunc(x.data() + begin, n, origin, scale, lim, got.data());
                BPTEST_COPY(GetParam(), scale_clamp_trunc, x.data() + begin, n, origin, scale, lim, copy.data());
                for (std::size_t i = 0; i < n; ++i) {
                    const std::int32_t want = bd::scale_clamp_trunc(x[begin + i], origin, scale, lim);
                    ASSERT_EQ(got[i], want) << "x=" << x[begin + i] << " origin=" << origin << " scale=" << scale;
                    ASSERT_EQ(copy[i], want) << "this level's, x=" << x[begin + i] << " origin=" << origin;
                }
            }
        }
    }
}

TEST_P(Kernels, AllValidFindsEachInvalidBox) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (std::size_t n = 0; n <= kKernelN; ++n) {
        const Boxes good = kernel_boxes(n, 90 + n);
        EXPECT_TRUE(bd::all_valid(Soa(good).view, 0, n)) << "n=" << n;
        for (std::size_t bad = 0; bad < n; ++bad) {
            for (int variant = 0; variant < 3; ++variant) {
                Boxes b = good;
                Box x = b[bad];
                const int k = static_cast<int>(bad % 3);
                if (variant == 0) x.min[k] = nan;
                if (variant == 1) x.max[k] = nan;
                if (variant == 2) x.min[k] = 5, x.max[k] = 4;
                b.set(bad, x);
                const Soa s(b);
                bool copy = true;
                if (!BPTEST_COPY(GetParam(), all_valid, s.view, 0, n)) copy = false;
                ASSERT_FALSE(copy) << "this level's all_valid, n=" << n << " bad=" << bad;
                ASSERT_FALSE(bd::all_valid(s.view, 0, n)) << "n=" << n << " bad=" << bad << " variant=" << variant;
                ASSERT_TRUE(bd::all_valid(s.view, bad + 1, n)) << "after the bad box";
                ASSERT_TRUE(bd::all_valid(s.view, 0, bad)) << "before the bad box";
            }
        }
    }
}

/// Group boxes of a Soa's boxes, M to a group, padded as a tree level is.
struct ClusterLevel {
    Soa entries;
    std::vector<float> lo[3], hi[3];
    std::vector<std::uint32_t> ids;
    bd::SoaView<float, 3> groups;

    ClusterLevel(const Boxes& b, std::size_t m, std::uint32_t id_base) : entries(padded(b, m)) {
        entries.view.n = b.size();
        const std::size_t groups_n = (b.size() + m - 1) / m;
        for (int k = 0; k < 3; ++k) {
            lo[k].assign(groups_n + 32, 0.0f);
            hi[k].assign(groups_n + 32, 0.0f);
            for (std::size_t g = 0; g < groups_n; ++g) {
                lo[k][g] = b[g * m].min[k];
                hi[k][g] = b[g * m].max[k];
                for (std::size_t i = g * m; i < std::min(b.size(), g * m + m); ++i) {
                    lo[k][g] = std::min(lo[k][g], b[i].min[k]);
                    hi[k][g] = std::max(hi[k][g], b[i].max[k]);
                }
            }
            groups.lo[k] = lo[k].data();
            groups.hi[k] = hi[k].data();
        }
        groups.n = groups_n;
        // Ids in reverse order past a base: (min, max) must reorder them.
        ids.assign(groups_n * m + 32, 0u);
        for (std::size_t i = 0; i < b.size(); ++i) ids[i] = id_base + static_cast<std::uint32_t>(b.size() - i);
    }
    bd::ClusterSide<float, 3> side(bool with_ids) const {
        return {entries.view, groups, with_ids ? ids.data() : nullptr};
    }
    /// The boxes, then NaN boxes up to a whole group past the last: the kernels read whole groups.
    static Boxes padded(const Boxes& b, std::size_t m) {
        Boxes out = b;
        const float nan = std::numeric_limits<float>::quiet_NaN();
        while (out.size() % m || out.size() < b.size() + m) out.push_back(box3(nan, nan, nan, nan, nan, nan));
        return out;
    }
};

template <int M>
void check_cluster_pair_hits(SimdLevel level, std::size_t na, std::size_t nb, std::uint64_t seed) {
    const Boxes a = kernel_boxes(na, seed), b = kernel_boxes(nb, seed + 1000);
    const ClusterLevel la(a, M, 0), lb(b, M, 5000);
    for (const bool with_ids : {true, false}) {
        for (const int mode : {bd::cluster_two_sets, bd::cluster_after_only, bd::cluster_diagonal}) {
            const bool one_set = mode != bd::cluster_two_sets;
            const ClusterLevel& second = one_set ? la : lb;
            const Boxes& bb = one_set ? a : b;
            const bd::ClusterSide<float, 3> sa = la.side(with_ids), sb = second.side(with_ids);
            // Every pair of groups (one set: g <= h), and the expected pairs in the kernel's order.
            std::vector<Pair> groups, want;
            for (std::uint32_t g = 0; g < la.groups.n; ++g) {
                for (std::uint32_t h = one_set ? g : 0; h < second.groups.n; ++h) {
                    groups.push_back({g, h});
                    for (std::size_t i = g * M; i < std::min(a.size(), std::size_t(g) * M + M); ++i) {
                        for (std::size_t j = h * M; j < std::min(bb.size(), std::size_t(h) * M + M); ++j) {
                            if (one_set && g == h && (j < i || (j == i && mode == bd::cluster_after_only))) continue;
                            if (!overlap(a[i], bb[j])) continue;
                            std::uint32_t x = with_ids ? sa.ids[i] : static_cast<std::uint32_t>(i);
                            std::uint32_t y = with_ids ? sb.ids[j] : static_cast<std::uint32_t>(j);
                            if (one_set && y < x) std::swap(x, y);
                            want.push_back({x, y});
                        }
                    }
                }
            }
            std::vector<Pair> got, copy;
            std::size_t largest = 0;
            auto to_got = [&](const Pair* p, std::size_t k) { got.insert(got.end(), p, p + k); };
            auto to_copy = [&](const Pair* p, std::size_t k) {
                largest = std::max(largest, k);
                copy.insert(copy.end(), p, p + k);
            };
            bd::cluster_pair_hits<M>(sa, sb, groups.data(), groups.size(), mode, to_got);
            BPTEST_COPY(level, cluster_pair_hits, std::integral_constant<int, M>{}, sa, sb, groups.data(), groups.size(),
                        mode, to_copy);
            const std::string what = "M=" + std::to_string(M) + " na=" + std::to_string(na) + " nb=" +
                                     std::to_string(nb) + " mode=" + std::to_string(mode) +
                                     (with_ids ? " ids" : " positions");
            ASSERT_EQ(got, want) << what;
            ASSERT_EQ(copy, want) << "this level's copy, " << what;
            ASSERT_LE(largest, bd::cluster_block + M) << what;
        }
    }
}

// The cluster-pair kernel: tails of every length (lanes past the last box
// masked, whatever they hold: NaN here), a group with itself (j > i, or
// j >= i on the upper levels), groups of two sets, ids or positions, each
// pair once, in the documented order.
TEST_P(Kernels, ClusterPairHitsEveryTail) {
    for (std::size_t na : {1, 2, 7, 8, 9, 15, 16, 17, 31, 45}) {
        for (std::size_t nb : {1, 8, 13, 16, 33}) {
            check_cluster_pair_hits<8>(GetParam(), na, nb, 200 + na * 7 + nb);
            check_cluster_pair_hits<16>(GetParam(), na, nb, 300 + na * 7 + nb);
        }
    }
    // Dense: every box overlapping every other, many blocks of pairs.
    check_cluster_pair_hits<16>(GetParam(), 300, 200, 9);
}

#undef BPTEST_COPY
#undef BPTEST_CASE_AVX512
#undef BPTEST_CASE_AVX2
#undef BPTEST_CASE_SSE2

INSTANTIATE_TEST_SUITE_P(Simd, Kernels, ::testing::ValuesIn(kLevels), level_param_name);

// ---------------------------------------------------------------------------
// Every algorithm at every level, against the scalar reference

/// The subjects worth running per level: each algorithm class, and the
/// front door's automatic choice (the other front-door subjects run the same
/// algorithm code as the classes).
std::vector<std::pair<SimdLevel, PairSubjectInfo>> level_pair_subjects() {
    std::vector<std::pair<SimdLevel, PairSubjectInfo>> out;
    for (SimdLevel l : kLevels)
        for (const PairSubjectInfo& s : pair_subjects())
            if (s.name.rfind("front_door_", 0) != 0 || s.name == "front_door_automatic") out.push_back({l, s});
    return out;
}
std::vector<std::pair<SimdLevel, IndexSubjectInfo>> level_index_subjects() {
    std::vector<std::pair<SimdLevel, IndexSubjectInfo>> out;
    for (SimdLevel l : kLevels)
        for (const IndexSubjectInfo& s : index_subjects())
            if (s.name.rfind("index_", 0) != 0 || s.name == "index_automatic") out.push_back({l, s});
    return out;
}

template <class Info>
class LevelTest : public ::testing::TestWithParam<std::pair<SimdLevel, Info>> {
protected:
    void SetUp() override {
        saved_ = broadphase::simd_level();
        const SimdLevel want = this->GetParam().first;
        if (!broadphase::simd_level_supported(want))
            GTEST_SKIP() << "SIMD level " << level_name(want) << " not supported here (best: "
                         << level_name(broadphase::best_simd_level()) << ")";
        ASSERT_EQ(broadphase::set_simd_level(want), want);
        subject_ = this->GetParam().second.make();
    }
    void TearDown() override { broadphase::set_simd_level(saved_); }
    decltype(std::declval<Info>().make()) subject_;

private:
    SimdLevel saved_ = SimdLevel::scalar;
};

class LevelPairs : public LevelTest<PairSubjectInfo> {};
class LevelIndex : public LevelTest<IndexSubjectInfo> {};

TEST_P(LevelPairs, RandomScenes) {
    for (std::size_t n : kSizes) {
        for (std::uint64_t seed = 1; seed <= std::min<std::uint64_t>(seeds_for(n), 8); ++seed) {
            SCOPED_TRACE(case_name(n, seed));
            const Boxes a = random_case(n, seed);
            check_self(*subject_, a);
            check_cross(*subject_, a, random_scene<float, 3>(n / 2 + 1, seed + 4000));
            if (HasFailure()) return;
        }
    }
}

TEST_P(LevelPairs, LargerScenes) {
    // Long runs per cell and long sweep windows: the kernels' wide paths.
    for (RandomKind kind : {RandomKind::dense, RandomKind::snapped, RandomKind::mixed}) {
        SCOPED_TRACE(kind_name(kind));
        check_self(*subject_, random_scene<float, 3>(4000, 21, kind));
        if (HasFailure()) return;
    }
}

#define BPTEST_LEVEL_PAIRS_TEST(Name, make_scene) \
    TEST_P(LevelPairs, Name) {                    \
        const ScenePair s = make_scene();         \
        check_pairs(*subject_, s.a, s.b);         \
    }
BPTEST_ADVERSARIAL_SCENES(BPTEST_LEVEL_PAIRS_TEST)
#undef BPTEST_LEVEL_PAIRS_TEST

TEST_P(LevelIndex, RandomAndAdversarialScenes) {
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        SCOPED_TRACE(case_name(1000, seed));
        check_indexes(*subject_, random_case(1000, seed), random_scene<float, 3>(300, seed + 4000));
        if (HasFailure()) return;
    }
    for (ScenePair (*make)() : {touching_lattice_scene, infinite_slabs_scene, invalid_mixed_scene, clustered_scene}) {
        const ScenePair s = make();
        check_indexes(*subject_, s.a, s.b);
        if (HasFailure()) return;
    }
}

template <class P>
std::string level_subject_name(const ::testing::TestParamInfo<P>& info) {
    return level_name(info.param.first) + "_" + info.param.second.name;
}

using LevelPairParam = std::pair<SimdLevel, PairSubjectInfo>;
using LevelIndexParam = std::pair<SimdLevel, IndexSubjectInfo>;
INSTANTIATE_TEST_SUITE_P(Simd, LevelPairs, ::testing::ValuesIn(level_pair_subjects()),
                         level_subject_name<LevelPairParam>);
INSTANTIATE_TEST_SUITE_P(Simd, LevelIndex, ::testing::ValuesIn(level_index_subjects()),
                         level_subject_name<LevelIndexParam>);

// ---------------------------------------------------------------------------
// The level API

/// Restores the level after a test that changes it.
struct LevelGuard {
    SimdLevel saved = broadphase::simd_level();
    ~LevelGuard() { broadphase::set_simd_level(saved); }
};

TEST(SimdApi, NamesRoundTrip) {
    for (SimdLevel l : kLevels) {
        SimdLevel back = SimdLevel::avx512;
        if (l == SimdLevel::avx512) back = SimdLevel::scalar;
        ASSERT_TRUE(broadphase::parse_simd_level(broadphase::simd_level_name(l), back));
        EXPECT_EQ(back, l);
    }
    SimdLevel untouched = SimdLevel::sse2;
    for (const char* bad : {"", "AVX2", "avx", "sse4", "native", "avx512f"}) {
        EXPECT_FALSE(broadphase::parse_simd_level(bad, untouched)) << bad;
        EXPECT_EQ(untouched, SimdLevel::sse2);
    }
    EXPECT_FALSE(broadphase::parse_simd_level(nullptr, untouched));
}

TEST(SimdApi, BestLevelAndClamping) {
    LevelGuard guard;
    const SimdLevel best = broadphase::best_simd_level();
    std::printf("best SIMD level here: %s (the build's floor: %s)\n", level_name(best).c_str(),
                level_name(bd::simd_select::compiled_level()).c_str());
    EXPECT_GE(best, bd::simd_select::compiled_level());
#if !defined(BROADPHASE_SIMD_X86)
    EXPECT_EQ(best, SimdLevel::scalar);
#elif defined(__x86_64__) || defined(_M_X64)
    EXPECT_GE(best, SimdLevel::sse2);  // part of x86-64
#endif
    for (SimdLevel l : kLevels) {
        const SimdLevel got = broadphase::set_simd_level(l);
        EXPECT_EQ(got, l <= best ? l : best) << level_name(l);
        EXPECT_EQ(broadphase::simd_level(), got);
        EXPECT_EQ(broadphase::simd_level_supported(l), l <= best);
    }
}

/// Runs the environment variable's first read again (what the first kernel
/// call does), with `value` set, and restores everything after.
#if !defined(_WIN32)
SimdLevel level_from_environment(const char* value) {
    LevelGuard guard;
    const char* old = std::getenv("BROADPHASE_SIMD");
    const std::string saved = old ? old : "";
    if (value) setenv("BROADPHASE_SIMD", value, 1);
    else unsetenv("BROADPHASE_SIMD");
    const SimdLevel got = bd::simd_select::initialise();
    if (old) setenv("BROADPHASE_SIMD", saved.c_str(), 1);
    else unsetenv("BROADPHASE_SIMD");
    return got;
}
#else
SimdLevel level_from_environment(const char*) { return broadphase::best_simd_level(); }
#endif

TEST(SimdApi, EnvironmentVariable) {
#if defined(_WIN32)
    GTEST_SKIP() << "uses setenv";
#endif
    const SimdLevel best = broadphase::best_simd_level();
    for (SimdLevel l : kLevels)
        EXPECT_EQ(level_from_environment(broadphase::simd_level_name(l)), l <= best ? l : best) << level_name(l);
    EXPECT_EQ(level_from_environment(nullptr), best);
    EXPECT_EQ(level_from_environment(""), best);
    EXPECT_EQ(level_from_environment("fastest please"), best);
}

/// Under the ctest entries core.simd_env.<level>: the level this process
/// started with is the one BROADPHASE_SIMD names, or the best one when the
/// CPU lacks it (then skipped, so that the fallback is visible).
TEST(SimdEnv, StartedAtTheNamedLevel) {
    const char* env = std::getenv("BROADPHASE_SIMD");
    SimdLevel want;
    if (!broadphase::parse_simd_level(env, want)) GTEST_SKIP() << "BROADPHASE_SIMD not set to a level name";
    // This test runs first in its process (the ctest entry filters to it).
    const SimdLevel now = broadphase::simd_level();
    if (!broadphase::simd_level_supported(want)) {
        EXPECT_EQ(now, broadphase::best_simd_level());
        GTEST_SKIP() << "BROADPHASE_SIMD=" << env << ": not supported here, ran at " << level_name(now);
    }
    EXPECT_EQ(now, want);
}

}  // namespace
}  // namespace bptest

