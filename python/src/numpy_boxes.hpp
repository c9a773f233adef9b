// numpy arrays in and out of broadphase._core, and what it does about
// invalid boxes; used by every bind_*.cpp.
//
// Arrays in: (N, 6) rows minx miny minz maxx maxy maxz, or (N, 4) rows
// minx miny maxx maxy for 2-D boxes (BasicBoxes<T, 2>) where a call takes
// either. float32 and float64 C-contiguous arrays are read in place; anything else (other strides or
// byte order, integer or other float dtypes, lists) is converted once by
// numpy, to float64 unless it was float32. The library stores boxes as a
// struct of arrays, so every call transposes the rows once (O(n), on the
// call's threads, without the GIL).
//
// Arrays out: pairs as (K, 2) uint32 arrays that own the library's output
// vector (no copy); ids as uint32 arrays. uint32 because the library's
// indices are 32-bit (bp::Pair is two uint32: half the memory of int64
// pairs); a set of more than bp::max_boxes boxes is refused with a
// ValueError before anything is copied.
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
#include <broadphase/large_array.hpp>
#include <broadphase/parallel_for.hpp>

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
    int dim = 3;        // boxes: 2 for (N, 4) rows, 3 for (N, 6)
    bool any_dim = false;  // boxes: an empty 1-D array, which fits either dimension
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

/// rows_of for boxes: (N, 6) rows minx miny minz maxx maxy maxz (3-D) or
/// (N, 4) rows minx miny maxx maxy (2-D). dim 0 takes either (Rows::dim
/// says which; an empty 1-D array is 3-D with any_dim set); dim 2 or 3
/// requires that one, and `why` ends the ValueError otherwise ("the index
/// is 2-D"). More than bp::max_boxes rows: ValueError, before any copy.
Rows box_rows_of(py::handle obj, const char* name, bool want_double = false, int dim = 0, const std::string& why = "");

/// "2-D ((N, 4) rows)" or "3-D ((N, 6) rows)".
std::string dim_words(int dim);

/// A 1-D array of n numbers, or one number (n = 1, broadcast).
Rows vector_of(py::handle obj, const char* name, std::size_t n, bool want_double);

template <class T>
const T* data_of(const Rows& r) {
    return static_cast<const T*>(r.array.data());
}

/// One box of 2 * dim numbers as float64 into out: minx miny minz maxx
/// maxy maxz (dim 3) or minx miny maxx maxy (dim 2). `why` ends the
/// ValueError for a box of the other dimension ("the index is 2-D").
void box_values_into(py::handle obj, const char* name, int dim, double* out, const std::string& why = "");

/// One box (2 * D numbers) as float64.
template <int D = 3>
std::array<double, 2 * D> box_values_of(py::handle obj, const char* name, const std::string& why = "") {
    std::array<double, 2 * D> v;
    box_values_into(obj, name, D, v.data(), why);
    return v;
}

/// One box (2 * D numbers) as a BasicBox<T, D>: to float32 each value is
/// rounded to nearest (storage in a float32 Scene; queries use FloatQuery).
template <class T, int D = 3>
bp::BasicBox<T, D> box_of(py::handle obj, const char* name, const std::string& why = "") {
    const std::array<double, 2 * D> p = box_values_of<D>(obj, name, why);
    bp::BasicBox<T, D> b;
    for (int k = 0; k < D; ++k) b.min[k] = static_cast<T>(p[k]), b.max[k] = static_cast<T>(p[D + k]);
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

/// Rows (minx miny minz maxx maxy maxz, or minx miny maxx maxy for D = 2)
/// into the library's struct of arrays, in parallel for big inputs. O(n).
template <class T, int D>
void fill_boxes(bp::BasicBoxes<T, D>& out, const T* rows, std::size_t n, unsigned threads) {
    out.resize(n);
    T* lo[D];
    T* hi[D];
    for (int k = 0; k < D; ++k) lo[k] = out.min(k), hi[k] = out.max(k);
    bp::parallel_for(n, threads, bp::Work::eighth, [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i) {
            const T* r = rows + 2 * D * i;
            for (int k = 0; k < D; ++k) lo[k][i] = r[k], hi[k][i] = r[D + k];
        }
    });
}

// ---------------------------------------------------------------- arrays out

/// A (K, 2) uint32 array owning the pairs' vector (no copy).
inline py::array pairs_array(std::vector<bp::Pair>&& pairs) {
    return owning_pairs_array<std::uint32_t>(std::move(pairs));
}

/// A (K, 2) uint32 array owning the memory of a LargeArray of pairs (no
/// copy). When the array is freed its memory becomes the module's spare
/// block (one at most, the larger), which take_spare_pairs hands to the
/// next call's output: memory already paged in.
py::array large_pairs_array(bp::LargeArray<bp::Pair>&& pairs);
void take_spare_pairs(bp::LargeArray<bp::Pair>& pairs);
void free_spare_pairs();

/// Frees the finder find_pairs keeps between calls (bind_pairs.cpp).
void free_kept_pair_finder();

/// Frees the list and scratch neighbor_list keeps between calls (bind_ase.cpp).
void free_kept_ase_state();

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
