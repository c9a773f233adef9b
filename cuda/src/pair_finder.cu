// The CUDA backend: kernels and the host side of broadphase/cuda/pair_finder.hpp.
//
// One frame (self pairs, or pairs between two sets taken as one union):
//   pack        boxes (SoA floats) -> one 32-byte record each; count invalid
//   sample      2,048 evenly spaced boxes -> host; choose the grid there   [sync 1]
//   level       each box's level; residents per level
//   count       entries per box (resident + query); exclusive scan          [sync 2]
//   write       (key, value) per entry
//   sort        CUB radix sort of the entries over key_bits bits
//   gather      sorted 32-byte records (box, value, key), coalesced for the tests
//   runs        (only with query entries) run heads, scan, run starts
//   count pairs per entry; exclusive scan                                   [sync 3]
//   write pairs at the scanned offsets (the exact count is known: no fixed
//               buffer, no dropped pair); optionally sort them by (a, b)
// The per-box and per-entry work is in detail/grid_logic.hpp, shared with
// the CPU tests.
#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include <broadphase/cuda/detail/grid_logic.hpp>
#include <broadphase/cuda/pair_finder.hpp>

namespace broadphase {
namespace cuda {
namespace {

using namespace detail;

constexpr int block = 256;

void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        throw CudaError(std::string("CUDA: ") + what + ": " + cudaGetErrorString(e));
    }
}

void check_launch(const char* what) { check(cudaGetLastError(), what); }

unsigned blocks_for(std::uint64_t n) { return static_cast<unsigned>((n + block - 1) / block); }

/// Thrown inside a frame when device memory runs out or the cap is reached.
struct OutOfDeviceMemory {
    std::string what;
};

std::string megabytes(std::size_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f MB", double(bytes) / 1e6);
    return buf;
}

/// Device memory that only grows, counted in a shared total.
class Buffer {
public:
    Buffer() = default;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    ~Buffer() { release(nullptr); }

    /// At least `bytes`, grown by a quarter beyond when it grows (so slowly
    /// growing frames do not reallocate every time).
    void* ensure(std::size_t bytes, std::size_t& held, std::size_t limit, const char* what) {
        if (bytes <= cap_) return ptr_;
        std::size_t want = bytes + bytes / 4 + 256;
        if (limit && held - cap_ + want > limit) want = bytes;
        if (limit && held - cap_ + want > limit)
            throw OutOfDeviceMemory{std::string("device memory cap reached: ") + what + " needs " + megabytes(bytes) +
                                    ", the finder holds " + megabytes(held) + " of its " + megabytes(limit) + " cap"};
        release(&held);
        void* p = nullptr;
        cudaError_t e = cudaMalloc(&p, want);
        if (e == cudaErrorMemoryAllocation && want != bytes) {
            (void)cudaGetLastError();
            want = bytes;
            e = cudaMalloc(&p, want);
        }
        if (e == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError();
            std::size_t free_b = 0, total_b = 0;
            cudaMemGetInfo(&free_b, &total_b);
            throw OutOfDeviceMemory{std::string("device out of memory: ") + what + " needs " + megabytes(bytes) +
                                    ", " + megabytes(free_b) + " free of " + megabytes(total_b) +
                                    " (the finder holds " + megabytes(held) + ")"};
        }
        check(e, "cudaMalloc");
        ptr_ = p;
        cap_ = want;
        held += cap_;
        return ptr_;
    }
    template <class T>
    T* ensure_n(std::size_t n, std::size_t& held, std::size_t limit, const char* what) {
        return static_cast<T*>(ensure(std::max<std::size_t>(n, 1) * sizeof(T), held, limit, what));
    }
    void release(std::size_t* held) {
        if (ptr_) cudaFree(ptr_);
        if (held) *held -= cap_;
        ptr_ = nullptr;
        cap_ = 0;
    }
    template <class T>
    T* as() const { return static_cast<T*>(ptr_); }

private:
    void* ptr_ = nullptr;
    std::size_t cap_ = 0;
};

// ---- kernels ------------------------------------------------------------------

struct TwoSets {
    DeviceBoxes a, b;
    std::uint32_t na, n;
};

__global__ void pack_kernel(TwoSets s, Rec* box, std::uint32_t* invalid_count) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    bool bad = false;
    if (i < s.n) {
        // Each pointer chosen on its own: indexing the parameter structs
        // through a reference would copy them to local memory.
        const bool first = i < s.na;
        const std::uint32_t j = first ? i : i - s.na;
        Half l{(first ? s.a.min[0] : s.b.min[0])[j], (first ? s.a.min[1] : s.b.min[1])[j],
               (first ? s.a.min[2] : s.b.min[2])[j], 0u};
        Half h{(first ? s.a.max[0] : s.b.max[0])[j], (first ? s.a.max[1] : s.b.max[1])[j],
               (first ? s.a.max[2] : s.b.max[2])[j], 0u};
        bad = !box_valid(l, h);
        l.w = bad ? 1u : 0u;
        box[i] = Rec{l, h};
    }
    const unsigned votes = __ballot_sync(0xFFFFFFFFu, bad);
    if ((threadIdx.x & 31) == 0 && votes) atomicAdd(invalid_count, static_cast<unsigned>(__popc(votes)));
}

