// The bodies of <broadphase/ase_neighbor_list.hpp>: AseNeighborList's
// calls, the checks of their input, and the output into AseNeighbors.
// Compiled once in the library (src/ase/ase_neighbor_list.cpp, which
// defines BROADPHASE_ASE_COMPILED: these functions are then its own, not
// inline); in the single header they are inline. (Not a template, so no
// explicit instantiation can do it as it does for the other components.)
//
// The parts, in src/ase/:
//   ase_rules.hpp           ASE's rules: the cutoff of a pair, D and d as numpy computes them, d < cutoff
//   ase_cells.hpp           the cell the library searches in; the direct path's shifts and limit
//   ase_direct_kernels.hpp  the direct path's rows, compiled for SSE2, AVX2 and AVX-512 (the SIMD part)
//   ase_direct.hpp          the direct path: the caller's arrays in one pass, or one system's entries
//   ase_library_path.hpp    the library's path: NeighborList, ASE's test again, ASE's order; the output
//   ase_work.hpp            what the object keeps between calls
//
// ASE's rounding needs no fused multiply-add: the library compiles this
// code with -ffp-contract=off (CMakeLists.txt); the single header turns
// contraction off around it with the compiler's pragma.
#pragma once

#include <broadphase/ase_neighbor_list.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <broadphase/detail/exceptions.hpp>
#include <broadphase/neighbor_list.hpp>
#include <broadphase/periodic.hpp>
#include <broadphase/simd.hpp>
#include <broadphase/spheres.hpp>
#include "simd/dispatch.hpp"  // before the pragmas below: the box kernels keep the caller's options

#if defined(BROADPHASE_ASE_COMPILED)
#define BROADPHASE_ASE_API
#else
#define BROADPHASE_ASE_API inline
#if defined(__clang__)
#pragma float_control(push)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif
#endif

#include "ase/ase_cells.hpp"
#include "ase/ase_direct.hpp"
#include "ase/ase_direct_kernels.hpp"
#include "ase/ase_library_path.hpp"
#include "ase/ase_rules.hpp"
#include "ase/ase_work.hpp"

