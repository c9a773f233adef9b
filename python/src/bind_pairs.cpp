// find_pairs and PairFinder: every overlapping pair within one set of boxes
// or between two; algorithms() and default_threads(); the benchmark hook
// _time_cpp_find_pairs.

#include "bindings.hpp"
#include "numpy_boxes.hpp"
#include "periodic_args.hpp"

#include <broadphase/periodic.hpp>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace broadphase_python {
namespace {

/// A kept finder per precision and dimension, guarded by a mutex (the GIL
/// is released while it runs).
class Finder {
public:
    py::array find(py::handle boxes, py::handle other, const bp::Options& o, OnInvalid on_invalid,
                   py::handle boxsize = py::none()) {
        const std::optional<std::array<double, 3>> periods = boxsize_of(boxsize);
        if (periods) {
            if (!other.is_none())
                raise_value("boxsize (a periodic domain) is for pairs within one set: other must be None");
            // The periodic path is 3-D: boxsize= has three periods.
            const std::string why = "boxsize= (a periodic domain) takes 3-D boxes";
            Rows a = box_rows_of(boxes, "boxes", false, 3, why);
            // float32 boxes are searched in float32 only when every period is a float32 value.
            if (!a.is_double && !periods_fit_float(*periods)) a = box_rows_of(boxes, "boxes", true, 3, why);
            return a.is_double ? run_periodic<double>(a, *periods, o, on_invalid)
                               : run_periodic<float>(a, *periods, o, on_invalid);
        }
        Rows a = box_rows_of(boxes, "boxes");
        std::optional<Rows> b;
        if (!other.is_none()) {
            b = box_rows_of(other, "other", false, a.any_dim ? 0 : a.dim,
                            "boxes is " + dim_words(a.dim) + ", and both sets must have the same dimension");
            if (a.any_dim) a = box_rows_of(boxes, "boxes", false, b->dim);
            if (a.is_double != b->is_double) {  // mixed precision: both float64 (exact)
                a = box_rows_of(boxes, "boxes", true, a.dim);
                b = box_rows_of(other, "other", true, a.dim);
            }
        }
        if (a.dim == 2) return a.is_double ? run<double, 2>(a, b, o, on_invalid) : run<float, 2>(a, b, o, on_invalid);
        return a.is_double ? run<double, 3>(a, b, o, on_invalid) : run<float, 3>(a, b, o, on_invalid);
    }

    std::string last_algorithm() const { return bp::to_string(last_); }

    std::string repr() const {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!called_) return "<broadphase.PairFinder, no call yet>";
        return "<broadphase.PairFinder last call: " + std::to_string(last_n_) + (last_two_sets_ ? " + " + std::to_string(last_m_) : "") +
               " boxes, " + std::to_string(last_dim_) + "-D " + (last_double_ ? "float64" : "float32") + ", " +
               std::to_string(last_pairs_) + (last_pairs_ == 1 ? " pair, " : " pairs, ") + bp::to_string(last_) + ">";
    }

private:
    template <class T, int D>
    struct State {
        bp::BasicPairFinder<T, D> finder;
        bp::BasicPeriodicPairFinder<T, D> periodic;
        bp::BasicBoxes<T, D> a, b;
    };

    template <class T, int D>
    State<T, D>& state() {
        auto make = [](auto& p) -> auto& {
            if (!p) p = std::make_unique<typename std::decay_t<decltype(p)>::element_type>();
            return *p;
        };
        if constexpr (D == 2) {
            if constexpr (std::is_same_v<T, float>) return make(f2_);
            else return make(d2_);
        } else {
            if constexpr (std::is_same_v<T, float>) return make(f3_);
            else return make(d3_);
        }
    }

    template <class T, int D>
    py::array run(const Rows& a, const std::optional<Rows>& b, const bp::Options& o, OnInvalid on_invalid) {
        std::vector<bp::Pair> out;
        bp::Report r;
        {
            py::gil_scoped_release nogil;
            std::lock_guard<std::mutex> lock(mutex_);
            State<T, D>& s = state<T, D>();
            fill_boxes(s.a, data_of<T>(a), a.n, o.threads);
            if (b) {
                fill_boxes(s.b, data_of<T>(*b), b->n, o.threads);
                r = s.finder.find_pairs(s.a, s.b, out, o);
            } else {
                r = s.finder.find_pairs(s.a, out, o);
            }
            last_ = s.finder.last_algorithm();
            called_ = true;
            last_n_ = a.n;
            last_m_ = b ? b->n : 0;
            last_two_sets_ = b.has_value();
            last_dim_ = D;
            last_double_ = std::is_same_v<T, double>;
            last_pairs_ = out.size();
        }
        check_report(r, on_invalid, "boxes", "other", &out);
        return pairs_array(std::move(out));
    }