__global__ void sample_kernel(const Rec* box, std::uint32_t n, std::uint32_t m, Half* out) {
    const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= m) return;
    const std::uint32_t i = sample_index(t, m, n);
    const Rec b = box[i];
    out[t] = b.lo;
    out[m + t] = b.hi;
}

__global__ void level_kernel(const Rec* box, std::uint32_t n, GridParams p, std::uint8_t* level,
                             std::uint32_t* residents) {
    __shared__ std::uint32_t local[max_slots];
    if (threadIdx.x < max_slots) local[threadIdx.x] = 0;
    __syncthreads();
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const Rec b = box[i];
        const Half l = b.lo, h = b.hi;
        std::uint8_t lv = 255;
        if (l.w == 0) {
            const int x = box_slot(l, h, p);
            lv = static_cast<std::uint8_t>(x);
            atomicAdd(&local[x], 1u);
        }
        level[i] = lv;
    }
    __syncthreads();
    if (threadIdx.x < max_slots && local[threadIdx.x]) atomicAdd(&residents[threadIdx.x], local[threadIdx.x]);
}

__global__ void count_entries_kernel(const Rec* box, const std::uint8_t* level, std::uint32_t n,
                                     GridParams p, const std::uint32_t* residents, std::uint32_t* counts) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > n) return;
    std::uint32_t c = 0;
    if (i < n && level[i] != 255) {
        const Rec b = box[i];
        c = count_entries(b.lo, b.hi, level[i], p, occupied_slots(p, residents));
    }
    counts[i] = c;  // counts[n] = 0: the scan's last element is the total
}

__global__ void write_entries_kernel(const Rec* box, const std::uint8_t* level, std::uint32_t n,
                                     GridParams p, const std::uint64_t* offsets, std::uint32_t* keys,
                                     std::uint32_t* values) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || level[i] == 255) return;
    const std::uint64_t at = offsets[i];
    const Rec b = box[i];
    write_entries(b.lo, b.hi, i, level[i], p, keys + at, values + at);
}

__global__ void gather_kernel(const std::uint32_t* keys, const std::uint32_t* values, const Rec* box,
                              std::uint32_t m, Rec* recs) {
    const std::uint32_t e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= m) return;
    const std::uint32_t v = values[e];
    Rec r = box[v >> flag_bits];
    r.lo.w = v;
    r.hi.w = keys[e];
    recs[e] = r;
}

__global__ void heads_kernel(const Rec* recs, std::uint32_t m, std::uint32_t* heads) {
    const std::uint32_t e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e > m) return;
    heads[e] = e < m && (e == 0 || recs[e].hi.w != recs[e - 1].hi.w) ? 1u : 0u;
}

__global__ void run_start_kernel(const Rec* recs, std::uint32_t m, const std::uint64_t* run_excl,
                                 std::uint32_t* run_start) {
    const std::uint32_t e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= m) return;
    if (e == 0 || recs[e].hi.w != recs[e - 1].hi.w) run_start[run_excl[e]] = e;
}

