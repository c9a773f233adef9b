#include "test_scenes.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <broadphase_fixtures/scenes.hpp>

namespace bptest {

namespace bs = broadphase_fixtures;
using broadphase::Box;
using broadphase::Boxes;

namespace {

const float inf = std::numeric_limits<float>::infinity();
const float nan = std::numeric_limits<float>::quiet_NaN();
const float big = std::numeric_limits<float>::max();

void append(Boxes& to, const Boxes& from) {
    for (std::size_t i = 0; i < from.size(); ++i) to.push_back(from[i]);
}

Boxes cubes_at(std::size_t n, std::uint64_t seed, double lo, double hi, double size) {
    Boxes out;
    Random r(seed);
    for (std::size_t i = 0; i < n; ++i) {
        const double x = r.uniform(lo, hi), y = r.uniform(lo, hi), z = r.uniform(lo, hi);
        out.push_back(box3(float(x), float(y), float(z), float(x + size), float(y + size), float(z + size)));
    }
    return out;
}

}  // namespace

ScenePair identical_scene() {
    // a: 2,000 copies (1,999,000 pairs); b: 300 copies plus boxes that touch
    // the copies' faces, edges and corners and boxes that miss them.
    ScenePair s{bs::identical(2000), bs::identical(300)};
    // identical() boxes are [8, 12]^3.
    s.b.push_back(box3(12, 8, 8, 13, 12, 12));    // face
    s.b.push_back(box3(12, 12, 8, 13, 13, 12));   // edge
    s.b.push_back(box3(12, 12, 12, 13, 13, 13));  // corner
    s.b.push_back(box3(-1, -1, -1, 8, 8, 8));     // corner, from below
    s.b.push_back(box3(12.001f, 8, 8, 13, 12, 12));  // a hair apart
    s.b.push_back(box3(10, 10, 10, 10, 10, 10));   // point inside
    return s;
}

ScenePair points_scene() {
    // Zero-size boxes on a coarse lattice, many coincident, and points on the
    // faces, edges and corners of unit cubes.
    ScenePair s{bs::points(700, 7), bs::points(300, 17)};
    for (int i = 0; i < 5; ++i) s.a.push_back(box3(3, 3, 3, 3, 3, 3));  // coincident with lattice points
    s.b.push_back(box3(2, 2, 2, 3, 3, 3));        // unit cube: lattice points on its corners
    s.b.push_back(box3(2.5f, 2, 2, 3, 3, 3));     // faces through lattice points
    s.b.push_back(box3(0, 0, 0, 7, 7, 7));        // holds every point
    s.b.push_back(box3(3.5f, 3.5f, 3.5f, 3.5f, 3.5f, 3.5f));  // a point between lattice points
    s.b.push_back(box3(0, 0, 0, 0, 0, 7));        // a segment along z
    s.b.push_back(box3(0, 0, 0, 7, 0, 0));        // a segment along x
    s.b.push_back(box3(0, 0, 0, 7, 7, 0));        // a square in z = 0
    return s;
}

ScenePair touching_lattice_scene() {
    // a: 10^3 unit cubes touching face to face (10,476 pairs: faces, edges,
    // corners); b: a 6^3 lattice of unit cubes moved by half a cube, plus a
    // lattice of points exactly on a's corners.
    ScenePair s{bs::lattice(10), Boxes{}};
    Boxes shifted = bs::lattice(6);
    for (std::size_t i = 0; i < shifted.size(); ++i) {
        Box b = shifted[i];
        for (int k = 0; k < 3; ++k) b.min[k] += 0.5f, b.max[k] += 0.5f;
        s.b.push_back(b);
    }
    for (int x = 0; x <= 10; x += 2)
        for (int y = 0; y <= 10; y += 5)
            for (int z = 0; z <= 10; z += 5) s.b.push_back(box3(float(x), float(y), float(z), float(x), float(y), float(z)));
    return s;
}

ScenePair tiny_and_huge_scene() {
    ScenePair s;
    Random r(31);
    for (int set = 0; set < 2; ++set) {
        Boxes& out = set == 0 ? s.a : s.b;
        const std::size_t n = set == 0 ? 1500 : 700;
        for (std::size_t i = 0; i < n; ++i) {
            const double x = r.uniform(-200, 200), y = r.uniform(-200, 200), z = r.uniform(-200, 200);
            double e;
            switch (i % 10) {
                case 0: e = 0; break;
                case 1: e = 1e-6; break;
                case 2: e = 1e-3; break;
                case 3: e = 2e3; break;   // spans the whole region
                case 4: e = r.uniform(50, 400); break;
                default: e = r.uniform(0.1, 5); break;
            }
            out.push_back(box3(float(x), float(y), float(z), float(x + e), float(y + e * 0.5), float(z + e * 0.25)));
        }
    }
    s.a.push_back(box3(-1e5f, -1e5f, -1e5f, 1e5f, 1e5f, 1e5f));
    s.b.push_back(box3(1e-30f, 1e-30f, 1e-30f, 2e-30f, 2e-30f, 2e-30f));
    s.b.push_back(box3(-1e-38f, -1e-38f, -1e-38f, 1e-38f, 1e-38f, 1e-38f));  // denormal-sized
    return s;
}

ScenePair far_outliers_scene() {
    // Teapot in a stadium: most boxes in a small cube, a few at 9000, 1e6,
    // 1e20, and at the ends of the float range.
    ScenePair s{bs::clouds_with_outliers(1500, 20, 20, 20, 41), bs::clouds_with_outliers(500, 20, 20, 20, 42)};
    for (Boxes* set : {&s.a, &s.b}) {
        set->push_back(bs::cube(1e6, 1e6, 1e6, -1, 1));
        set->push_back(bs::cube(-1e6, 1e6, 0, -1, 1));
        set->push_back(bs::cube(1e20, -1e20, 1e20, -1e15, 1e15));
        set->push_back(box3(big, big, big, big, big, big));
        set->push_back(box3(-big, -big, -big, -big * 0.5f, -big * 0.5f, -big * 0.5f));
    }
    s.b.push_back(bs::cube(9001.5, 9001.5, 9001.5, 0, 0));  // touches one of a's outliers exactly at a corner
    return s;
}

ScenePair negative_coordinates_scene() {
    ScenePair s{bs::random_boxes(1500, 51, -1000, 60, 0, 8), bs::random_boxes(600, 52, -1000, 60, 0, 8)};
    // Boxes meeting at zero with signed zeros: -0 == +0, so they touch.
    for (Boxes* set : {&s.a, &s.b}) {
        set->push_back(box3(-1, -1, -1, -0.0f, -0.0f, -0.0f));
        set->push_back(box3(0.0f, 0.0f, 0.0f, 1, 1, 1));
        set->push_back(box3(-0.0f, -0.0f, -0.0f, 0.0f, 0.0f, 0.0f));
        set->push_back(box3(0.0f, -1, -1, 0.0f, 1, 1));
        set->push_back(box3(-2, -2, -2, -0.0f, 2, 2));
    }
    append(s.a, bs::random_boxes(200, 53, -0.5, 3, 0, 1));  // straddling zero
    return s;
}

ScenePair offset_1e7_scene() {
    // Around 1e7 floats are 1 apart: coordinates collide and touch often.
    ScenePair s{bs::random_boxes(1500, 61, 1e7, 200, 0, 10), bs::random_boxes(600, 62, -1e7, 200, 0, 10)};
    append(s.b, bs::random_boxes(400, 63, 1e7, 200, 0, 10));
    Boxes lat = bs::lattice(5);
    for (std::size_t i = 0; i < lat.size(); ++i) {
        Box b = lat[i];
        for (int k = 0; k < 3; ++k) b.min[k] += 1e7f, b.max[k] += 1e7f;
        s.a.push_back(b);
    }
    return s;
}

ScenePair infinite_slabs_scene() {
    ScenePair s{bs::slabs_and_outliers(1000, 71), bs::random_boxes(400, 72, 0, 100, 0, 8)};
    for (Boxes* set : {&s.a, &s.b}) {
        set->push_back(box3(-inf, 3, 3, inf, 4, 4));          // infinite along x only
        set->push_back(box3(3, -inf, 3, 4, inf, 4));          // along y only
        set->push_back(box3(3, 3, -inf, 4, 4, inf));          // along z only
        set->push_back(box3(-inf, -inf, 0, inf, inf, 0));     // plane z = 0
        set->push_back(box3(-inf, 0, 0, -inf, 10, 10));       // flat at x = -inf
        set->push_back(box3(inf, 0, 0, inf, 10, 10));         // flat at x = +inf
        set->push_back(box3(10, 10, 10, inf, inf, inf));      // an octant
        set->push_back(box3(-inf, -inf, -inf, -50, -50, -50));
    }
    return s;
}

ScenePair invalid_mixed_scene() {
    ScenePair s{bs::with_invalid(1000, 81), bs::with_invalid(400, 82)};
    // Every kind of invalid box, at the start, the middle and the end.
    std::vector<Box> bad;
    for (int k = 0; k < 3; ++k) {
        Box b = box3(1, 1, 1, 2, 2, 2);
        b.min[k] = nan;
        bad.push_back(b);
        b = box3(1, 1, 1, 2, 2, 2);
        b.max[k] = nan;
        bad.push_back(b);
        b = box3(1, 1, 1, 2, 2, 2);
        b.min[k] = 2.5f;  // min > max
        bad.push_back(b);
        b = box3(-10, -10, -10, 10, 10, 10);
        b.min[k] = inf, b.max[k] = -inf;
        bad.push_back(b);
    }
    bad.push_back(box3(nan, nan, nan, nan, nan, nan));
    bad.push_back(box3(0, 0, 0, -0.0001f, 0, 0));
    bad.push_back(box3(-inf, -inf, -inf, nan, inf, inf));
    Boxes a;
    for (const Box& b : bad) a.push_back(b);
    append(a, s.a);
    for (const Box& b : bad) a.push_back(b);
    s.a = a;
    for (std::size_t i = 0; i < bad.size(); ++i) s.b.set(i * 13 % s.b.size(), bad[i]);
    s.b.push_back(bad.front());
    return s;
}

ScenePair all_invalid_scene() {
    ScenePair s{bs::identical(60), bs::random_boxes(80, 91, 0, 10, 0, 10)};
    spoil(s.a, 0, 1);
    spoil(s.b, 1, 2);
    return s;
}

ScenePair planar_scene() {
    // a: every box flat in z at z = 5 (zero extent on one axis), integer
    // x and y so many touch; b: boxes crossing the plane, on it, and just off it.
    ScenePair s;
    Random r(101);
    for (int i = 0; i < 1500; ++i) {
        const float x = float(r.below(60)), y = float(r.below(60));
        s.a.push_back(box3(x, y, 5, x + float(r.below(3)), y + float(r.below(3)), 5));
    }
    for (int i = 0; i < 600; ++i) {
        const float x = float(r.below(60)), y = float(r.below(60));
        switch (i % 4) {
            case 0: s.b.push_back(box3(x, y, 4, x + 1, y + 1, 6)); break;
            case 1: s.b.push_back(box3(x, y, 5, x + 2, y, 5)); break;  // flat on two axes
            case 2: s.b.push_back(box3(x, y, 5.0001f, x + 3, y + 3, 7)); break;
            default: s.b.push_back(box3(x, 5, y, x + 1, 5, y + 1)); break;  // flat in y instead
        }
    }
    return s;
}

ScenePair long_thin_box_scene() {
    ScenePair s{bs::random_boxes(1500, 111, 0, 100, 0, 6), bs::random_boxes(500, 112, 0, 100, 0, 6)};
    s.a.push_back(box3(-1e6f, -0.5f, -0.5f, 1e6f, 0.5f, 0.5f));  // a needle along x through the middle
    s.a.push_back(box3(-1e6f, -1e6f, -1e6f, 1e6f, 1e6f, 1e6f));  // crosses everything
    s.b.push_back(box3(3, -1e6f, 3, 3.5f, 1e6f, 3.5f));          // a needle along y
    s.b.push_back(box3(-100, -100, 0, 100, 100, 0));             // a thin sheet
    return s;
}

ScenePair mixed_sizes_scene() {
    ScenePair s{bs::mixed(2500, 121), bs::uniform(1500, 122)};
    return s;
}

ScenePair different_scales_scene() {
    // Small cubes, many, against cubes 100 times wider, fewer, over the same
    // region (and a dense knot of the small ones): the grids' two-set search
    // bins the wide set, whatever the counts (bin_first_set).
    ScenePair s{cubes_at(2000, 301, -50, 50, 0.5), cubes_at(200, 302, -60, 40, 50)};
    append(s.a, cubes_at(400, 303, 0, 2, 0.25));
    return s;
}

ScenePair nested_scene() {
    // 400 concentric boxes (all 79,800 pairs overlap) and boxes nested in corners.
    ScenePair s;
    for (int i = 0; i < 400; ++i) {
        const float h = 1.0f + float(i) * 0.25f;
        s.a.push_back(box3(-h, -h, -h, h, h, h));
    }
    for (int i = 0; i < 300; ++i) {
        const float h = float(i) * 0.5f;
        s.b.push_back(box3(h, h, h, h + 1, h + 1, h + 1));
    }
    return s;
}

ScenePair clustered_scene() {
    ScenePair s;
    for (int c = 0; c < 6; ++c) {
        const double at = c * 1000.0 - 2500;
        append(s.a, cubes_at(300, 130 + c, at, at + 12, 2));
        append(s.b, cubes_at(100, 140 + c, at + 5, at + 20, 3));
    }
    return s;
}

ScenePair extreme_values_scene() {
    // The largest finite floats, denormals, and boxes spanning the whole range.
    ScenePair s{bs::random_boxes(300, 151, 0, 1e30, 0, 1e30), bs::random_boxes(300, 152, 0, 1e37, 0, 1e37)};
    const float tiny = std::numeric_limits<float>::denorm_min();
    for (Boxes* set : {&s.a, &s.b}) {
        set->push_back(box3(-big, -big, -big, big, big, big));
        set->push_back(box3(big, -big, 0, big, big, 0));
        set->push_back(box3(tiny, tiny, tiny, 2 * tiny, 2 * tiny, 2 * tiny));
        set->push_back(box3(-tiny, -tiny, -tiny, 0, 0, 0));
        set->push_back(box3(0, 0, 0, 0, 0, 0));
        set->push_back(box3(1e38f, 1e38f, 1e38f, big, big, big));
    }
    return s;
}

ScenePair huge_coordinates_scene() {
    // Small boxes near the origin (they set a small cell size) and clusters of
    // small, overlapping boxes far out where cell coordinates overflow any
    // integer, plus boxes bridging the clusters.
    ScenePair s{bs::random_boxes(800, 161, 0, 50, 0, 4), bs::random_boxes(300, 162, 0, 50, 0, 4)};
    const double centres[] = {1e9, -1e12, 1e20, -1e30, 1e30, 3e38, -3e38};
    Random r(163);
    for (double c : centres) {
        for (int i = 0; i < 40; ++i) {
            // Offsets far below the float spacing at c: many boxes coincide.
            const double u = c * (1 + 1e-6 * r.uniform(-1, 1)), w = c * 1e-6;
            const float x0 = float(u), x1 = float(u + std::abs(w) * r.unit());
            Box b = box3(x0, x0, x0, x1, x1, x1);
            for (int k = 0; k < 3; ++k)
                if (b.min[k] > b.max[k]) std::swap(b.min[k], b.max[k]);
            (i % 3 ? s.a : s.b).push_back(b);
        }
    }
    s.a.push_back(box3(-1e30f, -1e30f, -1e30f, 1e30f, 1e30f, 1e30f));
    s.b.push_back(box3(0, 0, 0, 1e21f, 1e21f, 1e21f));
    s.b.push_back(box3(-big, -big, -big, -1e29f, -1e29f, -1e29f));
    return s;
}

std::vector<std::pair<std::string, Boxes>> tiny_sets() {
    std::vector<std::pair<std::string, Boxes>> out;
    out.push_back({"empty", Boxes{}});
    Boxes one;
    one.push_back(box3(0, 0, 0, 1, 1, 1));
    out.push_back({"one box", one});
    Boxes one_point;
    one_point.push_back(box3(1, 1, 1, 1, 1, 1));
    out.push_back({"one point", one_point});
    Boxes one_invalid;
    one_invalid.push_back(box3(0, 0, 0, nan, 1, 1));
    out.push_back({"one invalid box", one_invalid});
    Boxes two;
    two.push_back(box3(0, 0, 0, 1, 1, 1));
    two.push_back(box3(1, 1, 1, 2, 2, 2));
    out.push_back({"two boxes touching at a corner", two});
    Boxes apart;
    apart.push_back(box3(0, 0, 0, 1, 1, 1));
    apart.push_back(box3(1.5f, 0, 0, 2, 1, 1));
    out.push_back({"two boxes apart", apart});
    Boxes three;
    three.push_back(box3(0, 0, 0, 1, 1, 1));
    three.push_back(box3(2, 2, 2, 1, 1, 1));  // invalid
    three.push_back(box3(0.5f, 0.5f, 0.5f, 3, 3, 3));
    out.push_back({"three boxes, the middle one invalid", three});
    return out;
}

// ---------------------------------------------------------------------------
// Cases shared by the differential suites

Boxes random_case(std::size_t n, std::uint64_t seed) {
    Boxes b = random_scene<float, 3>(n, seed);
    if (seed % 3 == 0) spoil(b, seed % 5, 5 + seed % 4);
    return b;
}

std::string case_name(std::size_t n, std::uint64_t seed) {
    return "random scene: n=" + std::to_string(n) + " seed=" + std::to_string(seed) + " kind=" +
           kind_name(static_cast<RandomKind>(seed % static_cast<std::uint64_t>(RandomKind::count))) +
           (seed % 3 == 0 ? " with invalid boxes" : "");
}

std::vector<HandCase> hand_cases() {
    const float above_one = std::nextafter(1.0f, 2.0f);
    return {
        {"faces touch", {box3(0, 0, 0, 1, 1, 1), box3(1, 0, 0, 2, 1, 1)}, {{0, 1}}, {}},
        {"edges touch", {box3(0, 0, 0, 1, 1, 1), box3(1, 1, 0, 2, 2, 1)}, {{0, 1}}, {}},
        {"corners touch", {box3(0, 0, 0, 1, 1, 1), box3(1, 1, 1, 2, 2, 2)}, {{0, 1}}, {}},
        {"one ulp apart", {box3(0, 0, 0, 1, 1, 1), box3(above_one, 0, 0, 2, 1, 1)}, {}, {}},
        {"apart on one axis only", {box3(0, 0, 0, 1, 1, 1), box3(0, 0, 1.5f, 1, 1, 2)}, {}, {}},
        {"point on a corner, point inside, point outside",
         {box3(0, 0, 0, 1, 1, 1), box3(1, 1, 1, 1, 1, 1), box3(0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f),
          box3(1, 1, above_one, 1, 1, above_one)},
         {{0, 1}, {0, 2}},
         {}},
        {"coincident points", {box3(2, 2, 2, 2, 2, 2), box3(2, 2, 2, 2, 2, 2), box3(2, 2, 2, 2, 2, 2)},
         {{0, 1}, {0, 2}, {1, 2}},
         {}},
        {"contained box", {box3(0, 0, 0, 10, 10, 10), box3(4, 4, 4, 5, 5, 5)}, {{0, 1}}, {}},
        {"signed zeros touch", {box3(-1, -1, -1, -0.0f, -0.0f, -0.0f), box3(0, 0, 0, 1, 1, 1)}, {{0, 1}}, {}},
        {"invalid boxes take no part",
         {box3(0, 0, 0, 1, 1, 1), box3(0, 0, 0, nan, 1, 1), box3(0, 0, 0, 1, 1, 1), box3(0.5f, 0, 0, 0.4f, 1, 1),
          box3(nan, nan, nan, nan, nan, nan), box3(0, 0, 0, 1, 1, 1)},
         {{0, 2}, {0, 5}, {2, 5}},
         {1, 3, 4}},
        {"reversed infinities are invalid", {box3(inf, 0, 0, -inf, 1, 1), box3(0, 0, 0, 1, 1, 1)}, {}, {0}},
        {"infinite slab meets a far box on its plane",
         {box3(-inf, -inf, 0, inf, inf, 0), box3(1e30f, -1e30f, 0, 1e30f, -1e30f, 0), box3(5, 5, 1e-30f, 6, 6, 1)},
         {{0, 1}},
         {}},
        {"whole space meets everything",
         {box3(-inf, -inf, -inf, inf, inf, inf), box3(inf, inf, inf, inf, inf, inf),
          box3(-inf, -inf, -inf, -inf, -inf, -inf), box3(3, 3, 3, 4, 4, 4)},
         {{0, 1}, {0, 2}, {0, 3}},
         {}},
    };
}

Boxes boxes_of(const std::vector<Box>& v) {
    Boxes b;
    for (const Box& x : v) b.push_back(x);
    return b;
}

Boxes budget_scene(int n, std::uint64_t seed) {
    Boxes b;
    Random r(seed);
    for (int i = 0; i < n; ++i) {
        const float x = float(r.uniform(0, 40)), y = float(r.uniform(0, 40)), z = float(r.uniform(0, 40));
        const float e = float(r.uniform(0, 8));
        b.push_back(box3(x, y, z, x + e, y + e, z + e));
    }
    spoil(b, 0, 9);
    return b;
}

std::vector<Boxes> determinism_scenes() {
    std::vector<Boxes> out;
    out.push_back(random_scene<float, 3>(3000, 11, RandomKind::dense));
    out.push_back(invalid_mixed_scene().a);
    out.push_back(infinite_slabs_scene().a);
    out.push_back(bs::mixed(2000, 3));
    out.push_back(bs::lattice(8));
    return out;
}

ScenePair real_scene_pair(const std::string& kind) {
    ScenePair s;
    bs::make_scene(kind + ":1200", s.a);
    bs::make_scene(kind + ":400", s.b);
    return s;
}

}  // namespace bptest
