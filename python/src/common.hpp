// What both extension modules share: broadphase._core (module.cpp and the
// bind_*.cpp files) and broadphase._mpi (mpi_module.cpp). Header-only, so
// that each module compiles it into itself.
//
//   errors:      raise_value, raise_type (ValueError, TypeError);
//   options:     parse_algorithm, algorithm_names, threads_of, the checks
//                and messages every entry point gives for algorithm= and
//                threads=;
//   arrays out:  owning_pairs_array (a (K, 2) array that owns the library's
//                output vector, no copy) and ids_array (a 1-D copy).

#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>  // in every file of a module, so that each converts std types alike

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <broadphase/options.hpp>

namespace py = pybind11;
namespace bp = broadphase;

namespace broadphase_python {

[[noreturn]] inline void raise_value(const std::string& msg) { throw py::value_error(msg); }
[[noreturn]] inline void raise_type(const std::string& msg) { throw py::type_error(msg); }

/// The names algorithm= accepts, quoted: "'automatic', 'brute_force', ...".
inline std::string algorithm_names() {
    std::string s = std::string("'") + bp::to_string(bp::Algorithm::automatic) + "'";
    for (bp::Algorithm a : bp::concrete_algorithms) s += std::string(", '") + bp::to_string(a) + "'";
    return s;
}

/// An algorithm by name; ValueError naming the known ones otherwise.
inline bp::Algorithm parse_algorithm(const std::string& name) {
    if (name == "auto") raise_value("unknown algorithm 'auto': the automatic choice is spelt 'automatic'");
    bp::Algorithm a;
    if (!bp::parse_algorithm(name, a)) raise_value("unknown algorithm '" + name + "'; one of " + algorithm_names());
    return a;
}

/// threads= as the library's Options::threads: 0 (all cores) or more.
inline unsigned threads_of(long threads) {
    if (threads < 0 || static_cast<unsigned long>(threads) > std::numeric_limits<unsigned>::max())
        raise_value("threads must be 0 (all) or more, at most " + std::to_string(std::numeric_limits<unsigned>::max()) +
                    "; got " + std::to_string(threads));
    return static_cast<unsigned>(threads);
}

/// A (K, 2) array of Id owning the pairs' vector (no copy). Pair: two
/// packed Id (bp::Pair: uint32; the distributed IdPair: uint64).
template <class Id, class Pair>
py::array owning_pairs_array(std::vector<Pair>&& pairs) {
    static_assert(sizeof(Pair) == 2 * sizeof(Id), "a pair must be two packed ids");
    auto* owned = new std::vector<Pair>(std::move(pairs));
    py::capsule owner(owned, [](void* p) { delete static_cast<std::vector<Pair>*>(p); });
    const py::ssize_t k = static_cast<py::ssize_t>(owned->size());
    return py::array_t<Id>({k, py::ssize_t(2)}, {py::ssize_t(sizeof(Pair)), py::ssize_t(sizeof(Id))},
                           reinterpret_cast<const Id*>(owned->data()), owner);
}

/// A copy of ids as a 1-D array.
template <class Id>
py::array ids_array(const std::vector<Id>& ids) {
    py::array_t<Id> a(static_cast<py::ssize_t>(ids.size()));
    if (!ids.empty()) std::memcpy(a.mutable_data(), ids.data(), ids.size() * sizeof(Id));
    return a;
}

}  // namespace broadphase_python