__global__ void count_pairs_kernel(const Rec* recs, std::uint32_t m, const std::uint64_t* run_excl,
                                   const std::uint32_t* run_start, GridParams p, std::uint32_t* counts) {
    const std::uint32_t e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e > m) return;
    counts[e] = e < m ? entry_pairs(recs, m, e, run_excl, run_start, p, nullptr, 0) : 0u;
}

__global__ void write_pairs_kernel(const Rec* recs, std::uint32_t m, const std::uint64_t* run_excl,
                                   const std::uint32_t* run_start, GridParams p, const std::uint64_t* offsets,
                                   PairOut out) {
    const std::uint32_t e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= m) return;
    const std::uint64_t base = offsets[e];
    if (base >= out.limit || offsets[e + 1] == base) return;
    entry_pairs(recs, m, e, run_excl, run_start, p, &out, base);
}

__global__ void interleave_kernel(const std::uint32_t* a, const std::uint32_t* b, std::uint64_t k, Pair* out) {
    const std::uint64_t t = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= k) return;
    out[t] = Pair{a[t], b[t]};
}

__global__ void invalid_flags_kernel(const Rec* box, std::uint32_t n, std::uint32_t* flags) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > n) return;
    flags[i] = i < n && box[i].lo.w != 0 ? 1u : 0u;
}

__global__ void invalid_list_kernel(const Rec* box, std::uint32_t n, const std::uint64_t* offsets,
                                    std::uint32_t* list) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && box[i].lo.w != 0) list[offsets[i]] = i;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

// ---- availability ---------------------------------------------------------------

bool available() {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return count > 0;
}

std::string device_name() {
    if (!available()) return "";
    int dev = 0;
    cudaDeviceProp prop{};
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return "";
    }
    return prop.name;
}

// ---- DeviceBoxSet -----------------------------------------------------------------

struct DeviceBoxSet::Impl {
    Buffer arrays[6];
    std::size_t held = 0;
    std::size_t n = 0;
};

DeviceBoxSet::DeviceBoxSet() : impl_(new Impl) {}
DeviceBoxSet::~DeviceBoxSet() {
    if (impl_)
        for (Buffer& b : impl_->arrays) b.release(&impl_->held);
}
DeviceBoxSet::DeviceBoxSet(DeviceBoxSet&&) noexcept = default;
DeviceBoxSet& DeviceBoxSet::operator=(DeviceBoxSet&&) noexcept = default;

void DeviceBoxSet::upload(const BoxesView& boxes) {
    if (!impl_) impl_.reset(new Impl);
    const std::size_t n = boxes.size();
    for (int k = 0; k < 6; ++k) {
        float* d = impl_->arrays[k].ensure_n<float>(n, impl_->held, 0, "boxes");
        (void)d;
    }
    for (int k = 0; k < 3; ++k) {
        if (n == 0) break;
        // A strided view is gathered by the copy itself: n rows of one float,
        // stride_bytes() apart on the host, packed on the device.
        const std::size_t pitch = boxes.stride_bytes();
        check(cudaMemcpy2D(impl_->arrays[k].as<float>(), sizeof(float), boxes.min(k), pitch, sizeof(float), n,
                           cudaMemcpyHostToDevice),
              "upload boxes");
        check(cudaMemcpy2D(impl_->arrays[3 + k].as<float>(), sizeof(float), boxes.max(k), pitch, sizeof(float), n,
                           cudaMemcpyHostToDevice),
              "upload boxes");
    }
    impl_->n = n;
}

DeviceBoxes DeviceBoxSet::view() const {
    DeviceBoxes v;
    if (!impl_) return v;
    for (int k = 0; k < 3; ++k) {
        v.min[k] = impl_->arrays[k].as<float>();
        v.max[k] = impl_->arrays[3 + k].as<float>();
    }
    v.n = impl_->n;
    return v;
}
std::size_t DeviceBoxSet::size() const { return impl_ ? impl_->n : 0; }
std::size_t DeviceBoxSet::device_bytes() const { return impl_ ? impl_->held : 0; }

// ---- PairFinder -------------------------------------------------------------------

struct PairFinder::Impl {
    cudaStream_t stream = nullptr;
    std::size_t held = 0;
    std::size_t limit = 0;
    std::string error;
    FrameStats stats;

