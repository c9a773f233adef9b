// What the end-to-end tests of the command-line programs share: the CLI's
// (tests/cli/cli_test.cpp) and the lab's (tests/lab/lab_test.cpp). Box
// files written and pair files read independently of the programs' own
// code, random rows and brute force's pairs, a flat JSON parser, and the
// fixture that runs a program through the shell on files in a temporary
// directory.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <broadphase/broadphase.hpp>
#include <broadphase/brute_force.hpp>
#include <broadphase_fixtures/scenes.hpp>

#include "npy_writer.hpp"

namespace broadphase_cli_test {

namespace fs = std::filesystem;
using broadphase::Boxes;
using broadphase::Pair;

// ---------------------------------------------------------------- files

inline std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

inline void write_file(const fs::path& p, const std::string& bytes) {
    std::ofstream out(p, std::ios::binary);
    out << bytes;
}

using broadphase_test_files::append_le;
using broadphase_test_files::npy_file;
using broadphase_test_files::npy_header;
using broadphase_test_files::row_bytes;

inline std::string format_number(double v) {
    if (std::isnan(v)) return "nan";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

inline std::string csv_file(const std::vector<double>& rows, bool header) {
    std::string out = header ? "minx,miny,minz,maxx,maxy,maxz\n" : "";
    for (std::size_t i = 0; i < rows.size(); i += 6) {
        for (int c = 0; c < 6; ++c) out += (c ? ", " : "") + format_number(rows[i + c]);
        out += '\n';
    }
    return out;
}

/// Reads a (K, 2) '<u4' .npy pair file, checking its header strictly.
inline std::vector<Pair> read_npy_pairs(const fs::path& p) {
    const std::string b = read_file(p);
    std::vector<Pair> pairs;
    if (b.size() < 10 || b.compare(0, 6, "\x93NUMPY") != 0 || b[6] != 1 || b[7] != 0) {
        ADD_FAILURE() << p << ": not a version 1.0 .npy file";
        return pairs;
    }
    const std::size_t header_size = std::size_t(std::uint8_t(b[8])) | std::size_t(std::uint8_t(b[9])) << 8;
    const std::string header = b.substr(10, header_size);
    EXPECT_EQ((10 + header_size) % 64, 0u) << "data not 64-byte aligned";
    EXPECT_EQ(header.back(), '\n');
    EXPECT_NE(header.find("'descr': '<u4'"), std::string::npos) << header;
    EXPECT_NE(header.find("'fortran_order': False"), std::string::npos) << header;
    const std::size_t s = header.find("'shape': (");
    if (s == std::string::npos) {
        ADD_FAILURE() << "no shape in " << header;
        return pairs;
    }
    const std::size_t k = std::stoull(header.substr(s + 10));
    EXPECT_NE(header.find("'shape': (" + std::to_string(k) + ", 2)"), std::string::npos) << header;
    const std::string data = b.substr(10 + header_size);
    if (data.size() != k * 8) {
        ADD_FAILURE() << "expected " << k * 8 << " data bytes, found " << data.size();
        return pairs;
    }
    auto u32 = [&](std::size_t at) {
        std::uint32_t v = 0;
        for (int j = 0; j < 4; ++j) v |= std::uint32_t(std::uint8_t(data[at + j])) << (8 * j);
        return v;
    };
    for (std::size_t i = 0; i < k; ++i) pairs.push_back(Pair{u32(8 * i), u32(8 * i + 4)});
    return pairs;
}

/// Reads an "i,j" per line pair file (no header).
inline std::vector<Pair> read_csv_pairs(const fs::path& p) {
    std::vector<Pair> pairs;
    std::istringstream in(read_file(p));
    std::string line;
    while (std::getline(in, line)) {
        unsigned long a = 0, b = 0;
        char extra = 0;
        if (std::sscanf(line.c_str(), "%lu,%lu%c", &a, &b, &extra) != 2) {
            ADD_FAILURE() << "bad pair line '" << line << "'";
            continue;
        }
        pairs.push_back(Pair{std::uint32_t(a), std::uint32_t(b)});
    }
    return pairs;
}

inline std::vector<Pair> sorted(std::vector<Pair> v) {
    broadphase::sort_pairs(v);
    return v;
}

// ---------------------------------------------------------------- data

/// Random rows, float-exact, with plenty of overlaps.
inline std::vector<double> random_rows(std::size_t n, std::uint64_t seed) {
    const Boxes b = broadphase_fixtures::random_boxes(n, seed, 0, 20, 0, 6);
    std::vector<double> rows;
    for (std::size_t i = 0; i < b.size(); ++i) {
        const broadphase::Box x = b[i];
        for (int k = 0; k < 3; ++k) rows.push_back(x.min[k]);
        for (int k = 0; k < 3; ++k) rows.push_back(x.max[k]);
    }
    return rows;
}

/// The boxes the tool should see from float32 input (or a .csv whose values
/// are all floats): rows rounded to float.
inline Boxes boxes_of(const std::vector<double>& rows) {
    std::vector<float> f(rows.begin(), rows.end());
    return broadphase::boxes_from_rows(f.data(), f.size() / 6);
}

/// The boxes the tool should see from float64 input: the rows as they are.
inline broadphase::BasicBoxes<double, 3> boxes64_of(const std::vector<double>& rows) {
    return broadphase::boxes_from_rows<double, 3>(rows.data(), rows.size() / 6);
}

template <class T>
inline std::vector<Pair> brute(const broadphase::BasicBoxes<T, 3>& a) {
    broadphase::BasicBruteForce<T, 3> bf;
    broadphase::Options o;
    o.sorted = true;
    std::vector<Pair> out;
    EXPECT_TRUE(bf.find_pairs(a, out, o).ok());
    return out;
}

template <class T>
inline std::vector<Pair> brute(const broadphase::BasicBoxes<T, 3>& a, const broadphase::BasicBoxes<T, 3>& b) {
    broadphase::BasicBruteForce<T, 3> bf;
    broadphase::Options o;
    o.sorted = true;
    std::vector<Pair> out;
    EXPECT_TRUE(bf.find_pairs(a, b, out, o).ok());
    return out;
}

// ---------------------------------------------------------------- JSON

/// One flat JSON object: string, number, true, false and null values only.
/// Values are kept as text (strings unquoted); false when it does not parse.
inline bool parse_flat_json(const std::string& s, std::map<std::string, std::string>& out) {
    std::size_t i = 0;
    auto space = [&] {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    };
    auto read_string = [&](std::string& v) {
        if (i >= s.size() || s[i] != '"') return false;
        for (++i; i < s.size() && s[i] != '"'; ++i) {
            if (s[i] == '\\' && ++i >= s.size()) return false;
            v += s[i];
        }
        return i++ < s.size();
    };
    space();
    if (i >= s.size() || s[i++] != '{') return false;
    while (true) {
        space();
        std::string key, value;
        if (!read_string(key)) return false;
        space();
        if (i >= s.size() || s[i++] != ':') return false;
        space();
        if (i < s.size() && s[i] == '"') {
            if (!read_string(value)) return false;
        } else {
            const std::size_t end = s.find_first_of(",}", i);
            if (end == std::string::npos) return false;
            value = s.substr(i, end - i);
            while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) value.pop_back();
            i = end;
            if (value != "true" && value != "false" && value != "null") {
                char* e = nullptr;
                std::strtod(value.c_str(), &e);
                if (value.empty() || *e != '\0') return false;
            }
        }
        out[key] = value;
        space();
        if (i >= s.size()) return false;
        if (s[i] == '}') break;
        if (s[i++] != ',') return false;
    }
    ++i;
    space();
    return i == s.size();
}

inline std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
        if (!line.empty()) lines.push_back(line);
    return lines;
}

