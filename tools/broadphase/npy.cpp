#include "npy.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#if !defined(_WIN32)
#include <sys/types.h>  // off_t, fseeko, ftello
#endif
#include <type_traits>
#include <utility>

#include "errors.hpp"

namespace broadphase_cli {
namespace {

constexpr char magic[] = "\x93NUMPY";
constexpr std::size_t magic_size = 6;
constexpr std::uint32_t max_header_size = 1u << 20;  // real headers are < 200 bytes

std::uint32_t load_le32(const unsigned char* p) {
    return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[3]) << 24;
}
std::uint64_t load_le64(const unsigned char* p) { return load_le32(p) | std::uint64_t(load_le32(p + 4)) << 32; }
void store_le32(unsigned char* p, std::uint32_t v) {
    for (int k = 0; k < 4; ++k) p[k] = static_cast<unsigned char>(v >> (8 * k));
}

/// The three keys of a .npy header dictionary.
struct Header {
    std::string descr;
    bool fortran_order = false;
    std::vector<std::uint64_t> shape;
    bool has_descr = false, has_order = false, has_shape = false;
};

/// Parses the header: a Python dict literal such as
/// {'descr': '<f4', 'fortran_order': False, 'shape': (20000, 6), }
class HeaderParser {
public:
    HeaderParser(const std::string& text, const std::string& name) : s_(text), name_(name) {}

    Header parse() {
        Header h;
        expect('{');
        while (true) {
            skip_space();
            if (peek() == '}') break;
            const std::string key = parse_string();
            expect(':');
            skip_space();
            if (key == "descr") {
                if (peek() != '\'' && peek() != '"') fail("structured dtypes are not supported; need (N, 6) '<f4' or '<f8'");
                h.descr = parse_string();
                h.has_descr = true;
            } else if (key == "fortran_order") {
                h.fortran_order = parse_bool();
                h.has_order = true;
            } else if (key == "shape") {
                h.shape = parse_tuple();
                h.has_shape = true;
            } else {
                fail("unexpected key '" + key + "' in the .npy header");
            }
            skip_space();
            if (peek() == ',') ++i_;
            else if (peek() != '}') fail("malformed .npy header");
        }
        if (!h.has_descr || !h.has_order || !h.has_shape)
            fail("the .npy header lacks 'descr', 'fortran_order' or 'shape'");
        return h;
    }

private:
    [[noreturn]] void fail(const std::string& why) const { throw CliError(name_ + ": " + why); }
    char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
    void skip_space() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
    }
    void expect(char c) {
        skip_space();
        if (peek() != c) fail("malformed .npy header");
        ++i_;
    }
    std::string parse_string() {
        skip_space();
        const char q = peek();
        if (q != '\'' && q != '"') fail("malformed .npy header");
        const std::size_t end = s_.find(q, i_ + 1);
        if (end == std::string::npos) fail("malformed .npy header");
        std::string out = s_.substr(i_ + 1, end - i_ - 1);
        i_ = end + 1;
        return out;
    }
    bool parse_bool() {
        if (s_.compare(i_, 4, "True") == 0) return i_ += 4, true;
        if (s_.compare(i_, 5, "False") == 0) return i_ += 5, false;
        fail("malformed .npy header");
    }
    std::vector<std::uint64_t> parse_tuple() {
        std::vector<std::uint64_t> dims;
        expect('(');
        while (true) {
            skip_space();
            if (peek() == ')') break;
            if (peek() < '0' || peek() > '9') fail("malformed shape in the .npy header");
            std::uint64_t v = 0;
            while (peek() >= '0' && peek() <= '9') {
                if (v > (UINT64_MAX - 9) / 10) fail("shape too large in the .npy header");
                v = v * 10 + std::uint64_t(s_[i_++] - '0');
            }
            if (peek() == 'L') ++i_;  // written by Python 2
            dims.push_back(v);
            skip_space();
            if (peek() == ',') ++i_;
            else if (peek() != ')') fail("malformed shape in the .npy header");
        }
        ++i_;
        return dims;
    }

    const std::string& s_;
    const std::string& name_;
    std::size_t i_ = 0;
};

