// The particle simulation: see simulation.hpp.
#include "particles/simulation.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <utility>

#include <broadphase/parallel_for.hpp>
#include <broadphase_fixtures/scenes.hpp>

namespace particles {
namespace {

constexpr double pi = 3.14159265358979323846;

/// The built-in scenes' splitmix64 (broadphase_fixtures/random.hpp), its state
/// started from the seed scrambled as the simulation always has: fixed seeds
/// make the starting state a pure function of the Config.
broadphase_fixtures::Random seeded_random(std::uint64_t seed) {
    return broadphase_fixtures::Random(seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull);
}

/// The float nearest below (above) v: bounding boxes rounded outwards, so a
/// box never misses a point of its sphere.
inline float round_down(double v) {
    float f = static_cast<float>(v);
    if (static_cast<double>(f) > v) f = std::nextafter(f, -HUGE_VALF);
    return f;
}
inline float round_up(double v) {
    float f = static_cast<float>(v);
    if (static_cast<double>(f) < v) f = std::nextafter(f, HUGE_VALF);
    return f;
}

double sphere_mass(double density, double r) { return density * 4.0 / 3.0 * pi * r * r * r; }

/// E[r^3] for r uniform in [a, b].
double mean_cube(double a, double b) {
    if (b - a < 1e-12) return a * a * a;
    return (b * b * b * b - a * a * a * a) / (4.0 * (b - a));
}

/// f(i) for every i in [0, n), split over the library's threads (the
/// library's task pool; any order: per-particle work only). A particle's
/// step is Work::half in the library's rule (broadphase/threads.hpp).
template <class F>
void for_each_particle(std::size_t n, unsigned threads, F&& f) {
    broadphase::parallel_for(n, threads, broadphase::Work::half, [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i) f(i);
    });
}

double elapsed_ms(std::chrono::steady_clock::time_point t0, std::chrono::steady_clock::time_point t1) {
    return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

}  // namespace

const char* to_string(Model m) { return m == Model::elastic ? "elastic" : "dem"; }

bool parse_model(const std::string& name, Model& out) {
    if (name == "elastic") out = Model::elastic;
    else if (name == "dem") out = Model::dem;
    else return false;
    return true;
}

const char* to_string(BroadPhase b) {
    switch (b) {
    case BroadPhase::neighbor_list: return "neighbor_list";
    case BroadPhase::spheres: return "spheres";
    case BroadPhase::boxes: break;
    }
    return "boxes";
}

bool parse_broad_phase(const std::string& name, BroadPhase& out) {
    if (name == "neighbor_list") out = BroadPhase::neighbor_list;
    else if (name == "spheres") out = BroadPhase::spheres;
    else if (name == "boxes") out = BroadPhase::boxes;
    else return false;
    return true;
}

double default_skin(double r_min) {
    // The smallest radius. The list is rebuilt once some sphere has moved
    // half the skin, so the skin is set by the fastest sphere, not by the
    // typical one: in the demo's default run (100,000 spheres, DEM, 3 s of a
    // cloud falling into a pile, 1,440 steps) the fastest spheres fall
    // 0.03-0.06 a step (r_min = 0.5) by the end, and a skin of 0.25 r_min
    // rebuilt the list on 734 of the 1,440 steps (the broad phase about half
    // of a step), 0.5 r_min on 407, r_min on 216 (about a fifth of a step,
    // and the fastest whole steps) and 2 r_min on 111 (steps no faster). The
    // price is the shell: the list holds the pairs within r_i + r_j + skin,
    // at r_min about 1.7x the contacts of the pile (2 r_min: over 3x), each
    // one distance test in the narrow phase, while a rebuild costs about as
    // much as a whole grid search. The elastic model keeps its spheres fast
    // (no damping; its step lets the fastest sphere fall r_min / 4, and
    // separating overlaps moves spheres on top), so it rebuilds on about
    // every other step with this skin. Measured on a shared 2-core VM,
    // indicative only (docs/design.md).
    return r_min;
}

Simulation::Simulation(const Config& config) : cfg_(config) {
    if (!(cfg_.r_min > 0) || !(cfg_.r_max >= cfg_.r_min)) throw std::invalid_argument("particles: need 0 < r_min <= r_max");
    skin_ = cfg_.skin < 0 ? default_skin(cfg_.r_min) : cfg_.skin;
    if (!std::isfinite(skin_)) throw std::invalid_argument("particles: the skin must be finite");
    const double s = 2.0 * cfg_.r_max * 1.02;  // lattice spacing of the starting cloud: no two spheres touch
    box_ = cfg_.size;
    if (!(box_.x > 0 && box_.y > 0 && box_.z > 0)) {
        // A tank W x 9/16 W x W/4 whose lower 3/4 holds the cloud of n cells.
        const double w = std::cbrt(static_cast<double>(std::max<std::size_t>(cfg_.n, 1)) * s * s * s /
                                   (0.75 * 0.5625 * 0.25));
        box_ = Vec3{std::max(w, 4 * s), std::max(0.5625 * w, 4 * s), std::max(0.25 * w, 2 * s)};
        // Whole cells only: tall enough that the cloud fills at most 3/4 of it.
        const double per_layer = std::floor(box_.x / s) * std::floor(box_.z / s);
        const double layers = std::ceil(static_cast<double>(cfg_.n) / per_layer);
        box_.y = std::max(box_.y, layers * s / 0.75);
    }
    if (cfg_.periodic) {  // periods that float boxes hold exactly (the box broad phase is in float)
        box_.x = static_cast<double>(static_cast<float>(box_.x));
        box_.z = static_cast<double>(static_cast<float>(box_.z));
    }
    if (box_.x < 2 * cfg_.r_max || box_.y < 2 * cfg_.r_max || box_.z < 2 * cfg_.r_max)
        throw std::invalid_argument("particles: the box is smaller than a sphere");

    // The starting cloud: a lattice of cells of side s from the floor up, one
    // sphere per cell at a random place inside it, random radius, random
    // velocity; the top layer's cells are drawn at random.
    const std::size_t n = cfg_.n;
    broadphase_fixtures::Random rng = seeded_random(cfg_.seed);
    const std::size_t cx = std::max<std::size_t>(1, static_cast<std::size_t>(box_.x / s));
    const std::size_t cz = std::max<std::size_t>(1, static_cast<std::size_t>(box_.z / s));
    const std::size_t per_layer = cx * cz;
    const std::size_t layers = (n + per_layer - 1) / per_layer;
    if (static_cast<double>(layers) * s > box_.y) throw std::invalid_argument("particles: the box cannot hold the starting cloud");
    std::vector<std::size_t> cells;
    cells.reserve(n);
    for (std::size_t c = 0; c < std::min(n, (layers - 1) * per_layer); ++c) cells.push_back(c);
    if (n > cells.size()) {
        std::vector<std::size_t> top(per_layer);
        for (std::size_t c = 0; c < per_layer; ++c) top[c] = (layers - 1) * per_layer + c;
        const std::size_t rest = n - cells.size();
        for (std::size_t c = 0; c < rest; ++c) {  // partial Fisher-Yates
            std::swap(top[c], top[c + static_cast<std::size_t>(rng.next() % (per_layer - c))]);
            cells.push_back(top[c]);
        }
    }
    std::vector<Vec3> pos(n), vel(n);
    std::vector<double> rad(n);
    const double ox = (box_.x - static_cast<double>(cx) * s) / 2, oz = (box_.z - static_cast<double>(cz) * s) / 2;
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t c = cells[i];
        const std::size_t layer = c / per_layer, in = c % per_layer;
        const double r = rng.uniform(cfg_.r_min, cfg_.r_max);
        const double play = s / 2 - r;
        rad[i] = r;
        pos[i] = Vec3{ox + (static_cast<double>(in % cx) + 0.5) * s + rng.uniform(-play, play),
                      (static_cast<double>(layer) + 0.5) * s + rng.uniform(-play, play),
                      oz + (static_cast<double>(in / cx) + 0.5) * s + rng.uniform(-play, play)};
        const double v = cfg_.initial_speed;
        vel[i] = Vec3{rng.uniform(-v, v), rng.uniform(-v, v), rng.uniform(-v, v)};
    }
    set_particles(pos, vel, rad, true);
}

