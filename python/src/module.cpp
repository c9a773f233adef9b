// The Python module broadphase._core (re-exported by broadphase/__init__.py):
// the library on numpy arrays, through pybind11.
//
// Arrays in: (N, 6) rows minx miny minz maxx maxy maxz. float32 and float64
// C-contiguous arrays are read in place; anything else (other strides or
// byte order, integer or other float dtypes, lists) is converted once by
// numpy, to float64 unless it was float32. The library stores boxes as a
// struct of arrays, so every call transposes the rows once (O(n), on the
// call's threads, without the GIL).
//
// Precision: answers are exact in the input's precision. float64 input is
// never rounded to float32 on its way to an answer: find_pairs compares a
// float32 set and a float64 set in float64, and a float32 Index (or Scene)
// answers float64 query boxes and points exactly (FloatQuery below). What a
// float32 Scene stores is float32 (its dtype), so add/move round float64
// boxes to nearest there; its sphere and ray queries and box casts compute
// in float32 (they round in arithmetic anyway).
//
// Arrays out: pairs as (K, 2) uint32 arrays that own the library's output
// vector (no copy).
//
// The GIL is released while the library runs. Objects that keep state
// (PairFinder, Scene) lock themselves, so Python threads sharing one are safe.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <broadphase/broadphase.hpp>
#include <broadphase/scene.hpp>
#include <broadphase/scenes.hpp>
#include <broadphase/spheres.hpp>


namespace py = pybind11;
namespace bp = broadphase;

namespace {

// ---------------------------------------------------------------- errors

// Exception and warning classes, created at import (references kept for
// the life of the process).
PyObject* invalid_box_error = nullptr;
PyObject* invalid_box_warning = nullptr;
PyObject* pair_budget_error = nullptr;

[[noreturn]] void raise_value(const std::string& msg) { throw py::value_error(msg); }
[[noreturn]] void raise_type(const std::string& msg) { throw py::type_error(msg); }

/// Raises `type(msg)` with extra attributes set on the exception object.
[[noreturn]] void raise_with(PyObject* type, const std::string& msg,
                             const std::vector<std::pair<const char*, py::object>>& attrs) {
    py::object e = py::reinterpret_borrow<py::object>(type)(msg);
    for (const auto& [name, value] : attrs) e.attr(name) = value;
    PyErr_SetObject(type, e.ptr());
    throw py::error_already_set();
}

std::string shape_of(const py::array& a) {
    std::ostringstream s;
    s << '(';
    for (py::ssize_t k = 0; k < a.ndim(); ++k) s << (k ? ", " : "") << a.shape(k);
    if (a.ndim() == 1) s << ',';
    s << ')';
    return s.str();
}

std::string dtype_name(const py::array& a) { return py::str(a.dtype()).cast<std::string>(); }

// ---------------------------------------------------------------- arrays in

/// A numeric array converted (once, only if needed) to C-contiguous float32
/// or float64.
struct Rows {
    py::array array;      // keeps the data alive
    bool is_double = false;
    std::size_t n = 0;    // rows (or elements, for 1-D)
};

/// np.asarray(obj), then a check that it holds real numbers.
py::array numeric_array(py::handle obj, const char* name) {
    py::array a;
    try {
        a = py::module_::import("numpy").attr("asarray")(obj);
    } catch (py::error_already_set& e) {
        raise_type(std::string(name) + " must be an array of numbers: " + e.what());
    }
    const char kind = a.dtype().kind();
    if (kind != 'f' && kind != 'i' && kind != 'u')
        raise_type(std::string(name) + " must hold real numbers (float32 or float64; integers are converted); got dtype " +
                   dtype_name(a));
    return a;
}

/// Whether an array (already numeric) is kept as float32.
bool is_float32(const py::array& a) { return a.dtype().kind() == 'f' && a.dtype().itemsize() == 4; }

/// The array as C-contiguous T (no copy when it already is). The conversion
/// is numpy's astype, whose errors propagate (array_t::ensure would return a
/// null array and clear them: a MemoryError, or numpy's overflow warning
/// turned into an error, then crashed the call).
template <class T>
py::array contiguous(const py::array& a) {
    if (py::array_t<T, py::array::c_style | py::array::forcecast>::check_(a)) return a;
    return a.attr("astype")(py::dtype::of<T>(), "C");
}

/// An (N, cols) array of numbers: float32 stays float32 unless want_double,
/// everything else becomes float64. An empty 1-D array counts as (0, cols).
Rows rows_of(py::handle obj, const char* name, py::ssize_t cols, const char* layout, bool want_double = false) {
    py::array a = numeric_array(obj, name);
    const bool empty_1d = a.ndim() == 1 && a.shape(0) == 0;
    if (!empty_1d && (a.ndim() != 2 || a.shape(1) != cols))
        raise_value(std::string(name) + " must have shape (N, " + std::to_string(cols) + ") (" + layout + " per row); got shape " +
                    shape_of(a));
    Rows r;
    r.is_double = want_double || !is_float32(a);
    r.n = empty_1d ? 0 : static_cast<std::size_t>(a.shape(0));
    if (empty_1d) a = a.attr("reshape")(0, cols);
    r.array = r.is_double ? contiguous<double>(a) : contiguous<float>(a);
    return r;
}

/// A 1-D array of n numbers, or one number (n = 1, broadcast).
Rows vector_of(py::handle obj, const char* name, std::size_t n, bool want_double) {
    py::array a = numeric_array(obj, name);
    if (!(a.ndim() == 0 || (a.ndim() == 1 && static_cast<std::size_t>(a.shape(0)) == n)))
        raise_value(std::string(name) + " must be one number or have shape (" + std::to_string(n) + ",); got shape " +
                    shape_of(a));
    Rows r;
    r.is_double = want_double;
    r.n = a.ndim() == 0 ? 1 : n;
    r.array = want_double ? contiguous<double>(a) : contiguous<float>(a);
    return r;
}

template <class T>
const T* data_of(const Rows& r) {
    return static_cast<const T*>(r.array.data());
}

/// One box (six numbers) as float64: minx miny minz maxx maxy maxz.
std::array<double, 6> box_values_of(py::handle obj, const char* name) {
    py::array a = numeric_array(obj, name);
    if (!((a.ndim() == 1 && a.shape(0) == 6) || (a.ndim() == 2 && a.shape(0) == 1 && a.shape(1) == 6)))
        raise_value(std::string(name) + " must be one box of six numbers (minx, miny, minz, maxx, maxy, maxz); got shape " +
                    shape_of(a));
    py::array_t<double, py::array::c_style | py::array::forcecast> d = contiguous<double>(a);
    std::array<double, 6> v;
    std::copy(d.data(), d.data() + 6, v.begin());
    return v;
}

/// One box (six numbers) as a BasicBox<T, 3>: to float32 each value is
/// rounded to nearest (storage in a float32 Scene; queries use FloatQuery).
template <class T>
bp::BasicBox<T, 3> box_of(py::handle obj, const char* name) {
    const std::array<double, 6> p = box_values_of(obj, name);
    bp::BasicBox<T, 3> b;
    for (int k = 0; k < 3; ++k) b.min[k] = static_cast<T>(p[k]), b.max[k] = static_cast<T>(p[3 + k]);
    return b;
}

// ---------------------------------------------------------------- float64 queries on float32 boxes

/// The smallest float >= d (d not NaN).
float float_up(double d) {
    constexpr double top = std::numeric_limits<float>::max();
    if (d > top) return std::numeric_limits<float>::infinity();
    if (d < -top) return d == -std::numeric_limits<double>::infinity() ? -std::numeric_limits<float>::infinity()
                                                                       : -std::numeric_limits<float>::max();
    float f = static_cast<float>(d);  // nearest, in range
    if (static_cast<double>(f) < d) f = std::nextafter(f, std::numeric_limits<float>::infinity());
    return f;
}

/// The largest float <= d (d not NaN).
float float_down(double d) { return -float_up(-d); }

/// A float64 query box answered exactly against float32 boxes.
///
/// A box b overlaps the query q iff, on every axis, b.max >= q.min and
/// b.min <= q.max. For a float x, x >= q.min iff x >= float_up(q.min), and
/// x <= q.max iff x <= float_down(q.max). So q rounded inwards, [float_up(min),
/// float_down(max)], hits exactly the float boxes q hits: no re-test needed.
/// One exception: an axis where no float lies in [q.min, q.max] (a gap: a
/// point or a sliver between two adjacent floats lo < hi). There the inward
/// box would be inverted, which the library takes for an invalid box, while
/// the boxes q hits are those with min <= lo and max >= hi: exactly the boxes
/// that hit both [hi, hi] and [lo, lo]. Such a query is answered as the
/// intersection of the hits of `a` ([hi, hi] on each gap axis) and `b`
/// ([lo, lo]), the other axes rounded inwards in both. An invalid query (NaN,
/// min > max) stays invalid: rounded inwards its min still exceeds its max.
/// A query whose values are all floats is unchanged.
struct FloatQuery {
    bp::BasicBox<float, 3> a, b;  // b: only when gap
    bool gap = false;
};

FloatQuery float_query(const double* q) {
    bool valid = true;
    for (int k = 0; k < 3; ++k) valid = valid && q[k] <= q[3 + k];
    FloatQuery fq;
    for (int k = 0; k < 3; ++k) {
        const float nan = std::numeric_limits<float>::quiet_NaN();
        const float lo = std::isnan(q[k]) ? nan : float_up(q[k]);
        const float hi = std::isnan(q[3 + k]) ? nan : float_down(q[3 + k]);
        if (valid && lo > hi) {  // a gap: hi < q.min <= q.max < lo, adjacent floats
            fq.gap = true;
            fq.a.min[k] = fq.a.max[k] = lo;
            fq.b.min[k] = fq.b.max[k] = hi;
        } else {
            fq.a.min[k] = fq.b.min[k] = lo;
            fq.a.max[k] = fq.b.max[k] = hi;
        }
    }
    return fq;
}

/// The hits of a FloatQuery into `hits` (replaced), in query(a)'s order.
/// query(box, out) replaces out with the ids a float box hits.
template <class Query>
void float_query_hits(const FloatQuery& fq, Query&& query, std::vector<std::uint32_t>& hits) {
    query(fq.a, hits);
    if (!fq.gap || hits.empty()) return;
    std::vector<std::uint32_t> other;
    query(fq.b, other);
    std::sort(other.begin(), other.end());
    hits.erase(std::remove_if(hits.begin(), hits.end(),
                              [&](std::uint32_t id) { return !std::binary_search(other.begin(), other.end(), id); }),
               hits.end());
}

/// Three numbers (a point or a direction).
template <class T>
std::array<T, 3> vec_of(py::handle obj, const char* name) {
    py::array a = numeric_array(obj, name);
    if (!(a.ndim() == 1 && a.shape(0) == 3))
        raise_value(std::string(name) + " must be three numbers (x, y, z); got shape " + shape_of(a));
    py::array_t<double, py::array::c_style | py::array::forcecast> d = contiguous<double>(a);
    return {static_cast<T>(d.data()[0]), static_cast<T>(d.data()[1]), static_cast<T>(d.data()[2])};
}

/// Object ids: integers in [0, 2^32 - 1).
std::vector<std::uint32_t> ids_of(py::handle obj, const char* name) {
    py::array a;
    try {
        a = py::module_::import("numpy").attr("asarray")(obj);
    } catch (py::error_already_set& e) {
        raise_type(std::string(name) + " must be an array of integers (object ids): " + e.what());
    }
    const char kind = a.dtype().kind();
    if (kind != 'i' && kind != 'u') raise_type(std::string(name) + " must be integers (object ids); got dtype " + dtype_name(a));
    const bool empty_1d = a.ndim() == 1 && a.shape(0) == 0;
    if (a.ndim() != 1 && !empty_1d) raise_value(std::string(name) + " must be one-dimensional; got shape " + shape_of(a));
    py::array_t<std::int64_t, py::array::c_style | py::array::forcecast> v = contiguous<std::int64_t>(a);
    std::vector<std::uint32_t> out(static_cast<std::size_t>(v.size()));
    for (std::size_t i = 0; i < out.size(); ++i) {
        const std::int64_t x = v.data()[i];
        if (x < 0 || x >= std::int64_t(0xffffffff)) raise_value(std::string(name) + " holds " + std::to_string(x) + ", not an object id");
        out[i] = static_cast<std::uint32_t>(x);
    }
    return out;
}

/// The scalar type of a BasicBox.
template <class B>
using scalar_of = typename decltype(B::min)::value_type;

/// Rows (minx miny minz maxx maxy maxz) into the library's struct of
/// arrays, in parallel for big inputs. O(n).
template <class T>
void fill_boxes(bp::BasicBoxes<T, 3>& out, const T* rows, std::size_t n, unsigned threads) {
    out.resize(n);
    T* lo[3] = {out.min(0), out.min(1), out.min(2)};
    T* hi[3] = {out.max(0), out.max(1), out.max(2)};
    bp::detail::run_parts(bp::detail::plan_threads(threads, n, 1 << 16), n, [&](std::size_t, std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i) {
            const T* r = rows + 6 * i;
            for (int k = 0; k < 3; ++k) lo[k][i] = r[k], hi[k][i] = r[3 + k];
        }
    });
}

