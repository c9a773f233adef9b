// Every pair among the boxes of all MPI ranks: mpirun -n 2 ./broadphase_docs_distributed
#include <broadphase/mpi/distributed.hpp>   // target_link_libraries(app PRIVATE broadphase::mpi)
#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    bool right = false;
    {
        // 1,000 unit boxes along x, each touching the next (999 pairs), dealt out to the ranks in turn:
        // box i (global id i) is on rank i % ranks.
        broadphase::Boxes my_boxes;
        std::vector<std::uint64_t> my_ids;
        for (int i = rank; i < 1000; i += ranks) {
            my_boxes.push_back(broadphase::Box{{float(i), 0, 0}, {float(i + 1), 1, 1}});
            my_ids.push_back(std::uint64_t(i));
        }
        broadphase::mpi::DistributedPairFinder finder(MPI_COMM_WORLD);   // keep it between frames
        std::vector<broadphase::mpi::IdPair> pairs;                       // {a, b}: global ids, a < b
        broadphase::mpi::DistributedOptions options;
        options.delivery = broadphase::mpi::Delivery::to_holders;         // or keep (default), gather
        options.local.threads = 1;                                        // threads per rank
        // Every rank must make the call (it is collective).
        broadphase::mpi::DistributedReport r = finder.find_pairs(my_boxes, my_ids.data(), pairs, options);
        bool mine = r.ok();
        for (const auto& p : pairs)   // to_holders: every pair this rank holds a box of
            mine = mine && p.b == p.a + 1 && (p.a % unsigned(ranks) == unsigned(rank) || p.b % unsigned(ranks) == unsigned(rank));
        right = mine && r.total_pairs == 999;
        std::printf("rank %d of %d: %zu boxes, %zu pairs delivered, %llu in all\n", rank, ranks, my_boxes.size(),
                    pairs.size(), static_cast<unsigned long long>(r.total_pairs));
    }
    int all_right = 0, me = right ? 1 : 0;
    MPI_Allreduce(&me, &all_right, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Finalize();
    return all_right ? 0 : 1;
}
