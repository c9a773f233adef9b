// Experiment (not part of the library; built only with
// -DBROADPHASE_CUDA_EXPERIMENTS=ON): an LBVH (Karras 2012) pair finder,
// timed against the backend's grid (broadphase::cuda::PairFinder) on the
// same device boxes, pairs compared exactly: does an LBVH
// path measure better on mixed sizes? docs/cuda.md has the answer.
//
// LBVH frame: centre bounds (atomics on ordered floats), 30-bit Morton codes,
// CUB radix sort, Karras's radix tree (one thread per internal node, ties
// broken by index), bottom-up bounds (atomic counter per node), then one
// traversal per box (only leaves after it in Morton order, each pair once),
// count / scan / write like the grid.
#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <broadphase_scenes/scenes.hpp>
#include <broadphase/cuda/pair_finder.hpp>

namespace {

#define CK(x)                                                                                     \
    do {                                                                                          \
        cudaError_t e_ = (x);                                                                     \
        if (e_ != cudaSuccess) {                                                                  \
            std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            std::exit(1);                                                                         \
        }                                                                                         \
    } while (0)

constexpr int block = 256;
unsigned blocks(std::uint64_t n) { return static_cast<unsigned>((n + block - 1) / block); }

struct alignas(32) Box32 {
    float4 lo, hi;
};

__device__ __forceinline__ unsigned ordered(float f) {
    const unsigned u = __float_as_uint(f);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
__device__ __forceinline__ float unordered(unsigned u) {
    return __uint_as_float((u & 0x80000000u) ? (u & 0x7FFFFFFFu) : ~u);
}

__global__ void load_kernel(broadphase::cuda::DeviceBoxes d, std::uint32_t n, Box32* box, unsigned* bounds) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Box32 b;
    b.lo = make_float4(d.min[0][i], d.min[1][i], d.min[2][i], 0.f);
    b.hi = make_float4(d.max[0][i], d.max[1][i], d.max[2][i], 0.f);
    box[i] = b;
    const float c[3] = {0.5f * b.lo.x + 0.5f * b.hi.x, 0.5f * b.lo.y + 0.5f * b.hi.y, 0.5f * b.lo.z + 0.5f * b.hi.z};
    for (int k = 0; k < 3; ++k) {
        atomicMin(&bounds[k], ordered(c[k]));
        atomicMax(&bounds[3 + k], ordered(c[k]));
    }
}

__device__ __forceinline__ unsigned spread10(unsigned v) {
    v &= 1023u;
    v = (v | (v << 16)) & 0x030000FFu;
    v = (v | (v << 8)) & 0x0300F00Fu;
    v = (v | (v << 4)) & 0x030C30C3u;
    v = (v | (v << 2)) & 0x09249249u;
    return v;
}

__global__ void morton_kernel(const Box32* box, std::uint32_t n, const unsigned* bounds, unsigned* code,
                              unsigned* index) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const Box32 b = box[i];
    const float c[3] = {0.5f * b.lo.x + 0.5f * b.hi.x, 0.5f * b.lo.y + 0.5f * b.hi.y, 0.5f * b.lo.z + 0.5f * b.hi.z};
    unsigned q[3];
    for (int k = 0; k < 3; ++k) {
        const float lo = unordered(bounds[k]), hi = unordered(bounds[3 + k]);
        const float span = hi - lo;
        float t = span > 0 ? (c[k] - lo) / span * 1023.0f : 0.f;
        t = fminf(fmaxf(t, 0.f), 1023.f);
        q[k] = static_cast<unsigned>(t);
    }
    code[i] = spread10(q[0]) | (spread10(q[1]) << 1) | (spread10(q[2]) << 2);
    index[i] = i;
}

__device__ __forceinline__ int delta(const unsigned* code, int n, int i, int j) {
    if (j < 0 || j >= n) return -1;
    const unsigned a = code[i], b = code[j];
    if (a == b) return 32 + __clz(static_cast<unsigned>(i ^ j));
    return __clz(a ^ b);
}

constexpr unsigned leaf_bit = 0x80000000u;