// ---------------------------------------------------------------- arrays out

/// A (K, 2) uint32 array owning the pairs' vector (no copy).
py::array pairs_array(std::vector<bp::Pair>&& pairs) {
    static_assert(sizeof(bp::Pair) == 2 * sizeof(std::uint32_t), "Pair must be two packed uint32");
    auto* owned = new std::vector<bp::Pair>(std::move(pairs));
    py::capsule owner(owned, [](void* p) { delete static_cast<std::vector<bp::Pair>*>(p); });
    const py::ssize_t k = static_cast<py::ssize_t>(owned->size());
    return py::array_t<std::uint32_t>({k, py::ssize_t(2)}, {py::ssize_t(sizeof(bp::Pair)), py::ssize_t(sizeof(std::uint32_t))},
                                      reinterpret_cast<const std::uint32_t*>(owned->data()), owner);
}

/// A copy of pairs as a (K, 2) uint32 array.
py::array pairs_copy(const std::vector<bp::Pair>& pairs) {
    py::array_t<std::uint32_t> a({static_cast<py::ssize_t>(pairs.size()), py::ssize_t(2)});
    if (!pairs.empty()) std::memcpy(a.mutable_data(), pairs.data(), pairs.size() * sizeof(bp::Pair));
    return a;
}

py::array ids_array(const std::vector<std::uint32_t>& ids) {
    py::array_t<std::uint32_t> a(static_cast<py::ssize_t>(ids.size()));
    if (!ids.empty()) std::memcpy(a.mutable_data(), ids.data(), ids.size() * sizeof(std::uint32_t));
    return a;
}

// ---------------------------------------------------------------- options, reports

enum class OnInvalid { skip, warn, raise };