std::string shape_text(const std::vector<std::uint64_t>& shape) {
    std::string t = "(";
    for (std::size_t k = 0; k < shape.size(); ++k) t += (k ? ", " : "") + std::to_string(shape[k]);
    return t + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace

namespace {

/// What the header of a boxes .npy file says: checked to be (N, 6) '<f4'
/// or '<f8' in C order.
struct Layout {
    std::vector<std::uint64_t> shape;
    std::uint64_t n = 0;        ///< rows (boxes)
    std::size_t item = 0;       ///< bytes per value: 4 or 8
    std::uint64_t data_at = 0;  ///< file offset of the first row
    std::size_t row_bytes() const { return 6 * item; }
};

/// Reads and checks the preamble and the header, leaving `in` at the first row.
Layout read_layout(ByteSource& in, const std::string& name) {
    auto fail = [&](const std::string& why) { return CliError(name + ": " + why); };

    unsigned char pre[12];
    const std::size_t got = in.read(pre, 8);
    if (got < magic_size || std::memcmp(pre, magic, magic_size) != 0)
        throw fail("not a NumPy .npy file (bad magic string)");
    if (got < 8) throw fail("truncated .npy header");
    const int major = pre[6], minor = pre[7];
    if (major < 1 || major > 3)
        throw fail("unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor));
    const std::size_t len_bytes = major == 1 ? 2 : 4;
    if (in.read(pre + 8, len_bytes) != len_bytes) throw fail("truncated .npy header");
    const std::uint32_t header_size = major == 1 ? std::uint32_t(pre[8]) | std::uint32_t(pre[9]) << 8 : load_le32(pre + 8);
    if (header_size > max_header_size) throw fail(".npy header too large");
    std::string text(header_size, '\0');
    if (in.read(&text[0], header_size) != header_size) throw fail("truncated .npy header");

    const Header h = HeaderParser(text, name).parse();
    Layout layout;
    if (h.descr == "<f4") layout.item = 4;
    else if (h.descr == "<f8") layout.item = 8;
    else throw fail("dtype '" + h.descr + "' is not supported; need float32 '<f4' or float64 '<f8'");
    if (h.fortran_order) throw fail("Fortran-order arrays are not supported; save a C-order array");
    if (h.shape.size() != 2 || h.shape[1] != 6)
        throw fail("shape " + shape_text(h.shape) + " is not supported; need (N, 6)");
    layout.n = h.shape[0];
    if (layout.n > broadphase::max_boxes) throw fail(std::to_string(layout.n) + " boxes are more than 32-bit indices allow");
    layout.shape = h.shape;
    layout.data_at = 8 + len_bytes + header_size;
    return layout;
}

std::string truncated_message(const Layout& layout, std::uint64_t present) {
    return "truncated data: the shape " + shape_text(layout.shape) + " needs " +
           std::to_string(layout.n * layout.row_bytes()) + " bytes, the file has " + std::to_string(present);
}

/// Reads `count` rows from the current position of `in` into `boxes` (float
/// for '<f4', double for '<f8', bit for bit), in chunks, so that a header
/// promising more than the file holds allocates no more than the data
/// actually present. `first` is the index of the first row read, for the
/// message on a short read.
template <class BoxSet>
void read_rows(ByteSource& in, const std::string& name, const Layout& layout, std::uint64_t first,
               std::uint64_t count, BoxSet& boxes) {
    using T = typename BoxSet::scalar;
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "float or double");
    const std::size_t item = layout.item, row_bytes = layout.row_bytes(), chunk_rows = 4096;
    boxes.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(count, 1u << 16)));
    std::vector<unsigned char> buf(chunk_rows * row_bytes);
    for (std::uint64_t done = 0; done < count;) {
        const std::size_t rows = static_cast<std::size_t>(std::min<std::uint64_t>(chunk_rows, count - done));
        const std::size_t bytes = in.read(buf.data(), rows * row_bytes);
        if (bytes != rows * row_bytes)
            throw CliError(name + ": " + truncated_message(layout, (first + done) * row_bytes + bytes));
        for (std::size_t r = 0; r < rows; ++r) {
            T v[6];
            for (int c = 0; c < 6; ++c) {
                const unsigned char* p = buf.data() + r * row_bytes + c * item;
                if constexpr (sizeof(T) == 4) {
                    const std::uint32_t u = load_le32(p);
                    std::memcpy(&v[c], &u, 4);
                } else {
                    const std::uint64_t u = load_le64(p);
                    std::memcpy(&v[c], &u, 8);
                }
            }
            typename BoxSet::box_type b;
            b.min = {v[0], v[1], v[2]};
            b.max = {v[3], v[4], v[5]};
            boxes.push_back(b);
        }
        done += rows;
    }
}

/// Rows [first, first + count) into boxes of the file's precision.
LoadedBoxes read_loaded_rows(ByteSource& in, const std::string& name, const Layout& layout, std::uint64_t first,
                             std::uint64_t count) {
    if (layout.item == 4) {
        FloatBoxes boxes;
        read_rows(in, name, layout, first, count, boxes);
        return LoadedBoxes(std::move(boxes));
    }
    DoubleBoxes boxes;
    read_rows(in, name, layout, first, count, boxes);
    return LoadedBoxes(std::move(boxes));
}

}  // namespace

bool seek_stream(std::FILE* in, std::uint64_t offset, int whence) {
#if defined(_WIN32)
    return offset <= std::uint64_t(INT64_MAX) && _fseeki64(in, static_cast<__int64>(offset), whence) == 0;
#else
    return offset <= std::uint64_t(std::numeric_limits<off_t>::max()) &&
           fseeko(in, static_cast<off_t>(offset), whence) == 0;
#endif
}

bool tell_stream(std::FILE* in, std::uint64_t& offset) {
#if defined(_WIN32)
    const __int64 at = _ftelli64(in);
#else
    const off_t at = ftello(in);
#endif
    if (at < 0) return false;
    offset = static_cast<std::uint64_t>(at);
    return true;
}

