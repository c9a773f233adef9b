// Fuzz target: sphere pairs (spheres.hpp) against the rule written out
// here from its documentation: both spheres valid (no NaN centre
// coordinate, radius >= 0), both centres finite, and
// (dx*dx + dy*dy) + dz*dz <= (ri + rj)^2 evaluated in double. Every path
// (the sphere grid through `automatic`, the box path through each
// algorithm), float and double, rows with one radius or one each; Options
// decoded; the same pairs in the same order on one thread.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <broadphase/spheres.hpp>

#include "fuzz_checks.hpp"

namespace {

using broadphase::Algorithm;
using broadphase::Pair;

template <class T>
void run(FuzzedDataProvider& in) {
    const T off = bpfuzz::offset<T>(in);
    broadphase::Options opt = bpfuzz::options(in);
    const bool one_radius = in.ConsumeBool();
    const std::size_t n = in.ConsumeIntegralInRange<std::size_t>(0, 300);
    std::vector<T> xyz, radii;
    static const T radius_values[8] = {T(0), T(0.25), T(0.5), T(1), T(2), std::numeric_limits<T>::infinity(),
                                       std::numeric_limits<T>::quiet_NaN(), T(-1)};
    for (std::size_t i = 0; i < n && in.remaining_bytes() > 0; ++i) {
        for (int k = 0; k < 3; ++k) xyz.push_back(bpfuzz::coordinate<T>(in, off));
        const std::uint8_t r = in.ConsumeIntegral<std::uint8_t>();
        radii.push_back(r < 240 ? radius_values[r % 5] : radius_values[r % 8]);
    }
    const std::size_t m = radii.size();
    if (one_radius && m > 0) std::fill(radii.begin(), radii.end(), radii[0]);
    const auto spheres = one_radius ? broadphase::sphere_rows<T>(xyz.data(), m ? radii[0] : T(1), m)
                                    : broadphase::sphere_rows<T>(xyz.data(), radii.data(), m);

    std::vector<Pair> ref;
    std::vector<std::uint32_t> invalid;
    auto valid = [&](std::size_t i) {
        return !std::isnan(xyz[3 * i]) && !std::isnan(xyz[3 * i + 1]) && !std::isnan(xyz[3 * i + 2]) &&
               radii[i] >= T(0);
    };
    auto finite = [&](std::size_t i) {
        return std::isfinite(xyz[3 * i]) && std::isfinite(xyz[3 * i + 1]) && std::isfinite(xyz[3 * i + 2]);
    };
    for (std::size_t i = 0; i < m; ++i) {
        if (!valid(i)) {
            invalid.push_back(static_cast<std::uint32_t>(i));
            continue;
        }
        if (!finite(i)) continue;
        for (std::size_t j = i + 1; j < m; ++j) {
            if (!valid(j) || !finite(j)) continue;
            const double dx = double(xyz[3 * i]) - double(xyz[3 * j]);
            const double dy = double(xyz[3 * i + 1]) - double(xyz[3 * j + 1]);
            const double dz = double(xyz[3 * i + 2]) - double(xyz[3 * j + 2]);
            const double rr = double(radii[i]) + double(radii[j]);
            const double d2 = (dx * dx + dy * dy) + dz * dz;
            if (d2 <= rr * rr) ref.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j)});
        }
    }

    static const Algorithm algorithms[] = {Algorithm::automatic,    Algorithm::brute_force,
                                           Algorithm::sweep_and_prune, Algorithm::uniform_grid,
                                           Algorithm::hybrid_grid,  Algorithm::adaptive_grid,
                                           Algorithm::cluster_pairs};
    broadphase::SpherePairFinder finder;
    for (Algorithm algo : algorithms) {
        opt.algorithm = algo;
        std::vector<Pair> out;
        const broadphase::Report r = finder.find_pairs(spheres, out, opt);
        if (opt.max_pairs != broadphase::no_budget && r.status == broadphase::Status::pair_budget_exceeded) {
            // On the box path the budget bounds the box pairs: the pairs
            // kept may then be fewer than the budget, and fewer than exist.
            BPFUZZ_CHECK(out.size() <= opt.max_pairs);
            BPFUZZ_CHECK(bpfuzz::no_duplicates(out));
            BPFUZZ_CHECK(bpfuzz::subset_of(out, ref));
            continue;
        }
        if (std::getenv("BPFUZZ_VERBOSE")) {
            std::fprintf(stderr, "algo %s one_radius %d threads %u status %d\n", broadphase::to_string(algo), one_radius, opt.threads, int(r.status));
            for (std::size_t i = 0; i < m; ++i) std::fprintf(stderr, "  %zu: %.9g %.9g %.9g r %.9g\n", i, double(xyz[3*i]), double(xyz[3*i+1]), double(xyz[3*i+2]), double(radii[i]));
            std::vector<Pair> o = out; std::sort(o.begin(), o.end());
            for (auto p : o) if (!std::binary_search(ref.begin(), ref.end(), p)) std::fprintf(stderr, "  extra %u %u\n", p.a, p.b);
            for (auto p : ref) if (!std::binary_search(o.begin(), o.end(), p)) std::fprintf(stderr, "  missing %u %u\n", p.a, p.b);
        }
        bpfuzz::check_pairs(r, out, ref, broadphase::no_budget, opt.sorted);
        BPFUZZ_CHECK(r.invalid_a == invalid);
        if (opt.threads > 1) {
            broadphase::Options one = opt;
            one.threads = 1;
            std::vector<Pair> single;
            BPFUZZ_CHECK(finder.find_pairs(spheres, single, one).ok());
            BPFUZZ_CHECK(single == out);
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider in(data, size);
    if (in.ConsumeBool())
        run<float>(in);
    else
        run<double>(in);
    return 0;
}
