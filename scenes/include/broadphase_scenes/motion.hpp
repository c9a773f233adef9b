// Motion sequences: deterministic streams of moves for benchmarking a Scene
// (scene.hpp) the way a physics engine drives it, frame after frame. Named
// like the built-in scenes and used by `broadphase bench` and the tests:
//
//   fall:N            N boxes (0.5, 1 or 1.5 m wide and deep, 0.5..1.5 m tall)
//                     falling under gravity into a pile on a floor of N/8 m^2,
//                     walled in on four sides. At frame 0 they hang in a
//                     cloud: spawned one after another, each 0.05..1 m above
//                     the highest box already spawned over its 0.5 m columns
//                     (boxes over a common column never overlap; side by side
//                     they may touch); half start below 20 m. Every box still
//                     in the air falls a little each frame (9.81 m/s^2 at 30
//                     frames a second: 0.01 m in the first frame, 0.33 m at
//                     frame 30: strong temporal coherence), and a box that
//                     lands stops for good, so the share moving falls over
//                     time (N = 100,000: 58% still fall at frame 33, 15% at
//                     frame 50). Stacking is kinematic: a box lands on the
//                     highest landed box it was above in any of its columns,
//                     or on the floor, touching it (a pair). Objects: 5
//                     static (floor, 4 walls) then the N dynamic boxes.
//   brownian:N:F      N dynamic boxes (edges 0.5..1.5 m) at random in a cube
//                     (2.5 m^3 a box: a box meets about three others); each
//                     frame round(F*N) of them, at least one, drawn at random
//                     and distinct, take a random step of up to 0.2 m on every
//                     axis (reflected at the cube's faces). F = 1: all move
//                     (chaotic: no coherence in which boxes move).
//   static-world:N:F  a city of 8 m lots on a square grid sized for N/2 lots
//                     (N = 100,000: 1.8 km a side): per lot a ground tile
//                     (8 x 8 x 1 m, top at z = 0) and a building (2..6 m wide,
//                     3..40 m tall) on it, all static, and round(F*N) (at
//                     least one) dynamic movers (0.5..2 m wide, 1..2 m tall)
//                     standing on the ground and wandering through it: each
//                     frame each one steps 0.05..0.4 m (its own speed) along a
//                     heading that turns a little, reflected at the city's
//                     edge, passing through buildings. Objects: the
//                     N - round(F*N) static ones (tile, building, tile, ...
//                     lot by lot) then the movers, every one moving every frame.
//   game:N:F          brownian's N boxes, as bodies in a game wake and sleep:
//                     about F*N of them awake at a time. A frame first puts to
//                     sleep the awake boxes that settled (speed below 0.01 m a
//                     frame), then wakes neighbourhoods (an explosion, a
//                     collision): 32 boxes in a row of a Morton order of the
//                     boxes' starting centres, as many times as it takes to
//                     get back to F*N awake. A woken box gets a random
//                     velocity (0.1..0.3 m a frame), moves by it every frame,
//                     damped by 0.9 a frame (reflected at the cube's faces),
//                     and sleeps after about 30 frames: the same boxes move
//                     for many frames in a row, and only they move.
//
// Each sequence is a pure function of its name (fixed seeds, splitmix64 from
// random.hpp, only + - * / and sqrt after the first frame), so two runs of
// one build give the same boxes bit for bit. Frames never end: after every
// box has landed, fall gives empty frames.
//
// Use:
//   broadphase_scenes::motion::Sequence seq;
//   std::string error;
//   if (!broadphase_scenes::motion::Sequence::make("brownian:100000:0.1", seq, error)) fail(error);
//   for (std::size_t i = 0; i < seq.size(); ++i) scene.add(seq.initial()[i], seq.types()[i]);
//   broadphase_scenes::motion::Moves moves;
//   for (int f = 0; f < 30; ++f) {
//       seq.next_frame(moves);            // object moves.index[i] gets moves.box[i]
//       scene.move(moves.index.data(), moves.box.data(), moves.size());   // ids 0..size-1 in order
//       scene.update();
//   }
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include <broadphase/boxes.hpp>
#include <broadphase/scene.hpp>
#include "scenes.hpp"

