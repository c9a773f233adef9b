// The "open world" of issue 45: a large ground of static tiles and a few
// moving boxes that slide over it, the case of a game level where most
// objects never move. Written once here, so that bench/open_world_bench.cpp
// (the Scene) and bench/jolt/jolt_open_world.cpp (Jolt Physics) generate
// exactly the same boxes and moves from a seed. Dependency-free (no
// exceptions, no <random>, no libm): the Jolt side is compiled with Jolt's
// own flags (-fno-exceptions, -ffp-contract=fast), and the same integers
// must come out on both sides.
//
// - S static tiles on a square grid of side g = ceil(sqrt(S)), row by row:
//   tile t = (i, j), i = t % g, j = t / g, is the box
//   [i, i+1] x [0, 0.5] x [j, j+1]; neighbours touch (the last row is
//   partial when S is not a square).
// - M moving boxes of side 820/1024 = 0.80078125 (0.8, rounded to a
//   multiple of 1/1024), y in [460/1024, 1280/1024] = [0.449, 1.25]: they
//   overlap the tiles' top (0.5). Each starts at a random place over the
//   grid and slides in the x-z plane with its own constant velocity, of
//   speed 0.025 to 0.075 units a frame in a random direction; every mover
//   moves every frame, and bounces at the grid's edges (the velocity
//   component across the edge is reflected, and so is the overshoot).
//
// Why integers: every coordinate is kept as an integer count of 1/1024
// units. Boxes then are exact in float (coordinates < 2^11 with 10 bits of
// fraction need 21 of float's 24 bits), a body's centre and half extent are
// exact too, and Jolt's bounds (centre -/+ half extent, one rounding each)
// come out equal to the Scene's boxes, so both sides must count the same
// pairs, touching ones included (closed boxes on both sides).
#pragma once

#include <cstdint>
#include <vector>

namespace open_world {

constexpr std::int64_t kUnit = 1024;        // coordinates are integers in units of 1/kUnit
constexpr std::int64_t kSide = 820;         // a mover's side: 0.80078125
constexpr std::int64_t kHalf = kSide / 2;   // its half side, exact: 0.400390625
constexpr std::int64_t kMoverMinY = 460;    // 0.44921875: below the tiles' top, 0.5
constexpr std::int64_t kMoverMaxY = kMoverMinY + kSide;  // 1280 = 1.25
// Speeds, squared, in units a frame: 0.025 and 0.075 units are 25.6 and
// 76.8 units; the velocity is drawn in the annulus 26^2 <= vx^2 + vz^2 <=
// 76^2 (so speed in [0.0254, 0.0742]).
constexpr std::int64_t kMinSpeed = 26, kMaxSpeed = 76;

// splitmix64: the same sequence from a seed on every compiler and flag set.
struct Random {
    std::uint64_t state;
    explicit Random(std::uint64_t seed) : state(seed) {}
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    // An integer in [lo, hi] (the modulo's bias is below 2^-40 here).
    std::int64_t in(std::int64_t lo, std::int64_t hi) {
        return lo + std::int64_t(next() % std::uint64_t(hi - lo + 1));
    }
};

struct World {
    std::uint32_t statics = 0, movers = 0;
    std::int64_t side = 0;                 // g, in tiles
    std::int64_t hi = 0;                   // the largest min corner a mover may have, in units: g*kUnit - kSide
    std::vector<std::int64_t> x, z;        // each mover's min corner, in units
    std::vector<std::int64_t> vx, vz;      // each mover's velocity, in units a frame

    World(std::uint32_t s, std::uint32_t m, std::uint64_t seed) : statics(s), movers(m) {
        while (side * side < std::int64_t(s)) ++side;  // ceil(sqrt(S)) without libm
        if (side == 0) side = 1;
        hi = side * kUnit - kSide;
        x.resize(m), z.resize(m), vx.resize(m), vz.resize(m);
        Random r(seed);
        for (std::uint32_t k = 0; k < m; ++k) {
            x[k] = r.in(0, hi), z[k] = r.in(0, hi);
            // A direction uniform over the circle, drawn by rejection in the
            // square (integers only, so both sides agree to the bit).
            for (;;) {
                vx[k] = r.in(-kMaxSpeed, kMaxSpeed), vz[k] = r.in(-kMaxSpeed, kMaxSpeed);
                const std::int64_t s2 = vx[k] * vx[k] + vz[k] * vz[k];
                if (s2 >= kMinSpeed * kMinSpeed && s2 <= kMaxSpeed * kMaxSpeed) break;
            }
        }
    }

    // Tile t's box: min x y z, max x y z.
    void tile_box(std::uint32_t t, float out[6]) const {
        const float i = float(std::int64_t(t) % side), j = float(std::int64_t(t) / side);
        out[0] = i, out[1] = 0.0f, out[2] = j, out[3] = i + 1.0f, out[4] = 0.5f, out[5] = j + 1.0f;
    }
    // Mover k's box now: min x y z, max x y z (exact: see the top).
    void mover_box(std::uint32_t k, float out[6]) const {
        const float u = 1.0f / float(kUnit);  // a power of two: the products are exact
        out[0] = float(x[k]) * u, out[1] = float(kMoverMinY) * u, out[2] = float(z[k]) * u;
        out[3] = float(x[k] + kSide) * u, out[4] = float(kMoverMaxY) * u, out[5] = float(z[k] + kSide) * u;
    }
    // Mover k's centre (Jolt's body position) and the half sides of the two
    // shapes: exact, so centre -/+ half gives back the boxes above.
    void mover_centre(std::uint32_t k, float out[3]) const {
        const float u = 1.0f / float(kUnit);
        out[0] = float(x[k] + kHalf) * u, out[1] = float(kMoverMinY + kHalf) * u, out[2] = float(z[k] + kHalf) * u;
    }
    static float mover_half() { return float(kHalf) / float(kUnit); }

    // One frame: every mover moves by its velocity and bounces off the edges.
    void step() {
        for (std::uint32_t k = 0; k < movers; ++k) {
            bounce(x[k], vx[k]);
            bounce(z[k], vz[k]);
        }
    }

private:
    void bounce(std::int64_t& p, std::int64_t& v) const {
        p += v;
        if (p < 0) p = -p, v = -v;                   // reflected at the low edge
        else if (p > hi) p = 2 * hi - p, v = -v;     // and at the high one (|v| << hi)
    }
};

}  // namespace open_world