    // Per box.
    Buffer boxes, level;  // boxes: one 32-byte record each (one sector per random read)
    // Per entry (and reused per box: counts, offsets).
    Buffer counts, offsets, keys[2], values[2], recs, run_excl, run_start;
    // Pairs.
    Buffer pairs, pa[2], pb[2];
    Buffer temp;   // CUB scratch
    Buffer small;  // residents per level, invalid count
    Buffer sample;
    // Host side (pinned): sample and counters.
    void* host = nullptr;
    std::size_t host_bytes = 0;

    DeviceBoxSet upload_a, upload_b;
    ChooseScratch choose_scratch;

    // BROADPHASE_CUDA_PROFILE=1 (or its former name BROADPHASE_GPU_PROFILE):
    // synchronise after each stage and print the stage times to stderr (for
    // tuning; the frame gets a little slower).
    bool profile = std::getenv("BROADPHASE_CUDA_PROFILE") != nullptr || std::getenv("BROADPHASE_GPU_PROFILE") != nullptr;
    std::chrono::steady_clock::time_point stage_t0;
    std::string stage_log;
    void stage(const char* name) {
        if (!profile) return;
        sync();
        const auto now = std::chrono::steady_clock::now();
        char buf[64];
        std::snprintf(buf, sizeof buf, " %s %.3f", name, std::chrono::duration<double, std::milli>(now - stage_t0).count());
        stage_log += buf;
        stage_t0 = now;
    }
    std::uint64_t pair_count = 0;  // pairs on the device (after the budget)
    const Pair* pair_ptr = nullptr;

    Impl() = default;
    ~Impl() { free_all(); }

    void free_all() {
        Buffer* all[] = {&boxes,      &level,     &counts, &offsets, &keys[0], &keys[1], &values[0],
                         &values[1],  &recs,      &run_excl,  &run_start, &pairs, &pa[0],  &pa[1],   &pb[0],
                         &pb[1],      &temp,      &small,     &sample};
        for (Buffer* b : all) b->release(&held);
        if (host) cudaFreeHost(host);
        host = nullptr;
        host_bytes = 0;
        if (stream) cudaStreamDestroy(stream);
        stream = nullptr;
        pair_count = 0;
        pair_ptr = nullptr;
    }

    void init() {
        if (!stream) check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
        const std::size_t want = sizeof(Half) * 2 * sample_size + 256;
        if (host_bytes < want) {
            if (host) cudaFreeHost(host);
            host = nullptr;
            check(cudaMallocHost(&host, want), "cudaMallocHost");
            host_bytes = want;
        }
    }

    template <class T>
    T* need(Buffer& b, std::size_t n, const char* what) {
        return b.ensure_n<T>(n, held, limit, what);
    }

    void sync() { check(cudaStreamSynchronize(stream), "kernel execution"); }

    /// Exclusive scan of counts[0..n] (n + 1 items, counts[n] == 0) into
    /// offsets[0..n]: offsets[n] is the total.
    void scan(const std::uint32_t* in, std::uint64_t* out, std::size_t items) {
        std::size_t bytes = 0;
        check(cub::DeviceScan::ExclusiveScan(nullptr, bytes, in, out, ::cuda::std::plus<>{}, std::uint64_t(0),
                                             static_cast<int>(items), stream),
              "scan (size)");
        void* t = temp.ensure(bytes, held, limit, "scan scratch");
        check(cub::DeviceScan::ExclusiveScan(t, bytes, in, out, ::cuda::std::plus<>{}, std::uint64_t(0),
                                             static_cast<int>(items), stream),
              "scan");
    }

    /// Stable radix sort of (key, value) pairs over bits [0, bits), keys in
    /// k[0], values in v[0], k[1] and v[1] the alternate buffers; returns
    /// which of the two holds the result.
    int sort(std::uint32_t* const* k, std::uint32_t* const* v, std::size_t items, int bits) {
        cub::DoubleBuffer<std::uint32_t> dk(k[0], k[1]);
        cub::DoubleBuffer<std::uint32_t> dv(v[0], v[1]);
        std::size_t bytes = 0;
        check(cub::DeviceRadixSort::SortPairs(nullptr, bytes, dk, dv, static_cast<int>(items), 0, bits, stream),
              "radix sort (size)");
        void* t = temp.ensure(bytes, held, limit, "sort scratch");
        check(cub::DeviceRadixSort::SortPairs(t, bytes, dk, dv, static_cast<int>(items), 0, bits, stream),
              "radix sort");
        return dk.selector;
    }