namespace broadphase_scenes {
namespace motion {

/// The three kinds of sequence (see the top of this file).
enum class Kind : std::uint8_t { fall, brownian, static_world, game };

/// A parsed name: kind, N, and F (1 for fall).
struct Spec {
    Kind kind = Kind::fall;
    std::size_t n = 0;
    double fraction = 1.0;
};

/// Largest N a name may give.
constexpr std::size_t max_count = 50000000;

/// The moves of one frame, struct of arrays: object index[i] gets box[i].
struct Moves {
    std::vector<std::uint32_t> index;
    std::vector<broadphase::Box> box;

    /// Number of moves. O(1).
    std::size_t size() const { return index.size(); }
    /// Empties both arrays, keeping their memory. O(1).
    void clear() {
        index.clear();
        box.clear();
    }
    /// Appends one move. Amortised O(1).
    void push_back(std::uint32_t i, const broadphase::Box& b) {
        index.push_back(i);
        box.push_back(b);
    }
};

/// The name patterns accepted by Sequence::make, for listings. O(1).
inline std::vector<std::string> sequence_names() { return {"fall:N", "brownian:N:F", "static-world:N:F", "game:N:F"}; }

/// One-line description of a name pattern from sequence_names() ("" for
/// anything else). O(1).
inline std::string describe(const std::string& pattern) {
    if (pattern == "fall:N") return "N boxes falling under gravity into a pile on a floor (motion sequence)";
    if (pattern == "brownian:N:F")
        return "N boxes, a fraction F of them (0 < F <= 1) taking a random step each frame (motion sequence)";
    if (pattern == "static-world:N:F")
        return "a static city of N(1-F) boxes with F*N movers wandering through it (motion sequence)";
    if (pattern == "game:N:F")
        return "N boxes that wake in neighbourhoods, move, settle and sleep, F*N awake at a time (motion sequence)";
    return "";
}

}  // namespace motion

// The scenes target's private helpers live in broadphase_scenes::detail
// (the library's own are in broadphase::detail).
namespace detail {

inline bool starts_with(const std::string& s, const char* prefix) {
    return s.compare(0, std::char_traits<char>::length(prefix), prefix) == 0;
}

/// Splits "a:b:c" at ':'.
inline std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out(1);
    for (char c : s) {
        if (c == ':') out.emplace_back();
        else out.back() += c;
    }
    return out;
}

inline bool parse_count(const std::string& text, std::size_t& n) {
    if (text.empty() || text.size() > 9) return false;
    for (char c : text)
        if (c < '0' || c > '9') return false;
    const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
    if (v < 1 || v > motion::max_count) return false;
    n = static_cast<std::size_t>(v);
    return true;
}

inline bool parse_fraction(const std::string& text, double& f) {
    if (text.empty()) return false;
    for (char c : text)  // a plain decimal: digits, one '.', an exponent
        if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+')) return false;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || !(v > 0.0) || !(v <= 1.0)) return false;
    f = v;
    return true;
}

/// max(1, round(f * n)), at most n.
inline std::size_t share(double f, std::size_t n) {
    const double k = std::floor(f * double(n) + 0.5);
    return std::min(n, std::max<std::size_t>(1, static_cast<std::size_t>(k)));
}

inline broadphase::Box make_box(double x0, double y0, double z0, double x1, double y1, double z1) {
    broadphase::Box b;
    b.min = {float(x0), float(y0), float(z0)};
    b.max = {float(x1), float(y1), float(z1)};
    return b;
}

}  // namespace detail

