// JSON text for the commands' --json output: one escaping rule for every
// string they print (bench, bench with motion sequences, broadphase-mpi).
#pragma once

#include <cstdio>
#include <string>

namespace broadphase_cli {

/// s as a JSON string literal, quotes included: '"' and '\' escaped,
/// control characters written as \u00XX (kept, not dropped, so a name
/// with a tab still reads back as itself). O(length of s).
inline std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
            out += buf;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

}  // namespace broadphase_cli
