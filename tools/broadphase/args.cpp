#include "args.hpp"

#include <cerrno>
#include <cstdlib>

#include "errors.hpp"

namespace broadphase_cli {

ParsedArgs parse_args(const std::vector<std::string>& args, const std::vector<OptionSpec>& spec) {
    ParsedArgs out;
    bool options_ended = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (options_ended || arg.size() < 2 || arg[0] != '-') {
            out.positional.push_back(arg);
            continue;
        }
        if (arg == "--") {
            options_ended = true;
            continue;
        }
        // Split "--name=value".
        std::string name = arg, inline_value;
        bool has_inline = false;
        const std::size_t eq = arg.find('=');
        if (arg.compare(0, 2, "--") == 0 && eq != std::string::npos) {
            name = arg.substr(0, eq);
            inline_value = arg.substr(eq + 1);
            has_inline = true;
        }
        static const OptionSpec help{"--help", "-h", false};
        const OptionSpec* match = nullptr;
        for (const OptionSpec& s : spec)
            if (name == s.name || (!s.short_name.empty() && name == s.short_name)) match = &s;
        if (!match && (name == help.name || name == help.short_name)) match = &help;
        if (!match) throw usage_error("unknown option '" + name + "' (see broadphase --help)");
        if (out.has(match->name)) throw usage_error("option '" + name + "' given twice");
        if (!match->takes_value) {
            if (has_inline) throw usage_error("option '" + name + "' takes no value");
            out.values[match->name] = "";
        } else if (has_inline) {
            out.values[match->name] = inline_value;
        } else {
            if (i + 1 >= args.size()) throw usage_error("option '" + name + "' needs a value");
            out.values[match->name] = args[++i];
        }
    }
    return out;
}

long long parse_count(const std::string& option, const std::string& text, long long lo, long long hi) {
    const char* begin = text.c_str();
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(begin, &end, 10);
    const bool digits_only = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
    if (!digits_only || *end != '\0' || errno == ERANGE || v < lo || v > hi)
        throw usage_error("option '" + option + "' needs a whole number from " + std::to_string(lo) + " to " +
                          std::to_string(hi) + ", not '" + text + "'");
    return v;
}

broadphase::Algorithm parse_algorithm_option(const std::string& name) {
    broadphase::Algorithm a{};
    if (name == "auto") throw usage_error("unknown algorithm 'auto': the automatic choice is spelt 'automatic'");
    if (!broadphase::parse_algorithm(name, a))
    {
        std::string known = broadphase::to_string(broadphase::Algorithm::automatic);
        for (broadphase::Algorithm k : broadphase::concrete_algorithms) known += std::string(", ") + broadphase::to_string(k);
        throw usage_error("unknown algorithm '" + name + "'; expected one of " + known);
    }
    return a;
}

}  // namespace broadphase_cli
