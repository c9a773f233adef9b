// NeighborList (neighbor_list.hpp) and its kernel, CellList
// (src/cell_list/cell_list.hpp), against a brute-force oracle of the documented
// rule: every particle wrapped with CellFrame::wrap, every pair and every
// image P in a range wide enough for the reach (from the cell's
// perpendicular widths), D_k = (x'_jk - x'_ik) + (P h)_k, an entry iff
// (D_0^2 + D_1^2) + D_2^2 <= reach^2, reach = (r_i + r_j) + (cutoff +
// skin), reported with S = P + n_i - n_j. Full lists must equal the oracle
// (vectors bit for bit); half lists must hold each pair (and each pair of
// self images) exactly once, and doubled they must be the full list.
//
// Scenes: open, orthorhombic, mixed, LAMMPS triclinic, general cells;
// fcc lattices with exact ties; polydisperse radii; cutoffs above half the
// cell and above the cell; identical and coincident points; negative, 1e7
// offset and far outlying coordinates; particles many periods away; empty
// and one-particle input. Float and double. Threads and SIMD levels give
// the same output; the sorted option; the skin; odd input and bad
// arguments; reuse of a list.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <broadphase/threads.hpp>  // plan_threads, threads_enabled
#include <broadphase/neighbor_list.hpp>
#include <broadphase/simd.hpp>

namespace {

namespace bp = broadphase;
using bp::detail::CellFrame;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

/// xorshift64*: the same numbers on every platform.
struct Random {
    std::uint64_t s;
    explicit Random(std::uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
    std::uint64_t next() {
        s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
        return s * 0x2545F4914F6CDD1Dull;
    }
    double uniform(double lo, double hi) { return lo + (hi - lo) * static_cast<double>(next() >> 11) * 0x1p-53; }
    int integer(int lo, int hi) { return lo + static_cast<int>(next() % static_cast<std::uint64_t>(hi - lo + 1)); }
};

// ---- scenes -----------------------------------------------------------------

/// Particles in double (converted to T per test), the cell and the reach.
struct Scene {
    std::string name;
    std::vector<double> xyz;  // rows x y z
    std::vector<double> r;    // per particle; empty: points (update(xyz, n), radius 0)
    bp::PeriodicCell cell;
    double cutoff = 1, skin = 0;
    std::size_t n() const { return xyz.size() / 3; }
    void add(double x, double y, double z, double radius = -2) {
        xyz.push_back(x), xyz.push_back(y), xyz.push_back(z);
        if (radius != -2) r.push_back(radius);
    }
};

bp::PeriodicCell general_cell(std::array<double, 3> a, std::array<double, 3> b, std::array<double, 3> c) {
    bp::PeriodicCell cell;
    cell.vectors = {a, b, c};
    return cell;
}

/// n points uniform in the cell (fractional coordinates in [0, 1) on
/// periodic axes; [0, open) on open axes), each moved by up to `periods`
/// whole cell vectors either way.
std::vector<double> random_in_cell(std::size_t n, const bp::PeriodicCell& cell, std::uint64_t seed, double open = 10,
                                   int periods = 0) {
    Random rnd(seed);
    std::vector<double> xyz(3 * n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        for (int row = 0; row < 3; ++row) {
            if (!cell.periodic(row)) {
                xyz[3 * i + row] += rnd.uniform(0, open);
                continue;
            }
            const double s = rnd.uniform(0, 1) + (periods ? rnd.integer(-periods, periods) : 0);
            for (int k = 0; k < 3; ++k) xyz[3 * i + k] += s * cell.vectors[row][k];
        }
    }
    return xyz;
}

/// An fcc lattice of lattice constant a, m x m x m unit cells, from `origin`.
std::vector<double> fcc(int m, double a, double origin = 0) {
    static const double basis[4][3] = {{0, 0, 0}, {0, 0.5, 0.5}, {0.5, 0, 0.5}, {0.5, 0.5, 0}};
    std::vector<double> xyz;
    for (int z = 0; z < m; ++z)
        for (int y = 0; y < m; ++y)
            for (int x = 0; x < m; ++x)
                for (const auto& b : basis) {
                    xyz.push_back(origin + a * (x + b[0]));
                    xyz.push_back(origin + a * (y + b[1]));
                    xyz.push_back(origin + a * (z + b[2]));
                }
    return xyz;
}

// ---- particles of precision T -----------------------------------------------

template <class T>
struct Cloud {
    std::vector<T> xyz, r;  // r empty: points
    std::size_t n() const { return xyz.size() / 3; }
    bp::SphereView<T> view() const { return bp::sphere_rows<T>(xyz.data(), r.data(), n()); }
    double x(std::size_t i, int k) const { return static_cast<double>(xyz[3 * i + k]); }
};

template <class T>
Cloud<T> cloud_of(const Scene& s) {
    Cloud<T> c;
    for (double v : s.xyz) c.xyz.push_back(static_cast<T>(v));
    for (double v : s.r) c.r.push_back(static_cast<T>(v));
    return c;
}

template <class T>
const char* type_name() {
    return std::is_same<T, float>::value ? "float" : "double";
}

// ---- entries ----------------------------------------------------------------

/// One entry (i, j, S) with its vector D.
struct Rec {
    std::uint32_t i = 0, j = 0;
    std::array<std::int64_t, 3> s{};
    std::array<double, 3> d{};
    auto key() const { return std::tie(i, j, s); }
    bool operator<(const Rec& o) const { return key() < o.key(); }
    bool same_key(const Rec& o) const { return key() == o.key(); }
};

std::string show(const Rec& e) {
    std::ostringstream o;
    o.precision(17);
    o << "(" << e.i << ", " << e.j << ", S=[" << e.s[0] << " " << e.s[1] << " " << e.s[2] << "], D=[" << e.d[0] << " "
      << e.d[1] << " " << e.d[2] << "])";
    return o.str();
}

/// The same entry seen from the other particle: (j, i, -S), -D.
Rec reversed(const Rec& e) {
    Rec r = e;
    std::swap(r.i, r.j);
    for (int k = 0; k < 3; ++k) r.s[k] = -e.s[k], r.d[k] = -e.d[k];
    return r;
}

/// The form a half list's entry is compared in: i < j, or for a self image
/// (i, i, S) the larger of S and -S.
Rec canonical(const Rec& e) {
    if (e.i > e.j) return reversed(e);
    if (e.i == e.j) {
        std::array<std::int64_t, 3> neg{-e.s[0], -e.s[1], -e.s[2]};
        if (neg > e.s) return reversed(e);
    }
    return e;
}

/// The list's entries (row i as i), S and D where kept (else zero).
template <class T>
std::vector<Rec> listed(const bp::BasicNeighborList<T>& list) {
    std::vector<Rec> out;
    const auto& off = list.offsets();
    if (off.empty()) return out;
    const bool s = list.options().shifts, v = list.options().vectors;
    for (std::size_t i = 0; i + 1 < off.size(); ++i)
        for (std::uint64_t e = off[i]; e < off[i + 1]; ++e) {
            Rec r;
            r.i = static_cast<std::uint32_t>(i);
            r.j = list.indices()[e];
            for (int k = 0; k < 3; ++k) {
                if (s) r.s[k] = list.shifts()[3 * e + k];
                if (v) r.d[k] = list.vectors()[3 * e + k];
            }
            out.push_back(r);
        }
    return out;
}

std::vector<Rec> sorted(std::vector<Rec> v) {
    std::sort(v.begin(), v.end());
    return v;
}

/// Sorted canonical forms, duplicates removed.
std::vector<Rec> canonical_set(const std::vector<Rec>& v) {
    std::vector<Rec> c;
    for (const Rec& e : v) c.push_back(canonical(e));
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end(), [](const Rec& a, const Rec& b) { return a.same_key(b); }), c.end());
    return c;
}

/// Expects the same keys (and, with `vectors`, the same D bit for bit);
/// both sorted. Prints a few differences, not all of them.
void expect_same(const std::vector<Rec>& got, const std::vector<Rec>& want, bool vectors, const char* what) {
    std::vector<Rec> missing, extra;
    std::size_t a = 0, b = 0, dmis = 0;
    std::string first_d;
    while (a < got.size() || b < want.size()) {
        if (b == want.size() || (a < got.size() && got[a] < want[b])) {
            extra.push_back(got[a++]);
        } else if (a == got.size() || want[b] < got[a]) {
            missing.push_back(want[b++]);
        } else {
            if (vectors && got[a].d != want[b].d) {
                if (!dmis++) first_d = show(got[a]) + " want " + show(want[b]);
            }
            ++a, ++b;
        }
    }
    std::string m;
    for (std::size_t k = 0; k < missing.size() && k < 5; ++k) m += " " + show(missing[k]);
    std::string x;
    for (std::size_t k = 0; k < extra.size() && k < 5; ++k) x += " " + show(extra[k]);
    EXPECT_TRUE(missing.empty()) << what << ": " << missing.size() << " of " << want.size()
                                 << " oracle entries missing, e.g." << m;
    EXPECT_TRUE(extra.empty()) << what << ": " << extra.size() << " entries not in the oracle, e.g." << x;
    EXPECT_EQ(dmis, 0u) << what << ": vectors differ from the oracle's D, first " << first_d;
}

/// Expects no key twice in a sorted vector.
void expect_unique(const std::vector<Rec>& v, const char* what) {
    std::size_t dup = 0;
    std::string first;
    for (std::size_t k = 1; k < v.size(); ++k)
        if (v[k].same_key(v[k - 1]) && !dup++) first = show(v[k]);
    EXPECT_EQ(dup, 0u) << what << ": entries listed twice, first " << first;
}

// ---- the oracle ---------------------------------------------------------------

/// The rule from neighbor_list.hpp, by brute force over every image.
struct Oracle {
    CellFrame f;
    double extra = 0;
    std::size_t n = 0;
    std::vector<std::array<double, 3>> w, m;  // wrapped centre, image counts
    std::vector<double> r;
    std::vector<char> gridded;             // valid with a finite centre
    std::vector<std::uint32_t> invalid;    // NaN coordinate, radius not finite and >= 0
    int range[3] = {0, 0, 0};              // |P_k| <= range[k]
    double width[3] = {0, 0, 0};           // the cell's perpendicular widths (periodic axes)
    bool window = true;                    // false: every P in the range (OracleWindow checks it)

