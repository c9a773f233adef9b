// AseNeighborList (include/broadphase/ase_neighbor_list.hpp) against the
// brute-force reference of ase_reference.hpp, every array compared to the
// last bit: open systems, orthorhombic, triclinic and mixed-pbc cells, the
// three kinds of cutoff, self_interaction on and off, small and large
// systems, batches (in order, interleaved, mixing both paths), each answer
// by the object's own choice of path, by the library's list alone
// (set_direct_limit(0)) and by the direct path alone at every SIMD level
// this CPU runs; ASE's order; the quantities asked for; bad input; the
// steps find_direct / list / write. ctest names start with "ase.".
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <broadphase/ase_neighbor_list.hpp>
#include <broadphase/simd.hpp>

#include "ase_reference.hpp"

namespace asetest {
namespace {

/// The SIMD levels this CPU runs, narrowest first.
std::vector<bp::SimdLevel> levels() {
    std::vector<bp::SimdLevel> v;
    for (bp::SimdLevel l : {bp::SimdLevel::scalar, bp::SimdLevel::sse2, bp::SimdLevel::avx2, bp::SimdLevel::avx512})
        if (bp::simd_level_supported(l)) v.push_back(l);
    return v;
}

/// Restores the SIMD level in use when it goes.
struct LevelGuard {
    bp::SimdLevel before = bp::simd_level();
    ~LevelGuard() { bp::set_simd_level(before); }
};

bp::AseQuantities only(const char* letters) {
    bp::AseQuantities q;
    q.i = q.j = false;
    for (const char* c = letters; *c; ++c) {
        if (*c == 'i') q.i = true;
        if (*c == 'j') q.j = true;
        if (*c == 'd') q.d = true;
        if (*c == 'D') q.D = true;
        if (*c == 'S') q.S = true;
    }
    return q;
}

/// Systems of b with at least one atom.
std::size_t nonempty(const Batch& b) {
    std::vector<bool> seen(b.systems(), false);
    for (std::int64_t s : b.sys) seen[static_cast<std::size_t>(s)] = true;
    return static_cast<std::size_t>(std::count(seen.begin(), seen.end(), true));
}

/// b's answer equals the reference: by the object's choice, by the
/// library's list alone, by the direct path alone at every SIMD level;
/// for every quantity, for i and j alone, and for S alone. A batch of one
/// system is also asked as an AseSystem. Returns the entries.
std::size_t check(const Batch& b, const Rule& rule, bool self, const std::string& what) {
    const Answer ref = brute_force(b, rule, self);
    const bp::AseCutoff cutoff = rule.cutoff(b);
    std::unique_ptr<bool[]> keep;
    const bp::AseBatch batch = b.view(keep);
    const bool one = b.systems() == 1;
    bp::AseNeighborList ase;
    bp::AseNeighbors out;
    const auto run = [&](const bp::AseQuantities& q, const std::string& how) {
        bp::Report r = ase.find(batch, cutoff, q, self, out);
        ASSERT_TRUE(r.ok()) << what << how << ": " << ase.error();
        EXPECT_EQ(r.pairs, ref.size()) << what << how;
        expect_same(out, ref, q, what + how);
        if (one) {
            r = ase.find(b.single(), cutoff, q, self, out);
            ASSERT_TRUE(r.ok()) << what << how << " (single): " << ase.error();
            expect_same(out, ref, q, what + how + " (single)");
        }
    };
    const std::size_t systems = nonempty(b);
    for (const char* q : {"ijdDS", "ij", "S", "dD"}) {
        const std::string qs = std::string(" [") + q + "]";
        run(only(q), qs + " by the object's choice");
        EXPECT_EQ(ase.direct_systems() + ase.library_systems(), systems) << what;
        ase.set_direct_limit(0);
        run(only(q), qs + " by the library's list");
        EXPECT_EQ(ase.direct_systems(), 0u) << what;
        EXPECT_EQ(ase.library_systems(), systems) << what;
        ase.set_direct_limit(1e18);
        LevelGuard guard;
        for (bp::SimdLevel level : levels()) {
            bp::set_simd_level(level);
            run(only(q), qs + " by the direct path at " + bp::simd_level_name(level));
            EXPECT_EQ(ase.direct_systems(), systems) << what;
            EXPECT_EQ(ase.library_systems(), 0u) << what;
        }
        ase.set_direct_limit(400.0 * 400.0);
    }
    return ref.size();
}

/// Every rule kind on b (elements 29 and 8 as the batch holds them).
void check_rules(const Batch& b, double cutoff, const std::string& what, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.3 * cutoff, 0.6 * cutoff);
    std::vector<double> r(b.n()), r32(b.n());
    for (std::size_t g = 0; g < b.n(); ++g) r[g] = u(rng), r32[g] = static_cast<double>(static_cast<float>(u(rng)));
    for (bool self : {false, true}) {
        const std::string s = self ? " self" : "";
        check(b, Rule::scalar(cutoff), self, what + " scalar" + s);
        check(b, Rule::radii(r), self, what + " radii" + s);
        check(b, Rule::radii(r32, true), self, what + " float32 radii" + s);
        check(b, Rule::pairs({{29, 29, cutoff}, {29, 8, 0.6 * cutoff}, {8, 8, 1.2 * cutoff}, {29, 29, 0.9 * cutoff}}),
              self, what + " element pairs" + s);
    }
}

TEST(AseNeighborList, OpenSystem) {
    std::mt19937_64 rng(1);
    const Batch b = random_system(rng, 60, cube(10), {false, false, false}, 0, 1, {29, 8});
    check_rules(b, 3.0, "open", 2);
    // No cell at all (zeros).
    Batch m = b;
    std::fill(m.cells.begin(), m.cells.end(), 0.0);
    EXPECT_GT(check(m, Rule::scalar(4.0), false, "no cell"), 0u);
}

TEST(AseNeighborList, Orthorhombic) {
    std::mt19937_64 rng(3);
    for (std::size_t n : {2, 20, 64, 150}) {
        // 64 atoms: a 9.1 A cube under a 5 A cutoff, several images a pair.
        check(copper(rng, n), Rule::scalar(5.0), false, "copper " + std::to_string(n));
        check(copper(rng, n, 0.7), Rule::scalar(5.0), true, "dense copper " + std::to_string(n));
    }
    const Batch b = random_system(rng, 80, {11, 0, 0, 0, 9, 0, 0, 0, 13}, {true, true, true}, -0.2, 1.2, {29, 8});
    check_rules(b, 4.0, "orthorhombic", 4);
}

TEST(AseNeighborList, SeveralImagesOfOneAtom) {
    Batch b;
    b.x = {0.1, 0.2, 0.3, 0.9, 0.4, 0.1};
    b.sys = {0, 0};
    b.z = {6, 8};
    b.cells = {1.1, 0, 0, 0.4, 0.9, 0, 0.2, 0.3, 1.2};
    b.pbc = {{true, true, true}};
    for (double cutoff : {0.5, 1.0, 2.7, 4.1}) {
        check(b, Rule::scalar(cutoff), false, "two atoms " + std::to_string(cutoff));
        check(b, Rule::scalar(cutoff), true, "two atoms, self " + std::to_string(cutoff));
    }
    // fcc copper's primitive cell under a cutoff of two cells.
    Batch cu;
    cu.x = {0, 0, 0};
    cu.sys = {0};
    cu.z = {29};
    cu.cells = {0, 1.8, 1.8, 1.8, 0, 1.8, 1.8, 1.8, 0};
    cu.pbc = {{true, true, true}};
    EXPECT_GT(check(cu, Rule::scalar(7.5), false, "fcc primitive"), 100u);
}

TEST(AseNeighborList, TriclinicAtomsOutsideTheCell) {
    std::mt19937_64 rng(17);
    std::uniform_real_distribution<double> len(3, 8), tilt(-2, 2), cut(0.5, 5);
    std::uniform_int_distribution<std::size_t> count(1, 60);
    for (int seed = 0; seed < 8; ++seed) {
        std::array<double, 9> h;
        for (int k = 0; k < 9; ++k) h[static_cast<std::size_t>(k)] = (k % 4 == 0 ? len(rng) : 0.0) + tilt(rng);
        // Fractional coordinates in [-2.5, 3.5): atoms several cells away.
        const Batch b = random_system(rng, count(rng), h, {true, true, true}, -2.5, 3.5, {29, 8});
        check(b, Rule::scalar(cut(rng)), false, "triclinic " + std::to_string(seed));
    }
    const Batch b = random_system(rng, 50, {6, 0, 0, 1.5, 5, 0, -1, 0.7, 7}, {true, true, true}, -0.5, 1.5, {29, 8});
    check_rules(b, 3.5, "triclinic", 5);
}

TEST(AseNeighborList, MixedPbc) {
    std::mt19937_64 rng(23);
    std::uniform_real_distribution<double> len(3, 6), tilt(-1, 1), cut(1.5, 7);
    for (int mask = 0; mask < 8; ++mask) {
        const std::array<bool, 3> pbc = {(mask & 1) != 0, (mask & 2) != 0, (mask & 4) != 0};
        for (bool tilted : {false, true}) {
            std::array<double, 9> h{};
            for (int k = 0; k < 3; ++k) h[static_cast<std::size_t>(4 * k)] = len(rng);
            if (tilted)
                for (double& v : h) v += tilt(rng);
            const Batch b = random_system(rng, 20, h, pbc, -0.4, 1.4);
            check(b, Rule::scalar(cut(rng)), false, "pbc " + std::to_string(mask) + (tilted ? " tilted" : ""));
        }
    }
    // A slab of a hexagonal cell: two tilted periodic axes, vacuum on z.
    const Batch slab = random_system(rng, 45, {7.6, 0, 0, 3.8, 6.6, 0, 0, 0, 14}, {true, true, false}, 0, 1, {29, 8});
    check_rules(slab, 3.0, "hexagonal slab", 6);
    // One periodic axis along a diagonal.
    const Batch wire = random_system(rng, 30, {3, 3, 0, 0, 0, 0, 0, 0, 0}, {true, false, false}, 0, 1);
    check(wire, Rule::scalar(5.0), false, "diagonal wire");
}

TEST(AseNeighborList, TiesAtTheCutoff) {
    // Simple cubic, a = 2, 4 x 4 x 4 cells: distances 2, 2 sqrt 2, ... exactly.
    Batch sc;
    for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b)
            for (int c = 0; c < 4; ++c) {
                sc.x.insert(sc.x.end(), {2.0 * a, 2.0 * b, 2.0 * c});
                sc.sys.push_back(0);
                sc.z.push_back(29);
            }
    sc.cells = {8, 0, 0, 0, 8, 0, 0, 0, 8};
    sc.pbc = {{true, true, true}};
    for (double cutoff : {2.0, std::nextafter(2.0, 3.0), std::nextafter(2.0, 1.0), 2 * std::sqrt(2.0),
                          std::nextafter(2 * std::sqrt(2.0), 3.0)})
        check(sc, Rule::scalar(cutoff), false, "simple cubic at " + std::to_string(cutoff));
    // Tilted: D from S h rounds; every distance the reference finds, as a
    // cutoff, and just above it.
    Batch b;
    b.x = {0, 0, 0, 0.3, 0.1, 0.2};
    b.sys = {0, 0};
    b.z = {6, 6};
    b.cells = {1.3, 0, 0, 0.65, 1.1, 0, 0.1, 0.2, 1.7};
    b.pbc = {{true, true, true}};
    std::vector<double> d = brute_force(b, Rule::scalar(3.0), false).d;
    std::sort(d.begin(), d.end());
    d.erase(std::unique(d.begin(), d.end()), d.end());
    for (std::size_t k = 0; k < d.size(); k += 7) {
        check(b, Rule::scalar(d[k]), false, "tilted tie " + std::to_string(k));
        check(b, Rule::scalar(std::nextafter(d[k], 10.0)), false, "tilted above a tie " + std::to_string(k));
    }
}