void Simulation::set_particles(const std::vector<Vec3>& position, const std::vector<Vec3>& velocity,
                               const std::vector<double>& radius, bool recompute_dt) {
    const std::size_t n = radius.size();
    if (position.size() != n || velocity.size() != n) throw std::invalid_argument("particles: sizes differ");
    for (std::vector<double>* v : {&px_, &py_, &pz_, &vx_, &vy_, &vz_, &r_, &m_, &inv_m_, &fx_, &fy_, &fz_})
        v->assign(n, 0.0);
    contact_.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        px_[i] = position[i].x, py_[i] = position[i].y, pz_[i] = position[i].z;
        vx_[i] = velocity[i].x, vy_[i] = velocity[i].y, vz_[i] = velocity[i].z;
        r_[i] = radius[i];
        m_[i] = sphere_mass(cfg_.density, radius[i]);
        inv_m_[i] = 1.0 / m_[i];
    }
    boxes_.resize(n);
    // New particles, maybe new radii: the lists are built anew (a NeighborList
    // assumes radii unchanged between builds), in the cell of this box.
    list_ = make_list();
    scratch_list_ = make_list();
    double r_max = 0;
    for (double r : r_) r_max = std::max(r_max, r);
    // A periodic side under twice the reach of the largest pair lets the
    // list hold a pair at several images (and a sphere its own image).
    const double reach = 2 * r_max + skin_;
    list_repeats_ = cfg_.periodic && (box_.x < 2 * reach || box_.z < 2 * reach);
    if (recompute_dt) derive_step();
}

