#include "commands.hpp"

#include <broadphase/version.hpp>

namespace broadphase_cli {

const char* usage_text() {
    return R"(broadphase: every overlapping pair among axis-aligned boxes

Usage:
  broadphase pairs A [B] -o PAIRS [--format F] [--array NAME] [--algorithm NAME] [--sorted] [--threads T]
  broadphase query BOXES QUERIES -o PAIRS [--format F] [--array NAME] [--algorithm NAME] [--sorted] [--threads T]
  broadphase bench SCENE|FILE [--algorithm NAME|all|ours] [--frames K] [--threads T] [--verify] [--json]
  broadphase bench SCENE|FILE --save-boxes FILE
  broadphase bench SCENE|FILE --queries [--algorithm NAME|all] [--frames K] [--threads T] [--verify] [--json]
  broadphase bench SCENE|FILE --device cuda [--frames K] [--sorted] [--verify] [--json]
  broadphase scenes
  broadphase demo [--particles N] [--steps S] [--model dem|elastic] [--broad-phase neighbor_list|spheres|boxes]
                  [--skin S] [--periodic] [--out DIR] [--threads T] [--export xyz|vtu|xyz,vtu]
  broadphase --help | --version

pairs   With one file, every overlapping pair (i, j), i < j, within it; with
        two, every pair (index in A, index in B) between them. Written to
        PAIRS, replaced only once everything has succeeded. A and B are box
        files (see Box files below), "-" for stdin (one of them at most).
          -o, --output FILE     where the pairs go (.npy, .csv or .txt), or
                                "-" for stdout (the summary line then goes
                                to stderr)
          --format F            npy, npz, csv, txt, off, ply, obj or stl:
                                the format of "-" and of files with no
                                known extension (a known extension decides)
          --output-format F     the same for the output alone
          --array NAME          the array of a .npz input (FILE.npz:NAME
                                names it too; default: the first)
          -a, --algorithm NAME  automatic (default), brute_force,
                                sweep_and_prune, uniform_grid, hybrid_grid,
                                adaptive_grid, cluster_pairs
          --sorted              sort the pairs by (i, j); otherwise the order
                                is unspecified but the same on every run
                                and for every thread count
          --threads T           threads to use; 0 (default) = all hardware
                                threads (OMP_NUM_THREADS applies)
query   Builds an index (broadphase::Index) over the boxes of BOXES and
        queries every box of QUERIES against it in one batch: every pair
        (index in QUERIES, index in BOXES) of overlapping boxes, written to
        PAIRS as pairs writes its pairs. The same files and options as
        pairs; --algorithm names the index's algorithm (automatic: brute
        force under 64 boxes, else the uniform grid; adaptive_grid answers
        large batches fastest). An invalid query box overlaps nothing.
bench   Times full frames (build + find) on one kept finder: one untimed
        warm-up frame, then K frames (stopping early after 2 s, at least 1).
        Prints the median and minimum milliseconds per frame and the pairs.
        Boxes are timed in float32: a float64 FILE (or a .csv of values not
        all float32) is rounded to the nearest float32 first, which may change
        its pairs (see Precision below; pairs gives exact answers).
          -a, --algorithm NAME  one algorithm, or "all" (or "ours"): every
                                algorithm (brute_force only up to 50,000
                                boxes), then automatic
          --frames K            timed frames per algorithm (default 20)
          --threads T           threads per frame; 0 (default) = all hardware
                                threads. Reported as the count used
          --verify              compare the sorted pairs with brute force's
          --json                one JSON object per line per algorithm
          --save-boxes FILE     write the scene's boxes to FILE (.npy, (N, 6)
                                float32; .csv or .txt, exact decimals; "-":
                                stdout, with --format) and time nothing
          --format F, --array NAME  as for pairs: FILE may be "-" (stdin)
        With --queries, times an Index instead: built over the boxes, then
        each box queried against it, one for_each_overlap call per box.
          build ms      median of up to K rebuilds after an untimed build
          p50/p90/p99   per-query nanoseconds, hits included: every query
                        timed on its own with steady_clock, minus the clock
                        overhead (median of back-to-back now() pairs, about
                        20 ns; the clock may tick in ~10 ns steps), pooled
                        over up to K passes over every box (default K 5,
                        stopping after 1 s, at least 1), nearest rank
          mean ns       a pass timed whole, with no per-query clock, / boxes
          batch ns/box  a query_batch of every box / boxes, median of up to
                        K after an untimed one
          hits          hits of one pass, each box hitting itself included
        "all" here is every algorithm the library knows (brute_force only up
        to 50,000 boxes), then automatic; --verify checks every query's hits,
        and the batch's, against brute force. JSON fields: scene, n, algorithm,
        chosen, build_ms, query_p50_ns, query_p90_ns, query_p99_ns,
        query_mean_ns, query_hits, batch_ns_per_query, clock_overhead_ns,
        passes, verified, threads.
        With --device cuda (builds with the CUDA backend, on a
        machine with a CUDA device), times the GPU instead (--device
        cpu, the default, is everything above): the boxes are uploaded once, then each frame
        runs from boxes on the device to pairs compacted there; the
        upload and the pairs' copy to the host are timed apart.
          --sorted              sort the pairs by (i, j) on the device
          --verify              against brute force up to 50,000 boxes,
                                beyond that the CPU's automatic choice
        JSON fields as above plus device, upload_ms, transfer_ms, entries,
        levels, key_bits, cell_size, device_mb, sorted, oracle.
        Other libraries' broad phases timed beside ours, the Scene's motion
        benchmarks, move-file replays and the particle simulation timed
        are in broadphase-lab, the benchmark lab built beside broadphase
        and not installed: broadphase-lab --help.
