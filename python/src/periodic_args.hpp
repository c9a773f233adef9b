// boxsize=: the periodic domain of find_pairs, PairFinder.find_pairs and
// find_sphere_pairs (include/broadphase/periodic.hpp), parsed and checked
// once for all three.

#pragma once

#include "common.hpp"

#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include <broadphase/periodic.hpp>

namespace broadphase_python {

/// One period: None -> 0; a real number (not a bool) that is 0 or finite
/// and > 0 (at most float64's largest / 16); ValueError or TypeError naming
/// boxsize otherwise.
inline double period_of(py::handle v, int axis) {
    const std::string where = "boxsize" + (axis < 0 ? std::string() : "[" + std::to_string(axis) + "]");
    if (v.is_none()) return 0;
    if (py::isinstance<py::bool_>(v) || py::isinstance<py::str>(v) || py::isinstance<py::bytes>(v))
        raise_type(where + " must be a number or None, not " + std::string(py::str(v.get_type().attr("__name__"))));
    double p;
    try {
        p = py::cast<double>(py::float_(py::reinterpret_borrow<py::object>(v)));
    } catch (const py::error_already_set&) {
        raise_type(where + " must be a number or None, not " + std::string(py::str(v.get_type().attr("__name__"))));
    }
    if (p == 0) return 0;
    if (!(p > 0) || !(p <= std::numeric_limits<double>::max() / 16))
        raise_value(where + " must be 0 or None (not periodic) or a finite period > 0, got " +
                    std::string(py::str(py::float_(p))));
    return p;
}

/// boxsize= as three periods (0: not periodic), or nullopt when None or no
/// axis is periodic. Accepts None, one number (every axis), or a sequence
/// of three numbers or Nones (like scipy.spatial.cKDTree's boxsize, plus
/// None or 0 for an open axis).
inline std::optional<std::array<double, 3>> boxsize_of(py::handle obj) {
    if (obj.is_none()) return std::nullopt;
    std::array<double, 3> p{};
    const bool scalar_array = py::isinstance<py::array>(obj) && py::reinterpret_borrow<py::array>(obj).ndim() == 0;
    if (!scalar_array && (py::isinstance<py::sequence>(obj) || py::isinstance<py::array>(obj)) &&
        !py::isinstance<py::str>(obj) && !py::isinstance<py::bytes>(obj)) {
        const py::sequence s = py::reinterpret_borrow<py::sequence>(obj);
        if (py::len(s) != 3)
            raise_value("boxsize must be one number or 3 (one per axis, 0 or None: not periodic), got " +
                        std::to_string(py::len(s)));
        for (int k = 0; k < 3; ++k) p[k] = period_of(s[static_cast<std::size_t>(k)], k);
    } else {
        p.fill(period_of(obj, -1));
    }
    if (p[0] == 0 && p[1] == 0 && p[2] == 0) return std::nullopt;
    return p;
}

/// Whether every period is a float32 value in the float32 path's range, so
/// that float32 input can be searched in float32 with exactly these periods.
inline bool periods_fit_float(const std::array<double, 3>& p) {
    for (double v : p)
        if (static_cast<double>(static_cast<float>(v)) != v || v > std::numeric_limits<float>::max() / 16) return false;
    return true;
}

/// The domain in T (exact: T is float only when periods_fit_float).
template <class T>
bp::BasicPeriodicDomain<T, 3> domain_of(const std::array<double, 3>& p) {
    bp::BasicPeriodicDomain<T, 3> d;
    for (int k = 0; k < 3; ++k) d.period[k] = static_cast<T>(p[k]);
    return d;
}

}  // namespace broadphase_python
