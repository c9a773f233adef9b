// broadphase-lab bench SEQUENCE: a motion sequence (fall:N, brownian:N:F,
// static-world:N:F) run frame by frame through each mode, all modes in
// lockstep on the same moves. A frame's time is "apply the moves + find the
// pairs" (a Scene: move batch + update(), which gives the begin/end events
// too; Bullet: setAabb per move + calculateOverlappingPairs).
#include "motion_bench.hpp"

#include <algorithm>
#include <cstring>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

#include <broadphase/broadphase.hpp>
#include <broadphase/brute_force.hpp>
#include <broadphase/scene.hpp>

#include "errors.hpp"
#include "json.hpp"
#include "timing.hpp"

namespace broadphase_cli {
namespace {

using broadphase::Pair;
using broadphase::UpdateMode;
namespace motion = broadphase_fixtures::motion;

/// --mode names of the Scene's update modes. The one table to extend when
/// scene.hpp gains a mode.
struct SceneModeName {
    const char* name;
    UpdateMode mode;
    bool fat_pairs = false;  ///< Scene::set_fat_pairs: pairs of the fat boxes (a superset)
};
const SceneModeName scene_modes[] = {
    {"multi_box_pruning", UpdateMode::multi_box_pruning},
    {"rebuild", UpdateMode::rebuild},
    {"grid", UpdateMode::grid},
    {"enlarged", UpdateMode::enlarged},
    {"automatic", UpdateMode::automatic},
    {"fat-pairs", UpdateMode::automatic, true},
};

/// Untimed warm-up frames before the timed ones (checked under --verify too).
constexpr int warmup_frames = 3;
/// Up to this many objects --verify compares with brute force; beyond, with
/// the automatic one-shot choice (itself tested against brute force).
constexpr std::size_t brute_force_oracle_limit = 20000;
/// --mode all leaves bullet-sap out beyond this many objects: Bullet's sweep
/// and prune inserts each proxy by insertion sort, O(N) each, so its setup is
/// O(N^2) (measured: 856 s for 100,000 boxes on the 2-core EPYC). Asked for
/// by name it runs at any size.
constexpr std::size_t bullet_sap_all_limit = 30000;

/// A Scene in one update mode. Objects are added in the sequence's order to
/// a fresh scene, so the scene's ids are the sequence's indices.
class SceneRunner : public MotionRunner {
public:
    SceneRunner(const SceneModeName& mode, unsigned threads) : mode_(mode), threads_(threads) {}

    std::string name() const override { return mode_.name; }
    bool exact() const override { return !mode_.fat_pairs; }

    void setup(const motion::Sequence& seq) override { setup(seq.initial(), seq.types()); }
    /// The same from the boxes and types themselves (a replayed move file).
    void setup(const std::vector<broadphase::Box>& boxes, const std::vector<broadphase::ObjectType>& types) {
        scene_.set_update_mode(mode_.mode);
        scene_.set_fat_pairs(mode_.fat_pairs);
        broadphase::Options o;
        o.threads = threads_;
        scene_.set_options(o);
        for (std::size_t i = 0; i < boxes.size(); ++i)
            if (scene_.add(boxes[i], types[i]) != i)
                throw CliError(std::string(mode_.name) + ": the scene's ids are not the sequence's indices");
        update();
    }

    void frame(const motion::Moves& moves) override {
        scene_.move(moves.index.data(), moves.box.data(), moves.size());
        update();
    }

    std::size_t pairs() const override { return scene_.pair_count(); }
    bool covers(const std::vector<Pair>& exact) const override {
        return std::includes(scene_.pairs().begin(), scene_.pairs().end(), exact.begin(), exact.end());
    }
    const broadphase::Scene& scene() const { return scene_; }

private:
    void update() {
        const broadphase::Report r = scene_.update();
        if (!r.ok()) throw CliError(std::string(mode_.name) + ": update failed: " + broadphase::to_string(r.status));
    }