    /// Lists the invalid boxes among the packed ones (invalid_count of them).
    void invalid_list(std::uint32_t n, std::uint32_t na, std::uint32_t invalid_count, Report& r) {
        std::uint32_t* flags = need<std::uint32_t>(counts, std::size_t(n) + 1, "per-box counts");
        std::uint64_t* offs = need<std::uint64_t>(offsets, std::size_t(n) + 1, "per-box offsets");
        invalid_flags_kernel<<<blocks_for(std::uint64_t(n) + 1), block, 0, stream>>>(boxes.as<Rec>(), n, flags);
        check_launch("invalid flags");
        scan(flags, offs, std::size_t(n) + 1);
        std::uint32_t* list = need<std::uint32_t>(run_start, invalid_count, "invalid list");
        invalid_list_kernel<<<blocks_for(n), block, 0, stream>>>(boxes.as<Rec>(), n, offs, list);
        check_launch("invalid list");
        std::vector<std::uint32_t> all(invalid_count);
        check(cudaMemcpyAsync(all.data(), list, invalid_count * sizeof(std::uint32_t), cudaMemcpyDeviceToHost,
                              stream),
              "copy invalid list");
        sync();
        for (std::uint32_t i : all) (i < na ? r.invalid_a : r.invalid_b).push_back(i < na ? i : i - na);
    }

    /// One frame. b.n == 0 with cross == false: self pairs of a. Without
    /// pairs_needed, only the invalid boxes are listed.
    Report run(const DeviceBoxes& a, const DeviceBoxes& b, bool cross, const Options& options, bool pairs_needed) {
        Report r;
        error.clear();
        pair_count = 0;
        pair_ptr = nullptr;
        const double upload_ms = stats.upload_ms;
        stats = FrameStats{};
        stats.upload_ms = upload_ms;
        const std::uint64_t total = std::uint64_t(a.n) + std::uint64_t(b.n);
        stats.boxes = total;
        if (total > max_total_boxes) {
            r.status = Status::too_many_boxes;
            error = "more than 2^29 - 1 boxes in one call";
            return r;
        }
        init();
        const auto t0 = std::chrono::steady_clock::now();
        stage_t0 = t0;
        stage_log.clear();
        try {
            frame(a, b, cross, options, pairs_needed, r);
        } catch (const OutOfDeviceMemory& e) {
            (void)cudaStreamSynchronize(stream);
            (void)cudaGetLastError();
            r.status = Status::out_of_memory;
            r.pairs = 0;
            pair_count = 0;
            pair_ptr = nullptr;
            error = e.what;
        }
        stats.device_ms = ms_since(t0);
        stats.device_bytes = held;
        if (profile) std::fprintf(stderr, "cuda stages (ms):%s | total %.3f\n", stage_log.c_str(), stats.device_ms);
        return r;
    }

