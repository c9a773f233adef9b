// The open world of issue 45 through the Scene: S static tiles that never
// move and M boxes that all move every frame (bench/open_world.hpp makes
// both, and bench/jolt/jolt_open_world.cpp the same world through Jolt
// Physics; bench/jolt_bench.sh runs the two interleaved). A plain program:
// no Google Benchmark, one thread.
//
//   broadphase_open_world_bench [--statics S] [--movers M] [--frames F] [--warmup W]
//       [--mode automatic|grid|multi_box_pruning|tree|sweep_and_prune|rebuild] [--stream K] [--seed N] [--verify]
//
// Adding the world (timed once, add_ms): the statics with the batch add as
// static objects, the movers as dynamic objects, and the first update().
// Then W untimed and F timed frames; a frame: the world steps (untimed: the
// movers' new boxes into a reused array), then, timed, the batch move of
// every mover, update(), and the events read (begun()/ended(): a running
// pair count, as an engine following the events keeps). With --stream K,
// the level streams as a player walks: each frame, also timed, the K tiles
// of a window that walks along the tiles' order leave (the batch remove)
// and the K that left the frame before come back (the batch add as
// statics, new ids), so K tiles are out at any time and 2K change a frame.
// Prints
//   statics=S movers=M mode=... stream=K add_ms=A median_ms=X min_ms=Y pairs=P
// (P: the pairs after the last frame). --verify (untimed, every frame,
// warm-up included) checks the running count, pair_count() and pairs()
// against an independent answer, find_pairs on the movers plus the
// bipartite find_pairs(movers, statics), and the events against the
// difference of consecutive answers; it exits 1 on any difference.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <broadphase/broadphase.hpp>
#include <broadphase/scene.hpp>

#include "open_world.hpp"

namespace {

namespace bp = broadphase;
using Clock = std::chrono::steady_clock;

volatile std::uint64_t g_sink;  // what reading the events touched goes here, so that the reading is kept

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

bool parse_mode(const char* s, bp::UpdateMode& m) {
    for (bp::UpdateMode c : {bp::UpdateMode::automatic, bp::UpdateMode::grid, bp::UpdateMode::multi_box_pruning,
                             bp::UpdateMode::rebuild,
                             bp::UpdateMode::enlarged})
        if (std::strcmp(s, bp::to_string(c)) == 0) return m = c, true;
    return false;
}

bp::Box to_box(const float b[6]) {
    bp::Box box;
    for (int k = 0; k < 3; ++k) box.min[k] = b[k], box.max[k] = b[3 + k];
    return box;
}

// The independent answer for --verify: every pair of the world now, in the
// Scene's ids, (a, b) with a < b, sorted. Movers among themselves, then
// movers against statics (static-static pairs are never reported).
class Reference {
public:
    Reference(const open_world::World& w, const std::vector<bp::Scene::Id>& static_ids,
              const std::vector<bp::Scene::Id>& mover_ids, const std::vector<char>& present)
        : world_(w), static_ids_(static_ids), mover_ids_(mover_ids), present_(present) {}
    const std::vector<bp::Pair>& pairs() {
        movers_.clear();
        statics_.clear();
        tiles_.clear();
        float b[6];
        for (std::uint32_t k = 0; k < world_.movers; ++k) world_.mover_box(k, b), movers_.push_back(to_box(b));
        for (std::uint32_t t = 0; t < world_.statics; ++t)
            if (present_[t]) world_.tile_box(t, b), statics_.push_back(to_box(b)), tiles_.push_back(t);
        out_.clear();
        finder_.find_pairs(movers_, found_);
        for (const bp::Pair& p : found_) add(mover_ids_[p.a], mover_ids_[p.b]);
        finder_.find_pairs(movers_, statics_, found_);  // (mover, static)
        for (const bp::Pair& p : found_) add(mover_ids_[p.a], static_ids_[tiles_[p.b]]);
        std::sort(out_.begin(), out_.end());
        return out_;
    }

private:
    void add(bp::Scene::Id a, bp::Scene::Id b) { out_.push_back(a < b ? bp::Pair{a, b} : bp::Pair{b, a}); }
    const open_world::World& world_;
    const std::vector<bp::Scene::Id>& static_ids_;
    const std::vector<bp::Scene::Id>& mover_ids_;
    const std::vector<char>& present_;  // the tiles in the scene now
    bp::Boxes statics_, movers_;
    std::vector<std::uint32_t> tiles_;  // statics_[i] is tile tiles_[i]
    bp::PairFinder finder_;
    std::vector<bp::Pair> found_, out_;
};

// a \ b, both sorted.
std::vector<bp::Pair> minus(const std::vector<bp::Pair>& a, const std::vector<bp::Pair>& b) {
    std::vector<bp::Pair> d;
    std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(d));
    return d;
}

