// Scene soak: a Scene driven through a long random sequence of
// add / remove / move / set_type / set_filter / set_user_value, batches,
// margin and fat-pair switches, then update(), in every update mode (each
// mode alone, and "mixed": the mode changed every few updates), with exact
// and with fat pairs, on one and two threads, checked against brute force.
//
// Checks:
// - every update: begun and ended are sorted and unique, every ended pair
//   was in the previous set and no begun pair was, and the previous set
//   minus ended plus begun is exactly pairs(); an add never returns a live
//   id or one whose end events are not out yet;
// - every K updates (--check-every, default 1), and the update before it:
//   pairs() equals brute force over the live objects (static-static pairs
//   left out, filters applied, on the pair boxes), so begun and ended are
//   exactly the differences; with fat pairs, the exact pairs of the tight
//   boxes are a subset and every tight box lies in its pair box;
// - every 64th check: box queries against a scan, the tree's invariants.
//
// The work is cut into episodes (a fresh scene each, its own seed, one
// configuration, 2,000 updates; "large" episodes hold thousands of objects
// for 50 updates, so that threads and mass changes run too), taken round
// robin over the configurations so every mode gets the same share.
//
//   broadphase_scene_soak [--updates N] [--minutes M] [--check-every K]
//                         [--seed S] [--episode E] [--quiet]
// --updates: total updates (default 1,000,000; with --minutes alone, no
// limit); --minutes: stop after that long; --episode: run only episode E
// of seed S (to reproduce a mismatch). Exits 1 on the first mismatch,
// printing the seed, the episode, its configuration and the update.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include <broadphase/scene.hpp>
#include <broadphase_fixtures/scenes.hpp>

namespace {

using broadphase::Box;
using broadphase::Filter;
using broadphase::ObjectType;
using broadphase::Pair;
using broadphase::Scene;
using broadphase::UpdateMode;
using broadphase_fixtures::Random;
using Id = Scene::Id;

constexpr UpdateMode kModes[] = {UpdateMode::automatic, UpdateMode::rebuild,
                                 UpdateMode::multi_box_pruning, UpdateMode::grid, UpdateMode::enlarged};
constexpr int kModeCount = static_cast<int>(std::size(kModes));
constexpr int kMixed = kModeCount;        // configuration "mixed": the mode changes as it runs
constexpr int kConfigs = 2 * (kModeCount + 1);  // x exact / fat pairs

const Filter kFilters[] = {Filter{}, Filter{2, ~std::uint64_t(2), 0}, Filter{1, 1, 7}, Filter{4, 1 | 4, 7},
                           Filter{1, ~std::uint64_t(0), -3}};

struct Totals {
    std::uint64_t updates = 0, updates_by_config[kConfigs] = {}, methods[kModeCount] = {};
    std::uint64_t checks = 0, event_checks = 0, query_checks = 0;
    std::uint64_t adds = 0, removes = 0, moves = 0, types = 0, filters = 0, user_values = 0, batches = 0,
                  margins = 0, fat_switches = 0, mode_switches = 0;
    std::uint64_t live_sum = 0, pair_sum = 0, events = 0;
    std::size_t live_max = 0, pairs_max = 0;
    std::uint64_t episodes = 0, large_episodes = 0;
};

struct Failure {
    std::string what;
};

std::string config_name(int c) {
    const int m = c % (kModeCount + 1);
    std::string s = m == kMixed ? "mixed" : broadphase::to_string(kModes[m]);
    return s + (c >= kModeCount + 1 ? "+fat" : "");
}

/// One scene's life: `updates` updates of random changes.
class Episode {
public:
    Episode(std::uint64_t seed, int config, bool large, int check_every, Totals& totals)
        : r_(seed), q_(~seed), config_(config), large_(large), check_every_(check_every), t_(totals) {}

