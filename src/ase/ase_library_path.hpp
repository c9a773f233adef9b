// The library's path for larger systems: the library's full NeighborList
// with shifts, searched at the cutoff plus a small margin (so that it holds
// every entry ASE can keep whatever the rounding), then each entry's D and
// d computed again exactly as numpy does and kept iff d < cutoff, so that
// ties at the cutoff round as ASE's do.
//
// The order: rows by i (as ASE's), each row by (j, S) lexicographically.
// Rows by j come free: the list is read row by row of the library's list,
// whose row r holds (r, c, S'), i.e. the entries (c, r, -S') of row c;
// placing them in row c in the order the rows r are read sorts each row by
// j; the few entries with the same (i, j) (small cells: several images of
// one atom) are then sorted by S.
//
// list_systems lists every system of a call into Work::entries (small ones
// by the direct path, ase_direct.hpp), write_entries writes them out.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>

#include <broadphase/ase_neighbor_list.hpp>
#include <broadphase/detail/exceptions.hpp>
#include <broadphase/neighbor_list.hpp>
#include <broadphase/spheres.hpp>
#include "ase/ase_cells.hpp"
#include "ase/ase_direct.hpp"
#include "ase/ase_rules.hpp"
#include "ase/ase_work.hpp"

namespace broadphase {
namespace detail {
namespace ase {

/// One system's entries into w.entries, from the library's full list (off,
/// col, sh). Library entry e in row r is (r, c, S'): ours is (c, r, -S'),
/// placed in row c. Rows are read in order r = 0, 1, ..., so each row of
/// ours comes out sorted by j; row c has room for the library's row c
/// (the same length: the full list holds (c, r, S) iff it holds (r, c,
/// -S)) and one more for (c, c, 0) with self_interaction.
template <CutKind kind>
void place_as(Work& w, const double* x, const std::uint32_t* glob, std::size_t n, const Mat3& h,
              const std::array<bool, 3>& open, bool self_interaction, const std::uint64_t* off, const std::uint32_t* col,
              const std::int32_t* sh) {
    const Cutoffs& cut = w.cut;
    const std::size_t K = static_cast<std::size_t>(off[n]);
    const std::size_t base = w.entries.size();
    w.entries.resize(base + K + n);
    Entry* out = w.entries.data() + base;
    std::uint32_t* count = (w.count.assign(n, 0), w.count.data());
    std::uint32_t* last = (w.last_j.assign(n, ~std::uint32_t(0)), w.last_j.data());
    bool repeat = false;
    const bool any_open = open[0] || open[1] || open[2];
    for (std::size_t r = 0; r < n; ++r) {
        const double* xr = x + 3 * r;
        const std::uint32_t gr = glob[r];
        if (self_interaction && 0.0 < cut_of<kind>(cut, gr, gr)) {
            Entry& en = out[off[r] + r + count[r]++];
            en.j = gr, en.s[0] = en.s[1] = en.s[2] = 0;
            last[r] = static_cast<std::uint32_t>(r);
        }
        for (std::uint64_t e = off[r]; e < off[r + 1]; ++e) {
            const std::uint32_t c = col[e];
            const std::int32_t s0 = -sh[3 * e], s1 = -sh[3 * e + 1], s2 = -sh[3 * e + 2];
            const bool zero = !(s0 | s1 | s2);
            if (any_open && ((open[0] && s0) || (open[1] && s1) || (open[2] && s2))) continue;
            if (zero && c == r) continue;  // (i, i, 0): never the library's
            const double* xc = x + 3 * static_cast<std::size_t>(c);
            double D0, D1, D2;
            if (zero) {  // S h = 0 exactly: D = x_j - x_i (+ 0)
                D0 = xr[0] - xc[0], D1 = xr[1] - xc[1], D2 = xr[2] - xc[2];
            } else {
                const std::int32_t S3[3] = {s0, s1, s2};
                double D[3];
                ase_vector(xc, xr, S3, h, D);
                D0 = D[0], D1 = D[1], D2 = D[2];
            }
            const double d2 = (D0 * D0 + D1 * D1) + D2 * D2;
            if (!within(d2, cut_of<kind>(cut, glob[c], gr))) continue;
            const std::uint64_t room = off[c + 1] - off[c] + (self_interaction ? 1 : 0);
            if (count[c] >= room) detail::throw_or_abort(std::logic_error("neighbor_list: the library's full list is not symmetric"));
            Entry& en = out[off[c] + c + count[c]++];
            en.j = gr, en.s[0] = s0, en.s[1] = s1, en.s[2] = s2;
            repeat |= last[c] == r;
            last[c] = static_cast<std::uint32_t>(r);
        }
    }
    for (std::size_t i = 0; i < n; ++i) {
        w.row_at[glob[i]] = base + off[i] + i;
        w.row_n[glob[i]] = count[i];
    }
    if (!repeat) return;
    // Entries with the same (i, j) (images of one atom) are consecutive:
    // sort them by S.
    for (std::size_t i = 0; i < n; ++i) {
        Entry* b = out + off[i] + i;
        Entry* e = b + count[i];
        while (b < e) {
            Entry* g = b + 1;
            while (g < e && g->j == b->j) ++g;
            if (g - b > 1)
                std::sort(b, g, [](const Entry& p, const Entry& q) { return std::lexicographical_compare(p.s, p.s + 3, q.s, q.s + 3); });
            b = g;
        }
    }
}

inline void place(Work& w, const double* x, const std::uint32_t* glob, std::size_t n, const Mat3& h,
                  const std::array<bool, 3>& open, bool self_interaction, const std::uint64_t* off,
                  const std::uint32_t* col, const std::int32_t* sh) {
    switch (w.cut.kind) {
        case CutKind::scalar: place_as<CutKind::scalar>(w, x, glob, n, h, open, self_interaction, off, col, sh); break;
        case CutKind::per_atom: place_as<CutKind::per_atom>(w, x, glob, n, h, open, self_interaction, off, col, sh); break;
        case CutKind::pairs: place_as<CutKind::pairs>(w, x, glob, n, h, open, self_interaction, off, col, sh); break;
    }
}

/// Lists every system of w.S into w.entries / row_at / row_n (global
/// numbering): Status::ok, or the failure (w.error says why). w.cut with
/// its element table.
inline Status list_systems(Work& w, bool self_interaction) {
    const Systems& S = w.S;
    const Cutoffs& cut = w.cut;
    const std::size_t N = S.n;
    w.row_at.assign(N, 0);
    w.row_n.assign(N, 0);
    w.entries.clear();
    // Systems as atom ranges (contiguous) or through by_system.
    if (S.sys) {
        w.system_at.assign(S.count + 1, 0);
        for (std::size_t g = 0; g < N; ++g) ++w.system_at[static_cast<std::size_t>(S.sys[g]) + 1];
        for (std::size_t s = 0; s < S.count; ++s) w.system_at[s + 1] += w.system_at[s];
        if (!S.contiguous) {
            w.by_system.resize(N);
            w.system_fill.assign(w.system_at.begin(), w.system_at.end() - 1);
            for (std::size_t g = 0; g < N; ++g)
                w.by_system[w.system_fill[static_cast<std::size_t>(S.sys[g])]++] = static_cast<std::uint32_t>(g);
        }
    } else {
        w.system_at.assign({0, static_cast<std::uint64_t>(N)});
    }
    // The search margin: far above the rounding of either computation of D.
    double mag = 1 + cut.max_cut;
    for (std::size_t g = 0; g < 3 * N; ++g) mag = std::max(mag, std::fabs(S.x[g]));
    for (std::size_t s = 0; s < S.count; ++s)
        for (int r = 0; r < 3; ++r)
            for (int k = 0; k < 3; ++k) mag = std::max(mag, std::fabs(S.cells[s][r][k]));
    const double margin = margin_of(mag);  // about 4e-9 of the largest magnitude

    for (std::size_t s = 0; s < S.count; ++s) {
        const std::size_t a0 = static_cast<std::size_t>(w.system_at[s]), a1 = static_cast<std::size_t>(w.system_at[s + 1]);
        const std::size_t n = a1 - a0;
        if (n == 0) continue;
        // The system's positions and global ids.
        const double* x;
        w.glob.resize(n);
        if (S.sys && !S.contiguous) {
            w.gathered_x.resize(3 * n);
            for (std::size_t k = 0; k < n; ++k) {
                const std::uint32_t g = w.by_system[a0 + k];
                w.glob[k] = g;
                std::memcpy(&w.gathered_x[3 * k], S.x + 3 * static_cast<std::size_t>(g), 3 * sizeof(double));
            }
            x = w.gathered_x.data();
        } else {
            for (std::size_t k = 0; k < n; ++k) w.glob[k] = static_cast<std::uint32_t>(a0 + k);
            x = S.x + 3 * a0;
        }
        const std::uint32_t* glob = w.glob.data();
        const Mat3& h = S.cells[s];
        if (small_entries(w, x, glob, n, h, S.pbc[s], margin, self_interaction)) {
            ++w.last_direct;
            continue;
        }
        ++w.last_library;
        // Search radii.
        SphereView<double> view;
        double max_r = 0;
        if (cut.kind == CutKind::scalar) {
            view = sphere_rows<double>(x, 0.5 * cut.c, n);
            max_r = 0.5 * cut.c;
        } else {
            w.radii.resize(n);
            for (std::size_t k = 0; k < n; ++k) w.radii[k] = cut.radius(glob[k]), max_r = std::max(max_r, w.radii[k]);
            view = sphere_rows<double>(x, w.radii.data(), n);
        }
        SearchCell sc;
        if (!search_cell(h, S.pbc[s], x, n, 2 * max_r + margin, S.sys ? static_cast<long>(s) : -1, sc, w.error))
            return Status::invalid_argument;
        const std::string problem = sc.cell.problem();
        if (!problem.empty()) {
            w.error = "NeighborList: " + problem;
            return Status::invalid_argument;
        }
        // The list, made (again) when the margin changes.
        if (!w.list || w.margin != margin) {
            NeighborListOptions o;
            o.cutoff = margin, o.skin = 0, o.full = true, o.shifts = true;
            w.list = std::make_unique<NeighborList>(o, PeriodicCell{});
            w.margin = margin;
        }
        NeighborList& list = *w.list;
        list.set_cell(sc.cell);
        const Report rep = list.build(view);
        if (!rep.ok()) {
            w.error = (S.sys ? "system " + std::to_string(s) + ": " : std::string()) + "the neighbour list failed: " +
                      std::string(to_string(rep.status));
            return rep.status;
        }
        place(w, x, glob, n, h, sc.open, self_interaction, list.offsets().data(), list.indices().data(),
              list.shifts().data());
    }
    w.listed = 0;
    for (std::size_t i = 0; i < N; ++i) w.listed += w.row_n[i];
    return Status::ok;
}

/// The entries of list_systems into `out` (w.listed rows; null columns
/// skipped), rows in global i order, D and d computed again as ASE does.
inline void write_entries(const Work& w, const AseColumns& out) {
    const Systems& S = w.S;
    const std::size_t N = S.n;
    std::int64_t* pi = out.i;
    std::int64_t* pj = out.j;
    double* pd = out.d;
    double* pD = out.D;
    std::int64_t* pS = out.S;
    const bool vec = pd || pD;
    std::size_t p = 0;
    const Entry* en = w.entries.data();
    for (std::size_t i = 0; i < N; ++i) {
        const std::size_t b = static_cast<std::size_t>(w.row_at[i]), c = w.row_n[i];
        const Mat3& h = S.cells[S.sys ? static_cast<std::size_t>(S.sys[i]) : 0];
        const double* xi = S.x + 3 * i;
        for (std::size_t q = b; q < b + c; ++q, ++p) {
            const Entry& e = en[q];
            if (pi) pi[p] = static_cast<std::int64_t>(i);
            if (pj) pj[p] = e.j;
            if (pS) pS[3 * p] = e.s[0], pS[3 * p + 1] = e.s[1], pS[3 * p + 2] = e.s[2];
            if (vec) {
                double D[3];
                const double* xj = S.x + 3 * static_cast<std::size_t>(e.j);
                if (!(e.s[0] | e.s[1] | e.s[2])) D[0] = xj[0] - xi[0], D[1] = xj[1] - xi[1], D[2] = xj[2] - xi[2];
                else ase_vector(xi, xj, e.s, h, D);
                if (pD) pD[3 * p] = D[0], pD[3 * p + 1] = D[1], pD[3 * p + 2] = D[2];
                if (pd) pd[p] = ase_length(D);
            }
        }
    }
}

}  // namespace ase
}  // namespace detail
}  // namespace broadphase