broadphase::NeighborList Simulation::make_list() const {
    broadphase::NeighborListOptions o;
    o.cutoff = 0;  // the spheres' radii are the reach: pairs within r_i + r_j + skin
    o.skin = skin_;
    o.full = false;  // a half list: each pair once
    o.threads = cfg_.threads;
    return broadphase::NeighborList(o, cfg_.periodic ? broadphase::PeriodicCell::orthorhombic(box_.x, 0, box_.z)
                                                     : broadphase::PeriodicCell{});
}

void Simulation::derive_step() {
    const double g = std::abs(cfg_.gravity);
    if (cfg_.model == Model::dem) {
        k_ = cfg_.stiffness;
        if (!(k_ > 0)) {
            // The settled bed (about 0.6 packing) weighs on its bottom layer:
            // about half a column's weight per contact, compressing it 8% of r_min.
            const double mean_mass = cfg_.density * 4.0 / 3.0 * pi * mean_cube(cfg_.r_min, cfg_.r_max);
            const double bed_height = static_cast<double>(cfg_.n) * mean_mass / cfg_.density / 0.6 / (box_.x * box_.z);
            const double layers = std::max(1.0, bed_height / (cfg_.r_min + cfg_.r_max));
            k_ = std::max(layers * mean_mass * std::max(g, 1.0) * 0.5 / (0.08 * cfg_.r_min), 1.0);
        }
        // Shortest contact: two of the lightest spheres (reduced mass m/2).
        double m_min = sphere_mass(cfg_.density, cfg_.r_min);
        for (double m : m_) m_min = std::min(m_min, m);
        const double contact_time = pi * std::sqrt(0.5 * m_min / k_);
        const double dt_max = contact_time / 10.0;
        substeps_ = cfg_.substeps > 0 ? cfg_.substeps : std::max(1, static_cast<int>(std::ceil(cfg_.frame_dt / dt_max)));
    } else {
        double r_min = cfg_.r_min, v0 = cfg_.initial_speed * std::sqrt(3.0);
        for (double r : r_) r_min = std::min(r_min, r);
        for (std::size_t i = 0; i < r_.size(); ++i)
            v0 = std::max(v0, std::sqrt(vx_[i] * vx_[i] + vy_[i] * vy_[i] + vz_[i] * vz_[i]));
        const double v_max = std::sqrt(2.0 * g * box_.y) + v0;
        const double dt_max = v_max > 0 ? 0.25 * r_min / v_max : cfg_.frame_dt;
        substeps_ = cfg_.substeps > 0 ? cfg_.substeps : std::max(1, static_cast<int>(std::ceil(cfg_.frame_dt / dt_max)));
    }
    dt_ = cfg_.frame_dt / substeps_;
}

