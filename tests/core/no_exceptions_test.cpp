// The public headers compiled with -fno-exceptions (tests/core/CMakeLists.txt
// adds the flag; this file refuses to build without it): every algorithm, two
// sets, the Index, a Scene's events, spheres, a periodic domain and the
// dynamic tree and a neighbour list against brute force written here, and
// the errors the library detects itself, which must come back as a Status
// (never an abort): invalid boxes, a pair budget, a stopping callback, grid
// cell entries past 32-bit indices, a bad period, a bad cell or cutoff.
//
// A plain main() with a CHECK macro: GoogleTest is built with exceptions.
// Float 3-D only, few instantiations. Built twice (tests/core/CMakeLists.txt):
// on the single header (BPTEST_SINGLE_HEADER), which compiles the library
// here without exceptions, and on the public headers, linking the compiled
// library, with src/ on the include path for the grid's body.
#if BPTEST_SINGLE_HEADER
#include "broadphase.hpp"
#else
#include <broadphase/broadphase.hpp>
#include <broadphase/dynamic_tree.hpp>
#include <broadphase/neighbor_list.hpp>
#include <broadphase/periodic.hpp>
#include <broadphase/scene.hpp>
#include <broadphase/spheres.hpp>
#include <broadphase/uniform_grid.hpp>
// A grid of its own policy (HugeSpanPolicy): the grids' body, with the
// uniform grid's policy, whose compiled types stay the library's.
#include "grid/uniform_grid_impl.hpp"
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#if BROADPHASE_EXCEPTIONS
#error "no_exceptions_test.cpp is meant to be compiled with -fno-exceptions"
#endif

namespace bp = broadphase;

