// broadphase-lab bench: the lab's benchmarks, by what the scene names.
//   SEQUENCE (fall:N, brownian:N:F, ...)  the Scene's update modes and
//                                         Bullet's broad phases, frame by
//                                         frame (motion_bench.cpp)
//   jolt-moves:FILE                       a Jolt move file replayed through
//                                         the Scene (motion_bench.cpp)
//   particles:N[...]                      the simulation's steps timed
//                                         (particles_bench.cpp)
//   SCENE or FILE                         our algorithms' frames, as
//                                         `broadphase bench` times them
//                                         (tools/broadphase/frames.cpp),
//                                         then other libraries' broad phases
//                                         (bench/peers/: CGAL, FCL, Bullet,
//                                         those this build found), one-shot,
//                                         in the same rows
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <broadphase/broadphase.hpp>
#include <broadphase_fixtures/motion.hpp>

#include <peers.hpp>

#include "args.hpp"
#include "errors.hpp"
#include "frames.hpp"
#include "json.hpp"
#include "lab.hpp"
#include "motion_bench.hpp"
#include "particles_bench.hpp"
#include "timing.hpp"

namespace broadphase_cli {
namespace {

const char* const program = "broadphase-lab";

/// One peer (bench/peers/) timed like time_frames times ours: the boxes
/// loaded into the peer's own form (untimed), one untimed warm-up run, then
/// up to `frames` timed runs within the time budget, each building the
/// peer's structure from nothing and finding every pair (its structure is
/// freed between runs, untimed). Leaves the last run's pairs in `out`.
FrameResult time_peer(const std::string& name, const broadphase::Boxes& boxes, int frames,
                      std::vector<broadphase::Pair>& out) {
    std::unique_ptr<broadphase_peers::Peer> peer = broadphase_peers::make_peer(name);
    if (!peer) throw CliError(name + ": this broadphase-lab was built without it");
    peer->load(boxes);
    peer->find_pairs(out);
    std::vector<double> times;
    double total = 0;
    for (int k = 0; k < frames && (k == 0 || total < time_budget_ms); ++k) {
        peer->clear();
        const auto t0 = clock_type::now();
        peer->find_pairs(out);
        times.push_back(elapsed_ms(t0, clock_type::now()));
        total += times.back();
    }
    FrameResult res;
    res.label = name;
    res.pairs = out.size();
    res.median_ms = median(times);
    res.min_ms = *std::min_element(times.begin(), times.end());
    res.frames = static_cast<int>(times.size());
    res.threads = 1;  // the peers run on one thread whatever --threads says
    res.json_fields = ",\"peer\":" + json_string(broadphase_peers::peer_version(name));
    return res;
}

/// How a peer's pairs (sorted here) relate to the exact ones (`reference`,
/// sorted): "equal" (verified), "superset" (every exact pair and more: fat
/// boxes, margins) or "differs" (some exact pair missing: other touching
/// rules, rounding), with how many exact pairs it lacks and how many it
/// adds, in the row's table word and JSON fields. A pair listed twice
/// counts as extra. O(K log K).
void compare_with_reference(std::vector<broadphase::Pair>& pairs, const std::vector<broadphase::Pair>& reference,
                            FrameResult& r) {
    broadphase::sort_pairs(pairs);
    std::size_t i = 0, j = 0;
    std::uint64_t missing = 0, extra = 0;
    while (i < pairs.size() || j < reference.size()) {
        if (j == reference.size() || (i < pairs.size() && pairs[i] < reference[j])) {
            ++extra, ++i;
        } else if (i == pairs.size() || reference[j] < pairs[i]) {
            ++missing, ++j;
        } else {
            ++i, ++j;
        }
    }
    r.verified = missing == 0 && extra == 0 ? 1 : 0;
    const char* relation = r.verified ? "equal" : missing == 0 ? "superset" : "differs";
    r.verified_text = relation;
    r.json_fields += std::string(",\"relation\":\"") + relation + "\",\"missing\":" + std::to_string(missing) +
                     ",\"extra\":" + std::to_string(extra);
}

/// bench SCENE|FILE: ours (--algorithm all, the default, or ours, or one of
/// ours), then the peers (all, or the one named).
int run_peer_bench(const ParsedArgs& p, const std::string& scene, const FrameBench& bench) {
    const std::string name = p.get("--algorithm", "all");
    const bool one_peer = broadphase_peers::is_peer_name(name);
    if (one_peer && !broadphase_peers::make_peer(name))
        throw CliError("--algorithm " + name +
                       ": this broadphase-lab was built without that peer (install libcgal-dev, libfcl-dev or "
                       "libbullet-dev, then configure again; see docs/peers.md)");
    if (!one_peer && name != "all" && name != "ours") parse_algorithm_option(name);
    std::vector<std::string> peers;
    if (name == "all") peers = broadphase_peers::peer_names();
    if (one_peer) peers.push_back(name);

    const broadphase::Boxes boxes = load_bench_boxes(scene, p, program);
    const std::size_t n = boxes.size();
    note_invalid_boxes(boxes, program);
    std::vector<broadphase::Algorithm> ours;
    if (!one_peer) ours = frame_algorithms(name, n, program);
    std::vector<broadphase::Pair> reference, out;
    run_frame_bench(boxes, ours, bench, reference, out);

    // The peers, after ours, each on one thread.
    std::size_t exact_pairs = bench.verify ? reference.size() : out.size();
    if (!peers.empty() && !bench.verify && ours.empty()) {  // a peer alone: its pair cap needs the count
        broadphase::PairFinder finder;
        broadphase::Options o;
        o.threads = static_cast<unsigned>(bench.threads);
        check(finder.find_pairs(boxes, out, o), broadphase::Algorithm::automatic);
        exact_pairs = out.size();
    }
    std::vector<std::string> ran;
    for (const std::string& peer : peers) {
        if (exact_pairs > broadphase_peers::peer_pair_limit(peer)) {
            std::fprintf(stderr, "%s: note: %s skipped: %zu pairs, more than its cap of %zu (memory)\n", program,
                         peer.c_str(), exact_pairs, broadphase_peers::peer_pair_limit(peer));
            continue;
        }
        FrameResult r;
        try {
            r = time_peer(peer, boxes, bench.frames, out);
        } catch (const std::invalid_argument& e) {  // boxes the peer cannot take (docs/peers.md)
            std::fprintf(stderr, "%s: note: %s skipped: %s\n", program, peer.c_str(), e.what());
            continue;
        }
        ran.push_back(peer);
        if (bench.verify) compare_with_reference(out, reference, r);
        print_frame_result(r, bench, n);
    }
    if (!bench.json && !ran.empty()) {
        std::printf("peers, one thread each, a frame = build + all pairs:");
        for (const std::string& peer : ran)
            std::printf(" %s = %s;", peer.c_str(), broadphase_peers::peer_version(peer).c_str());
        std::printf(" see docs/peers.md\n");
    }
    return 0;
}

}  // namespace

int run_lab_bench(const std::vector<std::string>& args) {
    const ParsedArgs p = parse_args(args, {{"--algorithm", "-a", true},
                                           {"--frames", "", true},
                                           {"--threads", "", true},
                                           {"--verify", "", false},
                                           {"--json", "", false},
                                           {"--mode", "", true},
                                           {"--save-moves", "", true},
                                           {"--format", "", true},
                                           {"--array", "", true},
                                           {"--queries", "", false},
                                           {"--device", "", true},
                                           {"--sorted", "", false},
                                           {"--save-boxes", "", true}});
    if (p.has("--help")) {
        std::fputs(lab_usage_text(), stdout);
        return 0;
    }
    if (p.positional.size() != 1)
        throw usage_error("bench needs one scene, sequence, move file or box file (see broadphase-lab --help)");
    const std::string scene = p.positional[0];
    // Motion sequences (fall:N, brownian:N:F, static-world:N:F, game:N:F) run as scenes: motion_bench.cpp.
    if (broadphase_fixtures::motion::is_sequence_name(scene)) return run_motion_bench(p);
    if (scene.rfind("jolt-moves:", 0) == 0) return run_moves_bench(p);
    if (p.has("--save-moves")) throw usage_error("--save-moves applies to motion sequences (brownian:N:F, game:N:F)");
    if (p.has("--mode"))
        throw usage_error("--mode applies to motion sequences (fall:N, brownian:N:F, static-world:N:F, game:N:F) and move files");
    // What users run is the CLI's: box queries, the GPU, the boxes saved.
    for (const char* option : {"--queries", "--device", "--sorted", "--save-boxes"})
        if (p.has(option))
            throw usage_error(std::string(option) + " is the CLI's: broadphase bench " + scene + " " + option +
                              " ... (see broadphase --help)");
    const FrameBench bench = frame_settings(p, scene, program, "20");
    if (is_particles_scene(scene))
        return run_particles_bench(scene, p.has("--frames") ? bench.frames : 0, bench.threads, bench.json);
    return run_peer_bench(p, scene, bench);
}

int run_lab_scenes(const std::vector<std::string>& args) {
    const ParsedArgs p = parse_args(args, {});
    if (p.has("--help")) {
        std::fputs(lab_usage_text(), stdout);
        return 0;
    }
    if (!p.positional.empty()) throw usage_error("scenes takes no arguments");
    std::printf("%-18s %s\n", "sequence", "description");
    for (const std::string& name : broadphase_fixtures::motion::sequence_names())
        std::printf("%-18s %s\n", name.c_str(), broadphase_fixtures::motion::describe(name).c_str());
    std::printf("%-18s %s\n", "particles:N",
                "the particle simulation's steps from its falling cloud of N spheres (:dem, :elastic; broad phases "
                "neighbor_list, spheres, boxes)");
    std::printf("%-18s %s\n", "jolt-moves:FILE", "a move file (the Jolt peer's, or --save-moves) replayed");
    std::printf("and the box scenes of broadphase scenes (their peers: bench SCENE --algorithm all)\n");
    return 0;
}

}  // namespace broadphase_cli
