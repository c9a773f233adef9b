// Built-in scenes shaped like real data: the boxes of triangle meshes.
// Deterministic (computed in double, rounded to float once per vertex, the
// same on every platform); no data files.
//
// A face's box is the exact AABB of its three float vertices. Vertices are
// shared between faces, so neighbouring faces' boxes touch or overlap, as
// they do in real meshes: a surface in a mostly empty volume, small boxes of
// similar size, several pairs per box.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <broadphase/boxes.hpp>
#include "random.hpp"

namespace broadphase_scenes {

/// A vertex grid of rows x cols points (row-major, x y z each), closed
/// along columns when `wrap` (a ring), triangulated two faces per quad;
/// appends each face's box to `out`.
inline void append_grid_faces(const std::vector<double>& v, std::size_t rows, std::size_t cols, bool wrap_cols,
                              bool wrap_rows, broadphase::Boxes& out) {
    auto vertex = [&](std::size_t r, std::size_t c, float* p) {
        const std::size_t at = 3 * (r * cols + c);
        for (int k = 0; k < 3; ++k) p[k] = static_cast<float>(v[at + static_cast<std::size_t>(k)]);
    };
    auto face = [&](const float* a, const float* b, const float* c) {
        broadphase::Box box;
        for (int k = 0; k < 3; ++k) {
            box.min[k] = std::min(a[k], std::min(b[k], c[k]));
            box.max[k] = std::max(a[k], std::max(b[k], c[k]));
        }
        out.push_back(box);
    };
    const std::size_t quad_rows = wrap_rows ? rows : rows - 1, quad_cols = wrap_cols ? cols : cols - 1;
    for (std::size_t r = 0; r < quad_rows; ++r)
        for (std::size_t c = 0; c < quad_cols; ++c) {
            float p00[3], p01[3], p10[3], p11[3];
            const std::size_t r1 = (r + 1) % rows, c1 = (c + 1) % cols;
            vertex(r, c, p00), vertex(r, c1, p01), vertex(r1, c, p10), vertex(r1, c1, p11);
            face(p00, p10, p11);
            face(p00, p11, p01);
        }
}

/// A torus of major radius R and minor radius r around `centre`, about
/// `faces` triangles (a rows x cols vertex ring of rings, cols = 4 rows).
inline void append_torus(std::size_t faces, double R, double r, const double* centre, broadphase::Boxes& out) {
    const std::size_t rows = std::max<std::size_t>(3, static_cast<std::size_t>(std::sqrt(static_cast<double>(faces) / 8)));
    const std::size_t cols = std::max<std::size_t>(3, faces / (2 * rows));
    std::vector<double> v(3 * rows * cols);
    const double two_pi = 6.283185307179586;
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j) {
            const double a = two_pi * static_cast<double>(i) / static_cast<double>(rows);  // around the tube
            const double b = two_pi * static_cast<double>(j) / static_cast<double>(cols);  // around the axis
            double* p = v.data() + 3 * (i * cols + j);
            p[0] = centre[0] + (R + r * std::cos(a)) * std::cos(b);
            p[1] = centre[1] + (R + r * std::cos(a)) * std::sin(b);
            p[2] = centre[2] + r * std::sin(a);
        }
    append_grid_faces(v, rows, cols, true, true, out);
}

/// A sphere of radius R around `centre` as six subdivided cube faces
/// projected onto it (a cube sphere: faces of similar size everywhere, no
/// slivers at poles), about `faces` triangles.
inline void append_sphere(std::size_t faces, double R, const double* centre, broadphase::Boxes& out) {
    const std::size_t s = std::max<std::size_t>(1, static_cast<std::size_t>(std::sqrt(static_cast<double>(faces) / 12)));
    std::vector<double> v(3 * (s + 1) * (s + 1));
    for (int side = 0; side < 6; ++side) {
        const int axis = side / 2;
        const double sign = side % 2 ? -1.0 : 1.0;
        for (std::size_t i = 0; i <= s; ++i)
            for (std::size_t j = 0; j <= s; ++j) {
                // A point on the cube face, then onto the sphere.
                const double u = -1 + 2 * static_cast<double>(i) / static_cast<double>(s);
                const double w = -1 + 2 * static_cast<double>(j) / static_cast<double>(s);
                double q[3];
                q[axis] = sign;
                q[(axis + 1) % 3] = sign * u;
                q[(axis + 2) % 3] = w;
                const double len = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
                double* p = v.data() + 3 * (i * (s + 1) + j);
                for (int k = 0; k < 3; ++k) p[k] = centre[k] + R * q[k] / len;
            }
        append_grid_faces(v, s + 1, s + 1, false, false, out);
    }
}

