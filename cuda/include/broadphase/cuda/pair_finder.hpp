// broadphase's CUDA backend: every overlapping pair among boxes, on an
// NVIDIA GPU, exactly the pairs the CPU algorithms find.
//
//   broadphase::cuda::PairFinder finder;      // keep it: device buffers are reused
//   std::vector<broadphase::Pair> pairs;
//   broadphase::Report r = finder.find_pairs(boxes, pairs);   // host boxes in, host pairs out
//
// The same query interface as the CPU algorithms: all pairs within a set,
// pairs between two sets, batch box queries against a built set (Index).
// Boxes come from the host (copied to the device) or as device pointers
// (DeviceBoxes: nothing copied). Pairs can stay on the device
// (find_pairs_on_device, then device_pairs() / copy_pairs()).
//
// This header has no CUDA types: it compiles with any C++17 compiler; link
// the broadphase::cuda library. See docs/cuda.md for the method.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <broadphase/boxes.hpp>
#include <broadphase/options.hpp>
#include <broadphase/pairs.hpp>

namespace broadphase {
namespace cuda {

/// A CUDA call failed for a reason other than memory (no device, a launch
/// error, a driver error). Device memory exhaustion is reported as
/// Status::out_of_memory instead, with the reason in last_error().
class CudaError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// True when a CUDA device is present and usable.
bool available();
/// The device's name ("NVIDIA H100 80GB HBM3"), or "" without one.
std::string device_name();

/// Boxes already on the device, as struct of arrays of float: min[k][i],
/// max[k][i] for axis k of box i. Device pointers; nothing is copied.
struct DeviceBoxes {
    const float* min[3] = {nullptr, nullptr, nullptr};
    const float* max[3] = {nullptr, nullptr, nullptr};
    std::size_t n = 0;
};

/// A set of boxes held in device memory (copied from host Boxes), reused
/// between uploads: after the first upload of a given size, nothing is
/// allocated.
class DeviceBoxSet {
public:
    DeviceBoxSet();
    ~DeviceBoxSet();
    DeviceBoxSet(DeviceBoxSet&&) noexcept;
    DeviceBoxSet& operator=(DeviceBoxSet&&) noexcept;
    DeviceBoxSet(const DeviceBoxSet&) = delete;
    DeviceBoxSet& operator=(const DeviceBoxSet&) = delete;

    /// Copies the boxes to the device (synchronous), from either layout of
    /// view (a Boxes converts to one). Throws CudaError.
    void upload(const BoxesView& boxes);
    DeviceBoxes view() const;
    std::size_t size() const;
    std::size_t device_bytes() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// What the last call did on the device, and what it cost.
struct FrameStats {
    double upload_ms = 0;     ///< host boxes to the device (0 for DeviceBoxes)
    double device_ms = 0;     ///< everything from boxes on the device to pairs compacted there (host clock, synchronised)
    double transfer_ms = 0;   ///< pairs device -> host (0 when they stay on the device)
    std::uint64_t boxes = 0;  ///< boxes in the call (both sets)
    std::uint64_t entries = 0;  ///< cell entries sorted (resident and query)
    std::uint64_t pairs = 0;    ///< pairs found (before the budget)
    int levels = 0;             ///< slots holding residents (3-D levels and 1-D top groups)
    int key_bits = 0;           ///< bits of the radix sort
    double cell_size = 0;       ///< level-0 cell side
    std::size_t device_bytes = 0;  ///< device memory held by the finder after the call
};

/// Finds pairs on the GPU, frame after frame, reusing its device buffers
/// (after the first frame of a given size, nothing is allocated). Not
/// thread-safe: use one per thread. Options: `sorted` sorts the pairs by
/// (a, b) on the device; `max_pairs` keeps the first max_pairs pairs (in the
/// backend's deterministic order) and reports pair_budget_exceeded; the
/// algorithm and threads fields do not apply. At most 2^29 - 1 boxes (both
/// sets together) per call, else Status::too_many_boxes.
class PairFinder {
public:
    PairFinder();
    ~PairFinder();
    PairFinder(PairFinder&&) noexcept;
    PairFinder& operator=(PairFinder&&) noexcept;
    PairFinder(const PairFinder&) = delete;
    PairFinder& operator=(const PairFinder&) = delete;

    /// All pairs (a < b) within `boxes` into `out` (replaced).
    Report find_pairs(const BoxesView& boxes, std::vector<Pair>& out, const Options& options = {});
    Report find_pairs(const DeviceBoxes& boxes, std::vector<Pair>& out, const Options& options = {});
    /// All pairs (index in a, index in b) between two sets into `out` (replaced).
    Report find_pairs(const BoxesView& a, const BoxesView& b, std::vector<Pair>& out, const Options& options = {});
    Report find_pairs(const DeviceBoxes& a, const DeviceBoxes& b, std::vector<Pair>& out, const Options& options = {});

    /// As above, leaving the pairs on the device: device_pairs(), copy_pairs().
    Report find_pairs_on_device(const DeviceBoxes& boxes, const Options& options = {});
    Report find_pairs_on_device(const DeviceBoxes& a, const DeviceBoxes& b, const Options& options = {});

    /// Lists the invalid boxes of a device set (invalid_a), finding no pairs.
    Report check_boxes(const DeviceBoxes& boxes);

    /// The last call's pairs on the device: an array of Pair (device memory),
    /// valid until the next call.
    const Pair* device_pairs() const;
    std::uint64_t device_pair_count() const;
    /// Copies the last call's pairs to the host (replacing `out`).
    void copy_pairs(std::vector<Pair>& out);

    const FrameStats& last_stats() const;
    /// Device memory held now, in bytes.
    std::size_t device_bytes() const;
    /// Caps the device memory this finder may hold (0: no cap but the
    /// device's own). A frame that would need more fails with
    /// Status::out_of_memory and says how much it needed in last_error().
    void set_memory_limit(std::size_t bytes);
    /// Why the last call failed ("" after a success).
    const std::string& last_error() const;
    /// Frees every device buffer.
    void release();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// A set built on the device that answers batch box queries: pairs
/// (query index, built index) for every query box overlapping a built box.
class Index {
public:
    Index();
    ~Index();
    Index(Index&&) noexcept;
    Index& operator=(Index&&) noexcept;

    /// Copies `boxes` to the device. Invalid boxes are listed in invalid_a.
    Report build(const BoxesView& boxes);
    /// Uses `boxes` in place: the device arrays must outlive the queries.
    Report build(const DeviceBoxes& boxes);
    /// Pairs (query index, built index) into `out` (replaced); invalid query
    /// boxes in invalid_a, invalid built boxes in invalid_b.
    Report query_batch(const BoxesView& queries, std::vector<Pair>& out, const Options& options = {});
    Report query_batch(const DeviceBoxes& queries, std::vector<Pair>& out, const Options& options = {});
    /// Indices of the built boxes overlapping q, increasing (a batch of one).
    std::size_t query(const Box& q, std::vector<std::uint32_t>& out);

    PairFinder& finder();
    std::size_t size() const;

private:
    PairFinder finder_;
    DeviceBoxSet own_;
    DeviceBoxes built_;
    DeviceBoxSet queries_;
    std::vector<Pair> scratch_;
};

}  // namespace cuda

}  // namespace broadphase
