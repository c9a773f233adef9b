// The Python module broadphase._mpi (wrapped by broadphase/mpi.py): the
// distributed broad phase (mpi/include/broadphase/mpi/distributed.hpp) on an
// mpi4py communicator, through pybind11 and mpi4py's C API.
//
// This layer is thin on purpose. broadphase/mpi.py checks the arguments on
// every rank and makes the ranks agree (on the precision, the delivery, the
// root, one set or two) before it calls in here, so that a bad argument on
// one rank raises on every rank instead of leaving the others waiting in a
// collective. What it passes is exact: C-contiguous (N, 6) float32 or
// float64 rows (the same dtype on every rank) and C-contiguous uint64 ids.
// Here: the rows go into the library's struct of arrays, the call runs
// without the GIL, and the pairs come back as a (K, 2) uint64 array that
// owns the library's output vector (no copy), with the report as a dict.
//
// mpi.py turns the report into exceptions and warnings (the policy of
// broadphase._core: InvalidBoxError, InvalidBoxWarning, PairBudgetError).

#include "common.hpp"

#include <broadphase/mpi/distributed.hpp>

// After <mpi.h> (distributed.hpp).
#include <mpi4py/mpi4py.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace bpm = broadphase::mpi;

namespace {

using broadphase_python::ids_array;
using broadphase_python::owning_pairs_array;
using broadphase_python::parse_algorithm;
using broadphase_python::raise_type;
using broadphase_python::raise_value;
using broadphase_python::threads_of;

/// The MPI_Comm of an mpi4py.MPI.Comm (intracommunicator, not null).
MPI_Comm comm_of(py::handle obj) {
    if (!PyObject_TypeCheck(obj.ptr(), &PyMPIComm_Type))
        raise_type("comm must be an mpi4py.MPI.Comm (e.g. mpi4py.MPI.COMM_WORLD); got " +
                   py::str(py::type::of(obj)).cast<std::string>());
    MPI_Comm* c = PyMPIComm_Get(obj.ptr());
    if (!c) throw py::error_already_set();
    if (*c == MPI_COMM_NULL) raise_value("comm is MPI.COMM_NULL");
    int inter = 0;
    MPI_Comm_test_inter(*c, &inter);
    if (inter) raise_value("comm must be an intracommunicator");
    return *c;
}

bpm::Delivery parse_delivery(const std::string& s) {
    if (s == "keep") return bpm::Delivery::keep;
    if (s == "to_holders") return bpm::Delivery::to_holders;
    if (s == "gather") return bpm::Delivery::gather;
    raise_value("delivery must be 'keep', 'to_holders' or 'gather'; got '" + s + "'");
}

/// The rows of an (N, 6) C-contiguous T array into `out`.
template <class T>
void fill_boxes(bp::BasicBoxes<T, 3>& out, const py::array& rows, const char* name) {
    if (!py::array_t<T, py::array::c_style>::check_(rows) || rows.ndim() != 2 || rows.shape(1) != 6)
        raise_type(std::string(name) + ": expected a C-contiguous (N, 6) " + (sizeof(T) == 4 ? "float32" : "float64") +
                   " array (broadphase.mpi converts)");
    out.assign_rows(static_cast<const T*>(rows.data()), static_cast<std::size_t>(rows.shape(0)));
}

/// Ids for n boxes: null for None, else a C-contiguous uint64 array of n.
const std::uint64_t* ids_ptr(const py::object& ids, std::size_t n, const char* name) {
    if (ids.is_none()) return nullptr;
    if (!py::array_t<std::uint64_t, py::array::c_style>::check_(ids))
        raise_type(std::string(name) + ": expected a C-contiguous uint64 array (broadphase.mpi converts)");
    const py::array a = ids;
    if (a.ndim() != 1 || static_cast<std::size_t>(a.shape(0)) != n)
        raise_value(std::string(name) + " must have one id per box");
    return static_cast<const std::uint64_t*>(a.data());
}

/// The status as Python names it (the C++ enumerator's name).
const char* status_name(bp::Status s) {
    switch (s) {
        case bp::Status::ok: return "ok";
        case bp::Status::pair_budget_exceeded: return "pair_budget_exceeded";
        case bp::Status::stopped_by_callback: return "stopped_by_callback";
        case bp::Status::too_many_boxes: return "too_many_boxes";
        case bp::Status::out_of_memory: return "out_of_memory";
        case bp::Status::invalid_argument: return "invalid_argument";
    }
    return "unknown";
}

py::dict stats_dict(const bpm::FrameStats& s) {
    py::dict d;
    d["boxes_in"] = s.boxes_in;
    d["boxes_held"] = s.boxes_held;
    d["ghosts"] = s.ghosts;
    d["pairs_found"] = s.pairs_found;
    d["pairs_owned"] = s.pairs_owned;
    d["bytes_sent"] = s.bytes_sent;
    d["bytes_received"] = s.bytes_received;
    d["total_boxes"] = s.total_boxes;
    d["max_held"] = s.max_held;
    d["mean_held"] = s.mean_held;
    d["ghost_fraction"] = s.ghost_fraction();
    d["ranks"] = s.ranks;
    d["repartitioned"] = s.repartitioned;
    d["ms_partition"] = s.ms_partition;
    d["ms_exchange"] = s.ms_exchange;
    d["ms_find"] = s.ms_find;
    d["ms_delivery"] = s.ms_delivery;
    d["ms_total"] = s.ms_total;
    return d;
}

py::dict report_dict(const bpm::DistributedReport& r) {
    py::dict d;
    d["status"] = status_name(r.status);
    d["pairs"] = r.pairs;
    d["total_pairs"] = r.total_pairs;
    d["invalid_a"] = ids_array(r.invalid_a);
    d["invalid_b"] = ids_array(r.invalid_b);
    d["total_invalid"] = r.total_invalid;
    d["stats"] = stats_dict(r.stats);
    return d;
}

/// The regions of a partition as a (P, 6) float64 array: row r is rank r's
/// region [lo, hi) (lo inclusive, hi exclusive; -inf / inf at the outside).
template <int D>
py::array regions_array(const bpm::Partition<D>& p) {
    const int n = p.regions();
    py::array_t<double> a({static_cast<py::ssize_t>(n), py::ssize_t(2 * D)});
    double* out = a.mutable_data();
    const auto& nodes = p.nodes();
    struct Item {
        int node;
        double lo[D], hi[D];
    };
    std::vector<Item> stack;
    Item root{};
    root.node = 0;
    for (int k = 0; k < D; ++k) root.lo[k] = -INFINITY, root.hi[k] = INFINITY;
    stack.push_back(root);
    while (!stack.empty()) {
        Item it = stack.back();
        stack.pop_back();
        const auto& node = nodes[static_cast<std::size_t>(it.node)];
        if (node.rank >= 0) {
            if (node.rank < n)
                for (int k = 0; k < D; ++k) out[2 * D * node.rank + k] = it.lo[k], out[2 * D * node.rank + D + k] = it.hi[k];
            continue;
        }
        Item l = it, r = it;
        l.node = node.left;
        r.node = node.right;
        l.hi[node.axis] = std::min(l.hi[node.axis], node.cut);
        r.lo[node.axis] = std::max(r.lo[node.axis], node.cut);
        stack.push_back(l);
        stack.push_back(r);
    }
    return a;
}

/// A distributed finder per precision on one communicator, guarded by a
/// mutex (the GIL is released while it runs).
class Finder {
public:
    Finder(py::object comm, double rebalance, std::size_t samples_per_rank)
        : comm_obj_(std::move(comm)), comm_(comm_of(comm_obj_)), rebalance_(rebalance), samples_(samples_per_rank) {
        if (!(rebalance_ >= 1)) raise_value("rebalance must be >= 1 (1.3 by default)");
        if (samples_ == 0) raise_value("samples_per_rank must be positive");
        MPI_Comm_rank(comm_, &rank_);
        MPI_Comm_size(comm_, &size_);
    }