    template <class T>
    Oracle(const Cloud<T>& c, const bp::PeriodicCell& cell, double cutoff, double skin)
        : f(broadphase::detail::CellFrame::of(cell.vectors)), extra(cutoff + skin), n(c.n()), w(n), m(n), r(n, 0.0), gridded(n, 0) {
        double rmax = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const double x[3] = {c.x(i, 0), c.x(i, 1), c.x(i, 2)};
            r[i] = c.r.empty() ? 0.0 : static_cast<double>(c.r[i]);
            if (std::isnan(x[0]) || std::isnan(x[1]) || std::isnan(x[2]) || !(r[i] >= 0) || std::isinf(r[i])) {
                invalid.push_back(static_cast<std::uint32_t>(i));
                continue;
            }
            if (!(std::isfinite(x[0]) && std::isfinite(x[1]) && std::isfinite(x[2]))) continue;
            f.wrap(x, w[i].data(), m[i].data());
            if (!(std::isfinite(w[i][0]) && std::isfinite(w[i][1]) && std::isfinite(w[i][2]))) continue;
            gridded[i] = 1;
            rmax = std::max(rmax, r[i]);
        }
        // Wrapped fractional coordinates lie in [0, 1) up to rounding, so
        // |P_k| <= reach / width_k + 1 covers every image within reach.
        const double reach = (rmax + rmax) + extra;
        for (int k = 0; k < 3; ++k) {
            width[k] = f.periodic[k] ? f.width(k) : 0;
            range[k] = f.periodic[k] ? static_cast<int>(std::ceil(reach / width[k])) + 1 : 0;
        }
    }

    /// Row i of the full list, appended to out.
    void row(std::uint32_t i, std::vector<Rec>& out) const {
        if (!gridded[i]) return;
        int p[3];
        for (std::uint32_t j = 0; j < n; ++j) {
            if (!gridded[j]) continue;
            const double reach = (r[i] + r[j]) + extra;
            // Only to save time: an image within reach has |s_k + P_k| <=
            // reach / width_k on each periodic axis (s = (x'_j - x'_i) h^-1);
            // the window is widened far beyond any rounding, and the test
            // below decides.
            int lo[3], hi[3];
            const double dw[3] = {w[j][0] - w[i][0], w[j][1] - w[i][1], w[j][2] - w[i][2]};
            for (int k = 0; k < 3; ++k) {
                lo[k] = hi[k] = 0;
                if (!f.periodic[k]) continue;
                if (!window) {
                    lo[k] = -range[k], hi[k] = range[k];
                    continue;
                }
                const double fd = f.frac(dw, k), t = reach / width[k] + 1e-6;
                lo[k] = static_cast<int>(std::max<double>(-range[k], std::ceil(-fd - t)));
                hi[k] = static_cast<int>(std::min<double>(range[k], std::floor(-fd + t)));
            }
            for (p[0] = lo[0]; p[0] <= hi[0]; ++p[0])
                for (p[1] = lo[1]; p[1] <= hi[1]; ++p[1])
                    for (p[2] = lo[2]; p[2] <= hi[2]; ++p[2]) {
                        if (i == j && p[0] == 0 && p[1] == 0 && p[2] == 0) continue;
                        double D[3];
                        for (int k = 0; k < 3; ++k) D[k] = (w[j][k] - w[i][k]) + f.shift(p, k);
                        if (!((D[0] * D[0] + D[1] * D[1]) + D[2] * D[2] <= reach * reach)) continue;
                        Rec e;
                        e.i = i, e.j = j;
                        for (int k = 0; k < 3; ++k) {
                            e.s[k] = p[k] + static_cast<std::int64_t>(m[i][k]) - static_cast<std::int64_t>(m[j][k]);
                            e.d[k] = D[k];
                        }
                        out.push_back(e);
                    }
        }
    }

    /// The full list, sorted.
    std::vector<Rec> full() const {
        std::vector<Rec> out;
        for (std::uint32_t i = 0; i < n; ++i) row(i, out);
        return sorted(std::move(out));
    }
};

// ---- checks -------------------------------------------------------------------

template <class T>
bp::Report build(bp::BasicNeighborList<T>& list, const Cloud<T>& c) {
    return c.r.empty() ? list.build(c.xyz.data(), c.n()) : list.build(c.view());
}

/// offsets, indices, vectors and shifts of the right sizes.
template <class T>
void check_shape(const bp::BasicNeighborList<T>& list, std::size_t n) {
    const auto& off = list.offsets();
    ASSERT_EQ(off.size(), n + 1);
    EXPECT_EQ(off[0], 0u);
    for (std::size_t i = 0; i < n; ++i) ASSERT_LE(off[i], off[i + 1]) << "row " << i;
    EXPECT_EQ(off[n], list.indices().size());
    EXPECT_EQ(list.entries(), list.indices().size());
    EXPECT_EQ(list.report().pairs, list.entries());
    EXPECT_EQ(list.vectors().size(), list.options().vectors ? 3 * list.entries() : 0u);
    EXPECT_EQ(list.shifts().size(), list.options().shifts ? 3 * list.entries() : 0u);
    EXPECT_EQ(list.size(), n);
    for (std::uint32_t j : list.indices()) ASSERT_LT(j, n);
}

/// D = x_j + S h - x_i within 1e-9 of the magnitudes involved.
template <class T>
void check_vectors(const std::vector<Rec>& got, const Cloud<T>& c, const bp::PeriodicCell& cell) {
    std::size_t bad = 0;
    std::string first;
    for (const Rec& e : got) {
        for (int k = 0; k < 3; ++k) {
            const double sh = (static_cast<double>(e.s[0]) * cell.vectors[0][k] +
                               static_cast<double>(e.s[1]) * cell.vectors[1][k]) +
                              static_cast<double>(e.s[2]) * cell.vectors[2][k];
            const double want = (c.x(e.j, k) + sh) - c.x(e.i, k);
            const double scale = std::max({1.0, std::fabs(c.x(e.i, k)), std::fabs(c.x(e.j, k)), std::fabs(sh)});
            if (!(std::fabs(e.d[k] - want) <= 1e-9 * scale) && !bad++) first = show(e);
        }
    }
    EXPECT_EQ(bad, 0u) << "D is not x_j + S h - x_i, first " << first;
}

/// Rows strictly increasing in (j, S).
void expect_rows_sorted(const std::vector<Rec>& v, bool by_shift, const char* what) {
    std::size_t bad = 0;
    std::string first;
    for (std::size_t k = 1; k < v.size(); ++k) {
        if (v[k].i != v[k - 1].i) continue;
        const bool ok = by_shift ? v[k - 1] < v[k] : v[k - 1].j <= v[k].j;
        if (!ok && !bad++) first = show(v[k - 1]) + " before " + show(v[k]);
    }
    EXPECT_EQ(bad, 0u) << what << ": rows not sorted, first " << first;
}

template <class T>
bp::BasicNeighborList<T> make_list(const Scene& s, bool full, bool images, bool sorted_rows = false,
                                   unsigned threads = 0) {
    bp::NeighborListOptions o;
    o.cutoff = s.cutoff, o.skin = s.skin, o.full = full;
    o.shifts = o.vectors = images;
    o.sorted = sorted_rows;
    o.threads = threads;
    return bp::BasicNeighborList<T>(o, s.cell);
}

/// Every check of one scene in precision T: full and half lists against
/// the oracle, the half list doubled is the full list, vectors, sorted
/// rows, lists without images, the invalid particles. Returns the oracle's
/// entry count.
template <class T>
std::size_t check_scene(const Scene& s) {
    SCOPED_TRACE(s.name + " (" + type_name<T>() + ", " + std::to_string(s.n()) + " particles)");
    const Cloud<T> c = cloud_of<T>(s);
    const std::size_t n = c.n();
    const Oracle oracle(c, s.cell, s.cutoff, s.skin);
    const std::vector<Rec> want = oracle.full();

    // Full list, with shifts and vectors: the oracle exactly.
    auto full = make_list<T>(s, true, true);
    bp::Report rep = build(full, c);
    EXPECT_TRUE(rep.ok()) << bp::to_string(rep.status);
    EXPECT_EQ(rep.invalid_a, oracle.invalid);
    check_shape(full, n);
    const std::vector<Rec> full_rows = listed(full);
    const std::vector<Rec> got_full = sorted(full_rows);
    expect_unique(got_full, "full");
    expect_same(got_full, want, true, "full list");
    check_vectors(got_full, c, s.cell);

    // Half list: each pair (and each pair of self images) once.
    auto half = make_list<T>(s, false, true);
    rep = build(half, c);
    EXPECT_TRUE(rep.ok()) << bp::to_string(rep.status);
    EXPECT_EQ(rep.invalid_a, oracle.invalid);
    check_shape(half, n);
    const std::vector<Rec> half_rows = listed(half);
    std::vector<Rec> half_canon;
    for (const Rec& e : half_rows) half_canon.push_back(canonical(e));
    half_canon = sorted(std::move(half_canon));
    expect_unique(half_canon, "half (pairs seen from either side)");
    expect_same(half_canon, canonical_set(want), true, "half list");
    check_vectors(half_rows, c, s.cell);
    EXPECT_EQ(2 * half.entries(), full.entries());
    // Doubled (both directions), the half list is the full list.
    std::vector<Rec> doubled;
    for (const Rec& e : half_rows) doubled.push_back(e), doubled.push_back(reversed(e));
    doubled = sorted(std::move(doubled));
    expect_same(doubled, got_full, true, "half list in both directions against the full list");

    // Sorted rows: by (j, S), the same entries per row.
    for (bool is_full : {false, true}) {
        auto sl = make_list<T>(s, is_full, true, true);
        build(sl, c);
        check_shape(sl, n);
        const std::vector<Rec> got = listed(sl);
        expect_rows_sorted(got, true, is_full ? "sorted full" : "sorted half");
        // The same entries in the same rows (listed() names the row i).
        const auto& base = is_full ? full_rows : half_rows;
        EXPECT_EQ(got.size(), base.size());
        expect_same(sorted(got), sorted(base), true, is_full ? "sorted full against unsorted" : "sorted half against unsorted");
    }

    // Without shifts and vectors: the same columns in the same rows and order.
    for (bool is_full : {false, true}) {
        auto plain = make_list<T>(s, is_full, false);
        rep = build(plain, c);
        EXPECT_TRUE(rep.ok());
        check_shape(plain, n);
        EXPECT_EQ(plain.offsets(), (is_full ? full : half).offsets());
        EXPECT_EQ(plain.indices(), (is_full ? full : half).indices());
        // Sorted without images: columns ascending in each row.
        auto ps = make_list<T>(s, is_full, false, true);
        build(ps, c);
        EXPECT_EQ(ps.offsets(), plain.offsets());
        expect_rows_sorted(listed(ps), false, "sorted without images");
        std::vector<Rec> x = listed(ps), y = listed(plain);
        for (std::vector<Rec>* v : {&x, &y})
            for (Rec& e : *v) e = Rec{e.i, e.j, {}, {}};
        expect_same(sorted(x), sorted(y), false, "sorted without images against unsorted");
    }
    return want.size();
}

