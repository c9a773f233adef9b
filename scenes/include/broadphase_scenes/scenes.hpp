// Built-in scenes: deterministic box sets (fixed seeds, the same on every
// platform) used by the CLI, the tests and the benchmarks alike.
//
// The scenes of the five challenges set by the article "Simple Fast Adaptive
// Grid to Accelerate Collision Detection between AABB of Particles"
// (CodeProject, 2022; "the adaptive-grid article" below) use the AABB of its
// 5x5x5 point cloud around a centre c: [c-2.5, c+1.5] on every axis.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <broadphase/boxes.hpp>
#include "random.hpp"
#include "real_scenes.hpp"

namespace broadphase_scenes {

inline broadphase::Box cube(double cx, double cy, double cz, double lo_off, double hi_off) {
    broadphase::Box b;
    b.min = {float(cx + lo_off), float(cy + lo_off), float(cz + lo_off)};
    b.max = {float(cx + hi_off), float(cy + hi_off), float(cz + hi_off)};
    return b;
}

/// The adaptive-grid article's point-cloud AABB around c.
inline broadphase::Box cloud_box(double cx, double cy, double cz) { return cube(cx, cy, cz, -2.5, 1.5); }

/// n cloud boxes with centres uniform in [0,sx)x[0,sy)x[0,sz), then the
/// adaptive-grid article's three far outliers ("teapot in stadium") at 9000, 9001, 9002.
inline broadphase::Boxes clouds_with_outliers(std::size_t n, double sx, double sy, double sz, std::uint64_t seed) {
    broadphase::Boxes out;
    out.reserve(n + 3);
    Random r(seed);
    for (std::size_t i = 0; i < n; ++i) {
        const double x = r.uniform(0, sx), y = r.uniform(0, sy), z = r.uniform(0, sz);
        out.push_back(cloud_box(x, y, z));
    }
    for (int k = 0; k < 3; ++k) out.push_back(cloud_box(9000 + k, 9000 + k, 9000 + k));
    return out;
}

/// 20,001 boxes in [0,900)^3 plus 3 far ones: few overlaps (the article's challenge 3).
inline broadphase::Boxes sparse20k() { return clouds_with_outliers(20001, 900, 900, 900, 1); }
/// 20,001 boxes in [0,150)^3 plus 3 far ones: about 29,000 pairs (the article's challenge 3).
inline broadphase::Boxes dense20k() { return clouds_with_outliers(20001, 150, 150, 150, 2); }
/// 40,001 boxes in [0,1500)x[0,150)^2 plus 3 far ones (the article's challenge 4).
inline broadphase::Boxes stretched40k() { return clouds_with_outliers(40001, 1500, 150, 150, 3); }

/// 16 clusters of 2,500 boxes, each cluster a 150-cube, far apart (the article's challenge 4).
inline broadphase::Boxes clusters40k() {
    broadphase::Boxes out;
    out.reserve(40000);
    Random r(4);
    for (int j = 0; j < 16; ++j) {
        for (int i = 0; i < 2500; ++i) {
            const double x = (j % 2) * 5000 + r.unit() * 150;
            const double y = ((j / 2) % 2) * 5000 + r.unit() * 150;
            const double z = (j / 4) * 2500 + r.unit() * 150;
            out.push_back(cloud_box(x, y, z));
        }
    }
    return out;
}

/// The adaptive-grid article's challenge 1: point clouds. A cloud is a 5x5x5
/// lattice with a centre c and a spacing s: point p = i + 5j + 25k (i, j, k in
/// 0..4) lies at c + ((i, j, k) - 2.5) * s, each coordinate computed in double
/// and rounded to float once. So a coordinate depends only on its own axis
/// index (the cloud is the Cartesian product of three sets of 5 floats) and
/// grows with it, and the cloud's AABB, [c - 2.5s, c + 1.5s] on every axis, is
/// exactly the min and max of its points. The article uses s = 1 (offsets
/// -2.5..1.5, the AABB of cloud_box).
constexpr int cloud_side = 5;
constexpr int cloud_points = cloud_side * cloud_side * cloud_side;

/// Coordinate i (0..4) of a lattice cloud on one axis.
inline float cloud_coordinate(double centre, double spacing, int i) {
    return static_cast<float>(centre + (i - 2.5) * spacing);
}

/// Writes one cloud's 125 points to out[0..375), x y z per point, point
/// i + 5j + 25k at offset 3 * (i + 5j + 25k).
inline void make_point_cloud(double cx, double cy, double cz, double spacing, float* out) {
    for (int k = 0; k < cloud_side; ++k)
        for (int j = 0; j < cloud_side; ++j)
            for (int i = 0; i < cloud_side; ++i) {
                float* p = out + 3 * (i + cloud_side * j + cloud_side * cloud_side * k);
                p[0] = cloud_coordinate(cx, spacing, i);
                p[1] = cloud_coordinate(cy, spacing, j);
                p[2] = cloud_coordinate(cz, spacing, k);
            }
}

/// The AABB of make_point_cloud's points (their exact min and max).
inline broadphase::Box point_cloud_box(double cx, double cy, double cz, double spacing) {
    broadphase::Box b;
    b.min = {cloud_coordinate(cx, spacing, 0), cloud_coordinate(cy, spacing, 0), cloud_coordinate(cz, spacing, 0)};
    b.max = {cloud_coordinate(cx, spacing, cloud_side - 1), cloud_coordinate(cy, spacing, cloud_side - 1),
             cloud_coordinate(cz, spacing, cloud_side - 1)};
    return b;
}

/// Half the adaptive-grid article's contact distance: two clouds collide when some point of one
/// is closer than 1 to some point of the other, and their AABBs need not
/// overlap for that (two clouds 0.5 apart collide), so the broad phase works
/// on the AABBs grown by 0.5 on every side.
constexpr double cloud_contact_margin = 0.5;

/// `box` grown by `margin` on every side, rounded outwards (one float step
/// beyond the nearest float), so that the grown box contains the exact one.
inline broadphase::Box grown_box(const broadphase::Box& box, double margin) {
    const float inf = std::numeric_limits<float>::infinity();
    broadphase::Box g;
    for (int k = 0; k < 3; ++k) {
        g.min[k] = std::nextafter(static_cast<float>(double(box.min[k]) - margin), -inf);
        g.max[k] = std::nextafter(static_cast<float>(double(box.max[k]) + margin), inf);
    }
    return g;
}

/// Point clouds: cloud c's points are points[3 * cloud_points * c ...]
/// (125 points, x y z each), the exact AABB of its points bounds[c], and its
/// broad-phase box boxes[c]: bounds[c] grown by cloud_contact_margin. Two
/// clouds with a point pair closer than 1 always have overlapping boxes.
struct PointClouds {
    std::vector<float> points;
    broadphase::Boxes bounds;
    broadphase::Boxes boxes;

