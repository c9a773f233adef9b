// Heap allocations of a reused PairFinder / Index, counted by replacing the
// global operator new and delete (every form: plain, array, aligned,
// nothrow). After the first frame of a given size a rebuild must allocate
// nothing (broadphase.hpp). Also: an allocation failing anywhere inside a
// call gives Status::out_of_memory (or a correct result), never an exception.
//
// Its own executable, so that the replacement touches no other test. Under
// AddressSanitizer, which has its own operator new, nothing is replaced and
// every test here is skipped.
#include <atomic>
#include <cstdlib>
#include <new>

#include <broadphase/scenes.hpp>
#include <broadphase/spheres.hpp>

#include "differential.hpp"
#include "test_scenes.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define BPTEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BPTEST_ASAN 1
#endif
#endif

namespace {

std::atomic<bool> g_counting{false};
std::atomic<long> g_allocations{0};
/// > 0: that many more allocations succeed, then the next one fails.
std::atomic<long> g_fail_in{0};
std::atomic<bool> g_failed{false};

#ifndef BPTEST_ASAN
void* allocate(std::size_t size, std::size_t align, bool nothrow) {
    if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
    if (g_fail_in.load(std::memory_order_relaxed) > 0 && g_fail_in.fetch_sub(1) == 1) {
        g_failed = true;
        if (nothrow) return nullptr;
        throw std::bad_alloc();
    }
    if (size == 0) size = 1;
    void* p = nullptr;
    if (align <= alignof(std::max_align_t)) {
        p = std::malloc(size);
    } else if (posix_memalign(&p, align, size) != 0) {
        p = nullptr;
    }
    if (!p && !nothrow) throw std::bad_alloc();
    return p;
}
#endif

}  // namespace