#define CHECK_SCENE(scene)                      \
    do {                                        \
        const Scene sc_ = (scene);              \
        check_scene<double>(sc_);               \
        check_scene<float>(sc_);                \
    } while (0)

// ---- scenes as tests ---------------------------------------------------------

Scene uniform_scene(std::string name, const bp::PeriodicCell& cell, std::size_t n, double cutoff, double skin,
                    std::uint64_t seed, double open = 10, int periods = 0) {
    Scene s;
    s.name = std::move(name);
    s.cell = cell;
    s.cutoff = cutoff, s.skin = skin;
    s.xyz = random_in_cell(n, cell, seed, open, periods);
    return s;
}

// The oracle's per-pair window of images (a speed-up) finds what the whole
// range of images finds.
TEST(NeighborList, OracleWindow) {
    std::vector<Scene> scenes = {
        uniform_scene("small triclinic", bp::PeriodicCell::triclinic(1.2, 1.0, 1.1, 0.5, -0.4, 0.3), 10, 2.0, 0.1, 41),
        uniform_scene("small general", general_cell({1.1, 0.2, 0.1}, {-0.3, 0.9, 0.2}, {0.1, 0.4, 1.2}), 10, 1.8, 0.2, 42),
        uniform_scene("left-handed", general_cell({8, 1, 0.5}, {0.3, -0.8, 10}, {-1, 9, 0.7}), 120, 1.5, 0.25, 12),
        uniform_scene("tilted, far", bp::PeriodicCell::triclinic(8, 9, 10, 6.5, 5, -7), 120, 1.5, 0.2, 10, 10, 1000),
        uniform_scene("mixed", bp::PeriodicCell::orthorhombic(3, 0, 3), 40, 1.9, 0.1, 32, 6),
    };
    Scene fc;
    fc.xyz = fcc(2, 1.0);
    fc.cell = bp::PeriodicCell::orthorhombic(2, 2, 2);
    fc.cutoff = 1.0;
    scenes.push_back(fc);
    for (Scene& sc : scenes) {
        Random rnd(7);
        for (std::size_t i = 0; i < sc.n(); ++i) sc.r.push_back(i % 3 ? rnd.uniform(0, 0.5) : 0.0);
        const Cloud<double> c = cloud_of<double>(sc);
        Oracle a(c, sc.cell, sc.cutoff, sc.skin), b(c, sc.cell, sc.cutoff, sc.skin);
        b.window = false;
        const std::vector<Rec> wa = a.full(), wb = b.full();
        EXPECT_GT(wa.size(), 0u) << sc.name;
        expect_same(wa, wb, true, sc.name.c_str());
    }
}

TEST(NeighborList, OpenDomain) {
    const std::size_t entries = check_scene<double>(uniform_scene("open", {}, 300, 1.2, 0.3, 1));
    EXPECT_GT(entries, 300u);
    check_scene<float>(uniform_scene("open", {}, 300, 1.2, 0.3, 1));
    CHECK_SCENE(uniform_scene("open, no skin", {}, 250, 2.0, 0, 2, 8));
}

TEST(NeighborList, Orthorhombic) {
    const std::size_t entries =
        check_scene<double>(uniform_scene("orthorhombic", bp::PeriodicCell::orthorhombic(10, 11, 12), 300, 1.5, 0.2, 3));
    EXPECT_GT(entries, 600u);
    check_scene<float>(uniform_scene("orthorhombic", bp::PeriodicCell::orthorhombic(10, 11, 12), 300, 1.5, 0.2, 3));
    CHECK_SCENE(uniform_scene("cube", bp::PeriodicCell::orthorhombic(8, 8, 8), 300, 1.0, 0.5, 4));
}

TEST(NeighborList, MixedOpenAndPeriodicAxes) {
    CHECK_SCENE(uniform_scene("y open", bp::PeriodicCell::orthorhombic(10, 0, 12), 300, 1.5, 0.2, 5, 20));
    CHECK_SCENE(uniform_scene("x and z open", bp::PeriodicCell::orthorhombic(0, 7, 0), 300, 1.5, 0.2, 6, 9));
    // Points outside the cell on the periodic axes too.
    CHECK_SCENE(uniform_scene("z open, particles outside", bp::PeriodicCell::orthorhombic(6, 7, 0), 250, 1.3, 0.2, 7, 8, 3));
}

TEST(NeighborList, LammpsTriclinic) {
    CHECK_SCENE(uniform_scene("triclinic", bp::PeriodicCell::triclinic(10, 9, 11, 2.5, -3.0, 1.5), 300, 1.4, 0.2, 8));
    CHECK_SCENE(uniform_scene("triclinic, negative tilts", bp::PeriodicCell::triclinic(9, 10, 8, -4.0, -2.0, -3.5), 300,
                              1.5, 0.3, 9));
    CHECK_SCENE(uniform_scene("triclinic, tilt above half", bp::PeriodicCell::triclinic(8, 9, 10, 6.5, 5, -7), 300, 1.5,
                              0.2, 10));
}

TEST(NeighborList, GeneralCell) {
    const bp::PeriodicCell cell = general_cell({8, 1, 0.5}, {-1, 9, 0.7}, {0.3, -0.8, 10});
    EXPECT_EQ(cell.problem(), "");
    CHECK_SCENE(uniform_scene("general cell", cell, 300, 1.5, 0.25, 11));
    // Left-handed (negative determinant).
    const bp::PeriodicCell left = general_cell({8, 1, 0.5}, {0.3, -0.8, 10}, {-1, 9, 0.7});
    EXPECT_EQ(left.problem(), "");
    CHECK_SCENE(uniform_scene("general cell, left-handed", left, 300, 1.5, 0.25, 12));
}

TEST(NeighborList, FccLatticeExactTies) {
    // a = 1, 4 x 4 x 4 cells in a periodic cube of 4: every coordinate and
    // difference exact. Nearest neighbours at sqrt(1/2) (12), second at 1
    // (6): a reach of exactly 1 keeps both shells (touching counts).
    Scene s;
    s.name = "fcc, reach 1 = second shell";
    s.xyz = fcc(4, 1.0);
    s.cell = bp::PeriodicCell::orthorhombic(4, 4, 4);
    s.cutoff = 1.0, s.skin = 0;
    ASSERT_EQ(s.n(), 256u);
    EXPECT_EQ(check_scene<double>(s), 256u * 18);
    EXPECT_EQ(check_scene<float>(s), 256u * 18);
    // The reach made of cutoff + skin, and of radii.
    s.name = "fcc, cutoff 0.75 + skin 0.25";
    s.cutoff = 0.75, s.skin = 0.25;
    EXPECT_EQ(check_scene<double>(s), 256u * 18);
    s.name = "fcc, radii 0.25, cutoff 0.5";
    s.r.assign(s.n(), 0.25);
    s.cutoff = 0.5, s.skin = 0;
    EXPECT_EQ(check_scene<double>(s), 256u * 18);
    EXPECT_EQ(check_scene<float>(s), 256u * 18);
    s.r.clear();
    // Just under: the first shell only.
    s.name = "fcc, reach just under 1";
    s.cutoff = std::nextafter(1.0, 0.0), s.skin = 0;
    EXPECT_EQ(check_scene<double>(s), 256u * 12);
    // Shifted to negative coordinates, outside the cell (exact wraps).
    s.name = "fcc from -6, reach 1";
    s.xyz = fcc(4, 1.0, -6);
    s.cutoff = 1.0;
    EXPECT_EQ(check_scene<double>(s), 256u * 18);
    // A cutoff of exactly half the cell: a pair 2 apart along an axis is
    // within reach through two images (+2 and -2). Dense: ~130 a row.
    s.name = "fcc, cutoff = half the cell";
    s.xyz = fcc(4, 1.0);
    s.cutoff = 2.0;
    const std::size_t dense = check_scene<double>(s);
    EXPECT_GT(dense, 256u * 100);
    check_scene<float>(s);
}

TEST(NeighborList, FccRowsCounted) {
    // Independent of the oracle: 18 neighbours per atom at reach 1, each
    // with |D| in {sqrt(1/2), 1}.
    Scene s;
    s.xyz = fcc(3, 1.0);
    s.cell = bp::PeriodicCell::orthorhombic(3, 3, 3);
    s.cutoff = 1.0;
    auto list = make_list<double>(s, true, true);
    Cloud<double> c = cloud_of<double>(s);
    ASSERT_TRUE(build(list, c).ok());
    for (std::size_t i = 0; i < c.n(); ++i) {
        ASSERT_EQ(list.offsets()[i + 1] - list.offsets()[i], 18u) << "atom " << i;
        for (std::uint64_t e = list.offsets()[i]; e < list.offsets()[i + 1]; ++e) {
            const double* d = &list.vectors()[3 * e];
            const double d2 = (d[0] * d[0] + d[1] * d[1]) + d[2] * d[2];
            EXPECT_TRUE(d2 == 0.5 || d2 == 1.0) << d2;
        }
    }
    auto half = make_list<double>(s, false, false);
    ASSERT_TRUE(build(half, c).ok());
    EXPECT_EQ(half.entries(), c.n() * 9);
}

TEST(NeighborList, PolydisperseRadii) {
    for (int variant = 0; variant < 3; ++variant) {
        Scene s = variant == 0   ? uniform_scene("polydisperse, orthorhombic", bp::PeriodicCell::orthorhombic(10, 10, 10),
                                                 250, 0.3, 0.1, 20)
                  : variant == 1 ? uniform_scene("polydisperse, triclinic",
                                                 bp::PeriodicCell::triclinic(10, 10, 10, 2, -1, 3), 250, 0.3, 0.1, 21)
                                 : uniform_scene("polydisperse, open", {}, 250, 0.3, 0.1, 22);
        Random rnd(23 + variant);
        for (std::size_t i = 0; i < s.n(); ++i) s.r.push_back(i % 17 == 0 ? 0.0 : rnd.uniform(0.05, 0.8));
        s.r[5] = 3.0;  // one large particle: the stencil is sized for it
        s.r[6] = 2.5;
        CHECK_SCENE(s);
    }
}

