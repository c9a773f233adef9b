// broadphase-mpi: the distributed broad phase (broadphase::mpi) from the
// command line, run under mpirun. Every rank parses the same command line
// and takes part in every step; rank 0 prints. A failure is one line on
// stderr (from rank 0) and the same non-zero exit status on every rank;
// a failure that only one rank could see and the others could not be told
// of (a bug, memory running out inside the distributed find) aborts the
// job with MPI_Abort instead of leaving it hanging.
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "collective.hpp"
#include "mpi_commands.hpp"

namespace {

using namespace broadphase_mpi_cli;

int run(const World& world, const std::vector<std::string>& args) {
    if (args.empty()) {
        if (world.rank == 0) std::fputs(usage_text(), stderr);
        return CliError::usage;
    }
    const std::string& command = args[0];
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (command == "--help" || command == "-h" || command == "help") {
        if (world.rank == 0) std::fputs(usage_text(), stdout);
        return 0;
    }
    if (command == "--version") {
        if (world.rank == 0) std::printf("%s\n", version_text().c_str());
        return 0;
    }
    if (command == "pairs") return run_pairs(world, rest);
    if (command == "bench") return run_bench(world, rest);
    if (!command.empty() && command[0] == '-')
        throw broadphase_cli::usage_error("unknown option '" + command + "' (see broadphase-mpi --help)");
    throw broadphase_cli::usage_error("unknown command '" + command + "' (see broadphase-mpi --help)");
}

/// A failure seen by this rank alone, after the ranks started talking: the
/// others cannot be told, so the whole job stops.
[[noreturn]] void abort_job(const World& world, const std::string& message, int status) {
    std::fflush(stdout);
    std::fprintf(stderr, "broadphase-mpi: rank %d: %s\n", world.rank, message.c_str());
    std::fflush(stderr);
    MPI_Abort(world.comm, status);
    std::_Exit(status);
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    World world;
    MPI_Comm_rank(world.comm, &world.rank);
    MPI_Comm_size(world.comm, &world.size);
    int status = 0;
    try {
        status = run(world, std::vector<std::string>(argv + 1, argv + argc));
    } catch (const AgreedError& e) {  // every rank threw it
        status = e.exit_code();
        std::fflush(stdout);
        if (world.rank == 0) std::fprintf(stderr, "broadphase-mpi: %s\n", e.what());
    } catch (const CliError& e) {
        // Before any communication (the command line): every rank threw the same.
        if (communicating()) abort_job(world, e.what(), e.exit_code());
        status = e.exit_code();
        std::fflush(stdout);
        if (world.rank == 0) std::fprintf(stderr, "broadphase-mpi: %s\n", e.what());
    } catch (const std::bad_alloc&) {
        abort_job(world, "out of memory", CliError::failure);
    } catch (const std::exception& e) {
        abort_job(world, std::string("error: ") + e.what(), CliError::failure);
    }
    std::fflush(stdout);
    MPI_Finalize();
    return status;
}