    /// Runs it; throws Failure on the first mismatch (update_ says where).
    void run(int updates) {
        const int m = config_ % (kModeCount + 1);
        fat_ = config_ >= kModeCount + 1;
        mode_ = m == kMixed ? kModes[r_.below(kModeCount)] : kModes[m];
        scene_.set_update_mode(mode_);
        broadphase::Options o;
        o.threads = large_ || r_.below(2) ? 2 : 1;
        o.min_boxes_per_thread = 256;  // rebuilds of a few thousand objects run on both threads
        scene_.set_options(o);
        if (r_.below(4) == 0) scene_.set_margin(float(r_.below(3)) * 0.25f);
        scene_.set_fat_pairs(fat_);
        target_ = large_ ? 1500 + std::size_t(r_.below(2000)) : 8 + std::size_t(r_.below(400));
        side_ = large_ ? 60.0 : 8.0 + std::cbrt(double(target_)) * 3.0;
        // Filled to about the target at once (large scenes would take their
        // whole episode to grow), then changed update by update.
        const std::size_t start = large_ ? target_ : target_ / 2;
        while (live_.size() < start) add_one(random_box(), random_type());
        for (update_ = 0; update_ < updates; ++update_) {
            changes();
            const broadphase::Report rep = scene_.update();
            if (!rep.ok()) fail(std::string("update() returned ") + broadphase::to_string(rep.status));
            ++t_.updates;
            ++t_.updates_by_config[config_];
            ++t_.methods[method_index(scene_.last_method())];
            check_events();
            const int phase = update_ % check_every_;  // checked: the K-th update and the one before it
            const bool check = phase == 0 || phase == check_every_ - 1 || update_ + 1 == updates;
            if (check) check_pairs();
            else have_oracle_ = false;
            t_.live_sum += live_.size();
            t_.pair_sum += scene_.pairs().size();
            t_.live_max = std::max(t_.live_max, live_.size());
            t_.pairs_max = std::max(t_.pairs_max, scene_.pairs().size());
            t_.events += scene_.begun().size() + scene_.ended().size();
        }
    }

    int update() const { return update_; }
    std::string describe() const {
        return "config " + config_name(config_) + (large_ ? " (large)" : "") + ", mode now " +
               broadphase::to_string(mode_) + ", fat " + (scene_.fat_pairs() ? "on" : "off") + ", " +
               std::to_string(live_.size()) + " objects";
    }

private:
    static int method_index(UpdateMode m) {
        for (int i = 0; i < kModeCount; ++i)
            if (kModes[i] == m) return i;
        return 0;
    }

    [[noreturn]] void fail(const std::string& what) const { throw Failure{what}; }

    // ---- boxes -------------------------------------------------------------

    Box random_box() { return random_box(r_); }
    Box random_box(Random& r) const {
        Box b;
        const int kind = int(r.below(40));
        for (int k = 0; k < 3; ++k) {
            double lo = r.uniform(0, side_), ext = r.uniform(0.2, 2.5);
            if (kind < 6) lo = std::floor(lo / 2) * 2, ext = 2;  // a lattice: touching and identical boxes
            if (kind == 6) ext = 0;                              // a point
            if (kind == 7) lo = -5, ext = side_ + 10;            // huge
            if (kind == 8) lo = 1e6;                             // a far outlier
            b.min[k] = float(lo);
            b.max[k] = float(lo + ext);
        }
        const float inf = std::numeric_limits<float>::infinity();
        if (kind == 9) b.max[2] = inf;                                      // a slab to infinity
        if (kind == 10) b.min[0] = -inf, b.max[0] = inf;                    // across everything on x
        if (kind == 11 && r.below(3) == 0) b.min[1] = std::numeric_limits<float>::quiet_NaN();  // invalid
        if (kind == 12 && r.below(3) == 0) std::swap(b.min[0], b.max[0]), b.min[0] += 1;        // min > max
        return b;
    }

    Box moved(const Box& b) {
        if (!b.valid() || r_.below(8) == 0) return random_box();  // a jump
        const double step = r_.below(3) == 0 ? 0.02 : 0.6;        // within a margin, or further
        Box out = b;
        for (int k = 0; k < 3; ++k) {
            const float d = float(r_.uniform(-step, step));
            out.min[k] += d;
            out.max[k] += d;
        }
        return out;
    }