    template <class T>
    py::array run_periodic(const Rows& a, const std::array<double, 3>& periods, const bp::Options& o,
                           OnInvalid on_invalid) {
        std::vector<bp::Pair> out;
        bp::Report r;
        {
            py::gil_scoped_release nogil;
            std::lock_guard<std::mutex> lock(mutex_);
            State<T, 3>& s = state<T, 3>();
            fill_boxes(s.a, data_of<T>(a), a.n, o.threads);
            r = s.periodic.find_pairs(s.a, domain_of<T>(periods), out, o);
            last_ = s.periodic.last_algorithm();
            called_ = true;
            last_n_ = a.n;
            last_m_ = 0;
            last_two_sets_ = false;
            last_dim_ = 3;
            last_double_ = std::is_same_v<T, double>;
            last_pairs_ = out.size();
        }
        check_report(r, on_invalid, "boxes", "other", &out);
        return pairs_array(std::move(out));
    }

    mutable std::mutex mutex_;
    std::unique_ptr<State<float, 2>> f2_;
    std::unique_ptr<State<double, 2>> d2_;
    std::unique_ptr<State<float, 3>> f3_;
    std::unique_ptr<State<double, 3>> d3_;
    bp::Algorithm last_ = bp::Algorithm::automatic;
    bool called_ = false, last_two_sets_ = false, last_double_ = false;
    std::size_t last_n_ = 0, last_m_ = 0, last_pairs_ = 0;
    int last_dim_ = 3;
};

/// The finder find_pairs keeps between calls, so that only the first call
/// pays for its memory (free_memory() lets it go). A call that finds it
/// busy (another Python thread, the GIL released) uses a fresh one.
struct KeptPairFinder {
    std::mutex mutex;
    std::unique_ptr<Finder> finder;
};
KeptPairFinder& kept_pair_finder() {
    static KeptPairFinder* k = new KeptPairFinder;  // never destroyed: no order-of-exit issue
    return *k;
}

/// For bench/python/overhead.py: one C++ call equivalent to a Python one,
/// on the same rows, timed in C++ (milliseconds, steady clock). The output
/// is freed outside the timed region, as the benchmark frees Python's.
///   rows_oneshot: Boxes::assign_rows + broadphase::find_pairs (a new finder), as find_pairs does;
///   rows_kept:    assign_rows into kept Boxes + a kept PairFinder, as PairFinder.find_pairs does;
///   soa_kept:     a kept PairFinder on ready Boxes and a kept output (what `broadphase bench` times).
std::pair<double, std::size_t> time_cpp_find_pairs(py::array_t<float, py::array::c_style | py::array::forcecast> rows,
                                                   long threads, const std::string& variant) {
    if (rows.ndim() != 2 || rows.shape(1) != 6) raise_value("rows must have shape (N, 6)");
    static bp::PairFinder finder;
    static bp::Boxes kept;
    static std::vector<bp::Pair> kept_out;
    bp::Options o;
    o.threads = static_cast<unsigned>(std::max(0L, threads));
    const float* data = rows.data();
    const std::size_t n = static_cast<std::size_t>(rows.shape(0));
    std::vector<bp::Pair> fresh;
    double ms = 0;
    {
        py::gil_scoped_release nogil;
        using clock = std::chrono::steady_clock;
        if (variant == "soa_kept") kept.assign_rows(data, n);  // untimed: the boxes are ready
        const auto t0 = clock::now();
        if (variant == "rows_oneshot") {
            bp::Boxes boxes;
            boxes.assign_rows(data, n);
            bp::find_pairs(boxes, fresh, o);
        } else if (variant == "rows_kept") {
            kept.assign_rows(data, n);
            finder.find_pairs(kept, fresh, o);
        } else {
            finder.find_pairs(kept, kept_out, o);
        }
        const auto t1 = clock::now();
        ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    }
    return {ms, variant == "soa_kept" ? kept_out.size() : fresh.size()};
}

}  // namespace

void free_kept_pair_finder() {
    KeptPairFinder& kept = kept_pair_finder();
    std::unique_ptr<Finder> gone;
    std::lock_guard<std::mutex> lock(kept.mutex);
    gone = std::move(kept.finder);
}

