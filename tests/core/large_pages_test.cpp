// detail/large_pages.hpp: large buffers on huge pages. What can be checked
// from user space: the contents survive growth (mapped and not, across the
// 2 MB line), released memory is freed by large_free, mapped blocks are 2
// MB-aligned, the allocator leaves trivial elements unwritten only where
// the owner writes them (a vector's values stay right), and a block too
// large for memory is std::bad_alloc, not a crash.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <new>
#include <numeric>
#include <vector>

#include <broadphase/large_array.hpp>

namespace {

namespace bpd = broadphase::detail;
namespace bp = broadphase;

TEST(LargePages, ArrayKeepsItsContentsAsItGrows) {
    bp::LargeArray<std::uint32_t> a;
    EXPECT_TRUE(a.empty());
    std::size_t n = 1;
    // From a few bytes (operator new) past the 2 MB line (mapped) and on.
    while (n < (std::size_t(6) << 20) / sizeof(std::uint32_t)) {
        const std::size_t old = a.size();
        a.resize(n);
        for (std::size_t i = old; i < n; ++i) a[i] = static_cast<std::uint32_t>(i * 2654435761u);
        n = n * 3 + 1;
    }
    for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], static_cast<std::uint32_t>(i * 2654435761u)) << i;
    EXPECT_GE(a.capacity(), a.size());
    bp::LargeArray<std::uint32_t> b(std::move(a));
    EXPECT_TRUE(a.empty());
    EXPECT_EQ(b[7], static_cast<std::uint32_t>(7 * 2654435761u));
    const std::size_t size = b.size();
    const std::pair<std::uint32_t*, std::size_t> memory = b.release();
    EXPECT_EQ(b.size(), 0u);
    EXPECT_GE(memory.second, size * sizeof(std::uint32_t));
    EXPECT_EQ(memory.first[size - 1], static_cast<std::uint32_t>((size - 1) * 2654435761u));
    bpd::large_free(memory.first, memory.second);
}

TEST(LargePages, MappedBlocksAreAligned) {
    for (std::size_t bytes : {std::size_t(1000), bpd::large_bytes, 3 * bpd::large_bytes + 17}) {
        void* p = bpd::large_allocate(bytes);
        ASSERT_NE(p, nullptr);
        if (bpd::large_mapped(bytes)) {
            EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % bpd::large_page, 0u) << bytes;
        }
        static_cast<char*>(p)[0] = 1, static_cast<char*>(p)[bytes - 1] = 2;
        void* q = bpd::large_reallocate(p, bytes, 2 * bytes, bytes);
        EXPECT_EQ(static_cast<char*>(q)[0], 1);
        EXPECT_EQ(static_cast<char*>(q)[bytes - 1], 2);
        bpd::large_free(q, 2 * bytes);
    }
}

TEST(LargePages, VectorValuesStayRight) {
    // The allocator constructs elements without a value; assign, insert and
    // push_back still write what they are given.
    bpd::LargeVector<double> v;
    v.assign(1 << 20, 1.5);  // 8 MB: mapped
    for (double x : v) ASSERT_EQ(x, 1.5);
    v.push_back(2.5);
    EXPECT_EQ(v.back(), 2.5);
    EXPECT_EQ(v[12345], 1.5);
    std::vector<int> w;
    bpd::reserve_large(w, 3 << 20);
    EXPECT_GE(w.capacity(), std::size_t(3) << 20);
    w.resize(3 << 20);  // a caller's vector: still zeroed
    EXPECT_EQ(std::accumulate(w.begin(), w.end(), 0), 0);
}

TEST(LargePages, OverAlignedElements) {
    // The cell list keeps 32-byte records: small blocks come from the
    // aligned operator new, large ones are 2 MB-aligned.
    struct alignas(32) Record {
        double w[4];
    };
    for (std::size_t n : {std::size_t(3), std::size_t(100), std::size_t(1) << 17}) {
        bpd::LargeVector<Record> v;
        v.resize(n);
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v.data()) % 32, 0u) << n;
        v[n - 1].w[3] = 1.0;
        bp::LargeArray<Record> a;
        a.resize(n);
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a.data()) % 32, 0u) << n;
        a.resize(3 * n);
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a.data()) % 32, 0u) << n;
    }
}

TEST(LargePages, TooLargeIsBadAlloc) {
    EXPECT_THROW(bpd::large_allocate(std::numeric_limits<std::size_t>::max() - 5), std::bad_alloc);
    bp::LargeArray<std::uint64_t> a;
    EXPECT_THROW(a.reserve(std::numeric_limits<std::size_t>::max() / 4), std::bad_alloc);
    EXPECT_TRUE(a.empty());
}

}  // namespace