    std::size_t size() const { return boxes.size(); }
    const float* cloud(std::size_t c) const { return points.data() + 3 * cloud_points * c; }
};

/// n lattice clouds, centres uniform in [0,side)^3, spacings uniform in
/// [min_spacing, max_spacing) (drawn per cloud: x, y, z, spacing). Without
/// points only the boxes are filled (the same boxes). O(n) (x125 with points).
inline PointClouds point_clouds(std::size_t n, double side, std::uint64_t seed = 10, double min_spacing = 0.5,
                                double max_spacing = 1.5, bool with_points = true) {
    PointClouds out;
    out.bounds.reserve(n);
    out.boxes.reserve(n);
    if (with_points) out.points.resize(3 * cloud_points * n);
    Random r(seed);
    for (std::size_t c = 0; c < n; ++c) {
        const double x = r.uniform(0, side), y = r.uniform(0, side), z = r.uniform(0, side);
        const double s = r.uniform(min_spacing, max_spacing);
        const broadphase::Box b = point_cloud_box(x, y, z, s);
        out.bounds.push_back(b);
        out.boxes.push_back(grown_box(b, cloud_contact_margin));
        if (with_points) make_point_cloud(x, y, z, s, out.points.data() + 3 * cloud_points * c);
    }
    return out;
}

/// The article's challenge 1 scene: 10,000 clouds in [0,450)^3 (its uniform
/// grid test), spacing uniform in [0.5,1.5) ("randomly sized": AABBs 2 to 6 wide).
inline PointClouds pointclouds10k_clouds() { return point_clouds(10000, 450, 10); }
/// Its broad-phase boxes (AABBs grown by 0.5: 3 to 7 wide).
inline broadphase::Boxes pointclouds10k() { return point_clouds(10000, 450, 10, 0.5, 1.5, false).boxes; }

/// n boxes 4 wide, centres uniform in a cube of side 900*cbrt(n/20000): the
/// density of sparse20k at any size.
inline broadphase::Boxes uniform(std::size_t n, std::uint64_t seed = 5) {
    broadphase::Boxes out;
    out.reserve(n);
    Random r(seed);
    const double side = 900.0 * std::cbrt(static_cast<double>(n) / 20000.0);
    for (std::size_t i = 0; i < n; ++i) {
        const double x = r.uniform(0, side), y = r.uniform(0, side), z = r.uniform(0, side);
        out.push_back(cube(x, y, z, -2.0, 2.0));
    }
    return out;
}

/// n boxes 4 wide in 32 clusters of very different sizes: cluster j holds
/// a share of the boxes proportional to 1/(j+1) (the largest 4.1 times the
/// mean), each a cube at uniform's density, centres scattered over a cube
/// 40 times uniform's side. Balancing by box count, not by space, is what
/// keeps ranks even here.
inline broadphase::Boxes clusters(std::size_t n, std::uint64_t seed = 11) {
    broadphase::Boxes out;
    out.reserve(n);
    Random r(seed);
    constexpr int k = 32;
    double harmonic = 0;
    for (int j = 0; j < k; ++j) harmonic += 1.0 / (j + 1);
    const double world = 40 * 900.0 * std::cbrt(static_cast<double>(n) / 20000.0);
    std::size_t placed = 0;
    for (int j = 0; j < k; ++j) {
        const std::size_t m = j == k - 1 ? n - placed
                                         : std::min(n - placed, static_cast<std::size_t>(
                                                                    static_cast<double>(n) / (j + 1) / harmonic));
        placed += m;
        const double side = 900.0 * std::cbrt(static_cast<double>(m) / 20000.0);
        const double cx = r.uniform(0, world), cy = r.uniform(0, world), cz = r.uniform(0, world);
        for (std::size_t i = 0; i < m; ++i)
            out.push_back(cube(cx + r.uniform(0, side), cy + r.uniform(0, side), cz + r.uniform(0, side), -2.0, 2.0));
    }
    return out;
}

/// "Teapot in a stadium": 90% of n boxes 4 wide in a dense cube at
/// uniform's density (the teapot), the other 10% scattered over a cube 100
/// times its side around it (the stadium), 1,000 times sparser per box than
/// the teapot per unit length. A partition by space alone would give one
/// rank nearly everything.
inline broadphase::Boxes stadium(std::size_t n, std::uint64_t seed = 12) {
    broadphase::Boxes out;
    out.reserve(n);
    Random r(seed);
    const std::size_t inside = n - n / 10;
    const double side = 900.0 * std::cbrt(static_cast<double>(inside) / 20000.0);
    const double world = 100 * side;
    for (std::size_t i = 0; i < n; ++i) {
        const bool teapot = i % 10 != 9;
        const double lo = teapot ? (world - side) / 2 : 0, w = teapot ? side : world;
        out.push_back(cube(lo + r.uniform(0, w), lo + r.uniform(0, w), lo + r.uniform(0, w), -2.0, 2.0));
    }
    return out;
}

/// n copies of one box: n(n-1)/2 pairs.
inline broadphase::Boxes identical(std::size_t n) {
    broadphase::Boxes out;
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) out.push_back(cube(10, 10, 10, -2, 2));
    return out;
}

