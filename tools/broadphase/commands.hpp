// The subcommands. Each takes the arguments after its name, prints its
// results, returns the exit status, and throws CliError on failure.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace broadphase_cli {

/// broadphase pairs A [B] -o OUT [--algorithm NAME] [--sorted]
int run_pairs(const std::vector<std::string>& args);

/// broadphase query BOXES QUERIES -o OUT [--algorithm NAME] [--sorted]: pairs (query index, built index)
int run_query(const std::vector<std::string>& args);

/// broadphase bench SCENE|FILE [--algorithm NAME|all|ours] [--frames K] [--threads T] [--verify] [--json]
int run_bench(const std::vector<std::string>& args);

/// broadphase scenes
int run_scenes(const std::vector<std::string>& args);

/// broadphase demo [--particles N] [--steps S] [--model dem|elastic] [--out DIR] [--threads T] ...
int run_demo(const std::vector<std::string>& args);

/// The --help text.
const char* usage_text();

/// Any subcommand's --help: the usage text on stdout; returns exit status 0.
inline int print_usage() {
    std::fputs(usage_text(), stdout);
    return 0;
}

/// "broadphase 0.1.0"
std::string version_text();

}  // namespace broadphase_cli
