// How broadphase-mpi fails without hanging: every rank runs the same steps,
// and a step that may fail on one rank only (reading its part of a file,
// writing the output on rank 0) runs inside collectively(), after which all
// ranks know whether any failed and all throw the same error: the message
// and exit status of the lowest failing rank. main() prints it once (rank
// 0) and every rank leaves through MPI_Finalize with that status.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include <broadphase/broadphase.hpp>
#include <broadphase/mpi/distributed.hpp>  // <mpi.h>, its C API only

#include "errors.hpp"

namespace broadphase_mpi_cli {

using broadphase_cli::CliError;

/// An error every rank of the communicator throws together.
class AgreedError : public CliError {
public:
    using CliError::CliError;
};

/// Set once a command starts talking to the other ranks: a plain CliError
/// after that point was thrown on one rank only, and main() aborts the job
/// rather than leave the others waiting.
inline bool& communicating() {
    static bool flag = false;
    return flag;
}

/// The communicator the commands run on, with this rank's place in it.
struct World {
    MPI_Comm comm = MPI_COMM_WORLD;
    int rank = 0;
    int size = 1;
};

inline bool rank0(const World& w) { return w.rank == 0; }

/// Every rank learns whether any rank failed (code != 0); if so, all throw
/// AgreedError with the lowest failing rank's message and code. Collective.
inline void agree(const World& w, int code, const std::string& message) {
    communicating() = true;
    const int mine = code != 0 ? w.rank : w.size;
    int first = w.size;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, w.comm);
    if (first == w.size) return;
    int head[2] = {code, static_cast<int>(message.size())};
    MPI_Bcast(head, 2, MPI_INT, first, w.comm);
    std::string text = w.rank == first ? message : std::string(static_cast<std::size_t>(head[1]), '\0');
    MPI_Bcast(&text[0], head[1], MPI_CHAR, first, w.comm);
    throw AgreedError(text, head[0]);
}

/// Runs fn() on this rank, then agree()s on its outcome: returns on every
/// rank when it succeeded everywhere, throws the same AgreedError on every
/// rank otherwise. fn must not communicate. Collective.
template <class F>
void collectively(const World& w, F&& fn) {
    int code = 0;
    std::string message;
    try {
        fn();
    } catch (const CliError& e) {
        code = e.exit_code();
        message = e.what();
    } catch (const std::bad_alloc&) {
        code = CliError::failure;
        message = "out of memory";
    } catch (const std::exception& e) {
        code = CliError::failure;
        message = std::string("error: ") + e.what();
    }
    agree(w, code, message);
}

/// True when any rank passes true. Collective.
inline bool any_rank(const World& w, bool mine) {
    int in = mine ? 1 : 0, out = 0;
    MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, w.comm);
    return out != 0;
}

/// The sum over ranks. Collective.
inline std::uint64_t sum_over_ranks(const World& w, std::uint64_t mine) {
    std::uint64_t out = 0;
    MPI_Allreduce(&mine, &out, 1, MPI_UINT64_T, MPI_SUM, w.comm);
    return out;
}

/// Threads per rank for a request of 0: BROADPHASE_NUM_THREADS or
/// OMP_NUM_THREADS when set (as in the single-process tool), else this
/// node's hardware threads shared among the ranks on the node (at least 1),
/// so that P ranks on one machine do not oversubscribe it P times.
/// Collective (the ranks of a node find each other).
inline unsigned threads_per_rank(const World& w) {
    communicating() = true;
    MPI_Comm node;
    MPI_Comm_split_type(w.comm, MPI_COMM_TYPE_SHARED, w.rank, MPI_INFO_NULL, &node);
    int on_node = 1;
    MPI_Comm_size(node, &on_node);
    MPI_Comm_free(&node);
    const char* env1 = std::getenv("BROADPHASE_NUM_THREADS");
    const char* env2 = std::getenv("OMP_NUM_THREADS");
    if ((env1 && *env1) || (env2 && *env2)) return broadphase::default_threads();
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    return std::max(1u, hw / static_cast<unsigned>(std::max(on_node, 1)));
}

}  // namespace broadphase_mpi_cli
