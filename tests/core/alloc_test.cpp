// Heap allocations of a reused PairFinder / Index, counted by replacing the
// global operator new and delete (every form: plain, array, aligned,
// nothrow). After the first frame of a given size a rebuild must allocate
// nothing (broadphase.hpp). Also: an allocation failing anywhere inside a
// call gives Status::out_of_memory (or a correct result), never an exception,
// and the same PairFinder, Index or Scene answers right afterwards.
//
// Its own executable, so that the replacement touches no other test. Under
// AddressSanitizer, which has its own operator new, nothing is replaced and
// every test here is skipped.
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <new>

#include <broadphase/scene.hpp>
#include <broadphase_fixtures/scenes.hpp>
#include <broadphase/spheres.hpp>
#include <broadphase/neighbor_list.hpp>

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

namespace bs = broadphase_fixtures;

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
                                             Algorithm::hybrid_grid, Algorithm::adaptive_grid,
                                             Algorithm::cluster_pairs};

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

// An engine's own arrays through BasicBoxesView: the struct-of-arrays view
// is read in place, and the strided view is gathered into memory the
// algorithm keeps, so neither allocates once warm.
TEST_P(ReuseTest, ViewFrames) {
    BPTEST_SKIP_UNDER_ASAN();
    const Boxes frame = bs::dense20k();
    struct Body {
        float min[3], max[3];
        int id;
    };
    std::vector<float> lo[3], hi[3];
    std::vector<Body> bodies(frame.size());
    for (int k = 0; k < 3; ++k) {
        lo[k].assign(frame.min(k), frame.min(k) + frame.size());
        hi[k].assign(frame.max(k), frame.max(k) + frame.size());
        for (std::size_t i = 0; i < frame.size(); ++i) bodies[i].min[k] = lo[k][i], bodies[i].max[k] = hi[k][i];
    }
    const broadphase::BoxesView soa = broadphase::BoxesView::soa({lo[0].data(), lo[1].data(), lo[2].data()},
                                                                 {hi[0].data(), hi[1].data(), hi[2].data()}, frame.size());
    const broadphase::BoxesView aos =
        broadphase::BoxesView::aos(bodies[0].min, bodies[0].max, sizeof(Body), bodies.size());
    broadphase::PairFinder finder;
    std::vector<Pair> out, want;
    finder.find_pairs(frame, want, options());  // warm-up through BasicBoxes
    out.reserve(want.size());
    // No copy: not even the view's first frame allocates (a copy would grow
    // the working set's arrays, which the warm-up never touched).
    long n = count_allocations([&] {
        for (int i = 1; i <= 4; ++i) finder.find_pairs(soa, out, options());
    });
    EXPECT_EQ(out.size(), want.size());
    expect_no_allocations(name(), n, "find_pairs frames 1..4 through a struct-of-arrays view");
    finder.find_pairs(aos, out, options());  // the gather's arrays grow here
    n = count_allocations([&] {
        for (int i = 2; i <= 5; ++i) finder.find_pairs(aos, out, options());
    });
    EXPECT_EQ(out.size(), want.size());
    expect_no_allocations(name(), n, "find_pairs frames 2..5 through a strided view");
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

// A kept NeighborList rebuilt every step (the cluster kernels' scratch and
// the rows' buffers are kept): after the first builds of a size, none
// allocates. Dense (LJ-like: clusters of four) and sparse (clusters of one
// or two), half and full, with images, two threads.
TEST(NeighborListReuse, BuildsAllocateNothing) {
    BPTEST_SKIP_UNDER_ASAN();
    Random r(22);
    const std::size_t n = 20000;
    std::vector<double> xyz(3 * n);
    for (double& v : xyz) v = r.uniform(0, 24);
    for (double cutoff : {2.5, 0.6})
        for (bool full : {false, true}) {
            broadphase::NeighborListOptions o;
            o.cutoff = cutoff, o.skin = 0.3, o.full = full, o.shifts = true, o.threads = 2;
            broadphase::NeighborList list(o, broadphase::PeriodicCell::orthorhombic(24, 24, 24));
            auto step = [&](int s) {
                for (std::size_t i = 0; i < 3 * n; ++i) xyz[i] += ((i + s) % 3 == 0 ? 1e-3 : -5e-4);
                EXPECT_TRUE(list.build(xyz.data(), n).ok());
            };
            for (int s = 0; s < 3; ++s) step(s);
            const long count = count_allocations([&] {
                for (int s = 3; s < 6; ++s) step(s);
            });
            expect_no_allocations(full ? "full" : "half", count, "NeighborList builds 4..6");
        }
}

/// Periodic domains (periodic.hpp): a kept PeriodicPairFinder, with every
/// algorithm, and a SpherePairFinder with a domain allocate nothing once
/// they have seen a frame with as many boxes and ghosts. The frames move
/// every box by whole periods (exact: lattice values), so the wrapped
/// scene, and the ghosts, stay the same while the coordinates change.
TEST(PeriodicReuse, FramesAllocateNothing) {
    BPTEST_SKIP_UNDER_ASAN();
    Random r(31);
    const std::size_t n = 6000;
    const float L = 64;
    broadphase::Boxes boxes(n);
    for (std::size_t i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) {
            const float lo = std::floor(static_cast<float>(r.uniform(0, L)) * 8) / 8;
            boxes.min(k)[i] = lo, boxes.max(k)[i] = lo + std::floor(static_cast<float>(r.uniform(0, 2)) * 8) / 8;
        }
    const broadphase::PeriodicDomain domain{{L, L, 0}};
    auto move = [&](int frame) {
        for (std::size_t i = 0; i < n; ++i)
            for (int k = 0; k < 2; ++k) {
                const float shift = L * static_cast<float>((static_cast<int>(i) + frame) % 5 - 2);
                boxes.min(k)[i] += shift, boxes.max(k)[i] += shift;
            }
    };
    for (Algorithm a : kAllWithAuto) {
        broadphase::PeriodicPairFinder finder;
        std::vector<Pair> out;
        Options o;
        o.algorithm = a;
        o.threads = 2;
        o.min_boxes_per_thread = 1;
        for (int f = 0; f < 2; ++f) {
            move(f);
            EXPECT_TRUE(finder.find_pairs(boxes, domain, out, o).ok());
        }
        const long count = count_allocations([&] {
            for (int f = 2; f < 5; ++f) {
                move(f);
                EXPECT_TRUE(finder.find_pairs(boxes, domain, out, o).ok());
            }
        });
        expect_no_allocations(broadphase::to_string(a), count, "PeriodicPairFinder frames 3..5");
    }
    std::vector<double> xyz(3 * n), radii(n);
    for (double& v : xyz) v = std::floor(r.uniform(0, 40) * 64) / 64;
    for (double& v : radii) v = r.uniform(0.3, 0.6);
    const broadphase::BasicPeriodicDomain<double, 3> sphere_domain{{40, 40, 40}};
    broadphase::SpherePairFinder spheres;
    std::vector<Pair> out;
    auto step = [&](int s) {
        for (std::size_t i = 0; i < 3 * n; ++i) xyz[i] += 40.0 * ((static_cast<int>(i) + s) % 3 - 1);
        EXPECT_TRUE(spheres.find_pairs(broadphase::sphere_rows(xyz.data(), radii.data(), n), sphere_domain, out).ok());
    };
    for (int s = 0; s < 2; ++s) step(s);
    const long count = count_allocations([&] {
        for (int s = 2; s < 5; ++s) step(s);
    });
    expect_no_allocations("spheres", count, "SpherePairFinder with a domain, steps 3..5");
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

// The same objects after a failed call: a PairFinder and an
// Index whose call failed at allocation k answer the same call, and another
// one, right; on one thread and on three.
TEST_P(OutOfMemoryTest, SameObjectsAnswerRightAfterAFailure) {
    BPTEST_SKIP_UNDER_ASAN();
    const ScenePair s = invalid_mixed_scene();
    const Boxes other = bs::uniform(3000, 9);
    const std::vector<Pair> self = ref_self(s.b), cross = ref_cross(s.b, s.a), other_self = ref_self(other);
    const std::vector<Pair> batch = ref_cross(s.b, s.a);  // (query in b, built in a)
    for (unsigned threads : {1u, 3u}) {
        Options o;
        o.algorithm = GetParam();
        o.threads = threads;
        o.min_boxes_per_thread = 1;
        const std::string t = ", threads " + std::to_string(threads);
        fail_each_allocation("PairFinder after a failure" + t, [&](auto&& armed) {
            broadphase::PairFinder finder;
            std::vector<Pair> out;
            Report r;
            if (!armed([&] {
                    r = finder.find_pairs(s.b, out, o);
                    if (r.ok()) r = finder.find_pairs(s.b, s.a, out, o);
                }))
                return;
            EXPECT_TRUE(r.ok() || r.status == Status::out_of_memory) << status_string(r.status);
            r = finder.find_pairs(s.b, out, o);
            ASSERT_TRUE(r.ok()) << status_string(r.status);
            EXPECT_TRUE(same_pair_set(out, self));
            r = finder.find_pairs(s.b, s.a, out, o);
            ASSERT_TRUE(r.ok()) << status_string(r.status);
            EXPECT_TRUE(same_pair_set(out, cross));
            r = finder.find_pairs(other, out, o);
            ASSERT_TRUE(r.ok()) << status_string(r.status);
            EXPECT_TRUE(same_pair_set(out, other_self));
        });
        fail_each_allocation("Index after a failure" + t, [&](auto&& armed) {
            broadphase::Index index;
            std::vector<Pair> out;
            Report built, r;
            if (!armed([&] {
                    built = index.build(s.a, o);
                    if (built.ok()) r = index.query_batch(s.b, out, o);
                }))
                return;
            if (built.ok()) {  // the built index, queried again
                r = index.query_batch(s.b, out, o);
                ASSERT_TRUE(r.ok()) << status_string(r.status);
                EXPECT_TRUE(same_pair_set(out, batch));
            }
            ASSERT_TRUE(index.build(s.a, o).ok());
            r = index.query_batch(s.b, out, o);
            ASSERT_TRUE(r.ok()) << status_string(r.status);
            EXPECT_TRUE(same_pair_set(out, batch));
        });
    }
}

INSTANTIATE_TEST_SUITE_P(OutOfMemory, OutOfMemoryTest, ::testing::ValuesIn(kAllWithAuto), ParamName());

// ---------------------------------------------------------------------------
// A Scene whose update() fails at allocation k

using broadphase::ObjectType;
using broadphase::Scene;
using broadphase::UpdateMode;

/// The scene's pairs by brute force over the live objects (as scene_test.cpp).
std::vector<Pair> scene_pairs(const Scene& s, const std::vector<Scene::Id>& live) {
    std::vector<Pair> out;
    for (std::size_t i = 0; i < live.size(); ++i)
        for (std::size_t j = i + 1; j < live.size(); ++j) {
            const auto a = std::min(live[i], live[j]), b = std::max(live[i], live[j]);
            if (s.type(a) == ObjectType::static_object && s.type(b) == ObjectType::static_object) continue;
            const Box& x = s.pair_box(a);
            const Box& y = s.pair_box(b);
            if (!x.valid() || !y.valid() || !broadphase::overlaps(x, y)) continue;
            if (broadphase::Filter::may_meet(s.filter(a), s.filter(b))) out.push_back({a, b});
        }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<Pair> pairs_minus(const std::vector<Pair>& x, const std::vector<Pair>& y) {
    std::vector<Pair> out;
    std::set_difference(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(out));
    return out;
}

/// A scene and its live ids, driven by a seed: the same every time.
struct SceneRun {
    Scene scene;
    std::vector<Scene::Id> live;
    Random r;
    explicit SceneRun(std::uint64_t seed) : r(seed) {}

    Box box() {
        Box b;
        for (int k = 0; k < 3; ++k) {
            const float lo = float(r.uniform(0, 24)), e = float(r.uniform(0.5, 3));
            b.min[k] = lo, b.max[k] = lo + e;
        }
        if (r.below(30) == 0) b.max[1] = b.min[1] - 1;  // invalid
        return b;
    }
    /// Random changes: adds (some static, some filtered), removes, moves,
    /// type and filter changes; now and then the fat pairs or the margin
    /// switched (`switches`). A change that throws bad_alloc is counted in
    /// `thrown` (the scene must be as before it: `live` is kept so).
    void change(int ops, bool switches = false) {
        const broadphase::Filter filters[] = {broadphase::Filter{}, broadphase::Filter{2, ~std::uint64_t(2), 0},
                                              broadphase::Filter{1, 1, 7}};
        for (int op = 0; op < ops; ++op) {
            const std::uint64_t what = r.below(100);
            try {
                if (live.size() < 20 || what < 25) {
                    const Scene::Id id = scene.add(box(), r.below(5) ? ObjectType::dynamic_object : ObjectType::static_object, 0,
                                                   filters[r.below(3)]);
                    live.push_back(id);
                } else if (what < 40) {
                    const std::size_t i = r.below(live.size());
                    scene.remove(live[i]);
                    live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
                } else if (what < 85) {
                    const Scene::Id id = live[r.below(live.size())];
                    Box b = scene.box(id);
                    if (!b.valid() || r.below(4) == 0) b = box();
                    const float d = float(r.uniform(-0.7, 0.7));
                    for (int k = 0; k < 3; ++k) b.min[k] += d, b.max[k] += d;
                    scene.move(id, b);
                } else if (what < 93) {
                    scene.set_type(live[r.below(live.size())], r.below(2) ? ObjectType::dynamic_object : ObjectType::static_object);
                } else if (what < 98 || !switches) {
                    scene.set_filter(live[r.below(live.size())], filters[r.below(3)]);
                } else if (what == 98) {
                    scene.set_fat_pairs(!scene.fat_pairs());
                } else {
                    scene.set_margin(scene.margin() == 0.1f ? 0.3f : 0.1f);
                }
            } catch (const std::bad_alloc&) {
                ++thrown;
            }
        }
    }
    long thrown = 0;
};

class SceneOutOfMemoryTest : public ::testing::TestWithParam<UpdateMode> {};

// For each allocation k of one update: the update gives ok (right pairs and
// events) or out_of_memory (no events, the previous set kept); the next
// update, and one after more changes, are right, their events against the
// last set reported. Exact and fat pairs, one and two threads.
TEST_P(SceneOutOfMemoryTest, UpdateFailsThenRecovers) {
    BPTEST_SKIP_UNDER_ASAN();
    long failed_updates = 0, trials = 0;
    for (bool fat : {false, true})
        for (unsigned threads : {1u, 2u}) {
            const std::string what = std::string(broadphase::to_string(GetParam())) + (fat ? ", fat pairs" : "") +
                                     ", threads " + std::to_string(threads);
            for (int big : {0, 1}) {  // the failing update: a few changes, or most objects added and moved
                fail_each_allocation("Scene::update, " + what + (big ? ", big update" : ""), [&](auto&& armed) {
                    SceneRun run(17 + std::uint64_t(big));
                    Options o;
                    o.threads = threads;
                    o.min_boxes_per_thread = 1;
                    run.scene.set_options(o);
                    run.scene.set_update_mode(GetParam());
                    run.scene.set_fat_pairs(fat);
                    for (int step = 0; step < 6; ++step) {  // warm: every structure built
                        run.change(40);
                        ASSERT_TRUE(run.scene.update().ok());
                    }
                    const std::vector<Pair> before = scene_pairs(run.scene, run.live);
                    ASSERT_TRUE(run.scene.pairs() == before);
                    run.change(big ? 300 : 12);
                    Report r;
                    if (!armed([&] { r = run.scene.update(); })) return;
                    ++trials;
                    failed_updates += !r.ok();
                    std::vector<Pair> last = before;
                    if (r.ok()) {
                        last = scene_pairs(run.scene, run.live);
                        ASSERT_TRUE(run.scene.pairs() == last);
                        ASSERT_TRUE(run.scene.begun() == pairs_minus(last, before));
                        ASSERT_TRUE(run.scene.ended() == pairs_minus(before, last));
                    } else {
                        ASSERT_EQ(r.status, Status::out_of_memory) << status_string(r.status);
                        ASSERT_TRUE(run.scene.begun().empty() && run.scene.ended().empty());
                        ASSERT_TRUE(run.scene.pairs() == before) << "the previous set is not kept";
                    }
                    for (int again = 0; again < 2; ++again) {  // the same scene: right again
                        ASSERT_TRUE(run.scene.update().ok());
                        const std::vector<Pair> now = scene_pairs(run.scene, run.live);
                        ASSERT_TRUE(run.scene.pairs() == now) << "update " << again << " after: " << run.scene.pairs().size()
                                                               << " pairs, want " << now.size();
                        ASSERT_TRUE(run.scene.begun() == pairs_minus(now, last)) << "update " << again << " after";
                        ASSERT_TRUE(run.scene.ended() == pairs_minus(last, now)) << "update " << again << " after";
                        ASSERT_EQ(run.scene.tree().validate(), "");
                        last = now;
                        run.change(15);
                    }
                });
            }
        }
    EXPECT_GT(failed_updates, 0) << "no update failed: the test tests nothing";
    std::printf("[ oom      ] %s: %ld updates with an allocation failing, %ld gave out_of_memory\n",
                broadphase::to_string(GetParam()), trials, failed_updates);
}

// For each allocation k of a run of changes (add, remove, move, type,
// filter, fat pairs, margin) and the update after it: a change that throws
// bad_alloc leaves the scene as before it, and the update and the ones after
// are right (pairs and events).
TEST_P(SceneOutOfMemoryTest, ChangesFailThenRecover) {
    BPTEST_SKIP_UNDER_ASAN();
    for (bool fat : {false, true}) {
        const std::string what = std::string(broadphase::to_string(GetParam())) + (fat ? ", fat pairs" : "");
        long thrown = 0;
        fail_each_allocation("Scene changes, " + what, [&](auto&& armed) {
            SceneRun run(23);
            run.scene.set_update_mode(GetParam());
            run.scene.set_fat_pairs(fat);
            for (int step = 0; step < 4; ++step) {
                run.change(40);
                ASSERT_TRUE(run.scene.update().ok());
            }
            const std::vector<Pair> before = run.scene.pairs();
            run.live.reserve(run.live.size() + 200);  // the test's own bookkeeping allocates nothing below
            Report r;
            if (!armed([&] {
                    run.change(150, true);  // (catches the bad_alloc of a change)
                    r = run.scene.update();
                }))
                return;
            thrown += run.thrown;
            std::vector<Pair> last = before;
            if (r.ok()) {
                last = scene_pairs(run.scene, run.live);
                ASSERT_TRUE(run.scene.pairs() == last) << run.scene.pairs().size() << " pairs, want " << last.size();
            } else {
                ASSERT_EQ(r.status, Status::out_of_memory) << status_string(r.status);
                ASSERT_TRUE(run.scene.pairs() == before);
            }
            ASSERT_EQ(run.scene.size(), run.live.size());
            for (int again = 0; again < 2; ++again) {
                ASSERT_TRUE(run.scene.update().ok());
                const std::vector<Pair> now = scene_pairs(run.scene, run.live);
                ASSERT_TRUE(run.scene.pairs() == now) << "update " << again << " after: " << run.scene.pairs().size()
                                                       << " pairs, want " << now.size();
                ASSERT_TRUE(run.scene.begun() == pairs_minus(now, last)) << "update " << again << " after";
                ASSERT_TRUE(run.scene.ended() == pairs_minus(last, now)) << "update " << again << " after";
                ASSERT_EQ(run.scene.tree().validate(), "");
                last = now;
                run.change(15);
            }
        });
        EXPECT_GT(thrown, 0) << "no change threw: the test tests nothing";
        std::printf("[ oom      ] %s: %ld changes threw bad_alloc\n", what.c_str(), thrown);
    }
}

INSTANTIATE_TEST_SUITE_P(OutOfMemory, SceneOutOfMemoryTest,
                         ::testing::Values(UpdateMode::automatic, UpdateMode::rebuild,
                                           UpdateMode::multi_box_pruning, UpdateMode::grid, UpdateMode::enlarged),
                         [](const ::testing::TestParamInfo<UpdateMode>& info) {
                             std::string n = broadphase::to_string(info.param);
                             std::replace(n.begin(), n.end(), '-', '_');
                             return n;
                         });

}  // namespace
}  // namespace bptest
