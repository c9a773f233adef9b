// ASE's neighbour list in C++: the entries of ase.neighborlist.neighbor_list
// ("ijdDS"), bit for bit, for one system or a batch of many small ones.
// The Python module's broadphase.neighbor_list and neighbor_list_batch are
// this class behind numpy arrays (python/src/bind_ase.cpp).
//
//   broadphase::AseNeighborList ase;                    // kept: its scratch and list between calls
//   broadphase::AseSystem s;                            // plain data: the caller's arrays, read in place
//   s.positions = xyz, s.n = n;                         // n rows x y z
//   s.cell[0][0] = s.cell[1][1] = s.cell[2][2] = 10.0;  // rows: the cell vectors a, b, c
//   s.pbc[0] = s.pbc[1] = s.pbc[2] = true;
//   broadphase::AseNeighbors out;                       // struct of arrays: i, j, d, D, S
//   broadphase::Report r = ase.find(s, broadphase::AseCutoff::scalar(5.0), broadphase::AseQuantities::all(),
//                                   false, out);        // r.ok(), r.pairs: the entries
//
// What is listed (ASE's primitive_neighbor_list): every (i, j, S), S whole
// cell vectors with S_k = 0 on every open axis, with
//   D = (x_j - x_i) + S.dot(cell)   (numpy's order: ((0 + S0 h0k) + S1 h1k) + S2 h2k)
//   d = sqrt((D0 D0 + D1 D1) + D2 D2)
// kept iff d < cutoff (strict), the cutoff being one number, r_i + r_j
// (per-atom radii) or the cutoff of the pair of elements (0 for a pair the
// table does not list); (i, i, 0) only with self_interaction. x are the
// positions as given (not wrapped), the cell as given, so D and d and the
// ties at the cutoff come out as ASE's to the last bit. With a cutoff over
// half the cell a pair has several S and an atom lists its own images.
// Order: rows by i, as ASE's; within a row by j, then S lexicographically
// (ASE leaves that order to its bins: its output sorted by (i, j, S) is
// ours). A batch numbers the concatenated atoms; each system's entries are
// those of the system alone, offset by its first atom.
//
// Any cell ASE takes: triclinic, open axes beside tilted periodic ones (a
// slab of a hexagonal cell), no cell with pbc false. Refused
// (Status::invalid_argument, error() says why): a non-finite position or
// cell, a negative or non-finite cutoff, pbc true on an axis whose cell
// vector is zero, a cell with no volume, a system index out of range.
//
// How, and the cost. Small systems (atoms^2 x the shifts a pair can have,
// at most direct_limit(): 400^2, about 400 atoms of copper at 5 A; four
// times that when neither d, D nor S is asked for) take a direct path:
// every i, then every j and S that can be within the cutoff, tested in
// that order by ASE's rule, the row computed for all j at once in a loop
// built for SSE2, AVX2 and AVX-512 (chosen at run time by simd_level(),
// simd.hpp; answers never depend on it): O(n^2) per system, the answer
// written once, no sort. Larger systems: the library's full NeighborList
// with shifts at the cutoff plus 2^-28 of the largest magnitude, each entry
// tested again by ASE's rule and placed in ASE's order: O(n + entries) per
// system. Measured against ASE itself: docs/python.md.
//
// Memory: an AseNeighborList keeps its NeighborList and scratch between
// calls, so a call after the first of its size allocates nothing but the
// output arrays (none when `out` has the room already). One call at a
// time per object; objects are independent. The threads: the library's
// (the NeighborList's build, for large systems), as Options::threads = 0.
//
// Output: AseNeighbors (vectors, resized to the entries), or the steps
// find_direct / list / write for a caller that owns its arrays (the Python
// module writes into numpy arrays, without the GIL while it lists).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <broadphase/pairs.hpp>

namespace broadphase {

/// Which of ASE's quantities a call writes: the letters of "ijdDS". i and
/// j: the atoms (int64); d: the distance; D: the vector x_j - x_i + S h (3
/// values an entry); S: the shift in cell vectors (int64, 3 an entry).
struct AseQuantities {
    bool i = true, j = true, d = false, D = false, S = false;

