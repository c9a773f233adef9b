// Heap allocations of a kept AseNeighborList, counted by replacing the
// global operator new and delete (the plain, array and aligned forms; the
// count only runs inside count_allocations). After the first call of a
// size, a call allocates nothing: not on the direct path, not on the
// library's, not for a batch, and not for the output when `out` has the
// room already (ase_neighbor_list.hpp). Skipped under AddressSanitizer,
// which has its own operator new.
#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include <broadphase/ase_neighbor_list.hpp>

#include "ase_reference.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define ASETEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASETEST_ASAN 1
#endif
#endif

namespace {

std::atomic<bool> g_counting{false};
std::atomic<long> g_allocations{0};

#ifndef ASETEST_ASAN
void* allocate(std::size_t size, std::size_t align, bool nothrow) {
    if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
    if (size == 0) size = 1;
    void* p = nullptr;
    if (align <= alignof(std::max_align_t)) p = std::malloc(size);
    else if (posix_memalign(&p, align, size) != 0) p = nullptr;
    if (!p && !nothrow) throw std::bad_alloc();
    return p;
}
#endif

}  // namespace

#ifndef ASETEST_ASAN
void* operator new(std::size_t n) { return allocate(n, 0, false); }
void* operator new[](std::size_t n) { return allocate(n, 0, false); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return allocate(n, 0, true); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return allocate(n, 0, true); }
void* operator new(std::size_t n, std::align_val_t a) { return allocate(n, static_cast<std::size_t>(a), false); }
void* operator new[](std::size_t n, std::align_val_t a) { return allocate(n, static_cast<std::size_t>(a), false); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
#endif

namespace asetest {
namespace {

/// Allocations made by f().
template <class F>
long count_allocations(F&& f) {
    g_allocations = 0;
    g_counting = true;
    f();
    g_counting = false;
    return g_allocations.load();
}

TEST(AseAllocations, NoneAfterTheFirstCall) {
#ifdef ASETEST_ASAN
    GTEST_SKIP() << "AddressSanitizer replaces operator new itself: allocations not counted";
#endif
    // The count works: a new object allocates its working memory.
    EXPECT_GT(count_allocations([] { bp::AseNeighborList fresh; }), 0);
    std::mt19937_64 rng(47);
    Batch batch;
    batch.append(copper(rng, 64));
    batch.append(copper(rng, 300));
    batch.append(random_system(rng, 40, {8, 0, 0, 2, 7, 0, 1, 1, 9}, {true, false, true}));
    const Batch big = copper(rng, 700);
    std::unique_ptr<bool[]> keep_batch, keep_big;
    const bp::AseBatch b = batch.view(keep_batch), g = big.view(keep_big);
    std::vector<double> r(batch.n(), 2.1);
    const bp::AseCutoff radii = bp::AseCutoff::per_atom(r.data());
    for (double limit : {1e18, 0.0, 400.0 * 400.0}) {
        bp::AseNeighborList ase;
        ase.set_direct_limit(limit);
        bp::AseNeighbors out;
        const std::string at = " at limit " + std::to_string(limit);
        for (const bp::AseBatch* in : {&b, &g}) {
            for (const bp::AseCutoff& cut : {bp::AseCutoff::scalar(4.5), radii}) {
                if (in == &g && cut.kind != bp::AseCutoffKind::scalar) continue;
                ASSERT_TRUE(ase.find(*in, cut, bp::AseQuantities::all(), false, out).ok());
                const std::size_t entries = out.size();
                const long n = count_allocations([&] {
                    ASSERT_TRUE(ase.find(*in, cut, bp::AseQuantities::all(), false, out).ok());
                });
                EXPECT_EQ(out.size(), entries);
                EXPECT_EQ(n, 0) << "heap allocations in a repeated call" << at;
            }
        }
    }
}

}  // namespace
}  // namespace asetest
