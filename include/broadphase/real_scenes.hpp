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
#include <vector>

#include "boxes.hpp"

namespace broadphase {
namespace scenes {

/// A vertex grid of rows x cols points (row-major, x y z each), closed
/// along columns when `wrap` (a ring), triangulated two faces per quad;
/// appends each face's box to `out`.
inline void append_grid_faces(const std::vector<double>& v, std::size_t rows, std::size_t cols, bool wrap_cols,
                              bool wrap_rows, Boxes& out) {
    auto vertex = [&](std::size_t r, std::size_t c, float* p) {
        const std::size_t at = 3 * (r * cols + c);
        for (int k = 0; k < 3; ++k) p[k] = static_cast<float>(v[at + static_cast<std::size_t>(k)]);
    };
    auto face = [&](const float* a, const float* b, const float* c) {
        Box box;
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
inline void append_torus(std::size_t faces, double R, double r, const double* centre, Boxes& out) {
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
inline void append_sphere(std::size_t faces, double R, const double* centre, Boxes& out) {
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
inline void append_terrain(std::size_t faces, double size, const double* origin, Boxes& out) {
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
inline Boxes sphere_mesh(std::size_t n) {
    Boxes out;
    out.reserve(n + n / 8);
    const double c[3] = {0, 0, 0};
    append_sphere(n, 1.0, c, out);
    return out;
}

/// About n faces of a torus (major radius 10, minor 3).
inline Boxes torus_mesh(std::size_t n) {
    Boxes out;
    out.reserve(n + n / 8);
    const double c[3] = {0, 0, 0};
    append_torus(n, 10.0, 3.0, c, out);
    return out;
}

/// About n faces of a 1000 x 1000 height field.
inline Boxes terrain(std::size_t n) {
    Boxes out;
    out.reserve(n + n / 8);
    const double o[3] = {0, 0, 0};
    append_terrain(n, 1000.0, o, out);
    return out;
}

/// A triangle soup of about n faces: a terrain patch with spheres and tori
/// of different sizes and resolutions lying on and through it and each
/// other, in one list (as a scene's meshes are when their faces are merged).
inline Boxes soup(std::size_t n) {
    Boxes out;
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

}  // namespace scenes
}  // namespace broadphase