namespace motion {

/// Whether `name` asks for a motion sequence: it starts with "fall:",
/// "brownian:" or "static-world:" (or is one of those words alone). Such a
/// name may still be malformed: parse says why. O(length).
inline bool is_sequence_name(const std::string& name) {
    for (const char* kind : {"fall", "brownian", "static-world", "game"}) {
        const std::string k = kind;
        if (name == k || detail::starts_with(name, (k + ":").c_str())) return true;
    }
    return false;
}

/// Parses a sequence name into `spec`. False for anything else, with a
/// one-line reason in `error`: an unknown kind, a missing or extra field, N
/// not a whole number from 1 to max_count, F not a number in (0, 1].
/// O(length).
inline bool parse(const std::string& name, Spec& spec, std::string& error) {
    const std::vector<std::string> f = detail::split(name);
    Spec s;
    std::string usage;
    if (f[0] == "fall") s.kind = Kind::fall, usage = "fall:N";
    else if (f[0] == "brownian") s.kind = Kind::brownian, usage = "brownian:N:F";
    else if (f[0] == "static-world") s.kind = Kind::static_world, usage = "static-world:N:F";
    else if (f[0] == "game") s.kind = Kind::game, usage = "game:N:F";
    else {
        error = "unknown motion sequence '" + name + "': use fall:N, brownian:N:F, static-world:N:F or game:N:F";
        return false;
    }
    const std::size_t fields = s.kind == Kind::fall ? 2 : 3;
    if (f.size() != fields) {
        error = "motion sequence '" + name + "': expected " + usage;
        return false;
    }
    if (!detail::parse_count(f[1], s.n)) {
        error = "motion sequence '" + name + "': N must be a whole number from 1 to " + std::to_string(max_count) +
                ", not '" + f[1] + "'";
        return false;
    }
    if (fields == 3 && !detail::parse_fraction(f[2], s.fraction)) {
        error = "motion sequence '" + name + "': F must be a number greater than 0 and at most 1, not '" + f[2] + "'";
        return false;
    }
    spec = s;
    error.clear();
    return true;
}

/// A running motion sequence: the objects (boxes and types, index 0 ..
/// size()-1, static ones first), then the moves of each next frame.
class Sequence {
public:
    Sequence() = default;

    /// The sequence `spec` describes, at frame 0. `seed` 0 takes each kind's
    /// fixed seed (what the names mean); another seed gives another sequence
    /// of the same kind. O(objects).
    explicit Sequence(const Spec& spec, std::uint64_t seed = 0) : spec_(spec) {
        switch (spec.kind) {
            case Kind::fall: init_fall(seed ? seed : 51); break;
            case Kind::brownian: init_brownian(seed ? seed : 52); break;
            case Kind::static_world: init_static_world(seed ? seed : 53); break;
            case Kind::game: init_game(seed ? seed : 54); break;
        }
        initial_ = boxes_;
    }

    /// Builds the named sequence into `out`; false (out unchanged) with a
    /// one-line reason in `error` when the name is malformed (see parse).
    /// O(objects).
    static bool make(const std::string& name, Sequence& out, std::string& error) {
        Spec spec;
        if (!parse(name, spec, error)) return false;
        out = Sequence(spec);
        return true;
    }

    /// What the name said. O(1).
    const Spec& spec() const { return spec_; }
    /// Number of objects, static and dynamic. O(1).
    std::size_t size() const { return boxes_.size(); }
    /// Number of static objects (indices 0 .. static_count()-1). O(1).
    std::size_t static_count() const { return statics_; }
    /// The boxes at frame 0. O(1).
    const std::vector<broadphase::Box>& initial() const { return initial_; }
    /// Each object's type (static objects never move). O(1).
    const std::vector<broadphase::ObjectType>& types() const { return types_; }
    /// The boxes after the last next_frame(). O(1).
    const std::vector<broadphase::Box>& boxes() const { return boxes_; }
    /// Frames generated so far. O(1).
    std::size_t frame() const { return frame_; }
    /// A box containing every box of every frame (a world box for broad
    /// phases that need one). O(1).
    const broadphase::Box& bounds() const { return bounds_; }

    /// Advances one frame: `moves` (cleared first) gets each object whose box
    /// changes, with its new box, each object at most once; boxes() follows.
    /// Cost: fall O(boxes still in the air + columns under those landing),
    /// brownian O(F*N), static-world O(movers).
    void next_frame(Moves& moves) {
        moves.clear();
        ++frame_;
        switch (spec_.kind) {
            case Kind::fall: step_fall(moves); break;
            case Kind::brownian: step_brownian(moves); break;
            case Kind::static_world: step_static_world(moves); break;
            case Kind::game: step_game(moves); break;
        }
    }

private:
    // ---------------------------------------------------------------- fall
    static constexpr double fall_gravity = 9.81 / (30.0 * 30.0);  // m per frame^2
    static constexpr double fall_cell = 0.5;                      // heightmap column width, m

