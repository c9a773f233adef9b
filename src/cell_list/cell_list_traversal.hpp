// CellList's traversals (the class, its members' contracts and the
// per-instruction-set entry points are in cell_list.hpp, which includes this
// file at its end): the stencil's runs of bins, the tasks that scan them for
// pairs or rows, and the two calls that run those tasks. Apart from wrap,
// bin and sort (cell_list_build.hpp) so that neither file outgrows a
// reading; both are one class's members.
//
// Member functions are defined `inline` as they were when written in the
// class body (and must be: the class is not a template).
#pragma once

#include "cell_list/cell_list.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include <broadphase/pairs.hpp>
#include <broadphase/simd.hpp>
#include <broadphase/detail/cell_frame.hpp>
#include "cell_list/cell_scan.hpp"
#include <broadphase/detail/parallel.hpp>

namespace broadphase {
namespace detail {

// ---- the stencil ------------------------------------------------------------

inline void CellList::stencil_runs(std::uint32_t key, bool half, std::vector<Run>& runs) const {
    runs.clear();
    const std::uint64_t nx = bins_[0], ny = bins_[1];
    const std::int64_t c[3] = {static_cast<std::int64_t>(key % nx), static_cast<std::int64_t>((key / nx) % ny),
                               static_cast<std::int64_t>(key / (nx * ny))};
    const int mx = m_[0], my = m_[1], mz = m_[2];
    bool interior = true;  // no bin of the stencil wraps or leaves the grid: the precomputed rows
    for (int k = 0; k < 3; ++k)
        interior = interior && c[k] >= m_[k] && c[k] + m_[k] < static_cast<std::int64_t>(bins_[k]);
    if (interior) {
        Run run = still_;
        for (const Row& r : half ? half_rows_ : full_rows_) {
            run.b = start_[key + r.lo], run.e = start_[key + r.hi + 1];
            if (run.e > run.b) runs.push_back(run);
        }
        return;
    }
    for (int dz = half ? 0 : -mz; dz <= mz; ++dz) {
        int pz;
        std::int64_t bz;
        if (!wrap_bin(2, c[2] + dz, bz, pz)) continue;
        for (int dy = (half && dz == 0) ? 0 : -my; dy <= my; ++dy) {
            int py;
            std::int64_t by;
            if (!wrap_bin(1, c[1] + dy, by, py)) continue;
            const int dx0 = (half && dz == 0 && dy == 0) ? 1 : -mx;
            // Consecutive x bins with the same image form one run.
            Run cur{};
            bool open = false;
            int cur_px = 0;
            std::int64_t last_bx = -2;
            for (int dx = dx0; dx <= mx; ++dx) {
                int px;
                std::int64_t bx;
                if (!wrap_bin(0, c[0] + dx, bx, px)) continue;
                const std::uint64_t b = (static_cast<std::uint64_t>(bz) * ny + static_cast<std::uint64_t>(by)) * nx +
                                        static_cast<std::uint64_t>(bx);
                if (open && px == cur_px && bx == last_bx + 1) {
                    cur.e = start_[b + 1];
                } else {
                    if (open && cur.e > cur.b) runs.push_back(cur);
                    const int p[3] = {px, py, pz};
                    cur.b = start_[b], cur.e = start_[b + 1];
                    cur.code = pack_image(p);
                    cur.shifted = px != 0 || py != 0 || pz != 0;
                    cur.positive = px > 0 || (px == 0 && (py > 0 || (py == 0 && pz > 0)));
                    for (int k = 0; k < 3; ++k) cur.sh[k] = frame_.shift(p, k);
                    cur_px = px;
                    open = true;
                }
                last_bx = bx;
            }
            if (open && cur.e > cur.b) runs.push_back(cur);
        }
    }
}

inline void CellList::plan_stencil() {
    const std::int64_t nx = static_cast<std::int64_t>(bins_[0]), nxy = nx * static_cast<std::int64_t>(bins_[1]);
    full_rows_.clear(), half_rows_.clear();
    for (int dz = -m_[2]; dz <= m_[2]; ++dz)
        for (int dy = -m_[1]; dy <= m_[1]; ++dy) {
            const std::int64_t at = dz * nxy + dy * nx;
            full_rows_.push_back({at - m_[0], at + m_[0]});
            if (dz > 0 || (dz == 0 && dy > 0)) half_rows_.push_back({at - m_[0], at + m_[0]});
            else if (dz == 0 && dy == 0 && m_[0] > 0) half_rows_.push_back({1, m_[0]});
        }
    still_ = Run{};
    still_.code = pack_image(zero_image);
}

inline bool CellList::wrap_bin(int k, std::int64_t c, std::int64_t& b, int& p) const {
    const std::int64_t n = static_cast<std::int64_t>(bins_[k]);
    if (!frame_.periodic[k]) {
        p = 0, b = c;
        return c >= 0 && c < n;
    }
    std::int64_t q = c >= 0 ? c / n : -((-c + n - 1) / n);
    b = c - q * n;
    p = static_cast<int>(q);
    return true;
}

// ---- the tasks --------------------------------------------------------------

template <bool One>
inline ScanArgs CellList::args_for(std::size_t i) const {
    ScanArgs a{};
    a.X = pos_[0].data(), a.Y = pos_[1].data(), a.Z = pos_[2].data();
    a.R = One ? nullptr : rad_.data();
    a.ids = ids_.data();
    a.xi = pos_[0][i], a.yi = pos_[1][i], a.zi = pos_[2][i];
    a.ri = One ? radius_ : rad_[i];
    const double reach1 = (radius_ + radius_) + extra_;
    a.rr_one = reach1 * reach1;
    a.extra = extra_;
    a.lim = 0;
    a.skip = ~std::size_t(0);
    return a;
}

inline void CellList::make_tasks() {
    const std::size_t m = sum_.gridded;
    tasks_ = threads_ <= 1 ? 1 : std::min<std::size_t>(threads_ * 8, std::max<std::size_t>(m / 1024, 1));
    cut_.resize(tasks_ + 1);
    for (std::size_t t = 0; t <= tasks_; ++t) {
        std::size_t b = even_bound(m, tasks_, t);
        while (b > 0 && b < m && keys_[b] == keys_[b - 1]) ++b;
        cut_[t] = std::max(b, t ? cut_[t - 1] : 0);
    }
    if (outs_.size() < tasks_) outs_.resize(tasks_);
    if (scratch_.size() < threads_) scratch_.resize(threads_);
}

inline void CellList::PairDest::grow(std::size_t need) {
    const std::size_t c = std::max(need, cap + cap / 2 + 1024);
    if (out) {
        at = out->reserve(c, size);
    } else {
        own->resize(c);
        at = own->data();
    }
    cap = c;
}

template <class Isa, bool One>
inline void CellList::task_pairs(std::size_t t, Scratch& sc, PairDest& dest, std::uint64_t budget) {
    if constexpr (Isa::level >= SimdLevel::avx2) {
        if (clusters) return cluster_pairs<Isa, One>(t, sc, dest, budget);
    }
    dest.size = 0;
    for (std::size_t s = cut_[t]; s < cut_[t + 1];) {
        const std::uint32_t key = keys_[s];
        const std::size_t e = start_[key + 1];
        stencil_runs(key, true, sc.runs);
        std::size_t total = (e - s) + 8;  // room for a whole vector's store past the hits (cell_scan)
        for (const Run& r : sc.runs) total += (r.e - r.b) + 8;
        if (sc.cols.size() < total) sc.cols.resize(total);
        for (std::size_t i = s; i < e; ++i) {
            ScanArgs a = args_for<One>(i);
            const std::uint32_t id = ids_[i];
            std::uint32_t* w = sc.cols.data();
            a.shifted = false;
            a.sh[0] = a.sh[1] = a.sh[2] = 0;
            w += cell_scan::run<Isa, One>(a, i + 1, e, w);
            for (const Run& run : sc.runs) {
                set_run(a, run);
                w += cell_scan::run<Isa, One>(a, run.b, run.e, w);
            }
            const std::size_t got = static_cast<std::size_t>(w - sc.cols.data());
            Pair* p = dest.room(got);
            for (std::size_t q = 0; q < got; ++q) {
                const std::uint32_t b = sc.cols[q];
                p[q] = id < b ? Pair{id, b} : Pair{b, id};
            }
            dest.size += got;
        }
        if (dest.size > budget) break;
        s = e;
    }
}

template <class Isa, bool One>
inline void CellList::task_rows(std::size_t t, Scratch& sc, bool half, bool images, std::uint64_t budget) {
    if constexpr (Isa::level >= SimdLevel::avx2) {
        if (clusters) return cluster_rows<Isa, One>(t, sc, half, images, budget);
    }
    Out& o = outs_[t];
    o.size = 0;
    const std::uint32_t own_code = pack_image(zero_image);
    for (std::size_t s = cut_[t]; s < cut_[t + 1];) {
        const std::uint32_t key = keys_[s];
        const std::size_t e = start_[key + 1];
        // Full: every bin of the stencil, the own one included. Half:
        // the own bin after i, then the half stencil: each pair of
        // images once, in the row of the particle visited first.
        stencil_runs(key, half, sc.runs);
        std::size_t total = half ? (e - s) + 8 : 8;  // a whole vector's store past the hits (cell_scan)
        for (const Run& r : sc.runs) total += (r.e - r.b) + 8;
        for (std::size_t i = s; i < e; ++i) {
            ScanArgs a = args_for<One>(i);
            if (o.cols.size() < o.size + total) {
                o.cols.resize(std::max(o.cols.size() * 2, o.size + total + 1024));
                if (images) o.codes.resize(o.cols.size());
            }
            std::uint32_t* const first = o.cols.data() + o.size;
            std::uint32_t* w = first;
            if (half) {
                a.shifted = false;
                w += cell_scan::run<Isa, One>(a, i + 1, e, w);
                if (images) std::fill(o.codes.data() + o.size, o.codes.data() + o.size + (w - first), own_code);
            }
            for (const Run& run : sc.runs) {
                set_run(a, run);
                if (!half) a.skip = run.shifted ? ~std::size_t(0) : i;  // not i itself through image 0
                const std::size_t got = cell_scan::run<Isa, One>(a, run.b, run.e, w);
                if (images) {
                    std::uint32_t* c = o.codes.data() + (w - o.cols.data());
                    std::fill(c, c + got, run.code);
                }
                w += got;
            }
            const std::size_t got = static_cast<std::size_t>(w - first);
            count_[i] = static_cast<std::uint32_t>(got);
            o.size += got;
        }
        s = e;
        if (o.size > budget) {
            for (std::size_t i = s; i < cut_[t + 1]; ++i) count_[i] = 0;
            break;
        }
    }
}

// ---- the cluster tasks (AVX2, AVX-512) --------------------------------------

template <bool One>
inline void CellList::cluster_args(ClusterArgs& a, std::size_t g, int n) const {
    a.X = pos_[0].data(), a.Y = pos_[1].data(), a.Z = pos_[2].data();
    a.R = One ? nullptr : rad_.data();
    a.ids = ids_.data();
    const double reach1 = (radius_ + radius_) + extra_;
    a.rr_one = reach1 * reach1;
    a.extra = extra_;
    a.sh[0] = a.sh[1] = a.sh[2] = 0;
    for (int q = 0; q < 4; ++q) {
        const std::size_t i = g + static_cast<std::size_t>(q < n ? q : 0);
        a.pos[q] = i;
        a.xi[q] = pos_[0][i], a.yi[q] = pos_[1][i], a.zi[q] = pos_[2][i];
        a.ri[q] = One ? radius_ : rad_[i];
    }
}

/// A cluster's rows: its n particles' hits of the own bin after each (half
/// lists) and of every run, each row in the order the scans give it (the
/// own bin, then the runs in order, candidates in sorted order), so the
/// rows are the scans' rows. rows[q] has room for `room` entries; codes
/// (null without images) gets each entry's packed image.
template <class Isa, bool One>
inline void CellList::cluster_scan(ClusterArgs& a, int n, std::size_t e, bool half, const std::vector<Run>& runs,
                                   std::uint32_t** rows, std::uint32_t** codes) const {
    std::uint32_t* w[4] = {rows[0], rows[1], rows[2], rows[3]};
    if (half) {
        cell_cluster::run<Isa, One, cell_cluster::after>(a, n, false, a.pos[0] + 1, e, w);
        if (codes) {
            const std::uint32_t own = pack_image(zero_image);
            for (int q = 0; q < n; ++q) std::fill(codes[q], codes[q] + (w[q] - rows[q]), own);
        }
    }
    for (const Run& run : runs) {
        std::uint32_t* before[4] = {w[0], w[1], w[2], w[3]};
        a.sh[0] = run.sh[0], a.sh[1] = run.sh[1], a.sh[2] = run.sh[2];
        if (!half && !run.shifted) cell_cluster::run<Isa, One, cell_cluster::not_self>(a, n, false, run.b, run.e, w);
        else cell_cluster::run<Isa, One, cell_cluster::all>(a, n, run.shifted, run.b, run.e, w);
        if (codes)
            for (int q = 0; q < n; ++q)
                std::fill(codes[q] + (before[q] - rows[q]), codes[q] + (w[q] - rows[q]), run.code);
    }
    for (int q = 0; q < n; ++q) rows[q] = w[q];
}

/// The clusters of task t in order: up to four consecutive particles of a
/// bin against the runs of its stencil (stencil_runs). f(g, n, room, scan)
/// is called per cluster, where scan(rows, codes) writes the n rows (room
/// entries each, whole vectors stored past the hits); f returns false to
/// stop. (Clusters across the bins of an x row on sparse input, each
/// particle masked to its own stencil row, were tried: more lanes masked
/// than calls saved; measured: docs/measured-in-code.md#cell-list-and-neighbour-lists.)
template <class Isa, bool One, class F>
inline void CellList::for_each_cluster(std::size_t t, Scratch& sc, bool half, F&& f) {
    const std::size_t end = cut_[t + 1];
    ClusterArgs a;
    for (std::size_t s = cut_[t]; s < end;) {
        const std::uint32_t key = keys_[s];
        const std::size_t e = start_[key + 1];
        stencil_runs(key, half, sc.runs);
        std::size_t room = (half ? (e - s) : 0) + 8;
        for (const Run& r : sc.runs) room += (r.e - r.b) + 8;
        for (std::size_t g = s; g < e; g += 4) {
            const int n = static_cast<int>(std::min<std::size_t>(4, e - g));
            cluster_args<One>(a, g, n);
            if (!f(g, n, room, [&](std::uint32_t** rows, std::uint32_t** codes) {
                    cluster_scan<Isa, One>(a, n, e, half, sc.runs, rows, codes);
                }))
                return;
        }
        s = e;
    }
}

/// Copies n entries in steps of eight (to and from may be written and read
/// up to seven entries past n).
inline void copy_row(std::uint32_t* to, const std::uint32_t* from, std::size_t n) {
    for (std::size_t k = 0; k < n; k += 8) std::memcpy(to + k, from + k, 8 * sizeof(std::uint32_t));
}

template <class Isa, bool One>
inline void CellList::cluster_rows(std::size_t t, Scratch& sc, bool half, bool images, std::uint64_t budget) {
    Out& o = outs_[t];
    o.size = 0;
    for_each_cluster<Isa, One>(t, sc, half, [&](std::size_t g, int n, std::size_t room, auto&& scan) {
        if (sc.cols.size() < 3 * room) sc.cols.resize(3 * room);
        if (images && sc.codes.size() < 3 * room) sc.codes.resize(3 * room);
        // The first particle's row straight into the task's output, the
        // others' into scratch, copied after it.
        if (o.cols.size() < o.size + 4 * room) {
            o.cols.resize(std::max(o.cols.size() * 2, o.size + 4 * room + 1024));
            if (images) o.codes.resize(o.cols.size());
        }
        std::uint32_t* rows[4];
        std::uint32_t* codes[4];
        rows[0] = o.cols.data() + o.size;
        codes[0] = images ? o.codes.data() + o.size : nullptr;
        for (int q = 1; q < 4; ++q) {
            rows[q] = sc.cols.data() + (q - 1) * room;
            codes[q] = images ? sc.codes.data() + (q - 1) * room : nullptr;
        }
        scan(rows, images ? codes : nullptr);
        const std::size_t got0 = static_cast<std::size_t>(rows[0] - (o.cols.data() + o.size));
        count_[g] = static_cast<std::uint32_t>(got0);
        o.size += got0;
        for (int q = 1; q < n; ++q) {
            const std::uint32_t* first = sc.cols.data() + (q - 1) * room;
            const std::size_t got = static_cast<std::size_t>(rows[q] - first);
            // Eight entries a step (rows are short on sparse input, where a
            // memcpy call cost more than the copy): both sides have room
            // for whole steps past the row.
            copy_row(o.cols.data() + o.size, first, got);
            if (images) copy_row(o.codes.data() + o.size, sc.codes.data() + (q - 1) * room, got);
            count_[g + static_cast<std::size_t>(q)] = static_cast<std::uint32_t>(got);
            o.size += got;
        }
        if (o.size > budget) {  // the rest of the task: no rows
            for (std::size_t i = g + static_cast<std::size_t>(n); i < cut_[t + 1]; ++i) count_[i] = 0;
            return false;
        }
        return true;
    });
}

template <class Isa, bool One>
inline void CellList::cluster_pairs(std::size_t t, Scratch& sc, PairDest& dest, std::uint64_t budget) {
    dest.size = 0;
    for_each_cluster<Isa, One>(t, sc, true, [&](std::size_t g, int n, std::size_t room, auto&& scan) {
        if (sc.cols.size() < 4 * room) sc.cols.resize(4 * room);
        std::uint32_t* rows[4];
        for (int q = 0; q < 4; ++q) rows[q] = sc.cols.data() + q * room;
        scan(rows, nullptr);
        for (int q = 0; q < n; ++q) {
            const std::uint32_t* first = sc.cols.data() + q * room;
            const std::size_t got = static_cast<std::size_t>(rows[q] - first);
            const std::uint32_t id = ids_[g + static_cast<std::size_t>(q)];
            Pair* p = dest.room(got);
            for (std::size_t k = 0; k < got; ++k) {
                const std::uint32_t b = first[k];
                p[k] = id < b ? Pair{id, b} : Pair{b, id};
            }
            dest.size += got;
        }
        return dest.size <= budget;
    });
}

// ---- the traversals ---------------------------------------------------------

inline std::size_t CellList::traverse_pairs(PairOutput& res, std::uint64_t max_pairs, bool& exceeded) {
    exceeded = false;
    make_tasks();
    // One task writes straight into an output that grows cheaply; else
    // each task into its own kept memory, copied into the output after.
    const bool direct = tasks_ == 1 && res.direct();
    if (dests_.size() < tasks_) dests_.resize(tasks_);
    for (std::size_t t = 0; t < tasks_; ++t) {
        PairDest& d = dests_[t];
        d = PairDest{};
        if (direct) {
            d.out = &res;
            d.cap = std::max<std::size_t>(4 * sum_.gridded, 1024);
            d.at = res.reserve(d.cap, 0);
        } else {
            d.own = &outs_[t].pairs;
            d.cap = d.own->size();
            d.at = d.own->data();
        }
    }
    run_tasks(threads_, tasks_, [&](std::size_t t, unsigned th) {
        // The traversal compiled for the level's set and flattened (every
        // call beneath it inlined), so that a particle's constants stay in
        // registers across its runs: a call per run cost a fifth of the
        // time on sparse spheres.
        on_level(simd_level(), [&](auto isa) {
            using Isa = decltype(isa);
            run_flat(isa, [&] {
                if (one_) task_pairs<Isa, true>(t, scratch_[th], dests_[t], max_pairs);
                else task_pairs<Isa, false>(t, scratch_[th], dests_[t], max_pairs);
            });
        });
    });
    at_.resize(tasks_ + 1);
    at_[0] = 0;
    for (std::size_t t = 0; t < tasks_; ++t) at_[t + 1] = at_[t] + dests_[t].size;
    std::size_t total = at_[tasks_];
    if (total > max_pairs) {
        exceeded = true;
        total = static_cast<std::size_t>(max_pairs);
    }
    if (direct) {
        res.finish(total);
        return total;
    }
    Pair* to = res.reserve(total, 0);
    run_tasks(threads_, tasks_, [&](std::size_t t, unsigned) {
        if (at_[t] >= total) return;
        const std::size_t k = std::min(dests_[t].size, total - at_[t]);
        if (k) std::memcpy(to + at_[t], dests_[t].at, k * sizeof(Pair));
    });
    res.finish(total);
    return total;
}

inline void CellList::rows(bool half, bool images, std::uint64_t max_entries, bool& exceeded) {
    exceeded = false;
    make_tasks();
    count_.resize(sum_.gridded);
    run_tasks(threads_, tasks_, [&](std::size_t t, unsigned th) {
        on_level(simd_level(), [&](auto isa) {  // as traverse_pairs
            using Isa = decltype(isa);
            run_flat(isa, [&] {
                if (one_) task_rows<Isa, true>(t, scratch_[th], half, images, max_entries);
                else task_rows<Isa, false>(t, scratch_[th], half, images, max_entries);
            });
        });
    });
    std::uint64_t total = 0;
    for (std::size_t t = 0; t < tasks_; ++t) total += outs_[t].size;
    exceeded = total > max_entries;
}

}  // namespace detail
}  // namespace broadphase