    ObjectType random_type() { return r_.below(5) == 0 ? ObjectType::static_object : ObjectType::dynamic_object; }

    // ---- changes -----------------------------------------------------------

    void add_one(const Box& b, ObjectType type) {
        const std::uint64_t uv = r_.next();
        const Filter& f = kFilters[r_.below(5)];
        const Id id = scene_.add(b, type, uv, f);
        note_added(id, uv);
    }
    void note_added(Id id, std::uint64_t uv) {
        if (id == Scene::null) fail("add() returned null");
        if (id < alive_.size() && alive_[id]) fail("add() returned the live id " + std::to_string(id));
        if (id < retired_.size() && retired_[id]) fail("add() reused id " + std::to_string(id) + " too early");
        if (id >= alive_.size()) {
            alive_.resize(id + 1, 0), retired_.resize(id + 1, 0);
            where_.resize(id + 1, 0), uv_.resize(id + 1, 0);
        }
        alive_[id] = 1;
        where_[id] = live_.size();
        uv_[id] = uv;
        live_.push_back(id);
        ++t_.adds;
    }
    void remove_at(std::size_t i) {
        const Id id = live_[i];
        if (!scene_.remove(id)) fail("remove() of a live id failed");
        if (scene_.remove(id)) fail("remove() twice succeeded");
        alive_[id] = 0;
        retired_[id] = 1;
        retired_list_.push_back(id);
        live_[i] = live_.back();
        where_[live_[i]] = i;
        live_.pop_back();
        ++t_.removes;
    }
    Id random_live() { return live_[r_.below(live_.size())]; }

    void changes() {
        for (Id id : retired_list_) retired_[id] = 0;  // their end events are out
        retired_list_.clear();
        if (config_ % (kModeCount + 1) == kMixed && r_.below(4) == 0) {
            mode_ = kModes[r_.below(kModeCount)];
            scene_.set_update_mode(mode_);
            ++t_.mode_switches;
        }
        const std::uint64_t dice = r_.below(1000);
        if (dice < 3) {  // the fat pairs switched (every object changes)
            scene_.set_fat_pairs(!scene_.fat_pairs());
            ++t_.fat_switches;
        } else if (dice < 6) {
            scene_.set_margin(float(r_.below(4)) * 0.1f);
            ++t_.margins;
        } else if (dice < 10 && !live_.empty()) {  // most objects go at once
            for (std::size_t i = live_.size(); i-- > 0;)
                if (r_.below(8)) remove_at(i);
        } else if (dice < 14) {  // a burst of adds, through the batch call
            std::vector<Box> boxes(1 + r_.below(large_ ? 2000 : 200));
            for (Box& b : boxes) b = random_box();
            std::vector<Id> ids(boxes.size());
            scene_.add(boxes.data(), boxes.size(), ids.data(), random_type());
            for (Id id : ids) note_added(id, 0);
            ++t_.batches;
        }
        // Mostly a few changes; in large scenes now and then a quarter of them
        // (the automatic mode then rebuilds, threads run).
        std::size_t ops = 1 + r_.below(large_ ? 40 : 12);
        if (large_ && r_.below(4) == 0) ops = live_.size() / 4 + 1;
        if (r_.below(10) == 0) ops = 0;  // nothing changes: no events
        for (std::size_t op = 0; op < ops; ++op) {
            const std::uint64_t what = r_.below(100);
            const bool grow = live_.size() < target_;
            if (live_.empty() || (what < 25 && grow) || (what < 15)) {
                add_one(random_box(), random_type());
            } else if (what < 38) {
                remove_at(r_.below(live_.size()));
            } else if (what < 80) {
                const Id id = random_live();
                if (!scene_.move(id, moved(scene_.box(id)))) fail("move() of a live id failed");
                ++t_.moves;
            } else if (what < 86) {
                // A batch move of a few objects (a removed id in it is skipped).
                std::vector<Id> ids;
                std::vector<Box> boxes;
                for (int i = 0; i < 4 && !live_.empty(); ++i)
                    ids.push_back(random_live()), boxes.push_back(moved(scene_.box(ids.back())));
                if (scene_.move(ids.data(), boxes.data(), ids.size()) != ids.size()) fail("batch move() count");
                Id dead = 0;
                while (dead < alive_.size() && alive_[dead]) ++dead;
                Box b = random_box();
                if (dead < alive_.size() && scene_.move(&dead, &b, 1) != 0) fail("batch move() moved a dead id");
                t_.moves += ids.size();
                ++t_.batches;
            } else if (what < 91) {
                scene_.set_type(random_live(), random_type());
                ++t_.types;
            } else if (what < 96) {
                scene_.set_filter(random_live(), kFilters[r_.below(5)]);
                ++t_.filters;
            } else if (what < 98) {
                const Id id = random_live();
                uv_[id] = r_.next();
                scene_.set_user_value(id, uv_[id]);
                ++t_.user_values;
            }
            // else: this object sleeps
        }
    }