TEST(AseNeighborList, LargeSystems) {
    // Over the direct path's default limit: the library's list.
    std::mt19937_64 rng(29);
    const Batch b = copper(rng, 700);
    bp::AseNeighborList ase;
    bp::AseNeighbors out;
    std::unique_ptr<bool[]> keep;
    ASSERT_TRUE(ase.find(b.view(keep), bp::AseCutoff::scalar(4.0), bp::AseQuantities::all(), false, out).ok());
    EXPECT_EQ(ase.library_systems(), 1u);
    EXPECT_EQ(ase.direct_systems(), 0u);
    // i and j alone: the direct path up to four times the limit.
    ASSERT_TRUE(ase.find(b.view(keep), bp::AseCutoff::scalar(4.0), only("ij"), false, out).ok());
    EXPECT_EQ(ase.direct_systems(), 1u);
    check(b, Rule::scalar(4.0), false, "copper 700");
    const Batch tri = random_system(rng, 500, {17, 0, 0, 4, 16, 0, -3, 2, 18}, {true, true, true}, 0, 1, {29, 8});
    check_rules(tri, 3.5, "triclinic 500", 7);
    const Batch slab = random_system(rng, 500, {20, 0, 0, 10, 17.3, 0, 0, 0, 30}, {true, true, false}, 0, 1);
    check(slab, Rule::scalar(4.5), true, "hexagonal slab 500");
    const Batch open = random_system(rng, 700, cube(25), {false, false, false});
    check(open, Rule::scalar(3.0), false, "open 700");
}

