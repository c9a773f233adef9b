// numpy arrays in and out of broadphase._core, and what it does about
// invalid boxes; used by every bind_*.cpp.
//
// Arrays in: (N, 6) rows minx miny minz maxx maxy maxz. float32 and float64
// C-contiguous arrays are read in place; anything else (other strides or
// byte order, integer or other float dtypes, lists) is converted once by
// numpy, to float64 unless it was float32. The library stores boxes as a
// struct of arrays, so every call transposes the rows once (O(n), on the
// call's threads, without the GIL).
//
// Arrays out: pairs as (K, 2) uint32 arrays that own the library's output
// vector (no copy); ids as uint32 arrays.
//
// Invalid boxes (NaN, min > max) take part in no pair; invalid= says
// whether that is silent ('skip'), an InvalidBoxWarning ('warn') or an
// InvalidBoxError ('raise'). A call past max_pairs raises PairBudgetError.

#pragma once

#include "common.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <broadphase/broadphase.hpp>

namespace broadphase_python {

// ---------------------------------------------------------------- errors

/// InvalidBoxError, InvalidBoxWarning and PairBudgetError, created by
/// bind_errors at import (references kept for the life of the process).
extern PyObject* invalid_box_error;
extern PyObject* invalid_box_warning;
extern PyObject* pair_budget_error;

/// Raises `type(msg)` with extra attributes set on the exception object.
[[noreturn]] void raise_with(PyObject* type, const std::string& msg,
                             const std::vector<std::pair<const char*, py::object>>& attrs);

/// "(3, 6)", "(4,)": an array's shape as numpy prints it.
std::string shape_of(const py::array& a);
std::string dtype_name(const py::array& a);

// ---------------------------------------------------------------- arrays in

/// A numeric array converted (once, only if needed) to C-contiguous float32
/// or float64.
struct Rows {
    py::array array;  // keeps the data alive
    bool is_double = false;
    std::size_t n = 0;  // rows (or elements, for 1-D)
};

/// np.asarray(obj), then a check that it holds real numbers.
py::array numeric_array(py::handle obj, const char* name);

/// Whether an array (already numeric) is kept as float32.
bool is_float32(const py::array& a);

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
Rows rows_of(py::handle obj, const char* name, py::ssize_t cols, const char* layout, bool want_double = false);

/// rows_of for boxes: (N, 6), rows minx miny minz maxx maxy maxz.
inline Rows box_rows_of(py::handle obj, const char* name, bool want_double = false) {
    return rows_of(obj, name, 6, "minx, miny, minz, maxx, maxy, maxz", want_double);
}

/// A 1-D array of n numbers, or one number (n = 1, broadcast).
Rows vector_of(py::handle obj, const char* name, std::size_t n, bool want_double);

template <class T>
const T* data_of(const Rows& r) {
    return static_cast<const T*>(r.array.data());
}

/// One box (six numbers) as float64: minx miny minz maxx maxy maxz.
std::array<double, 6> box_values_of(py::handle obj, const char* name);

/// One box (six numbers) as a BasicBox<T, 3>: to float32 each value is
/// rounded to nearest (storage in a float32 Scene; queries use FloatQuery).
template <class T>
bp::BasicBox<T, 3> box_of(py::handle obj, const char* name) {
    const std::array<double, 6> p = box_values_of(obj, name);
    bp::BasicBox<T, 3> b;
    for (int k = 0; k < 3; ++k) b.min[k] = static_cast<T>(p[k]), b.max[k] = static_cast<T>(p[3 + k]);
    return b;
}

/// Three numbers (a point or a direction) as float64.
std::array<double, 3> vec_values_of(py::handle obj, const char* name);

/// Three numbers (a point or a direction).
template <class T>
std::array<T, 3> vec_of(py::handle obj, const char* name) {
    const std::array<double, 3> v = vec_values_of(obj, name);
    return {static_cast<T>(v[0]), static_cast<T>(v[1]), static_cast<T>(v[2])};
}

/// Object ids: integers in [0, 2^32 - 1).
std::vector<std::uint32_t> ids_of(py::handle obj, const char* name);

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
inline py::array pairs_array(std::vector<bp::Pair>&& pairs) {
    return owning_pairs_array<std::uint32_t>(std::move(pairs));
}

/// A copy of pairs as a (K, 2) uint32 array.
py::array pairs_copy(const std::vector<bp::Pair>& pairs);

// ---------------------------------------------------------------- options, reports

enum class OnInvalid { skip, warn, raise };

/// invalid= ('skip', 'warn' or 'raise').
OnInvalid parse_invalid(const std::string& s);

/// The library's Options from the keyword arguments of a call.
bp::Options make_options(const std::string& algorithm, long threads, bool sorted, std::optional<std::uint64_t> max_pairs);

/// Turns a report into exceptions or warnings. `pairs` is what the call
/// delivered (attached to PairBudgetError). names: the arguments that held
/// the first and second sets.
void check_report(const bp::Report& r, OnInvalid on_invalid, const char* name_a, const char* name_b,
                  std::vector<bp::Pair>* pairs = nullptr, const char* what = "box(es)",
                  const char* why = "NaN, or min > max");

}  // namespace broadphase_python