scenes  Lists the built-in scenes: names, box counts, descriptions.
demo    The main job: the five challenges of the article "Simple Fast
        Adaptive Grid to Accelerate Collision Detection between AABB of
        Particles" (CodeProject, 2022), each answer checked against brute
        force, in a table beside the article's figures; then the particle
        simulation: spheres falling into a pile, rendered to PNG frames, an
        animation (ffmpeg, when installed) and a plot, in one folder.
          -n, --particles N     spheres (default 100000)
          --steps S             simulation steps (default: 3 s simulated)
          --seconds T           simulated seconds when --steps is not given
          --model dem|elastic   spring-dashpot contacts (default) or elastic
                                collisions with momentum exchange
          --broad-phase neighbor_list|spheres|boxes  a neighbour list with
                                a skin, rebuilt only when a sphere moved
                                half the skin (default); the sphere grid
                                every step; or the box broad phase on the
                                spheres' bounding boxes every step
          --skin S              the neighbour list's skin (default: the
                                smallest radius, 0.5); 0 rebuilds every
                                step
          --periodic            periodic side walls: x and z wrap around
                                (minimum image contacts, the periodic
                                broad phase); floor and ceiling stay
          -o, --out DIR         where the pictures go (default particles-out)
          --threads T           threads for the all-thread challenges and
                                the simulation's broad phase; 0 (default) = all
          --size WxH            frame size (default 960x540)
          --export xyz|vtu|xyz,vtu  also write the particles at every frame,
                                into DIR: particles.xyz (extended XYZ, all
                                frames: OVITO, ASE), particles_NNNN.vtu
                                and particles.pvd (VTK XML: ParaView opens
                                the .pvd as a time series)
          --no-challenges, --no-simulation, --no-animation
        broadphase-lab times the simulation's steps (broadphase-lab --help).

Box files: .npy with shape (N, 6), dtype float32 '<f4' or float64 '<f8',
  C order; .npz (np.savez, np.savez_compressed) holding such arrays, read
  as FILE.npz:NAME or with --array NAME, else its first array; .csv with six
  numbers per line; or .txt/.dat, six numbers per line separated by spaces
  or tabs, as np.savetxt writes them ('#' starts a comment). Columns: minx
  miny minz maxx maxy maxz. In a .csv, fields are separated by commas with
  optional spaces; in both text formats blank lines are ignored, and a first
  line of six fields with no number among them is a header and skipped.
  "-" reads stdin (or writes stdout) in the format --format names.
Meshes (input only): .off, .ply (ascii or binary), .obj, .stl (ascii or
  binary): box i is the bounding box of face i's vertices, in the file's
  face order, in float32 (faces of 3 or more vertices). A NaN coordinate
  makes its faces' boxes invalid; a malformed mesh (truncated, counts that
  do not match, an index out of range, a face of fewer than 3 vertices) is
  an error naming the line or byte, the face and the vertex.
Precision: pairs is exact in the input's precision. float32 files are
  searched in float32, float64 files in float64 (never rounded to float32),
  and two files of different precision both in float64. A .csv value is read
  as the float64 nearest its text; a .csv is searched in float64 unless
  every value in it is exactly a float32 (then float32: the same answer).
  bench times float32: it rounds a float64 file to the nearest float32 (a
  note says so), so its pairs may differ from those of pairs.
Pair files: .npy with shape (K, 2), dtype uint32 '<u4'; .csv with one
  "i,j" line per pair and no header; or .txt with one "i j" line per pair
  (np.loadtxt reads it back).
Boxes touching on a face, edge or corner overlap. Invalid boxes (NaN, or
  min > max on some axis) take part in no pair; a note on stderr counts them.
Exit status: 0 success, 1 bad input or failure, 2 bad command line. Every
  error is one line on stderr.
)";
}

std::string version_text() { return std::string("broadphase ") + BROADPHASE_VERSION_STRING; }

}  // namespace broadphase_cli