    void frame(const DeviceBoxes& a, const DeviceBoxes& b, bool cross, const Options& options, bool pairs_needed,
               Report& r) {
        const std::uint32_t na = static_cast<std::uint32_t>(a.n);
        const std::uint32_t n = static_cast<std::uint32_t>(a.n + b.n);
        if (n == 0) return;

        // Pack and sample.
        Rec* dbox = need<Rec>(boxes, n, "boxes");
        std::uint32_t* dsmall = need<std::uint32_t>(small, 64, "counters");
        check(cudaMemsetAsync(dsmall, 0, 64 * sizeof(std::uint32_t), stream), "memset");
        TwoSets sets{a, b, na, n};
        pack_kernel<<<blocks_for(n), block, 0, stream>>>(sets, dbox, dsmall + 32);
        check_launch("pack");
        const std::uint32_t m = std::min(n, sample_size);
        Half* dsample = need<Half>(sample, 2 * std::size_t(sample_size), "sample");
        sample_kernel<<<blocks_for(m), block, 0, stream>>>(dbox, n, m, dsample);
        check_launch("sample");
        Half* hsample = static_cast<Half*>(host);
        std::uint32_t* hcount = reinterpret_cast<std::uint32_t*>(hsample + 2 * sample_size);
        check(cudaMemcpyAsync(hsample, dsample, 2 * m * sizeof(Half), cudaMemcpyDeviceToHost, stream), "copy sample");
        check(cudaMemcpyAsync(hcount, dsmall + 32, sizeof(std::uint32_t), cudaMemcpyDeviceToHost, stream),
              "copy count");
        sync();
        stage("pack+sample");
        const std::uint32_t invalid = *hcount;
        if (invalid) invalid_list(n, na, invalid, r);
        if (invalid == n || !pairs_needed) return;

        GridParams p = choose_params(hsample, hsample + m, m, n, 0, &choose_scratch);
        p.na = na;
        p.cross = cross ? 1 : 0;
        stage("choose");

        // Levels, entries per box, scan.
        std::uint8_t* dlevel = need<std::uint8_t>(level, n, "levels");
        level_kernel<<<blocks_for(n), block, 0, stream>>>(dbox, n, p, dlevel, dsmall);
        check_launch("level");
        std::uint32_t* dcounts = need<std::uint32_t>(counts, std::size_t(n) + 1, "per-box counts");
        std::uint64_t* doffs = need<std::uint64_t>(offsets, std::size_t(n) + 1, "per-box offsets");
        count_entries_kernel<<<blocks_for(std::uint64_t(n) + 1), block, 0, stream>>>(dbox, dlevel, n, p, dsmall,
                                                                                     dcounts);
        check_launch("count entries");
        scan(dcounts, doffs, std::size_t(n) + 1);
        std::uint64_t* hm = reinterpret_cast<std::uint64_t*>(hcount + 2);
        check(cudaMemcpyAsync(hcount + 16, dsmall, max_slots * sizeof(std::uint32_t), cudaMemcpyDeviceToHost, stream),
              "copy residents");
        check(cudaMemcpyAsync(hm, doffs + n, sizeof(std::uint64_t), cudaMemcpyDeviceToHost, stream), "copy total");
        sync();
        stage("level+count");
        const std::uint64_t entries = *hm;
        std::uint32_t residents[max_slots];
        std::memcpy(residents, hcount + 16, sizeof residents);
        finish_key_layout(p, residents);
        stats.entries = entries;
        stats.key_bits = p.key_bits;
        stats.cell_size = p.h;
        for (int l = 0; l < max_slots; ++l) stats.levels += residents[l] > 0 ? 1 : 0;
        if (entries >= std::uint64_t(INT_MAX))
            throw OutOfDeviceMemory{"scene too large: " + std::to_string(entries) + " cell entries (at most 2^31 - 1)"};
        const std::uint32_t me = static_cast<std::uint32_t>(entries);

        // Entries, sort, records.
        std::uint32_t* k0 = need<std::uint32_t>(keys[0], me, "entry keys");
        need<std::uint32_t>(keys[1], me, "entry keys");
        std::uint32_t* v0 = need<std::uint32_t>(values[0], me, "entry values");
        need<std::uint32_t>(values[1], me, "entry values");
        write_entries_kernel<<<blocks_for(n), block, 0, stream>>>(dbox, dlevel, n, p, doffs, k0, v0);
        check_launch("write entries");
        stage("entries");
        std::uint32_t* kk[2] = {k0, keys[1].as<std::uint32_t>()};
        std::uint32_t* vv[2] = {v0, values[1].as<std::uint32_t>()};
        const int sel = sort(kk, vv, me, p.key_bits);
        stage("sort");
        Rec* drecs = need<Rec>(recs, me, "entry records");
        gather_kernel<<<blocks_for(me), block, 0, stream>>>(kk[sel], vv[sel], dbox, me, drecs);
        check_launch("gather");
        stage("gather");
        std::uint64_t* drun_excl = nullptr;
        std::uint32_t* drun_start = nullptr;
        std::uint32_t* ecounts = need<std::uint32_t>(counts, std::size_t(me) + 1, "per-entry counts");
        std::uint64_t* eoffs = need<std::uint64_t>(offsets, std::size_t(me) + 1, "per-entry offsets");
        if (p.query_bit) {
            drun_excl = need<std::uint64_t>(run_excl, std::size_t(me) + 1, "runs");
            drun_start = need<std::uint32_t>(run_start, me, "run starts");
            heads_kernel<<<blocks_for(std::uint64_t(me) + 1), block, 0, stream>>>(drecs, me, ecounts);
            check_launch("heads");
            scan(ecounts, drun_excl, std::size_t(me) + 1);
            run_start_kernel<<<blocks_for(me), block, 0, stream>>>(drecs, me, drun_excl, drun_start);
            check_launch("run starts");
            stage("runs");
        }

        // Pairs: count, scan, write.
        count_pairs_kernel<<<blocks_for(std::uint64_t(me) + 1), block, 0, stream>>>(drecs, me, drun_excl, drun_start, p,
                                                                                    ecounts);
        check_launch("count pairs");
        scan(ecounts, eoffs, std::size_t(me) + 1);
        check(cudaMemcpyAsync(hm, eoffs + me, sizeof(std::uint64_t), cudaMemcpyDeviceToHost, stream), "copy pairs");
        sync();
        stage("count pairs");
        const std::uint64_t found = *hm;
        stats.pairs = found;
        const std::uint64_t kept = std::min<std::uint64_t>(found, options.max_pairs);
        if (kept < found) r.status = Status::pair_budget_exceeded;
        r.pairs = kept;
        pair_count = kept;
        if (kept == 0) return;

        Pair* dpairs = need<Pair>(pairs, kept, "pairs");
        PairOut out{};
        out.limit = kept;
        if (!options.sorted) {
            out.a = reinterpret_cast<std::uint32_t*>(dpairs);
            out.b = out.a + 1;
            out.stride = 2;
            write_pairs_kernel<<<blocks_for(me), block, 0, stream>>>(drecs, me, drun_excl, drun_start, p, eoffs, out);
            check_launch("write pairs");
        } else {
            if (kept >= std::uint64_t(INT_MAX))
                throw OutOfDeviceMemory{"sorted output holds at most 2^31 - 1 pairs; " + std::to_string(kept) +
                                        " found (ask for unsorted pairs)"};
            std::uint32_t* as[2] = {need<std::uint32_t>(pa[0], kept, "pairs"), need<std::uint32_t>(pa[1], kept, "pairs")};
            std::uint32_t* bs[2] = {need<std::uint32_t>(pb[0], kept, "pairs"), need<std::uint32_t>(pb[1], kept, "pairs")};
            out.a = as[0];
            out.b = bs[0];
            out.stride = 1;
            write_pairs_kernel<<<blocks_for(me), block, 0, stream>>>(drecs, me, drun_excl, drun_start, p, eoffs, out);
            check_launch("write pairs");
            // (a, b) order: a stable sort by b, then one by a.
            const std::uint64_t nb = cross ? b.n : a.n;
            const int bits_b = std::max(1, ceil_log2(nb + 1));
            const int bits_a = std::max(1, ceil_log2(std::uint64_t(a.n) + 1));
            const int s1 = sort(bs, as, kept, bits_b);
            std::uint32_t* as2[2] = {as[s1], as[1 - s1]};
            std::uint32_t* bs2[2] = {bs[s1], bs[1 - s1]};
            const int s2 = sort(as2, bs2, kept, bits_a);
            interleave_kernel<<<blocks_for(kept), block, 0, stream>>>(as2[s2], bs2[s2], kept, dpairs);
            check_launch("interleave");
        }
        sync();
        stage("write pairs");
        pair_ptr = dpairs;
    }
};

