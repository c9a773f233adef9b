// broadphase: the command-line tool. Dispatches to a subcommand; every
// failure is one line on stderr and a non-zero exit status (program.hpp).
#include <string>
#include <vector>

#include "commands.hpp"
#include "program.hpp"

namespace {

/// The subcommand's exit status, or -1 for no such command.
int run_command(const std::string& command, const std::vector<std::string>& args) {
    using namespace broadphase_cli;
    if (command == "pairs") return run_pairs(args);
    if (command == "query") return run_query(args);
    if (command == "bench") return run_bench(args);
    if (command == "scenes") return run_scenes(args);
    if (command == "demo") return run_demo(args);
    return -1;
}

}  // namespace

int main(int argc, char** argv) {
    return broadphase_cli::run_program("broadphase", broadphase_cli::usage_text(), broadphase_cli::version_text(), argc,
                                       argv, run_command);
}