    struct Footprint {
        std::uint32_t x = 0, y = 0, w = 0, d = 0;  // first column and columns covered, per axis
    };

    /// The highest value of `map` over a footprint's columns.
    float highest(const std::vector<float>& map, const Footprint& p) const {
        float h = 0.0f;
        for (std::size_t y = p.y; y < p.y + p.d; ++y)
            for (std::size_t x = p.x; x < p.x + p.w; ++x) h = std::max(h, map[y * cells_ + x]);
        return h;
    }
    void raise(std::vector<float>& map, const Footprint& p, float top) {
        for (std::size_t y = p.y; y < p.y + p.d; ++y)
            for (std::size_t x = p.x; x < p.x + p.w; ++x) map[y * cells_ + x] = std::max(map[y * cells_ + x], top);
    }

    void init_fall(std::uint64_t seed) {
        const std::size_t n = spec_.n;
        // A floor of N/8 m^2 (8 boxes a square metre): half the cloud starts
        // below 20 m, the pile ends about 12 m tall.
        cells_ = std::max<std::size_t>(8, static_cast<std::size_t>(std::ceil(std::sqrt(double(n) / 8.0) / fall_cell)));
        const double side = fall_cell * double(cells_);
        side_ = side;
        landed_.assign(cells_ * cells_, {});
        Random r(seed);
        // The cloud: boxes spawned one after another, each a gap above the
        // highest box already spawned over its columns, so that boxes over a
        // common column never overlap; neighbours side by side may touch.
        std::vector<float> spawn(cells_ * cells_, 0.0f);
        std::vector<broadphase::Box> cloud(n);
        foot_.resize(n);
        tall_.resize(n);
        z0_.resize(n);
        float top = 0.0f;
        for (std::size_t i = 0; i < n; ++i) {
            Footprint& p = foot_[i];
            p.w = 1 + static_cast<std::uint32_t>(r.below(3));  // 0.5, 1 or 1.5 m
            p.d = 1 + static_cast<std::uint32_t>(r.below(3));
            p.x = static_cast<std::uint32_t>(r.below(cells_ - p.w + 1));
            p.y = static_cast<std::uint32_t>(r.below(cells_ - p.d + 1));
            const double sz = r.uniform(0.5, 1.5), gap = r.uniform(0.05, 1.0);
            const double z = double(highest(spawn, p)) + gap;
            broadphase::Box& b = cloud[i];
            b = detail::make_box(fall_cell * p.x, fall_cell * p.y, z, fall_cell * (p.x + p.w), fall_cell * (p.y + p.d),
                                 z + sz);
            raise(spawn, p, b.max[2]);
            z0_[i] = z;
            tall_[i] = static_cast<float>(double(b.max[2]) - double(b.min[2]));
            top = std::max(top, b.max[2]);
        }
        const double wall = double(top) + 2;
        add_static(detail::make_box(-1, -1, -1, side + 1, side + 1, 0));  // floor
        add_static(detail::make_box(-1, 0, 0, 0, side, wall));            // walls
        add_static(detail::make_box(side, 0, 0, side + 1, side, wall));
        add_static(detail::make_box(0, -1, 0, side, 0, wall));
        add_static(detail::make_box(0, side, 0, side, side + 1, wall));
        for (const broadphase::Box& b : cloud) add_dynamic(b);
        // Everything in the air falls alike, so the order by height never
        // changes: boxes are stepped lowest first and land on what landed
        // below them earlier in the same frame.
        air_.resize(n);
        for (std::size_t i = 0; i < n; ++i) air_[i] = static_cast<std::uint32_t>(i);
        std::stable_sort(air_.begin(), air_.end(), [&](std::uint32_t a, std::uint32_t b) { return z0_[a] < z0_[b]; });
        bounds_ = detail::make_box(-1, -1, -1, side + 1, side + 1, wall);
    }