/// A height field over [0, size)^2 (x, y) of about `faces` triangles:
/// heights a fixed sum of sines, amplitude about a tenth of the size.
inline void append_terrain(std::size_t faces, double size, const double* origin, broadphase::Boxes& out) {
    const std::size_t s = std::max<std::size_t>(2, static_cast<std::size_t>(std::sqrt(static_cast<double>(faces) / 2)) + 1);
    std::vector<double> v(3 * s * s);
    for (std::size_t i = 0; i < s; ++i)
        for (std::size_t j = 0; j < s; ++j) {
            const double x = size * static_cast<double>(i) / static_cast<double>(s - 1);
            const double y = size * static_cast<double>(j) / static_cast<double>(s - 1);
            const double t = 6.283185307179586 / size;
            const double z = size * (0.05 * std::sin(3 * t * x) * std::cos(2 * t * y) + 0.03 * std::sin(7 * t * x + 5 * t * y) +
                                     0.01 * std::cos(23 * t * y - 17 * t * x));
            double* p = v.data() + 3 * (i * s + j);
            p[0] = origin[0] + x, p[1] = origin[1] + y, p[2] = origin[2] + z;
        }
    append_grid_faces(v, s, s, false, false, out);
}

/// About n faces of a unit-radius cube sphere.
inline broadphase::Boxes sphere_mesh(std::size_t n) {
    broadphase::Boxes out;
    out.reserve(n + n / 8);
    const double c[3] = {0, 0, 0};
    append_sphere(n, 1.0, c, out);
    return out;
}

/// About n faces of a torus (major radius 10, minor 3).
inline broadphase::Boxes torus_mesh(std::size_t n) {
    broadphase::Boxes out;
    out.reserve(n + n / 8);
    const double c[3] = {0, 0, 0};
    append_torus(n, 10.0, 3.0, c, out);
    return out;
}

/// About n faces of a 1000 x 1000 height field.
inline broadphase::Boxes terrain(std::size_t n) {
    broadphase::Boxes out;
    out.reserve(n + n / 8);
    const double o[3] = {0, 0, 0};
    append_terrain(n, 1000.0, o, out);
    return out;
}

/// A triangle soup of about n faces: a terrain patch with spheres and tori
/// of different sizes and resolutions lying on and through it and each
/// other, in one list (as a scene's meshes are when their faces are merged).
inline broadphase::Boxes soup(std::size_t n) {
    broadphase::Boxes out;
    out.reserve(n + n / 4);
    const double o[3] = {0, 0, 0};
    append_terrain(n * 3 / 10, 100.0, o, out);
    const double s1[3] = {30, 30, 5}, s2[3] = {60, 40, 0}, s3[3] = {45, 70, 10};
    append_sphere(n * 2 / 10, 15.0, s1, out);
    append_sphere(n / 10, 6.0, s2, out);
    append_sphere(n / 20, 25.0, s3, out);
    const double t1[3] = {50, 50, 5}, t2[3] = {20, 75, 8};
    append_torus(n * 2 / 10, 20.0, 4.0, t1, out);
    append_torus(n - std::min(n, n * 3 / 10 + n * 2 / 10 + n / 10 + n / 20 + n * 2 / 10), 8.0, 2.0, t2, out);
    return out;
}

