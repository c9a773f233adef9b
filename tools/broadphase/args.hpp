// Command-line options of one subcommand: "--name value", "--name=value",
// "-x value", flags, positionals, "--" ending the options.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <broadphase/options.hpp>

namespace broadphase_cli {

struct OptionSpec {
    std::string name;        ///< long form, "--algorithm"
    std::string short_name;  ///< "-a", or empty
    bool takes_value = false;
};

struct ParsedArgs {
    std::vector<std::string> positional;
    std::map<std::string, std::string> values;  ///< by long name; "" for flags

    bool has(const std::string& name) const { return values.count(name) != 0; }
    std::string get(const std::string& name, const std::string& fallback = "") const {
        const auto it = values.find(name);
        return it == values.end() ? fallback : it->second;
    }
};

/// Parses `args` against `spec`, plus the --help (-h) flag every subcommand
/// takes. Throws a usage error for an unknown option, a missing value, a
/// value given to a flag, or an option given twice.
ParsedArgs parse_args(const std::vector<std::string>& args, const std::vector<OptionSpec>& spec);

/// Parses a whole number in [lo, hi] given to `option`; throws a usage error otherwise.
long long parse_count(const std::string& option, const std::string& text, long long lo, long long hi);

/// The algorithm named `name` (auto, brute_force, ...); throws a usage error otherwise.
broadphase::Algorithm parse_algorithm_option(const std::string& name);

}  // namespace broadphase_cli
