// broadphase pairs: the overlapping pairs of one file, or between two files.
//
// Exact in the input's precision: float32 files are searched in float,
// float64 files (and .csv files with a value that is not a float) in double,
// and two files of different precision both in double (a float widens to
// double exactly). Nothing is rounded to float.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <broadphase/broadphase.hpp>

#include "args.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "files.hpp"

namespace broadphase_cli {
namespace {

/// The pairs of `a` (and `b`, when given) searched in T; a set held in
/// float is widened (exactly) when T is double.
template <class T>
broadphase::Report find_in(const LoadedBoxes& a, const LoadedBoxes* b, const broadphase::Options& options,
                           std::vector<broadphase::Pair>& pairs, broadphase::Algorithm& used) {
    using Set = broadphase::BasicBoxes<T, 3>;
    Set a_copy, b_copy;
    const Set& sa = a.holds<T>() ? a.get<T>() : (a_copy = a.converted<T>());
    broadphase::BasicPairFinder<T, 3> finder;
    broadphase::Report report;
    if (!b) {
        report = finder.find_pairs(sa, pairs, options);
    } else {
        const Set& sb = b->holds<T>() ? b->get<T>() : (b_copy = b->converted<T>());
        report = finder.find_pairs(sa, sb, pairs, options);
    }
    used = finder.last_algorithm();
    return report;
}

}  // namespace

int run_pairs(const std::vector<std::string>& args) {
    const ParsedArgs p = parse_args(args, {{"--output", "-o", true},
                                           {"--algorithm", "-a", true},
                                           {"--sorted", "", false},
                                           {"--threads", "", true},
                                           {"--format", "", true},
                                           {"--output-format", "", true},
                                           {"--array", "", true}});
    if (p.has("--help")) return print_usage();
    if (p.positional.empty() || p.positional.size() > 2)
        throw usage_error("pairs needs one or two box files (see broadphase --help)");
    if (!p.has("--output")) throw usage_error("pairs needs an output file: -o PAIRS.npy, -o PAIRS.csv or -o -");
    const std::string output = p.get("--output");
    FileOptions files;
    files.format = p.get("--format");
    files.array = p.get("--array");
    const std::string output_format = p.get("--output-format", files.format);
    check_pairs_output(output, output_format);
    for (const std::string& input : p.positional) check_box_input(input, files);
    check_one_stdin(p.positional);

    broadphase::Options options;
    options.algorithm = parse_algorithm_option(p.get("--algorithm", "automatic"));
    options.sorted = p.has("--sorted");
    options.threads = static_cast<unsigned>(parse_count("--threads", p.get("--threads", "0"), 0, 4096));

    const LoadedBoxes a = load_boxes(p.positional[0], files);
    std::optional<LoadedBoxes> b;
    if (p.positional.size() == 2) b = load_boxes(p.positional[1], files);
    const LoadedBoxes* pb = b ? &*b : nullptr;
    std::vector<broadphase::Pair> pairs;
    broadphase::Algorithm used = broadphase::Algorithm::automatic;
    const bool in_double = a.is_double() || (pb && pb->is_double());
    const broadphase::Report report = in_double ? find_in<double>(a, pb, options, pairs, used)
                                                : find_in<float>(a, pb, options, pairs, used);
    if (!report.ok()) throw CliError(std::string("finding pairs failed: ") + broadphase::to_string(report.status));

    save_pairs(output, pairs, output_format);

    if (report.invalid_count() > 0) {
        std::string note = "broadphase: note: skipped invalid boxes (NaN or min > max):";
        const char* sep = " ";
        if (!report.invalid_a.empty()) {
            note += sep + std::to_string(report.invalid_a.size()) + " in " + file_label(p.positional[0]);
            sep = ", ";
        }
        if (!report.invalid_b.empty())
            note += sep + std::to_string(report.invalid_b.size()) + " in " + file_label(p.positional[1]);
        std::fprintf(stderr, "%s\n", note.c_str());
    }
    // With the pairs on stdout (-o -), the summary goes to stderr, out of their way.
    std::fprintf(is_std_stream(output) ? stderr : stdout, "%zu pairs (%s) written to %s\n", pairs.size(),
                 broadphase::to_string(used), is_std_stream(output) ? "<stdout>" : output.c_str());
    return 0;
}

}  // namespace broadphase_cli