    /// The highest landed top over a footprint's columns at or below `z`
    /// (0, the floor, when none).
    float ground_below(const Footprint& p, float z) const {
        float h = 0.0f;
        for (std::size_t y = p.y; y < p.y + p.d; ++y)
            for (std::size_t x = p.x; x < p.x + p.w; ++x) {
                const std::vector<float>& tops = landed_[y * cells_ + x];
                auto it = std::upper_bound(tops.begin(), tops.end(), z);
                if (it != tops.begin()) h = std::max(h, *(it - 1));
            }
        return h;
    }

    void step_fall(Moves& moves) {
        const double f = double(frame_);
        const double drop = fall_gravity * f * (f + 1) / 2;  // fallen since frame 0
        std::size_t kept = 0;
        for (std::size_t k = 0; k < air_.size(); ++k) {
            const std::uint32_t j = air_[k];  // dynamic box j, object statics_ + j
            const std::uint32_t i = static_cast<std::uint32_t>(statics_ + j);
            broadphase::Box b = boxes_[i];
            // What this box may land on: the landed tops under it that it was
            // still above (a box landed on an overhang above it is not ground).
            const float ground = ground_below(foot_[j], b.min[2]);
            float bottom = static_cast<float>(z0_[j] - drop);
            const bool landed = bottom <= ground;
            if (landed) bottom = ground;
            const bool moved = b.min[2] != bottom;
            b.min[2] = bottom;
            b.max[2] = static_cast<float>(double(bottom) + double(tall_[j]));
            if (landed) {
                const Footprint& p = foot_[j];
                for (std::size_t y = p.y; y < p.y + p.d; ++y)
                    for (std::size_t x = p.x; x < p.x + p.w; ++x) {
                        std::vector<float>& tops = landed_[y * cells_ + x];
                        tops.insert(std::upper_bound(tops.begin(), tops.end(), b.max[2]), b.max[2]);
                    }
            } else {
                air_[kept++] = j;
            }
            if (moved) {
                boxes_[i] = b;
                moves.push_back(i, b);
            }
        }
        air_.resize(kept);
    }

    // ---------------------------------------------------------------- brownian
    static constexpr double brownian_volume = 2.5;  // m^3 a box
    static constexpr double brownian_step = 0.2;    // m, largest step on an axis

    void init_brownian(std::uint64_t seed) {
        const std::size_t n = spec_.n;
        const double side = std::cbrt(brownian_volume * double(n));
        side_ = side;
        rng_ = Random(seed);
        centre_.resize(3 * n);
        half_.resize(3 * n);
        for (std::size_t i = 0; i < n; ++i) {
            for (int k = 0; k < 3; ++k) half_[3 * i + k] = rng_.uniform(0.25, 0.75);
            for (int k = 0; k < 3; ++k) centre_[3 * i + k] = rng_.uniform(0, side);
            add_dynamic(centred(i));
        }
        order_.resize(n);
        for (std::size_t i = 0; i < n; ++i) order_[i] = static_cast<std::uint32_t>(i);
        movers_ = detail::share(spec_.fraction, n);
        bounds_ = detail::make_box(-1, -1, -1, side + 1, side + 1, side + 1);
    }

    broadphase::Box centred(std::size_t i) const {
        const double* c = &centre_[3 * i];
        const double* h = &half_[3 * i];
        return detail::make_box(c[0] - h[0], c[1] - h[1], c[2] - h[2], c[0] + h[0], c[1] + h[1], c[2] + h[2]);
    }

    static double reflect(double c, double side) {
        if (c < 0) return -c;
        if (c > side) return 2 * side - c;
        return c;
    }

    void step_brownian(Moves& moves) {
        const std::size_t n = spec_.n;
        moves.index.reserve(movers_);
        moves.box.reserve(movers_);
        for (std::size_t j = 0; j < movers_; ++j) {
            // Partial Fisher-Yates: movers_ distinct boxes, uniformly.
            if (movers_ < n) std::swap(order_[j], order_[j + rng_.below(n - j)]);
            const std::uint32_t i = order_[j];
            for (int k = 0; k < 3; ++k) {
                double& c = centre_[3 * i + k];
                c = reflect(c + rng_.uniform(-brownian_step, brownian_step), side_);
            }
            boxes_[i] = centred(i);
            moves.push_back(i, boxes_[i]);
        }
    }