void bind_pairs(py::module_& m) {
    m.def(
        "find_pairs",
        [](py::handle boxes, py::handle other, const std::string& algorithm, long threads, bool sorted,
           std::optional<std::uint64_t> max_pairs, const std::string& invalid, py::handle boxsize) {
            const bp::Options o = make_options(algorithm, threads, sorted, max_pairs);
            const OnInvalid on_invalid = parse_invalid(invalid);
            KeptPairFinder& kept = kept_pair_finder();
            std::unique_lock<std::mutex> lock(kept.mutex, std::try_to_lock);
            if (!lock.owns_lock()) {
                Finder f;
                return f.find(boxes, other, o, on_invalid, boxsize);
            }
            if (!kept.finder) kept.finder = std::make_unique<Finder>();
            return kept.finder->find(boxes, other, o, on_invalid, boxsize);
        },
        py::arg("boxes"), py::arg("other") = py::none(), py::arg("algorithm") = "automatic", py::arg("threads") = 0,
        py::arg("sorted") = false, py::arg("max_pairs") = py::none(), py::arg("invalid") = "warn",
        py::arg("boxsize") = py::none(),
        R"doc(Every overlapping pair of boxes, exactly once.

boxes: (N, 6) array, rows minx miny minz maxx maxy maxz, or (N, 4) for 2-D
    boxes, rows minx miny maxx maxy. float32 and float64 C-contiguous arrays
    are read in place; other layouts and dtypes are converted once (to
    float64 unless float32).
other: optional second set, (M, 6) or (M, 4) as boxes (the same dimension,
    else ValueError). Without it: pairs (i, j), i < j, within boxes. With
    it: pairs (index in boxes, index in other).
algorithm: 'automatic' (default) or one of algorithms().
threads: 0 (default) = all cores; 1 = the calling thread only.
sorted: sort the pairs by (first, second). Without it the order is still
    deterministic (the same for every run and thread count).
max_pairs: raise PairBudgetError past this many pairs (None: no limit).
invalid: what to do about invalid boxes (NaN, or min > max), which never
    take part in a pair: 'warn' (InvalidBoxWarning), 'skip', or 'raise'
    (InvalidBoxError).
boxsize: a periodic domain (one set only), as scipy.spatial.cKDTree's
    boxsize: one period for every axis, or three (x, y, z); 0 or None leaves
    an axis open. A pair (i, j) is reported once iff some image of box j
    (moved by whole periods on the periodic axes) overlaps box i, computed
    exactly. Coordinates need not lie in [0, L): they wrap. A box spanning L
    or more on a periodic axis overlaps every box on that axis. float32
    boxes are searched in float64 when a period is not a float32 value.

Closed boxes: touching faces, edges and corners overlap. Returns a (K, 2)
uint32 array: the library's indices are 32-bit, which halves the memory of
the pair list against int64; a set of more than 4294967294 boxes
(2**32 - 2) is refused with a ValueError. The GIL is released during the
search.)doc");

    py::class_<Finder>(m, "PairFinder", R"doc(A pair finder kept between calls (frames): it reuses its memory.

Same arguments and results as find_pairs (2-D and 3-D boxes, float32 and
float64: it keeps memory for each it has seen). Calls on one PairFinder from
several threads run one at a time.)doc")
        .def(py::init<>())
        .def(
            "find_pairs",
            [](Finder& f, py::handle boxes, py::handle other, const std::string& algorithm, long threads, bool sorted,
               std::optional<std::uint64_t> max_pairs, const std::string& invalid, py::handle boxsize) {
                return f.find(boxes, other, make_options(algorithm, threads, sorted, max_pairs), parse_invalid(invalid),
                              boxsize);
            },
            py::arg("boxes"), py::arg("other") = py::none(), py::arg("algorithm") = "automatic", py::arg("threads") = 0,
            py::arg("sorted") = false, py::arg("max_pairs") = py::none(), py::arg("invalid") = "warn",
            py::arg("boxsize") = py::none(),
            "Every overlapping pair, as broadphase.find_pairs, reusing this finder's memory.")
        .def_property_readonly("last_algorithm", &Finder::last_algorithm, "The algorithm the last call used.")
        .def("__repr__", &Finder::repr);

    m.def(
        "algorithms", []() {
            std::vector<std::string> v;
            for (bp::Algorithm a : bp::concrete_algorithms) v.push_back(bp::to_string(a));
            return v;
        },
        "The algorithm names find_pairs accepts (besides 'automatic').");
    m.def("_time_cpp_find_pairs", &time_cpp_find_pairs, py::arg("rows"), py::arg("threads"), py::arg("variant"),
          "Benchmark hook (bench/python/overhead.py): (milliseconds, pairs) of one C++ call equivalent to a Python one.");
    m.def("default_threads", &bp::default_threads, "The thread count threads=0 stands for.");
}

}  // namespace broadphase_python
