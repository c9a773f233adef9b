// broadphase: the command-line tool. Dispatches to a subcommand and turns
// every failure into one line on stderr and a non-zero exit status
// (CliError keeps its messages on one printable line).
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "commands.hpp"
#include "errors.hpp"

namespace {

int report(const std::string& message, int status) {
    std::fflush(stdout);
    std::fprintf(stderr, "broadphase: %s\n", message.c_str());
    return status;
}

int run(const std::vector<std::string>& args) {
    using namespace broadphase_cli;
    if (args.empty()) {
        std::fputs(usage_text(), stderr);
        return CliError::usage;
    }
    const std::string& command = args[0];
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (command == "--help" || command == "-h" || command == "help") {
        std::fputs(usage_text(), stdout);
        return 0;
    }
    if (command == "--version") {
        std::printf("%s\n", version_text().c_str());
        return 0;
    }
    if (command == "pairs") return run_pairs(rest);
    if (command == "bench") return run_bench(rest);
    if (command == "scenes") return run_scenes(rest);
    if (command == "demo") return run_demo(rest);
    if (!command.empty() && command[0] == '-')
        throw usage_error("unknown option '" + command + "' (see broadphase --help)");
    throw usage_error("unknown command '" + command + "' (see broadphase --help)");
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(std::vector<std::string>(argv + 1, argv + argc));
    } catch (const broadphase_cli::CliError& e) {
        return report(e.what(), e.exit_code());
    } catch (const std::bad_alloc&) {
        return report("out of memory", broadphase_cli::CliError::failure);
    } catch (const std::exception& e) {
        return report(std::string("error: ") + e.what(), broadphase_cli::CliError::failure);
    }
}
