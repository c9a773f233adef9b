// broadphase-lab: the benchmark lab (lab.hpp). Dispatches to a subcommand;
// every failure is one line on stderr and a non-zero exit status, as in the
// CLI (tools/broadphase/program.hpp).
#include <string>
#include <vector>

#include "errors.hpp"
#include "lab.hpp"
#include "program.hpp"

namespace {

/// The subcommand's exit status, or -1 for no such command.
int run_command(const std::string& command, const std::vector<std::string>& args) {
    if (command == "bench") return broadphase_cli::run_lab_bench(args);
    if (command == "scenes") return broadphase_cli::run_lab_scenes(args);
    if (command == "pairs" || command == "query" || command == "demo")
        throw broadphase_cli::usage_error(command + " is the CLI's: broadphase " + command + " (see broadphase --help)");
    return -1;
}

}  // namespace

int main(int argc, char** argv) {
    return broadphase_cli::run_program("broadphase-lab", broadphase_cli::lab_usage_text(),
                                       broadphase_cli::lab_version_text(), argc, argv, run_command);
}
