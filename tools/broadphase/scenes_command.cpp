// broadphase scenes: the built-in scenes with their box counts; a last line
// names the motion sequences, which broadphase-lab times and lists.
#include <cstdio>
#include <string>
#include <vector>

#include <broadphase_fixtures/motion.hpp>
#include <broadphase_fixtures/scenes.hpp>

#include "args.hpp"
#include "commands.hpp"
#include "errors.hpp"

namespace broadphase_cli {

int run_scenes(const std::vector<std::string>& args) {
    const ParsedArgs p = parse_args(args, {});
    if (p.has("--help")) return print_usage();
    if (!p.positional.empty()) throw usage_error("scenes takes no arguments");
    std::printf("%-14s %7s  %s\n", "scene", "boxes", "description");
    for (const std::string& name : broadphase_fixtures::scene_names()) {
        // Parametric scenes ("uniform:N") have N boxes; the others are built to count them.
        std::string count = "N";
        broadphase::Boxes boxes;
        if (name.find(':') == std::string::npos && broadphase_fixtures::make_scene(name, boxes))
            count = std::to_string(boxes.size());
        std::printf("%-14s %7s  %s\n", name.c_str(), count.c_str(), broadphase_fixtures::describe(name).c_str());
    }
    // Motion sequences are timed by the lab, broadphase-lab, which lists them.
    std::string sequences;
    for (const std::string& name : broadphase_fixtures::motion::sequence_names())
        sequences += (sequences.empty() ? "" : ", ") + name;
    std::printf("motion sequences (%s) and particles:N: broadphase-lab scenes\n", sequences.c_str());
    return 0;
}

}  // namespace broadphase_cli