TEST(AseNeighborList, Batches) {
    std::mt19937_64 rng(31);
    Batch all;
    all.append(copper(rng, 64));
    all.append(copper(rng, 500));
    Batch empty = random_system(rng, 0, cube(3), {true, true, true});
    all.append(empty);
    all.append(random_system(rng, 30, {8, 0, 0, 2, 7, 0, 1, 1, 9}, {true, false, true}, -0.3, 1.3));
    all.append(random_system(rng, 25, cube(12), {false, false, false}));
    // In order: one pass of the direct path when every system takes it.
    check(all, Rule::scalar(5.0), false, "batch in order");
    check(all, Rule::scalar(5.0), true, "batch in order, self");
    // The default limit: the 500 atoms by the library's list, the others direct.
    bp::AseNeighborList ase;
    bp::AseNeighbors out;
    std::unique_ptr<bool[]> keep;
    ASSERT_TRUE(ase.find(all.view(keep), bp::AseCutoff::scalar(5.0), bp::AseQuantities::all(), false, out).ok());
    EXPECT_EQ(ase.library_systems(), 1u);
    EXPECT_EQ(ase.direct_systems(), 3u);
    expect_same(out, brute_force(all, Rule::scalar(5.0), false), bp::AseQuantities::all(), "batch, mixed paths");
    // Interleaved: each system's entries in the rows of its atoms.
    Batch mixed;
    std::vector<std::size_t> perm(all.n());
    for (std::size_t g = 0; g < perm.size(); ++g) perm[g] = g;
    std::shuffle(perm.begin(), perm.end(), rng);
    for (std::size_t g : perm) {
        mixed.x.insert(mixed.x.end(), all.x.begin() + static_cast<std::ptrdiff_t>(3 * g),
                       all.x.begin() + static_cast<std::ptrdiff_t>(3 * g + 3));
        mixed.sys.push_back(all.sys[g]);
        mixed.z.push_back(all.z[g]);
    }
    mixed.cells = all.cells, mixed.pbc = all.pbc;
    check(mixed, Rule::scalar(5.0), false, "batch interleaved");
    std::vector<double> r(mixed.n(), 2.0);
    for (std::size_t g = 0; g < r.size(); g += 3) r[g] = 1.4;
    check(mixed, Rule::radii(r), false, "batch interleaved, radii");
}