    // ---- checks ------------------------------------------------------------

    static bool sorted_unique(const std::vector<Pair>& v) {
        for (std::size_t i = 1; i < v.size(); ++i)
            if (!(v[i - 1] < v[i])) return false;
        return true;
    }

    /// The events against the previous set; the new set from them.
    void check_events() {
        const std::vector<Pair>& begun = scene_.begun();
        const std::vector<Pair>& ended = scene_.ended();
        if (!sorted_unique(begun) || !sorted_unique(ended)) fail("begun or ended not sorted and unique");
        scratch_.clear();
        std::set_intersection(begun.begin(), begun.end(), tracked_.begin(), tracked_.end(),
                              std::back_inserter(scratch_));
        if (!scratch_.empty()) fail("a begun pair was in the previous set");
        scratch_.clear();
        std::set_difference(ended.begin(), ended.end(), tracked_.begin(), tracked_.end(), std::back_inserter(scratch_));
        if (!scratch_.empty()) fail("an ended pair was not in the previous set");
        scratch_.clear();
        std::set_difference(tracked_.begin(), tracked_.end(), ended.begin(), ended.end(), std::back_inserter(scratch_));
        tracked_.clear();
        std::merge(scratch_.begin(), scratch_.end(), begun.begin(), begun.end(), std::back_inserter(tracked_));
        if (tracked_ != scene_.pairs()) fail("previous set - ended + begun != pairs()");
        if (scene_.size() != live_.size()) fail("size() != live objects");
        ++t_.event_checks;
    }

    /// Brute force over the live objects, on the pair boxes (or the tight ones).
    void oracle(bool tight, std::vector<Pair>& out) const {
        out.clear();
        std::vector<Id> ids(live_);
        std::sort(ids.begin(), ids.end());
        for (std::size_t i = 0; i < ids.size(); ++i) {
            const Id a = ids[i];
            const Box& x = tight ? scene_.box(a) : scene_.pair_box(a);
            if (!x.valid()) continue;
            const bool sa = scene_.type(a) == ObjectType::static_object;
            for (std::size_t j = i + 1; j < ids.size(); ++j) {
                const Id b = ids[j];
                if (sa && scene_.type(b) == ObjectType::static_object) continue;
                const Box& y = tight ? scene_.box(b) : scene_.pair_box(b);
                if (!y.valid() || !broadphase::overlaps(x, y)) continue;
                if (!Filter::may_meet(scene_.filter(a), scene_.filter(b))) continue;
                out.push_back(Pair{a, b});
            }
        }
    }