void Simulation::find_pairs() {
    const auto b0 = std::chrono::steady_clock::now();
    stats_.rebuilt = cfg_.broad_phase == BroadPhase::neighbor_list ? update_list(list_, pairs_)
                                                                   : find_pairs_with(cfg_.broad_phase, pairs_);
    stats_.broad_ms = elapsed_ms(b0, std::chrono::steady_clock::now());
    if (stats_.rebuilt) ++broad_builds_;
}

bool Simulation::update_list(broadphase::NeighborList& list, std::vector<broadphase::Pair>& out) {
    const std::size_t n = r_.size();
    const broadphase::SphereView<double> spheres =
        broadphase::sphere_columns(px_.data(), py_.data(), pz_.data(), r_.data(), n);
    const bool rebuilt = list.update(spheres);  // a new list (set_particles) builds
    if (!list.report().ok())
        throw std::runtime_error(std::string("particles: neighbour list failed: ") +
                                 broadphase::to_string(list.report().status));
    if (!rebuilt) return false;  // the same list: `out` holds its pairs already
    // The rows in order (row i, then its entries: fixed for given input,
    // whatever the thread count) as pairs a < b, entry e into out[e] (rows
    // split over the threads). Only when the list was rebuilt: between
    // builds the candidates are the same pairs, so a kept list costs the
    // displacement pass alone.
    const std::uint64_t* offsets = list.offsets().data();
    const std::uint32_t* indices = list.indices().data();
    out.resize(list.entries());
    broadphase::Pair* o = out.data();
    for_each_particle(n, cfg_.threads, [&](std::size_t i) {
        const std::uint32_t a = static_cast<std::uint32_t>(i);
        for (std::uint64_t e = offsets[i], end = offsets[i + 1]; e < end; ++e) {
            const std::uint32_t j = indices[e];
            o[e] = j < a ? broadphase::Pair{j, a} : broadphase::Pair{a, j};
        }
    });
    if (list_repeats_) {
        // A periodic side under twice the reach: a pair may be listed at
        // several images (the narrow phase takes the minimum image: once is
        // enough) and a sphere with its own image (no contact).
        out.erase(std::remove_if(out.begin(), out.end(), [](const broadphase::Pair& p) { return p.a == p.b; }),
                  out.end());
        broadphase::sort_pairs(out);
        out.erase(std::unique(out.begin(), out.end()), out.end());
    }
    return true;
}