OnInvalid parse_invalid(const std::string& s) {
    if (s == "skip") return OnInvalid::skip;
    if (s == "warn") return OnInvalid::warn;
    if (s == "raise") return OnInvalid::raise;
    raise_value("invalid must be 'skip', 'warn' or 'raise'; got '" + s + "'");
}

std::string algorithm_names() {
    std::string s = "'auto'";
    for (bp::Algorithm a : bp::concrete_algorithms) s += std::string(", '") + bp::to_string(a) + "'";
    return s;
}

bp::Algorithm parse_algorithm(const std::string& name) {
    bp::Algorithm a;
    if (!bp::parse_algorithm(name, a)) raise_value("unknown algorithm '" + name + "'; one of " + algorithm_names());
    return a;
}

bp::Options make_options(const std::string& algorithm, long threads, bool sorted, std::optional<std::uint64_t> max_pairs) {
    if (threads < 0 || static_cast<unsigned long>(threads) > std::numeric_limits<unsigned>::max())
        raise_value("threads must be 0 (all) or more, at most " + std::to_string(std::numeric_limits<unsigned>::max()) +
                    "; got " + std::to_string(threads));
    bp::Options o;
    o.algorithm = parse_algorithm(algorithm);
    o.threads = static_cast<unsigned>(threads);
    o.sorted = sorted;
    if (max_pairs) o.max_pairs = *max_pairs;
    return o;
}

std::string index_list(const std::vector<std::uint32_t>& v) {
    std::ostringstream s;
    const std::size_t shown = std::min<std::size_t>(v.size(), 10);
    for (std::size_t i = 0; i < shown; ++i) s << (i ? ", " : "") << v[i];
    if (shown < v.size()) s << ", ... (" << v.size() - shown << " more)";
    return s.str();
}

/// Turns a report into exceptions or warnings. `pairs` is what the call
/// delivered (attached to PairBudgetError). names: the arguments that held
/// the first and second sets.
void check_report(const bp::Report& r, OnInvalid on_invalid, const char* name_a, const char* name_b,
                  std::vector<bp::Pair>* pairs = nullptr, const char* what = "box(es)",
                  const char* why = "NaN, or min > max") {
    switch (r.status) {
        case bp::Status::ok:
        case bp::Status::stopped_by_callback: break;
        case bp::Status::too_many_boxes:
            raise_value("too many boxes: at most " + std::to_string(bp::max_boxes) + " per set (32-bit indices)");
        case bp::Status::out_of_memory: throw std::bad_alloc();
        case bp::Status::pair_budget_exceeded: {
            py::object partial = pairs ? py::object(pairs_array(std::move(*pairs))) : py::object(py::none());
            raise_with(pair_budget_error, "more pairs than max_pairs; the error's .pairs holds the first max_pairs",
                       {{"pairs", partial}});
        }
    }
    if (on_invalid == OnInvalid::skip || r.invalid_count() == 0) return;
    std::string msg;
    if (!r.invalid_a.empty())
        msg += std::to_string(r.invalid_a.size()) + " invalid " + what + " in " + name_a + " (" + why + "): " +
               index_list(r.invalid_a);
    if (!r.invalid_b.empty())
        msg += std::string(msg.empty() ? "" : "; ") + std::to_string(r.invalid_b.size()) + " invalid " + what + " in " +
               name_b + " (" + why + "): " + index_list(r.invalid_b);
    if (on_invalid == OnInvalid::raise)
        raise_with(invalid_box_error, msg, {{"indices", ids_array(r.invalid_a)}, {"other_indices", ids_array(r.invalid_b)}});
    msg += "; they take part in no pair (invalid='skip' silences this, invalid='raise' makes it an error)";
    if (PyErr_WarnEx(invalid_box_warning, msg.c_str(), 1) < 0) throw py::error_already_set();
}

// ---------------------------------------------------------------- find_pairs

/// A kept finder per precision, guarded by a mutex (the GIL is released
/// while it runs).
class Finder {
public:
    py::array find(py::handle boxes, py::handle other, const bp::Options& o, OnInvalid on_invalid) {
        Rows a = rows_of(boxes, "boxes", 6, "minx, miny, minz, maxx, maxy, maxz");
        std::optional<Rows> b;
        if (!other.is_none()) {
            b = rows_of(other, "other", 6, "minx, miny, minz, maxx, maxy, maxz");
            if (a.is_double != b->is_double) {  // mixed precision: both float64 (exact)
                a = rows_of(boxes, "boxes", 6, "", true);
                b = rows_of(other, "other", 6, "", true);
            }
        }
        return a.is_double ? run<double>(a, b, o, on_invalid) : run<float>(a, b, o, on_invalid);
    }

    std::string last_algorithm() const { return bp::to_string(last_); }

private:
    template <class T>
    struct State {
        bp::BasicPairFinder<T, 3> finder;
        bp::BasicBoxes<T, 3> a, b;
    };

    template <class T>
    State<T>& state() {
        if constexpr (std::is_same_v<T, float>) {
            if (!f_) f_ = std::make_unique<State<float>>();
            return *f_;
        } else {
            if (!d_) d_ = std::make_unique<State<double>>();
            return *d_;
        }
    }

    template <class T>
    py::array run(const Rows& a, const std::optional<Rows>& b, const bp::Options& o, OnInvalid on_invalid) {
        std::vector<bp::Pair> out;
        bp::Report r;
        {
            py::gil_scoped_release nogil;
            std::lock_guard<std::mutex> lock(mutex_);
            State<T>& s = state<T>();
            fill_boxes(s.a, data_of<T>(a), a.n, o.threads);
            if (b) {
                fill_boxes(s.b, data_of<T>(*b), b->n, o.threads);
                r = s.finder.find_pairs(s.a, s.b, out, o);
            } else {
                r = s.finder.find_pairs(s.a, out, o);
            }
            last_ = s.finder.last_algorithm();
        }
        check_report(r, on_invalid, "boxes", "other", &out);
        return pairs_array(std::move(out));
    }

    std::mutex mutex_;
    std::unique_ptr<State<float>> f_;
    std::unique_ptr<State<double>> d_;
    bp::Algorithm last_ = bp::Algorithm::automatic;
};

// ---------------------------------------------------------------- spheres

template <class T>
py::array sphere_pairs(const Rows& centers, const Rows& radii, const bp::Options& o, OnInvalid on_invalid) {
    const T* c = data_of<T>(centers);
    const T* r = data_of<T>(radii);
    const bool one = radii.n == 1 && centers.n != 1;
    const std::size_t n = centers.n;
    std::vector<bp::Pair> out;
    bp::Report rep;
    {
        py::gil_scoped_release nogil;
        const bp::SphereView<T> spheres = one ? bp::sphere_rows<T>(c, r[0], n) : bp::sphere_rows<T>(c, r, n);
        bp::SpherePairFinder finder;
        rep = finder.find_pairs(spheres, out, o);
    }
    rep.pairs = out.size();
    check_report(rep, on_invalid, "centers/radii", "", &out, "sphere(s)", "a NaN coordinate, or a radius not >= 0");
    return pairs_array(std::move(out));
}

// ---------------------------------------------------------------- Index

class Index {
public:
    Index(py::handle boxes, const std::string& algorithm, long threads, OnInvalid on_invalid) {
        const bp::Options o = make_options(algorithm, threads, false, std::nullopt);
        Rows a = rows_of(boxes, "boxes", 6, "minx, miny, minz, maxx, maxy, maxz");
        is_double_ = a.is_double;
        n_ = a.n;
        bp::Report r;
        {
            py::gil_scoped_release nogil;
            if (is_double_) r = build<double>(a, o);
            else r = build<float>(a, o);
        }
        check_report(r, on_invalid, "boxes", "");
    }