inline std::size_t count_lines(const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

// ---------------------------------------------------------------- fixture

struct RunResult {
    int status = -1;  ///< exit status, or -1 when the tool did not exit normally
    std::string out, err;
};

inline std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

/// Runs one of the programs (the CLI, the lab) on files in a fresh
/// temporary directory a test.
class ProgramTest : public ::testing::Test {
protected:
    explicit ProgramTest(std::string program) : program_(std::move(program)) {}

    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        std::random_device rd;
        dir_ = fs::temp_directory_path() /
               ("broadphase_" + std::string(info->test_suite_name()) + "_" + std::string(info->name()) + "_" + std::to_string(rd()) + std::to_string(rd()));
        fs::create_directories(dir_);
    }
    void TearDown() override {
        std::error_code ec;
        fs::remove_all(dir_, ec);
    }

    /// A path in the test's directory.
    std::string path(const std::string& name) const { return (dir_ / name).string(); }

    /// Runs the tool with `args`, its stdin from the file `input` when given
    /// (else the test's own stdin); stdout and stderr captured byte for byte.
    RunResult run(const std::vector<std::string>& args, const std::string& input = "") const {
        std::string cmd = shell_quote(program_);
        for (const std::string& a : args) cmd += " " + shell_quote(a);
        if (!input.empty()) cmd += " <" + shell_quote(input);
        const fs::path out = dir_ / "_stdout.txt", err = dir_ / "_stderr.txt";
        cmd += " >" + shell_quote(out.string()) + " 2>" + shell_quote(err.string());
        const int raw = std::system(cmd.c_str());
        RunResult r;
        r.status = (raw != -1 && WIFEXITED(raw)) ? WEXITSTATUS(raw) : -1;
        r.out = read_file(out);
        r.err = read_file(err);
        fs::remove(out);
        fs::remove(err);
        return r;
    }

    /// The files in the test directory (to catch stray temporary outputs).
    std::set<std::string> listing() const {
        std::set<std::string> names;
        for (const auto& e : fs::directory_iterator(dir_)) names.insert(e.path().filename().string());
        return names;
    }

    std::string program_;
    fs::path dir_;
};

}  // namespace broadphase_cli_test