    void check_pairs() {
        oracle(false, now_);
        if (now_ != scene_.pairs())
            fail("pairs() differ from brute force: " + std::to_string(scene_.pairs().size()) + " against " +
                 std::to_string(now_.size()));
        if (have_oracle_) {  // the previous update was checked too: the events exactly
            scratch_.clear();
            std::set_difference(now_.begin(), now_.end(), before_.begin(), before_.end(), std::back_inserter(scratch_));
            if (scratch_ != scene_.begun()) fail("begun differs from brute force");
            scratch_.clear();
            std::set_difference(before_.begin(), before_.end(), now_.begin(), now_.end(), std::back_inserter(scratch_));
            if (scratch_ != scene_.ended()) fail("ended differs from brute force");
        }
        if (scene_.fat_pairs()) {  // fat pairs: a superset of the exact ones
            oracle(true, exact_);
            scratch_.clear();
            std::set_difference(exact_.begin(), exact_.end(), now_.begin(), now_.end(), std::back_inserter(scratch_));
            if (!scratch_.empty()) fail("fat pairs miss an exact pair");
            for (Id id : live_) {
                const Box& tight = scene_.box(id);
                if (tight.valid() && !broadphase::contains(scene_.pair_box(id), tight))
                    fail("a tight box outside its pair box");
            }
        }
        for (std::size_t i = 0; i < live_.size(); i += 7)
            if (scene_.user_value(live_[i]) != uv_[live_[i]]) fail("user_value() changed");
        before_.swap(now_);
        have_oracle_ = true;
        ++t_.checks;
        if (++checks_ % 64 == 0) check_queries();  // (its own random numbers: an episode runs the same alone)
    }

    void check_queries() {
        if (!scene_.tree().validate().empty()) fail("tree: " + scene_.tree().validate());
        for (int q = 0; q < 3; ++q) {
            const Box box = random_box(q_);
            std::vector<Id> got, want;
            scene_.for_each_overlap(box, [&](Id id) { got.push_back(id); });
            if (box.valid())
                for (Id id : live_)
                    if (scene_.box(id).valid() && broadphase::overlaps(scene_.box(id), box)) want.push_back(id);
            std::sort(got.begin(), got.end());
            std::sort(want.begin(), want.end());
            if (got != want) fail("for_each_overlap differs from a scan");
        }
        ++t_.query_checks;
    }

    Random r_, q_;  // the changes'; the queries'
    std::uint64_t checks_ = 0;
    int config_;
    bool large_;
    int check_every_;
    Totals& t_;
    Scene scene_;
    UpdateMode mode_ = UpdateMode::automatic;
    bool fat_ = false;
    std::size_t target_ = 0;
    double side_ = 10;
    int update_ = 0;
    std::vector<Id> live_, retired_list_;
    std::vector<std::uint8_t> alive_, retired_;
    std::vector<std::size_t> where_;
    std::vector<std::uint64_t> uv_;
    std::vector<Pair> tracked_, scratch_, now_, before_, exact_;
    bool have_oracle_ = false;
};

void usage() {
    std::fprintf(stderr,
                 "usage: broadphase_scene_soak [--updates N] [--minutes M] [--check-every K] [--seed S]\n"
                 "                             [--episode E] [--quiet]\n");
}

}  // namespace

