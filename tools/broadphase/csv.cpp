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

constexpr const char* blanks = " \t\r";

std::string trim(const std::string& s) {
    const std::size_t b = s.find_first_not_of(blanks);
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(blanks) - b + 1);
}

/// The fields of a line: split at each comma (csv), or at each run of
/// blanks after cutting a '#' comment (whitespace). Empty for a line with
/// nothing but blanks (or a comment).
std::vector<std::string> split_fields(const std::string& line, TextDialect dialect) {
    std::vector<std::string> fields;
    if (dialect == TextDialect::whitespace) {
        const std::string text = line.substr(0, line.find('#'));
        for (std::size_t b = text.find_first_not_of(blanks); b != std::string::npos;
             b = text.find_first_not_of(blanks, b)) {
            const std::size_t e = text.find_first_of(blanks, b);
            fields.push_back(text.substr(b, e == std::string::npos ? std::string::npos : e - b));
            b = e;
        }
        return fields;
    }
    if (trim(line).empty()) return fields;
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

/// Output gathered in 64 KiB pieces; false once a write failed.
class BufferedWriter {
public:
    explicit BufferedWriter(std::FILE* out) : out_(out) { buf_.reserve(capacity); }
    template <class T>
    void number(T v) {
        char num[32];
        buf_.append(num, std::to_chars(num, num + sizeof num, v).ptr);
    }
    void put(char c) {
        buf_ += c;
        if (buf_.size() > capacity - 64) flush();
    }
    bool flush() {
        ok_ = ok_ && std::fwrite(buf_.data(), 1, buf_.size(), out_) == buf_.size();
        buf_.clear();
        return ok_;
    }

private:
    static constexpr std::size_t capacity = 1 << 16;
    std::FILE* out_;
    std::string buf_;
    bool ok_ = true;
};

char separator(TextDialect dialect) { return dialect == TextDialect::csv ? ',' : ' '; }

}  // namespace

LoadedBoxes read_text_boxes(std::FILE* in, const std::string& name, TextDialect dialect) {
    const char* const separated = dialect == TextDialect::csv ? "comma-separated" : "whitespace-separated";
    DoubleBoxes boxes;
    bool all_float = true;  // every value exactly a float: float boxes give the same answers, faster
    std::string line;
    bool first = true;
    for (std::size_t line_no = 1; read_line(in, line); ++line_no) {
        const std::vector<std::string> fields = split_fields(line, dialect);
        if (fields.empty()) continue;
        double v[6];
        if (first) {
            first = false;
            bool any_number = false;
            for (const std::string& f : fields) any_number = any_number || parse_number(f, v[0]);
            if (fields.size() == 6 && !any_number) continue;  // the header
        }
        const std::string where = name + ": line " + std::to_string(line_no) + ": ";
        if (fields.size() != 6)
            throw CliError(where + "expected 6 " + separated + " numbers, found " + std::to_string(fields.size()) +
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

bool write_text_pairs(std::FILE* out, const std::vector<broadphase::Pair>& pairs, TextDialect dialect) {
    BufferedWriter w(out);
    for (const broadphase::Pair& p : pairs) {
        w.number(p.a);
        w.put(separator(dialect));
        w.number(p.b);
        w.put('\n');
    }
    return w.flush();
}

bool write_text_boxes(std::FILE* out, const broadphase::Boxes& boxes, TextDialect dialect) {
    BufferedWriter w(out);
    for (std::size_t i = 0; i < boxes.size(); ++i)
        for (int c = 0; c < 6; ++c) {
            // The shortest text of the double that is the float: it reads back exactly.
            w.number(static_cast<double>(c < 3 ? boxes.min(c)[i] : boxes.max(c - 3)[i]));
            w.put(c < 5 ? separator(dialect) : '\n');
        }
    return w.flush();
}

}  // namespace broadphase_cli