    // A finder collected after MPI_Finalize (at interpreter exit, after
    // mpi4py's) must make no MPI call: its C++ finders are left behind.
    ~Finder() {
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (finalized) {
            (void)f_.release();
            (void)d_.release();
        }
    }
    Finder(const Finder&) = delete;
    Finder& operator=(const Finder&) = delete;

    /// One collective call. use_double: the rows are float64 (else float32).
    py::tuple find(const py::array& boxes, const py::object& ids, const py::object& other, const py::object& other_ids,
                   bool use_double, const std::string& delivery, int root, const std::string& algorithm, long threads,
                   bool sorted, std::optional<std::uint64_t> max_pairs) {
        bpm::DistributedOptions o;
        o.delivery = parse_delivery(delivery);
        if (root < 0 || root >= size_)
            raise_value("root must be a rank of comm (0 to " + std::to_string(size_ - 1) + "); got " + std::to_string(root));
        o.root = root;
        o.local.algorithm = parse_algorithm(algorithm);
        o.local.threads = threads_of(threads);
        o.local.sorted = sorted;
        if (max_pairs) o.local.max_pairs = *max_pairs;
        o.rebalance = rebalance_;
        o.samples_per_rank = samples_;
        return use_double ? run<double>(boxes, ids, other, other_ids, o) : run<float>(boxes, ids, other, other_ids, o);
    }