LoadedBoxes read_npy_boxes(ByteSource& in, const std::string& name) {
    const Layout layout = read_layout(in, name);
    LoadedBoxes loaded = read_loaded_rows(in, name, layout, 0, layout.n);
    unsigned char extra;
    if (in.read(&extra, 1) != 0) throw CliError(name + ": unexpected data after the " + shape_text(layout.shape) + " array");
    return loaded;
}

LoadedBoxes read_npy_boxes(std::FILE* in, const std::string& name) {
    FileSource source(in);
    LoadedBoxes loaded = read_npy_boxes(source, name);
    if (std::ferror(in)) throw CliError(name + ": read error");
    return loaded;
}

LoadedBoxes read_npy_box_slice(std::FILE* in, const std::string& name, std::uint64_t part, std::uint64_t parts,
                               std::uint64_t* total_rows) {
    if (parts == 0 || part >= parts) throw CliError(name + ": no such slice");
    FileSource source(in);
    const Layout layout = read_layout(source, name);
    if (total_rows) *total_rows = layout.n;
    // n <= 2^32 and parts <= 2^31 (an MPI communicator's size): no overflow.
    const std::uint64_t begin = layout.n * part / parts, end = layout.n * (part + 1) / parts;
    // The size of the file says whether the data is all there and nothing
    // follows it (read_npy_boxes' checks, with its messages), without
    // reading it; then only the slice's bytes are read.
    std::uint64_t size = 0;
    if (seek_stream(in, 0, SEEK_END) && tell_stream(in, size)) {
        const std::uint64_t needed = layout.n * layout.row_bytes();
        const std::uint64_t present = size > layout.data_at ? size - layout.data_at : 0;
        if (present < needed) throw CliError(name + ": " + truncated_message(layout, present));
        if (present > needed)
            throw CliError(name + ": unexpected data after the " + shape_text(layout.shape) + " array");
        if (!seek_stream(in, layout.data_at + begin * layout.row_bytes(), SEEK_SET)) throw CliError(name + ": read error");
        return read_loaded_rows(source, name, layout, begin, end - begin);
    }
    // A stream that cannot seek (a pipe): read everything, keep the slice.
    std::clearerr(in);
    LoadedBoxes all = read_loaded_rows(source, name, layout, 0, layout.n);
    if (std::fgetc(in) != EOF) throw CliError(name + ": unexpected data after the " + shape_text(layout.shape) + " array");
    if (std::ferror(in)) throw CliError(name + ": read error");
    return all.slice(static_cast<std::size_t>(begin), static_cast<std::size_t>(end));
}

namespace {

/// The format 1.0 preamble and header of a C-order (rows, cols) array of `descr`.
bool write_npy_header(std::FILE* out, const char* descr, std::size_t rows, int cols) {
    std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" +
                         std::to_string(rows) + ", " + std::to_string(cols) + "), }";
    // Pad with spaces and end with '\n' so the data starts 64-byte aligned.
    const std::size_t prefix = magic_size + 2 + 2;
    header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
    header += '\n';
    unsigned char pre[prefix];
    std::memcpy(pre, magic, magic_size);
    pre[6] = 1;
    pre[7] = 0;
    pre[8] = static_cast<unsigned char>(header.size() & 0xff);
    pre[9] = static_cast<unsigned char>(header.size() >> 8);
    if (std::fwrite(pre, 1, prefix, out) != prefix) return false;
    return std::fwrite(header.data(), 1, header.size(), out) == header.size();
}

}  // namespace

bool write_npy_pairs(std::FILE* out, const std::vector<broadphase::Pair>& pairs) {
    if (!write_npy_header(out, "<u4", pairs.size(), 2)) return false;
    std::vector<unsigned char> buf;
    const std::size_t chunk = 8192;
    for (std::size_t i = 0; i < pairs.size(); i += chunk) {
        const std::size_t m = std::min(chunk, pairs.size() - i);
        buf.resize(m * 8);
        for (std::size_t k = 0; k < m; ++k) {
            store_le32(&buf[k * 8], pairs[i + k].a);
            store_le32(&buf[k * 8 + 4], pairs[i + k].b);
        }
        if (std::fwrite(buf.data(), 1, buf.size(), out) != buf.size()) return false;
    }
    return true;
}

bool write_npy_boxes(std::FILE* out, const broadphase::Boxes& boxes) {
    if (!write_npy_header(out, "<f4", boxes.size(), 6)) return false;
    std::vector<unsigned char> buf;
    const std::size_t chunk = 4096;
    for (std::size_t i = 0; i < boxes.size(); i += chunk) {
        const std::size_t m = std::min(chunk, boxes.size() - i);
        buf.resize(m * 24);
        for (std::size_t k = 0; k < m; ++k)
            for (int c = 0; c < 6; ++c) {
                const float v = c < 3 ? boxes.min(c)[i + k] : boxes.max(c - 3)[i + k];
                std::uint32_t bits;
                std::memcpy(&bits, &v, 4);
                store_le32(&buf[k * 24 + 4 * c], bits);
            }
        if (std::fwrite(buf.data(), 1, buf.size(), out) != buf.size()) return false;
    }
    return true;
}

}  // namespace broadphase_cli
