// pointclouds: the first challenge of the article "Simple Fast Adaptive Grid
// to Accelerate Collision Detection between AABB of Particles" (CodeProject,
// 2022). All colliding pairs among 10,000 point clouds of 125 points each
// (5x5x5 lattices of random spacing at random positions), every frame:
// broadphase::PairFinder on the clouds' AABBs (the broad phase), then a narrow
// phase on each candidate pair. One thread.
//
//   pointclouds                      10,000 clouds, 10 frames, timings, summary
//   pointclouds --reference          the same with the brute narrow phase
//   pointclouds --check --clouds 2000 --frames 1
//                                    also checks the pairs against an O(n^2)
//                                    all-pairs brute narrow phase; exit 1 if not equal
//
// See README.md next to this file.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <broadphase/broadphase.hpp>
#include <broadphase_fixtures/scenes.hpp>

#include "narrow_phase.hpp"

namespace {

namespace bs = broadphase_fixtures;
using broadphase::Pair;
using pointclouds::Narrow;

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// The scene's parameters (the article's: 10,000 clouds in [0,450)^3).
constexpr std::size_t default_clouds = 10000;
constexpr double default_side = 450.0;
constexpr std::uint64_t seed = 10;
constexpr double target_ms = 1000.0 / 60.0;

struct Settings {
    std::size_t clouds = default_clouds;
    int frames = 10;
    double side = 0;  // 0: 450 * cbrt(clouds / 10,000), the challenge's density at any count
    double min_spacing = 0.5, max_spacing = 1.5;  // "randomly sized": AABBs 2 to 6 wide
    bool check = false;
    Narrow narrow = Narrow::lattice;
};

const char* const usage_text =
    "usage: pointclouds [--clouds N] [--frames F] [--side S] [--spacing A[:B]]\n"
    "                   [--narrow lattice|pruned|brute] [--reference] [--check]\n"
    "  --clouds N    number of point clouds (default 10000)\n"
    "  --frames F    timed frames (default 10)\n"
    "  --side S      centres uniform in [0,S)^3 (default 450*cbrt(N/10000): the challenge's density)\n"
    "  --spacing A:B lattice spacing uniform in [A,B) (default 0.5:1.5); A alone: all A (the article's 1)\n"
    "  --narrow K    narrow phase of the timed frames: lattice (default), pruned or brute\n"
    "  --reference   same as --narrow brute: the article's 125x125 sqrt narrow phase\n"
    "  --check       check the frames' colliding pairs against an O(N^2) all-pairs brute\n"
    "                narrow phase without broad phase, at this density and 64x denser\n"
    "                (and the three narrow phases against each other); exit 1 on a mismatch\n";

[[noreturn]] void usage_error(const std::string& message) {
    std::fprintf(stderr, "pointclouds: %s\n%s", message.c_str(), usage_text);
    std::exit(2);
}

bool parse_count(const std::string& s, unsigned long long max, unsigned long long& out) {
    if (s.empty() || s.size() > 12 || s.find_first_not_of("0123456789") != std::string::npos) return false;
    out = std::stoull(s);
    return out >= 1 && out <= max;
}

Settings parse(int argc, char** argv) {
    Settings st;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage_error(arg + " needs a value");
            return argv[++i];
        };
        unsigned long long n = 0;
        if (arg == "--help" || arg == "-h") {
            std::fputs(usage_text, stdout);
            std::exit(0);
        } else if (arg == "--clouds") {
            const std::string v = value();
            if (!parse_count(v, 10'000'000, n))
                usage_error("--clouds wants a count from 1 to 10000000, not '" + v + "'");
            st.clouds = static_cast<std::size_t>(n);
        } else if (arg == "--frames") {
            const std::string v = value();
            if (!parse_count(v, 100'000, n)) usage_error("--frames wants a count from 1 to 100000, not '" + v + "'");
            st.frames = static_cast<int>(n);
        } else if (arg == "--side") {
            const std::string v = value();
            char* end = nullptr;
            st.side = std::strtod(v.c_str(), &end);
            if (v.empty() || *end != '\0' || !(st.side > 0 && st.side < 1e7))
                usage_error("--side wants a length above 0, not '" + v + "'");
        } else if (arg == "--spacing") {
            const std::string v = value();
            const std::size_t colon = v.find(':');
            const std::string a = v.substr(0, colon), b = colon == std::string::npos ? a : v.substr(colon + 1);
            char* end_a = nullptr;
            char* end_b = nullptr;
            st.min_spacing = std::strtod(a.c_str(), &end_a);
            st.max_spacing = std::strtod(b.c_str(), &end_b);
            if (a.empty() || b.empty() || *end_a != '\0' || *end_b != '\0' || !(st.min_spacing > 0) ||
                !(st.max_spacing >= st.min_spacing) || !(st.max_spacing < 1e6))
                usage_error("--spacing wants A or A:B with 0 < A <= B, not '" + v + "'");
        } else if (arg == "--narrow") {
            const std::string v = value();
            if (!pointclouds::parse_narrow(v, st.narrow)) usage_error("unknown narrow phase '" + v + "'");
        } else if (arg == "--reference") {
            st.narrow = Narrow::brute;
        } else if (arg == "--check") {
            st.check = true;
        } else {
            usage_error("unknown argument '" + arg + "'");
        }
    }
    if (st.side == 0) st.side = default_side * std::cbrt(static_cast<double>(st.clouds) / default_clouds);
    return st;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

/// Broad phase + narrow phase over a whole scene, untimed; sorted result.
std::vector<Pair> pipeline_pairs(broadphase::PairFinder& finder, const bs::PointClouds& clouds, Narrow narrow,
                                 std::vector<Pair>& candidates) {
    std::vector<Pair> out;
    const broadphase::Report r = finder.find_pairs(clouds.boxes, candidates);
    if (!r.ok()) {
        std::fprintf(stderr, "pointclouds: broad phase failed: %s\n", broadphase::to_string(r.status));
        std::exit(1);
    }
    pointclouds::colliding_pairs(narrow, clouds, candidates, out);
    std::sort(out.begin(), out.end());
    return out;
}

/// One check instance; returns true when everything agrees.
bool check_instance(const Settings& st, double side) {
    const std::size_t n = st.clouds;
    const Narrow narrow = st.narrow;
    const auto t0 = Clock::now();
    const bs::PointClouds clouds = bs::point_clouds(n, side, seed, st.min_spacing, st.max_spacing);
    bool ok = true;
    std::size_t bad_clouds = 0;
    for (std::size_t c = 0; c < n; ++c) {
        const broadphase::Box b = pointclouds::bounds_of(clouds.cloud(c)), s = clouds.bounds[c], g = clouds.boxes[c];
        bool inside = true;  // the broad-phase box holds the AABB grown by 0.5
        for (int k = 0; k < 3; ++k)
            inside = inside && double(g.min[k]) <= double(b.min[k]) - 0.5 && double(g.max[k]) >= double(b.max[k]) + 0.5;
        if (!pointclouds::is_lattice(clouds.cloud(c)) || b.min != s.min || b.max != s.max || !inside) ++bad_clouds;
    }
    if (bad_clouds != 0) {
        std::printf("check: %zu clouds are not lattices or have wrong bounds or boxes\n", bad_clouds);
        ok = false;
    }

    // Broad phase + the frames' narrow phase.
    broadphase::PairFinder finder;
    std::vector<Pair> candidates;
    const std::vector<Pair> got = pipeline_pairs(finder, clouds, narrow, candidates);

    // The three narrow phases on every candidate.
    std::size_t disagree = 0;
    for (const Pair& p : candidates) {
        const float* a = clouds.cloud(p.a);
        const float* b = clouds.cloud(p.b);
        const broadphase::Box ba = clouds.bounds[p.a], bb = clouds.bounds[p.b];
        const bool brute = pointclouds::collide_brute(a, b);
        if (pointclouds::collide_lattice(a, b) != brute || pointclouds::collide_pruned(a, ba, b, bb) != brute ||
            pointclouds::collide_lattice(b, a) != brute || pointclouds::collide_pruned(b, bb, a, ba) != brute)
            ++disagree;
    }

    // O(n^2) all-pairs reference without broad phase.
    std::vector<Pair> want;
    pointclouds::reference_colliding_pairs(clouds, /*skip_far=*/true, want);

    const bool same = got == want;
    ok = ok && same && disagree == 0;
    std::printf(
        "check: %zu clouds in [0,%.1f)^3: %zu candidates, %zu colliding (broad phase + %s), %zu colliding "
        "(all %zu pairs, brute); narrow phases disagree on %zu candidates: %s (%.0f ms)\n",
        n, side, candidates.size(), got.size(), pointclouds::to_string(narrow), want.size(),
        n * (n - 1) / 2, disagree, ok ? "OK" : "MISMATCH", ms_since(t0));
    // What a broad phase on the plain AABBs (the article's) would have missed.
    std::size_t apart = 0;
    for (const Pair& p : want)
        if (!broadphase::overlaps(clouds.bounds[p.a], clouds.bounds[p.b])) ++apart;
    std::printf("check:   %zu of the %zu colliding pairs have disjoint AABBs (found through the grown boxes)\n", apart,
                want.size());
    if (!same) {
        std::size_t shown = 0;
        for (const Pair& p : want)
            if (!std::binary_search(got.begin(), got.end(), p) && shown++ < 5)
                std::printf("  missing (%u, %u)\n", p.a, p.b);
        for (const Pair& p : got)
            if (!std::binary_search(want.begin(), want.end(), p) && shown++ < 10)
                std::printf("  extra (%u, %u)\n", p.a, p.b);
    }
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    const Settings st = parse(argc, argv);

    auto t0 = Clock::now();
    const bs::PointClouds clouds = bs::point_clouds(st.clouds, st.side, seed, st.min_spacing, st.max_spacing);
    char spacing[64];
    if (st.min_spacing == st.max_spacing) std::snprintf(spacing, sizeof spacing, "spacing %g", st.min_spacing);
    else std::snprintf(spacing, sizeof spacing, "spacing uniform in [%g,%g)", st.min_spacing, st.max_spacing);
    std::printf("pointclouds: %zu clouds x %d points, centres uniform in [0,%.1f)^3, %s, seed %llu (generated in "
                "%.1f ms)\n",
                clouds.size(), bs::cloud_points, st.side, spacing, static_cast<unsigned long long>(seed), ms_since(t0));
    std::printf("broad phase: broadphase::PairFinder (automatic) on the AABBs grown by 0.5; narrow phase: %s; "
                "one thread\n",
                pointclouds::to_string(st.narrow));

    broadphase::PairFinder finder;  // kept across frames: reuses its memory
    std::vector<Pair> candidates, colliding;
    std::vector<double> broad_ms, narrow_ms, total_ms;
    std::printf("%5s %10s %10s %10s %10s %11s %10s\n", "frame", "broad_ms", "narrow_ms", "total_ms", "fps",
                "candidates", "colliding");
    for (int f = 0; f < st.frames; ++f) {
        t0 = Clock::now();
        const broadphase::Report r = finder.find_pairs(clouds.boxes, candidates);
        const auto t1 = Clock::now();
        pointclouds::colliding_pairs(st.narrow, clouds, candidates, colliding);
        const auto t2 = Clock::now();
        if (!r.ok()) {
            std::fprintf(stderr, "pointclouds: broad phase failed: %s\n", broadphase::to_string(r.status));
            return 1;
        }
        const double b = std::chrono::duration<double, std::milli>(t1 - t0).count();
        const double n = std::chrono::duration<double, std::milli>(t2 - t1).count();
        broad_ms.push_back(b);
        narrow_ms.push_back(n);
        total_ms.push_back(b + n);
        std::printf("%5d %10.3f %10.3f %10.3f %10.1f %11zu %10zu\n", f + 1, b, n, b + n, 1000.0 / (b + n),
                    candidates.size(), colliding.size());
    }
    const double med = median(total_ms);
    const double best = *std::min_element(total_ms.begin(), total_ms.end());
    std::printf("summary: %zu clouds, %zu candidate pairs (%s), %zu colliding pairs; median frame %.3f ms "
                "(broad %.3f + narrow %.3f), best %.3f ms: %.0f FPS on one thread; 60 FPS target (%.1f ms) %s "
                "(%.1fx)\n",
                clouds.size(), candidates.size(), broadphase::to_string(finder.last_algorithm()), colliding.size(),
                med, median(broad_ms), median(narrow_ms), best, 1000.0 / med, target_ms,
                med <= target_ms ? "met" : "NOT met", target_ms / med);

    if (!st.check) return 0;
    bool ok = check_instance(st, st.side);
    ok = check_instance(st, st.side / 4) && ok;  // 64x denser: many more candidates
    std::printf("check: %s\n", ok ? "passed" : "FAILED");
    return ok ? 0 : 1;
}