TEST(AseNeighborList, AseOrder) {
    // Several images of every pair: rows by i, then j, then S.
    std::mt19937_64 rng(37);
    const Batch b = copper(rng, 12, 0.8);
    bp::AseNeighborList ase;
    bp::AseNeighbors out;
    std::unique_ptr<bool[]> keep;
    for (double limit : {0.0, 1e18}) {
        ase.set_direct_limit(limit);
        ASSERT_TRUE(ase.find(b.view(keep), bp::AseCutoff::scalar(6.0), bp::AseQuantities::all(), true, out).ok());
        ASSERT_GT(out.size(), 500u);
        for (std::size_t e = 1; e < out.size(); ++e) {
            const std::array<std::int64_t, 5> p = {out.i[e - 1], out.j[e - 1], out.S[3 * e - 3], out.S[3 * e - 2], out.S[3 * e - 1]};
            const std::array<std::int64_t, 5> q = {out.i[e], out.j[e], out.S[3 * e], out.S[3 * e + 1], out.S[3 * e + 2]};
            ASSERT_TRUE(p < q) << "entry " << e << " at limit " << limit;
        }
    }
}

TEST(AseNeighborList, Steps) {
    // find_direct, then list and write into the caller's arrays: find()'s answer.
    std::mt19937_64 rng(41);
    struct Mine final : bp::AseOutput {
        std::vector<std::int64_t> i, S;
        std::vector<double> d;
        std::size_t calls = 0;
        bp::AseColumns resize(std::size_t rows) override {
            ++calls;
            i.resize(rows), S.resize(3 * rows), d.resize(rows);
            bp::AseColumns c;
            c.i = i.data(), c.S = S.data(), c.d = d.data();
            return c;
        }
    };
    for (std::size_t n : {40, 700}) {
        const Batch b = copper(rng, n);
        const Answer ref = brute_force(b, Rule::scalar(4.0), false);
        bp::AseNeighborList ase;
        std::unique_ptr<bool[]> keep;
        const bp::AseBatch batch = b.view(keep);
        Mine mine;
        bp::Report r;
        const bool direct = ase.find_direct(batch, bp::AseCutoff::scalar(4.0), only("idS"), false, mine, r);
        EXPECT_EQ(direct, n == 40);
        if (!direct) {
            EXPECT_EQ(mine.calls, 0u);
            r = ase.list(batch, bp::AseCutoff::scalar(4.0), false);
            ASSERT_TRUE(r.ok());
            ASSERT_EQ(ase.size(), ref.size());
            bp::AseColumns c = mine.resize(ase.size());
            ase.write(c);
        }
        ASSERT_TRUE(r.ok());
        EXPECT_EQ(r.pairs, ref.size());
        ASSERT_EQ(mine.i.size(), ref.size());
        EXPECT_TRUE(mine.i == ref.i && mine.S == ref.S && mine.d == ref.d) << n;
    }
}