    // ---------------------------------------------------------------- static-world
    static constexpr double lot = 8.0;  // m

    void init_static_world(std::uint64_t seed) {
        const std::size_t n = spec_.n;
        const std::size_t movers = detail::share(spec_.fraction, n);
        const std::size_t statics = n - movers;
        const std::size_t lots = (n + 1) / 2;
        const std::size_t per_side = static_cast<std::size_t>(std::ceil(std::sqrt(double(lots))));
        const double side = lot * double(per_side);
        side_ = side;
        Random r(seed);
        for (std::size_t k = 0; k < statics; ++k) {
            const std::size_t l = k / 2;
            const double x = lot * double(l % per_side), y = lot * double(l / per_side);
            if (k % 2 == 0) {
                add_static(detail::make_box(x, y, -1, x + lot, y + lot, 0));
            } else {
                const double w = r.uniform(2, 6), d = r.uniform(2, 6);
                const double ox = r.uniform(0.5, lot - 0.5 - w), oy = r.uniform(0.5, lot - 0.5 - d);
                const double h = std::exp(r.uniform(std::log(3.0), std::log(40.0)));
                add_static(detail::make_box(x + ox, y + oy, 0, x + ox + w, y + oy + d, h));
            }
        }
        walker_.resize(movers);
        for (Walker& w : walker_) {
            w.w = r.uniform(0.5, 2), w.d = r.uniform(0.5, 2), w.h = r.uniform(1, 2);
            w.x = r.uniform(0, side - w.w), w.y = r.uniform(0, side - w.d);
            w.speed = r.uniform(0.05, 0.4);
            double hx = 0, hy = 0, len = 0;
            while (len < 0.1) hx = r.uniform(-1, 1), hy = r.uniform(-1, 1), len = std::sqrt(hx * hx + hy * hy);
            w.hx = hx / len, w.hy = hy / len;
            add_dynamic(walker_box(w));
        }
        rng_ = Random(seed + 1000);
        bounds_ = detail::make_box(0, 0, -1, side, side, 41);
    }

    struct Walker {
        double x = 0, y = 0, w = 0, d = 0, h = 0, speed = 0, hx = 1, hy = 0;
    };

    static broadphase::Box walker_box(const Walker& w) { return detail::make_box(w.x, w.y, 0, w.x + w.w, w.y + w.d, w.h); }

    void step_static_world(Moves& moves) {
        moves.index.reserve(walker_.size());
        moves.box.reserve(walker_.size());
        for (std::size_t j = 0; j < walker_.size(); ++j) {
            Walker& w = walker_[j];
            // Turn a little: heading += t * its normal, renormalised.
            const double t = rng_.uniform(-0.2, 0.2);
            const double hx = w.hx - t * w.hy, hy = w.hy + t * w.hx;
            const double len = std::sqrt(hx * hx + hy * hy);
            w.hx = hx / len, w.hy = hy / len;
            w.x += w.speed * w.hx, w.y += w.speed * w.hy;
            const double mx = side_ - w.w, my = side_ - w.d;
            if (w.x < 0) w.x = -w.x, w.hx = -w.hx;
            if (w.x > mx) w.x = 2 * mx - w.x, w.hx = -w.hx;
            if (w.y < 0) w.y = -w.y, w.hy = -w.hy;
            if (w.y > my) w.y = 2 * my - w.y, w.hy = -w.hy;
            const std::uint32_t i = static_cast<std::uint32_t>(statics_ + j);
            boxes_[i] = walker_box(w);
            moves.push_back(i, boxes_[i]);
        }
    }

    // ---------------------------------------------------------------- game
    static constexpr std::size_t game_cluster = 32;  // boxes an impulse wakes
    static constexpr double game_damping = 0.9;      // speed kept a frame
    static constexpr double game_rest = 0.01;        // m a frame: below it a box sleeps

