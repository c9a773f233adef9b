// broadphase-mpi bench: times the distributed find frame after frame.
//
// Every rank builds the whole named scene (they are deterministic, so all
// ranks get the same boxes) or reads the file, and keeps its share, chosen
// by --distribute: a slice of rows (a .npy file is then read in part, see
// load_box_slice), a slice of a fixed pseudo-random permutation, or a slice
// of the boxes sorted by centre x. Global ids are the boxes' indices in the
// scene, whatever the distribution, so that --verify can compare with one
// process's answer. One DistributedPairFinder serves every frame: one
// untimed warm-up frame, then K timed ones.
#include <algorithm>
#include <cmath>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include <broadphase/broadphase.hpp>
#include <broadphase/mpi/distributed.hpp>
#include <broadphase_fixtures/scenes.hpp>

#include "args.hpp"
#include "files.hpp"
#include "json.hpp"
#include "mpi_commands.hpp"
#include "timing.hpp"

namespace broadphase_mpi_cli {
namespace {

using broadphase::Boxes;
using broadphase::mpi::Delivery;
using broadphase::mpi::IdPair;
using broadphase_cli::usage_error;

enum class Distribution { slice, random, sorted };

const char* to_string(Distribution d) {
    switch (d) {
        case Distribution::slice: return "slice";
        case Distribution::random: return "random";
        case Distribution::sorted: return "sorted";
    }
    return "unknown";
}

std::uint64_t splitmix64(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/// A number in [0, 1) from (frame, id, axis) alone: the same on every rank
/// and for every distribution.
double jitter_unit(std::uint64_t frame, std::uint64_t id, int axis) {
    std::uint64_t s = frame * 0x2545F4914F6CDD1Dull ^ (id << 2 | static_cast<std::uint64_t>(axis));
    splitmix64(s);
    return static_cast<double>(splitmix64(s) >> 11) * (1.0 / 9007199254740992.0);
}

/// The scene's indices in the order the ranks take slices of.
std::vector<std::uint32_t> distribution_order(const Boxes& all, Distribution d) {
    std::vector<std::uint32_t> order(all.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::uint32_t>(i);
    if (d == Distribution::random) {
        std::uint64_t state = 0x5EEDB0C5ull;  // fixed: the same permutation on every rank and run
        for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[splitmix64(state) % i]);
    } else if (d == Distribution::sorted) {
        std::vector<double> key(all.size());
        for (std::size_t i = 0; i < all.size(); ++i) {
            const double c = 0.5 * (static_cast<double>(all.min(0)[i]) + static_cast<double>(all.max(0)[i]));
            key[i] = std::isnan(c) ? HUGE_VAL : c;  // invalid boxes last
        }
        std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
            return key[x] != key[y] ? key[x] < key[y] : x < y;
        });
    }
    return order;
}

/// What one rank reports: counts from the last timed frame, milliseconds
/// as medians over the timed frames. Sent to rank 0 as doubles.
struct RankRow {
    enum Field {
        boxes, valid, ghosts, held, pairs_found, pairs_owned, pairs_out, bytes_sent, bytes_received,
        ms_partition, ms_exchange, ms_find, ms_delivery, ms_total, count
    };
    double v[count] = {};
};
const char* const field_names[RankRow::count] = {
    "boxes", "valid", "ghosts", "held", "pairs_found", "pairs_owned", "pairs_out", "bytes_sent", "bytes_received",
    "ms_partition", "ms_exchange", "ms_find", "ms_delivery", "ms_total"};

std::string number(double v, bool integer) {
    if (!std::isfinite(v)) return "null";
    char buf[64];
    if (integer) std::snprintf(buf, sizeof buf, "%.0f", v);
    else std::snprintf(buf, sizeof buf, "%.4f", v);
    return buf;
}

/// The outcome of --verify, on rank 0.
struct Verdict {
    bool ok = false;
    std::uint64_t reference = 0, missing = 0, extra = 0;
};

/// Counts the entries of sorted `got` missing from / extra to sorted `want` (as multisets).
template <class V>
void compare_sorted(const V& got, const V& want, Verdict& v) {
    std::size_t i = 0, j = 0;
    while (i < got.size() || j < want.size()) {
        if (j == want.size() || (i < got.size() && got[i] < want[j])) ++v.extra, ++i;
        else if (i == got.size() || want[j] < got[i]) ++v.missing, ++j;
        else ++i, ++j;
    }
    v.ok = v.missing == 0 && v.extra == 0;
}

/// Gathers every rank's boxes, ids and pairs on rank 0 and checks the
/// pairs against one process's answer on the same boxes. Collective; the
/// verdict is returned on every rank (details on rank 0).
Verdict verify_frame(const World& world, const Boxes& mine, const std::vector<std::uint64_t>& ids,
                     const std::vector<IdPair>& pairs, Delivery delivery, unsigned threads) {
    const int P = world.size;
    std::uint64_t mine_counts[2] = {mine.size(), pairs.size()};
    std::vector<std::uint64_t> counts(rank0(world) ? 2 * static_cast<std::size_t>(P) : 0);
    MPI_Gather(mine_counts, 2, MPI_UINT64_T, counts.data(), 2, MPI_UINT64_T, 0, world.comm);
    // Gatherv counts are ints: six floats a box, two uint64 a pair.
    collectively(world, [&] {
        if (!rank0(world)) return;
        std::uint64_t boxes = 0, prs = 0;
        for (int r = 0; r < P; ++r) boxes += counts[2 * r], prs += counts[2 * r + 1];
        if (boxes * 6 > INT_MAX || prs * 2 > INT_MAX)
            throw CliError("--verify: too many boxes or pairs to gather on one rank");
    });
    std::vector<int> box_counts(P), box_displs(P), id_counts(P), id_displs(P), pair_counts(P), pair_displs(P);
    std::uint64_t n = 0, k = 0;
    if (rank0(world)) {
        for (int r = 0; r < P; ++r) {
            box_displs[r] = static_cast<int>(6 * n);
            box_counts[r] = static_cast<int>(6 * counts[2 * r]);
            id_displs[r] = static_cast<int>(n);
            id_counts[r] = static_cast<int>(counts[2 * r]);
            pair_displs[r] = static_cast<int>(2 * k);
            pair_counts[r] = static_cast<int>(2 * counts[2 * r + 1]);
            n += counts[2 * r];
            k += counts[2 * r + 1];
        }
    }
    std::vector<float> my_values(6 * mine.size());
    for (std::size_t i = 0; i < mine.size(); ++i)
        for (int a = 0; a < 3; ++a) {
            my_values[6 * i + a] = mine.min(a)[i];
            my_values[6 * i + 3 + a] = mine.max(a)[i];
        }
    std::vector<float> values(6 * n);
    std::vector<std::uint64_t> all_ids(n), all_pairs(2 * k);
    MPI_Gatherv(my_values.data(), static_cast<int>(my_values.size()), MPI_FLOAT, values.data(), box_counts.data(),
                box_displs.data(), MPI_FLOAT, 0, world.comm);
    MPI_Gatherv(ids.data(), static_cast<int>(ids.size()), MPI_UINT64_T, all_ids.data(), id_counts.data(),
                id_displs.data(), MPI_UINT64_T, 0, world.comm);
    static_assert(sizeof(IdPair) == 2 * sizeof(std::uint64_t), "IdPair is two uint64");
    MPI_Gatherv(pairs.data(), static_cast<int>(2 * pairs.size()), MPI_UINT64_T, all_pairs.data(), pair_counts.data(),
                pair_displs.data(), MPI_UINT64_T, 0, world.comm);

    Verdict verdict;
    collectively(world, [&] {
        if (!rank0(world)) return;
        // The scene in id order, and which rank passed each box.
        Boxes scene(static_cast<std::size_t>(n));
        std::vector<int> owner(static_cast<std::size_t>(n), -1);
        std::size_t at = 0;
        for (int r = 0; r < P; ++r)
            for (std::uint64_t j = 0; j < counts[2 * r]; ++j, ++at) {
                const std::uint64_t id = all_ids[at];
                if (id >= n || owner[id] >= 0) throw CliError("--verify: the ranks' ids are not 0..N-1 once each");
                owner[id] = r;
                for (int a = 0; a < 3; ++a) {
                    scene.min(a)[id] = values[6 * at + a];
                    scene.max(a)[id] = values[6 * at + 3 + a];
                }
            }
        broadphase::PairFinder finder;
        broadphase::Options o;
        o.sorted = true;
        o.threads = threads;
        std::vector<broadphase::Pair> reference;
        const broadphase::Report r = finder.find_pairs(scene, reference, o);
        if (!r.ok()) throw CliError(std::string("--verify: the single-process find failed: ") + broadphase::to_string(r.status));
        verdict.reference = reference.size();
        if (delivery == Delivery::to_holders) {
            // Each pair on the rank(s) that passed its boxes, once per rank.
            using Entry = std::pair<int, std::pair<std::uint64_t, std::uint64_t>>;
            std::vector<Entry> want, got;
            want.reserve(2 * reference.size());
            for (const broadphase::Pair& q : reference) {
                want.push_back({owner[q.a], {q.a, q.b}});
                if (owner[q.b] != owner[q.a]) want.push_back({owner[q.b], {q.a, q.b}});
            }
            got.reserve(static_cast<std::size_t>(k));
            std::size_t pi = 0;
            for (int rr = 0; rr < P; ++rr)
                for (std::uint64_t j = 0; j < counts[2 * rr + 1]; ++j, ++pi)
                    got.push_back({rr, {all_pairs[2 * pi], all_pairs[2 * pi + 1]}});
            std::sort(want.begin(), want.end());
            std::sort(got.begin(), got.end());
            compare_sorted(got, want, verdict);
        } else {
            // keep: each pair on one rank; gather: all on rank 0. Either
            // way, every pair exactly once over all ranks.
            std::vector<std::pair<std::uint64_t, std::uint64_t>> want, got;
            want.reserve(reference.size());
            for (const broadphase::Pair& q : reference) want.push_back({q.a, q.b});
            got.reserve(static_cast<std::size_t>(k));
            for (std::uint64_t j = 0; j < k; ++j) got.push_back({all_pairs[2 * j], all_pairs[2 * j + 1]});
            std::sort(got.begin(), got.end());
            compare_sorted(got, want, verdict);
        }
    });
    int ok = verdict.ok ? 1 : 0;
    MPI_Bcast(&ok, 1, MPI_INT, 0, world.comm);
    verdict.ok = ok != 0;
    return verdict;
}

double parse_jitter(const std::string& text) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !std::isfinite(v) || v < 0)
        throw usage_error("option '--jitter' needs a number >= 0, not '" + text + "'");
    return v;
}

}  // namespace