TEST(AseNeighborList, BadInput) {
    bp::AseNeighborList ase;
    bp::AseNeighbors out;
    const double x[6] = {0, 0, 0, 1, 1, 1};
    bp::AseSystem s;
    s.positions = x, s.n = 2;
    s.pbc[0] = s.pbc[1] = s.pbc[2] = true;
    // pbc on an axis whose cell vector is zero.
    bp::Report r = ase.find(s, bp::AseCutoff::scalar(3.0), bp::AseQuantities::all(), false, out);
    EXPECT_EQ(r.status, bp::Status::invalid_argument);
    EXPECT_NE(ase.error().find("cell vector 0 is zero"), std::string::npos) << ase.error();
    EXPECT_EQ(out.size(), 0u);
    EXPECT_TRUE(out.i.empty() && out.d.empty());
    // Parallel cell vectors (no volume).
    s.cell[0][0] = 1, s.cell[1][0] = 2, s.cell[2][2] = 1;
    r = ase.find(s, bp::AseCutoff::scalar(3.0), bp::AseQuantities::all(), false, out);
    EXPECT_EQ(r.status, bp::Status::invalid_argument) << ase.error();
    EXPECT_FALSE(ase.error().empty());
    // Two periodic tilted axes, parallel, beside an open one.
    s.pbc[2] = false;
    s.cell[1][1] = 0, s.cell[0][1] = 0, s.cell[1][2] = 0;
    s.cell[0][1] = 1, s.cell[1][1] = 2;
    r = ase.find(s, bp::AseCutoff::scalar(3.0), bp::AseQuantities::all(), false, out);
    EXPECT_EQ(r.status, bp::Status::invalid_argument);
    EXPECT_NE(ase.error().find("parallel"), std::string::npos) << ase.error();
    // A good call clears the error.
    s.pbc[0] = s.pbc[1] = s.pbc[2] = false;
    r = ase.find(s, bp::AseCutoff::scalar(3.0), bp::AseQuantities::all(), false, out);
    EXPECT_TRUE(r.ok());
    EXPECT_TRUE(ase.error().empty());
    EXPECT_EQ(out.size(), 2u);
    // Positions, cutoffs and system indices.
    const double bad[6] = {0, 0, 0, 1, std::numeric_limits<double>::quiet_NaN(), 1};
    bp::AseSystem t = s;
    t.positions = bad;
    EXPECT_EQ(ase.find(t, bp::AseCutoff::scalar(3.0), bp::AseQuantities::all(), false, out).status, bp::Status::invalid_argument);
    EXPECT_NE(ase.error().find("atom 1"), std::string::npos) << ase.error();
    EXPECT_EQ(out.size(), 0u);
    EXPECT_EQ(ase.find(s, bp::AseCutoff::scalar(-1), bp::AseQuantities::all(), false, out).status, bp::Status::invalid_argument);
    const double radii[2] = {1, std::numeric_limits<double>::infinity()};
    EXPECT_EQ(ase.find(s, bp::AseCutoff::per_atom(radii), bp::AseQuantities::all(), false, out).status,
              bp::Status::invalid_argument);
    const std::int64_t z[2] = {1, 1};
    EXPECT_EQ(ase.find(s, bp::AseCutoff::element_pairs(z, nullptr, 0), bp::AseQuantities::all(), false, out).status,
              bp::Status::invalid_argument);
    const std::int64_t sys[2] = {0, 2};
    const double cells[18] = {};
    const bool pbc[6] = {};
    bp::AseBatch b;
    b.positions = x, b.n = 2, b.system_index = sys, b.systems = 2, b.cells = cells, b.pbc = pbc;
    EXPECT_EQ(ase.find(b, bp::AseCutoff::scalar(3.0), bp::AseQuantities::all(), false, out).status,
              bp::Status::invalid_argument);
    EXPECT_NE(ase.error().find("system_index must be in [0, 2); atom 1 has 2"), std::string::npos) << ase.error();
}