    py::array query(py::handle box, bool sorted) const {
        std::vector<std::uint32_t> hits;
        if (is_double_) {
            query_one<double>(box, hits, sorted);
        } else {  // float32 index: the query is taken as float64 and answered exactly (FloatQuery)
            const std::array<double, 6> q = box_values_of(box, "box");
            py::gil_scoped_release nogil;
            float_query_hits(float_query(q.data()), [&](const bp::BasicBox<float, 3>& b, auto& out) { f_->query(b, out); },
                             hits);
            if (sorted) std::sort(hits.begin(), hits.end());
        }
        return ids_array(hits);
    }

    py::array query_batch(py::handle boxes, const bp::Options& o, OnInvalid on_invalid) const {
        Rows q = rows_of(boxes, "boxes", 6, "minx, miny, minz, maxx, maxy, maxz", is_double_);
        std::vector<bp::Pair> out;
        bp::Report r;
        {
            py::gil_scoped_release nogil;
            r = is_double_ ? batch<double>(q, out, o) : batch<float>(q, out, o);
        }
        check_report(r, on_invalid, "boxes", "", &out);
        return pairs_array(std::move(out));
    }

    std::size_t size() const { return n_; }
    std::string algorithm() const { return bp::to_string(is_double_ ? d_->algorithm() : f_->algorithm()); }
    std::string dtype() const { return is_double_ ? "float64" : "float32"; }

private:
    template <class T>
    bp::Report build(const Rows& a, const bp::Options& o) {
        bp::BasicBoxes<T, 3> boxes;
        fill_boxes(boxes, data_of<T>(a), a.n, o.threads);
        if constexpr (std::is_same_v<T, float>) return (f_ = std::make_unique<bp::BasicIndex<float, 3>>())->build(boxes, o);
        else return (d_ = std::make_unique<bp::BasicIndex<double, 3>>())->build(boxes, o);
    }

    template <class T>
    const bp::BasicIndex<T, 3>& index() const {
        if constexpr (std::is_same_v<T, float>) return *f_;
        else return *d_;
    }

    template <class T>
    void query_one(py::handle box, std::vector<std::uint32_t>& hits, bool sorted) const {
        const bp::BasicBox<T, 3> q = box_of<T>(box, "box");
        py::gil_scoped_release nogil;
        index<T>().query(q, hits);
        if (sorted) std::sort(hits.begin(), hits.end());
    }

    template <class T>
    bp::Report batch(const Rows& q, std::vector<bp::Pair>& out, const bp::Options& o) const {
        if constexpr (std::is_same_v<T, float>)
            if (q.is_double) return float_index_double_batch(q, out, o);
        bp::BasicBoxes<T, 3> boxes;  // same dtype as the index (a float64 index converts float32 queries exactly)
        fill_boxes(boxes, data_of<T>(q), q.n, o.threads);
        return index<T>().query_batch(boxes, out, o);
    }

    /// A float32 index given float64 queries: exact, never rounded to nearest.
    /// Each query becomes a FloatQuery: rounded inwards it hits exactly what
    /// the float64 query hits, in one batch; queries with a gap axis (no float
    /// between their min and max there) run a second batch of their `b` boxes,
    /// and their pairs from the first are kept only where the second has them.
    bp::Report float_index_double_batch(const Rows& q, std::vector<bp::Pair>& out, const bp::Options& o) const {
        const double* rows = data_of<double>(q);
        bp::BasicBoxes<float, 3> a(q.n), b;
        std::vector<std::uint32_t> gap_query;  // the query index of each row of b
        for (std::size_t i = 0; i < q.n; ++i) {
            const FloatQuery fq = float_query(rows + 6 * i);
            a.set(i, fq.a);
            if (fq.gap) {
                b.push_back(fq.b);
                gap_query.push_back(static_cast<std::uint32_t>(i));
            }
        }
        if (gap_query.empty()) return f_->query_batch(a, out, o);

        bp::Options unsorted = o;
        unsorted.sorted = false;
        std::vector<bp::Pair> second;
        bp::Report rb = f_->query_batch(b, second, unsorted);
        bp::Report r = f_->query_batch(a, out, o);
        if (r.status == bp::Status::ok && rb.status == bp::Status::ok) {
            for (bp::Pair& p : second) p.a = gap_query[p.a];
            bp::sort_pairs(second);
            std::vector<char> is_gap(q.n, 0);
            for (std::uint32_t i : gap_query) is_gap[i] = 1;
            out.erase(std::remove_if(out.begin(), out.end(),
                                     [&](const bp::Pair& p) {
                                         return is_gap[p.a] && !std::binary_search(second.begin(), second.end(), p);
                                     }),
                      out.end());
            r.pairs = out.size();
            return r;
        }
        if (r.status != bp::Status::pair_budget_exceeded && r.status != bp::Status::ok) return r;
        if (rb.status != bp::Status::pair_budget_exceeded && rb.status != bp::Status::ok) return rb;
        // Past max_pairs before the filter: the exact pairs in the batch's own
        // order (that of the answer without a budget), the first max_pairs of
        // them; a gap query's `b` hits are looked up when its first pair
        // comes. Memory: the output (at most max_pairs) and those hits.
        out.clear();
        constexpr std::uint32_t none = ~std::uint32_t(0);
        std::vector<std::uint32_t> gap_of(q.n, none);  // the gap query's row in b_hits
        for (std::size_t g = 0; g < gap_query.size(); ++g) gap_of[gap_query[g]] = static_cast<std::uint32_t>(g);
        std::vector<std::vector<std::uint32_t>> b_hits(gap_query.size());
        std::vector<char> looked_up(gap_query.size(), 0);
        bool over = false;
        bp::Report exact = f_->for_each_batch_hit(a, [&](std::uint32_t i, std::uint32_t h) {
            const std::uint32_t g = gap_of[i];
            if (g != none) {
                std::vector<std::uint32_t>& v = b_hits[g];
                if (!looked_up[g]) {
                    f_->query(float_query(rows + 6 * std::size_t(i)).b, v);
                    std::sort(v.begin(), v.end());
                    looked_up[g] = 1;
                }
                if (!std::binary_search(v.begin(), v.end(), h)) return true;
            }
            if (out.size() >= o.max_pairs) {
                over = true;
                return false;
            }
            out.push_back(bp::Pair{i, h});
            return true;
        });
        if (exact.status == bp::Status::stopped_by_callback || exact.status == bp::Status::ok)
            exact.status = over ? bp::Status::pair_budget_exceeded : bp::Status::ok;
        if (o.sorted) bp::sort_pairs(out);
        exact.pairs = out.size();
        return exact;
    }

    bool is_double_ = false;
    std::size_t n_ = 0;
    std::unique_ptr<bp::BasicIndex<float, 3>> f_;
    std::unique_ptr<bp::BasicIndex<double, 3>> d_;
};

// ---------------------------------------------------------------- Scene

/// Every UpdateMode the header names (to_string gives it a name), so that
/// values added to the enum appear here without a change.
std::vector<std::pair<std::string, bp::UpdateMode>> update_modes() {
    std::vector<std::pair<std::string, bp::UpdateMode>> out;
    for (int v = 0; v < 256; ++v) {
        const auto m = static_cast<bp::UpdateMode>(v);
        const std::string name = bp::to_string(m);
        if (name.empty() || name == "?" || name == "unknown") continue;
        out.emplace_back(name, m);
    }
    return out;
}

std::string canonical_mode(std::string s) {
    std::replace(s.begin(), s.end(), '_', '-');
    return s;
}