#ifndef BPTEST_ASAN
void* operator new(std::size_t n) { return allocate(n, 0, false); }
void* operator new[](std::size_t n) { return allocate(n, 0, false); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return allocate(n, 0, true); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return allocate(n, 0, true); }
void* operator new(std::size_t n, std::align_val_t a) { return allocate(n, static_cast<std::size_t>(a), false); }
void* operator new[](std::size_t n, std::align_val_t a) { return allocate(n, static_cast<std::size_t>(a), false); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
    return allocate(n, static_cast<std::size_t>(a), true);
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
    return allocate(n, static_cast<std::size_t>(a), true);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
#endif

namespace bptest {
namespace {

namespace bs = broadphase::scenes;

#ifdef BPTEST_ASAN
#define BPTEST_SKIP_UNDER_ASAN() GTEST_SKIP() << "AddressSanitizer replaces operator new itself: allocations not counted"
#else
#define BPTEST_SKIP_UNDER_ASAN() (void)0
#endif

/// Allocations made by f().
template <class F>
long count_allocations(F&& f) {
    g_allocations = 0;
    g_counting = true;
    f();
    g_counting = false;
    return g_allocations.load();
}

void expect_no_allocations(const std::string& name, long count, const char* what) {
    EXPECT_EQ(count, 0) << name << ": heap allocations in " << what;
}

const std::vector<Algorithm> kAllWithAuto = {Algorithm::automatic, Algorithm::brute_force,
                                             Algorithm::sweep_and_prune, Algorithm::uniform_grid,
                                             Algorithm::hybrid_grid, Algorithm::adaptive_grid};

/// dense20k with every box moved by up to `amount` on each axis.
Boxes jittered(const Boxes& base, std::uint64_t seed, float amount) {
    Boxes out = base;
    Random r(seed);
    for (std::size_t i = 0; i < out.size(); ++i) {
        Box b = out[i];
        for (int k = 0; k < 3; ++k) {
            const float d = static_cast<float>(r.uniform(-amount, amount));
            b.min[k] += d;
            b.max[k] += d;
        }
        out.set(i, b);
    }
    return out;
}

class ReuseTest : public ::testing::TestWithParam<Algorithm> {
protected:
    Options options() const {
        Options o;
        o.algorithm = GetParam();
        return o;
    }
    std::string name() const { return broadphase::to_string(GetParam()); }
};

TEST_P(ReuseTest, SameFrameFindPairs) {
    BPTEST_SKIP_UNDER_ASAN();
    const Boxes frame = bs::dense20k();
    broadphase::PairFinder finder;
    std::vector<Pair> out;
    finder.find_pairs(frame, out, options());
    const std::size_t first = out.size();
    const long n = count_allocations([&] {
        for (int i = 2; i <= 5; ++i) finder.find_pairs(frame, out, options());
    });
    EXPECT_EQ(out.size(), first);
    expect_no_allocations(name(), n, "find_pairs frames 2..5 (dense20k, same boxes)");
}

TEST_P(ReuseTest, MovingFramesFindPairs) {
    BPTEST_SKIP_UNDER_ASAN();
    const Boxes base = bs::dense20k();
    std::vector<Boxes> frames;
    for (std::uint64_t f = 1; f <= 5; ++f) frames.push_back(jittered(base, f, 0.5f));
    broadphase::PairFinder finder;
    std::vector<Pair> out;
    out.reserve(200000);  // the caller's vector: room for any frame
    finder.find_pairs(frames[0], out, options());
    const long n = count_allocations([&] {
        for (std::size_t i = 1; i < frames.size(); ++i) finder.find_pairs(frames[i], out, options());
    });
    expect_no_allocations(name(), n, "find_pairs frames 2..5 (dense20k, boxes moved between frames)");
}

TEST_P(ReuseTest, TwoSetFrames) {
    BPTEST_SKIP_UNDER_ASAN();
    const Boxes all = bs::dense20k();
    Boxes a, b;
    for (std::size_t i = 0; i < all.size(); ++i) (i % 2 ? b : a).push_back(all[i]);
    broadphase::PairFinder finder;
    std::vector<Pair> out;
    finder.find_pairs(a, b, out, options());
    const long n = count_allocations([&] {
        for (int i = 2; i <= 5; ++i) finder.find_pairs(a, b, out, options());
    });
    expect_no_allocations(name(), n, "two-set find_pairs frames 2..5 (dense20k halves)");
}

TEST_P(ReuseTest, StreamingFrames) {
    BPTEST_SKIP_UNDER_ASAN();
    const Boxes frame = bs::dense20k();
    broadphase::PairFinder finder;
    std::uint64_t count = 0;
    auto f = [&](std::uint32_t, std::uint32_t) { ++count; };
    finder.for_each_pair(frame, f, options());
    const long n = count_allocations([&] {
        for (int i = 2; i <= 5; ++i) finder.for_each_pair(frame, f, options());
    });
    expect_no_allocations(name(), n, "for_each_pair frames 2..5 (dense20k)");
}

TEST_P(ReuseTest, IndexRebuildAndQueries) {
    BPTEST_SKIP_UNDER_ASAN();
    const Boxes frame = bs::dense20k();
    const Boxes queries = bs::uniform(2000, 3);
    broadphase::Index index;
    std::vector<Pair> out;
    out.reserve(100000);
    std::vector<std::uint32_t> hits;
    hits.reserve(10000);
    index.build(frame, GetParam());
    index.query_batch(queries, out);
    const long n = count_allocations([&] {
        for (int i = 2; i <= 5; ++i) {
            index.build(frame, GetParam());
            index.query_batch(queries, out);
            for (std::size_t q = 0; q < queries.size(); q += 10) index.query(queries[q], hits);
        }
    });
    expect_no_allocations("index_" + name(), n, "Index build + query_batch + query, frames 2..5 (dense20k)");
}

INSTANTIATE_TEST_SUITE_P(AllocationFree, ReuseTest, ::testing::ValuesIn(kAllWithAuto), ParamName());

// A simulation calling SpherePairFinder every step: after the first steps
// of a size, none allocates (grid on two threads: the task pool's jobs are
// recycled too; and the box path).
TEST(SphereReuse, StepsAllocateNothing) {
    BPTEST_SKIP_UNDER_ASAN();
    Random r(21);
    const std::size_t n = 60000;
    std::vector<double> xyz(3 * n), radii(n);
    for (double& v : xyz) v = r.uniform(0, 60);
    for (double& v : radii) v = r.uniform(0.4, 0.6);
    for (Algorithm a : {Algorithm::automatic, Algorithm::hybrid_grid}) {
        broadphase::SpherePairFinder finder;
        std::vector<Pair> out;
        Options o;
        o.algorithm = a;
        o.threads = 2;
        o.min_boxes_per_thread = 1;
        auto step = [&](int s) {
            for (std::size_t i = 0; i < 3 * n; ++i) xyz[i] += ((i + s) % 3 == 0 ? 1e-3 : -5e-4);
            EXPECT_TRUE(finder.find_pairs(broadphase::sphere_rows(xyz.data(), radii.data(), n), out, o).ok());
        };
        for (int s = 0; s < 3; ++s) step(s);
        out.reserve(out.size() * 2);
        const long count = count_allocations([&] {
            for (int s = 3; s < 8; ++s) step(s);
        });
        expect_no_allocations(broadphase::to_string(a), count, "SpherePairFinder steps 4..8");
    }
}

/// The same reuse for a double-precision PairFinder, with every algorithm.
TEST(AllocationFreeDouble, SameFrameFindPairs) {
    BPTEST_SKIP_UNDER_ASAN();
    // dense20k's first 8,000 boxes as doubles (brute force in double is scalar: keep it small).
    const Boxes f = bs::dense20k();
    broadphase::BasicBoxes<double, 3> frame;
    for (std::size_t i = 0; i < 8000; ++i) {
        broadphase::BasicBox<double, 3> b;
        for (int k = 0; k < 3; ++k) b.min[k] = f[i].min[k], b.max[k] = f[i].max[k];
        frame.push_back(b);
    }
    broadphase::BasicPairFinder<double, 3> finder;
    for (Algorithm a : broadphase::concrete_algorithms) {
        const std::string name = std::string("double_") + broadphase::to_string(a);
        Options o;
        o.algorithm = a;
        std::vector<Pair> out;
        finder.find_pairs(frame, out, o);
        const long n = count_allocations([&] {
            for (int i = 2; i <= 5; ++i) finder.find_pairs(frame, out, o);
        });
        expect_no_allocations(name, n, "find_pairs frames 2..5 (dense20k as double)");
    }
}

// ---------------------------------------------------------------------------
// Failing allocations

/// Runs trial(armed) for k = 1, 2, ... until the k-th allocation inside
/// armed(f) is never reached. armed(f) runs f() with the k-th allocation
/// failing and returns false (after reporting it) if an exception escaped;
/// the trial checks the result outside armed(), where allocations succeed.
template <class Trial>
void fail_each_allocation(const std::string& what, Trial&& trial) {
    for (long k = 1; k < 100000; ++k) {
        SCOPED_TRACE(what + ": allocation " + std::to_string(k) + " fails");
        g_failed = false;
        bool threw = false;
        auto armed = [&](auto&& f) {
            g_fail_in = k;
            try {
                f();
            } catch (...) {
                threw = true;
            }
            g_fail_in = 0;
            if (threw) ADD_FAILURE() << "an exception escaped the call";
            return !threw;
        };
        trial(armed);
        if (!g_failed) return;  // every allocation of the call succeeded: done
        if (::testing::Test::HasFailure()) return;
    }
}

class OutOfMemoryTest : public ::testing::TestWithParam<Algorithm> {};

TEST_P(OutOfMemoryTest, FindPairsReportsFailedAllocations) {
    BPTEST_SKIP_UNDER_ASAN();
    const ScenePair s = invalid_mixed_scene();  // invalid boxes: the working copies allocate too
    const std::vector<Pair> self = ref_self(s.b), cross = ref_cross(s.b, s.a);
    Options o;
    o.algorithm = GetParam();
    fail_each_allocation("find_pairs (self)", [&](auto&& armed) {
        broadphase::PairFinder finder;
        std::vector<Pair> out;
        Report r;
        if (!armed([&] { r = finder.find_pairs(s.b, out, o); })) return;
        if (r.status == Status::ok) EXPECT_TRUE(same_pair_set(out, self));
        else EXPECT_EQ(r.status, Status::out_of_memory) << status_string(r.status);
        EXPECT_TRUE(subset_of_pairs(out, self));
    });
    fail_each_allocation("find_pairs (two sets)", [&](auto&& armed) {
        broadphase::PairFinder finder;
        std::vector<Pair> out;
        Report r;
        if (!armed([&] { r = finder.find_pairs(s.b, s.a, out, o); })) return;
        if (r.status == Status::ok) EXPECT_TRUE(same_pair_set(out, cross));
        else EXPECT_EQ(r.status, Status::out_of_memory) << status_string(r.status);
        EXPECT_TRUE(subset_of_pairs(out, cross));
    });
    fail_each_allocation("for_each_pair", [&](auto&& armed) {
        broadphase::PairFinder finder;
        std::vector<Pair> got;
        got.reserve(self.size() + 1);
        Report r;
        auto f = [&](std::uint32_t a, std::uint32_t b) { got.push_back(Pair{a, b}); };
        if (!armed([&] { r = finder.for_each_pair(s.b, f, o); })) return;
        if (r.status == Status::ok) EXPECT_TRUE(same_pair_set(got, self));
        else EXPECT_EQ(r.status, Status::out_of_memory) << status_string(r.status);
        EXPECT_TRUE(subset_of_pairs(got, self));
    });
}

// The same under threads: an allocation failing inside a task reaches the
// caller as out_of_memory, with only correct pairs delivered.
TEST_P(OutOfMemoryTest, FailedAllocationsUnderThreads) {
    BPTEST_SKIP_UNDER_ASAN();
    const ScenePair s = invalid_mixed_scene();
    const Boxes valid = bs::uniform(3000, 9);
    Options o;
    o.algorithm = GetParam();
    o.threads = 3;
    o.min_boxes_per_thread = 1;
    for (const Boxes* boxes : {&s.b, &valid}) {
        const std::vector<Pair> self = ref_self(*boxes);
        fail_each_allocation("find_pairs under threads", [&](auto&& armed) {
            broadphase::PairFinder finder;
            std::vector<Pair> out;
            Report r;
            if (!armed([&] { r = finder.find_pairs(*boxes, out, o); })) return;
            if (r.status == Status::ok) EXPECT_TRUE(same_pair_set(out, self));
            else EXPECT_EQ(r.status, Status::out_of_memory) << status_string(r.status);
            EXPECT_TRUE(subset_of_pairs(out, self));
        });
    }
    const std::vector<Pair> batch = ref_cross(s.b, s.a);
    fail_each_allocation("index under threads", [&](auto&& armed) {
        broadphase::Index index;
        std::vector<Pair> out;
        Report built, r;
        if (!armed([&] {
                built = index.build(s.a, o);
                if (built.ok()) r = index.query_batch(s.b, out, o);
            }))
            return;
        if (!built.ok()) {
            EXPECT_EQ(built.status, Status::out_of_memory);
            return;
        }
        if (r.status == Status::ok) EXPECT_TRUE(same_pair_set(out, batch));
        else EXPECT_EQ(r.status, Status::out_of_memory) << status_string(r.status);
        EXPECT_TRUE(subset_of_pairs(out, batch));
    });
}

TEST_P(OutOfMemoryTest, IndexReportsFailedAllocations) {
    BPTEST_SKIP_UNDER_ASAN();
    const ScenePair s = invalid_mixed_scene();
    const std::vector<Pair> want = ref_cross(s.b, s.a);  // (query in b, built in a)
    fail_each_allocation("Index build + query_batch", [&](auto&& armed) {
        broadphase::Index index;
        std::vector<Pair> out;
        Report rb, r;
        if (!armed([&] {
                rb = index.build(s.a, GetParam());
                if (rb.status == Status::ok) r = index.query_batch(s.b, out);
            }))
            return;
        if (rb.status != Status::ok) {
            EXPECT_EQ(rb.status, Status::out_of_memory) << status_string(rb.status);
            return;
        }
        if (r.status == Status::ok) EXPECT_TRUE(same_pair_set(out, want));
        else EXPECT_EQ(r.status, Status::out_of_memory) << status_string(r.status);
        EXPECT_TRUE(subset_of_pairs(out, want));
    });
}

INSTANTIATE_TEST_SUITE_P(OutOfMemory, OutOfMemoryTest, ::testing::ValuesIn(kAllWithAuto), ParamName());

}  // namespace
}  // namespace bptest
