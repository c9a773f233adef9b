// main() of `broadphase` and of `broadphase-lab`, the benchmark lab: runs a
// command line and turns every failure into one line on stderr, prefixed
// with the program's name, and a non-zero exit status (CliError's, else 1).
#pragma once

#include <string>
#include <vector>

namespace broadphase_cli {

/// The commands a program runs: (command, its arguments) -> exit status;
/// throws CliError (or anything else) on failure.
using CommandRunner = int (*)(const std::string& command, const std::vector<std::string>& args);

/// Runs argv through `run`. No arguments: `usage` on stderr, exit 2;
/// --help, -h or help: `usage` on stdout; --version: `version` on stdout;
/// an unknown command or option is a usage error naming `program`.
int run_program(const char* program, const char* usage, const std::string& version, int argc, char** argv,
                CommandRunner run);

}  // namespace broadphase_cli
