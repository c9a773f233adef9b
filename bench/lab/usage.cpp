// broadphase-lab --help.
#include <string>

#include <broadphase/version.hpp>

#include "lab.hpp"

namespace broadphase_cli {

const char* lab_usage_text() {
    return R"(broadphase-lab: broadphase's benchmark lab (bench/lab/, not installed)

Usage:
  broadphase-lab bench SCENE|FILE [--algorithm all|ours|NAME|PEER] [--frames K] [--threads T] [--verify] [--json]
  broadphase-lab bench SEQUENCE [--mode M[,M...]|all] [--frames K] [--threads T] [--verify] [--json] [--save-moves FILE]
  broadphase-lab bench jolt-moves:FILE [--mode M[,M...]|all] [--threads T] [--verify] [--json]
  broadphase-lab bench particles:N[:dem|:elastic][:BROAD[:OTHER]] [--frames K] [--threads T] [--json]
  broadphase-lab scenes
  broadphase-lab --help | --version

What users run (pairs, query, bench with our algorithms, --queries,
--device cuda, --save-boxes, demo) is the CLI's: broadphase --help. The
lab measures us against other libraries and the Scene frame by frame; its
scenes, box files and table are broadphase bench's.

bench   With a built-in scene or a box file, times our algorithms' frames
        as broadphase bench does (the same table and JSON fields), then
        other libraries' broad phases as one-shot peers: each builds its
        structure from nothing and finds every pair, on one thread (CGAL,
        FCL, Bullet's btDbvtBroadphase, those found at build time; see
        docs/peers.md).
          -a, --algorithm NAME  "all" (default): every algorithm of ours
                                (brute_force only up to 50,000 boxes), then
                                automatic, then the peers; "ours": the same
                                without the peers; one of ours; or one
                                peer: cgal, fcl, bullet-dbvt
          --frames K            timed frames per algorithm (default 20)
          --threads T           threads per frame of ours; 0 (default) =
                                all hardware threads
          --verify              compare the sorted pairs with brute force's
                                (a peer: equal, superset or differs)
          --json                one JSON object per line per algorithm (a
                                peer's adds peer, and with --verify relation,
                                missing, extra)
          --format F, --array NAME  as for broadphase pairs
        With a motion sequence (fall:N, brownian:N:F, static-world:N:F,
        game:N:F; see broadphase-lab scenes), runs it frame by frame
        through each mode, all modes in lockstep on the same moves: 3 untimed warm-up frames, then
        K timed ones (default 30). A frame's time is "apply the moves + find
        the pairs": for a Scene, one move batch + update(), which also gives
        the begin/end events; for Bullet, setAabb per move +
        calculateOverlappingPairs.
          --mode M,M            Scene update modes: multi_box_pruning,
                                rebuild, grid, enlarged ('-' for '_' also
                                works), automatic,
                                fat-pairs (automatic with fat-box pairs: a
                                superset, checked like Bullet's); with
                                Bullet built in: bullet-dbvt, bullet-sap
                                (Bullet's pair cache: fat pairs, a superset,
                                not exact). "all": every mode (bullet-sap
                                only up to 30,000 objects: its setup is
                                O(N^2)). Default multi_box_pruning,rebuild
          --verify              every frame, against brute force up to 20,000
                                objects, beyond that the automatic one-shot
                                algorithm (static-static pairs left out):
                                pairs() == now, begun == now - before,
                                ended == before - now; Bullet: holds every
                                exact pair (covers_exact)
        JSON fields: scene, kind, n, fraction, objects, static, mode, exact,
        frames, warmup, median_ms, min_ms, mean_ms, setup_ms, pairs, begun,
        ended, moved (means per timed frame), verified, covers_exact, oracle,
        threads.
          --save-moves FILE     also write every frame's moves (warm-up
                                included) as a move file, with the pairs
                                with a moved body the first exact Scene
                                mode found (sequences without static
                                objects: brownian, game); replay it with
                                jolt-moves:FILE, or through the Jolt peer
        With jolt-moves:FILE (a move file from jolt_incremental --moves, the
        Jolt peer: docs/scene.md), replays each fraction's frames through a
        Scene per mode (default automatic; all: every exact mode and
        queries), from the file's boxes, one thread unless --threads:
        median and min ms per frame (one move batch + update()); --verify
        compares every frame's pairs with a moved body with the peer's
        count (and slows the frames: time without it). --mode queries: the
        floor, the moved boxes queried as a batch against an Index of every
        box built before the frame (untimed): no pair set, no events. JSON
        fields: file, bodies, fraction, moved, mode, frames, median_ms,
        min_ms, moved_pairs, peer_pairs, verified, threads (queries: hits,
        its pairs with a moved body, movers' pairs counted from both sides).
        With particles:N[:dem|:elastic][:BROAD[:OTHER]], times the simulation's
        steps (from the falling cloud; --frames K steps, default 100): steps
        per second and the broad phase's share, with BROAD (neighbor_list,
        the default, spheres or boxes); OTHER (default: spheres, or
        neighbor_list when BROAD is spheres) is timed on the same states.
scenes  Lists the motion sequences and the other names bench takes here
        (the box scenes: broadphase scenes).

Exit status: 0 success, 1 bad input or failure, 2 bad command line. Every
  error is one line on stderr.
)";
}

std::string lab_version_text() { return std::string("broadphase-lab ") + BROADPHASE_VERSION_STRING; }

}  // namespace broadphase_cli
