// The one error type of the CLI. main() prints what() on one stderr line,
// prefixed "broadphase: ", and exits with exit_code().
#pragma once

#include <stdexcept>
#include <string>

namespace broadphase_cli {

class CliError : public std::runtime_error {
public:
    /// Exit status for bad input, unwritable output or a failed search.
    static constexpr int failure = 1;
    /// Exit status for a malformed command line.
    static constexpr int usage = 2;

    /// Control characters in `message` (from file names or file contents)
    /// become '?', so it stays one printable line.
    explicit CliError(const std::string& message, int exit_code = failure)
        : std::runtime_error(printable(message)), exit_code_(exit_code) {}

    int exit_code() const { return exit_code_; }

private:
    static std::string printable(std::string s) {
        for (char& c : s)
            if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = c == '\t' ? ' ' : '?';
        return s;
    }

    int exit_code_;
};

/// A command-line mistake (unknown option, missing argument, ...): exit 2.
inline CliError usage_error(const std::string& message) { return CliError(message, CliError::usage); }

}  // namespace broadphase_cli