    /// Every quantity ("ijdDS"). O(1).
    static AseQuantities all() {
        AseQuantities q;
        q.d = q.D = q.S = true;
        return q;
    }
};

/// One entry of an element-pair cutoff table: atoms of atomic numbers z1
/// and z2 (either way round) are neighbours within `cutoff`.
struct AsePairCutoff {
    std::int64_t z1 = 0, z2 = 0;
    double cutoff = 0;
};

/// The three kinds of ASE cutoff.
enum class AseCutoffKind {
    scalar,         ///< one cutoff for every pair
    radii,          ///< per-atom radii: a pair's cutoff is r_i + r_j
    element_pairs,  ///< a table over pairs of elements (ASE's dict {(Z1, Z2): c})
};

/// A cutoff rule, as plain data (views of the caller's arrays, read during
/// the call only). Every cutoff must be finite and >= 0.
struct AseCutoff {
    AseCutoffKind kind = AseCutoffKind::scalar;
    double value = 0;                       ///< scalar: the cutoff
    const double* radii = nullptr;          ///< radii: one per atom (batch: per atom of the batch)
    bool radii_float32 = false;             ///< radii: r_i + r_j rounded as a float32 sum (numpy on float32 radii)
    const std::int64_t* numbers = nullptr;  ///< element_pairs: each atom's atomic number
    const AsePairCutoff* pairs = nullptr;   ///< element_pairs: the table, in order (a later entry wins, as in ASE)
    std::size_t pair_count = 0;             ///< element_pairs: entries in `pairs` (at least one)

    /// One cutoff for every pair. O(1).
    static AseCutoff scalar(double cutoff) {
        AseCutoff c;
        c.value = cutoff;
        return c;
    }
    /// Per-atom radii (n of them, the caller's array): a pair iff d < r_i + r_j.
    /// float32: the radii are float32 values and their sums round as float32
    /// (as numpy adds a float32 array). O(1).
    static AseCutoff per_atom(const double* radii, bool float32 = false) {
        AseCutoff c;
        c.kind = AseCutoffKind::radii;
        c.radii = radii, c.radii_float32 = float32;
        return c;
    }
    /// A table over pairs of elements: `numbers` (n atomic numbers) and
    /// `count` entries (z1, z2, cutoff); pairs the table does not name have
    /// none. O(1).
    static AseCutoff element_pairs(const std::int64_t* numbers, const AsePairCutoff* pairs, std::size_t count) {
        AseCutoff c;
        c.kind = AseCutoffKind::element_pairs;
        c.numbers = numbers, c.pairs = pairs, c.pair_count = count;
        return c;
    }
};

/// One system: n positions (rows x y z, the caller's array, read in
/// place), the cell (rows: the cell vectors a, b, c) and which axes wrap.
struct AseSystem {
    const double* positions = nullptr;
    std::size_t n = 0;
    double cell[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    bool pbc[3] = {false, false, false};
};

/// Many systems in one call: the atoms of all of them, concatenated or in
/// any order, each with its system's index. The caller's arrays, read in
/// place.
struct AseBatch {
    const double* positions = nullptr;           ///< n rows x y z
    std::size_t n = 0;                           ///< atoms in all
    const std::int64_t* system_index = nullptr;  ///< n values in [0, systems); null: every atom in system 0
    std::size_t systems = 1;                     ///< systems (cells)
    const double* cells = nullptr;               ///< systems x 3 x 3: each cell's rows (null: no cell, zeros)
    const bool* pbc = nullptr;                   ///< systems x 3 (null: no axis wraps)

    /// One system as a batch of one (views of s's arrays: s must outlive it). O(1).
    static AseBatch of(const AseSystem& s) {
        AseBatch b;
        b.positions = s.positions, b.n = s.n;
        b.cells = &s.cell[0][0], b.pbc = s.pbc;
        return b;
    }
};

/// The answer as a struct of arrays, K entries: those asked for hold K
/// values each (D and S 3K, row-major), the others are empty.
struct AseNeighbors {
    std::vector<std::int64_t> i, j;
    std::vector<double> d;
    std::vector<double> D;
    std::vector<std::int64_t> S;
    std::size_t entries = 0;  ///< K