__global__ void build_kernel(const unsigned* code, int n, unsigned* left, unsigned* right, unsigned* parent,
                             int2* range) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n - 1) return;
    const int d = delta(code, n, i, i + 1) - delta(code, n, i, i - 1) >= 0 ? 1 : -1;
    const int dmin = delta(code, n, i, i - d);
    int lmax = 2;
    while (delta(code, n, i, i + lmax * d) > dmin) lmax *= 2;
    int l = 0;
    for (int t = lmax / 2; t >= 1; t /= 2)
        if (delta(code, n, i, i + (l + t) * d) > dmin) l += t;
    const int j = i + l * d;
    const int dnode = delta(code, n, i, j);
    int s = 0, t = l;
    do {
        t = (t + 1) / 2;
        if (delta(code, n, i, i + (s + t) * d) > dnode) s += t;
    } while (t > 1);
    const int gamma = i + s * d + (d < 0 ? -1 : 0);
    const int first = min(i, j), last = max(i, j);
    const unsigned lc = first == gamma ? (leaf_bit | gamma) : static_cast<unsigned>(gamma);
    const unsigned rc = last == gamma + 1 ? (leaf_bit | (gamma + 1)) : static_cast<unsigned>(gamma + 1);
    left[i] = lc;
    right[i] = rc;
    // parent[] holds internal nodes at [0, n-1) and leaves at [n-1, 2n-1).
    parent[(lc & leaf_bit) ? (n - 1 + (lc & ~leaf_bit)) : lc] = i;
    parent[(rc & leaf_bit) ? (n - 1 + (rc & ~leaf_bit)) : rc] = i;
    range[i] = make_int2(first, last);
}

__global__ void gather_kernel(const Box32* box, const unsigned* index, std::uint32_t n, Box32* sorted) {
    const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) sorted[k] = box[index[k]];
}

__device__ __forceinline__ Box32 load_cg(const Box32* p) {
    Box32 b;
    b.lo = __ldcg(&p->lo);
    b.hi = __ldcg(&p->hi);
    return b;
}

__global__ void refit_kernel(const Box32* leaf, int n, const unsigned* left, const unsigned* right,
                             const unsigned* parent, unsigned* visits, Box32* node) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    unsigned p = parent[n - 1 + k];
    for (;;) {
        __threadfence();
        if (atomicAdd(&visits[p], 1u) == 0) return;  // the other child finishes this node
        const unsigned lc = left[p], rc = right[p];
        const Box32 a = (lc & leaf_bit) ? leaf[lc & ~leaf_bit] : load_cg(&node[lc]);
        const Box32 b = (rc & leaf_bit) ? leaf[rc & ~leaf_bit] : load_cg(&node[rc]);
        Box32 u;
        u.lo = make_float4(fminf(a.lo.x, b.lo.x), fminf(a.lo.y, b.lo.y), fminf(a.lo.z, b.lo.z), 0.f);
        u.hi = make_float4(fmaxf(a.hi.x, b.hi.x), fmaxf(a.hi.y, b.hi.y), fmaxf(a.hi.z, b.hi.z), 0.f);
        node[p] = u;
        if (p == 0) return;
        p = parent[p];
    }
}

__device__ __forceinline__ bool overlap(const Box32& a, const Box32& b) {
    return !(a.hi.x < b.lo.x || b.hi.x < a.lo.x) && !(a.hi.y < b.lo.y || b.hi.y < a.lo.y) &&
           !(a.hi.z < b.lo.z || b.hi.z < a.lo.z);
}