    SceneModeName mode_;
    unsigned threads_;
    broadphase::Scene scene_;
};

/// The exact pairs of the current boxes, static-static pairs left out, by
/// brute force or by the automatic one-shot choice.
class Oracle {
public:
    Oracle(const motion::Sequence& seq, unsigned threads) : types_(seq.types()) {
        brute_ = seq.size() <= brute_force_oracle_limit;
        for (const broadphase::Box& b : seq.initial()) boxes_.push_back(b);
        options_.sorted = true;
        options_.threads = threads;
    }
    const char* name() const { return brute_ ? "brute_force" : "automatic"; }
    void apply(const motion::Moves& moves) {
        for (std::size_t k = 0; k < moves.size(); ++k) boxes_.set(moves.index[k], moves.box[k]);
    }
    void pairs(std::vector<Pair>& out) {
        const broadphase::Report r =
            brute_ ? brute_force_.find_pairs(boxes_, all_, options_) : finder_.find_pairs(boxes_, all_, options_);
        if (!r.ok()) throw CliError(std::string("verify: the oracle failed: ") + broadphase::to_string(r.status));
        out.clear();
        for (const Pair& p : all_)
            if (types_[p.a] != broadphase::ObjectType::static_object ||
                types_[p.b] != broadphase::ObjectType::static_object)
                out.push_back(p);
    }

private:
    std::vector<broadphase::ObjectType> types_;
    broadphase::Boxes boxes_;
    broadphase::Options options_;
    bool brute_ = true;
    broadphase::BruteForce brute_force_;
    broadphase::PairFinder finder_;
    std::vector<Pair> all_;
};

/// One mode's runner and what was measured.
/// Writes a move file (JOLTMOV1: the layout in ../shared/peers/jolt_incremental.cpp,
/// which `bench jolt-moves:` reads): the header and initial boxes, then one
/// block of frames, each with its moves and the pairs with a moved body.
class MoveWriter {
public:
    void open(const std::string& path, const std::vector<broadphase::Box>& initial, double fraction,
              std::uint32_t frames, std::uint32_t moved) {
        path_ = path;
        f_ = std::fopen(path.c_str(), "wb");
        if (!f_) throw CliError(path + ": cannot write");
        std::fwrite("JOLTMOV1", 1, 8, f_);
        const std::uint32_t n = static_cast<std::uint32_t>(initial.size());
        put(n), put(std::uint32_t(1)), put(frames), put(std::uint32_t(0)), put(0.0f);
        for (std::uint32_t i = 0; i < n; ++i) put(i);
        for (const broadphase::Box& b : initial) box(b);
        put(static_cast<float>(fraction)), put(moved);
        moved_.assign(n, 0);
    }
    void frame(const motion::Moves& m, const std::vector<Pair>& pairs) {
        put(static_cast<std::uint32_t>(m.size()));
        for (std::size_t k = 0; k < m.size(); ++k) put(m.index[k]), box(m.box[k]);
        for (std::uint32_t i : m.index) moved_[i] = 1;
        std::uint64_t with_moved = 0;
        for (const Pair& q : pairs) with_moved += moved_[q.a] | moved_[q.b];
        for (std::uint32_t i : m.index) moved_[i] = 0;
        put(with_moved);
    }
    void close() {
        const bool ok = std::fflush(f_) == 0 && !std::ferror(f_);
        std::fclose(f_);
        f_ = nullptr;
        if (!ok) throw CliError(path_ + ": write failed");
    }
    ~MoveWriter() {
        if (f_) std::fclose(f_);
    }

private:
    template <class V>
    void put(V v) {
        std::fwrite(&v, sizeof v, 1, f_);
    }
    void box(const broadphase::Box& b) {
        for (int k = 0; k < 3; ++k) put(b.min[k]);
        for (int k = 0; k < 3; ++k) put(b.max[k]);
    }
    std::string path_;
    std::FILE* f_ = nullptr;
    std::vector<std::uint8_t> moved_;
};

struct Slot {
    std::unique_ptr<MotionRunner> runner;
    SceneRunner* scene = nullptr;  ///< the runner, when it is a Scene (events)
    double setup_ms = 0;
    std::vector<double> times;
    double pairs = 0, begun = 0, ended = 0;  ///< sums over timed frames
    int verified = -1;                       ///< exact modes: -1 unchecked, 0 no, 1 yes
    int covers = -1;                         ///< inexact modes: every exact pair present
};

void split_modes(const std::string& text, std::vector<std::string>& out) {
    std::string cur;
    for (char c : text + ",") {
        if (c != ',') {
            cur += c;
            continue;
        }
        if (cur.empty()) throw usage_error("--mode: empty mode name in '" + text + "'");
        out.push_back(cur);
        cur.clear();
    }
}

/// The table's spelling of a --mode name given with '-' or '_' between
/// words ("sweep-and-prune" is sweep_and_prune); other names unchanged.
std::string scene_mode_name(const std::string& n) {
    auto same = [](char a, char b) { return a == b || ((a == '-' || a == '_') && (b == '-' || b == '_')); };
    for (const SceneModeName& m : scene_modes) {
        const std::string name = m.name;
        if (n.size() == name.size() && std::equal(n.begin(), n.end(), name.begin(), same)) return name;
    }
    return n;
}

std::string known_modes() {
    std::string s;
    for (const SceneModeName& m : scene_modes) s += std::string(s.empty() ? "" : ", ") + m.name;
    s += ", bullet-dbvt, bullet-sap (with Bullet), all";
    return s;
}

std::vector<Slot> make_slots(const std::string& mode_option, unsigned threads, std::size_t objects) {
    std::vector<std::string> names;
    split_modes(mode_option, names);
    std::vector<std::string> wanted;
    for (const std::string& n : names) {
        if (n == "all") {
            for (const SceneModeName& m : scene_modes) wanted.push_back(m.name);
            for (const std::string& b : bullet_mode_names()) {
                if (b == "bullet-sap" && objects > bullet_sap_all_limit) {
                    std::fprintf(stderr,
                                 "broadphase-lab: note: --mode all leaves bullet-sap out above %zu objects (its setup "
                                 "inserts one proxy at a time by insertion sort: O(N^2)); ask for it by name to run it\n",
                                 bullet_sap_all_limit);
                    continue;
                }
                wanted.push_back(b);
            }
        } else {
            wanted.push_back(scene_mode_name(n));
        }
    }
    std::vector<Slot> slots;
    std::vector<std::string> seen;
    for (const std::string& n : wanted) {
        if (std::find(seen.begin(), seen.end(), n) != seen.end()) continue;
        seen.push_back(n);
        Slot s;
        for (const SceneModeName& m : scene_modes)
            if (n == m.name) {
                auto r = std::make_unique<SceneRunner>(m, threads);
                s.scene = r.get();
                s.runner = std::move(r);
            }
        if (!s.runner && (n == "bullet-dbvt" || n == "bullet-sap")) {
            const std::vector<std::string> built = bullet_mode_names();
            if (std::find(built.begin(), built.end(), n) == built.end())
                throw usage_error("--mode " + n +
                                  ": this broadphase-lab was built without Bullet (install libbullet-dev and "
                                  "reconfigure; see docs/peers.md)");
            s.runner = make_bullet_runner(n);
        }
        if (!s.runner && n == "incremental")
            throw usage_error("--mode: unknown mode 'incremental': the incremental method is spelt 'multi_box_pruning'");
        if (!s.runner) throw usage_error("--mode: unknown mode '" + n + "' (known: " + known_modes() + ")");
        slots.push_back(std::move(s));
    }
    return slots;
}

const char* kind_name(motion::Kind k) {
    switch (k) {
        case motion::Kind::fall: return "fall";
        case motion::Kind::brownian: return "brownian";
        case motion::Kind::static_world: return "static-world";
        case motion::Kind::game: return "game";
    }
    return "?";
}

const char* motion_row_format = "%-18s %10s %10s %10s %11s %9s %9s %9s\n";

}  // namespace

int run_motion_bench(const ParsedArgs& p) {
    const std::string name = p.positional.at(0);
    for (const char* option : {"--algorithm", "--queries", "--sorted"})
        if (p.has(option))
            throw usage_error(std::string(option) + " does not apply to motion sequences (use --mode)");
    if (p.get("--device", "cpu") != "cpu") throw usage_error("motion sequences run on the CPU only");
    motion::Spec spec;
    std::string error;
    if (!motion::parse(name, spec, error)) throw usage_error(error);
    const int frames = static_cast<int>(parse_count("--frames", p.get("--frames", "30"), 1, 100000));
    long long threads = parse_count("--threads", p.get("--threads", "0"), 0, 4096);
    if (threads == 0) threads = broadphase::default_threads();
    const bool verify = p.has("--verify"), json = p.has("--json");
    motion::Sequence seq(spec);
    const std::size_t objects = seq.size();
    if (p.has("--save-moves") && seq.static_count() > 0)
        throw usage_error("--save-moves: " + name + " has static objects, which a move file cannot tell (use "
                          "brownian:N:F or game:N:F)");
    std::vector<Slot> slots =
        make_slots(p.get("--mode", "multi_box_pruning,rebuild"), static_cast<unsigned>(threads), objects);
    std::unique_ptr<Oracle> oracle;
    std::vector<Pair> before, now, begun, ended;
    if (verify) {
        oracle = std::make_unique<Oracle>(seq, static_cast<unsigned>(threads));
        oracle->pairs(now);
    }

    if (!json) {
        std::printf("sequence %s: %zu objects (%zu static), %d warm-up + %d timed frames, threads %lld%s%s\n",
                    name.c_str(), objects, seq.static_count(), warmup_frames, frames, threads,
                    verify ? ", every frame verified against " : "",
                    verify ? (std::string(oracle->name()) == "brute_force"
                                  ? "brute force"
                                  : "the automatic one-shot algorithm (too many objects for brute force)")
                           : "");
        std::fflush(stdout);
    }

    // --save-moves: the frames' moves as a move file (the format `bench
    // jolt-moves:` and the Jolt driver read; one block), with each frame's
    // pairs with a moved body as the first exact Scene mode counts them.
    MoveWriter saver;
    const Slot* counter = nullptr;
    if (p.has("--save-moves")) {
        for (const Slot& s : slots)
            if (!counter && s.scene && s.runner->exact()) counter = &s;
        if (!counter) throw usage_error("--save-moves needs an exact Scene mode among --mode to count the pairs");
        saver.open(p.get("--save-moves"), seq.initial(), spec.fraction, static_cast<std::uint32_t>(warmup_frames + frames),
                   spec.kind == motion::Kind::fall ? 0u : static_cast<std::uint32_t>(std::llround(spec.fraction * double(objects))));
    }

    // Frame 0: every object added, the first pairs (all of them begin).
    for (Slot& s : slots) {
        const auto t0 = clock_type::now();
        s.runner->setup(seq);
        s.setup_ms = elapsed_ms(t0, clock_type::now());
        if (!verify) continue;
        if (s.scene && s.runner->exact()) {
            const broadphase::Scene& sc = s.scene->scene();
            s.verified = sc.pairs() == now && sc.begun() == now && sc.ended().empty() ? 1 : 0;
        } else {
            s.covers = s.runner->covers(now) ? 1 : 0;
        }
    }

    motion::Moves moves;
    double moved = 0;
    const std::size_t m = slots.size();
    for (int f = 0; f < warmup_frames + frames; ++f) {
        seq.next_frame(moves);
        const bool timed = f >= warmup_frames;
        if (timed) moved += double(moves.size());
        if (verify) {
            before.swap(now);
            oracle->apply(moves);
            oracle->pairs(now);
            begun.clear();
            ended.clear();
            std::set_difference(now.begin(), now.end(), before.begin(), before.end(), std::back_inserter(begun));
            std::set_difference(before.begin(), before.end(), now.begin(), now.end(), std::back_inserter(ended));
        }
        for (std::size_t k = 0; k < m; ++k) {
            Slot& s = slots[(k + static_cast<std::size_t>(f)) % m];  // a different mode first each frame
            const auto t0 = clock_type::now();
            s.runner->frame(moves);
            const auto t1 = clock_type::now();
            if (timed) {
                s.times.push_back(elapsed_ms(t0, t1));
                s.pairs += double(s.runner->pairs());
                if (s.scene) {
                    s.begun += double(s.scene->scene().begun().size());
                    s.ended += double(s.scene->scene().ended().size());
                }
            }
            if (verify) {
                if (s.scene && s.runner->exact()) {
                    const broadphase::Scene& sc = s.scene->scene();
                    if (!(sc.pairs() == now && sc.begun() == begun && sc.ended() == ended)) s.verified = 0;
                } else if (!s.runner->covers(now)) {
                    s.covers = 0;
                }
            }
        }
        if (counter) saver.frame(moves, counter->scene->scene().pairs());
    }
    if (counter) saver.close();

    const double nf = double(frames);
    if (!json) {
        std::printf("moved per timed frame: %.1f of %zu objects\n", moved / nf, objects);
        std::printf(motion_row_format, "mode", "median ms", "min ms", "setup ms", "pairs", "begun", "ended",
                    "verified");
    }
    bool any_bullet = false, any_fat = false;
    for (const Slot& s : slots) {
        const double med = median(s.times);
        const double mn = *std::min_element(s.times.begin(), s.times.end());
        double mean = 0;
        for (double t : s.times) mean += t;
        mean /= nf;
        const bool exact = s.runner->exact();
        any_bullet = any_bullet || (!exact && !s.scene);
        any_fat = any_fat || (!exact && s.scene);
        if (json) {
            char events[96] = "\"begun\":null,\"ended\":null";
            if (s.scene) std::snprintf(events, sizeof events, "\"begun\":%.2f,\"ended\":%.2f", s.begun / nf, s.ended / nf);
            const char* verified = s.verified < 0 ? "null" : s.verified ? "true" : "false";
            const char* covers = s.covers < 0 ? "null" : s.covers ? "true" : "false";
            std::printf(
                "{\"scene\":%s,\"kind\":\"%s\",\"n\":%zu,\"fraction\":%g,\"objects\":%zu,\"static\":%zu,"
                "\"mode\":%s,\"exact\":%s,\"frames\":%d,\"warmup\":%d,\"median_ms\":%.4f,\"min_ms\":%.4f,"
                "\"mean_ms\":%.4f,\"setup_ms\":%.3f,\"pairs\":%.1f,%s,\"moved\":%.1f,\"verified\":%s,"
                "\"covers_exact\":%s,\"oracle\":%s,\"threads\":%lld}\n",
                json_string(name).c_str(), kind_name(spec.kind), spec.n, spec.fraction, objects, seq.static_count(),
                json_string(s.runner->name()).c_str(), exact ? "true" : "false", frames, warmup_frames, med, mn, mean,
                s.setup_ms, s.pairs / nf, events, moved / nf, verified, covers,
                verify ? json_string(oracle->name()).c_str() : "null", exact || s.scene ? threads : 1LL);
        } else {
            char a[32], b[32], c[32], d[32], e[32] = "-", g[32] = "-";
            std::snprintf(a, sizeof a, "%.3f", med);
            std::snprintf(b, sizeof b, "%.3f", mn);
            std::snprintf(c, sizeof c, "%.1f", s.setup_ms);
            std::snprintf(d, sizeof d, "%.1f", s.pairs / nf);
            if (s.scene) {
                std::snprintf(e, sizeof e, "%.1f", s.begun / nf);
                std::snprintf(g, sizeof g, "%.1f", s.ended / nf);
            }
            const char* v = exact ? (s.verified < 0 ? "-" : s.verified ? "yes" : "NO")
                                  : (s.covers < 0 ? "-" : s.covers ? "covers" : "MISSES");
            std::printf(motion_row_format, s.runner->name().c_str(), a, b, c, d, e, g, v);
        }
        std::fflush(stdout);
    }
    if (!json) {
        std::printf("ms: moves applied + pairs found, per frame; pairs, begun, ended: means per timed frame\n");
        if (any_bullet)
            std::printf("bullet-*: %s, one thread; pairs are its pair cache (fat or quantised boxes, pairs removed "
                        "lazily): a superset of the exact pairs, not exact; no begin/end events; --verify checks it "
                        "holds every exact pair (\"covers\")\n",
                        bullet_version().c_str());
        if (any_fat)
            std::printf("fat-pairs: the Scene's pairs of fat boxes (tight boxes grown by its margin, 0.1): a superset "
                        "of the exact pairs, with events; --verify checks it holds every exact pair (\"covers\")\n");
    }
    return 0;
}

#ifndef BROADPHASE_WITH_BULLET
// Built without Bullet: no peers (bullet_peers.cpp has them).
std::vector<std::string> bullet_mode_names() { return {}; }
std::unique_ptr<MotionRunner> make_bullet_runner(const std::string& mode) {
    throw usage_error("--mode " + mode + ": this broadphase-lab was built without Bullet");
}
std::string bullet_version() { return ""; }
#endif

}  // namespace broadphase_cli

