// broadphase pairs: the overlapping pairs of one file, or between two files.
#include <cstdio>
#include <string>
#include <vector>

#include <broadphase/broadphase.hpp>

#include "args.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "files.hpp"

namespace broadphase_cli {

int run_pairs(const std::vector<std::string>& args) {
    const ParsedArgs p = parse_args(args, {{"--output", "-o", true},
                                           {"--algorithm", "-a", true},
                                           {"--sorted", "", false},
                                           {"--threads", "", true}});
    if (p.has("--help")) return print_usage();
    if (p.positional.empty() || p.positional.size() > 2)
        throw usage_error("pairs needs one or two box files (see broadphase --help)");
    if (!p.has("--output")) throw usage_error("pairs needs an output file: -o PAIRS.npy or -o PAIRS.csv");
    const std::string output = p.get("--output");
    check_file_extension(output);
    for (const std::string& input : p.positional) check_file_extension(input);

    broadphase::Options options;
    options.algorithm = parse_algorithm_option(p.get("--algorithm", "auto"));
    options.sorted = p.has("--sorted");
    options.threads = static_cast<unsigned>(parse_count("--threads", p.get("--threads", "0"), 0, 4096));

    const broadphase::Boxes a = load_boxes(p.positional[0]);
    broadphase::PairFinder finder;
    std::vector<broadphase::Pair> pairs;
    broadphase::Report report;
    if (p.positional.size() == 1) {
        report = finder.find_pairs(a, pairs, options);
    } else {
        const broadphase::Boxes b = load_boxes(p.positional[1]);
        report = finder.find_pairs(a, b, pairs, options);
    }
    if (!report.ok()) throw CliError(std::string("finding pairs failed: ") + broadphase::to_string(report.status));

    save_pairs(output, pairs);

    if (report.invalid_count() > 0) {
        std::string note = "broadphase: note: skipped invalid boxes (NaN or min > max):";
        const char* sep = " ";
        if (!report.invalid_a.empty()) {
            note += sep + std::to_string(report.invalid_a.size()) + " in " + p.positional[0];
            sep = ", ";
        }
        if (!report.invalid_b.empty()) note += sep + std::to_string(report.invalid_b.size()) + " in " + p.positional[1];
        std::fprintf(stderr, "%s\n", note.c_str());
    }
    std::printf("%zu pairs (%s) written to %s\n", pairs.size(), broadphase::to_string(finder.last_algorithm()),
                output.c_str());
    return 0;
}

}  // namespace broadphase_cli
