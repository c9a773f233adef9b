// numpy arrays in and out of broadphase._core, and the invalid-box and
// pair-budget errors (see numpy_boxes.hpp).

#include "numpy_boxes.hpp"

#include "bindings.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>
#include <mutex>
#include <sstream>

namespace broadphase_python {

// ---------------------------------------------------------------- errors

PyObject* invalid_box_error = nullptr;
PyObject* invalid_box_warning = nullptr;
PyObject* pair_budget_error = nullptr;

void bind_errors(py::module_& m) {
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
}

void raise_with(PyObject* type, const std::string& msg, const std::vector<std::pair<const char*, py::object>>& attrs) {
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

namespace {

/// np.asarray(obj); TypeError "<name> must be <what>: <numpy's reason>" if
/// numpy cannot make an array of it.
py::array as_array(py::handle obj, const char* name, const char* what) {
    try {
        return py::module_::import("numpy").attr("asarray")(obj);
    } catch (py::error_already_set& e) {
        raise_type(std::string(name) + " must be " + what + ": " + e.what());
    }
}

}  // namespace

py::array numeric_array(py::handle obj, const char* name) {
    py::array a = as_array(obj, name, "an array of numbers");
    const char kind = a.dtype().kind();
    if (kind != 'f' && kind != 'i' && kind != 'u')
        raise_type(std::string(name) + " must hold real numbers (float32 or float64; integers are converted); got dtype " +
                   dtype_name(a));
    return a;
}

bool is_float32(const py::array& a) { return a.dtype().kind() == 'f' && a.dtype().itemsize() == 4; }

Rows rows_of(py::handle obj, const char* name, py::ssize_t cols, const char* layout, bool want_double) {
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

namespace {

const char* box_layout(int dim) { return dim == 2 ? "minx, miny, maxx, maxy" : "minx, miny, minz, maxx, maxy, maxz"; }

}  // namespace

std::string dim_words(int dim) { return dim == 2 ? "2-D ((N, 4) rows)" : "3-D ((N, 6) rows)"; }

Rows box_rows_of(py::handle obj, const char* name, bool want_double, int dim, const std::string& why) {
    py::array a = numeric_array(obj, name);
    const bool empty_1d = a.ndim() == 1 && a.shape(0) == 0;
    int got = 0;
    if (a.ndim() == 2 && a.shape(1) == 6) got = 3;
    if (a.ndim() == 2 && a.shape(1) == 4) got = 2;
    if (!empty_1d && (got == 0 || (dim != 0 && got != dim))) {
        std::string msg = std::string(name) + " must have shape ";
        if (dim == 0)
            msg += "(N, 6) (minx, miny, minz, maxx, maxy, maxz per row) or (N, 4) (2-D: minx, miny, maxx, maxy per row)";
        else
            msg += "(N, " + std::to_string(2 * dim) + ") (" + box_layout(dim) + " per row)";
        msg += "; got shape " + shape_of(a);
        if (!why.empty()) msg += ": " + why;
        raise_value(msg);
    }
    // Checked before any conversion: the library's indices are 32-bit.
    if (!empty_1d && static_cast<std::uint64_t>(a.shape(0)) > bp::max_boxes)
        raise_value(std::string(name) + " has " + std::to_string(a.shape(0)) + " boxes; at most " +
                    std::to_string(bp::max_boxes) + " per set (the library's indices and pairs are 32-bit)");
    Rows r;
    r.any_dim = empty_1d;
    r.dim = empty_1d ? (dim ? dim : 3) : got;
    r.is_double = want_double || !is_float32(a);
    r.n = empty_1d ? 0 : static_cast<std::size_t>(a.shape(0));
    if (empty_1d) a = a.attr("reshape")(0, 2 * r.dim);
    r.array = r.is_double ? contiguous<double>(a) : contiguous<float>(a);
    return r;
}

void box_values_into(py::handle obj, const char* name, int dim, double* out, const std::string& why) {
    py::array a = numeric_array(obj, name);
    const py::ssize_t want = 2 * dim;
    const bool ok = (a.ndim() == 1 && a.shape(0) == want) || (a.ndim() == 2 && a.shape(0) == 1 && a.shape(1) == want);
    if (!ok) {
        std::string msg = std::string(name) + " must be one box of " + (dim == 2 ? "four" : "six") + " numbers (" +
                          box_layout(dim) + "); got shape " + shape_of(a);
        if (!why.empty()) msg += ": " + why;
        raise_value(msg);
    }
    py::array_t<double, py::array::c_style | py::array::forcecast> d = contiguous<double>(a);
    std::copy(d.data(), d.data() + want, out);
}

std::array<double, 3> vec_values_of(py::handle obj, const char* name) {
    py::array a = numeric_array(obj, name);
    if (!(a.ndim() == 1 && a.shape(0) == 3))
        raise_value(std::string(name) + " must be three numbers (x, y, z); got shape " + shape_of(a));
    py::array_t<double, py::array::c_style | py::array::forcecast> d = contiguous<double>(a);
    return {d.data()[0], d.data()[1], d.data()[2]};
}

std::vector<std::uint32_t> ids_of(py::handle obj, const char* name) {
    py::array a = as_array(obj, name, "an array of integers (object ids)");
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

// ---------------------------------------------------------------- arrays out

py::array pairs_copy(const std::vector<bp::Pair>& pairs) {
    py::array_t<std::uint32_t> a({static_cast<py::ssize_t>(pairs.size()), py::ssize_t(2)});
    if (!pairs.empty()) std::memcpy(a.mutable_data(), pairs.data(), pairs.size() * sizeof(bp::Pair));
    return a;
}

// ---------------------------------------------------------------- options, reports

OnInvalid parse_invalid(const std::string& s) {
    if (s == "skip") return OnInvalid::skip;
    if (s == "warn") return OnInvalid::warn;
    if (s == "raise") return OnInvalid::raise;
    raise_value("invalid must be 'skip', 'warn' or 'raise'; got '" + s + "'");
}

bp::Options make_options(const std::string& algorithm, long threads, bool sorted, std::optional<std::uint64_t> max_pairs) {
    const unsigned t = threads_of(threads);
    bp::Options o;
    o.algorithm = parse_algorithm(algorithm);
    o.threads = t;
    o.sorted = sorted;
    if (max_pairs) o.max_pairs = *max_pairs;
    return o;
}

namespace {

/// The first ten indices, then how many more.
std::string index_list(const std::vector<std::uint32_t>& v) {
    std::ostringstream s;
    const std::size_t shown = std::min<std::size_t>(v.size(), 10);
    for (std::size_t i = 0; i < shown; ++i) s << (i ? ", " : "") << v[i];
    if (shown < v.size()) s << ", ... (" << v.size() - shown << " more)";
    return s.str();
}

}  // namespace

namespace {

/// The memory of the last pair array freed, kept for the next call: a loop
/// `p = find_sphere_pairs(...)` frees each array while the next call runs,
/// so the call after that writes into memory already paged in instead of
/// fresh pages (a page fault each 2 MB or 4 KB). One block at most, the
/// larger of two; free_memory() lets it go.
struct SpareBlock {
    std::mutex mutex;
    void* data = nullptr;
    std::size_t bytes = 0;
};
SpareBlock& spare_block() {
    static SpareBlock* s = new SpareBlock;  // never destroyed: arrays may be freed at exit
    return *s;
}

/// Keeps `data` as the spare block, or frees it (or the old spare, the
/// smaller of the two).
void offer_spare(void* data, std::size_t bytes) {
    SpareBlock& s = spare_block();
    void* drop = data;
    std::size_t drop_bytes = bytes;
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        if (bytes > s.bytes) {
            std::swap(drop, s.data);
            std::swap(drop_bytes, s.bytes);
        }
    }
    bp::detail::large_free(drop, drop_bytes);
}

}  // namespace

namespace {

/// The spare block, taken out of the slot (null when there is none).
std::pair<void*, std::size_t> take_spare_block() {
    SpareBlock& s = spare_block();
    std::lock_guard<std::mutex> lock(s.mutex);
    const std::pair<void*, std::size_t> block{s.data, s.bytes};
    s.data = nullptr, s.bytes = 0;
    return block;
}

}  // namespace

void take_spare_pairs(bp::LargeArray<bp::Pair>& pairs) {
    const std::pair<void*, std::size_t> block = take_spare_block();
    if (block.first) pairs.adopt(static_cast<bp::Pair*>(block.first), block.second);
}

void free_spare_pairs() {
    const std::pair<void*, std::size_t> block = take_spare_block();
    bp::detail::large_free(block.first, block.second);
}

py::array large_pairs_array(bp::LargeArray<bp::Pair>&& pairs) {
    const py::ssize_t k = static_cast<py::ssize_t>(pairs.size());
    if (k == 0) return py::array_t<std::uint32_t>(std::vector<py::ssize_t>{0, 2});
    struct Owned {
        void* data;
        std::size_t bytes;
    };
    const std::pair<bp::Pair*, std::size_t> memory = pairs.release();
    auto* owned = new Owned{memory.first, memory.second};
    py::capsule owner(owned, [](void* p) {
        Owned* o = static_cast<Owned*>(p);
        offer_spare(o->data, o->bytes);
        delete o;
    });
    return py::array_t<std::uint32_t>({k, py::ssize_t(2)}, {py::ssize_t(sizeof(bp::Pair)), py::ssize_t(sizeof(std::uint32_t))},
                                      reinterpret_cast<const std::uint32_t*>(memory.first), owner);
}

void check_report(const bp::Report& r, OnInvalid on_invalid, const char* name_a, const char* name_b,
                  std::vector<bp::Pair>* pairs, const char* what, const char* why) {
    switch (r.status) {
        case bp::Status::ok:
        case bp::Status::stopped_by_callback: break;
        case bp::Status::too_many_boxes:
            raise_value("too many boxes: at most " + std::to_string(bp::max_boxes) + " per set (32-bit indices)");
        case bp::Status::out_of_memory: throw std::bad_alloc();
        case bp::Status::invalid_argument: raise_value("invalid argument");
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

}  // namespace broadphase_python
