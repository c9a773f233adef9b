// Timed frames (build + find) of our algorithms on one set of boxes, and the
// table and JSON lines they print: `broadphase bench SCENE|FILE`, and
// `broadphase-lab bench SCENE --algorithm all` (the lab), which times
// other libraries' broad phases after ours and prints them in the same rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <broadphase/broadphase.hpp>

#include "args.hpp"

namespace broadphase_cli {

/// Timed frames stop once they add up to this much (at least one frame runs).
constexpr double time_budget_ms = 2000.0;
/// --algorithm all runs brute force only up to this many boxes.
constexpr std::size_t brute_force_limit = 50000;

/// The bench's settings, shared by every row.
struct FrameBench {
    std::string program = "broadphase";  ///< names the notes on stderr
    std::string scene;                    ///< as given: a scene's name or a file
    int frames = 20;                      ///< --frames: timed frames at most
    long long threads = 1;                ///< --threads, 0 already resolved
    bool verify = false;                  ///< --verify: each row against brute force
    bool json = false;                    ///< --json: a JSON object a row
};

/// One row: an algorithm of ours, or (`label` set) another broad phase.
struct FrameResult {
    std::string label;  ///< another broad phase's name; "" for one of ours
    broadphase::Algorithm algorithm = broadphase::Algorithm::automatic;
    broadphase::Algorithm chosen = broadphase::Algorithm::automatic;  ///< what `automatic` resolved to
    std::uint64_t pairs = 0;
    double median_ms = 0, min_ms = 0;
    int frames = 0;
    int verified = -1;          ///< -1 not checked, 0 differs from brute force, 1 equal
    std::string verified_text;  ///< the table's word for verified == 0 when not "NO"
    std::string json_fields;    ///< more JSON fields, each with its leading comma
    long long threads = -1;     ///< the threads it ran on when not the bench's (-1)
};

/// Throws CliError "ALGORITHM failed: STATUS" unless r is ok.
void check(const broadphase::Report& r, broadphase::Algorithm a);

/// bench's boxes: the built-in scene `scene` names, else the box file or
/// mesh (`--format`, `--array` from p), held in float32 (a float64 file is
/// rounded, with a note on stderr saying so). Throws a usage error for an
/// unknown name that is no file, CliError for a bad file.
broadphase::Boxes load_bench_boxes(const std::string& scene, const ParsedArgs& p, const std::string& program);

/// Notes on stderr how many of `boxes` are invalid (NaN or min > max), if any.
void note_invalid_boxes(const broadphase::Boxes& boxes, const std::string& program);

/// --frames (default `fallback`), --threads (0: all hardware threads,
/// resolved), --verify and --json of p, for `program`'s notes.
FrameBench frame_settings(const ParsedArgs& p, const std::string& scene, const std::string& program,
                          const char* fallback_frames);

/// What --algorithm `name` runs of ours on n boxes: "all" and "ours" every
/// algorithm (brute force only up to brute_force_limit boxes, with a note),
/// then automatic; otherwise the one named (a usage error for no algorithm).
std::vector<broadphase::Algorithm> frame_algorithms(const std::string& name, std::size_t n,
                                                    const std::string& program);

/// Sorted pairs of brute force on `threads` threads (the oracle of --verify),
/// with a note when n is past brute_force_limit.
std::vector<broadphase::Pair> brute_force_pairs(const broadphase::Boxes& boxes, long long threads,
                                                const std::string& program);

/// One untimed warm-up frame, then up to `frames` timed ones on `finder`
/// (stopping once they pass time_budget_ms). Leaves the last frame's pairs
/// in `out`.
FrameResult time_frames(broadphase::PairFinder& finder, const broadphase::Boxes& boxes,
                        broadphase::Algorithm algorithm, int frames, unsigned threads,
                        std::vector<broadphase::Pair>& out);

/// The table's title and column header (nothing with --json).
void print_frame_header(const FrameBench& bench, std::size_t n);

/// The table's column header alone.
void print_frame_columns();

/// One row: a table line, or with --json one JSON object on a line.
void print_frame_result(const FrameResult& r, const FrameBench& bench, std::size_t n);

/// Times each of `algorithms` on one kept finder, header and rows printed;
/// with --verify the oracle (sorted) is left in `reference`, each row
/// compared with it. `out` holds the last frame's pairs.
void run_frame_bench(const broadphase::Boxes& boxes, const std::vector<broadphase::Algorithm>& algorithms,
                     const FrameBench& bench, std::vector<broadphase::Pair>& reference,
                     std::vector<broadphase::Pair>& out);

}  // namespace broadphase_cli