// ---------------------------------------------------------------------------
// Scenes of other real kinds: a scan's points, a settled pile of spheres,
// voxels, hair. Each is exactly n boxes, O(n), and uses no sin or cos (only
// +, -, *, / and sqrt, which IEEE arithmetic rounds the same everywhere), so
// that a box differs between platforms only where a compiler fuses a
// multiply-add differently and the double result then rounds to another
// float: rare, and never seen in the tests.

/// Appends the box [lo, hi], given in double, each coordinate rounded to
/// float once.
inline void append_box(const double* lo, const double* hi, broadphase::Boxes& out) {
    broadphase::Box b;
    for (int k = 0; k < 3; ++k) {
        b.min[k] = static_cast<float>(lo[k]);
        b.max[k] = static_cast<float>(hi[k]);
    }
    out.push_back(b);
}

/// Appends the cube of half side h around p.
inline void append_cube_around(const double* p, double h, broadphase::Boxes& out) {
    const double lo[3] = {p[0] - h, p[1] - h, p[2] - h}, hi[3] = {p[0] + h, p[1] + h, p[2] + h};
    append_box(lo, hi, out);
}

/// A point uniform in the unit disc (rejection: about 1.27 draws).
inline void unit_disc(Random& r, double& x, double& y) {
    do {
        x = r.uniform(-1, 1), y = r.uniform(-1, 1);
    } while (x * x + y * y > 1 || x * x + y * y == 0);
}

/// The scan's point spacing is 1 (one point per unit of area); its search
/// radius: each point's box is the cube of this half side around it, so two
/// points pair when they are within 2 * scan_radius on every axis (about 8
/// neighbours on a plane, more where the surface is tilted or curved).
constexpr double scan_radius = 0.7;

