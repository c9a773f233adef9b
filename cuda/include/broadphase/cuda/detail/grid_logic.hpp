// The per-box and per-entry logic of the CUDA backend, written once for the
// device kernels (cuda/src/pair_finder.cu) and for the host, so that the
// CPU tests (tests/cuda/grid_logic_test.cpp) run the same functions through
// a plain C++ driver and compare the pairs with brute force. No CUDA header
// is needed: BROADPHASE_HOST_DEVICE expands to __host__ __device__ only
// under nvcc. The rules the CPU grids share (validity, clamped cell
// coordinates, start flags and pair ownership, overlap) are not restated
// here: they come from broadphase/detail/box_rules.hpp, which both compile.
//
// The method (GPU Gems 3, ch. 32, extended to boxes of any size):
//
// - Cells are cubes on a multi-level grid: level l has side h * 4^l and
//   dims[l] cells per axis. Cell coordinates are clamped into the grid
//   (clamped_cell: no world bounds, far outliers fall into edge cells).
// - A box lives at the finest level where it touches at most 2 cells per
//   axis: it is a *resident* entry in each of those (at most 8) cells. The
//   top level has at most 2 cells per axis, so every box has a level.
// - A box also puts a *query* entry into every cell it touches on each
//   coarser level that holds residents; so small boxes meet big ones
//   there, and big boxes never make the cells of small ones big.
// - The boxes that reach the top level (when there are two levels or more:
//   boxes spanning a large part of the scene, slabs, infinite boxes) are
//   not put in its few big cells, where every other box would be tested
//   against all of them. Each goes into a 1-D grid along its thinnest axis
//   (level-0 cells on that axis, the whole space on the others): three
//   "top groups". Every lower box queries each group along that group's
//   axis; a top box queries the groups after its own. A thin slab then
//   meets only the boxes near its plane.
// - Each box has a *slot*: its 3-D level, or its top group. Entries are
//   sorted by a 32-bit key: (slot rank, cell, query bit).
//   Each resident is tested against the residents after it in its cell;
//   each query entry against the residents of its cell (found through run
//   starts computed by a scan).
// - A pair is reported only in its owner cell, the cell of the max of the
//   two min corners (owns_pair over each entry's start flags), so each pair
//   is reported exactly once, with no de-duplication.
//
// Pair finding is two passes over the same functions: count per entry,
// exclusive scan, then write at the scanned offsets, so the exact number of
// pairs is known before anything is written.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include <broadphase/detail/box_rules.hpp>

