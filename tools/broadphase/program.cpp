#include "program.hpp"

#include <cstdio>
#include <exception>
#include <new>

#include "errors.hpp"

namespace broadphase_cli {
namespace {

int report(const char* program, const std::string& message, int status) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s: %s\n", program, message.c_str());
    return status;
}

}  // namespace

int run_program(const char* program, const char* usage, const std::string& version, int argc, char** argv,
                CommandRunner run) {
    try {
        const std::vector<std::string> args(argv + 1, argv + argc);
        if (args.empty()) {
            std::fputs(usage, stderr);
            return CliError::usage;
        }
        const std::string& command = args[0];
        if (command == "--help" || command == "-h" || command == "help") {
            std::fputs(usage, stdout);
            return 0;
        }
        if (command == "--version") {
            std::printf("%s\n", version.c_str());
            return 0;
        }
        const int status = run(command, std::vector<std::string>(args.begin() + 1, args.end()));
        if (status >= 0) return status;
        const std::string see = std::string(" (see ") + program + " --help)";
        if (!command.empty() && command[0] == '-') throw usage_error("unknown option '" + command + "'" + see);
        throw usage_error("unknown command '" + command + "'" + see);
    } catch (const CliError& e) {
        return report(program, e.what(), e.exit_code());
    } catch (const std::bad_alloc&) {
        return report(program, "out of memory", CliError::failure);
    } catch (const std::exception& e) {
        return report(program, std::string("error: ") + e.what(), CliError::failure);
    }
}

}  // namespace broadphase_cli
