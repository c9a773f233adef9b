// broadphase pairs: the overlapping pairs of one file, or between two files.
// broadphase query: every box of one file queried against a built set of
// another (broadphase::Index::query_batch): pairs (query index, built index).
//
// Exact in the input's precision: float32 files are searched in float,
// float64 files (and .csv files with a value that is not a float) in double,
// and two files of different precision both in double (a float widens to
// double exactly). Nothing is rounded to float.
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <broadphase/broadphase.hpp>

#include "args.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "files.hpp"

namespace broadphase_cli {
namespace {

/// A set held in T: itself when it is, else a copy widened (exactly) to T in `copy`.
template <class T>
const broadphase::BasicBoxes<T, 3>& in_precision(const LoadedBoxes& boxes, broadphase::BasicBoxes<T, 3>& copy) {
    return boxes.holds<T>() ? boxes.get<T>() : (copy = boxes.converted<T>());
}

/// The pairs of `a` (and `b`, when given) searched in T.
template <class T>
broadphase::Report find_in(const LoadedBoxes& a, const LoadedBoxes* b, const broadphase::Options& options,
                           std::vector<broadphase::Pair>& pairs, broadphase::Algorithm& used) {
    broadphase::BasicBoxes<T, 3> a_copy, b_copy;
    const auto& sa = in_precision<T>(a, a_copy);
    broadphase::BasicPairFinder<T, 3> finder;
    const broadphase::Report report =
        b ? finder.find_pairs(sa, in_precision<T>(*b, b_copy), pairs, options) : finder.find_pairs(sa, pairs, options);
    used = finder.last_algorithm();
    return report;
}

/// Every box of `queries` against an Index built over `built`, in T: pairs
/// (query index, built index). The report's invalid_a are the invalid
/// built boxes, invalid_b the invalid queries (as the files are given).
template <class T>
broadphase::Report query_in(const LoadedBoxes& built, const LoadedBoxes& queries, const broadphase::Options& options,
                            std::vector<broadphase::Pair>& pairs, broadphase::Algorithm& used) {
    broadphase::BasicBoxes<T, 3> built_copy, query_copy;
    broadphase::BasicIndex<T, 3> index;
    broadphase::Report built_report = index.build(in_precision<T>(built, built_copy), options);
    used = index.algorithm();
    if (!built_report.ok()) return built_report;
    broadphase::Report report = index.query_batch(in_precision<T>(queries, query_copy), pairs, options);
    report.invalid_b = std::move(report.invalid_a);
    report.invalid_a = std::move(built_report.invalid_a);
    return report;
}

/// What pairs and query share: the command line (one or two box files, -o,
/// --algorithm, --sorted, --threads, --format, --output-format, --array),
/// the files read, and the output written with its notes.
struct PairsJob {
    std::vector<std::string> inputs;
    std::string output, output_format;
    broadphase::Options options;
    std::vector<LoadedBoxes> boxes;

    /// `command` ("pairs" or "query") takes `min_inputs` to `max_inputs` box files.
    PairsJob(const std::vector<std::string>& args, const char* command, std::size_t min_inputs,
             std::size_t max_inputs, const char* inputs_wanted) {
        const ParsedArgs p = parse_args(args, {{"--output", "-o", true},
                                               {"--algorithm", "-a", true},
                                               {"--sorted", "", false},
                                               {"--threads", "", true},
                                               {"--format", "", true},
                                               {"--output-format", "", true},
                                               {"--array", "", true}});
        help = p.has("--help");
        if (help) return;
        inputs = p.positional;
        if (inputs.size() < min_inputs || inputs.size() > max_inputs)
            throw usage_error(std::string(command) + " needs " + inputs_wanted + " (see broadphase --help)");
        if (!p.has("--output"))
            throw usage_error(std::string(command) + " needs an output file: -o PAIRS.npy, -o PAIRS.csv or -o -");
        output = p.get("--output");
        FileOptions files;
        files.format = p.get("--format");
        files.array = p.get("--array");
        output_format = p.get("--output-format", files.format);
        check_pairs_output(output, output_format);
        for (const std::string& input : inputs) check_box_input(input, files);
        check_one_stdin(inputs);

        options.algorithm = parse_algorithm_option(p.get("--algorithm", "automatic"));
        options.sorted = p.has("--sorted");
        options.threads = static_cast<unsigned>(parse_count("--threads", p.get("--threads", "0"), 0, 4096));
        for (const std::string& input : inputs) boxes.push_back(load_boxes(input, files));
    }

    bool help = false;  ///< --help given: nothing else was read

    /// Whether any set is held in double (then all are searched in double).
    bool in_double() const {
        for (const LoadedBoxes& b : boxes)
            if (b.is_double()) return true;
        return false;
    }

    /// Writes the pairs, notes the invalid boxes of input 0 (report.invalid_a)
    /// and input 1 (invalid_b), and prints the summary line.
    int finish(const broadphase::Report& report, const std::vector<broadphase::Pair>& pairs,
               broadphase::Algorithm used, const char* what) const {
        if (!report.ok()) throw CliError(std::string(what) + " failed: " + broadphase::to_string(report.status));
        save_pairs(output, pairs, output_format);
        if (report.invalid_count() > 0) {
            std::string note = "broadphase: note: skipped invalid boxes (NaN or min > max):";
            const char* sep = " ";
            if (!report.invalid_a.empty()) {
                note += sep + std::to_string(report.invalid_a.size()) + " in " + file_label(inputs[0]);
                sep = ", ";
            }
            if (!report.invalid_b.empty())
                note += sep + std::to_string(report.invalid_b.size()) + " in " + file_label(inputs[1]);
            std::fprintf(stderr, "%s\n", note.c_str());
        }
        // With the pairs on stdout (-o -), the summary goes to stderr, out of their way.
        std::fprintf(is_std_stream(output) ? stderr : stdout, "%zu pairs (%s) written to %s\n", pairs.size(),
                     broadphase::to_string(used), is_std_stream(output) ? "<stdout>" : output.c_str());
        return 0;
    }
};

}  // namespace

int run_pairs(const std::vector<std::string>& args) {
    const PairsJob job(args, "pairs", 1, 2, "one or two box files");
    if (job.help) return print_usage();
    const LoadedBoxes* b = job.boxes.size() == 2 ? &job.boxes[1] : nullptr;
    std::vector<broadphase::Pair> pairs;
    broadphase::Algorithm used = broadphase::Algorithm::automatic;
    const broadphase::Report report = job.in_double()
                                          ? find_in<double>(job.boxes[0], b, job.options, pairs, used)
                                          : find_in<float>(job.boxes[0], b, job.options, pairs, used);
    return job.finish(report, pairs, used, "finding pairs");
}

int run_query(const std::vector<std::string>& args) {
    const PairsJob job(args, "query", 2, 2, "two box files: the boxes to build on, then the query boxes");
    if (job.help) return print_usage();
    std::vector<broadphase::Pair> pairs;
    broadphase::Algorithm used = broadphase::Algorithm::automatic;
    // Pairs (query index, built index): the query file is the pairs' first column, the built one the second.
    const broadphase::Report report = job.in_double()
                                          ? query_in<double>(job.boxes[0], job.boxes[1], job.options, pairs, used)
                                          : query_in<float>(job.boxes[0], job.boxes[1], job.options, pairs, used);
    return job.finish(report, pairs, used, "querying");
}

}  // namespace broadphase_cli