PairFinder::PairFinder() : impl_(new Impl) {}
PairFinder::~PairFinder() = default;
PairFinder::PairFinder(PairFinder&&) noexcept = default;
PairFinder& PairFinder::operator=(PairFinder&&) noexcept = default;

namespace {
DeviceBoxes empty_set() { return DeviceBoxes{}; }
}  // namespace

Report PairFinder::find_pairs_on_device(const DeviceBoxes& boxes, const Options& options) {
    impl_->stats.upload_ms = 0;
    return impl_->run(boxes, empty_set(), false, options, true);
}

Report PairFinder::find_pairs_on_device(const DeviceBoxes& a, const DeviceBoxes& b, const Options& options) {
    impl_->stats.upload_ms = 0;
    return impl_->run(a, b, true, options, true);
}

Report PairFinder::check_boxes(const DeviceBoxes& boxes) {
    impl_->stats.upload_ms = 0;
    return impl_->run(boxes, empty_set(), false, Options{}, false);
}

Report PairFinder::find_pairs(const DeviceBoxes& boxes, std::vector<Pair>& out, const Options& options) {
    Report r = find_pairs_on_device(boxes, options);
    copy_pairs(out);
    return r;
}

Report PairFinder::find_pairs(const DeviceBoxes& a, const DeviceBoxes& b, std::vector<Pair>& out,
                              const Options& options) {
    Report r = find_pairs_on_device(a, b, options);
    copy_pairs(out);
    return r;
}