/// A lidar-like scan: n points on the surfaces of a street block seen from
/// above: a ground square of side g with two buildings (box-shaped: roof and
/// four walls), three spheres resting on the ground and three poles
/// (cylinders: side and top). Points are spread uniformly over the surface
/// area (one point per unit area, so g = sqrt(n / 1.395...)), each moved by
/// up to 0.05 on every axis (range noise); ground points under a building or
/// a pole are drawn again. Each box is the cube of half side scan_radius
/// around its point: a fixed-radius neighbour search over the cloud.
/// Exactly n boxes, O(n).
inline broadphase::Boxes scan(std::size_t n, std::uint64_t seed = 21) {
    broadphase::Boxes out;
    out.reserve(n);
    // The objects, in units of the ground side: spheres (x, y, radius),
    // buildings (x0, y0, x1, y1, height), poles (x, y, radius, height).
    const double spheres[3][3] = {{0.25, 0.3, 0.08}, {0.7, 0.65, 0.05}, {0.82, 0.5, 0.03}};
    const double buildings[2][5] = {{0.55, 0.12, 0.75, 0.32, 0.15}, {0.1, 0.6, 0.25, 0.9, 0.1}};
    const double poles[3][4] = {{0.45, 0.5, 0.03, 0.3}, {0.88, 0.85, 0.02, 0.2}, {0.35, 0.8, 0.015, 0.25}};
    const double pi = 3.141592653589793;
    // Areas (units of g^2): ground less footprints, then each object.
    double area[9];
    double ground = 1;
    for (const auto& b : buildings) ground -= (b[2] - b[0]) * (b[3] - b[1]);
    for (const auto& p : poles) ground -= pi * p[2] * p[2];
    area[0] = ground;
    for (int i = 0; i < 3; ++i) area[1 + i] = 4 * pi * spheres[i][2] * spheres[i][2];
    for (int i = 0; i < 2; ++i) {
        const double* b = buildings[i];
        area[4 + i] = (b[2] - b[0]) * (b[3] - b[1]) + 2 * ((b[2] - b[0]) + (b[3] - b[1])) * b[4];
    }
    for (int i = 0; i < 3; ++i) area[6 + i] = 2 * pi * poles[i][2] * poles[i][3] + pi * poles[i][2] * poles[i][2];
    double total = 0;
    for (double a : area) total += a;
    const double g = std::sqrt(static_cast<double>(n) / total);
    auto under_something = [&](double x, double y) {
        for (const auto& b : buildings)
            if (x >= b[0] && x <= b[2] && y >= b[1] && y <= b[3]) return true;
        for (const auto& p : poles)
            if ((x - p[0]) * (x - p[0]) + (y - p[1]) * (y - p[1]) <= p[2] * p[2]) return true;
        return false;
    };
    Random r(seed);
    for (std::size_t i = 0; i < n; ++i) {
        double u = r.unit() * total;
        int s = 0;
        while (s < 8 && u >= area[s]) u -= area[s], ++s;
        double p[3];  // in units of g
        if (s == 0) {
            do {
                p[0] = r.unit(), p[1] = r.unit();
            } while (under_something(p[0], p[1]));
            p[2] = 0;
        } else if (s < 4) {
            // Marsaglia: uniform on the sphere without trigonometry.
            const double* sp = spheres[s - 1];
            double a, b;
            unit_disc(r, a, b);
            const double q = a * a + b * b, root = 2 * std::sqrt(1 - q);
            p[0] = sp[0] + sp[2] * a * root, p[1] = sp[1] + sp[2] * b * root, p[2] = sp[2] + sp[2] * (1 - 2 * q);
        } else if (s < 6) {
            const double* b = buildings[s - 4];
            const double w = b[2] - b[0], d = b[3] - b[1], h = b[4];
            double v = r.unit() * (w * d + 2 * (w + d) * h);
            if (v < w * d) {  // the roof
                p[0] = b[0] + r.unit() * w, p[1] = b[1] + r.unit() * d, p[2] = h;
            } else {  // a wall: walk the perimeter
                v = (v - w * d) / h;  // a distance along the perimeter, 0 .. 2(w + d)
                p[2] = r.unit() * h;
                if (v < w) p[0] = b[0] + v, p[1] = b[1];
                else if (v < w + d) p[0] = b[2], p[1] = b[1] + (v - w);
                else if (v < 2 * w + d) p[0] = b[2] - (v - w - d), p[1] = b[3];
                else p[0] = b[0], p[1] = b[3] - (v - 2 * w - d);
            }
        } else {
            const double* c = poles[s - 6];
            double a, b;
            unit_disc(r, a, b);
            if (r.unit() * (2 * c[3] + c[2]) < c[2]) {  // the top disc (area ratio pi r^2 : 2 pi r h)
                p[0] = c[0] + c[2] * a, p[1] = c[1] + c[2] * b, p[2] = c[3];
            } else {  // the side: a uniform direction around the axis
                const double len = std::sqrt(a * a + b * b);
                p[0] = c[0] + c[2] * a / len, p[1] = c[1] + c[2] * b / len, p[2] = r.unit() * c[3];
            }
        }
        double at[3];
        for (int k = 0; k < 3; ++k) at[k] = p[k] * g + r.uniform(-0.05, 0.05);
        append_cube_around(at, scan_radius, out);
    }
    return out;
}

/// The pile's lattice spacing (centre to centre in a layer, radii 0.5..1):
/// closer than two mean radii, as a settled pile of mixed sizes is.
constexpr double pile_spacing = 1.6;