    std::size_t size() const { return entries; }
};

/// Pointers to arrays an answer is written into (null: not wanted): i, j, d
/// K values; D and S 3K.
struct AseColumns {
    std::int64_t* i = nullptr;
    std::int64_t* j = nullptr;
    double* d = nullptr;
    double* D = nullptr;
    std::int64_t* S = nullptr;
};

/// Arrays the caller owns, for AseNeighborList::find_direct: resize(rows)
/// makes every array asked for hold `rows` entries, keeping those written
/// so far (the first min(rows, before)), and returns where they are now
/// (null for the others). Called with the expected count first, then
/// larger when short, then with the count (when it differs).
class AseOutput {
public:
    virtual ~AseOutput() = default;
    virtual AseColumns resize(std::size_t rows) = 0;
};

namespace detail {
namespace ase {
struct Work;
}  // namespace ase
}  // namespace detail

/// ASE's neighbour list, kept between calls (see the top of the file).
class AseNeighborList {
public:
    /// Allocates its working memory (one allocation, empty).
    AseNeighborList();
    ~AseNeighborList();
    AseNeighborList(const AseNeighborList&) = delete;
    AseNeighborList& operator=(const AseNeighborList&) = delete;
    AseNeighborList(AseNeighborList&&) noexcept;
    AseNeighborList& operator=(AseNeighborList&&) noexcept;

    /// The entries of one system into `out` (the quantities asked for;
    /// the others emptied). Report: ok with pairs = the entries, or
    /// invalid_argument (error() says why; `out` empty), out_of_memory,
    /// too_many_boxes (over 2^32 - 2 atoms). Cost: see the top of the file.
    Report find(const AseSystem& system, const AseCutoff& cutoff, AseQuantities quantities, bool self_interaction,
                AseNeighbors& out);
    /// The same for a batch: each system listed alone, its indices offset
    /// into the batch's numbering, rows by i.
    Report find(const AseBatch& batch, const AseCutoff& cutoff, AseQuantities quantities, bool self_interaction,
                AseNeighbors& out);

    // find() in steps, for a caller that owns its arrays:
    //   if (!ase.find_direct(batch, cutoff, q, self, my_output, report)) {
    //       report = ase.list(batch, cutoff, self);       // no output yet
    //       if (report.ok()) ase.write(columns of ase.size() rows);
    //   }

    /// When every system of the batch is small (see direct_limit()) and
    /// their atoms are in order of system: the answer written through
    /// `out` (its final resize() gives the count), `report` set, true. Also
    /// true, with the report saying why, for bad input. Otherwise false,
    /// nothing written: call list(). O(n^2) per system.
    bool find_direct(const AseBatch& batch, const AseCutoff& cutoff, AseQuantities quantities, bool self_interaction,
                     AseOutput& out, Report& report);
    /// Lists every system into this object (small ones by the direct path,
    /// the others by the library's list); Report::pairs and size() are the
    /// entries. O(n + entries) per large system.
    Report list(const AseBatch& batch, const AseCutoff& cutoff, bool self_interaction);
    /// The entries of the last list() into `out` (size() rows each; null
    /// columns skipped). Reads the positions and system indices that list()
    /// was given: they must still be there, unchanged. O(entries).
    void write(const AseColumns& out) const;
    /// Entries of the last list(). O(1).
    std::size_t size() const;

    /// The direct path's limit on atoms^2 x the candidate shifts a pair
    /// (400^2 by default; four times it for calls without d, D and S).
    /// 0: every system by the library's list. Negative or NaN: taken as 0.
    double direct_limit() const;
    void set_direct_limit(double limit);
    /// The last call's systems listed by the direct path and by the
    /// library's list (empty systems by neither). O(1).
    std::size_t direct_systems() const;
    std::size_t library_systems() const;

    /// Why the last call failed; empty after a call that did not. O(1).
    const std::string& error() const;

    /// Frees the memory kept between calls (the settings stay). O(1).
    void release();

private:
    std::unique_ptr<detail::ase::Work> work_;  // null after a move (allocated again by the next call)
};

// Compiled in the library: src/ase/ase_neighbor_list.cpp.

}  // namespace broadphase