namespace {

int failures = 0;

#define CHECK(cond)                                                               \
    do {                                                                          \
        if (!(cond)) {                                                            \
            std::printf("%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
            ++failures;                                                           \
        }                                                                         \
    } while (0)

/// xorshift64*: the same numbers on every platform.
struct Random {
    std::uint64_t s;
    explicit Random(std::uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
    double uniform(double lo, double hi) {
        s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
        return lo + (hi - lo) * static_cast<double>((s * 0x2545F4914F6CDD1Dull) >> 11) * 0x1p-53;
    }
};

/// n random boxes in [0, extent)^3 of side up to `size`; every 37th inverted,
/// every 53rd with a NaN.
bp::Boxes random_boxes(std::size_t n, double extent, double size, std::uint64_t seed, bool odd = true) {
    Random r(seed);
    bp::Boxes out;
    for (std::size_t i = 0; i < n; ++i) {
        bp::Box b;
        for (int k = 0; k < 3; ++k) {
            b.min[k] = static_cast<float>(r.uniform(0, extent));
            b.max[k] = b.min[k] + static_cast<float>(r.uniform(0, size));
        }
        if (odd && i % 37 == 5) std::swap(b.min[1], b.max[1]), b.max[1] -= 1;
        if (odd && i % 53 == 7) b.min[2] = std::numeric_limits<float>::quiet_NaN();
        out.push_back(b);
    }
    return out;
}

bool valid(const bp::Boxes& s, std::size_t i) {
    for (int k = 0; k < 3; ++k)
        if (!(s.min(k)[i] <= s.max(k)[i])) return false;
    return true;
}

bool overlap(const bp::Boxes& a, std::size_t i, const bp::Boxes& b, std::size_t j) {
    if (!valid(a, i) || !valid(b, j)) return false;
    for (int k = 0; k < 3; ++k)
        if (a.max(k)[i] < b.min(k)[j] || b.max(k)[j] < a.min(k)[i]) return false;
    return true;
}

std::vector<bp::Pair> brute_self(const bp::Boxes& s) {
    std::vector<bp::Pair> out;
    for (std::size_t i = 0; i < s.size(); ++i)
        for (std::size_t j = i + 1; j < s.size(); ++j)
            if (overlap(s, i, s, j)) out.push_back({std::uint32_t(i), std::uint32_t(j)});
    return out;
}

std::vector<bp::Pair> brute_cross(const bp::Boxes& a, const bp::Boxes& b) {
    std::vector<bp::Pair> out;
    for (std::size_t i = 0; i < a.size(); ++i)
        for (std::size_t j = 0; j < b.size(); ++j)
            if (overlap(a, i, b, j)) out.push_back({std::uint32_t(i), std::uint32_t(j)});
    return out;
}

std::vector<std::uint32_t> brute_invalid(const bp::Boxes& s) {
    std::vector<std::uint32_t> out;
    for (std::size_t i = 0; i < s.size(); ++i)
        if (!valid(s, i)) out.push_back(std::uint32_t(i));
    return out;
}

std::vector<bp::Pair> sorted(std::vector<bp::Pair> v) {
    std::sort(v.begin(), v.end());
    return v;
}

std::vector<bp::Pair> set_minus(const std::vector<bp::Pair>& a, const std::vector<bp::Pair>& b) {
    std::vector<bp::Pair> out;
    std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
    return out;
}

constexpr bp::Algorithm kAll[] = {bp::Algorithm::automatic,    bp::Algorithm::brute_force,  bp::Algorithm::sweep_and_prune,
                                  bp::Algorithm::uniform_grid, bp::Algorithm::hybrid_grid,  bp::Algorithm::adaptive_grid,
                                  bp::Algorithm::cluster_pairs};

void pairs_every_algorithm() {
    const bp::Boxes a = random_boxes(700, 50, 6, 1), b = random_boxes(300, 50, 9, 2);
    const std::vector<bp::Pair> self = brute_self(a), cross = brute_cross(a, b);
    CHECK(self.size() > 100 && cross.size() > 100);
    bp::PairFinder finder;
    std::vector<bp::Pair> out;
    for (bp::Algorithm alg : kAll) {
        for (unsigned threads : {1u, 3u}) {  // 3: the task pool, with exceptions off
            bp::Options o;
            o.algorithm = alg;
            o.threads = threads;
            o.min_boxes_per_thread = 1;
            o.sorted = true;
            bp::Report r = finder.find_pairs(a, out, o);
            CHECK(r.ok());
            CHECK(out == self);
            CHECK(r.pairs == self.size());
            CHECK(r.invalid_a == brute_invalid(a));
            r = finder.find_pairs(a, b, out, o);
            CHECK(r.ok());
            CHECK(out == cross);
            CHECK(r.invalid_a == brute_invalid(a) && r.invalid_b == brute_invalid(b));
        }
        // The free function and streaming.
        bp::Options o;
        o.algorithm = alg;
        bp::Report r = bp::find_pairs(a, out, o);
        CHECK(r.ok() && sorted(out) == self);
        std::vector<bp::Pair> streamed;
        r = finder.for_each_pair(a, b, [&](std::uint32_t i, std::uint32_t j) { streamed.push_back({i, j}); }, o);
        CHECK(r.ok() && sorted(streamed) == cross);
    }
    // The uniform grid's own class (uniform_grid.hpp).
    bp::UniformGrid grid;
    bp::Report r = grid.find_pairs(a, out);
    CHECK(r.ok() && sorted(out) == self);
}

void budgets_and_callbacks() {
    const bp::Boxes a = random_boxes(500, 50, 6, 3);
    const std::vector<bp::Pair> self = brute_self(a);
    CHECK(self.size() > 20);
    bp::PairFinder finder;
    std::vector<bp::Pair> out;
    for (bp::Algorithm alg : kAll) {
        bp::Options o;
        o.algorithm = alg;
        o.max_pairs = 10;
        bp::Report r = finder.find_pairs(a, out, o);
        CHECK(r.status == bp::Status::pair_budget_exceeded);
        CHECK(out.size() <= 10);
        const std::vector<bp::Pair> kept = sorted(out);
        CHECK(std::includes(self.begin(), self.end(), kept.begin(), kept.end()));
        std::size_t calls = 0;
        o.max_pairs = bp::no_budget;
        r = finder.for_each_pair(a, [&](std::uint32_t, std::uint32_t) { return ++calls < 5; }, o);
        CHECK(r.status == bp::Status::stopped_by_callback);
        CHECK(calls == 5);
        r = finder.find_pairs(a, out, {});  // and then a whole answer
        CHECK(r.ok() && sorted(out) == self);
    }
}

/// A grid that keeps every box in its table however many cells it touches,
/// with tiny cells: a few boxes over the whole scene make about 10^12 cell
/// entries, past 32-bit indices, counted before anything is allocated. With
/// exceptions the grid throws TooManyIndices inside; here it flags it.
struct HugeSpanPolicy {
    static constexpr bool home_cells = false;
    template <class T, int D>
    static typename bp::detail::HybridGridCore<T, D>::Params params(const bp::detail::SoaView<T, D>&,
                                                              bp::detail::StatsScratch&) {
        return bp::detail::grid_params<T, D>(-1, 0.001, 1, std::uint64_t(1) << 62);
    }
};
using HugeSpanGrid = bp::GridFront<float, 3, HugeSpanPolicy>;

void too_many_cell_entries() {
    bp::Boxes over = random_boxes(6000, 100, 0.01, 4, false);
    over.push_back(bp::Box{{0, 0, 0}, {100, 100, 100}});
    const bp::Boxes normal = random_boxes(800, 100, 5, 5);
    HugeSpanGrid grid;
    std::vector<bp::Pair> out;
    std::size_t streamed = 0;
    bp::Report r = grid.find_pairs(over, out);
    CHECK(r.status == bp::Status::too_many_boxes);
    CHECK(out.empty() && r.pairs == 0);
    r = grid.for_each_pair(over, [&](std::uint32_t, std::uint32_t) { ++streamed; });
    CHECK(r.status == bp::Status::too_many_boxes && streamed == 0);
    r = grid.find_pairs(normal, out);  // the same object answers right afterwards
    CHECK(r.ok() && sorted(out) == brute_self(normal));
    const bp::Boxes points = random_boxes(500, 100, 0, 5, false);  // narrower: a two-set search bins `over`
    r = grid.find_pairs(over, points, out);
    CHECK(r.status == bp::Status::too_many_boxes && out.empty());
    r = grid.build(over);
    CHECK(r.status == bp::Status::too_many_boxes);
    CHECK(!grid.built());
    r = grid.build(normal);
    CHECK(r.ok() && grid.built());
    std::vector<std::uint32_t> hits;
    grid.query(normal[0], hits);
    std::sort(hits.begin(), hits.end());
    std::vector<std::uint32_t> want;
    for (std::size_t j = 0; j < normal.size(); ++j)
        if (overlap(normal, 0, normal, j)) want.push_back(std::uint32_t(j));
    CHECK(hits == want);
}

void index_queries() {
    const bp::Boxes built = random_boxes(900, 100, 6, 6), queries = random_boxes(200, 100, 10, 7);
    const std::vector<bp::Pair> cross = brute_cross(queries, built);
    for (bp::Algorithm alg : kAll) {
        bp::Index index;
        bp::Report r = index.build(built, alg);
        CHECK(r.ok());
        CHECK(r.invalid_a == brute_invalid(built));
        std::vector<std::uint32_t> hits;
        for (std::size_t q = 0; q < queries.size(); q += 7) {
            index.query(queries[q], hits);
            std::sort(hits.begin(), hits.end());
            std::vector<std::uint32_t> want;
            for (const bp::Pair& p : cross)
                if (p.a == q) want.push_back(p.b);
            CHECK(hits == want);
        }
        std::vector<bp::Pair> out;
        bp::Options o;
        o.threads = 2;
        o.min_boxes_per_thread = 1;
        o.sorted = true;
        r = index.query_batch(queries, out, o);
        CHECK(r.ok() && out == cross);
        o.max_pairs = 3;
        r = index.query_batch(queries, out, o);
        CHECK(r.status == bp::Status::pair_budget_exceeded && out.size() <= 3);
    }
}

void scene_events() {
    bp::Boxes boxes = random_boxes(400, 60, 5, 8, false);
    for (bp::UpdateMode mode : {bp::UpdateMode::automatic, bp::UpdateMode::rebuild,
                                bp::UpdateMode::multi_box_pruning, bp::UpdateMode::grid, bp::UpdateMode::enlarged}) {
        bp::Scene scene;
        scene.set_update_mode(mode);
        std::vector<bp::Scene::Id> ids;
        for (std::size_t i = 0; i < boxes.size(); ++i) ids.push_back(scene.add(boxes[i]));
        for (std::size_t i = 0; i < ids.size(); ++i) CHECK(ids[i] == i);  // a fresh scene numbers them in order
        bp::Report r = scene.update();
        std::vector<bp::Pair> before = brute_self(boxes);
        CHECK(r.ok());
        CHECK(scene.pairs() == before);
        CHECK(scene.begun() == before && scene.ended().empty());
        Random rnd(9);
        for (int frame = 0; frame < 3; ++frame) {
            for (std::size_t i = 0; i < boxes.size(); i += 5) {  // a fifth of them move
                bp::Box b = boxes[i];
                for (int k = 0; k < 3; ++k) {
                    const float d = static_cast<float>(rnd.uniform(-2, 2));
                    b.min[k] += d, b.max[k] += d;
                }
                boxes.set(i, b);
                scene.move(ids[i], b);
            }
            r = scene.update();
            const std::vector<bp::Pair> now = brute_self(boxes);
            CHECK(r.ok());
            CHECK(scene.pairs() == now);
            CHECK(scene.begun() == set_minus(now, before));
            CHECK(scene.ended() == set_minus(before, now));
            before = now;
        }
        std::size_t hits = 0;
        scene.for_each_overlap(bp::Box{{-100, -100, -100}, {200, 200, 200}}, [&](bp::Scene::Id) { ++hits; });
        CHECK(hits == boxes.size());
        CHECK(scene.set_margin(0.5f));  // the handler around this has no exceptions to catch
    }
}

void dynamic_tree() {
    const bp::Boxes boxes = random_boxes(500, 100, 6, 10, false);
    bp::DynamicTree tree;
    for (std::size_t i = 0; i < boxes.size(); ++i) tree.insert(boxes[i], i);
    const bp::Box q{{20, 20, 20}, {45, 45, 45}};
    std::vector<std::uint32_t> ids;
    tree.query(q, ids);
    std::vector<std::uint64_t> got;
    for (std::uint32_t id : ids) got.push_back(tree.user_value(id));
    std::sort(got.begin(), got.end());
    bp::Boxes one;
    one.push_back(q);
    std::vector<std::uint64_t> want;
    for (const bp::Pair& p : brute_cross(one, boxes)) want.push_back(p.b);
    CHECK(got == want);
}

void spheres() {
    Random r(11);
    const std::size_t n = 800;
    std::vector<float> xyz(3 * n), radii(n);
    for (std::size_t i = 0; i < n; ++i) {
        for (int k = 0; k < 3; ++k) xyz[3 * i + k] = static_cast<float>(r.uniform(0, 40));
        radii[i] = static_cast<float>(r.uniform(0.3, 1.2));
    }
    radii[17] = -1;  // invalid
    std::vector<bp::Pair> want;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j) {
            if (radii[i] < 0 || radii[j] < 0) continue;
            const double dx = double(xyz[3 * i]) - xyz[3 * j], dy = double(xyz[3 * i + 1]) - xyz[3 * j + 1],
                         dz = double(xyz[3 * i + 2]) - xyz[3 * j + 2], rr = double(radii[i]) + radii[j];
            if ((dx * dx + dy * dy) + dz * dz <= rr * rr) want.push_back({std::uint32_t(i), std::uint32_t(j)});
        }
    CHECK(want.size() > 50);
    const bp::SphereView<float> view = bp::sphere_rows(xyz.data(), radii.data(), n);
    bp::SpherePairFinder finder;
    std::vector<bp::Pair> out;
    for (bp::Algorithm alg : {bp::Algorithm::automatic, bp::Algorithm::sweep_and_prune}) {  // grid, box path
        bp::Options o;
        o.algorithm = alg;
        o.sorted = true;
        bp::Report rep = finder.find_pairs(view, out, o);
        CHECK(rep.ok() && out == want);
        CHECK(rep.invalid_a == std::vector<std::uint32_t>{17});
        o.max_pairs = 4;
        rep = finder.find_pairs(view, out, o);
        CHECK(rep.status == bp::Status::pair_budget_exceeded && out.size() <= 4);
    }
    // A bad period: a Status, not std::invalid_argument (nor an abort).
    bp::BasicPeriodicDomain<float, 3> bad;
    bad.period[0] = -1;
    CHECK(!bad.valid());
    out.assign(3, bp::Pair{});
    bp::Report rep = finder.find_pairs(view, bad, out);
    CHECK(rep.status == bp::Status::invalid_argument && out.empty() && rep.pairs == 0);
    CHECK(finder.last_method() == bp::SphereMethod::none);
    rep = bp::find_sphere_pairs(view, bad, out);
    CHECK(rep.status == bp::Status::invalid_argument);
    // A good one: the same pairs as without periods, far from the boundary.
    bp::BasicPeriodicDomain<float, 3> wide;
    wide.period[0] = wide.period[1] = wide.period[2] = 1000;
    CHECK(wide.valid());
    rep = finder.find_pairs(view, wide, out, bp::Options{bp::Algorithm::automatic, true});
    CHECK(rep.ok() && out == want);
}

/// Overlap through some image on every axis of period L (boxes in [0, L + size)).
bool periodic_overlap(const bp::Boxes& s, std::size_t i, std::size_t j, float L) {
    if (!valid(s, i) || !valid(s, j)) return false;
    for (int k = 0; k < 3; ++k) {
        bool any = false;
        for (int m = -2; m <= 2 && !any; ++m) {
            const double sh = double(m) * L;
            any = !(double(s.max(k)[i]) < double(s.min(k)[j]) + sh || double(s.max(k)[j]) + sh < double(s.min(k)[i]));
        }
        if (!any) return false;
    }
    return true;
}

void periodic() {
    const float L = 64;
    const bp::Boxes boxes = random_boxes(600, L, 4, 12);
    std::vector<bp::Pair> want;
    for (std::size_t i = 0; i < boxes.size(); ++i)
        for (std::size_t j = i + 1; j < boxes.size(); ++j)
            if (periodic_overlap(boxes, i, j, L)) want.push_back({std::uint32_t(i), std::uint32_t(j)});
    CHECK(want.size() > brute_self(boxes).size());  // some pairs only across the boundary
    bp::PeriodicDomain domain;
    domain.period[0] = domain.period[1] = domain.period[2] = L;
    bp::PeriodicPairFinder finder;
    std::vector<bp::Pair> out;
    for (bp::Algorithm alg : kAll) {
        bp::Options o;
        o.algorithm = alg;
        o.sorted = true;
        bp::Report r = finder.find_pairs(boxes, domain, out, o);
        CHECK(r.ok() && out == want);
        CHECK(r.invalid_a == brute_invalid(boxes));
    }
    bp::Options budget;
    budget.max_pairs = 7;
    bp::Report r = finder.find_pairs(boxes, domain, out, budget);
    CHECK(r.status == bp::Status::pair_budget_exceeded && out.size() == 7);
    for (float p : {-1.0f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
        bp::PeriodicDomain bad = domain;
        bad.period[2] = p;
        CHECK(!bad.valid());
        out.assign(2, bp::Pair{});
        r = finder.find_pairs(boxes, bad, out);
        CHECK(r.status == bp::Status::invalid_argument && out.empty());
        r = bp::find_pairs(boxes, bad, out);
        CHECK(r.status == bp::Status::invalid_argument);
    }
    r = finder.find_pairs(boxes, domain, out, bp::Options{bp::Algorithm::automatic, true});  // usable afterwards
    CHECK(r.ok() && out == want);
    CHECK(std::string(bp::to_string(bp::Status::invalid_argument)) == "invalid argument");
}

/// A NeighborList (float): a half list in a periodic cube against the
/// minimum image; a bad cell, cutoff or skin gives Status::invalid_argument
/// from build() (an empty list), not std::invalid_argument.
void neighbor_list() {
    const float L = 20;
    const std::size_t n = 400;
    Random r(13);
    std::vector<float> xyz(3 * n);
    for (float& v : xyz) v = static_cast<float>(r.uniform(0, L - 0.01));
    xyz[3 * 7 + 1] = std::numeric_limits<float>::quiet_NaN();  // invalid
    const double cutoff = 1.2, skin = 0.3, reach = cutoff + skin;
    std::vector<bp::Pair> want;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j) {
            if (i == 7 || j == 7) continue;
            double d2 = 0;
            for (int k = 0; k < 3; ++k) {
                double d = double(xyz[3 * j + k]) - double(xyz[3 * i + k]);
                if (d > L / 2) d -= L;  // reach < L / 2: one image at most
                if (d < -L / 2) d += L;
                d2 += d * d;
            }
            if (d2 <= reach * reach) want.push_back({std::uint32_t(i), std::uint32_t(j)});
        }
    CHECK(want.size() > 100);
    bp::NeighborListOptions o;
    o.cutoff = cutoff, o.skin = skin;
    const bp::PeriodicCell cube = bp::PeriodicCell::orthorhombic(L, L, L);
    bp::NeighborListF list(o, cube);
    CHECK(list.update(xyz.data(), n));
    CHECK(list.report().ok());
    CHECK(list.report().invalid_a == std::vector<std::uint32_t>{7});
    std::vector<bp::Pair> got;
    for (std::size_t i = 0; i < n; ++i)
        for (std::uint64_t e = list.offsets()[i]; e < list.offsets()[i + 1]; ++e) {
            const std::uint32_t j = list.indices()[e];
            got.push_back(i < j ? bp::Pair{std::uint32_t(i), j} : bp::Pair{j, std::uint32_t(i)});
        }
    CHECK(sorted(got) == want);
    // A budget.
    o.max_entries = 5;
    bp::NeighborListF small(o, cube);
    CHECK(small.build(xyz.data(), n).status == bp::Status::pair_budget_exceeded);
    o.max_entries = bp::no_budget;
    // Bad cells and options: a Status from every build, an empty list.
    const float nan = std::numeric_limits<float>::quiet_NaN();
    bp::PeriodicCell flat;  // zero volume: b along a
    flat.vectors = {{{1, 0, 0}, {2, 0, 0}, {0, 0, 1}}};
    const bp::PeriodicCell bad_cells[] = {bp::PeriodicCell::orthorhombic(nan, L, L), flat,
                                          bp::PeriodicCell::triclinic(L, L, 0, 1, 0, 0),  // tilt, open z
                                          bp::PeriodicCell::orthorhombic(L, -L, L)};
    for (const bp::PeriodicCell& c : bad_cells) {
        bp::NeighborListF bad(o, c);
        const bp::Report rep = bad.build(xyz.data(), n);
        CHECK(rep.status == bp::Status::invalid_argument);
        CHECK(bad.entries() == 0 && bad.offsets().size() == n + 1 && bad.offsets()[n] == 0);
        CHECK(bad.update(xyz.data(), n));  // still stale: tries again
        CHECK(bad.report().status == bp::Status::invalid_argument);
    }
    // set_cell to a bad cell on a good list: the next build says so.
    bp::NeighborListF later(o, cube);
    later.set_cell(flat);
    CHECK(later.build(xyz.data(), n).status == bp::Status::invalid_argument && later.entries() == 0);
    later.set_cell(cube);
    CHECK(later.build(xyz.data(), n).ok() && later.entries() == want.size());
    for (double v : {-1.0, double(nan), double(std::numeric_limits<float>::infinity())}) {
        bp::NeighborListOptions b = o;
        b.cutoff = v;
        bp::NeighborListF bc(b, cube);
        CHECK(bc.build(xyz.data(), n).status == bp::Status::invalid_argument && bc.entries() == 0);
        b = o;
        b.skin = v;
        bp::NeighborListF bs(b, cube);
        CHECK(bs.build(xyz.data(), n).status == bp::Status::invalid_argument && bs.entries() == 0);
    }
}

}  // namespace

int main() {
    pairs_every_algorithm();
    budgets_and_callbacks();
    too_many_cell_entries();
    index_queries();
    scene_events();
    dynamic_tree();
    spheres();
    periodic();
    neighbor_list();
    if (failures) {
        std::printf("%d checks failed\n", failures);
        return 1;
    }
    std::printf("all checks passed (built without exceptions)\n");
    return 0;
}