    void invalidate_partition() {
        std::lock_guard<std::mutex> lock(mutex_);
        if (f_) f_->invalidate_partition();
        if (d_) d_->invalidate_partition();
    }

    /// The regions of the partition the last call used, or None before one.
    py::object partition() {
        std::lock_guard<std::mutex> lock(mutex_);
        if (last_ == 0) return py::none();
        return last_ == 1 ? regions_array(f_->partition()) : regions_array(d_->partition());
    }

    int rank() const { return rank_; }
    int size() const { return size_; }
    py::object comm() const { return comm_obj_; }
    double rebalance() const { return rebalance_; }
    std::size_t samples_per_rank() const { return samples_; }

private:
    template <class T>
    bpm::BasicDistributedPairFinder<T, 3>& finder() {
        if constexpr (std::is_same_v<T, float>) {
            if (!f_) f_ = std::make_unique<bpm::BasicDistributedPairFinder<float, 3>>(comm_);
            return *f_;
        } else {
            if (!d_) d_ = std::make_unique<bpm::BasicDistributedPairFinder<double, 3>>(comm_);
            return *d_;
        }
    }

    template <class T>
    py::tuple run(const py::array& boxes, const py::object& ids, const py::object& other, const py::object& other_ids,
                  const bpm::DistributedOptions& o) {
        std::lock_guard<std::mutex> lock(mutex_);
        // The rows go into boxes kept between calls (no allocation once grown).
        bp::BasicBoxes<T, 3>& a = std::get<bp::BasicBoxes<T, 3>>(first_);
        bp::BasicBoxes<T, 3>& b = std::get<bp::BasicBoxes<T, 3>>(second_);
        b.clear();
        fill_boxes(a, boxes, "boxes");
        const std::uint64_t* ia = ids_ptr(ids, a.size(), "ids");
        const std::uint64_t* ib = nullptr;
        const bool two = !other.is_none();
        if (two) {
            fill_boxes(b, other.cast<py::array>(), "other");
            ib = ids_ptr(other_ids, b.size(), "other_ids");
        }
        std::vector<bpm::IdPair> out;
        bpm::DistributedReport r;
        {
            py::gil_scoped_release nogil;
            bpm::BasicDistributedPairFinder<T, 3>& f = finder<T>();
            if (two)
                r = f.find_pairs(a, ia, b, ib, out, o);
            else if (ia)
                r = f.find_pairs(a, ia, out, o);
            else
                r = f.find_pairs(a, out, o);
        }
        last_ = std::is_same_v<T, float> ? 1 : 2;
        py::dict d = report_dict(r);
        return py::make_tuple(owning_pairs_array<std::uint64_t>(std::move(out)), d);
    }

    py::object comm_obj_;  // keeps the mpi4py communicator alive
    MPI_Comm comm_;
    double rebalance_;
    std::size_t samples_;
    int rank_ = 0;
    int size_ = 1;
    std::mutex mutex_;
    std::unique_ptr<bpm::BasicDistributedPairFinder<float, 3>> f_;
    std::unique_ptr<bpm::BasicDistributedPairFinder<double, 3>> d_;
    std::tuple<bp::BasicBoxes<float, 3>, bp::BasicBoxes<double, 3>> first_, second_;
    int last_ = 0;  // 0: no call yet; 1: float32; 2: float64
};

}  // namespace

PYBIND11_MODULE(_mpi, m) {
    m.doc() = "broadphase._mpi: the distributed broad phase on mpi4py communicators (use broadphase.mpi).";

    // mpi4py's C API (imports mpi4py.MPI, which initializes MPI by default).
    if (import_mpi4py() < 0) throw py::error_already_set();

    py::class_<Finder>(m, "Finder", "broadphase::mpi::BasicDistributedPairFinder<float|double, 3> on one communicator.")
        .def(py::init<py::object, double, std::size_t>(), py::arg("comm"), py::arg("rebalance") = 1.3,
             py::arg("samples_per_rank") = 1024)
        .def("find", &Finder::find, py::arg("boxes"), py::arg("ids"), py::arg("other"), py::arg("other_ids"),
             py::arg("use_double"), py::arg("delivery"), py::arg("root"), py::arg("algorithm"), py::arg("threads"),
             py::arg("sorted"), py::arg("max_pairs"),
             "One collective call on checked, converted arrays: ((K, 2) uint64 pairs, report dict).")
        .def("invalidate_partition", &Finder::invalidate_partition)
        .def_property_readonly("partition", &Finder::partition)
        .def_property_readonly("rank", &Finder::rank)
        .def_property_readonly("size", &Finder::size)
        .def_property_readonly("comm", &Finder::comm)
        .def_property_readonly("rebalance", &Finder::rebalance)
        .def_property_readonly("samples_per_rank", &Finder::samples_per_rank);
}