TEST(AseNeighborList, EmptyAndOneAtom) {
    bp::AseNeighborList ase;
    bp::AseNeighbors out;
    bp::AseSystem s;
    EXPECT_TRUE(ase.find(s, bp::AseCutoff::scalar(3.0), bp::AseQuantities::all(), true, out).ok());
    EXPECT_EQ(out.size(), 0u);
    EXPECT_TRUE(out.i.empty() && out.S.empty());
    const double x[3] = {0.5, 0.5, 0.5};
    s.positions = x, s.n = 1;
    s.cell[0][0] = s.cell[1][1] = s.cell[2][2] = 1.0;
    s.pbc[0] = s.pbc[1] = s.pbc[2] = true;
    // The atom's own images within 1.5: 6 at 1, 12 at sqrt 2 (not the 8 at
    // sqrt 3); and itself.
    ASSERT_TRUE(ase.find(s, bp::AseCutoff::scalar(1.5), bp::AseQuantities::all(), true, out).ok());
    EXPECT_EQ(out.size(), 19u);
    ASSERT_TRUE(ase.find(s, bp::AseCutoff::scalar(1.5), bp::AseQuantities::all(), false, out).ok());
    EXPECT_EQ(out.size(), 18u);
    // A zero cutoff lists nothing, not even (i, i, 0).
    ASSERT_TRUE(ase.find(s, bp::AseCutoff::scalar(0.0), bp::AseQuantities::all(), true, out).ok());
    EXPECT_EQ(out.size(), 0u);
}

TEST(AseNeighborList, KeptObjectMoveAndRelease) {
    std::mt19937_64 rng(43);
    const Batch b = copper(rng, 300);
    const Answer ref = brute_force(b, Rule::scalar(4.5), false);
    std::unique_ptr<bool[]> keep;
    bp::AseNeighborList ase;
    bp::AseNeighbors out;
    for (double limit : {0.0, 1e18}) {
        ase.set_direct_limit(limit);
        for (int round = 0; round < 2; ++round) {
            ASSERT_TRUE(ase.find(b.view(keep), bp::AseCutoff::scalar(4.5), bp::AseQuantities::all(), false, out).ok());
            expect_same(out, ref, bp::AseQuantities::all(), "round " + std::to_string(round));
            ase.release();
            EXPECT_EQ(ase.direct_limit(), limit);  // the settings stay
        }
    }
    bp::AseNeighborList moved(std::move(ase));
    ASSERT_TRUE(moved.find(b.view(keep), bp::AseCutoff::scalar(4.5), bp::AseQuantities::all(), false, out).ok());
    expect_same(out, ref, bp::AseQuantities::all(), "moved");
    // The moved-from object is empty and works again.
    EXPECT_EQ(ase.size(), 0u);
    ASSERT_TRUE(ase.find(b.view(keep), bp::AseCutoff::scalar(4.5), bp::AseQuantities::all(), false, out).ok());
    expect_same(out, ref, bp::AseQuantities::all(), "moved-from");
    ase.set_direct_limit(-1);
    EXPECT_EQ(ase.direct_limit(), 0.0);
}

}  // namespace
}  // namespace asetest