int usage() {
    std::fprintf(stderr,
                 "usage: broadphase_open_world_bench [--statics S] [--movers M] [--frames F] [--warmup W]\n"
                 "       [--mode automatic|grid|multi_box_pruning|tree|sweep_and_prune|rebuild] [--stream K] [--seed N]\n"
                 "       [--verify]\n");
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    std::uint32_t statics = 200000, movers = 2000, stream = 0;
    int frames = 30, warmup = 3;
    std::uint64_t seed = 45;
    bp::UpdateMode mode = bp::UpdateMode::automatic;
    bool verify = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool has_value = i + 1 < argc;
        if (a == "--verify") verify = true;
        else if (a == "--statics" && has_value) statics = std::uint32_t(std::strtoul(argv[++i], nullptr, 10));
        else if (a == "--movers" && has_value) movers = std::uint32_t(std::strtoul(argv[++i], nullptr, 10));
        else if (a == "--frames" && has_value) frames = std::atoi(argv[++i]);
        else if (a == "--warmup" && has_value) warmup = std::atoi(argv[++i]);
        else if (a == "--stream" && has_value) stream = std::uint32_t(std::strtoul(argv[++i], nullptr, 10));
        else if (a == "--seed" && has_value) seed = std::strtoull(argv[++i], nullptr, 10);
        else if (a == "--mode" && has_value) {
            if (!parse_mode(argv[++i], mode)) return usage();
        } else return usage();
    }
    if (frames < 1 || warmup < 0 || stream > statics / 2) return usage();

    open_world::World world(statics, movers, seed);
    // The boxes, made before the clock starts: a game has them already.
    std::vector<bp::Box> static_boxes(statics), mover_boxes(movers);
    float b[6];
    for (std::uint32_t t = 0; t < statics; ++t) world.tile_box(t, b), static_boxes[t] = to_box(b);
    for (std::uint32_t k = 0; k < movers; ++k) world.mover_box(k, b), mover_boxes[k] = to_box(b);
    std::vector<bp::Scene::Id> static_ids(statics), mover_ids(movers);
    std::vector<char> present(statics, 1);  // the tiles in the scene now
    // Streaming: the window of tiles that left last frame (they come back
    // now), and the room for the batch calls, made before the clock starts.
    std::uint32_t out_at = 0, out_count = 0;
    std::vector<bp::Scene::Id> leaving(stream), came(stream);
    std::vector<bp::Box> coming(stream);

    bp::Scene scene;
    bp::Options options;
    options.threads = 1;  // one thread: the comparison with Jolt's single-threaded calls
    scene.set_options(options);
    scene.set_update_mode(mode);

    const Clock::time_point t_add = Clock::now();
    scene.add(static_boxes.data(), statics, static_ids.data(), bp::ObjectType::static_object);
    scene.add(mover_boxes.data(), movers, mover_ids.data(), bp::ObjectType::dynamic_object);
    bp::Report report = scene.update();
    const double add_ms = ms_since(t_add);
    if (!report.ok()) return std::fprintf(stderr, "open_world_bench: the first update failed\n"), 1;
    std::uint64_t running = scene.begun().size();  // the pairs so far, from the events alone

    std::unique_ptr<Reference> reference;
    std::vector<bp::Pair> before;
    if (verify) {
        reference = std::make_unique<Reference>(world, static_ids, mover_ids, present);
        before = reference->pairs();
    }
    int differences = 0;
    auto check = [&](int frame) {  // untimed
        const std::vector<bp::Pair>& now = reference->pairs();
        const bool same = running == now.size() && scene.pair_count() == now.size() && scene.pairs() == now &&
                          scene.begun() == minus(now, before) && scene.ended() == minus(before, now);
        if (!same) {
            ++differences;
            std::fprintf(stderr, "open_world_bench: frame %d: expected %zu pairs, the events give %llu, pair_count() %zu\n",
                         frame, now.size(), static_cast<unsigned long long>(running), scene.pair_count());
        }
        before = now;
    };
    if (verify && (running != before.size() || scene.pairs() != before)) {
        ++differences;
        std::fprintf(stderr, "open_world_bench: the first update: expected %zu pairs, got %llu\n", before.size(),
                     static_cast<unsigned long long>(running));
    }

    std::vector<double> times;
    times.reserve(std::size_t(frames));
    std::uint64_t read = 0;  // what reading the events touched, so that it is not optimised away
    for (int f = 0; f < warmup + frames; ++f) {
        world.step();
        for (std::uint32_t k = 0; k < movers; ++k) world.mover_box(k, b), mover_boxes[k] = to_box(b);
        const Clock::time_point t0 = Clock::now();
        if (stream) {
            // The tiles that left last frame come back (new ids), the next window leaves.
            for (std::uint32_t i = 0; i < out_count; ++i) coming[i] = static_boxes[(out_at + i) % statics];
            const std::uint32_t back = out_count ? (out_at + out_count) % statics : 0;  // the next window
            if (out_count) {
                scene.add(coming.data(), out_count, came.data(), bp::ObjectType::static_object);
                for (std::uint32_t i = 0; i < out_count; ++i) {
                    const std::uint32_t t = (out_at + i) % statics;
                    static_ids[t] = came[i], present[t] = 1;
                }
            }
            for (std::uint32_t i = 0; i < stream; ++i) {
                const std::uint32_t t = (back + i) % statics;
                leaving[i] = static_ids[t], present[t] = 0;
            }
            scene.remove(leaving.data(), stream);
            out_at = back, out_count = stream;
        }
        scene.move(mover_ids.data(), mover_boxes.data(), movers);
        report = scene.update();
        // An engine reads the events: the contacts that began, then those that ended.
        for (const bp::Pair& p : scene.begun()) read += p.a ^ p.b, ++running;
        for (const bp::Pair& p : scene.ended()) read += p.a ^ p.b, --running;
        const double ms = ms_since(t0);
        if (!report.ok()) return std::fprintf(stderr, "open_world_bench: update failed at frame %d\n", f), 1;
        if (f >= warmup) times.push_back(ms);
        if (verify) check(f);
    }

    std::printf("statics=%u movers=%u mode=%s stream=%u add_ms=%.3f median_ms=%.4f min_ms=%.4f pairs=%llu\n", statics,
                movers, bp::to_string(mode), stream, add_ms, median(times), *std::min_element(times.begin(), times.end()),
                static_cast<unsigned long long>(running));
    g_sink = read;  // keeps the events' reading in the timed loop
    if (differences) {
        std::fprintf(stderr, "open_world_bench: %d frame(s) differ from find_pairs\n", differences);
        return 1;
    }
    if (verify) std::fprintf(stderr, "open_world_bench: verified %d frames: the events, pair_count() and pairs() match find_pairs\n", warmup + frames);
    return 0;
}