bool Simulation::find_pairs_with(BroadPhase b, std::vector<broadphase::Pair>& out) {
    const std::size_t n = r_.size();
    broadphase::Options options;
    options.threads = cfg_.threads;
    options.algorithm = cfg_.algorithm;
    options.min_boxes_per_thread = cfg_.min_per_thread;
    broadphase::Report report;
    if (b == BroadPhase::spheres) {
        // Touching pairs (<=) in the grid's order, which is the same for
        // every thread count; the narrow phase keeps the overlapping ones.
        const broadphase::SphereView<double> spheres =
            broadphase::sphere_columns(px_.data(), py_.data(), pz_.data(), r_.data(), n);
        if (cfg_.periodic)  // minimum image in x and z: the periodic box path
            report = sphere_finder_.find_pairs(spheres, broadphase::BasicPeriodicDomain<double, 3>{{box_.x, 0, box_.z}},
                                               out, options);
        else
            report = sphere_finder_.find_pairs(spheres, out, options);
    } else {
        float* lo[3] = {boxes_.min(0), boxes_.min(1), boxes_.min(2)};
        float* hi[3] = {boxes_.max(0), boxes_.max(1), boxes_.max(2)};
        for_each_particle(n, cfg_.threads, [&](std::size_t i) {
            const double r = r_[i];
            lo[0][i] = round_down(px_[i] - r), hi[0][i] = round_up(px_[i] + r);
            lo[1][i] = round_down(py_[i] - r), hi[1][i] = round_up(py_[i] + r);
            lo[2][i] = round_down(pz_[i] - r), hi[2][i] = round_up(pz_[i] + r);
        });
        if (cfg_.periodic)  // box_.x and box_.z are floats (see the constructor): the same periods
            report = periodic_finder_.find_pairs(
                boxes_, broadphase::PeriodicDomain{{static_cast<float>(box_.x), 0, static_cast<float>(box_.z)}}, out,
                options);
        else
            report = finder_.find_pairs(boxes_, out, options);
    }
    if (!report.ok()) throw std::runtime_error(std::string("particles: broad phase failed: ") + broadphase::to_string(report.status));
    return true;
}

double Simulation::time_broad_phase(BroadPhase b, std::size_t& pairs) {
    std::vector<broadphase::Pair>& out = b == BroadPhase::neighbor_list ? scratch_list_pairs_ : scratch_pairs_;
    const auto t0 = std::chrono::steady_clock::now();
    if (b == BroadPhase::neighbor_list) update_list(scratch_list_, out);
    else find_pairs_with(b, out);
    const double ms = elapsed_ms(t0, std::chrono::steady_clock::now());
    pairs = out.size();
    return ms;
}

namespace {
/// x wrapped into [0, L). O(1).
double wrap_into(double x, double L) {
    x -= L * std::floor(x / L);
    return x >= 0 && x < L ? x : 0.0;  // a rounding to L (or NaN) becomes 0
}
}  // namespace

void Simulation::clamp_inside(std::size_t i) {
    // The last resort of both models: a centre never leaves the box
    // (periodic: x and z wrap around instead).
    if (cfg_.periodic) {
        px_[i] = wrap_into(px_[i], box_.x);
        pz_[i] = wrap_into(pz_[i], box_.z);
    } else {
        if (px_[i] < 0) px_[i] = 0, vx_[i] = std::max(vx_[i], 0.0);
        if (px_[i] > box_.x) px_[i] = box_.x, vx_[i] = std::min(vx_[i], 0.0);
        if (pz_[i] < 0) pz_[i] = 0, vz_[i] = std::max(vz_[i], 0.0);
        if (pz_[i] > box_.z) pz_[i] = box_.z, vz_[i] = std::min(vz_[i], 0.0);
    }
    if (py_[i] < 0) py_[i] = 0, vy_[i] = std::max(vy_[i], 0.0);
    if (py_[i] > box_.y) py_[i] = box_.y, vy_[i] = std::min(vy_[i], 0.0);
}

double Simulation::image(double d, int axis) const {
    if (!cfg_.periodic || axis == 1) return d;
    const double L = axis == 0 ? box_.x : box_.z;
    return d - L * std::round(d / L);
}