/// A settled pile of n spheres, radii uniform in [0.5, 1], as boxes (each
/// sphere's AABB), in a tank of 200 x 117 (x, y) scaled by cbrt(n / 100000)
/// (the sim/ demo's tank at 100,000 spheres). Not simulated: the spheres sit
/// on a close-packed lattice filled layer by layer from the floor (layers of
/// triangular rows pile_spacing apart, stacked A B C), each centre moved by
/// up to 0.15 on each axis; neighbours touch or overlap a little, as in a
/// pile pressed by gravity. Exactly n boxes, O(n).
inline broadphase::Boxes pile(std::size_t n, std::uint64_t seed = 22) {
    broadphase::Boxes out;
    out.reserve(n);
    const double scale = std::cbrt(static_cast<double>(n) / 100000.0);
    const double d = pile_spacing, row = d * std::sqrt(3.0) / 2, layer = d * std::sqrt(2.0 / 3.0);
    // At least one per row and column; clamped before the cast, since a
    // tiny pile's tank is narrower than one sphere (a negative double cast
    // to an unsigned integer is undefined).
    const std::size_t nx = static_cast<std::size_t>(std::max(1.0, (200 * scale - 2.3 - d / 2) / d));
    const std::size_t ny = static_cast<std::size_t>(std::max(1.0, (117 * scale - 2.3 - row) / row));
    Random r(seed);
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t l = i / (nx * ny), j = (i / nx) % ny, k = i % nx;
        // A B C stacking: each layer over the hollows of the one below.
        const double ox = (l % 3 == 1) ? d / 2 : 0, oy = static_cast<double>(l % 3) * row / 3;
        const double radius = r.uniform(0.5, 1.0);
        // 1.15 from the walls and floor: a sphere of radius 1 moved by 0.15 stays inside.
        double c[3] = {1.15 + static_cast<double>(k) * d + static_cast<double>(j % 2) * d / 2 + ox,
                       1.15 + static_cast<double>(j) * row + oy, 1.15 + static_cast<double>(l) * layer};
        for (double& x : c) x += r.uniform(-0.15, 0.15);
        append_cube_around(c, radius, out);
    }
    return out;
}

/// Smooth value noise in about [-1, 1]: random values at the corners of a
/// lattice of spacing `cell`, blended with smoothstep weights. O(1).
inline double value_noise(double x, double y, double z, double cell, std::uint64_t seed) {
    const double fx = x / cell, fy = y / cell, fz = z / cell;
    const double bx = std::floor(fx), by = std::floor(fy), bz = std::floor(fz);
    auto smooth = [](double t) { return t * t * (3 - 2 * t); };
    const double tx = smooth(fx - bx), ty = smooth(fy - by), tz = smooth(fz - bz);
    auto corner = [&](int i, int j, int k) {
        const auto ix = static_cast<std::uint64_t>(static_cast<std::int64_t>(bx) + i);
        const auto iy = static_cast<std::uint64_t>(static_cast<std::int64_t>(by) + j);
        const auto iz = static_cast<std::uint64_t>(static_cast<std::int64_t>(bz) + k);
        Random h(seed ^ (ix * 0x9E3779B97F4A7C15ull) ^ (iy * 0xC2B2AE3D27D4EB4Full) ^ (iz * 0x165667B19E3779F9ull));
        return h.uniform(-1, 1);
    };
    double v = 0;
    for (int k = 0; k < 2; ++k)
        for (int j = 0; j < 2; ++j)
            for (int i = 0; i < 2; ++i)
                v += (i ? tx : 1 - tx) * (j ? ty : 1 - ty) * (k ? tz : 1 - tz) * corner(i, j, k);
    return v;
}

/// The voxels' emptiness threshold: a cell is empty where the noise is
/// below it (about a third of the cells).
constexpr double voxel_threshold = -0.16;

/// n unit cubes [x, x+1] x [y, y+1] x [z, z+1] on the integer lattice, like
/// a block world: the cells of a column s x s wide (s = ceil(cbrt(1.5 n)))
/// taken x fastest, then y, then z upwards, skipping the cells where a
/// smooth noise (two octaves, 8 and 4 cells) is below voxel_threshold:
/// about a third, as caves and holes a few cells wide. Cubes touch their
/// neighbours at faces, edges and corners, and each touch is a pair.
/// Exactly n boxes, O(n).
inline broadphase::Boxes voxels(std::size_t n, std::uint64_t seed = 23) {
    broadphase::Boxes out;
    out.reserve(n);
    const auto s = static_cast<std::size_t>(std::ceil(std::cbrt(1.5 * static_cast<double>(n))));
    for (std::size_t z = 0; out.size() < n; ++z)
        for (std::size_t y = 0; y < s && out.size() < n; ++y)
            for (std::size_t x = 0; x < s && out.size() < n; ++x) {
                const double p[3] = {static_cast<double>(x), static_cast<double>(y), static_cast<double>(z)};
                const double v = value_noise(p[0], p[1], p[2], 8, seed) + 0.5 * value_noise(p[0], p[1], p[2], 4, seed + 1);
                if (v < voxel_threshold) continue;
                const double hi[3] = {p[0] + 1, p[1] + 1, p[2] + 1};
                append_box(p, hi, out);
            }
    return out;
}