/// n boxes of mixed sizes: edge lengths log-uniform over 0.25..64 (most
/// small, a tail of large), a few thin slabs 900 long, in [0,900)^3.
inline broadphase::Boxes mixed(std::size_t n, std::uint64_t seed = 6) {
    broadphase::Boxes out;
    out.reserve(n);
    Random r(seed);
    for (std::size_t i = 0; i < n; ++i) {
        broadphase::Box b;
        const bool slab = (i % 1000) == 999;
        for (int k = 0; k < 3; ++k) {
            const double c = r.uniform(0, 900);
            const double e = slab && k != int(i % 3) ? 900.0 : std::exp(r.uniform(std::log(0.25), std::log(64.0)));
            b.min[k] = float(c - e / 2);
            b.max[k] = float(c + e / 2);
        }
        out.push_back(b);
    }
    return out;
}

/// Adversarial: n boxes on a lattice of unit cubes touching face to face.
inline broadphase::Boxes lattice(std::size_t side) {
    broadphase::Boxes out;
    for (std::size_t x = 0; x < side; ++x)
        for (std::size_t y = 0; y < side; ++y)
            for (std::size_t z = 0; z < side; ++z) out.push_back(cube(double(x), double(y), double(z), 0, 1));
    return out;
}

/// Adversarial: zero-size boxes (points), many coincident, on a coarse lattice.
inline broadphase::Boxes points(std::size_t n, std::uint64_t seed = 7) {
    broadphase::Boxes out;
    Random r(seed);
    for (std::size_t i = 0; i < n; ++i) {
        const double x = double(r.below(8)), y = double(r.below(8)), z = double(r.below(8));
        out.push_back(cube(x, y, z, 0, 0));
    }
    return out;
}