TEST(NeighborList, CutoffOverHalfTheCell) {
    // Several images of a pair and a particle's own images.
    CHECK_SCENE(uniform_scene("cutoff 2 in a cell of 3", bp::PeriodicCell::orthorhombic(3, 3.5, 4), 40, 1.8, 0.2, 30));
    CHECK_SCENE(uniform_scene("cutoff over half, triclinic", bp::PeriodicCell::triclinic(3, 3.2, 3.4, 1.0, -0.8, 0.6),
                              40, 1.7, 0.2, 31));
    CHECK_SCENE(uniform_scene("cutoff over half, one axis open", bp::PeriodicCell::orthorhombic(3, 0, 3), 40, 1.9, 0.1,
                              32, 6));
    Scene s = uniform_scene("cutoff over half, polydisperse", bp::PeriodicCell::orthorhombic(4, 4, 4), 40, 1.0, 0.2, 33);
    Random rnd(34);
    for (std::size_t i = 0; i < s.n(); ++i) s.r.push_back(rnd.uniform(0, 0.7));
    CHECK_SCENE(s);
}

TEST(NeighborList, CellSmallerThanCutoff) {
    const std::size_t e = check_scene<double>(
        uniform_scene("cell under the cutoff", bp::PeriodicCell::orthorhombic(1.0, 1.3, 0.9), 12, 2.3, 0.2, 40));
    EXPECT_GT(e, 12u * 300);
    check_scene<float>(uniform_scene("cell under the cutoff", bp::PeriodicCell::orthorhombic(1.0, 1.3, 0.9), 12, 2.3, 0.2, 40));
    CHECK_SCENE(uniform_scene("triclinic cell under the cutoff", bp::PeriodicCell::triclinic(1.2, 1.0, 1.1, 0.5, -0.4, 0.3),
                              10, 2.0, 0.1, 41));
    CHECK_SCENE(uniform_scene("general cell under the cutoff",
                              general_cell({1.1, 0.2, 0.1}, {-0.3, 0.9, 0.2}, {0.1, 0.4, 1.2}), 10, 1.8, 0.2, 42));
    // One particle in a small cell: its own images only (|S| <= 1.5: 6 + 12).
    Scene one;
    one.name = "one particle, cell of 1, reach 1.5";
    one.add(0.3, 0.4, 0.5);
    one.cell = bp::PeriodicCell::orthorhombic(1, 1, 1);
    one.cutoff = 1.5;
    EXPECT_EQ(check_scene<double>(one), 18u);
    EXPECT_EQ(check_scene<float>(one), 18u);
}

TEST(NeighborList, IdenticalPoints) {
    for (int variant = 0; variant < 3; ++variant) {
        Scene s;
        s.name = variant == 0 ? "identical, open" : variant == 1 ? "identical, periodic" : "identical, small cell";
        s.cell = variant == 0 ? bp::PeriodicCell{} : variant == 1 ? bp::PeriodicCell::orthorhombic(10, 10, 10)
                                                                 : bp::PeriodicCell::orthorhombic(1, 1, 1);
        for (int i = 0; i < 60; ++i) s.add(3.3, 4.4, 5.5);
        s.cutoff = 1.0;
        const std::size_t e = check_scene<double>(s);
        if (variant < 2) {
            EXPECT_EQ(e, 60u * 59);
        }
        check_scene<float>(s);
    }
    // On the cell's corner, written as 0, L, -L and 2L.
    Scene c;
    c.name = "identical at the corner";
    c.cell = bp::PeriodicCell::orthorhombic(5, 5, 5);
    const double v[4] = {0, 5, -5, 10};
    for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b) c.add(v[a], v[b], v[(a + b) % 4]);
    c.add(-0.0, 0, 0);
    c.cutoff = 0.5;
    EXPECT_EQ(check_scene<double>(c), 17u * 16);
    EXPECT_EQ(check_scene<float>(c), 17u * 16);
}

TEST(NeighborList, ZeroCutoffCoincidentPoints) {
    for (int periodic = 0; periodic < 2; ++periodic) {
        Scene s;
        s.name = periodic ? "zero cutoff, periodic" : "zero cutoff, open";
        if (periodic) s.cell = bp::PeriodicCell::orthorhombic(10, 10, 10);
        Random rnd(50);
        for (int g = 0; g < 20; ++g) {
            const double x = rnd.uniform(0, 10), y = rnd.uniform(0, 10), z = rnd.uniform(0, 10);
            for (int k = 0; k < 1 + g % 4; ++k) s.add(x, y, z);
        }
        s.add(1.25, 2.5, 0);  // and the same point through the periodic images (exact)
        s.add(1.25, 2.5, periodic ? 10 : 0);
        s.add(1.25 + (periodic ? 20 : 0), 2.5, 0);
        s.add(1.25, 2.5 + 0x1p-40, 0);  // close, not coincident
        s.cutoff = 0, s.skin = 0;
        // Groups of 1..4: 5 x (0 + 2 + 6 + 12) ordered pairs, plus the 3 alike.
        EXPECT_EQ(check_scene<double>(s), 5u * 20 + 6);
        check_scene<float>(s);
    }
}

TEST(NeighborList, NegativeAndOffsetCoordinates) {
    Scene neg = uniform_scene("negative, open", {}, 300, 1.5, 0.2, 60);
    for (double& v : neg.xyz) v -= 25;
    CHECK_SCENE(neg);
    Scene off = uniform_scene("1e7 offset, open", {}, 300, 1.5, 0.2, 61);
    for (double& v : off.xyz) v += 1e7;
    CHECK_SCENE(off);
    Scene offn = uniform_scene("-1e7 offset, periodic", bp::PeriodicCell::orthorhombic(10, 10, 10), 300, 1.5, 0.2, 62);
    for (double& v : offn.xyz) v -= 1e7;
    CHECK_SCENE(offn);
    Scene offt = uniform_scene("1e7 offset, triclinic", bp::PeriodicCell::triclinic(10, 10, 10, 3, -2, 1), 300, 1.5, 0.2, 63);
    for (double& v : offt.xyz) v += 1e7;
    CHECK_SCENE(offt);
}

TEST(NeighborList, FarOutliersInAnOpenDomain) {
    Scene s = uniform_scene("outliers", {}, 280, 1.5, 0.2, 70);
    const double far[][3] = {{1e12, 0, 0},   {1e12 + 0.5, 0, 0}, {-1e12, 5, 5},  {5, 1e15, 5},   {5, -3e38, 5},
                             {3e38, 3e38, 0}, {3e38, 3e38, 1},   {-3e38, 0, 0},  {0, 0, -1e30}, {4, 4, 1e6}};
    for (const auto& p : far) s.add(p[0], p[1], p[2]);
    CHECK_SCENE(s);
    // Double only: outliers whose differences overflow to infinity.
    Scene d = uniform_scene("outliers near DBL_MAX", {}, 100, 1.5, 0.2, 71);
    d.add(1e308, 0, 0), d.add(-1e308, 0, 0), d.add(1e308, 1, 0), d.add(0, 1.7e308, 0);
    check_scene<double>(d);
}

TEST(NeighborList, ParticlesManyPeriodsAway) {
    CHECK_SCENE(uniform_scene("1000 periods, orthorhombic", bp::PeriodicCell::orthorhombic(10, 11, 12), 300, 1.5, 0.2, 80,
                              10, 1000));
    CHECK_SCENE(uniform_scene("1000 periods, triclinic", bp::PeriodicCell::triclinic(10, 11, 12, 3, -4, 2), 300, 1.5, 0.2,
                              81, 10, 1000));
    CHECK_SCENE(uniform_scene("50 periods, general", general_cell({8, 1, 0.5}, {-1, 9, 0.7}, {0.3, -0.8, 10}), 300, 1.5,
                              0.2, 82, 10, 50));
    // 10^6 periods of 10 (coordinates about 1e7).
    Scene s = uniform_scene("1e6 periods", bp::PeriodicCell::orthorhombic(10, 10, 10), 200, 1.5, 0.2, 83);
    Random rnd(84);
    for (double& v : s.xyz) v += 10.0 * rnd.integer(-1000000, 1000000);
    CHECK_SCENE(s);
}

TEST(NeighborList, EmptyAndOneParticle) {
    for (bool full : {false, true}) {
        Scene s;
        s.cell = bp::PeriodicCell::orthorhombic(10, 10, 10);
        auto list = make_list<double>(s, full, true);
        EXPECT_TRUE(list.update(nullptr, 0));
        EXPECT_TRUE(list.report().ok());
        EXPECT_EQ(list.offsets(), std::vector<std::uint64_t>{0});
        EXPECT_EQ(list.entries(), 0u);
        EXPECT_FALSE(list.update(nullptr, 0));
        bp::NeighborListF lf(make_list<float>(s, full, false).options());  // open, cutoff 1
        EXPECT_TRUE(lf.build(nullptr, 0).ok());
        EXPECT_EQ(lf.offsets(), std::vector<std::uint64_t>{0});
        // One particle: no entries (a cell larger than the reach), and the
        // same through a SphereView (radii changed: build(), not update()).
        const double xyz[3] = {1, 2, 3}, r = 0.5;
        EXPECT_TRUE(list.update(xyz, 1));
        EXPECT_EQ(list.offsets(), (std::vector<std::uint64_t>{0, 0}));
        EXPECT_TRUE(list.build(bp::sphere_rows<double>(xyz, &r, 1)).ok());
        EXPECT_EQ(list.offsets(), (std::vector<std::uint64_t>{0, 0}));
        EXPECT_FALSE(list.update(bp::sphere_rows<double>(xyz, &r, 1)));
    }
    Scene one;
    one.name = "one particle, open";
    one.add(1, 2, 3);
    EXPECT_EQ(check_scene<double>(one), 0u);
    Scene none;
    none.name = "empty";
    none.cell = bp::PeriodicCell::triclinic(5, 5, 5, 1, 1, 1);
    EXPECT_EQ(check_scene<double>(none), 0u);
    EXPECT_EQ(check_scene<float>(none), 0u);
}

