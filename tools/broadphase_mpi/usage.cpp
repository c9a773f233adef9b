#include "mpi_commands.hpp"

#include <broadphase/version.hpp>

namespace broadphase_mpi_cli {

const char* usage_text() {
    return R"(broadphase-mpi: every overlapping pair among axis-aligned boxes, over MPI ranks

Usage (under mpirun; every rank runs the same command line, rank 0 prints):
  mpirun -n P broadphase-mpi pairs A.npy|A.csv [B.npy|B.csv] -o PAIRS.npy|PAIRS.csv [--algorithm NAME] [--sorted] [--threads T]
  mpirun -n P broadphase-mpi bench SCENE|FILE [--frames K] [--delivery keep|to_holders|gather]
                             [--distribute slice|random|sorted] [--jitter A] [--algorithm NAME]
                             [--threads T] [--verify] [--json]
  broadphase-mpi --help | --version

pairs   What `broadphase pairs` does, with the work spread over the ranks:
        rank r of P reads rows [N*r/P, N*(r+1)/P) of each file (a .npy: only
        those rows' bytes, after checking the header and the file's size;
        a .csv or a mesh (.off, .ply, .obj, .stl: its faces' boxes): the
        whole file, then its share), the boxes cross to the
        ranks whose regions they overlap, each rank finds its pairs, and
        rank 0 gathers them and writes PAIRS once. Pairs are row indices of
        the files, as from `broadphase pairs`; with --sorted the file is
        byte for byte the one `broadphase pairs --sorted` writes. Same
        files, precision rules, notes and error messages as `broadphase
        pairs` (see broadphase --help); a bad file fails on every rank with
        the same message and exit status.
          -o, --output FILE     where the pairs go (.npy or .csv)
          -a, --algorithm NAME  each rank's local algorithm: automatic
                                (default), brute_force, sweep_and_prune,
                                uniform_grid, hybrid_grid, adaptive_grid,
                                cluster_pairs
          --sorted              sort the pairs by (i, j); otherwise they come
                                in rank order, the same on every run for a
                                given P
          --threads T           threads per rank; 0 (default) = this node's
                                hardware threads / the ranks on the node
                                (BROADPHASE_NUM_THREADS or OMP_NUM_THREADS,
                                when set, instead)
bench   Times the distributed find: every rank builds the whole scene (the
        scenes are deterministic; see broadphase scenes) or reads the FILE
        (rounded to float32, as `broadphase bench` does), keeps its share,
        and runs one untimed warm-up frame then K timed frames on one kept
        DistributedPairFinder (the partition is reused while balanced).
        Prints, for each rank, the boxes it passed, the ghosts and boxes it
        held, the pairs it owned and ended with, the bytes it sent and
        received (last frame), and the median milliseconds per frame of
        partition, exchange, local find, delivery and the whole call; then
        the totals: pairs, ghost fraction (ghost copies per box), largest
        and mean boxes held, and the frame's median time (slowest rank).
          --frames K            timed frames (default 10)
          --delivery D          keep (default): pairs stay on the rank that
                                owns them; to_holders: on each rank that
                                passed one of the two boxes; gather: all on
                                rank 0
          --distribute D        which boxes each rank passes: slice (default;
                                rows [N*r/P, N*(r+1)/P) of the scene or file,
                                a .npy read in part), random (a fixed
                                pseudo-random permutation, then slices), or
                                sorted (sorted by box centre x, then slices:
                                each rank starts with a slab of space)
          --jitter A            before each frame, move every box by a
                                pseudo-random offset in [-A, A] per axis from
                                its place in the scene (default 0: still)
          -a, --algorithm NAME  each rank's local algorithm (default automatic)
          --threads T           threads per rank, as for pairs
          --verify              after the timed frames, rank 0 gathers the
                                last frame's boxes and pairs and compares the
                                pairs with broadphase::find_pairs on all the
                                boxes in one process: keep and gather must
                                give each pair exactly once, to_holders each
                                pair on exactly the ranks that passed its
                                boxes. Prints OK or MISMATCH; exit 1 on
                                MISMATCH
          --json                one JSON object (from rank 0) instead of the
                                table: the settings, the totals, "per_rank"
                                arrays (one entry per rank) and "verified"

Exit status: 0 success, 1 bad input or failure (or a --verify mismatch),
  2 bad command line, the same on every rank. mpirun adds its own lines to
  stderr when a rank exits non-zero.
)";
}

std::string version_text() { return std::string("broadphase-mpi ") + BROADPHASE_VERSION_STRING; }

}  // namespace broadphase_mpi_cli