int main(int argc, char** argv) {
    std::uint64_t updates = 0, seed = 1;
    double minutes = 0;
    int check_every = 1;
    long only_episode = -1;
    bool quiet = false, updates_given = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> const char* {
            if (i + 1 >= argc) usage(), std::exit(2);
            return argv[++i];
        };
        if (a == "--updates") updates = std::strtoull(value(), nullptr, 10), updates_given = true;
        else if (a == "--minutes") minutes = std::strtod(value(), nullptr);
        else if (a == "--check-every") check_every = std::max(1, std::atoi(value()));
        else if (a == "--seed") seed = std::strtoull(value(), nullptr, 10);
        else if (a == "--episode") only_episode = std::atol(value());
        else if (a == "--quiet") quiet = true;
        else return usage(), 2;
    }
    if (!updates_given && minutes <= 0) updates = 1000000;
    if (!updates_given) updates = ~std::uint64_t(0);

    Totals t;
    const auto t0 = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    std::printf("scene_soak: seed %llu, %s updates%s, brute-force check every %d update(s)\n",
                static_cast<unsigned long long>(seed),
                updates == ~std::uint64_t(0) ? "unlimited" : std::to_string(updates).c_str(),
                minutes > 0 ? (", at most " + std::to_string(minutes) + " min").c_str() : "", check_every);
    std::fflush(stdout);
    double next_report = 60;
    for (std::uint64_t e = only_episode >= 0 ? std::uint64_t(only_episode) : 0;; ++e) {
        if (t.updates >= updates || (minutes > 0 && elapsed() >= 60 * minutes)) break;
        if (only_episode >= 0 && e != std::uint64_t(only_episode)) break;
        const int config = int(e % kConfigs);
        const bool large = e % 25 == 3;  // one in 25: thousands of objects
        const std::uint64_t episode_seed = seed * 0x100000001B3ull + e;
        const std::uint64_t left = updates - t.updates;
        const int length = int(std::min<std::uint64_t>(large ? 50 : 2000, left));
        Episode episode(episode_seed, config, large, check_every, t);
        try {
            episode.run(length);
        } catch (const Failure& f) {
            std::printf("MISMATCH: seed %llu episode %llu (episode seed %llu), %s, update %d of the episode "
                        "(%llu in all): %s\n"
                        "  reproduce: broadphase_scene_soak --seed %llu --episode %llu --check-every 1\n",
                        static_cast<unsigned long long>(seed), static_cast<unsigned long long>(e),
                        static_cast<unsigned long long>(episode_seed), episode.describe().c_str(), episode.update(),
                        static_cast<unsigned long long>(t.updates), f.what.c_str(),
                        static_cast<unsigned long long>(seed), static_cast<unsigned long long>(e));
            return 1;
        }
        ++t.episodes;
        t.large_episodes += large;
        if (!quiet && elapsed() >= next_report) {
            std::printf("  %.0f s: %llu updates, %llu checks, 0 mismatches\n", elapsed(),
                        static_cast<unsigned long long>(t.updates), static_cast<unsigned long long>(t.checks));
            std::fflush(stdout);
            next_report += 60;
        }
    }
    const double secs = elapsed();
    std::printf("updates per configuration:");
    for (int c = 0; c < kConfigs; ++c)
        std::printf(" %s %llu%s", config_name(c).c_str(), static_cast<unsigned long long>(t.updates_by_config[c]),
                    c + 1 < kConfigs ? "," : "\n");
    std::printf("methods run:");
    for (int m = 0; m < kModeCount; ++m)
        std::printf(" %s %llu%s", broadphase::to_string(kModes[m]), static_cast<unsigned long long>(t.methods[m]),
                    m + 1 < kModeCount ? "," : "\n");
    std::printf("ops: %llu adds, %llu removes, %llu moves, %llu type, %llu filter, %llu user value, %llu batch calls, "
                "%llu margin and %llu fat-pair switches, %llu mode switches\n",
                static_cast<unsigned long long>(t.adds), static_cast<unsigned long long>(t.removes),
                static_cast<unsigned long long>(t.moves), static_cast<unsigned long long>(t.types),
                static_cast<unsigned long long>(t.filters), static_cast<unsigned long long>(t.user_values),
                static_cast<unsigned long long>(t.batches), static_cast<unsigned long long>(t.margins),
                static_cast<unsigned long long>(t.fat_switches), static_cast<unsigned long long>(t.mode_switches));
    std::printf("objects: mean %.0f, max %zu; pairs: mean %.0f, max %zu; %llu events; %llu episodes (%llu large)\n",
                t.updates ? double(t.live_sum) / double(t.updates) : 0.0, t.live_max,
                t.updates ? double(t.pair_sum) / double(t.updates) : 0.0, t.pairs_max,
                static_cast<unsigned long long>(t.events), static_cast<unsigned long long>(t.episodes),
                static_cast<unsigned long long>(t.large_episodes));
    std::printf("SUMMARY: seed %llu, %llu updates in %.1f s (%d modes + mixed, exact and fat pairs), %llu brute-force "
                "checks, %llu event checks, %llu query checks, %llu ops, 0 mismatches\n",
                static_cast<unsigned long long>(seed), static_cast<unsigned long long>(t.updates), secs, kModeCount,
                static_cast<unsigned long long>(t.checks), static_cast<unsigned long long>(t.event_checks),
                static_cast<unsigned long long>(t.query_checks),
                static_cast<unsigned long long>(t.adds + t.removes + t.moves + t.types + t.filters + t.user_values));
    return 0;
}
