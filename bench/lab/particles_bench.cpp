// broadphase-lab bench particles:N: see particles_bench.hpp.
#include "particles_bench.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "args.hpp"
#include "errors.hpp"
#include "particles/simulation.hpp"
#include "timing.hpp"

namespace broadphase_cli {

bool is_particles_scene(const std::string& scene) { return scene.rfind("particles:", 0) == 0; }

int run_particles_bench(const std::string& scene, int steps, long long threads, bool json) {
    // particles:N[:MODEL][:BROAD[:OTHER]] (MODEL dem|elastic; BROAD and OTHER
    // neighbor_list|spheres|boxes: the first named is the simulation's, a
    // second the one timed beside it), in any order after N
    const std::string rest = scene.substr(10);
    std::size_t colon = rest.find(':');
    particles::Config config;
    config.n = static_cast<std::size_t>(parse_count("particles:N", rest.substr(0, colon), 1, 100000000));
    int broad_named = 0;
    particles::BroadPhase other = particles::BroadPhase::spheres;
    while (colon != std::string::npos) {
        const std::size_t next = rest.find(':', colon + 1);
        const std::string word = rest.substr(colon + 1, next == std::string::npos ? std::string::npos : next - colon - 1);
        particles::BroadPhase broad;
        if (particles::parse_broad_phase(word, broad) && broad_named < 2)
            (broad_named++ == 0 ? config.broad_phase : other) = broad;
        else if (!particles::parse_model(word, config.model))
            throw usage_error("particles:N:... takes dem, elastic and up to two of neighbor_list, spheres and boxes, "
                              "not '" + word + "'");
        colon = next;
    }
    config.threads = static_cast<unsigned>(threads);
    // The other broad phase runs on the same states after each step (not
    // counted in the step): both timed in one process, alternating. By
    // default the list and the boxes are compared with the grid, and the
    // grid with the list. A neighbour list's cost is mostly its rebuilds,
    // so means are printed beside the medians.
    if (broad_named < 2)
        other = config.broad_phase == particles::BroadPhase::spheres ? particles::BroadPhase::neighbor_list
                                                                     : particles::BroadPhase::spheres;
    if (steps <= 0) steps = 100;

    particles::Simulation sim(config);
    sim.step();  // untimed: buffers grow once
    std::size_t other_pairs = 0;
    sim.time_broad_phase(other, other_pairs);  // untimed too
    std::vector<double> total, broad, other_broad;
    double sum_total = 0, sum_broad = 0, sum_pairs = 0, sum_contacts = 0, sum_other_pairs = 0, sum_other = 0;
    int rebuilds = 0;
    for (int s = 0; s < steps; ++s) {
        const particles::StepStats& st = sim.step();
        total.push_back(st.total_ms), broad.push_back(st.broad_ms);
        sum_total += st.total_ms, sum_broad += st.broad_ms;
        sum_pairs += static_cast<double>(st.box_pairs), sum_contacts += static_cast<double>(st.contacts);
        rebuilds += st.rebuilt ? 1 : 0;
        other_broad.push_back(sim.time_broad_phase(other, other_pairs));
        sum_other += other_broad.back();
        sum_other_pairs += static_cast<double>(other_pairs);
    }
    const double share = sum_total > 0 ? sum_broad / sum_total : 0;
    const double steps_per_s = sum_total > 0 ? 1000.0 * steps / sum_total : 0;
    const double mean_pairs = sum_pairs / steps, mean_contacts = sum_contacts / steps;
    if (json) {
        std::printf("{\"scene\":\"%s\",\"n\":%zu,\"algorithm\":\"particles\",\"model\":\"%s\",\"steps\":%d,"
                    "\"steps_per_s\":%.2f,\"median_ms\":%.4f,\"broad_median_ms\":%.4f,\"broad_share\":%.4f,"
                    "\"mean_box_pairs\":%.1f,\"mean_contacts\":%.1f,\"pairs\":%zu,\"contacts\":%zu,\"dt\":%.6g,"
                    "\"simulated_s\":%.4f,\"threads\":%lld,\"broad_phase\":\"%s\",\"other_broad_phase\":\"%s\","
                    "\"other_broad_median_ms\":%.4f,\"other_mean_pairs\":%.1f,\"mean_ms\":%.4f,"
                    "\"broad_mean_ms\":%.4f,\"other_broad_mean_ms\":%.4f,\"rebuilds\":%d,\"skin\":%.6g}\n",
                    scene.c_str(), sim.size(), particles::to_string(config.model), steps, steps_per_s, median(total),
                    median(broad), share, mean_pairs, mean_contacts, sim.last_stats().box_pairs,
                    sim.last_stats().contacts, sim.dt(), sim.time(), threads, particles::to_string(config.broad_phase),
                    particles::to_string(other), median(other_broad), sum_other_pairs / steps, sum_total / steps,
                    sum_broad / steps, sum_other / steps, rebuilds, sim.skin());
    } else {
        std::printf("scene %s: %zu spheres, %s contacts, threads %lld; %d steps of %.3g s timed from the falling "
                    "cloud (t = %.3f .. %.3f s), one untimed first\n",
                    scene.c_str(), sim.size(), particles::to_string(config.model), threads, steps, sim.dt(),
                    sim.dt(), sim.time());
        std::printf("%-12s %12s %10s %16s %14s %12s %10s %14s %14s\n", "steps/s", "median ms", "mean ms",
                    "broad median ms", "broad mean ms", "broad share", "rebuilds", "pairs", "contacts");
        std::printf("%-12.1f %12.3f %10.3f %16.3f %14.3f %11.0f%% %10d %14.0f %14.0f\n", steps_per_s, median(total),
                    sum_total / steps, median(broad), sum_broad / steps, 100 * share, rebuilds, mean_pairs,
                    mean_contacts);
        std::printf("broad phase %s: median %.3f ms, mean %.3f ms, %.0f pairs a step; the other, %s, on the same "
                    "states after each step: median %.3f ms, mean %.3f ms (%.2fx the mean), %.0f pairs a step\n",
                    particles::to_string(config.broad_phase), median(broad), sum_broad / steps, mean_pairs,
                    particles::to_string(other), median(other_broad), sum_other / steps,
                    sum_broad > 0 ? sum_other / sum_broad : 0.0, sum_other_pairs / steps);
        if (config.broad_phase == particles::BroadPhase::neighbor_list || other == particles::BroadPhase::neighbor_list)
            std::printf("neighbor_list: skin %.4g; its pairs are those within r_i + r_j + skin as of its last build "
                        "(the narrow phase tests each)\n", sim.skin());
    }
    std::fflush(stdout);
    return 0;
}

}  // namespace broadphase_cli