Report PairFinder::find_pairs(const BoxesView& boxes, std::vector<Pair>& out, const Options& options) {
    const auto t0 = std::chrono::steady_clock::now();
    impl_->upload_a.upload(boxes);
    const double up = ms_since(t0);
    Report r = impl_->run(impl_->upload_a.view(), empty_set(), false, options, true);
    impl_->stats.upload_ms = up;
    copy_pairs(out);
    return r;
}

Report PairFinder::find_pairs(const BoxesView& a, const BoxesView& b, std::vector<Pair>& out, const Options& options) {
    const auto t0 = std::chrono::steady_clock::now();
    impl_->upload_a.upload(a);
    impl_->upload_b.upload(b);
    const double up = ms_since(t0);
    Report r = impl_->run(impl_->upload_a.view(), impl_->upload_b.view(), true, options, true);
    impl_->stats.upload_ms = up;
    copy_pairs(out);
    return r;
}

const Pair* PairFinder::device_pairs() const { return impl_->pair_ptr; }
std::uint64_t PairFinder::device_pair_count() const { return impl_->pair_ptr ? impl_->pair_count : 0; }

void PairFinder::copy_pairs(std::vector<Pair>& out) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::uint64_t k = device_pair_count();
    out.resize(k);
    if (k) check(cudaMemcpy(out.data(), impl_->pair_ptr, k * sizeof(Pair), cudaMemcpyDeviceToHost), "copy pairs");
    impl_->stats.transfer_ms = ms_since(t0);
}

const FrameStats& PairFinder::last_stats() const { return impl_->stats; }
std::size_t PairFinder::device_bytes() const { return impl_->held + impl_->upload_a.device_bytes() + impl_->upload_b.device_bytes(); }
void PairFinder::set_memory_limit(std::size_t bytes) { impl_->limit = bytes; }
const std::string& PairFinder::last_error() const { return impl_->error; }
void PairFinder::release() {
    impl_->free_all();
    impl_->upload_a = DeviceBoxSet();
    impl_->upload_b = DeviceBoxSet();
}

// ---- Index ----------------------------------------------------------------------------

Index::Index() = default;
Index::~Index() = default;
Index::Index(Index&&) noexcept = default;
Index& Index::operator=(Index&&) noexcept = default;

Report Index::build(const BoxesView& boxes) {
    own_.upload(boxes);
    built_ = own_.view();
    Report r;
    for (std::size_t i = 0; i < boxes.size(); ++i)
        if (!boxes[i].valid()) r.invalid_a.push_back(static_cast<std::uint32_t>(i));
    return r;
}

Report Index::build(const DeviceBoxes& boxes) {
    built_ = boxes;
    return finder_.check_boxes(boxes);
}

Report Index::query_batch(const DeviceBoxes& queries, std::vector<Pair>& out, const Options& options) {
    Report r = finder_.find_pairs(queries, built_, out, options);
    r.invalid_b.clear();  // the built set's were reported by build()
    return r;
}

Report Index::query_batch(const BoxesView& queries, std::vector<Pair>& out, const Options& options) {
    queries_.upload(queries);
    return query_batch(queries_.view(), out, options);
}

std::size_t Index::query(const Box& q, std::vector<std::uint32_t>& out) {
    Boxes one;
    one.push_back(q);
    Options o;
    o.sorted = true;
    query_batch(one, scratch_, o);
    out.clear();
    for (const Pair& p : scratch_) out.push_back(p.b);
    return out.size();
}

PairFinder& Index::finder() { return finder_; }
std::size_t Index::size() const { return built_.n; }

}  // namespace cuda
}  // namespace broadphase
