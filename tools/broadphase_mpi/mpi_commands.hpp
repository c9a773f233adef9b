// The subcommands of broadphase-mpi. Each takes the arguments after its
// name, runs on every rank of `world`, prints on rank 0, and returns the
// exit status (the same on every rank); failures are thrown (CliError
// before any communication, AgreedError after: see collective.hpp).
#pragma once

#include <string>
#include <vector>

#include "collective.hpp"

namespace broadphase_mpi_cli {

/// broadphase-mpi pairs A [B] -o OUT [--algorithm NAME] [--sorted] [--threads T]
int run_pairs(const World& world, const std::vector<std::string>& args);

/// broadphase-mpi bench SCENE|FILE [--frames K] [--verify] [--json] [--threads T] ...
int run_bench(const World& world, const std::vector<std::string>& args);

/// The --help text.
const char* usage_text();

/// "broadphase-mpi 0.1.0"
std::string version_text();

}  // namespace broadphase_mpi_cli