bp::UpdateMode parse_update_mode(const std::string& name) {
    std::string known;
    for (const auto& [n, m] : update_modes()) {
        if (canonical_mode(n) == canonical_mode(name)) return m;
        known += (known.empty() ? "'" : ", '") + n + "'";
    }
    raise_value("unknown update mode '" + name + "'; one of " + known);
}

bp::ObjectType parse_type(const std::string& s) {
    if (s == "dynamic") return bp::ObjectType::dynamic_object;
    if (s == "static") return bp::ObjectType::static_object;
    raise_value("object type must be 'dynamic' or 'static'; got '" + s + "'");
}

bp::Filter make_filter(std::uint64_t category, std::uint64_t mask, std::int32_t group) {
    bp::Filter f;
    f.category = category;
    f.mask = mask;
    f.group = group;
    return f;
}

class Scene {
public:
    explicit Scene(const std::string& dtype) {
        if (dtype == "float32") f_ = std::make_unique<bp::BasicScene<float, 3>>();
        else if (dtype == "float64") d_ = std::make_unique<bp::BasicScene<double, 3>>();
        else raise_value("dtype must be 'float32' or 'float64'; got '" + dtype + "'");
    }

    /// fn(scene) on the scene of whichever precision this one is.
    template <class F>
    decltype(auto) visit(F&& fn) {
        return f_ ? fn(*f_) : fn(*d_);
    }
    template <class F>
    decltype(auto) visit(F&& fn) const {
        return f_ ? fn(std::as_const(*f_)) : fn(std::as_const(*d_));
    }

    std::string dtype() const { return f_ ? "float32" : "float64"; }

    std::uint32_t add(py::handle box, const std::string& type, std::uint64_t user_value, std::uint64_t category,
                      std::uint64_t mask, std::int32_t group) {
        const bp::ObjectType t = parse_type(type);
        const bp::Filter filter = make_filter(category, mask, group);
        return visit([&](auto& s) {
            using B = typename std::decay_t<decltype(s)>::box_type;
            const B b = box_of<scalar_of<B>>(box, "box");
            std::unique_lock lock(mutex_);
            return s.add(b, t, user_value, filter);
        });
    }

    py::array add_batch(py::handle boxes, const std::string& type) {
        const bp::ObjectType t = parse_type(type);
        return visit([&](auto& s) {
            using B = typename std::decay_t<decltype(s)>::box_type;
            std::vector<B> bs = boxes_of<B>(boxes);
            std::vector<std::uint32_t> ids(bs.size());
            {
                py::gil_scoped_release nogil;
                std::unique_lock lock(mutex_);
                s.add(bs.data(), bs.size(), ids.data(), t);
            }
            return ids_array(ids);
        });
    }

    bool remove(std::uint32_t id) {
        std::unique_lock lock(mutex_);
        return visit([&](auto& s) { return s.remove(id); });
    }

    std::size_t remove_batch(py::handle ids_obj) {
        const std::vector<std::uint32_t> ids = ids_of(ids_obj, "ids");
        py::gil_scoped_release nogil;
        std::unique_lock lock(mutex_);
        return visit([&](auto& s) { return s.remove(ids.data(), ids.size()); });
    }

    bool move(std::uint32_t id, py::handle box) {
        return visit([&](auto& s) {
            using B = typename std::decay_t<decltype(s)>::box_type;
            const B b = box_of<scalar_of<B>>(box, "box");
            std::unique_lock lock(mutex_);
            return s.move(id, b);
        });
    }

    std::size_t move_batch(py::handle ids_obj, py::handle boxes) {
        const std::vector<std::uint32_t> ids = ids_of(ids_obj, "ids");
        return visit([&](auto& s) {
            using B = typename std::decay_t<decltype(s)>::box_type;
            std::vector<B> bs = boxes_of<B>(boxes);
            if (bs.size() != ids.size())
                raise_value("ids and boxes must have the same length; got " + std::to_string(ids.size()) + " ids and " +
                            std::to_string(bs.size()) + " boxes");
            py::gil_scoped_release nogil;
            std::unique_lock lock(mutex_);
            return s.move(ids.data(), bs.data(), bs.size());
        });
    }

    bool set_type(std::uint32_t id, const std::string& type) {
        const bp::ObjectType t = parse_type(type);
        std::unique_lock lock(mutex_);
        return visit([&](auto& s) { return s.set_type(id, t); });
    }
    bool set_filter(std::uint32_t id, std::uint64_t category, std::uint64_t mask, std::int32_t group) {
        std::unique_lock lock(mutex_);
        return visit([&](auto& s) { return s.set_filter(id, make_filter(category, mask, group)); });
    }
    bool set_user_value(std::uint32_t id, std::uint64_t v) {
        std::unique_lock lock(mutex_);
        return visit([&](auto& s) { return s.set_user_value(id, v); });
    }

    bool contains(std::uint32_t id) const {
        std::shared_lock lock(mutex_);
        return visit([&](const auto& s) { return s.contains(id); });
    }
    std::size_t size() const {
        std::shared_lock lock(mutex_);
        return visit([&](const auto& s) { return s.size(); });
    }

    void require(std::uint32_t id) const {
        if (!contains(id)) throw py::key_error("no live object with id " + std::to_string(id));
    }

    py::array box(std::uint32_t id) const {
        require(id);
        std::shared_lock lock(mutex_);
        return visit([&](const auto& s) -> py::array {
            const auto b = s.box(id);
            using T = typename decltype(b.min)::value_type;
            py::array_t<T> a(6);
            for (int k = 0; k < 3; ++k) a.mutable_data()[k] = b.min[k], a.mutable_data()[3 + k] = b.max[k];
            return a;
        });
    }
    std::string type(std::uint32_t id) const {
        require(id);
        std::shared_lock lock(mutex_);
        return visit([&](const auto& s) { return s.type(id) == bp::ObjectType::static_object ? "static" : "dynamic"; });
    }
    py::tuple filter(std::uint32_t id) const {
        require(id);
        std::shared_lock lock(mutex_);
        return visit([&](const auto& s) {
            const bp::Filter f = s.filter(id);
            return py::make_tuple(f.category, f.mask, f.group);
        });
    }
    std::uint64_t user_value(std::uint32_t id) const {
        require(id);
        std::shared_lock lock(mutex_);
        return visit([&](const auto& s) { return s.user_value(id); });
    }

    void set_options(const std::string& algorithm, long threads) {
        const bp::Options o = make_options(algorithm, threads, false, std::nullopt);
        std::unique_lock lock(mutex_);
        visit([&](auto& s) { s.set_options(o); });
    }
    void set_update_mode(const std::string& mode) {
        const bp::UpdateMode m = parse_update_mode(mode);
        std::unique_lock lock(mutex_);
        visit([&](auto& s) { s.set_update_mode(m); });
        mode_ = m;
    }
    std::string update_mode() const { return bp::to_string(mode_); }
    std::string last_method() const {
        std::shared_lock lock(mutex_);
        return visit([&](const auto& s) { return std::string(bp::to_string(s.last_method())); });
    }
    bool set_margin(double margin) {
        std::unique_lock lock(mutex_);
        return visit([&](auto& s) {
            using B = typename std::decay_t<decltype(s)>::box_type;
            return s.set_margin(static_cast<scalar_of<B>>(margin));
        });
    }
    double margin() const {
        std::shared_lock lock(mutex_);
        return visit([&](const auto& s) { return static_cast<double>(s.margin()); });
    }
    void set_fat_pairs(bool on) {
        std::unique_lock lock(mutex_);
        visit([&](auto& s) { s.set_fat_pairs(on); });
    }
    bool fat_pairs() const {
        std::shared_lock lock(mutex_);
        return visit([&](const auto& s) { return s.fat_pairs(); });
    }