/// The hair scene's volume per box (the region's side is cbrt(n times it)).
constexpr double hair_volume_per_box = 1.25;

/// Hair and cables among small things: n / 2 (rounded down) segments of
/// random-walk polylines, then the rest compact boxes, in a cube of side
/// cbrt(1.25 n). A polyline (64 segments, the last one shorter) starts
/// uniformly in the cube and runs mostly along one axis (x, y, z in turn):
/// each segment is 2 long, its direction the last one turned by a random
/// step and pulled back along the axis, turned back at the cube's walls (so
/// the density is the same at every n). A segment's box is the AABB of its
/// two ends grown by 0.05 (the strand's radius): long and thin, touching
/// the next segment's. The compact boxes are cubes 0.5 to 1.5 wide,
/// uniform in the cube. Exactly n boxes, O(n).
inline broadphase::Boxes hair(std::size_t n, std::uint64_t seed = 24) {
    broadphase::Boxes out;
    out.reserve(n);
    const double side = std::cbrt(hair_volume_per_box * static_cast<double>(n));
    const std::size_t segments = n / 2, per_strand = 64;
    Random r(seed);
    double p[3] = {0, 0, 0}, dir[3] = {0, 0, 0};
    for (std::size_t i = 0; i < segments; ++i) {
        const int axis = static_cast<int>((i / per_strand) % 3);
        if (i % per_strand == 0) {
            for (double& x : p) x = r.uniform(0, side);
            dir[0] = dir[1] = dir[2] = 0;
            dir[axis] = 1;
        }
        for (double& x : dir) x += r.uniform(-0.3, 0.3);
        dir[axis] += dir[axis] < 0 ? -0.3 : 0.3;
        const double len = std::sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
        double q[3], lo[3], hi[3];
        for (int k = 0; k < 3; ++k) {
            dir[k] /= len;
            q[k] = p[k] + 2 * dir[k];
            if (q[k] < 0 || q[k] > side) dir[k] = -dir[k], q[k] = p[k] + 2 * dir[k];  // bounce off the walls
            lo[k] = std::min(p[k], q[k]) - 0.05;
            hi[k] = std::max(p[k], q[k]) + 0.05;
        }
        append_box(lo, hi, out);
        for (int k = 0; k < 3; ++k) p[k] = q[k];
    }
    for (std::size_t i = segments; i < n; ++i) {
        const double c[3] = {r.uniform(0, side), r.uniform(0, side), r.uniform(0, side)};
        append_cube_around(c, r.uniform(0.25, 0.75), out);
    }
    return out;
}

// ---------------------------------------------------------------------------
// Scenes whose scale varies from place to place: one cell size (or one
// sweep axis) cannot fit all of them. Same rules as above: exactly or about
// n boxes, O(n) (the refined mesh O(n log n)), no sin or cos.

/// The refined mesh's square, and the distance over which its target face
/// size grows by its value at a feature (so 64 such distances across).
constexpr double refined_side = 1000, refined_falloff = refined_side / 64;
/// Its feature points: where faces are smallest.
constexpr int refined_features = 6;