/// Leaves after k in Morton order overlapping leaf k: counts them, and with
/// out writes (min, max) of the original indices from position base.
__global__ void traverse_kernel(const Box32* leaf, int n, const unsigned* left, const unsigned* right,
                                const int2* range, const Box32* node, const unsigned* index, unsigned* counts,
                                const std::uint64_t* offsets, broadphase::Pair* out) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    const Box32 q = leaf[k];
    unsigned count = 0;
    const std::uint64_t base = out ? offsets[k] : 0;
    unsigned stack[64];
    int top = 0;
    if (n > 1) stack[top++] = 0;
    while (top > 0) {
        const unsigned v = stack[--top];
        const unsigned ch[2] = {left[v], right[v]};
        for (int c = 0; c < 2; ++c) {
            const unsigned x = ch[c];
            if (x & leaf_bit) {
                const int m = static_cast<int>(x & ~leaf_bit);
                if (m > k && overlap(q, leaf[m])) {
                    if (out) {
                        const unsigned a = index[k], b = index[m];
                        out[base + count] = broadphase::Pair{min(a, b), max(a, b)};
                    }
                    ++count;
                }
            } else if (range[x].y > k && overlap(q, node[x])) {
                stack[top++] = x;
            }
        }
    }
    if (!out) counts[k] = count;
}

struct Lbvh {
    std::uint32_t cap = 0;
    Box32 *box = nullptr, *sorted = nullptr, *node = nullptr;
    unsigned *code[2] = {}, *index[2] = {}, *left = nullptr, *right = nullptr, *parent = nullptr, *visits = nullptr,
             *counts = nullptr, *bounds = nullptr;
    int2* range = nullptr;
    std::uint64_t* offsets = nullptr;
    broadphase::Pair* pairs = nullptr;
    std::uint64_t pair_cap = 0;
    void* temp = nullptr;
    std::size_t temp_bytes = 0;
    std::uint64_t pair_count = 0;
    std::uint64_t* host_total = nullptr;

    void ensure(std::uint32_t n) {
        if (n <= cap) return;
        cap = n;
        CK(cudaMalloc(&box, n * sizeof(Box32)));
        CK(cudaMalloc(&sorted, n * sizeof(Box32)));
        CK(cudaMalloc(&node, n * sizeof(Box32)));
        for (int s = 0; s < 2; ++s) {
            CK(cudaMalloc(&code[s], n * 4));
            CK(cudaMalloc(&index[s], n * 4));
        }
        CK(cudaMalloc(&left, n * 4));
        CK(cudaMalloc(&right, n * 4));
        CK(cudaMalloc(&parent, 2 * n * 4));
        CK(cudaMalloc(&visits, n * 4));
        CK(cudaMalloc(&counts, (n + 1) * 4));
        CK(cudaMalloc(&offsets, (n + 1) * 8));
        CK(cudaMalloc(&range, n * sizeof(int2)));
        CK(cudaMalloc(&bounds, 6 * 4));
        CK(cudaMallocHost(&host_total, 8));
    }
    void scratch(std::size_t bytes) {
        if (bytes <= temp_bytes) return;
        if (temp) cudaFree(temp);
        CK(cudaMalloc(&temp, bytes));
        temp_bytes = bytes;
    }

    void run(const broadphase::cuda::DeviceBoxes& d) {
        const std::uint32_t n = static_cast<std::uint32_t>(d.n);
        ensure(n);
        const unsigned init[6] = {~0u, ~0u, ~0u, 0u, 0u, 0u};
        CK(cudaMemcpy(bounds, init, sizeof init, cudaMemcpyHostToDevice));
        load_kernel<<<blocks(n), block>>>(d, n, box, bounds);
        morton_kernel<<<blocks(n), block>>>(box, n, bounds, code[0], index[0]);
        cub::DoubleBuffer<unsigned> kc(code[0], code[1]), ki(index[0], index[1]);
        std::size_t bytes = 0;
        CK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, kc, ki, static_cast<int>(n), 0, 30));
        scratch(bytes);
        CK(cub::DeviceRadixSort::SortPairs(temp, bytes, kc, ki, static_cast<int>(n), 0, 30));
        const unsigned* sc = kc.Current();
        const unsigned* si = ki.Current();
        gather_kernel<<<blocks(n), block>>>(box, si, n, sorted);
        if (n > 1) {
            build_kernel<<<blocks(n - 1), block>>>(sc, static_cast<int>(n), left, right, parent, range);
            CK(cudaMemsetAsync(visits, 0, n * 4));
            refit_kernel<<<blocks(n), block>>>(sorted, static_cast<int>(n), left, right, parent, visits, node);
        }
        traverse_kernel<<<blocks(n), block>>>(sorted, static_cast<int>(n), left, right, range, node, si, counts,
                                              nullptr, nullptr);
        CK(cudaMemsetAsync(counts + n, 0, 4));
        bytes = 0;
        CK(cub::DeviceScan::ExclusiveScan(nullptr, bytes, counts, offsets, ::cuda::std::plus<>{}, std::uint64_t(0),
                                          static_cast<int>(n + 1)));
        scratch(bytes);
        CK(cub::DeviceScan::ExclusiveScan(temp, bytes, counts, offsets, ::cuda::std::plus<>{}, std::uint64_t(0),
                                          static_cast<int>(n + 1)));
        CK(cudaMemcpy(host_total, offsets + n, 8, cudaMemcpyDeviceToHost));
        pair_count = *host_total;
        if (pair_count > pair_cap) {
            if (pairs) cudaFree(pairs);
            pair_cap = pair_count + pair_count / 4 + 16;
            CK(cudaMalloc(&pairs, pair_cap * sizeof(broadphase::Pair)));
        }
        if (pair_count)
            traverse_kernel<<<blocks(n), block>>>(sorted, static_cast<int>(n), left, right, range, node, si, counts,
                                                  offsets, pairs);
        CK(cudaDeviceSynchronize());
        CK(cudaGetLastError());
    }
};