/// Adversarial: random boxes with a chosen centre offset and spread (use a
/// 1e7 offset, negative coordinates, or huge and tiny sizes together).
inline broadphase::Boxes random_boxes(std::size_t n, std::uint64_t seed, double offset = 0, double spread = 100,
                          double min_size = 0, double max_size = 10) {
    broadphase::Boxes out;
    out.reserve(n);
    Random r(seed);
    for (std::size_t i = 0; i < n; ++i) {
        broadphase::Box b;
        for (int k = 0; k < 3; ++k) {
            const double c = offset + r.uniform(-spread, spread);
            const double e = r.uniform(min_size, max_size);
            b.min[k] = float(c - e / 2);
            b.max[k] = float(c + e / 2);
        }
        out.push_back(b);
    }
    return out;
}

/// Adversarial: random boxes plus infinite slabs (a ground plane from -inf
/// to +inf in x and y), huge boxes, and far outliers.
inline broadphase::Boxes slabs_and_outliers(std::size_t n, std::uint64_t seed = 8) {
    broadphase::Boxes out = random_boxes(n, seed, 0, 100, 0, 8);
    const float inf = std::numeric_limits<float>::infinity();
    broadphase::Box ground;
    ground.min = {-inf, -inf, -1};
    ground.max = {inf, inf, 1};
    out.push_back(ground);
    broadphase::Box all;
    all.min = {-inf, -inf, -inf};
    all.max = {inf, inf, inf};
    out.push_back(all);
    broadphase::Box wall;
    wall.min = {-5, -inf, -inf};
    wall.max = {-5, inf, inf};
    out.push_back(wall);
    out.push_back(cube(0, 0, 0, -1000, 1000));
    out.push_back(cube(1e6, 1e6, 1e6, -1, 1));
    out.push_back(cube(-1e6, 0, 1e6, -1, 1));
    out.push_back(cube(3e30, 3e30, 3e30, -1e29, 1e29));
    return out;
}

/// Adversarial: valid random boxes with invalid ones (NaN, min > max) mixed in.
inline broadphase::Boxes with_invalid(std::size_t n, std::uint64_t seed = 9) {
    broadphase::Boxes out = random_boxes(n, seed, 0, 50, 0, 10);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    Random r(seed + 100);
    for (std::size_t i = 0; i < out.size(); i += 7) {
        broadphase::Box b = out[i];
        const int k = int(r.below(3));
        if (r.below(2)) b.min[k] = nan;
        else std::swap(b.min[k], b.max[k]), b.min[k] += 1.0f;
        out.set(i, b);
    }
    return out;
}

/// Names accepted by make_scene.
inline std::vector<std::string> scene_names() {
    return {"sparse20k", "dense20k", "stretched40k", "clusters40k", "mixed20k",
            "uniform:N", "clusters:N", "stadium:N", "identical:N", "pointclouds10k", "sphere-mesh:N", "torus-mesh:N", "terrain:N", "soup:N",
            "scan:N",    "pile:N",      "voxels:N",   "hair:N",         "refined-mesh:N", "spread-clusters:N"};
}