// A reach of zero (cutoff 0, skin 0, radius 0: the default options) in an
// open domain, with no particle or only particles at the origin: a valid
// request (empty input, or coincident points with a zero cutoff, work
// elsewhere), so the report must be ok. Failed when written:
// CellList::plan() started from a bin width of 0 (a zero reach, and no
// magnitude for its rounding margin), never grew it, gave up after 200
// tries, and build() reported out_of_memory with an empty list.
TEST(NeighborList, ZeroReachOpenDomainAtTheOrigin) {
    bp::NeighborList empty;  // default options, open cell
    EXPECT_EQ(empty.build(nullptr, 0).status, bp::Status::ok) << bp::to_string(empty.report().status);
    EXPECT_EQ(empty.offsets(), std::vector<std::uint64_t>{0});
    EXPECT_FALSE(empty.update(nullptr, 0));  // built, and nothing moved
    bp::NeighborListF emptyf;
    EXPECT_EQ(emptyf.build(nullptr, 0).status, bp::Status::ok) << bp::to_string(emptyf.report().status);
    Scene s;
    s.name = "three points at the origin, reach 0, open";
    s.cutoff = 0;
    for (int i = 0; i < 3; ++i) s.add(0, 0, 0);
    EXPECT_EQ(check_scene<double>(s), 6u);
    // The same one unit away is fine (a control).
    Scene t = s;
    t.name = "three points at (1, 1, 1), reach 0, open";
    for (double& v : t.xyz) v = 1;
    EXPECT_EQ(check_scene<double>(t), 6u);
}

// Negative cell vector components. An orthorhombic cell with a negative
// period (a = (-10, 0, 0)) lost the pairs across that boundary (every
// particle fell in the first bin of the axis); it is rejected now. A
// tilted cell with negative diagonal entries, and an orthorhombic box
// given with its axes swapped (so off the diagonal), take the general path
// and must follow the rule.
TEST(NeighborList, NegativeDiagonalCell) {
    bp::NeighborListOptions o;
    o.cutoff = 1.5;
    auto make = [&](const bp::PeriodicCell& c) {
        bp::NeighborList l(o, c);
        (void)l;
    };
    for (const bp::PeriodicCell& c : {bp::PeriodicCell::orthorhombic(-10, 11, 12), bp::PeriodicCell::orthorhombic(10, -11, 12),
                                      bp::PeriodicCell::orthorhombic(10, 0, -12)}) {
        EXPECT_NE(c.problem(), "");
        EXPECT_THROW(make(c), std::invalid_argument);
    }
    CHECK_SCENE(uniform_scene("triclinic, negative lx and lz", bp::PeriodicCell::triclinic(-10, 9, -11, 2.5, -3, 1.5), 300,
                              1.5, 0.2, 90));
    CHECK_SCENE(uniform_scene("axes swapped", general_cell({0, 10, 0}, {11, 0, 0}, {0, 0, -12}), 300, 1.5, 0.2, 91));
}

// sorted with vectors but no shifts: the rows must still be sorted by
// (j, S) (the top comment), i.e. in the order the list with shifts has.
TEST(NeighborList, SortedWithVectorsOnly) {
    const Scene scenes[] = {
        uniform_scene("orthorhombic, small cell", bp::PeriodicCell::orthorhombic(1.0, 1.3, 0.9), 12, 2.3, 0.2, 40),
        uniform_scene("triclinic, small cell", bp::PeriodicCell::triclinic(1.2, 1.0, 1.1, 0.1, 0.5, 0.3), 10, 2.0, 0.1, 41),
        uniform_scene("general, small cell", general_cell({1.1, 0.2, 0.1}, {-0.3, 0.9, 0.2}, {0.1, 0.4, 1.2}), 10, 1.8, 0.2,
                      42)};
    for (const Scene& s : scenes) {
        SCOPED_TRACE(s.name);
        const Cloud<double> c = cloud_of<double>(s);
        bp::NeighborListOptions o;
        o.cutoff = s.cutoff, o.skin = s.skin, o.sorted = true, o.vectors = true;
        for (bool full : {false, true}) {
            o.full = full;
            o.shifts = true;
            bp::NeighborList with(o, s.cell);
            o.shifts = false;
            bp::NeighborList without(o, s.cell);
            ASSERT_TRUE(build(with, c).ok());
            ASSERT_TRUE(build(without, c).ok());
            EXPECT_EQ(without.indices(), with.indices());
            EXPECT_EQ(without.vectors(), with.vectors()) << (full ? "full" : "half")
                                                         << ": rows with vectors only are not in (j, S) order";
        }
    }
}

// ---- threads and SIMD levels --------------------------------------------------

/// Everything a list gives out.
struct Snapshot {
    std::vector<std::uint64_t> offsets;
    std::vector<std::uint32_t> indices, invalid;
    std::vector<double> vectors;
    std::vector<std::int32_t> shifts;
    bool operator==(const Snapshot& o) const {
        return offsets == o.offsets && indices == o.indices && invalid == o.invalid && vectors == o.vectors &&
               shifts == o.shifts;
    }
};

template <class T>
Snapshot snap(const bp::BasicNeighborList<T>& l) {
    return {l.offsets(), l.indices(), l.report().invalid_a, l.vectors(), l.shifts()};
}

struct SimdGuard {
    bp::SimdLevel saved = bp::simd_level();
    ~SimdGuard() { bp::set_simd_level(saved); }
};

/// 40,000 particles (NeighborList takes one thread per 8,192: up to 4),
/// about 0.5 a unit volume, a few invalid ones.
constexpr std::size_t kBig = 40000;
Scene big_scene(bool triclinic, bool radii) {
    const double L = 43;
    Scene s = uniform_scene(triclinic ? "40k triclinic" : "40k orthorhombic",
                            triclinic ? bp::PeriodicCell::triclinic(L, L, L, 7, -5, 3)
                                      : bp::PeriodicCell::orthorhombic(L, L + 1, L - 1),
                            kBig, 1.2, 0.3, triclinic ? 101 : 100, 10, 2);
    if (radii) {
        Random rnd(102);
        for (std::size_t i = 0; i < s.n(); ++i) s.r.push_back(rnd.uniform(0, 0.25));
        s.r[777] = kNaN;
    }
    s.xyz[3 * 4321 + 1] = kNaN;
    s.xyz[3 * (kBig - 1)] = kInf;
    return s;
}

/// threads: the thread counts to compare with one; levels: the SIMD
/// levels (each at 3 threads; the level in use already ran); properties:
/// the whole-list checks; sorted_rows: NeighborListOptions::sorted.
template <class T>
void check_threads_and_simd(const Scene& s, std::vector<unsigned> threads_list, std::vector<bp::SimdLevel> levels,
                            bool properties, bool sorted_rows) {
    SCOPED_TRACE(s.name + " (" + type_name<T>() + ")");
    // One thread per 8,192 particles at most (a row is Work::half): 2 and 3
    // threads split the work, 8 becomes 4.
    if (bp::threads_enabled()) {
        ASSERT_EQ(bp::plan_threads(3, s.n(), bp::Work::half), 3u);
    }
    const Cloud<T> c = cloud_of<T>(s);
    // A few rows of the oracle (all of it is too slow at this size).
    const Oracle oracle(c, s.cell, s.cutoff, s.skin);
    const std::uint32_t probe[] = {0u, 777u, 1234u, 4321u, 20000u, std::uint32_t(kBig - 2), std::uint32_t(kBig - 1)};
    std::vector<std::vector<Rec>> want_rows;
    for (std::uint32_t i : probe) {
        want_rows.emplace_back();
        oracle.row(i, want_rows.back());
        want_rows.back() = sorted(std::move(want_rows.back()));
    }
    SimdGuard guard;
    for (bool full : {false, true}) {
        SCOPED_TRACE(full ? "full" : "half");
        auto base_list = make_list<T>(s, full, true, sorted_rows, 1);
        ASSERT_TRUE(build(base_list, c).ok());
        const Snapshot base = snap(base_list);
        EXPECT_GT(base.indices.size(), s.n() * (full ? 4 : 2));
        for (unsigned threads : threads_list) {
            auto l = make_list<T>(s, full, true, sorted_rows, threads);
            ASSERT_TRUE(build(l, c).ok());
            EXPECT_TRUE(snap(l) == base) << threads << " threads differ from one";
        }
        for (bp::SimdLevel level : levels) {
            if (level == guard.saved) continue;  // the builds above
            if (bp::set_simd_level(level) != level) {
                std::printf("(SIMD level %s not available here: skipped)\n", bp::simd_level_name(level));
                continue;
            }
            auto l = make_list<T>(s, full, true, sorted_rows, 3);
            ASSERT_TRUE(build(l, c).ok());
            EXPECT_TRUE(snap(l) == base) << bp::simd_level_name(level) << " at 3 threads differs";
        }
        bp::set_simd_level(guard.saved);
        // Whole-list properties.
        std::vector<Rec> got = sorted(listed(base_list));
        if (properties) {
            std::vector<Rec> cc;
            for (const Rec& e : got) cc.push_back(full ? e : canonical(e));
            expect_unique(sorted(std::move(cc)), "entries");
        }
        if (full && properties) {
            std::vector<Rec> rev;
            for (const Rec& e : got) rev.push_back(reversed(e));
            expect_same(sorted(std::move(rev)), got, true, "full list is symmetric");
        }
        // The probed rows against the oracle.
        EXPECT_EQ(base.invalid, oracle.invalid);
        for (std::size_t q = 0; q < std::size(probe); ++q) {
            const std::uint32_t i = probe[q];
            const std::vector<Rec>& want = want_rows[q];
            if (!full) {
                // Row i's share of the half list, with the entries that
                // other rows hold for it: together, row i of the full list.
                std::vector<Rec> mine;
                for (const Rec& e : got)
                    if (e.i == i) mine.push_back(e);
                    else if (e.j == i) mine.push_back(reversed(e));
                for (const Rec& e : got)  // self images: both signs
                    if (e.i == i && e.j == i) mine.push_back(reversed(e));
                expect_same(sorted(std::move(mine)), want, true, "half list around a row");
            } else {
                std::vector<Rec> mine;
                for (const Rec& e : got)
                    if (e.i == i) mine.push_back(e);
                expect_same(mine, want, true, "full row");
            }
        }
    }
}

