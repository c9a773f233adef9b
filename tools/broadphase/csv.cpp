#include "csv.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <utility>

#include "errors.hpp"

namespace broadphase_cli {
namespace {

/// Reads one line without its end ("\n" or "\r\n"); false at end of file.
bool read_line(std::FILE* in, std::string& line) {
    line.clear();
    int c;
    while ((c = std::getc(in)) != EOF && c != '\n') line += static_cast<char>(c);
    if (c == EOF && line.empty()) return false;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
}

std::string trim(const std::string& s) {
    const char* space = " \t\r";
    const std::size_t b = s.find_first_not_of(space);
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(space) - b + 1);
}

std::vector<std::string> split_fields(const std::string& line) {
    std::vector<std::string> fields;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = line.find(',', start);
        fields.push_back(trim(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
        if (comma == std::string::npos) return fields;
        start = comma + 1;
    }
}

/// Parses a whole field as a number: strtod (in the "C" locale the CLI
/// keeps), so the value is the double nearest the decimal text.
bool parse_number(const std::string& field, double& out) {
    if (field.empty()) return false;
    char* end = nullptr;
    out = std::strtod(field.c_str(), &end);
    return end == field.c_str() + field.size();
}

/// Whether a double is exactly a float value (NaN and the infinities are).
bool is_float_value(double d) {
    if (std::isnan(d) || std::isinf(d)) return true;
    if (!(std::fabs(d) <= double(std::numeric_limits<float>::max()))) return false;
    return static_cast<double>(static_cast<float>(d)) == d;
}

}  // namespace

LoadedBoxes read_csv_boxes(std::FILE* in, const std::string& name) {
    DoubleBoxes boxes;
    bool all_float = true;  // every value exactly a float: float boxes give the same answers, faster
    std::string line;
    bool first = true;
    for (std::size_t line_no = 1; read_line(in, line); ++line_no) {
        if (trim(line).empty()) continue;
        const std::vector<std::string> fields = split_fields(line);
        double v[6];
        if (first) {
            first = false;
            bool any_number = false;
            for (const std::string& f : fields) any_number = any_number || parse_number(f, v[0]);
            if (fields.size() == 6 && !any_number) continue;  // the header
        }
        const std::string where = name + ": line " + std::to_string(line_no) + ": ";
        if (fields.size() != 6)
            throw CliError(where + "expected 6 comma-separated numbers, found " + std::to_string(fields.size()) +
                           " fields");
        for (int c = 0; c < 6; ++c) {
            if (!parse_number(fields[c], v[c]))
                throw CliError(where + "'" + fields[c] + "' is not a number (column " + std::to_string(c + 1) + ")");
            all_float = all_float && is_float_value(v[c]);
        }
        DoubleBoxes::box_type b;
        b.min = {v[0], v[1], v[2]};
        b.max = {v[3], v[4], v[5]};
        boxes.push_back(b);
        if (boxes.size() > broadphase::max_boxes) throw CliError(name + ": more boxes than 32-bit indices allow");
    }
    if (std::ferror(in)) throw CliError(name + ": read error");
    if (!all_float) return LoadedBoxes(std::move(boxes));
    return LoadedBoxes(LoadedBoxes(std::move(boxes)).converted<float>());  // exact: every value is a float
}

bool write_csv_pairs(std::FILE* out, const std::vector<broadphase::Pair>& pairs) {
    std::string buf;
    buf.reserve(1 << 16);
    char num[16];
    for (const broadphase::Pair& p : pairs) {
        buf.append(num, std::to_chars(num, num + sizeof num, p.a).ptr);
        buf += ',';
        buf.append(num, std::to_chars(num, num + sizeof num, p.b).ptr);
        buf += '\n';
        if (buf.size() > (1 << 16) - 32) {
            if (std::fwrite(buf.data(), 1, buf.size(), out) != buf.size()) return false;
            buf.clear();
        }
    }
    return std::fwrite(buf.data(), 1, buf.size(), out) == buf.size();
}

}  // namespace broadphase_cli