namespace broadphase {
namespace detail {
namespace ase {

/// The checks of a call's systems, and w.S, w.cells, w.pbc for it: false
/// with w.error set (and the status) for bad input. O(n + systems).
inline bool take_systems(Work& w, const AseBatch& b, Status& status) {
    status = Status::invalid_argument;
    if (b.n > max_boxes) {
        w.error = "too many atoms: at most " + std::to_string(max_boxes);
        status = Status::too_many_boxes;
        return false;
    }
    if (b.n && !b.positions) return w.error = "the positions are null", false;
    for (std::size_t g = 0; g < 3 * b.n; ++g)
        if (!std::isfinite(b.positions[g])) return w.error = "positions must be finite; atom " + std::to_string(g / 3) + " is not", false;
    Systems& S = w.S;
    S = Systems{};
    S.n = b.n, S.x = b.positions, S.sys = b.system_index;
    S.count = b.system_index ? b.systems : 1;
    // Without system indices: one system, the first cell (zeros and no
    // periodic axis when there is none).
    const bool given = S.count <= b.systems;
    const double* cells = given ? b.cells : nullptr;
    const bool* pbc = given ? b.pbc : nullptr;
    w.cells.resize(S.count);
    w.pbc.resize(S.count);
    for (std::size_t s = 0; s < S.count; ++s) {
        for (int r = 0; r < 3; ++r)
            for (int k = 0; k < 3; ++k) {
                const double v = cells ? cells[9 * s + 3 * static_cast<std::size_t>(r) + static_cast<std::size_t>(k)] : 0.0;
                if (!std::isfinite(v)) return w.error = b.system_index ? "cells must be finite" : "cell must be finite", false;
                w.cells[s][r][k] = v;
            }
        for (int k = 0; k < 3; ++k) w.pbc[s][k] = pbc ? pbc[3 * s + static_cast<std::size_t>(k)] : false;
    }
    S.cells = w.cells.data(), S.pbc = w.pbc.data();
    if (S.sys) {
        for (std::size_t g = 0; g < S.n; ++g) {
            const std::int64_t v = S.sys[g];
            if (v < 0 || static_cast<std::uint64_t>(v) >= S.count)
                return w.error = "system_index must be in [0, " + std::to_string(S.count) + "); atom " + std::to_string(g) +
                                 " has " + std::to_string(v),
                       false;
            if (g && v < S.sys[g - 1]) S.contiguous = false;
        }
    }
    return true;
}

/// The checks of a call's input (take_systems, check_cutoff), w.error
/// cleared or set. O(n + systems).
inline bool take_call(Work& w, const AseBatch& b, const AseCutoff& cutoff, Report& report) {
    w.error.clear();
    w.last_direct = w.last_library = 0;
    report = Report{};
    Status status = Status::ok;
    if (!take_systems(w, b, status)) {
        report.status = status;
        return false;
    }
    if (!check_cutoff(cutoff, b.n, w.cut, w.error)) {
        report.status = Status::invalid_argument;
        return false;
    }
    return true;
}

/// AseNeighbors as an AseOutput: the vectors asked for resized, the others
/// emptied.
class VectorOutput final : public AseOutput {
public:
    VectorOutput(AseNeighbors& out, const AseQuantities& q) : out_(out), q_(q) {
        if (!q.i) out.i.clear();
        if (!q.j) out.j.clear();
        if (!q.d) out.d.clear();
        if (!q.D) out.D.clear();
        if (!q.S) out.S.clear();
        out.entries = 0;
    }
    AseColumns resize(std::size_t rows) override {
        AseColumns c;
        if (q_.i) out_.i.resize(rows), c.i = out_.i.data();
        if (q_.j) out_.j.resize(rows), c.j = out_.j.data();
        if (q_.d) out_.d.resize(rows), c.d = out_.d.data();
        if (q_.D) out_.D.resize(3 * rows), c.D = out_.D.data();
        if (q_.S) out_.S.resize(3 * rows), c.S = out_.S.data();
        out_.entries = rows;
        return c;
    }

private:
    AseNeighbors& out_;
    AseQuantities q_;
};

}  // namespace ase
}  // namespace detail

BROADPHASE_ASE_API AseNeighborList::AseNeighborList() : work_(std::make_unique<detail::ase::Work>()) {}
BROADPHASE_ASE_API AseNeighborList::~AseNeighborList() = default;
BROADPHASE_ASE_API AseNeighborList::AseNeighborList(AseNeighborList&&) noexcept = default;
BROADPHASE_ASE_API AseNeighborList& AseNeighborList::operator=(AseNeighborList&&) noexcept = default;

BROADPHASE_ASE_API Report AseNeighborList::find(const AseSystem& system, const AseCutoff& cutoff,
                                                AseQuantities quantities, bool self_interaction, AseNeighbors& out) {
    return find(AseBatch::of(system), cutoff, quantities, self_interaction, out);
}

BROADPHASE_ASE_API Report AseNeighborList::find(const AseBatch& batch, const AseCutoff& cutoff,
                                                AseQuantities quantities, bool self_interaction, AseNeighbors& out) {
    detail::ase::VectorOutput vectors(out, quantities);
    Report report;
    if (find_direct(batch, cutoff, quantities, self_interaction, vectors, report)) {
        if (!report.ok()) vectors.resize(0);
        return report;
    }
    report = list(batch, cutoff, self_interaction);
    if (!report.ok()) {
        vectors.resize(0);
        return report;
    }
    detail::on_throw<std::bad_alloc>([&] { write(vectors.resize(size())); },
                                     [&] {
                                         vectors.resize(0);
                                         report.status = Status::out_of_memory;
                                         report.pairs = 0;
                                     });
    return report;
}

BROADPHASE_ASE_API bool AseNeighborList::find_direct(const AseBatch& batch, const AseCutoff& cutoff,
                                                     AseQuantities quantities, bool self_interaction, AseOutput& out,
                                                     Report& report) {
    if (!work_) work_ = std::make_unique<detail::ase::Work>();
    detail::ase::Work& w = *work_;
    w.listed = 0;
    if (!detail::ase::take_call(w, batch, cutoff, report)) return true;
    if (batch.n == 0) return false;
    std::size_t entries = 0;
    bool out_of_memory = false;
    const bool found = detail::on_throw<std::bad_alloc>(
        [&] { return detail::ase::small_direct(w, cutoff, quantities, self_interaction, out, entries); },
        [&] {
            w.error = "out of memory";
            report.status = Status::out_of_memory;
            out_of_memory = true;
            return true;
        });
    if (!found) return false;
    if (!out_of_memory) report.pairs = entries;
    return true;
}

BROADPHASE_ASE_API Report AseNeighborList::list(const AseBatch& batch, const AseCutoff& cutoff, bool self_interaction) {
    if (!work_) work_ = std::make_unique<detail::ase::Work>();
    detail::ase::Work& w = *work_;
    w.listed = 0;
    Report report;
    if (!detail::ase::take_call(w, batch, cutoff, report)) return report;
    detail::on_throw<std::bad_alloc>(
        [&] {
            detail::ase::element_table(cutoff, batch.n, w.cut);
            report.status = detail::ase::list_systems(w, self_interaction);
        },
        [&] {
            w.error = "out of memory";
            report.status = Status::out_of_memory;
        });
    if (report.status != Status::ok) {
        w.listed = 0;
        w.entries.clear();
        std::fill(w.row_n.begin(), w.row_n.end(), 0u);
        return report;
    }
    report.pairs = w.listed;
    return report;
}

BROADPHASE_ASE_API void AseNeighborList::write(const AseColumns& out) const {
    if (work_ && work_->listed) detail::ase::write_entries(*work_, out);
}

BROADPHASE_ASE_API std::size_t AseNeighborList::size() const { return work_ ? work_->listed : 0; }

BROADPHASE_ASE_API double AseNeighborList::direct_limit() const {
    return work_ ? work_->small_limit : detail::ase::default_small_limit;
}

BROADPHASE_ASE_API void AseNeighborList::set_direct_limit(double limit) {
    if (!work_) work_ = std::make_unique<detail::ase::Work>();
    work_->small_limit = limit >= 0 ? limit : 0.0;
}

BROADPHASE_ASE_API std::size_t AseNeighborList::direct_systems() const { return work_ ? work_->last_direct : 0; }
BROADPHASE_ASE_API std::size_t AseNeighborList::library_systems() const { return work_ ? work_->last_library : 0; }

BROADPHASE_ASE_API const std::string& AseNeighborList::error() const {
    static const std::string none;
    return work_ ? work_->error : none;
}

BROADPHASE_ASE_API void AseNeighborList::release() {
    if (work_) work_->release();
}

}  // namespace broadphase

#if !defined(BROADPHASE_ASE_COMPILED)
#if defined(__clang__)
#pragma float_control(pop)
#elif defined(__GNUC__)
#pragma GCC pop_options
#endif
#endif
#undef BROADPHASE_ASE_API