TEST(NeighborList, ThreadsAndSimdLevelsGiveTheSameLists) {
    const std::vector<bp::SimdLevel> all{bp::SimdLevel::scalar, bp::SimdLevel::sse2, bp::SimdLevel::avx2,
                                         bp::SimdLevel::avx512};
    check_threads_and_simd<double>(big_scene(false, false), {2u, 3u, 8u}, all, true, false);
    // Radii (the other kernels), a triclinic cell, rows sorted in parallel.
    check_threads_and_simd<float>(big_scene(true, true), {2u, 3u, 8u}, {bp::SimdLevel::scalar}, false, true);
}

TEST(NeighborList, SimdLevelsAgainstTheOracle) {
    SimdGuard guard;
    for (bp::SimdLevel level :
         {bp::SimdLevel::scalar, bp::SimdLevel::sse2, bp::SimdLevel::avx2, bp::SimdLevel::avx512}) {
        if (bp::set_simd_level(level) != level) continue;
        SCOPED_TRACE(bp::simd_level_name(level));
        Scene s = uniform_scene("polydisperse triclinic", bp::PeriodicCell::triclinic(8, 8, 8, 2, -1, 3), 200, 0.4, 0.1, 110);
        Random rnd(111);
        for (std::size_t i = 0; i < s.n(); ++i) s.r.push_back(rnd.uniform(0, 0.6));
        check_scene<double>(s);
        Scene f;
        f.name = "fcc ties";
        f.xyz = fcc(3, 1.0);
        f.cell = bp::PeriodicCell::orthorhombic(3, 3, 3);
        f.cutoff = 1.0;
        EXPECT_EQ(check_scene<float>(f), 108u * 18);
        check_scene<double>(uniform_scene("small cell", bp::PeriodicCell::orthorhombic(1.0, 1.3, 0.9), 12, 2.3, 0.2, 40));
    }
}

// ---- the cluster kernels --------------------------------------------------------

// AVX2 and AVX-512 run the cluster kernels (src/simd/<set>/cell_kernels.hpp: up to
// four particles of a bin against each run at once); SSE2 and the portable
// loop run the per-particle scans. The
// lists must be the same, order included, and the oracle's: each scene
// below at every level this CPU has, half and full, with images, against
// the scalar build, and at the best level against the oracle.
template <class T>
void check_clusters(const Scene& s) {
    SCOPED_TRACE(s.name + " (" + type_name<T>() + ", " + std::to_string(s.n()) + " particles)");
    const Cloud<T> c = cloud_of<T>(s);
    SimdGuard guard;
    for (bool full : {false, true}) {
        SCOPED_TRACE(full ? "full" : "half");
        bp::set_simd_level(bp::SimdLevel::scalar);
        auto base_list = make_list<T>(s, full, true, false, 1);
        ASSERT_TRUE(build(base_list, c).ok());
        const Snapshot base = snap(base_list);
        for (bp::SimdLevel level : {bp::SimdLevel::sse2, bp::SimdLevel::avx2, bp::SimdLevel::avx512}) {
            if (bp::set_simd_level(level) != level) continue;
            for (unsigned threads : {1u, 3u}) {
                auto l = make_list<T>(s, full, true, false, threads);
                ASSERT_TRUE(build(l, c).ok());
                EXPECT_TRUE(snap(l) == base) << bp::simd_level_name(level) << " at " << threads
                                             << " threads differs from the scalar scans";
            }
        }
    }
    bp::set_simd_level(guard.saved);
    check_scene<T>(s);
}

/// k particles at each of `spots` random points, plus `loose` uniform ones.
Scene clumps(std::string name, const bp::PeriodicCell& cell, int spots, int k, std::size_t loose, double cutoff,
             std::uint64_t seed) {
    Scene s = uniform_scene(std::move(name), cell, loose, cutoff, 0.1, seed);
    const std::vector<double> at = random_in_cell(static_cast<std::size_t>(spots), cell, seed + 1);
    for (int p = 0; p < spots; ++p)
        for (int q = 0; q < k; ++q) s.add(at[3 * p], at[3 * p + 1], at[3 * p + 2]);
    return s;
}

// Bins of 0 to about 12 particles: clusters of one particle (sparse),
// clusters cut at a bin's end (tails of 1 to 3), a cluster against its own
// bin (the half list's own bin after each particle, the full list's without
// the particle itself).
TEST(NeighborList, ClusterKernelsSparseToDense) {
    const bp::PeriodicCell cell = bp::PeriodicCell::orthorhombic(9, 9.5, 8.5);
    for (std::size_t n : {60u, 400u, 2500u}) check_clusters<double>(uniform_scene("uniform " + std::to_string(n), cell, n, 1.4, 0.1, 120 + n));
    Scene poly = uniform_scene("polydisperse 1500", cell, 1500, 0.2, 0.1, 130);
    Random rnd(131);
    for (std::size_t i = 0; i < poly.n(); ++i) poly.r.push_back(rnd.uniform(0.1, 0.6));
    check_clusters<double>(poly);
    check_clusters<float>(poly);
    // An open domain large enough for interior bins, and a mixed one.
    check_clusters<double>(uniform_scene("open 3000", bp::PeriodicCell{}, 3000, 1.0, 0.2, 132, 14));
    bp::PeriodicCell mixed = bp::PeriodicCell::orthorhombic(8, 0, 9);
    check_clusters<double>(uniform_scene("mixed 1200", mixed, 1200, 1.1, 0.1, 133, 8));
}

// Images: a cell smaller than the cutoff (a particle's own images, pairs
// through several images, no interior bins), a cutoff just over half the
// cell, a triclinic cell.
TEST(NeighborList, ClusterKernelsImages) {
    check_clusters<double>(uniform_scene("small cell", bp::PeriodicCell::orthorhombic(1.0, 1.3, 0.9), 14, 2.3, 0.2, 140));
    check_clusters<double>(uniform_scene("over half", bp::PeriodicCell::orthorhombic(4, 4.5, 5), 300, 2.2, 0.1, 141));
    check_clusters<double>(
        uniform_scene("triclinic", bp::PeriodicCell::triclinic(9, 8, 10, 2.5, -1.5, 3), 1800, 1.3, 0.2, 142));
    check_clusters<float>(
        uniform_scene("triclinic float", bp::PeriodicCell::triclinic(6, 6, 6, 1, 2, -1), 500, 1.1, 0.1, 143));
}

// Ties exactly at the cutoff (fcc: second neighbours at 1.0), identical
// positions (whole clusters of them), and coordinates near 1e7 (an open
// domain, and a periodic cell whose particles are 1e6 periods away).
TEST(NeighborList, ClusterKernelsTiesCoincidentAndOffsets) {
    Scene f;
    f.name = "fcc ties";
    f.xyz = fcc(4, 1.0);
    f.cell = bp::PeriodicCell::orthorhombic(4, 4, 4);
    f.cutoff = 1.0;
    check_clusters<double>(f);
    check_clusters<double>(clumps("coincident", bp::PeriodicCell::orthorhombic(7, 7, 7), 20, 9, 300, 1.2, 150));
    Scene far = uniform_scene("1e7 open", bp::PeriodicCell{}, 1500, 1.0, 0.1, 151, 12);
    for (double& x : far.xyz) x += 1e7;
    check_clusters<double>(far);
    Scene away = uniform_scene("1e6 periods away", bp::PeriodicCell::orthorhombic(10, 10, 10), 1200, 1.2, 0.1, 152);
    for (std::size_t i = 0; i < away.n(); ++i) away.xyz[3 * i] += 1e7 * (i % 2 ? 1 : -1);
    check_clusters<double>(away);
}

// ---- the skin -----------------------------------------------------------------

template <class T>
void check_skin(const bp::PeriodicCell& cell, const char* name) {
    SCOPED_TRACE(std::string(name) + " (" + type_name<T>() + ")");
    Scene s = uniform_scene(name, cell, 300, 1.2, 0.4, 120, 10);
    Cloud<T> c = cloud_of<T>(s);
    const std::size_t n = c.n();
    bp::NeighborListOptions o;
    o.cutoff = s.cutoff, o.skin = s.skin, o.full = true, o.shifts = o.vectors = true;
    bp::BasicNeighborList<T> list(o, cell);
    EXPECT_TRUE(list.update(c.xyz.data(), n));
    EXPECT_EQ(list.builds(), 1u);
    expect_same(sorted(listed(list)), Oracle(c, cell, s.cutoff, s.skin).full(), true, "first build");
    const Snapshot first = snap(list);

    // Everyone moves less than skin / 2: kept.
    Random rnd(121);
    const Cloud<T> at_build = c;
    for (std::size_t i = 0; i < n; ++i) {
        double d[3], len2 = 0;
        for (int k = 0; k < 3; ++k) d[k] = rnd.uniform(-1, 1), len2 += d[k] * d[k];
        const double len = 0.9 * (0.5 * s.skin) * rnd.uniform(0.5, 1);  // under skin / 2
        for (int k = 0; k < 3; ++k) c.xyz[3 * i + k] = static_cast<T>(c.xyz[3 * i + k] + d[k] * len / std::sqrt(len2));
    }
    EXPECT_FALSE(list.update(c.xyz.data(), n));
    EXPECT_EQ(list.builds(), 1u);
    EXPECT_TRUE(snap(list) == first);
    // Every pair within the cutoff now is in the kept list (as (i, j, S)).
    {
        const std::vector<Rec> now = Oracle(c, cell, s.cutoff, 0).full();
        const std::vector<Rec> kept = sorted(listed(list));
        std::size_t lost = 0;
        for (const Rec& e : now)
            if (!std::binary_search(kept.begin(), kept.end(), e)) ++lost;
        EXPECT_EQ(lost, 0u) << "pairs within the cutoff missing from the kept list";
        EXPECT_GT(now.size(), 100u);
    }
    // One particle moves past skin / 2 (from where it was at the build).
    c.xyz[3 * 17 + 0] = static_cast<T>(at_build.x(17, 0) + 1.1 * (0.5 * s.skin));
    EXPECT_TRUE(list.update(c.xyz.data(), n));
    EXPECT_EQ(list.builds(), 2u);
    expect_same(sorted(listed(list)), Oracle(c, cell, s.cutoff, s.skin).full(), true, "rebuilt");
    const Snapshot second = snap(list);

    // A whole period on a periodic axis (a cell vector): not a move.
    for (int row = 0; row < 3; ++row) {
        if (!cell.periodic(row)) continue;
        for (int k = 0; k < 3; ++k)
            c.xyz[3 * (40 + row) + k] = static_cast<T>(c.xyz[3 * (40 + row) + k] + (row == 1 ? -3 : 1) * cell.vectors[row][k]);
    }
    EXPECT_FALSE(list.update(c.xyz.data(), n));
    EXPECT_EQ(list.builds(), 2u);
    EXPECT_TRUE(snap(list) == second);
    // ... but 10 units along an open axis is.
    for (int row = 0; row < 3; ++row) {
        if (cell.periodic(row)) continue;
        Cloud<T> moved = c;
        moved.xyz[3 * 50 + row] = static_cast<T>(moved.xyz[3 * 50 + row] + 10);
        bp::BasicNeighborList<T> other(o, cell);
        EXPECT_TRUE(other.update(c.xyz.data(), n));
        EXPECT_TRUE(other.update(moved.xyz.data(), n)) << "moved along open axis " << row;
        EXPECT_EQ(other.builds(), 2u);
    }

    // Spheres through update(SphereView): the same rule.
    {
        std::vector<T> radii(n, T(0.1));
        bp::BasicNeighborList<T> sp(o, cell);
        const bp::SphereView<T> v = bp::sphere_rows<T>(c.xyz.data(), radii.data(), n);
        EXPECT_TRUE(sp.update(v));
        EXPECT_FALSE(sp.update(v));
        EXPECT_EQ(sp.builds(), 1u);
    }

    // A NaN coordinate counts as moved.
    {
        Cloud<T> bad = c;
        bad.xyz[3 * 9 + 2] = std::numeric_limits<T>::quiet_NaN();
        bp::BasicNeighborList<T> l2(o, cell);
        EXPECT_TRUE(l2.update(c.xyz.data(), n));
        EXPECT_TRUE(l2.update(bad.xyz.data(), n));
        EXPECT_EQ(l2.report().invalid_a, std::vector<std::uint32_t>{9});
    }

    // Fewer particles: rebuilt.
    EXPECT_TRUE(list.update(c.xyz.data(), n - 1));
    EXPECT_EQ(list.builds(), 3u);
    EXPECT_EQ(list.size(), n - 1);
    EXPECT_FALSE(list.update(c.xyz.data(), n - 1));
    EXPECT_TRUE(list.update(c.xyz.data(), n));
    EXPECT_EQ(list.builds(), 4u);
    // set_cell, even to the same cell: rebuilt.
    list.set_cell(cell);
    EXPECT_TRUE(list.update(c.xyz.data(), n));
    EXPECT_EQ(list.builds(), 5u);
    EXPECT_FALSE(list.update(c.xyz.data(), n));
    // build() always builds.
    list.build(c.xyz.data(), n);
    EXPECT_EQ(list.builds(), 6u);
    EXPECT_FALSE(list.update(c.xyz.data(), n));
}

