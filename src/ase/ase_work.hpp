// What an AseNeighborList keeps between calls: the library's NeighborList
// for large systems, the answer of the last list() (entries by row), and
// the scratch of both paths, grown only, so that a call after the first of
// its size allocates nothing but the output.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <broadphase/neighbor_list.hpp>
#include "ase/ase_cells.hpp"
#include "ase/ase_rules.hpp"

namespace broadphase {
namespace detail {
namespace ase {

/// The direct path's default limit on atoms^2 x candidates a pair, for
/// calls that ask for d, D or S; 4 times it for i and j alone (limit_for).
/// Measured (2-core Xeon, copper at 5 A, docs/python.md): the direct path
/// is faster than the library's up to about 400 atoms with "ijdDS" (400:
/// 0.56 against 0.71 ms; 512: even) and up to 1,000 with "ij" (700: 0.45
/// against 0.74 ms).
constexpr double default_small_limit = 400.0 * 400.0;

struct Work {
    double small_limit = default_small_limit;
    std::string error;                                 // why the last call failed
    std::size_t last_direct = 0, last_library = 0;     // the last call's systems by each path
    std::unique_ptr<NeighborList> list;                // the library's path (made at the first large system)
    double margin = -1;                                // the list's cutoff (the search margin)
    // The call's input as the parts read it (copies of the cells, kept).
    Systems S;
    std::vector<Mat3> cells;
    std::vector<std::array<bool, 3>> pbc;
    Cutoffs cut;
    // The answer of list(): rows by global atom.
    std::vector<Entry> entries;         // the answer, rows in order of placement
    std::vector<std::uint64_t> row_at;  // per global atom: its row in entries
    std::vector<std::uint32_t> row_n;   // per global atom: its row's length
    std::size_t listed = 0;             // entries of the last list()
    // The library's path.
    std::vector<std::uint32_t> count;      // per local atom: entries kept
    std::vector<std::uint32_t> last_j;     // per local atom: j of its last entry placed
    std::vector<double> gathered_x;        // a system's atoms when not contiguous
    std::vector<std::uint32_t> glob;       // a system's atoms' global ids
    std::vector<std::uint32_t> by_system;  // atoms ordered by system (stable)
    std::vector<std::uint64_t> system_at;  // per system: first atom in by_system
    std::vector<std::uint64_t> system_fill;  // per system: the next free place in by_system
    std::vector<double> radii;             // per local atom: search radius
    // The direct path.
    std::vector<double> soa;          // a system's X, Y, Z, F0, F1, F2, then a row's buffers
    std::vector<std::uint8_t> maybe;  // a row's candidates (one byte per j)
    struct SystemGeom {
        SmallGeom g;
        std::size_t a0, n;
    };
    std::vector<SystemGeom> geoms;  // a call's systems for the direct path

    /// The memory kept between calls given back (the settings stay).
    void release() {
        list.reset();
        margin = -1;
        const auto drop = [](auto& v) { std::decay_t<decltype(v)>().swap(v); };
        drop(cells), drop(pbc), drop(cut.elem), drop(cut.table), drop(cut.elem_r), drop(cut.distinct);
        drop(entries), drop(row_at), drop(row_n), drop(count), drop(last_j), drop(gathered_x), drop(glob);
        drop(by_system), drop(system_at), drop(system_fill), drop(radii), drop(soa), drop(maybe), drop(geoms);
        listed = 0;
        S = Systems{};
    }
};

}  // namespace ase
}  // namespace detail
}  // namespace broadphase