/// The narrow phase of both models: the box pairs in the broad phase's order
/// (the same for every thread count, so the run is deterministic), each
/// pair whose spheres overlap recorded as a contact (contact_pairs_,
/// contact_) and handed to resolve(a, b, nx, ny, nz, overlap): n the unit
/// normal from a to b (vertical for coincident centres), overlap the depth.
/// Each pair is tested on the state the contacts before it left.
template <class Resolve>
void Simulation::for_each_contact(Resolve&& resolve) {
    std::fill(contact_.begin(), contact_.end(), std::uint8_t{0});
    contact_pairs_.clear();
    for (const broadphase::Pair& p : pairs_) {
        const std::size_t a = p.a, b = p.b;
        const double dx = image(px_[b] - px_[a], 0), dy = py_[b] - py_[a], dz = image(pz_[b] - pz_[a], 2);
        const double reach = r_[a] + r_[b];
        const double d2 = dx * dx + dy * dy + dz * dz;
        if (d2 >= reach * reach) continue;
        contact_pairs_.push_back(p);
        contact_[a] = contact_[b] = 1;
        const double d = std::sqrt(d2);
        double nx = 0, ny = 1, nz = 0;  // coincident centres: push apart vertically
        if (d > 0) nx = dx / d, ny = dy / d, nz = dz / d;
        resolve(a, b, nx, ny, nz, reach - d);
    }
}

const StepStats& Simulation::step() {
    const auto t0 = std::chrono::steady_clock::now();
    stats_ = StepStats{};
    if (cfg_.model == Model::dem) step_dem();
    else step_elastic();
    stats_.total_ms = elapsed_ms(t0, std::chrono::steady_clock::now());
    stats_.box_pairs = pairs_.size();
    stats_.contacts = contact_pairs_.size();
    time_ += dt_;
    ++steps_;
    return stats_;
}

void Simulation::frame() {
    for (int s = 0; s < substeps_; ++s) step();
}

void Simulation::step_dem() {
    const std::size_t n = r_.size();
    const double dt = dt_, g = cfg_.gravity, k = k_, zeta = cfg_.damping_ratio;
    find_pairs();

    std::fill(fx_.begin(), fx_.end(), 0.0);
    std::fill(fy_.begin(), fy_.end(), 0.0);
    std::fill(fz_.begin(), fz_.end(), 0.0);
    // Spring-dashpot forces, summed over the contacts.
    for_each_contact([&](std::size_t a, std::size_t b, double nx, double ny, double nz, double overlap) {
        const double m_eff = m_[a] * m_[b] / (m_[a] + m_[b]);
        const double vn = (vx_[b] - vx_[a]) * nx + (vy_[b] - vy_[a]) * ny + (vz_[b] - vz_[a]) * nz;
        double f = k * overlap - 2.0 * zeta * std::sqrt(k * m_eff) * vn;
        if (f <= 0) return;  // a contact never pulls
        fx_[a] -= f * nx, fy_[a] -= f * ny, fz_[a] -= f * nz;
        fx_[b] += f * nx, fy_[b] += f * ny, fz_[b] += f * nz;
    });
    // Walls (infinite mass), gravity, symplectic Euler. Per particle: any order.
    const Vec3 box = box_;
    for_each_particle(n, cfg_.threads, [&](std::size_t i) {
        // A wall is a contact with an infinite mass of stiffness 2k: the
        // overlap two spheres share is one sphere's alone here, and the
        // period sqrt(m / 2k) equals two spheres' sqrt((m / 2) / k).
        const double kw = 2 * k;
        const double r = r_[i], c = 2.0 * zeta * std::sqrt(kw * m_[i]);
        double f[3] = {fx_[i], fy_[i], fz_[i]};
        const double p[3] = {px_[i], py_[i], pz_[i]};
        const double v[3] = {vx_[i], vy_[i], vz_[i]};
        const double extent[3] = {box.x, box.y, box.z};
        for (int axis = cfg_.periodic ? 1 : 0; axis < (cfg_.periodic ? 2 : 3); ++axis) {  // periodic: y only
            const double low = r - p[axis];  // overlap with the wall at 0
            if (low > 0) f[axis] += std::max(0.0, kw * low - c * v[axis]);
            const double high = p[axis] + r - extent[axis];  // with the wall at extent
            if (high > 0) f[axis] -= std::max(0.0, kw * high + c * v[axis]);
        }
        const double im = inv_m_[i];
        vx_[i] += f[0] * im * dt;
        vy_[i] += (f[1] * im - g) * dt;
        vz_[i] += f[2] * im * dt;
        px_[i] += vx_[i] * dt;
        py_[i] += vy_[i] * dt;
        pz_[i] += vz_[i] * dt;
        clamp_inside(i);
    });
}