TEST(NeighborList, Skin) {
    check_skin<double>(bp::PeriodicCell::orthorhombic(10, 11, 12), "orthorhombic");
    check_skin<float>(bp::PeriodicCell::orthorhombic(10, 11, 12), "orthorhombic");
    check_skin<double>(bp::PeriodicCell::triclinic(10, 11, 12, 3, -2, 1.5), "triclinic");
    check_skin<float>(bp::PeriodicCell::triclinic(10, 11, 12, 3, -2, 1.5), "triclinic");
    check_skin<double>(general_cell({8, 1, 0.5}, {-1, 9, 0.7}, {0.3, -0.8, 10}), "general");
    check_skin<double>(bp::PeriodicCell::orthorhombic(10, 0, 12), "y open");
    check_skin<double>(bp::PeriodicCell{}, "open");
}

TEST(NeighborList, ZeroSkinRebuildsOnAnyMove) {
    Scene s = uniform_scene("zero skin", bp::PeriodicCell::orthorhombic(10, 10, 10), 100, 1.0, 0, 125);
    bp::NeighborListOptions o;
    o.cutoff = 1.0;
    bp::NeighborList list(o, s.cell);
    EXPECT_TRUE(list.update(s.xyz.data(), s.n()));
    EXPECT_FALSE(list.update(s.xyz.data(), s.n()));  // not moved at all
    s.xyz[5] = std::nextafter(s.xyz[5], 100.0);
    EXPECT_TRUE(list.update(s.xyz.data(), s.n()));
}

// A particle that was invalid (NaN coordinate) at the build and still is
// has not moved: update() keeps the list (the top comment's rule: rebuild
// when the count or the cell changed or some particle moved more than
// skin / 2). Else one NaN particle would rebuild the list at every step.
TEST(NeighborList, StillInvalidParticleIsNotAMove) {
    Scene s = uniform_scene("a NaN particle", bp::PeriodicCell::orthorhombic(10, 10, 10), 100, 1.0, 0.4, 126);
    s.xyz[3 * 3 + 1] = kNaN;
    bp::NeighborListOptions o;
    o.cutoff = s.cutoff, o.skin = s.skin;
    bp::NeighborList list(o, s.cell);
    EXPECT_TRUE(list.update(s.xyz.data(), s.n()));
    EXPECT_EQ(list.report().invalid_a, std::vector<std::uint32_t>{3});
    EXPECT_FALSE(list.update(s.xyz.data(), s.n())) << "the same positions, the same NaN: rebuilt anyway";
    EXPECT_EQ(list.builds(), 1u);
    // Likewise a particle at infinity (valid, no entries) that stays there.
    s.xyz[3 * 3 + 1] = 5;
    s.xyz[3 * 4] = kInf;
    bp::NeighborList inf(o, s.cell);
    EXPECT_TRUE(inf.update(s.xyz.data(), s.n()));
    EXPECT_TRUE(inf.report().invalid_a.empty());
    EXPECT_FALSE(inf.update(s.xyz.data(), s.n())) << "the same positions, the same infinity: rebuilt anyway";
    EXPECT_EQ(inf.builds(), 1u);
}

// ---- odd input and bad arguments -----------------------------------------------

template <class T>
void check_odd_input(const bp::PeriodicCell& cell, const char* name) {
    Scene s = uniform_scene(std::string("odd input, ") + name, cell, 200, 1.5, 0.2, 130);
    Random rnd(131);
    for (std::size_t i = 0; i < s.n(); ++i) s.r.push_back(rnd.uniform(0, 0.3));
    s.xyz[3 * 5 + 1] = kNaN;     // invalid
    s.r[7] = -1;                 // invalid
    s.r[9] = kNaN;               // invalid
    s.r[11] = kInf;              // invalid
    s.xyz[3 * 13 + 0] = kInf;    // valid, no entries
    s.xyz[3 * 15 + 2] = -kInf;   // valid, no entries
    s.r[20] = 0;                 // zero radius: fine
    const std::vector<std::uint32_t> invalid{5, 7, 9, 11};
    for (bool full : {false, true}) {
        SCOPED_TRACE(std::string(name) + (full ? ", full" : ", half") + " (" + type_name<T>() + ")");
        const Cloud<T> c = cloud_of<T>(s);
        auto list = make_list<T>(s, full, true);
        const bp::Report r = build(list, c);
        EXPECT_TRUE(r.ok()) << bp::to_string(r.status);
        EXPECT_EQ(r.invalid_a, invalid);
        EXPECT_EQ(list.report().invalid_a, invalid);
        for (std::uint32_t i : {5u, 7u, 9u, 11u, 13u, 15u}) {
            EXPECT_EQ(list.offsets()[i + 1], list.offsets()[i]) << "row " << i;
            EXPECT_EQ(std::count(list.indices().begin(), list.indices().end(), i), 0) << "column " << i;
        }
        // The others as without them: the oracle, and the same scene with
        // the six odd particles given NaN radii instead (plainly invalid)
        // gives the same list, order included.
        const Oracle oracle(c, cell, s.cutoff, s.skin);
        EXPECT_EQ(oracle.invalid, invalid);
        std::vector<Rec> got = sorted(listed(list));
        if (full) {
            expect_same(got, oracle.full(), true, "odd input, full");
        } else {
            std::vector<Rec> cc;
            for (const Rec& e : got) cc.push_back(canonical(e));
            expect_same(sorted(std::move(cc)), canonical_set(oracle.full()), true, "odd input, half");
        }
        Scene clean = s;
        for (std::uint32_t i : {5u, 7u, 9u, 11u, 13u, 15u}) clean.r[i] = kNaN;
        const Cloud<T> cc = cloud_of<T>(clean);
        auto other = make_list<T>(clean, full, true);
        build(other, cc);
        EXPECT_EQ(other.offsets(), list.offsets());
        EXPECT_EQ(other.indices(), list.indices());
        EXPECT_EQ(other.vectors(), list.vectors());
        EXPECT_EQ(other.shifts(), list.shifts());
    }
    // Points (no radii) with a NaN and an infinite coordinate.
    Scene p = uniform_scene("points", cell, 200, 1.5, 0.2, 132);
    p.xyz[3 * 3] = kNaN, p.xyz[3 * 4 + 2] = kInf;
    const Cloud<T> pc = cloud_of<T>(p);
    auto pl = make_list<T>(p, true, true);
    EXPECT_TRUE(build(pl, pc).ok());
    EXPECT_EQ(pl.report().invalid_a, std::vector<std::uint32_t>{3});
    expect_same(sorted(listed(pl)), Oracle(pc, cell, p.cutoff, p.skin).full(), true, "points with NaN and inf");
}

TEST(NeighborList, OddInput) {
    check_odd_input<double>(bp::PeriodicCell::orthorhombic(10, 10, 10), "orthorhombic");
    check_odd_input<float>(bp::PeriodicCell::orthorhombic(10, 10, 10), "orthorhombic");
    check_odd_input<double>(bp::PeriodicCell::triclinic(10, 10, 10, 2, 1, -3), "triclinic");
    check_odd_input<float>(bp::PeriodicCell{}, "open");
}