int run_bench(const World& world, const std::vector<std::string>& args) {
    using namespace broadphase_cli;
    const ParsedArgs p = parse_args(args, {{"--algorithm", "-a", true},
                                           {"--frames", "", true},
                                           {"--threads", "", true},
                                           {"--verify", "", false},
                                           {"--json", "", false},
                                           {"--delivery", "", true},
                                           {"--distribute", "", true},
                                           {"--jitter", "", true}});
    if (p.has("--help")) {
        if (world.rank == 0) std::fputs(usage_text(), stdout);
        return 0;
    }
    if (p.positional.size() != 1)
        throw usage_error("bench needs one scene name or box file (see broadphase scenes)");
    const std::string scene = p.positional[0];
    const int frames = static_cast<int>(parse_count("--frames", p.get("--frames", "10"), 1, 1000000));
    const long long threads_arg = parse_count("--threads", p.get("--threads", "0"), 0, 4096);
    const bool verify = p.has("--verify"), json = p.has("--json");
    const std::string algorithm_name = p.get("--algorithm", "automatic");
    const broadphase::Algorithm algorithm = parse_algorithm_option(algorithm_name);
    const std::string delivery_name = p.get("--delivery", "keep");
    Delivery delivery = Delivery::keep;
    if (delivery_name == "keep") delivery = Delivery::keep;
    else if (delivery_name == "to_holders" || delivery_name == "to-holders") delivery = Delivery::to_holders;
    else if (delivery_name == "gather") delivery = Delivery::gather;
    else throw usage_error("--delivery needs keep, to_holders or gather, not '" + delivery_name + "'");
    const std::string distribute_name = p.get("--distribute", "slice");
    Distribution distribution = Distribution::slice;
    if (distribute_name == "slice") distribution = Distribution::slice;
    else if (distribute_name == "random") distribution = Distribution::random;
    else if (distribute_name == "sorted") distribution = Distribution::sorted;
    else throw usage_error("--distribute needs slice, random or sorted, not '" + distribute_name + "'");
    const double jitter = parse_jitter(p.get("--jitter", "0"));

    // The command line is checked: from here on the ranks talk.
    const unsigned threads = threads_arg ? static_cast<unsigned>(threads_arg) : threads_per_rank(world);
    const auto rank = static_cast<std::uint64_t>(world.rank), ranks = static_cast<std::uint64_t>(world.size);

    // This rank's boxes and their ids (indices in the scene).
    Boxes mine;
    std::vector<std::uint64_t> ids;
    {
        Boxes all;
        bool whole = false, in_double = false;
        collectively(world, [&] {
            whole = broadphase_fixtures::make_scene(scene, all);
            if (whole) return;
            if (!has_box_file_extension(scene))
                throw usage_error("unknown scene '" + scene +
                                  "'; see broadphase scenes, or give a box file (.npy, .csv, ...) or a mesh "
                                  "(.off, .ply, .obj, .stl)");
            if (distribution == Distribution::slice) {
                std::uint64_t n = 0;
                LoadedBoxes part = load_box_slice(scene, rank, ranks, &n);
                in_double = part.is_double();
                mine = std::move(part).into<float>();
                ids.resize(mine.size());
                for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = n * rank / ranks + i;
            } else {
                LoadedBoxes loaded = load_boxes(scene);
                in_double = loaded.is_double();
                all = std::move(loaded).into<float>();
                whole = true;
            }
        });
        if (any_rank(world, in_double) && world.rank == 0)
            std::fprintf(stderr,
                         "broadphase-mpi: note: %s holds float64 values; bench times them rounded to float32 "
                         "(broadphase-mpi pairs answers in float64)\n",
                         scene.c_str());
        if (whole) {
            collectively(world, [&] {
                const std::vector<std::uint32_t> order = distribution_order(all, distribution);
                const std::size_t n = all.size(), begin = n * rank / ranks, end = n * (rank + 1) / ranks;
                mine = Boxes(end - begin);
                ids.resize(end - begin);
                for (std::size_t i = begin; i < end; ++i) {
                    const std::uint32_t s = order[i];
                    for (int a = 0; a < 3; ++a) {
                        mine.min(a)[i - begin] = all.min(a)[s];
                        mine.max(a)[i - begin] = all.max(a)[s];
                    }
                    ids[i - begin] = s;
                }
            });
        }
    }

    // The boxes as they are this frame: moved by the jitter from their place in the scene.
    const Boxes base = jitter > 0 ? mine : Boxes();
    auto place = [&](int frame) {
        if (jitter <= 0) return;
        for (int a = 0; a < 3; ++a)
            for (std::size_t i = 0; i < mine.size(); ++i) {
                const double d = jitter * (2 * jitter_unit(static_cast<std::uint64_t>(frame), ids[i], a) - 1);
                mine.min(a)[i] = static_cast<float>(base.min(a)[i] + d);
                mine.max(a)[i] = static_cast<float>(base.max(a)[i] + d);
            }
    };

    broadphase::mpi::DistributedOptions options;
    options.local.algorithm = algorithm;
    options.local.threads = threads;
    options.delivery = delivery;
    broadphase::mpi::DistributedPairFinder finder(world.comm);
    std::vector<IdPair> out;
    std::vector<broadphase::mpi::FrameStats> stats;
    std::vector<double> frame_ms;  // per timed frame, the slowest rank's
    broadphase::mpi::DistributedReport last;
    int repartitions = 0;
    for (int f = 0; f <= frames; ++f) {  // frame 0: the untimed warm-up
        place(f);
        last = finder.find_pairs(mine, ids.data(), out, options);
        if (!last.ok())  // the same status on every rank
            throw AgreedError(std::string("the distributed find failed: ") + broadphase::to_string(last.status));
        if (f == 0) continue;
        stats.push_back(last.stats);
        repartitions += last.stats.repartitioned ? 1 : 0;
        double slowest = 0;
        MPI_Allreduce(&last.stats.ms_total, &slowest, 1, MPI_DOUBLE, MPI_MAX, world.comm);
        frame_ms.push_back(slowest);
    }
    if (last.total_invalid > 0 && world.rank == 0)
        std::fprintf(stderr, "broadphase-mpi: note: %llu invalid boxes (NaN or min > max) take part in no pair\n",
                     static_cast<unsigned long long>(last.total_invalid));

    // This rank's row, gathered on rank 0.
    RankRow row;
    {
        const broadphase::mpi::FrameStats& s = last.stats;
        auto med = [&](double broadphase::mpi::FrameStats::*field) {
            std::vector<double> v;
            for (const auto& x : stats) v.push_back(x.*field);
            return broadphase_cli::median(v);
        };
        row.v[RankRow::boxes] = static_cast<double>(mine.size());
        row.v[RankRow::valid] = static_cast<double>(s.boxes_in);
        row.v[RankRow::ghosts] = static_cast<double>(s.ghosts);
        row.v[RankRow::held] = static_cast<double>(s.boxes_held);
        row.v[RankRow::pairs_found] = static_cast<double>(s.pairs_found);
        row.v[RankRow::pairs_owned] = static_cast<double>(s.pairs_owned);
        row.v[RankRow::pairs_out] = static_cast<double>(last.pairs);
        row.v[RankRow::bytes_sent] = static_cast<double>(s.bytes_sent);
        row.v[RankRow::bytes_received] = static_cast<double>(s.bytes_received);
        row.v[RankRow::ms_partition] = med(&broadphase::mpi::FrameStats::ms_partition);
        row.v[RankRow::ms_exchange] = med(&broadphase::mpi::FrameStats::ms_exchange);
        row.v[RankRow::ms_find] = med(&broadphase::mpi::FrameStats::ms_find);
        row.v[RankRow::ms_delivery] = med(&broadphase::mpi::FrameStats::ms_delivery);
        row.v[RankRow::ms_total] = med(&broadphase::mpi::FrameStats::ms_total);
    }
    std::vector<RankRow> rows(rank0(world) ? static_cast<std::size_t>(world.size) : 0);
    MPI_Gather(row.v, RankRow::count, MPI_DOUBLE, rows.data(), RankRow::count, MPI_DOUBLE, 0, world.comm);

    const unsigned verify_threads = threads_arg ? threads : broadphase::default_threads();
    Verdict verdict;
    if (verify) verdict = verify_frame(world, mine, ids, out, delivery, verify_threads);

    if (world.rank == 0) {
        const broadphase::mpi::FrameStats& s = last.stats;
        double n = 0;
        for (const RankRow& r : rows) n += r.v[RankRow::boxes];
        const double median_ms = broadphase_cli::median(frame_ms);
        const double min_ms = *std::min_element(frame_ms.begin(), frame_ms.end());
        const double imbalance = s.mean_held > 0 ? static_cast<double>(s.max_held) / s.mean_held : 0;
        if (json) {
            std::string o = "{\"scene\":" + json_string(scene) + ",\"n\":" + number(n, true) +
                            ",\"ranks\":" + std::to_string(world.size) + ",\"frames\":" + std::to_string(frames) +
                            ",\"warmup\":1,\"threads\":" + std::to_string(threads) + ",\"algorithm\":\"" +
                            broadphase::to_string(algorithm) + "\",\"delivery\":\"" + broadphase::mpi::to_string(delivery) +
                            "\",\"distribute\":\"" + to_string(distribution) + "\",\"jitter\":" + number(jitter, false) +
                            ",\"total_boxes\":" + number(static_cast<double>(s.total_boxes), true) +
                            ",\"invalid\":" + number(static_cast<double>(last.total_invalid), true) +
                            ",\"total_pairs\":" + number(static_cast<double>(last.total_pairs), true) +
                            ",\"ghost_fraction\":" + number(s.ghost_fraction(), false) +
                            ",\"max_held\":" + number(static_cast<double>(s.max_held), true) +
                            ",\"mean_held\":" + number(s.mean_held, false) + ",\"imbalance\":" + number(imbalance, false) +
                            ",\"repartitions\":" + std::to_string(repartitions) +
                            ",\"median_ms\":" + number(median_ms, false) + ",\"min_ms\":" + number(min_ms, false) +
                            ",\"per_rank\":{";
            for (int f = 0; f < RankRow::count; ++f) {
                const bool integer = f < RankRow::ms_partition;
                o += std::string(f ? "," : "") + "\"" + field_names[f] + "\":[";
                for (std::size_t r = 0; r < rows.size(); ++r) o += (r ? "," : "") + number(rows[r].v[f], integer);
                o += "]";
            }
            o += "},\"verified\":" + std::string(!verify ? "null" : verdict.ok ? "true" : "false");
            if (verify)
                o += ",\"reference_pairs\":" + std::to_string(verdict.reference) +
                     ",\"missing\":" + std::to_string(verdict.missing) + ",\"extra\":" + std::to_string(verdict.extra);
            o += "}\n";
            std::fputs(o.c_str(), stdout);
        } else {
            std::printf("scene %s: %.0f boxes on %d rank%s (%s), delivery %s, algorithm %s, %u thread%s per rank, "
                        "%d timed frame%s after 1 warm-up%s\n",
                        scene.c_str(), n, world.size, world.size == 1 ? "" : "s", to_string(distribution),
                        broadphase::mpi::to_string(delivery), broadphase::to_string(algorithm), threads,
                        threads == 1 ? "" : "s", frames, frames == 1 ? "" : "s",
                        jitter > 0 ? (", jitter " + number(jitter, false)).c_str() : "");
            std::printf("%4s %10s %9s %10s %10s %10s %12s %12s %9s %9s %9s %9s %9s\n", "rank", "boxes", "ghosts",
                        "held", "owned", "out", "sent B", "received B", "part ms", "exch ms", "find ms", "deliv ms",
                        "total ms");
            for (std::size_t r = 0; r < rows.size(); ++r) {
                const double* v = rows[r].v;
                std::printf("%4zu %10.0f %9.0f %10.0f %10.0f %10.0f %12.0f %12.0f %9.3f %9.3f %9.3f %9.3f %9.3f\n", r,
                            v[RankRow::boxes], v[RankRow::ghosts], v[RankRow::held], v[RankRow::pairs_owned],
                            v[RankRow::pairs_out], v[RankRow::bytes_sent], v[RankRow::bytes_received],
                            v[RankRow::ms_partition], v[RankRow::ms_exchange], v[RankRow::ms_find],
                            v[RankRow::ms_delivery], v[RankRow::ms_total]);
            }
            std::printf("ranks %d, boxes %llu (+%llu invalid), pairs %llu, ghost fraction %.4f, held max %llu / "
                        "mean %.1f (imbalance %.3f), repartitions %d\n",
                        world.size, static_cast<unsigned long long>(s.total_boxes),
                        static_cast<unsigned long long>(last.total_invalid),
                        static_cast<unsigned long long>(last.total_pairs), s.ghost_fraction(),
                        static_cast<unsigned long long>(s.max_held), s.mean_held, imbalance, repartitions);
            std::printf("frame %.3f ms median, %.3f ms min (the slowest rank's, over %d frames)\n", median_ms, min_ms,
                        frames);
            if (verify) {
                if (verdict.ok)
                    std::printf("verify: OK (%llu pairs, as broadphase::find_pairs in one process)\n",
                                static_cast<unsigned long long>(verdict.reference));
                else
                    std::printf("verify: MISMATCH (%llu pairs expected: %llu missing, %llu extra)\n",
                                static_cast<unsigned long long>(verdict.reference),
                                static_cast<unsigned long long>(verdict.missing),
                                static_cast<unsigned long long>(verdict.extra));
            }
        }
        std::fflush(stdout);
    }
    return verify && !verdict.ok ? CliError::failure : 0;
}

}  // namespace broadphase_mpi_cli