    std::size_t update() {
        bp::Report r;
        {
            py::gil_scoped_release nogil;
            std::unique_lock lock(mutex_);
            r = visit([&](auto& s) { return s.update(); });
        }
        if (r.status == bp::Status::out_of_memory) throw std::bad_alloc();
        if (!r.ok()) throw std::runtime_error(std::string("update failed: ") + bp::to_string(r.status));
        return static_cast<std::size_t>(r.pairs);
    }

    py::array pairs() const {
        std::shared_lock lock(mutex_);
        return visit([&](const auto& s) { return pairs_copy(s.pairs()); });
    }
    py::array begun() const {
        std::shared_lock lock(mutex_);
        return visit([&](const auto& s) { return pairs_copy(s.begun()); });
    }
    py::array ended() const {
        std::shared_lock lock(mutex_);
        return visit([&](const auto& s) { return pairs_copy(s.ended()); });
    }

    // Queries (sorted ids). query_box and query_point are exact for float64
    // input on a float32 scene too (FloatQuery: never rounded to nearest).
    py::array query_box(py::handle box) const {
        const std::array<double, 6> q = box_values_of(box, "box");
        return visit([&](const auto& s) {
            using B = typename std::decay_t<decltype(s)>::box_type;
            if constexpr (std::is_same_v<scalar_of<B>, float>) {
                const FloatQuery fq = float_query(q.data());
                return collect([&](auto& out) {
                    float_query_hits(
                        fq,
                        [&](const B& b, std::vector<std::uint32_t>& v) {
                            v.clear();
                            s.for_each_overlap(b, [&](std::uint32_t id) { v.push_back(id); });
                        },
                        out);
                });
            } else {
                B b;
                for (int k = 0; k < 3; ++k) b.min[k] = q[k], b.max[k] = q[3 + k];
                return collect([&](auto& out) { s.for_each_overlap(b, [&](std::uint32_t id) { out.push_back(id); }); });
            }
        });
    }
    py::array query_point(py::handle point) const {
        const std::array<double, 3> p = vec_of<double>(point, "point");
        return visit([&](const auto& s) {
            using B = typename std::decay_t<decltype(s)>::box_type;
            if constexpr (std::is_same_v<scalar_of<B>, float>) {
                // The point as the box [p, p]: its FloatQuery's boxes are points too.
                const double q[6] = {p[0], p[1], p[2], p[0], p[1], p[2]};
                const FloatQuery fq = float_query(q);
                return collect([&](auto& out) {
                    float_query_hits(
                        fq,
                        [&](const B& b, std::vector<std::uint32_t>& v) {
                            v.clear();
                            s.for_each_containing(b.min, [&](std::uint32_t id) { v.push_back(id); });
                        },
                        out);
                });
            } else {
                return collect([&](auto& out) { s.for_each_containing(p, [&](std::uint32_t id) { out.push_back(id); }); });
            }
        });
    }
    py::array query_sphere(py::handle center, double radius) const {
        return visit([&](const auto& s) {
            using B = typename std::decay_t<decltype(s)>::box_type;
            using T = scalar_of<B>;
            const auto c = vec_of<T>(center, "center");
            return collect([&](auto& out) {
                s.for_each_overlapping_sphere(c, static_cast<T>(radius), [&](std::uint32_t id) { out.push_back(id); });
            });
        });
    }
    py::object ray_cast(py::handle origin, py::handle direction, double max_t) const {
        return visit([&](const auto& s) {
            using T = scalar_of<typename std::decay_t<decltype(s)>::box_type>;
            const auto o = vec_of<T>(origin, "origin");
            const auto d = vec_of<T>(direction, "direction");
            return first_hit(s, [&] { return s.ray_cast(o, d, static_cast<T>(max_t)); });
        });
    }
    py::tuple ray_hits(py::handle origin, py::handle direction, double max_t) const {
        return visit([&](const auto& s) {
            using B = typename std::decay_t<decltype(s)>::box_type;
            using T = scalar_of<B>;
            const auto o = vec_of<T>(origin, "origin");
            const auto d = vec_of<T>(direction, "direction");
            std::vector<std::pair<double, std::uint32_t>> hits;
            {
                py::gil_scoped_release nogil;
                std::shared_lock lock(mutex_);
                s.for_each_ray_hit(o, d, static_cast<T>(max_t), [&](std::uint32_t id, T t) { hits.emplace_back(double(t), id); });
                std::sort(hits.begin(), hits.end());
            }
            py::array_t<std::uint32_t> ids(static_cast<py::ssize_t>(hits.size()));
            py::array_t<double> ts(static_cast<py::ssize_t>(hits.size()));
            for (std::size_t i = 0; i < hits.size(); ++i) ids.mutable_data()[i] = hits[i].second, ts.mutable_data()[i] = hits[i].first;
            return py::make_tuple(ids, ts);
        });
    }
    py::object box_cast(py::handle box, py::handle displacement) const {
        return visit([&](const auto& s) {
            using T = scalar_of<typename std::decay_t<decltype(s)>::box_type>;
            const auto b = box_of<T>(box, "box");
            const auto d = vec_of<T>(displacement, "displacement");
            return first_hit(s, [&] { return s.box_cast(b, d); });
        });
    }

private:
    /// A cast's hit, run without the GIL under the read lock: (id, t), or None.
    template <class S, class Cast>
    py::object first_hit(const S&, Cast&& cast) const {  // (S: the scene type)
        typename S::Hit h;
        {
            py::gil_scoped_release nogil;
            std::shared_lock lock(mutex_);
            h = cast();
        }
        if (h.id == S::null) return py::none();
        return py::make_tuple(h.id, static_cast<double>(h.t));
    }

    template <class B>
    static std::vector<B> boxes_of(py::handle boxes) {
        using T = scalar_of<B>;
        Rows r = rows_of(boxes, "boxes", 6, "minx, miny, minz, maxx, maxy, maxz", std::is_same_v<T, double>);
        std::vector<B> out(r.n);
        if (r.is_double) {
            const double* p = data_of<double>(r);
            for (std::size_t i = 0; i < r.n; ++i)
                for (int k = 0; k < 3; ++k) out[i].min[k] = static_cast<T>(p[6 * i + k]), out[i].max[k] = static_cast<T>(p[6 * i + 3 + k]);
        } else {
            const float* p = data_of<float>(r);
            for (std::size_t i = 0; i < r.n; ++i)
                for (int k = 0; k < 3; ++k) out[i].min[k] = p[6 * i + k], out[i].max[k] = p[6 * i + 3 + k];
        }
        return out;
    }

    /// Runs fill(ids) without the GIL under the shared lock; sorted ids.
    template <class F>
    py::array collect(F&& fill) const {
        std::vector<std::uint32_t> ids;
        {
            py::gil_scoped_release nogil;
            std::shared_lock lock(mutex_);
            fill(ids);
            std::sort(ids.begin(), ids.end());
        }
        return ids_array(ids);
    }

    mutable std::shared_mutex mutex_;
    std::unique_ptr<bp::BasicScene<float, 3>> f_;
    std::unique_ptr<bp::BasicScene<double, 3>> d_;
    bp::UpdateMode mode_ = bp::UpdateMode::automatic;
};

// ---------------------------------------------------------------- helpers

