// broadphase-mpi pairs: `broadphase pairs` spread over the ranks.
//
// Rank r of P reads rows [N*r/P, N*(r+1)/P) of each file: a .npy by its
// header, its size and a seek to those rows (load_box_slice reads no other
// row); a .csv whole, since a row's place in it is known only by parsing
// what comes before and its precision depends on every value, then keeps
// its share. Every rank's reading ends in an agreement (collectively), so a
// bad file fails everywhere with one message. Global ids are the rows'
// indices in the file: the distributed finder numbers each set across the
// ranks in rank order, which is file order here. Rank 0 gathers the pairs
// (Delivery::gather) and writes the file once.
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <broadphase/broadphase.hpp>
#include <broadphase/mpi/distributed.hpp>

#include "args.hpp"
#include "files.hpp"
#include "mpi_commands.hpp"

namespace broadphase_mpi_cli {
namespace {

using broadphase_cli::LoadedBoxes;

/// The boxes in T, copied when held otherwise (float to double: exact).
template <class T>
broadphase::BasicBoxes<T, 3> in_precision(LoadedBoxes&& loaded) {
    return std::move(loaded).into<T>();
}

template <class T>
broadphase::mpi::DistributedReport find_in(const World& world, LoadedBoxes&& a, std::optional<LoadedBoxes>&& b,
                                           const broadphase::mpi::DistributedOptions& options,
                                           std::vector<broadphase::mpi::IdPair>& out) {
    broadphase::mpi::BasicDistributedPairFinder<T, 3> finder(world.comm);
    const broadphase::BasicBoxes<T, 3> sa = in_precision<T>(std::move(a));
    if (!b) return finder.find_pairs(sa, out, options);
    const broadphase::BasicBoxes<T, 3> sb = in_precision<T>(std::move(*b));
    return finder.find_pairs(sa, nullptr, sb, nullptr, out, options);
}

}  // namespace

int run_pairs(const World& world, const std::vector<std::string>& args) {
    using namespace broadphase_cli;
    const ParsedArgs p = parse_args(args, {{"--output", "-o", true},
                                           {"--algorithm", "-a", true},
                                           {"--sorted", "", false},
                                           {"--threads", "", true}});
    if (p.has("--help")) {
        if (world.rank == 0) std::fputs(usage_text(), stdout);
        return 0;
    }
    if (p.positional.empty() || p.positional.size() > 2)
        throw usage_error("pairs needs one or two box files (see broadphase-mpi --help)");
    if (!p.has("--output")) throw usage_error("pairs needs an output file: -o PAIRS.npy or -o PAIRS.csv");
    const std::string output = p.get("--output");
    refuse_std_stream(output);
    check_pairs_output(output);  // the same answers as broadphase pairs: .npz is not a pairs format
    for (const std::string& input : p.positional) check_file_extension(input);

    broadphase::mpi::DistributedOptions options;
    options.local.algorithm = parse_algorithm_option(p.get("--algorithm", "automatic"));
    options.local.sorted = p.has("--sorted");
    const long long threads = parse_count("--threads", p.get("--threads", "0"), 0, 4096);
    options.delivery = broadphase::mpi::Delivery::gather;
    options.root = 0;
    // The command line is checked: from here on the ranks talk.
    options.local.threads = threads ? static_cast<unsigned>(threads) : threads_per_rank(world);

    const auto rank = static_cast<std::uint64_t>(world.rank), ranks = static_cast<std::uint64_t>(world.size);
    LoadedBoxes a;
    std::optional<LoadedBoxes> b;
    collectively(world, [&] { a = load_box_slice(p.positional[0], rank, ranks); });
    if (p.positional.size() == 2) collectively(world, [&] { b = load_box_slice(p.positional[1], rank, ranks); });
    // One precision on every rank (a .csv's is decided by the whole file,
    // which every rank read; agreed anyway).
    const bool in_double = any_rank(world, a.is_double() || (b && b->is_double()));

    std::vector<broadphase::mpi::IdPair> found;
    const broadphase::mpi::DistributedReport report =
        in_double ? find_in<double>(world, std::move(a), std::move(b), options, found)
                  : find_in<float>(world, std::move(a), std::move(b), options, found);
    if (!report.ok())  // the same status on every rank
        throw AgreedError(std::string("finding pairs failed: ") + broadphase::to_string(report.status));

    // Rank 0 holds every pair; ids are row indices (< 2^32: the readers
    // refuse larger files), so they fit the pair file's uint32.
    collectively(world, [&] {
        if (world.rank != 0) return;
        std::vector<broadphase::Pair> pairs(found.size());
        for (std::size_t i = 0; i < found.size(); ++i)
            pairs[i] = broadphase::Pair{static_cast<std::uint32_t>(found[i].a), static_cast<std::uint32_t>(found[i].b)};
        found = {};
        save_pairs(output, pairs);
    });

    const std::uint64_t invalid_a = sum_over_ranks(world, report.invalid_a.size());
    const std::uint64_t invalid_b = sum_over_ranks(world, report.invalid_b.size());
    if (world.rank == 0) {
        if (invalid_a + invalid_b > 0) {
            std::string note = "broadphase-mpi: note: skipped invalid boxes (NaN or min > max):";
            const char* sep = " ";
            if (invalid_a) {
                note += sep + std::to_string(invalid_a) + " in " + p.positional[0];
                sep = ", ";
            }
            if (invalid_b) note += sep + std::to_string(invalid_b) + " in " + p.positional[1];
            std::fflush(stdout);
            std::fprintf(stderr, "%s\n", note.c_str());
        }
        std::printf("%llu pairs (%s, %d rank%s) written to %s\n", static_cast<unsigned long long>(report.total_pairs),
                    broadphase::to_string(options.local.algorithm), world.size, world.size == 1 ? "" : "s",
                    output.c_str());
        std::fflush(stdout);
    }
    return 0;
}

}  // namespace broadphase_mpi_cli