namespace broadphase {
namespace cuda {
namespace detail {

using broadphase::detail::clamped_cell;
using broadphase::detail::intervals_overlap;
using broadphase::detail::owns_pair;
using broadphase::detail::start_flags;
using broadphase::detail::valid_interval;

constexpr int max_levels = 8;
/// Slots: the 3-D levels below the top, then the top level's three 1-D
/// groups (or, with a single level, that level alone).
constexpr int max_slots = max_levels + 2;
constexpr int level_factor = 4;  ///< cell side ratio between levels
constexpr int flag_bits = 3;     ///< per-axis "box starts here" bits in an entry's value
/// Boxes of both sets together: the value is (index << 3) | flags.
constexpr std::uint32_t max_total_boxes = (std::uint32_t(1) << (32 - flag_bits)) - 1;
/// Largest grid per axis at level 0: the top level (<= 2 cells per axis)
/// must be reached within max_levels levels.
constexpr int max_dim = 2 << (2 * (max_levels - 1));  // 2 * 4^7 = 32768
/// Sample size for choosing the grid.
constexpr std::uint32_t sample_size = 1024;

/// One box as two 16-byte halves: lo = (minx, miny, minz, w), hi = (maxx,
/// maxy, maxz, w). In the sorted entry records lo.w holds the entry's value
/// and hi.w its key.
struct alignas(16) Half {
    float x, y, z;
    std::uint32_t w;
};
struct alignas(32) Rec {
    Half lo, hi;
};

/// The grid of one frame: chosen on the host from a sample, then passed by
/// value to every kernel.
struct GridParams {
    float origin[3];
    float inv_h[max_levels];        ///< 1 / (h * 4^l), as float
    int dims[max_levels][3];        ///< cells per axis at each level (>= 1)
    int levels;                     ///< levels of the geometry (the top one has <= 2 cells per axis)
    int shift_y, shift_z;           ///< bit offsets of the y and z coordinates in the cell field
    int cell_bits;                  ///< width of the cell field (level-0 dims)
    int slot_rank[max_slots];       ///< rank among occupied slots, -1 when a slot holds no resident
    int level_bits;                 ///< width of the rank field
    int query_bit;                  ///< 1 when query entries exist (two or more occupied slots)
    int key_bits;                   ///< total key width: the radix sort's bit range
    std::uint32_t na;               ///< two-set mode: boxes [0, na) are set A, the rest set B
    int cross;                      ///< 1: pairs only between the sets, as (index in A, index in B)
    double h;                       ///< level-0 cell side (for reports)
};

// ---- per box -----------------------------------------------------------------

/// A valid box: valid_interval on every axis (false for any NaN).
BROADPHASE_HOST_DEVICE bool box_valid(const Half& lo, const Half& hi) {
    return valid_interval(lo.x, hi.x) && valid_interval(lo.y, hi.y) && valid_interval(lo.z, hi.z);
}

/// Cell coordinate of x on an axis of `dim` cells: clamped_cell into
/// [0, dim - 1] (o is finite and inv_h > 0, see set_geometry).
BROADPHASE_HOST_DEVICE int cell_coord(float x, float o, float inv_h, int dim) {
    return clamped_cell<int>(x, o, inv_h, 0.0f, static_cast<float>(dim - 1));
}

/// The cells of a box at one level: [c0, c1] per axis.
BROADPHASE_HOST_DEVICE void box_span(const Half& lo, const Half& hi, const GridParams& p, int level, int* c0, int* c1) {
    const float ih = p.inv_h[level];
    c0[0] = cell_coord(lo.x, p.origin[0], ih, p.dims[level][0]);
    c0[1] = cell_coord(lo.y, p.origin[1], ih, p.dims[level][1]);
    c0[2] = cell_coord(lo.z, p.origin[2], ih, p.dims[level][2]);
    c1[0] = cell_coord(hi.x, p.origin[0], ih, p.dims[level][0]);
    c1[1] = cell_coord(hi.y, p.origin[1], ih, p.dims[level][1]);
    c1[2] = cell_coord(hi.z, p.origin[2], ih, p.dims[level][2]);
}

/// The finest level at which a valid box touches at most 2 cells per axis.
/// The top level has at most 2 cells per axis, so there always is one.
BROADPHASE_HOST_DEVICE int box_level(const Half& lo, const Half& hi, const GridParams& p) {
    int c0[3], c1[3];
    for (int l = 0; l + 1 < p.levels; ++l) {
        box_span(lo, hi, p, l, c0, c1);
        if (c1[0] - c0[0] <= 1 && c1[1] - c0[1] <= 1 && c1[2] - c0[2] <= 1) return l;
    }
    return p.levels - 1;
}

BROADPHASE_HOST_DEVICE std::uint32_t span_cells(const int* c0, const int* c1) {
    return static_cast<std::uint32_t>(c1[0] - c0[0] + 1) * static_cast<std::uint32_t>(c1[1] - c0[1] + 1) *
           static_cast<std::uint32_t>(c1[2] - c0[2] + 1);
}

/// Number of slots: one per level with a single level; else the levels
/// below the top, plus three top groups.
BROADPHASE_HOST_DEVICE int slot_count(const GridParams& p) { return p.levels < 2 ? 1 : p.levels + 2; }

/// A valid box's slot: its level below the top; at the top (two levels or
/// more), top + its thinnest axis in level-0 cells (ties: the lower axis).
BROADPHASE_HOST_DEVICE int box_slot(const Half& lo, const Half& hi, const GridParams& p) {
    const int level = box_level(lo, hi, p);
    const int top = p.levels - 1;
    if (p.levels < 2 || level < top) return level;
    int c0[3], c1[3];
    box_span(lo, hi, p, 0, c0, c1);
    int g = 0;
    for (int k = 1; k < 3; ++k)
        if (c1[k] - c0[k] < c1[g] - c0[g]) g = k;
    return top + g;
}

/// Entries a box in slot `slot` makes: its resident cells; a query entry
/// per cell it touches on every coarser 3-D level that holds residents;
/// and, for every occupied top group it queries, one per level-0 cell it
/// touches on that group's axis. `occupied`: bit s set when slot s holds
/// residents.
BROADPHASE_HOST_DEVICE std::uint32_t count_entries(const Half& lo, const Half& hi, int slot, const GridParams& p,
                                              std::uint32_t occupied) {
    int c0[3], c1[3];
    const int top = p.levels - 1;
    std::uint32_t n = 0;
    int first_group = 0;
    if (p.levels < 2 || slot < top) {
        box_span(lo, hi, p, slot, c0, c1);
        n = span_cells(c0, c1);
        for (int l = slot + 1; l < top; ++l) {
            if (!((occupied >> l) & 1u)) continue;
            box_span(lo, hi, p, l, c0, c1);
            n += span_cells(c0, c1);
        }
    } else {
        first_group = slot - top + 1;
    }
    if (p.levels >= 2) {
        box_span(lo, hi, p, 0, c0, c1);
        if (slot >= top) n += static_cast<std::uint32_t>(c1[slot - top] - c0[slot - top] + 1);
        for (int g = first_group; g < 3; ++g)
            if ((occupied >> (top + g)) & 1u) n += static_cast<std::uint32_t>(c1[g] - c0[g] + 1);
    }
    return n;
}

/// The key of a cell: (rank, z, y, x), then the query bit.
BROADPHASE_HOST_DEVICE std::uint32_t cell_key(const GridParams& p, int slot, int x, int y, int z, std::uint32_t query) {
    const std::uint32_t cell = static_cast<std::uint32_t>(x) | (static_cast<std::uint32_t>(y) << p.shift_y) |
                               (static_cast<std::uint32_t>(z) << p.shift_z);
    const std::uint32_t ranked = p.level_bits > 0
                                     ? (static_cast<std::uint32_t>(p.slot_rank[slot]) << p.cell_bits) | cell
                                     : cell;
    return p.query_bit ? (ranked << 1) | query : ranked;
}

/// Writes the entries of box `index` (count_entries of them; the occupied
/// slots are those with a rank, see finish_key_layout) to keys[] and
/// values[]: value = (index << 3) | flags, flag bit k set when the box's
/// min lies in this cell on axis k (always set on the axes a 1-D group
/// does not grid).
BROADPHASE_HOST_DEVICE void write_entries(const Half& lo, const Half& hi, std::uint32_t index, int slot,
                                     const GridParams& p, std::uint32_t* keys, std::uint32_t* values) {
    std::uint32_t at = 0;
    int c0[3], c1[3];
    const int top = p.levels - 1;
    int first_group = 0;
    if (p.levels < 2 || slot < top) {
        const int last = p.levels < 2 ? 1 : top;
        for (int l = slot; l < last && l < max_levels; ++l) {
            if (l > slot && p.slot_rank[l] < 0) continue;
            box_span(lo, hi, p, l, c0, c1);
            const std::uint32_t query = l > slot ? 1u : 0u;
            for (int z = c0[2]; z <= c1[2]; ++z)
                for (int y = c0[1]; y <= c1[1]; ++y)
                    for (int x = c0[0]; x <= c1[0]; ++x) {
                        const std::uint32_t flags = start_flags(x == c0[0], y == c0[1], z == c0[2]);
                        keys[at] = cell_key(p, l, x, y, z, query);
                        values[at] = (index << flag_bits) | flags;
                        ++at;
                    }
        }
    } else {
        first_group = slot - top + 1;
    }
    if (p.levels < 2) return;
    box_span(lo, hi, p, 0, c0, c1);
    for (int g = slot >= top ? slot - top : 0; g < 3; ++g) {
        const bool own = slot >= top && g == slot - top;
        if (!own && (g < first_group || p.slot_rank[top + g] < 0)) continue;
        const std::uint32_t query = own ? 0u : 1u;
        for (int c = c0[g]; c <= c1[g]; ++c) {
            // A 1-D group grids one axis: on the others every box starts in its cell.
            const bool first = c == c0[g];
            keys[at] = cell_key(p, top + g, g == 0 ? c : 0, g == 1 ? c : 0, g == 2 ? c : 0, query);
            values[at] = (index << flag_bits) | start_flags(g != 0 || first, g != 1 || first, g != 2 || first);
            ++at;
        }
    }
}

// ---- per entry ---------------------------------------------------------------

/// Where pairs go: pair t is (a[t * stride], b[t * stride]); only t < limit
/// is written. stride 2 with b = a + 1 writes broadphase::Pair records.
struct PairOut {
    std::uint32_t* a;
    std::uint32_t* b;
    std::uint32_t stride;
    std::uint64_t limit;
};

BROADPHASE_HOST_DEVICE bool overlap(const Rec& r, const Rec& s) {
    return intervals_overlap(r.lo.x, r.hi.x, s.lo.x, s.hi.x) && intervals_overlap(r.lo.y, r.hi.y, s.lo.y, s.hi.y) &&
           intervals_overlap(r.lo.z, r.hi.z, s.lo.z, s.hi.z);
}

/// Tests entry records r and s sharing a cell; counts (and writes, with an
/// output) the pair if it is owned here, crosses the sets in two-set mode,
/// and overlaps.
BROADPHASE_HOST_DEVICE void test_pair(const Rec& r, const Rec& s, const GridParams& p, std::uint32_t& count,
                                 const PairOut* out, std::uint64_t base) {
    const std::uint32_t vr = r.lo.w, vs = s.lo.w;
    if (!owns_pair(vr, vs, 7u)) return;
    const std::uint32_t ir = vr >> flag_bits, is = vs >> flag_bits;
    std::uint32_t a, b;
    if (p.cross) {
        const bool ra = ir < p.na, sa = is < p.na;
        if (ra == sa) return;
        a = ra ? ir : is;
        b = (ra ? is : ir) - p.na;
    } else {
        a = ir < is ? ir : is;
        b = ir < is ? is : ir;
    }
    if (!overlap(r, s)) return;
    if (out) {
        const std::uint64_t t = base + count;
        if (t < out->limit) {
            out->a[t * out->stride] = a;
            out->b[t * out->stride] = b;
        }
    }
    ++count;
}

/// The pairs entry i of the sorted records finds: a resident against the
/// residents after it in its cell, a query entry against the residents of
/// its cell. run_excl[i] is the number of key runs starting before i and
/// run_start[r] where run r starts (needed only with query entries).
/// Returns the count; with `out`, also writes them from position `base`.
BROADPHASE_HOST_DEVICE std::uint32_t entry_pairs(const Rec* recs, std::uint32_t m, std::uint32_t i,
                                            const std::uint64_t* run_excl, const std::uint32_t* run_start,
                                            const GridParams& p, const PairOut* out, std::uint64_t base) {
    const Rec r = recs[i];
    const std::uint32_t key = r.hi.w;
    std::uint32_t count = 0;
    if (p.query_bit && (key & 1u)) {
        const std::uint32_t head = (i == 0 || recs[i - 1].hi.w != key) ? 1u : 0u;
        const std::uint32_t run = static_cast<std::uint32_t>(run_excl[i]) + head - 1;
        if (run == 0) return 0;
        const std::uint32_t qs = run_start[run], rs = run_start[run - 1];
        if (recs[rs].hi.w != (key ^ 1u)) return 0;  // no residents in this cell
        for (std::uint32_t j = rs; j < qs; ++j) test_pair(r, recs[j], p, count, out, base);
    } else {
        for (std::uint32_t j = i + 1; j < m; ++j) {
            const Rec s = recs[j];
            if (s.hi.w != key) break;
            test_pair(r, s, p, count, out, base);
        }
    }
    return count;
}

/// Position in the boxes of sample element t of m (n boxes).
BROADPHASE_HOST_DEVICE std::uint32_t sample_index(std::uint32_t t, std::uint32_t m, std::uint32_t n) {
    return static_cast<std::uint32_t>(static_cast<std::uint64_t>(t) * n / m);
}

/// The occupied-slot mask count_entries takes: bit s set when slot s
/// holds residents.
BROADPHASE_HOST_DEVICE std::uint32_t occupied_slots(const GridParams& p, const std::uint32_t* residents_per_slot) {
    std::uint32_t mask = 0;
    for (int s = 0; s < slot_count(p); ++s)
        if (residents_per_slot[s] > 0) mask |= 1u << s;
    return mask;
}

// ---- host: choosing the grid ------------------------------------------------

inline int ceil_log2(std::uint64_t v) {
    int b = 0;
    while ((std::uint64_t(1) << b) < v) ++b;
    return b;
}

/// Sets dims, levels and the cell-field layout for level-0 side h and origin
/// already in p. Returns the worst-case key width (every level occupied).
inline int set_geometry(GridParams& p, const double* lo, const double* hi, double h) {
    const float flt_max = std::numeric_limits<float>::max();
    int g0[3];
    for (int k = 0; k < 3; ++k) {
        double o = lo[k] - h;
        o = std::min(std::max(o, -double(flt_max) / 2), double(flt_max) / 2);
        p.origin[k] = static_cast<float>(o);
        const double cells = std::ceil((hi[k] - lo[k]) / h) + 3;
        g0[k] = cells > double(max_dim) ? max_dim + 1 : static_cast<int>(cells);
    }
    int levels = 1;
    for (;;) {
        bool top = true;
        std::int64_t div = std::int64_t(1) << (2 * (levels - 1));
        for (int k = 0; k < 3; ++k) top = top && (g0[k] + div - 1) / div <= 2;
        if (top || levels == max_levels) break;
        ++levels;
    }
    p.levels = levels;
    p.h = h;
    double scale = 1;
    for (int l = 0; l < max_levels; ++l) {
        const std::int64_t div = std::int64_t(1) << (2 * l);
        for (int k = 0; k < 3; ++k) p.dims[l][k] = static_cast<int>(std::max<std::int64_t>(1, (g0[k] + div - 1) / div));
        double ih = 1.0 / (h * scale);
        if (!(ih >= 1.2e-38)) ih = 1.2e-38;  // positive and normal: (x - o) * inv_h never NaN
        if (ih > double(flt_max)) ih = flt_max;
        p.inv_h[l] = static_cast<float>(ih);
        scale *= level_factor;
    }
    for (int s = 0; s < max_slots; ++s) p.slot_rank[s] = -1;
    const int bx = ceil_log2(static_cast<std::uint64_t>(p.dims[0][0]));
    const int by = ceil_log2(static_cast<std::uint64_t>(p.dims[0][1]));
    const int bz = ceil_log2(static_cast<std::uint64_t>(p.dims[0][2]));
    p.shift_y = bx;
    p.shift_z = bx + by;
    p.cell_bits = bx + by + bz;
    const bool fits = g0[0] <= max_dim && g0[1] <= max_dim && g0[2] <= max_dim;
    const int slots = slot_count(p);
    const int worst = p.cell_bits + ceil_log2(static_cast<std::uint64_t>(slots)) + (slots > 1 ? 1 : 0);
    return fits ? worst : 1000;
}

/// Memory choose_params reuses between calls.
struct ChooseScratch {
    std::vector<double> sizes, centre[3], tmp;
    std::vector<std::uint64_t> table_key;
    std::vector<std::uint32_t> table_count;
};

/// Quantiles q[0] <= q[1] <= ... of v, nearest rank, over every
/// `stride`-th element (copied into tmp: v's order is kept).
inline void quantiles(const std::vector<double>& v, std::vector<double>& tmp, const double* q, double* out, int nq,
                      std::size_t stride = 1) {
    if (v.empty()) {
        for (int i = 0; i < nq; ++i) out[i] = 0;
        return;
    }
    tmp.clear();
    for (std::size_t i = 0; i < v.size(); i += stride) tmp.push_back(v[i]);
    auto first = tmp.begin();
    for (int i = 0; i < nq; ++i) {
        const auto k = tmp.begin() + static_cast<std::ptrdiff_t>(q[i] * static_cast<double>(tmp.size() - 1));
        std::nth_element(first, k, tmp.end());
        out[i] = *k;
        first = k;
    }
}

/// Chooses the grid from a sample of boxes (m of the n_total boxes, evenly
/// spaced; invalid ones are ignored). force_h > 0 sets the level-0 cell
/// side instead (tests use it to force many levels and clamping).
///
/// Level-0 side: the larger of the 75th percentile of the box sizes (their
/// largest extent; so most boxes touch at most 2 cells per axis and bigger
/// ones move up a level) and the side that gives about 2 boxes per cell
/// over the sample's central volume (1st to 99th percentile of the centres;
/// boxes beyond clamp into edge cells), shrunk while a count of the sample's
/// boxes sharing cells says cells are much fuller than that (clusters).
/// Then grown, if needed, until the key fits in 32 bits.
inline GridParams choose_params(const Half* sample_lo, const Half* sample_hi, std::size_t m,
                                std::uint64_t n_total, double force_h = 0, ChooseScratch* scratch = nullptr) {
    GridParams p{};
    ChooseScratch own;
    ChooseScratch& sc = scratch ? *scratch : own;
    std::vector<double>& sizes = sc.sizes;
    std::vector<double>* centre = sc.centre;
    sizes.clear();
    for (int k = 0; k < 3; ++k) centre[k].clear();
    for (std::size_t t = 0; t < m; ++t) {
        const Half& lo = sample_lo[t];
        const Half& hi = sample_hi[t];
        if (!box_valid(lo, hi)) continue;
        const double l3[3] = {lo.x, lo.y, lo.z}, h3[3] = {hi.x, hi.y, hi.z};
        double s = 0, c[3];
        bool finite = true;
        for (int k = 0; k < 3; ++k) {
            s = std::max(s, h3[k] - l3[k]);
            c[k] = 0.5 * l3[k] + 0.5 * h3[k];
            finite = finite && std::isfinite(c[k]);
        }
        if (finite)
            for (int k = 0; k < 3; ++k) centre[k].push_back(c[k]);  // one entry per box on every axis
        if (std::isfinite(s)) sizes.push_back(s);
    }
    const std::size_t valid = sizes.size();
    const double n_valid = m ? std::max(1.0, double(n_total) * double(valid) / double(m)) : 1.0;
    double lo[3], hi[3], ext[3], max_ext = 0;
    for (int k = 0; k < 3; ++k) {
        const double q[2] = {0.01, 0.99};
        double v[2];
        quantiles(centre[k], sc.tmp, q, v, 2, 4);  // 256 of the 1,024 sampled boxes
        lo[k] = v[0];
        hi[k] = v[1];
        ext[k] = std::max(0.0, hi[k] - lo[k]);
        max_ext = std::max(max_ext, ext[k]);
    }
    const double target = 2;  // boxes per cell
    double h = force_h;
    if (!(h > 0)) {
        const double q75 = 0.75;
        double h_size = 0;
        quantiles(sizes, sc.tmp, &q75, &h_size, 1);
        double volume = 1;
        int d = 0;
        for (int k = 0; k < 3; ++k)
            if (ext[k] > 0) volume *= ext[k], ++d;
        const double h_occ = d > 0 ? std::pow(volume * target / n_valid, 1.0 / d) : 0.0;
        h = std::max(h_size, h_occ);
        // Refine on the sample: estimated boxes sharing a box's cell, from
        // the sampled boxes sharing cells (counted in a small hash table).
        constexpr std::size_t slots = 4 * sample_size;
        std::vector<std::uint64_t>& table_key = sc.table_key;
        std::vector<std::uint32_t>& table_count = sc.table_count;
        table_key.resize(slots);
        table_count.resize(slots);
        const std::size_t mc = centre[0].size();
        for (int iter = 0; iter < 4 && h > h_size && h > 0 && mc >= 16; ++iter) {
            std::fill(table_count.begin(), table_count.end(), 0u);
            double same = 0;  // ordered pairs of sampled boxes sharing a cell
            for (std::size_t t = 0; t < mc; ++t) {
                std::uint64_t key = 0;
                for (int k = 0; k < 3; ++k) {
                    double c = std::floor((centre[k][t] - lo[k]) / h);
                    c = std::min(std::max(c, -1e6), 1e6);
                    key = key * 2097152u + static_cast<std::uint64_t>(c + 1e6);
                }
                std::size_t slot = static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> 52) & (slots - 1);
                while (table_count[slot] && table_key[slot] != key) slot = (slot + 1) & (slots - 1);
                table_key[slot] = key;
                same += 2.0 * table_count[slot]++;
            }
            const double mm = double(mc);
            const double occupancy = 1 + same / mm * (n_valid - 1) / (mm - 1);
            if (occupancy <= 2 * target) break;
            h = std::max(h_size, h / std::min(std::cbrt(occupancy / target), 8.0));
        }
    }
    if (!(h > 0) || !std::isfinite(h)) h = max_ext > 0 && std::isfinite(max_ext) ? max_ext / 64 : 1.0;
    if (!(h > 0) || !std::isfinite(h)) h = 1.0;
    if (h < 1e-30) h = 1e-30;
    while (set_geometry(p, lo, hi, h) > 32) h *= 1.25;
    return p;
}

/// Fixes the key layout once the residents per slot are known: only
/// occupied slots get a rank; query entries only exist with two or more.
inline void finish_key_layout(GridParams& p, const std::uint32_t* residents_per_slot) {
    int occupied = 0;
    for (int s = 0; s < max_slots; ++s) {
        if (s < slot_count(p) && residents_per_slot[s] > 0) p.slot_rank[s] = occupied++;
        else p.slot_rank[s] = -1;
    }
    p.level_bits = occupied > 1 ? ceil_log2(static_cast<std::uint64_t>(occupied)) : 0;
    p.query_bit = occupied > 1 ? 1 : 0;
    p.key_bits = p.cell_bits + p.level_bits + p.query_bit;
    if (p.key_bits == 0) p.key_bits = 1;
}

}  // namespace detail
}  // namespace cuda
}  // namespace broadphase