/// The refined mesh's feature points (x, y), from `seed`, and their
/// weights: feature f's faces are 2^(f mod 4) times the finest.
struct RefinedFeatures {
    double x[refined_features], y[refined_features], weight[refined_features];
    explicit RefinedFeatures(std::uint64_t seed) {
        Random r(seed);
        for (int f = 0; f < refined_features; ++f) {
            x[f] = r.uniform(0.1, 0.9) * refined_side;
            y[f] = r.uniform(0.1, 0.9) * refined_side;
            weight[f] = double(1 << (f % 4));
        }
    }
    /// The face side wanted at (x, y): the least over the features of
    /// finest * weight * (1 + distance / falloff).
    double target(double px, double py, double finest) const {
        double t = refined_side;
        for (int f = 0; f < refined_features; ++f) {
            const double dx = px - x[f], dy = py - y[f];
            t = std::min(t, finest * weight[f] * (1 + std::sqrt(dx * dx + dy * dy) / refined_falloff));
        }
        return t;
    }
};

/// Calls leaf(x, y, s) for each leaf of the quadtree over the refined
/// mesh's square: a square splits in four while it is wider than the target
/// at its centre, and always down to an eighth of the side (so the largest
/// faces are 125 wide). Stops early (returns false) once more than `budget`
/// leaves are visited.
template <class Leaf>
bool refined_leaves(const RefinedFeatures& f, double finest, double x, double y, double s, std::size_t& budget,
                    Leaf&& leaf) {
    if (s > refined_side / 8 || s > f.target(x + s / 2, y + s / 2, finest)) {
        const double h = s / 2;
        return refined_leaves(f, finest, x, y, h, budget, leaf) && refined_leaves(f, finest, x + h, y, h, budget, leaf) &&
               refined_leaves(f, finest, x, y + h, h, budget, leaf) &&
               refined_leaves(f, finest, x + h, y + h, h, budget, leaf);
    }
    if (budget == 0) return false;
    --budget;
    leaf(x, y, s);
    return true;
}

/// A remeshed surface with refined regions, about n faces: a height field
/// over [0, 1000)^2 (two octaves of value noise, 60 and 15 high) cut into a
/// quadtree of squares, two triangles a square, the squares smallest at six
/// feature points and growing with the distance from them (as an adaptive
/// remesher or a scanned model's detail leaves them), up to 125 wide. Face
/// sides spread over about 64x at 100,000 faces (a few times more at 10^6);
/// faces of different sizes meet along T-junctions, so neighbours' boxes
/// touch or overlap. The finest size is found by bisection so that the
/// count comes out at n or a little under. O(n log n).
inline broadphase::Boxes refined_mesh(std::size_t n, std::uint64_t seed = 25) {
    broadphase::Boxes out;
    const RefinedFeatures features(seed);
    const std::size_t squares = n / 2;
    auto leaves_at = [&](double finest) {
        std::size_t budget = squares + 1;
        refined_leaves(features, finest, 0, 0, refined_side, budget, [](double, double, double) {});
        return squares + 1 - budget;  // leaves visited, at most squares + 1
    };
    double lo = 1e-3, hi = refined_side;  // too fine (over budget) .. coarse enough
    for (int i = 0; i < 40 && hi > lo * 1.0001; ++i) {
        const double mid = std::sqrt(lo * hi);
        (leaves_at(mid) > squares ? lo : hi) = mid;
    }
    if (leaves_at(hi) > squares) return out;  // n below the 64 squares of the coarsest level
    out.reserve(2 * squares);
    auto height = [&](double x, double y) {
        return 60 * value_noise(x, y, 0, 200, seed) + 15 * value_noise(x, y, 0, 50, seed + 1);
    };
    std::size_t budget = squares;
    refined_leaves(features, hi, 0, 0, refined_side, budget, [&](double x, double y, double s) {
        const double x1 = x + s, y1 = y + s;
        const double p00[3] = {x, y, height(x, y)}, p10[3] = {x1, y, height(x1, y)};
        const double p01[3] = {x, y1, height(x, y1)}, p11[3] = {x1, y1, height(x1, y1)};
        for (const double* third : {p10, p01}) {  // faces (p00, p10, p11) and (p00, p11, p01)
            double lo3[3], hi3[3];
            for (int k = 0; k < 3; ++k) {
                lo3[k] = std::min({p00[k], p11[k], third[k]});
                hi3[k] = std::max({p00[k], p11[k], third[k]});
            }
            append_box(lo3, hi3, out);
        }
    });
    return out;
}