TEST(NeighborList, BadArgumentsThrow) {
    bp::NeighborListOptions o;
    o.cutoff = 1;
    auto with_cell = [&](const bp::PeriodicCell& c) { bp::NeighborList l(o, c); };
    // Zero volume (tilted, every axis periodic): b along a.
    EXPECT_THROW(with_cell(general_cell({1, 0, 0}, {2, 0, 0}, {0, 0, 1})), std::invalid_argument);
    // Coplanar, off the axes.
    EXPECT_THROW(with_cell(general_cell({1, 1, 0}, {0, 1, 1}, {1, 2, 1})), std::invalid_argument);
    // LAMMPS triclinic with lz = 0: c = (xz, yz, 0), a zero row (open) with tilt.
    EXPECT_THROW(with_cell(bp::PeriodicCell::triclinic(10, 10, 0, 1, 0, 0)), std::invalid_argument);
    // An open axis with a tilt elsewhere.
    EXPECT_THROW(with_cell(general_cell({10, 0, 0}, {1, 10, 0}, {0, 0, 0})), std::invalid_argument);
    EXPECT_THROW(with_cell(general_cell({10, 0, 0}, {0, 0, 0}, {0, 2, 10})), std::invalid_argument);
    // Non-finite vectors.
    EXPECT_THROW(with_cell(bp::PeriodicCell::orthorhombic(kNaN, 10, 10)), std::invalid_argument);
    // A negative orthorhombic period.
    EXPECT_THROW(with_cell(bp::PeriodicCell::orthorhombic(-10, 10, 10)), std::invalid_argument);
    EXPECT_THROW(with_cell(bp::PeriodicCell::orthorhombic(10, kInf, 10)), std::invalid_argument);
    EXPECT_THROW(with_cell(bp::PeriodicCell::triclinic(10, 10, 10, kNaN, 0, 0)), std::invalid_argument);
    EXPECT_THROW(with_cell(general_cell({8, 1, kNaN}, {-1, 9, 0.7}, {0.3, -0.8, 10})), std::invalid_argument);
    // set_cell too; the list keeps working with its old cell.
    bp::NeighborList l(o, bp::PeriodicCell::orthorhombic(10, 10, 10));
    EXPECT_THROW(l.set_cell(bp::PeriodicCell::orthorhombic(kNaN, 1, 1)), std::invalid_argument);
    EXPECT_THROW(l.set_cell(general_cell({1, 0, 0}, {2, 0, 0}, {0, 0, 1})), std::invalid_argument);
    Scene s = uniform_scene("after a bad set_cell", bp::PeriodicCell::orthorhombic(10, 10, 10), 100, 1, 0, 140);
    EXPECT_TRUE(l.build(s.xyz.data(), s.n()).ok());
    EXPECT_EQ(l.entries(), Oracle(cloud_of<double>(s), s.cell, 1, 0).full().size() / 2);
    // Cutoff and skin: negative, NaN, infinite.
    for (double bad : {-1.0, -1e-300, kNaN, kInf, -kInf}) {
        bp::NeighborListOptions b;
        b.cutoff = bad;
        EXPECT_THROW(bp::NeighborList{b}, std::invalid_argument) << "cutoff " << bad;
        EXPECT_THROW(bp::NeighborListF{b}, std::invalid_argument) << "cutoff " << bad;
        b.cutoff = 1, b.skin = bad;
        EXPECT_THROW(bp::NeighborList{b}, std::invalid_argument) << "skin " << bad;
    }
    // Zero cutoff and skin are fine.
    EXPECT_NO_THROW(bp::NeighborList{bp::NeighborListOptions{}});
}

TEST(NeighborList, PairBudget) {
    Scene s = uniform_scene("budget", bp::PeriodicCell::orthorhombic(8, 8, 8), 300, 1.5, 0.2, 150);
    const Cloud<double> c = cloud_of<double>(s);
    const std::vector<Rec> want = Oracle(c, s.cell, s.cutoff, s.skin).full();
    ASSERT_GT(want.size(), 1000u);
    for (bool full : {false, true})
        for (std::uint64_t budget : {std::uint64_t(0), std::uint64_t(1), std::uint64_t(10), std::uint64_t(want.size() / 4)}) {
            SCOPED_TRACE(std::string(full ? "full" : "half") + ", max_entries " + std::to_string(budget));
            bp::NeighborListOptions o;
            o.cutoff = s.cutoff, o.skin = s.skin, o.full = full, o.shifts = o.vectors = true, o.max_entries = budget;
            o.threads = 1;
            bp::NeighborList list(o, s.cell);
            const bp::Report r = list.build(s.xyz.data(), s.n());
            EXPECT_EQ(r.status, bp::Status::pair_budget_exceeded);
            EXPECT_EQ(list.report().status, bp::Status::pair_budget_exceeded);
            // The list is then empty (max_entries' comment), not rows
            // missing here and there, and the next update rebuilds.
            check_shape(list, s.n());
            EXPECT_EQ(list.entries(), 0u);
            EXPECT_EQ(r.pairs, 0u);
            EXPECT_EQ(list.offsets(), std::vector<std::uint64_t>(s.n() + 1, 0));
            EXPECT_TRUE(list.update(s.xyz.data(), s.n()));
            EXPECT_EQ(list.report().status, bp::Status::pair_budget_exceeded);
            EXPECT_EQ(list.builds(), 2u);
        }
    // A budget of exactly the entries is not exceeded.
    bp::NeighborListOptions o;
    o.cutoff = s.cutoff, o.skin = s.skin, o.full = true, o.max_entries = want.size();
    bp::NeighborList exact(o, s.cell);
    EXPECT_TRUE(exact.build(s.xyz.data(), s.n()).ok());
    EXPECT_EQ(exact.entries(), want.size());
}

TEST(NeighborList, ReuseGivesTheSameOutput) {
    for (bool full : {false, true}) {
        SCOPED_TRACE(full ? "full" : "half");
        const Scene a = uniform_scene("a", bp::PeriodicCell::triclinic(9, 9, 9, 1, -2, 1), 300, 1.5, 0.2, 160);
        Scene b = uniform_scene("b", bp::PeriodicCell::triclinic(9, 9, 9, 1, -2, 1), 300, 1.5, 0.2, 161);
        auto list = make_list<double>(a, full, true, true);
        ASSERT_TRUE(list.build(a.xyz.data(), a.n()).ok());
        const Snapshot first = snap(list);
        ASSERT_TRUE(list.build(a.xyz.data(), a.n()).ok());
        EXPECT_TRUE(snap(list) == first) << "second build of the same input";
        ASSERT_TRUE(list.build(b.xyz.data(), b.n()).ok());
        auto fresh = make_list<double>(b, full, true, true);
        ASSERT_TRUE(fresh.build(b.xyz.data(), b.n()).ok());
        EXPECT_TRUE(snap(list) == snap(fresh)) << "a kept list against a fresh one";
        ASSERT_TRUE(list.build(a.xyz.data(), a.n()).ok());
        EXPECT_TRUE(snap(list) == first) << "back to the first input";
        // A larger then a smaller input, then the first again.
        const Scene big = uniform_scene("big", a.cell, 900, 1.5, 0.2, 162);
        ASSERT_TRUE(list.build(big.xyz.data(), big.n()).ok());
        ASSERT_TRUE(list.build(a.xyz.data(), a.n()).ok());
        EXPECT_TRUE(snap(list) == first) << "after a larger input";
    }
}

}  // namespace

// spatial_order() is a permutation (binned particles first, then the
// invalid and infinite ones in input order); the list of the reordered
// particles is the same list relabelled; and reordered particles are in
// order already (stable within a bin), so their order is the identity.
TEST(NeighborList, SpatialOrder) {
    for (int variant = 0; variant < 3; ++variant) {
        Scene s = variant == 0 ? uniform_scene("polydisperse, orthorhombic", bp::PeriodicCell::orthorhombic(10, 10, 10),
                                               400, 0.0, 0.1, 301)
                  : variant == 1 ? uniform_scene("triclinic", bp::PeriodicCell::triclinic(9, 10, 11, 2, -1, 1.5), 400,
                                                 0.8, 0.2, 302)
                                 : uniform_scene("open", {}, 400, 0.5, 0.1, 303);
        SCOPED_TRACE(s.name);
        const std::size_t n = s.n();
        Random rnd(304 + variant);
        s.r.resize(n);
        for (double& r : s.r) r = rnd.uniform(0.1, 0.4);
        s.xyz[3 * 7 + 1] = kNaN;   // invalid
        s.xyz[3 * 50 + 2] = kInf;  // valid, not binned
        s.r[90] = -1;              // invalid
        bp::NeighborListOptions o;
        o.cutoff = s.cutoff, o.skin = s.skin, o.sorted = true, o.threads = 1;
        bp::NeighborList a(o, s.cell);
        EXPECT_EQ(a.spatial_order().size(), 0u);  // nothing built yet
        a.build(bp::sphere_rows<double>(s.xyz.data(), s.r.data(), n));
        const std::vector<std::uint32_t> order = a.spatial_order();
        ASSERT_EQ(order.size(), n);
        std::vector<std::uint32_t> seen(order);
        std::sort(seen.begin(), seen.end());
        for (std::size_t k = 0; k < n; ++k) ASSERT_EQ(seen[k], k);
        EXPECT_EQ(std::vector<std::uint32_t>(order.end() - 3, order.end()), (std::vector<std::uint32_t>{7, 50, 90}));
        // Reordered: x'[k] = x[order[k]]; inverse: new index of old i.
        std::vector<double> xyz(3 * n), r(n);
        std::vector<std::uint32_t> to(n);
        for (std::size_t k = 0; k < n; ++k) {
            for (int d = 0; d < 3; ++d) xyz[3 * k + d] = s.xyz[3 * order[k] + d];
            r[k] = s.r[order[k]];
            to[order[k]] = static_cast<std::uint32_t>(k);
        }
        bp::NeighborList b(o, s.cell);
        b.build(bp::sphere_rows<double>(xyz.data(), r.data(), n));
        // The same unordered pairs, relabelled.
        auto pairs_of = [](const bp::NeighborList& l, const std::vector<std::uint32_t>* map) {
            std::vector<std::pair<std::uint32_t, std::uint32_t>> p;
            for (std::size_t i = 0; i + 1 < l.offsets().size(); ++i)
                for (std::uint64_t e = l.offsets()[i]; e < l.offsets()[i + 1]; ++e) {
                    std::uint32_t x = static_cast<std::uint32_t>(i), y = l.indices()[e];
                    if (map) x = (*map)[x], y = (*map)[y];
                    p.emplace_back(std::min(x, y), std::max(x, y));
                }
            std::sort(p.begin(), p.end());
            return p;
        };
        EXPECT_EQ(pairs_of(a, &to), pairs_of(b, nullptr));
        EXPECT_GT(a.entries(), 0u);
        const std::vector<std::uint32_t> again = b.spatial_order();
        for (std::size_t k = 0; k < n; ++k) ASSERT_EQ(again[k], k);
    }
}