broadphase::Boxes mixed_scene(std::size_t n, std::uint64_t seed) {
    // gpu_check.sh's mixed1m recipe (its own generator): log-uniform sizes
    // 0.25..64 per axis, every 1000th box a slab spanning the region on two axes.
    const double side = 900.0 * std::cbrt(double(n) / 20000.0);
    broadphase::scenes::Random r(seed);
    broadphase::Boxes b;
    b.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        broadphase::Box x;
        const bool slab = i % 1000 == 999;
        for (int k = 0; k < 3; ++k) {
            const double c = r.uniform(0, side);
            double e = std::exp(r.uniform(std::log(0.25), std::log(64.0)));
            if (slab && int(i % 3) != k) e = side;
            x.min[k] = float(c - e / 2);
            x.max[k] = float(c + e / 2);
        }
        b.push_back(x);
    }
    return b;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    if (!broadphase::cuda::available()) {
        std::printf("no CUDA device\n");
        return 0;
    }
    std::vector<std::string> names = {"uniform:80000", "mixed20k", "uniform:1000000", "mixed:1000000", "uniform:10000000"};
    if (argc > 1) names.assign(argv + 1, argv + argc);
    std::printf("%-18s %10s %10s %12s %8s\n", "scene", "grid ms", "lbvh ms", "pairs", "same");
    int status = 0;
    for (const std::string& name : names) {
        broadphase::Boxes boxes;
        if (name.rfind("mixed:", 0) == 0) boxes = mixed_scene(std::stoull(name.substr(6)), 11);
        else if (!broadphase::scenes::make_scene(name, boxes)) continue;
        broadphase::cuda::DeviceBoxSet set;
        set.upload(boxes);
        broadphase::cuda::PairFinder grid;
        Lbvh lbvh;
        std::vector<double> tg, tl;
        for (int f = 0; f < 21; ++f) {
            auto t0 = std::chrono::steady_clock::now();
            grid.find_pairs_on_device(set.view());
            auto t1 = std::chrono::steady_clock::now();
            lbvh.run(set.view());
            auto t2 = std::chrono::steady_clock::now();
            if (f > 0) {
                tg.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
                tl.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
            }
        }
        std::vector<broadphase::Pair> a, b(lbvh.pair_count);
        broadphase::Options sorted;
        sorted.sorted = true;
        grid.find_pairs(set.view(), a, sorted);
        if (lbvh.pair_count)
            CK(cudaMemcpy(b.data(), lbvh.pairs, lbvh.pair_count * sizeof(broadphase::Pair), cudaMemcpyDeviceToHost));
        broadphase::sort_pairs(b);
        const bool same = a == b;
        status |= same ? 0 : 1;
        std::printf("%-18s %10.3f %10.3f %12zu %8s\n", name.c_str(), median(tg), median(tl), a.size(), same ? "yes" : "NO");
    }
    return status;
}