// ---------------------------------------------------------------- move files

namespace broadphase_cli {
namespace {

/// Reads little-endian values from a whole file in memory; a read past its
/// end is a CliError naming the file and the byte.
struct ByteReader {
    std::string path;
    std::vector<char> data;
    std::size_t at = 0;
    template <class V>
    V get() {
        if (data.size() - at < sizeof(V))
            throw CliError(path + ": truncated at byte " + std::to_string(at) + " (a move file from jolt_incremental "
                           "--moves, docs/scene.md)");
        V v;
        std::memcpy(&v, data.data() + at, sizeof(V));
        at += sizeof(V);
        return v;
    }
};

/// One block of a move file: a fraction's frames, from the initial boxes.
struct MoveBlock {
    float fraction = 0;
    std::uint32_t moved = 0;
    std::vector<motion::Moves> frames;
    std::vector<std::uint64_t> peer_pairs;  // pairs with a moved body the peer reported, per frame
};

}  // namespace

int run_moves_bench(const ParsedArgs& p) {
    const std::string name = p.positional.at(0);
    const std::string path = name.substr(std::string("jolt-moves:").size());
    for (const char* option : {"--algorithm", "--queries", "--sorted", "--frames"})
        if (p.has(option))
            throw usage_error(std::string(option) + " does not apply to a move file (its frames are its own; use --mode)");
    long long threads = parse_count("--threads", p.get("--threads", "1"), 0, 4096);
    if (threads == 0) threads = broadphase::default_threads();
    const bool verify = p.has("--verify"), json = p.has("--json");
    std::vector<std::string> names;
    split_modes(p.get("--mode", "automatic"), names);
    std::vector<const SceneModeName*> modes;
    // "queries": the floor the Scene's update is held to, the movers' pairs
    // found alone (a batch query of the moved boxes against an Index built
    // on the frame's boxes, the build untimed; no pair set, no events).
    bool floor = false;
    for (const std::string& n : names) {
        if (n == "queries" || n == "all") floor = true;
        if (n == "queries") continue;
        for (const SceneModeName& m : scene_modes)
            if ((n == "all" && !m.fat_pairs) || scene_mode_name(n) == m.name)
                if (std::find(modes.begin(), modes.end(), &m) == modes.end()) modes.push_back(&m);
        if (n != "all" && std::none_of(std::begin(scene_modes), std::end(scene_modes),
                                       [&](const SceneModeName& m) { return scene_mode_name(n) == m.name; }))
            throw usage_error("--mode: unknown mode '" + n + "' for a move file (the Scene's modes, queries, or all)");
    }

    ByteReader in;
    in.path = path;
    {
        std::FILE* f = std::fopen(path.c_str(), "rb");
        if (!f) throw CliError(path + ": cannot open");
        char buf[1 << 16];
        for (std::size_t got; (got = std::fread(buf, 1, sizeof buf, f)) > 0;) in.data.insert(in.data.end(), buf, buf + got);
        std::fclose(f);
    }
    char magic[8];
    for (char& c : magic) c = in.get<char>();
    if (std::memcmp(magic, "JOLTMOV1", 8) != 0) throw CliError(path + ": not a move file (no JOLTMOV1 header)");
    const std::uint32_t n = in.get<std::uint32_t>(), blocks = in.get<std::uint32_t>(), frames = in.get<std::uint32_t>();
    in.get<std::uint32_t>();  // the peer's seed
    in.get<float>();          // its step
    if (n > motion::max_count || blocks > 1000 || frames > 100000 || frames == 0)
        throw CliError(path + ": implausible header (" + std::to_string(n) + " bodies, " + std::to_string(blocks) +
                       " blocks, " + std::to_string(frames) + " frames)");
    for (std::uint32_t i = 0; i < n; ++i) in.get<std::uint32_t>();  // the bodies' rows in the peer's input
    std::vector<broadphase::Box> initial(n);
    auto read_box = [&]() {
        broadphase::Box b;
        for (int k = 0; k < 3; ++k) b.min[k] = in.get<float>();
        for (int k = 0; k < 3; ++k) b.max[k] = in.get<float>();
        return b;
    };
    for (auto& b : initial) b = read_box();
    std::vector<MoveBlock> parsed(blocks);
    for (MoveBlock& b : parsed) {
        b.fraction = in.get<float>();
        b.moved = in.get<std::uint32_t>();
        b.frames.resize(frames);
        for (motion::Moves& m : b.frames) {
            const std::uint32_t count = in.get<std::uint32_t>();
            if (count > n) throw CliError(path + ": a frame moves " + std::to_string(count) + " of " + std::to_string(n) + " bodies");
            for (std::uint32_t j = 0; j < count; ++j) {
                const std::uint32_t id = in.get<std::uint32_t>();
                if (id >= n) throw CliError(path + ": body " + std::to_string(id) + " of " + std::to_string(n) + " moved");
                m.push_back(id, read_box());
            }
            b.peer_pairs.push_back(in.get<std::uint64_t>());
        }
    }
    if (in.at != in.data.size()) throw CliError(path + ": " + std::to_string(in.data.size() - in.at) + " bytes past the last frame");

    const std::vector<broadphase::ObjectType> types(n, broadphase::ObjectType::dynamic_object);
    if (!json) {
        std::printf("move file %s: %u bodies, %u fractions, %u frames each, threads %lld\n", path.c_str(), n, blocks,
                    frames, threads);
        std::printf("%-9s %8s %-18s %10s %10s %12s %12s %9s\n", "fraction", "moved", "mode", "median ms", "min ms",
                    "moved pairs", "peer pairs", "verified");
    }
    std::vector<std::uint8_t> moved(n, 0);
    bool all_verified = true;
    for (const MoveBlock& b : parsed) {
        for (const SceneModeName* m : modes) {
            SceneRunner r(*m, static_cast<unsigned>(threads));
            r.setup(initial, types);
            std::vector<double> times;
            std::uint64_t last = 0;
            int verified = verify ? 1 : -1;
            for (std::size_t f = 0; f < b.frames.size(); ++f) {
                const motion::Moves& mv = b.frames[f];
                const auto t0 = clock_type::now();
                r.frame(mv);
                times.push_back(elapsed_ms(t0, clock_type::now()));
                if (!verify && f + 1 < b.frames.size()) continue;
                // The pairs with a moved body, as the peer counts them (untimed).
                for (std::uint32_t id : mv.index) moved[id] = 1;
                std::uint64_t with_moved = 0;
                for (const Pair& q : r.scene().pairs()) with_moved += moved[q.a] | moved[q.b];
                for (std::uint32_t id : mv.index) moved[id] = 0;
                last = with_moved;
                if (verify && with_moved != b.peer_pairs[f]) verified = 0;
            }
            all_verified = all_verified && verified != 0;
            const double med = median(times), mn = *std::min_element(times.begin(), times.end());
            const char* v = verified < 0 ? "-" : verified ? "yes" : "NO";
            if (json) {
                std::printf("{\"file\":%s,\"bodies\":%u,\"fraction\":%g,\"moved\":%u,\"mode\":\"%s\",\"frames\":%zu,"
                            "\"median_ms\":%.4f,\"min_ms\":%.4f,\"moved_pairs\":%llu,\"peer_pairs\":%llu,"
                            "\"verified\":%s,\"threads\":%lld}\n",
                            json_string(path).c_str(), n, double(b.fraction), b.moved, m->name, b.frames.size(), med, mn,
                            static_cast<unsigned long long>(last), static_cast<unsigned long long>(b.peer_pairs.back()),
                            verified < 0 ? "null" : verified ? "true" : "false", threads);
            } else {
                std::printf("%-9g %8u %-18s %10.3f %10.3f %12llu %12llu %9s\n", double(b.fraction), b.moved, m->name,
                            med, mn, static_cast<unsigned long long>(last),
                            static_cast<unsigned long long>(b.peer_pairs.back()), v);
            }
            std::fflush(stdout);
        }
        if (floor) {
            // The movers' pairs alone: their boxes queried against an Index of
            // every box (uniform grid), built untimed before each frame.
            broadphase::Boxes all, queries;
            for (const broadphase::Box& box : initial) all.push_back(box);
            broadphase::Index index;
            broadphase::Options o;
            o.threads = static_cast<unsigned>(threads);
            std::vector<Pair> hits;
            std::vector<double> times;
            std::uint64_t last = 0;
            for (const motion::Moves& mv : b.frames) {
                queries.resize(0);
                for (std::size_t j = 0; j < mv.index.size(); ++j) {
                    all.set(mv.index[j], mv.box[j]);
                    queries.push_back(mv.box[j]);
                }
                index.build(all, o);
                const auto t0 = clock_type::now();
                index.query_batch(queries, hits, o);
                times.push_back(elapsed_ms(t0, clock_type::now()));
                last = hits.size() - mv.index.size();  // (each mover finds itself)
            }
            const double med = median(times), mn = *std::min_element(times.begin(), times.end());
            if (json) {
                std::printf("{\"file\":%s,\"bodies\":%u,\"fraction\":%g,\"moved\":%u,\"mode\":\"queries\",\"frames\":%zu,"
                            "\"median_ms\":%.4f,\"min_ms\":%.4f,\"moved_pairs\":null,\"hits\":%llu,\"peer_pairs\":%llu,"
                            "\"verified\":null,\"threads\":%lld}\n",
                            json_string(path).c_str(), n, double(b.fraction), b.moved, b.frames.size(), med, mn,
                            static_cast<unsigned long long>(last), static_cast<unsigned long long>(b.peer_pairs.back()),
                            threads);
            } else {
                std::printf("%-9g %8u %-18s %10.3f %10.3f %12s %12llu %9s\n", double(b.fraction), b.moved, "queries", med,
                            mn, "-", static_cast<unsigned long long>(b.peer_pairs.back()), "-");
            }
            std::fflush(stdout);
        }
    }
    if (!json)
        std::printf("ms: the frame's moves applied (one batch) + update(), one Scene per mode and fraction, from the "
                    "file's initial boxes; moved pairs: pairs with a moved body after the last frame (every frame "
                    "with --verify, against the peer's)%s\n",
                    floor ? "; queries: the movers' boxes queried against an Index of every box built before the "
                            "frame (untimed), the floor: no pair set, no events" : "");
    if (!all_verified) throw CliError(path + ": the pairs with a moved body differ from the peer's (see NO above)");
    return 0;
}

}  // namespace broadphase_cli