py::array builtin_scene(const std::string& name) {
    bp::Boxes boxes;
    bool ok;
    {
        py::gil_scoped_release nogil;
        ok = bp::scenes::make_scene(name, boxes);
    }
    if (!ok) {
        std::string names;
        for (const auto& n : bp::scenes::scene_names()) names += (names.empty() ? "" : ", ") + n;
        raise_value("unknown scene '" + name + "'; one of " + names);
    }
    py::array_t<float> a({static_cast<py::ssize_t>(boxes.size()), py::ssize_t(6)});
    float* p = a.mutable_data();
    for (std::size_t i = 0; i < boxes.size(); ++i)
        for (int k = 0; k < 3; ++k) p[6 * i + k] = boxes.min(k)[i], p[6 * i + 3 + k] = boxes.max(k)[i];
    return a;
}

/// For python/bench/overhead.py: one C++ call equivalent to a Python one,
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

PYBIND11_MODULE(_core, m) {
    m.doc() = "broadphase: every overlapping pair among axis-aligned boxes, exactly once (C++ core).";

    invalid_box_error = PyErr_NewExceptionWithDoc(
        "broadphase.InvalidBoxError",
        "Raised with invalid='raise' when boxes are invalid (NaN, or min > max on some axis).\n"
        ".indices: uint32 array of the invalid boxes' rows (first set or queries); .other_indices: the second set's.",
        PyExc_ValueError, nullptr);
    invalid_box_warning = PyErr_NewExceptionWithDoc(
        "broadphase.InvalidBoxWarning",
        "Warned (invalid='warn', the default) when invalid boxes were skipped: they take part in no pair.",
        PyExc_UserWarning, nullptr);
    pair_budget_error = PyErr_NewExceptionWithDoc(
        "broadphase.PairBudgetError",
        "Raised when a call finds more pairs than max_pairs. .pairs holds the first max_pairs pairs.",
        PyExc_RuntimeError, nullptr);
    m.add_object("InvalidBoxError", py::handle(invalid_box_error));
    m.add_object("InvalidBoxWarning", py::handle(invalid_box_warning));
    m.add_object("PairBudgetError", py::handle(pair_budget_error));

    m.def(
        "find_pairs",
        [](py::handle boxes, py::handle other, const std::string& algorithm, long threads, bool sorted,
           std::optional<std::uint64_t> max_pairs, const std::string& invalid) {
            const bp::Options o = make_options(algorithm, threads, sorted, max_pairs);
            const OnInvalid on_invalid = parse_invalid(invalid);
            Finder f;
            return f.find(boxes, other, o, on_invalid);
        },
        py::arg("boxes"), py::arg("other") = py::none(), py::arg("algorithm") = "auto", py::arg("threads") = 0,
        py::arg("sorted") = false, py::arg("max_pairs") = py::none(), py::arg("invalid") = "warn",
        R"doc(Every overlapping pair of boxes, exactly once.

boxes: (N, 6) array, rows minx miny minz maxx maxy maxz. float32 and float64
    C-contiguous arrays are read in place; other layouts and dtypes are
    converted once (to float64 unless float32).
other: optional second (M, 6) set. Without it: pairs (i, j), i < j, within
    boxes. With it: pairs (index in boxes, index in other).
algorithm: 'auto' (default) or one of algorithms().
threads: 0 (default) = all cores; 1 = the calling thread only.
sorted: sort the pairs by (first, second). Without it the order is still
    deterministic (the same for every run and thread count).
max_pairs: raise PairBudgetError past this many pairs (None: no limit).
invalid: what to do about invalid boxes (NaN, or min > max), which never
    take part in a pair: 'warn' (InvalidBoxWarning), 'skip', or 'raise'
    (InvalidBoxError).

Closed boxes: touching faces, edges and corners overlap. Returns a (K, 2)
uint32 array. The GIL is released during the search.)doc");

    m.def(
        "find_sphere_pairs",
        [](py::handle centers, py::handle radii, const std::string& algorithm, long threads, bool sorted,
           std::optional<std::uint64_t> max_pairs, const std::string& invalid) {
            const bp::Options o = make_options(algorithm, threads, sorted, max_pairs);
            const OnInvalid on_invalid = parse_invalid(invalid);
            Rows c = rows_of(centers, "centers", 3, "x, y, z");
            py::array ra = numeric_array(radii, "radii");
            const bool dbl = c.is_double || !is_float32(ra);
            if (dbl && !c.is_double) c = rows_of(centers, "centers", 3, "x, y, z", true);
            Rows r = vector_of(ra, "radii", c.n, dbl);
            return dbl ? sphere_pairs<double>(c, r, o, on_invalid) : sphere_pairs<float>(c, r, o, on_invalid);
        },
        py::arg("centers"), py::arg("radii"), py::arg("algorithm") = "auto", py::arg("threads") = 0, py::arg("sorted") = false,
        py::arg("max_pairs") = py::none(), py::arg("invalid") = "warn",
        R"doc(Every pair of touching spheres (i, j), i < j, exactly once.

centers: (N, 3) array; radii: one number or an (N,) array (float32 when
both are float32, else float64).
A pair is kept iff |ci - cj|^2 <= (ri + rj)^2, evaluated in float64 from
the input values (touching spheres count). With algorithm='auto' (default),
spheres whose radii are within 2x of the mean go to a grid of its own
(cells one diameter wide, each sphere in one cell, each candidate tested
exactly once: no box pairs); other inputs, or a named algorithm, take the
box path: the broad phase on the spheres' boxes (center -+ radius) in
float32, rounded outwards from float64 input so that no pair is lost, then
the exact test on each box pair. A sphere with a NaN coordinate or a
negative radius is invalid (see find_pairs' invalid). max_pairs bounds the
pairs (on the box path, the box pairs). Other arguments as in find_pairs.
Returns a (K, 2) uint32 array.)doc");

    py::class_<Finder>(m, "PairFinder", R"doc(A pair finder kept between calls (frames): it reuses its memory.

Same arguments and results as find_pairs. Calls on one PairFinder from
several threads run one at a time.)doc")
        .def(py::init<>())
        .def(
            "find_pairs",
            [](Finder& f, py::handle boxes, py::handle other, const std::string& algorithm, long threads, bool sorted,
               std::optional<std::uint64_t> max_pairs, const std::string& invalid) {
                return f.find(boxes, other, make_options(algorithm, threads, sorted, max_pairs), parse_invalid(invalid));
            },
            py::arg("boxes"), py::arg("other") = py::none(), py::arg("algorithm") = "auto", py::arg("threads") = 0,
            py::arg("sorted") = false, py::arg("max_pairs") = py::none(), py::arg("invalid") = "warn",
            "Every overlapping pair, as broadphase.find_pairs, reusing this finder's memory.")
        .def_property_readonly("last_algorithm", &Finder::last_algorithm, "The algorithm the last call used.");

    py::class_<Index>(m, "Index", R"doc(A built set of boxes answering box queries.

Index(boxes, algorithm='auto', threads=0, invalid='warn'): builds over a copy
of boxes ((N, 6), as find_pairs). float32 boxes give a float32 index, any
other dtype a float64 one. Queries are exact in their own precision: float32
queries on a float64 index widen exactly, and float64 queries on a float32
index are never rounded to nearest float32 (a query one float64 ulp clear of
a built box does not hit it; a query with min > max by one ulp is invalid).
Queries may run from many threads at once.)doc")
        .def(py::init([](py::handle boxes, const std::string& algorithm, long threads, const std::string& invalid) {
                 return std::make_unique<Index>(boxes, algorithm, threads, parse_invalid(invalid));
             }),
             py::arg("boxes"), py::arg("algorithm") = "auto", py::arg("threads") = 0, py::arg("invalid") = "warn")
        .def("query", &Index::query, py::arg("box"), py::arg("sorted") = false,
             "Indices (uint32 array) of the built boxes overlapping one box (six numbers). An invalid query box "
             "overlaps nothing.")
        .def(
            "query_batch",
            [](const Index& idx, py::handle boxes, long threads, bool sorted, std::optional<std::uint64_t> max_pairs,
               const std::string& invalid) {
                return idx.query_batch(boxes, make_options("auto", threads, sorted, max_pairs), parse_invalid(invalid));
            },
            py::arg("boxes"), py::arg("threads") = 0, py::arg("sorted") = false, py::arg("max_pairs") = py::none(),
            py::arg("invalid") = "warn",
            "(K, 2) uint32 array of (query index, built index) for every query box in boxes ((M, 6)).")
        .def("__len__", &Index::size)
        .def_property_readonly("algorithm", &Index::algorithm, "The algorithm the index was built with.")
        .def_property_readonly("dtype", &Index::dtype, "'float32' or 'float64'.");

    py::class_<Scene>(m, "Scene", R"doc(Objects kept between frames, with contact events (broadphase::Scene).

Scene(dtype='float32'): 'float32' or 'float64' boxes. Objects have stable
integer ids, a type ('dynamic' or 'static': static objects never meet each
other), a user value and a filter (category, mask, group: two objects meet
iff each one's mask has a bit of the other's category and they do not share
a nonzero group). After update(), pairs() is the current set of touching
pairs (a < b, sorted), begun() and ended() the differences from the set of
the update before. An invalid box (NaN, min > max) meets nothing.
A float32 scene stores float32 boxes: add/move round float64 boxes to the
nearest float32, and pairs are exact for the stored boxes. Its query_box and
query_point answer float64 input exactly against the stored boxes (never
rounded to nearest); query_sphere, ray_cast, ray_hits and box_cast compute
in float32 (float64 input rounded to nearest first). Use dtype='float64' for
float64 throughout.)doc")
        .def(py::init<const std::string&>(), py::arg("dtype") = "float32")
        .def("add", &Scene::add, py::arg("box"), py::arg("type") = "dynamic", py::arg("user_value") = 0,
             py::arg("category") = 1, py::arg("mask") = ~std::uint64_t(0), py::arg("group") = 0,
             "Adds one object; returns its id.")
        .def("add_batch", &Scene::add_batch, py::arg("boxes"), py::arg("type") = "dynamic",
             "Adds (N, 6) boxes of one type; returns their ids (uint32 array, ids[i] for boxes[i]).")
        .def("remove", &Scene::remove, py::arg("id"), "Removes an object; False if id is not live. Its pairs end at the next update().")
        .def("remove_batch", &Scene::remove_batch, py::arg("ids"), "Removes objects; returns how many ids were live.")
        .def("move", &Scene::move, py::arg("id"), py::arg("box"), "Gives an object its new box; False if id is not live.")
        .def("move_batch", &Scene::move_batch, py::arg("ids"), py::arg("boxes"),
             "Moves objects (ids[i] gets boxes[i]); returns how many ids were live.")
        .def("set_type", &Scene::set_type, py::arg("id"), py::arg("type"), "'dynamic' or 'static'.")
        .def("set_filter", &Scene::set_filter, py::arg("id"), py::arg("category") = 1, py::arg("mask") = ~std::uint64_t(0),
             py::arg("group") = 0)
        .def("set_user_value", &Scene::set_user_value, py::arg("id"), py::arg("value"))
        .def("contains", &Scene::contains, py::arg("id"))
        .def("__contains__", &Scene::contains)
        .def("__len__", &Scene::size)
        .def("box", &Scene::box, py::arg("id"), "The object's box (six numbers). KeyError if id is not live.")
        .def("type", &Scene::type, py::arg("id"))
        .def("filter", &Scene::filter, py::arg("id"), "(category, mask, group)")
        .def("user_value", &Scene::user_value, py::arg("id"))
        .def("set_options", &Scene::set_options, py::arg("algorithm") = "auto", py::arg("threads") = 0,
             "Algorithm and threads of the full rebuilds.")
        .def("set_update_mode", &Scene::set_update_mode, py::arg("mode"),
             "How update() finds the pairs: one of update_modes() ('automatic' by default).")
        .def_property_readonly("update_mode", &Scene::update_mode)
        .def_property_readonly("last_method", &Scene::last_method, "The method the last update ran.")
        .def_static(
            "update_modes",
            []() {
                std::vector<std::string> names;
                for (const auto& [n, mode] : update_modes()) names.push_back(n);
                return names;
            },
            "The names set_update_mode accepts ('-' and '_' are interchangeable).")
        .def("set_margin", &Scene::set_margin, py::arg("margin"),
             "Margin of the fat boxes (default 0.1); False unless finite and >= 0. Pairs stay exact unless "
             "fat pairs are on.")
        .def_property_readonly("margin", &Scene::margin)
        .def_property("fat_pairs", &Scene::fat_pairs, &Scene::set_fat_pairs,
                      "False (default): pairs exact on the tight boxes. True: pairs of the fat boxes (each box "
                      "grown by the margin, grown again only when it leaves), a superset that moves inside the "
                      "margin do not change, as Bullet's and Box2D's pair caches.")
        .def("update", &Scene::update,
             "Finds the current pairs and the events since the last update; returns the number of current pairs.")
        .def("pairs", &Scene::pairs, "The last update's pairs ((K, 2) uint32, a < b, sorted; a copy).")
        .def("begun", &Scene::begun, "Pairs that began at the last update (sorted; a copy).")
        .def("ended", &Scene::ended, "Pairs that ended at the last update (removed objects' pairs too; sorted; a copy).")
        .def("query_box", &Scene::query_box, py::arg("box"), "Ids of the objects whose boxes overlap box (sorted).")
        .def("query_point", &Scene::query_point, py::arg("point"), "Ids of the objects whose boxes contain point (sorted).")
        .def("query_sphere", &Scene::query_sphere, py::arg("center"), py::arg("radius"),
             "Ids of the objects whose boxes the closed sphere touches (sorted).")
        .def("ray_cast", &Scene::ray_cast, py::arg("origin"), py::arg("direction"),
             py::arg("max_t") = std::numeric_limits<double>::infinity(),
             "The first object hit along origin + t * direction, t in [0, max_t]: (id, t), or None.")
        .def("ray_hits", &Scene::ray_hits, py::arg("origin"), py::arg("direction"),
             py::arg("max_t") = std::numeric_limits<double>::infinity(),
             "Every object the ray hits: (ids, ts), ordered by t.")
        .def("box_cast", &Scene::box_cast, py::arg("box"), py::arg("displacement"),
             "The first object the box touches when swept along displacement: (id, t), or None.");

    m.def(
        "algorithms", []() {
            std::vector<std::string> v;
            for (bp::Algorithm a : bp::concrete_algorithms) v.push_back(bp::to_string(a));
            return v;
        },
        "The algorithm names find_pairs accepts (besides 'auto').");
    m.def("_time_cpp_find_pairs", &time_cpp_find_pairs, py::arg("rows"), py::arg("threads"), py::arg("variant"),
          "Benchmark hook (python/bench/overhead.py): (milliseconds, pairs) of one C++ call equivalent to a Python one.");
    m.def("default_threads", &bp::default_threads, "The thread count threads=0 stands for.");
    m.def("builtin_scene", &builtin_scene, py::arg("name"),
          "A built-in scene of the CLI ('uniform:100000', 'dense20k', ...) as an (N, 6) float32 array.");
}