/// One-line description of a named scene.
inline std::string describe(const std::string& name) {
    if (name == "sparse20k")
        return "20,001 boxes 4 wide in [0,900)^3 + 3 far outliers (adaptive-grid article, challenge 3)";
    if (name == "dense20k")
        return "20,001 boxes 4 wide in [0,150)^3 + 3 far outliers (adaptive-grid article, challenge 3)";
    if (name == "stretched40k")
        return "40,001 boxes in [0,1500)x[0,150)^2 + 3 far outliers (adaptive-grid article, challenge 4)";
    if (name == "clusters40k")
        return "16 clusters of 2,500 boxes, 150-cubes 2,500-5,000 apart (adaptive-grid article, challenge 4)";
    if (name == "mixed20k") return "20,000 boxes, sizes log-uniform 0.25..64, thin 900-long slabs, in [0,900)^3";
    if (name == "uniform:N") return "N boxes 4 wide at sparse20k's density (cube side 900*cbrt(N/20000))";
    if (name == "clusters:N") return "N boxes 4 wide in 32 clusters holding shares 1/(j+1) (largest 4.1x the mean)";
    if (name == "stadium:N") return "teapot in a stadium: 90% of N boxes in a dense cube, 10% over a cube 100x its side";
    if (name == "identical:N") return "N copies of one box: N(N-1)/2 pairs";
    // The real-data scenes (real_scenes.hpp); a bare name means N = 100,000.
    if (name == "sphere-mesh:N")
        return "12s^2 faces of a unit cube sphere, s = floor(sqrt(N/12)): each face's AABB (6.2 pairs a box)";
    if (name == "torus-mesh:N")
        return "2rc faces of a torus (radii 10, 3), r = floor(sqrt(N/8)), c = floor(N/2r): each face's AABB (6.4 a box)";
    if (name == "terrain:N")
        return "2(s-1)^2 faces of a 1000x1000 height field, s = floor(sqrt(N/2))+1: each face's AABB (7.4 a box)";
    if (name == "soup:N")
        return "about N faces: a terrain patch, 3 spheres, 2 tori overlapping, one list (7.0 a box)";
    if (name == "scan:N")
        return "N points scanned on ground, 2 buildings, 3 spheres, 3 poles; cubes 1.4 wide (8 neighbours, 4.1 a box)";
    if (name == "pile:N") return "N spheres, radii 0.5..1, packed in a tank 200x117 times cbrt(N/1e5): AABBs (4.6 a box)";
    if (name == "voxels:N") return "N unit cubes on the integer lattice, a third of cells empty (caves): 11.5 pairs a box";
    if (name == "hair:N") return "N/2 segments of random-walk strands (long thin AABBs), N/2 cubes 0.5..1.5 (3.1 a box)";
    if (name == "refined-mesh:N")
        return "about N faces of a height field remeshed finer near 6 points: face sides spread 32x (7.5 a box)";
    if (name == "spread-clusters:N")
        return "N cubes in 24 clusters, each one shape at its own scale, spreads and sizes 1..100x (2.8 a box)";
    if (name == "pointclouds10k")
        return "10,000 5x5x5 point clouds, spacing 0.5..1.5, in [0,450)^3: AABBs grown by 0.5 "
               "(adaptive-grid article, challenge 1)";
    return "";
}

/// Fills `out` with the named scene ("dense20k", "uniform:100000", ...).
/// False when the name is unknown or its count malformed.
inline bool make_scene(const std::string& name, broadphase::Boxes& out) {
    auto count = [&](const std::string& prefix, std::size_t& n) {
        if (name.compare(0, prefix.size(), prefix) != 0) return false;
        const std::string digits = name.substr(prefix.size());
        if (digits.empty() || digits.size() > 12) return false;
        for (char c : digits)
            if (c < '0' || c > '9') return false;
        n = static_cast<std::size_t>(std::stoull(digits));
        return true;
    };
    std::size_t n = 0;
    if (name == "sparse20k") out = sparse20k();
    else if (name == "dense20k") out = dense20k();
    else if (name == "stretched40k") out = stretched40k();
    else if (name == "clusters40k") out = clusters40k();
    else if (name == "mixed20k") out = mixed(20000);
    else if (count("uniform:", n)) out = uniform(n);
    else if (count("clusters:", n)) out = clusters(n);
    else if (count("stadium:", n)) out = stadium(n);
    else if (count("identical:", n)) out = identical(n);
    else if (name == "pointclouds10k") out = pointclouds10k();
    else if (real_scene(name, out)) return true;
    else return false;
    return true;
}

}  // namespace broadphase_scenes