/// The spread clusters' count, and the ratio of the widest spread to the
/// narrowest.
constexpr int spread_cluster_count = 24;
constexpr double spread_cluster_ratio = 100;

/// Clusters whose scale differs 100x: n cubes in 24 clusters of equal
/// count (the last takes the rest), cluster j's centres drawn around its
/// centre with a near-gaussian spread (the sum of four uniforms: no tails
/// past 3.5 sigma) of sigma_j = sigma_0 * 100^(j/23), its cubes 2 sigma_j /
/// sigma_0 wide: each cluster the same shape at its own scale (about 6
/// boxes around each, 16 at a centre; sigma_0 = cbrt(n / 96)), as
/// particles of very different sizes gathered by kind are. The clusters'
/// centres are uniform in a cube 8 times the widest sigma across, so the
/// wide clusters overlap the narrow ones. Exactly n boxes, O(n).
inline broadphase::Boxes spread_clusters(std::size_t n, std::uint64_t seed = 26) {
    broadphase::Boxes out;
    out.reserve(n);
    Random r(seed);
    const std::size_t per = n / spread_cluster_count;
    const double sigma0 = std::cbrt(std::max<double>(1, static_cast<double>(per)) / 4);
    const double step = 1.2218;  // 100^(1/23), written out: std::pow need not round alike everywhere
    const double world = 8 * spread_cluster_ratio * sigma0;
    double sigma = sigma0;
    for (int j = 0; j < spread_cluster_count; ++j, sigma *= step) {
        const std::size_t m = j + 1 < spread_cluster_count ? per : n - out.size();
        const double c[3] = {r.uniform(0, world), r.uniform(0, world), r.uniform(0, world)};
        for (std::size_t i = 0; i < m; ++i) {
            double p[3];
            for (int k = 0; k < 3; ++k)
                p[k] = c[k] + sigma * 1.7320508075688772 * (r.unit() + r.unit() + r.unit() + r.unit() - 2);
            append_cube_around(p, sigma / sigma0, out);
        }
    }
    return out;
}

/// The real-data scenes' kinds, as named in make_scene ("sphere-mesh:N" or
/// bare "sphere-mesh" for N = 100,000).
inline const char* const* real_scene_kinds(std::size_t& count) {
    static const char* const kinds[] = {"sphere-mesh", "torus-mesh", "terrain", "soup", "scan", "pile", "voxels", "hair",
                                        "refined-mesh", "spread-clusters"};
    count = sizeof kinds / sizeof kinds[0];
    return kinds;
}

/// The size a bare real-scene name ("terrain") stands for.
constexpr std::size_t real_scene_default_size = 100000;

/// Fills `out` with the real-data scene `name` ("KIND:N" or "KIND", KIND
/// one of real_scene_kinds): false, `out` untouched, when it names none or
/// its count is malformed. O(N).
inline bool real_scene(const std::string& name, broadphase::Boxes& out) {
    const std::size_t colon = name.find(':');
    const std::string kind = name.substr(0, colon);
    std::size_t n = real_scene_default_size;
    if (colon != std::string::npos) {
        const std::string digits = name.substr(colon + 1);
        if (digits.empty() || digits.size() > 12) return false;
        for (char c : digits)
            if (c < '0' || c > '9') return false;
        n = static_cast<std::size_t>(std::stoull(digits));
    }
    if (kind == "sphere-mesh") out = sphere_mesh(n);
    else if (kind == "torus-mesh") out = torus_mesh(n);
    else if (kind == "terrain") out = terrain(n);
    else if (kind == "soup") out = soup(n);
    else if (kind == "scan") out = scan(n);
    else if (kind == "pile") out = pile(n);
    else if (kind == "voxels") out = voxels(n);
    else if (kind == "hair") out = hair(n);
    else if (kind == "refined-mesh") out = refined_mesh(n);
    else if (kind == "spread-clusters") out = spread_clusters(n);
    else return false;
    return true;
}

}  // namespace broadphase_scenes