void Simulation::step_elastic() {
    const std::size_t n = r_.size();
    const double dt = dt_, g = cfg_.gravity, e = cfg_.restitution;
    const Vec3 box = box_;
    // Walls: the sphere back inside, its normal velocity reflected (times e).
    auto walls = [&](std::size_t i) {
        const double r = r_[i];
        double* p[3] = {&px_[i], &py_[i], &pz_[i]};
        double* v[3] = {&vx_[i], &vy_[i], &vz_[i]};
        const double extent[3] = {box.x, box.y, box.z};
        for (int axis = cfg_.periodic ? 1 : 0; axis < (cfg_.periodic ? 2 : 3); ++axis) {  // periodic: y only
            if (*p[axis] < r) {
                *p[axis] = r;
                if (*v[axis] < 0) *v[axis] = -e * *v[axis];
            } else if (*p[axis] > extent[axis] - r) {
                *p[axis] = extent[axis] - r;
                if (*v[axis] > 0) *v[axis] = -e * *v[axis];
            }
        }
    };
    for_each_particle(n, cfg_.threads, [&](std::size_t i) {
        vy_[i] -= g * dt;
        px_[i] += vx_[i] * dt;
        py_[i] += vy_[i] * dt;
        pz_[i] += vz_[i] * dt;
        walls(i);
    });

    find_pairs();

    // Sequential impulses, contact by contact: each sees the positions and
    // velocities the ones before it left.
    for_each_contact([&](std::size_t a, std::size_t b, double nx, double ny, double nz, double overlap) {
        const double wa = inv_m_[a], wb = inv_m_[b];
        const double vn = (vx_[b] - vx_[a]) * nx + (vy_[b] - vy_[a]) * ny + (vz_[b] - vz_[a]) * nz;
        if (vn < 0) {  // approaching: exchange momentum along the normal
            const double j = -(1.0 + e) * vn / (wa + wb);
            vx_[a] -= j * wa * nx, vy_[a] -= j * wa * ny, vz_[a] -= j * wa * nz;
            vx_[b] += j * wb * nx, vy_[b] += j * wb * ny, vz_[b] += j * wb * nz;
        }
        // Separate them, each moved in proportion to its inverse mass (the
        // centre of mass stays put).
        const double share_a = wa / (wa + wb), share_b = wb / (wa + wb);
        px_[a] -= overlap * share_a * nx, py_[a] -= overlap * share_a * ny, pz_[a] -= overlap * share_a * nz;
        px_[b] += overlap * share_b * nx, py_[b] += overlap * share_b * ny, pz_[b] += overlap * share_b * nz;
    });
    for (const broadphase::Pair& p : contact_pairs_) {
        walls(p.a);
        walls(p.b);
    }
    for (std::size_t i = 0; i < n; ++i) clamp_inside(i);
}

double Simulation::kinetic_energy() const {
    double e = 0;
    for (std::size_t i = 0; i < r_.size(); ++i) e += 0.5 * m_[i] * (vx_[i] * vx_[i] + vy_[i] * vy_[i] + vz_[i] * vz_[i]);
    return e;
}

Vec3 Simulation::momentum() const {
    Vec3 p;
    for (std::size_t i = 0; i < r_.size(); ++i) p.x += m_[i] * vx_[i], p.y += m_[i] * vy_[i], p.z += m_[i] * vz_[i];
    return p;
}

}  // namespace particles