    void init_game(std::uint64_t seed) {
        init_brownian(seed);  // the same boxes; movers_ is the awake target
        const std::size_t n = spec_.n;
        // A Morton order of the starting centres (10 bits an axis): a run
        // of it is a neighbourhood.
        std::vector<std::uint64_t> key(n);
        for (std::size_t i = 0; i < n; ++i) {
            std::uint64_t m = 0;
            for (int k = 0; k < 3; ++k) {
                const double t = std::min(std::max(centre_[3 * i + k] / side_, 0.0), 1.0);
                const std::uint64_t q = static_cast<std::uint64_t>(t * 1023.0);
                for (int b = 0; b < 10; ++b) m |= ((q >> b) & 1u) << (3 * b + k);
            }
            key[i] = (m << 32) | i;
        }
        std::sort(key.begin(), key.end());
        for (std::size_t i = 0; i < n; ++i) order_[i] = static_cast<std::uint32_t>(key[i] & 0xffffffffu);
        velocity_.assign(3 * n, 0.0);
        awake_flag_.assign(n, 0);
        awake_.clear();
    }

    void step_game(Moves& moves) {
        const std::size_t n = spec_.n;
        // Settled boxes sleep.
        std::size_t kept = 0;
        for (std::uint32_t i : awake_) {
            double fastest = 0;
            for (int k = 0; k < 3; ++k) fastest = std::max(fastest, std::fabs(velocity_[3 * i + k]));
            if (fastest < game_rest) awake_flag_[i] = 0;
            else awake_[kept++] = i;
        }
        awake_.resize(kept);
        // Neighbourhoods wake until F*N are awake.
        while (awake_.size() < movers_) {
            const std::size_t start = rng_.below(n);
            for (std::size_t t = 0; t < game_cluster && awake_.size() < movers_; ++t) {
                const std::uint32_t i = order_[(start + t) % n];
                if (awake_flag_[i]) continue;
                awake_flag_[i] = 1;
                awake_.push_back(i);
                // A random direction (uniform in the unit ball, normalised), at 0.1..0.3 m a frame.
                double d[3], len = 0;
                do {
                    len = 0;
                    for (int k = 0; k < 3; ++k) d[k] = rng_.uniform(-1, 1), len += d[k] * d[k];
                } while (len > 1 || len < 1e-6);
                const double speed = rng_.uniform(0.1, 0.3) / std::sqrt(len);
                for (int k = 0; k < 3; ++k) velocity_[3 * i + k] = d[k] * speed;
            }
        }
        moves.index.reserve(awake_.size());
        moves.box.reserve(awake_.size());
        for (std::uint32_t i : awake_) {
            for (int k = 0; k < 3; ++k) {
                double& c = centre_[3 * i + k];
                double& v = velocity_[3 * i + k];
                c += v;
                if (c < 0 || c > side_) c = reflect(c, side_), v = -v;
                v *= game_damping;
            }
            boxes_[i] = centred(i);
            moves.push_back(i, boxes_[i]);
        }
    }

    // ---------------------------------------------------------------- common
    void add_static(const broadphase::Box& b) {
        boxes_.push_back(b);
        types_.push_back(broadphase::ObjectType::static_object);
        ++statics_;
    }
    void add_dynamic(const broadphase::Box& b) {
        boxes_.push_back(b);
        types_.push_back(broadphase::ObjectType::dynamic_object);
    }

    Spec spec_;
    std::vector<broadphase::Box> boxes_, initial_;
    std::vector<broadphase::ObjectType> types_;
    std::size_t statics_ = 0;
    std::size_t frame_ = 0;
    broadphase::Box bounds_;
    double side_ = 0;
    Random rng_{0};
    // fall
    std::vector<double> z0_;          // frame-0 bottom of each dynamic box (by dynamic index)
    std::vector<float> tall_;         // its edge along z
    std::vector<Footprint> foot_;     // its columns
    std::vector<std::uint32_t> air_;  // dynamic boxes still falling, lowest first
    std::vector<std::vector<float>> landed_;  // per column (cells_ x cells_), the landed tops, sorted
    std::size_t cells_ = 0;
    // brownian
    std::vector<double> centre_, half_;
    std::vector<std::uint32_t> order_;
    std::size_t movers_ = 0;
    // static-world
    std::vector<Walker> walker_;
    // game (with brownian's boxes)
    std::vector<double> velocity_;
    std::vector<std::uint8_t> awake_flag_;
    std::vector<std::uint32_t> awake_;
};

}  // namespace motion
}  // namespace broadphase_scenes
