#include "mesh.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include <broadphase/pairs.hpp>

#include "errors.hpp"

namespace broadphase_cli {
namespace {

using std::string_view;

/// "name: line L: why", or "name: why" for binary data (line 0).
[[noreturn]] void fail(const std::string& name, std::uint64_t line, const std::string& why) {
    throw CliError(name + (line ? ": line " + std::to_string(line) : std::string()) + ": " + why);
}

/// A token as quoted in a message: cut short, since it may be binary junk.
std::string quoted(string_view token) {
    constexpr std::size_t most = 40;
    if (token.size() <= most) return "'" + std::string(token) + "'";
    return "'" + std::string(token.substr(0, most)) + "...'";
}

bool equal_ignoring_case(string_view a, string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

/// A whole token as the float nearest its decimal text (strtof, in the "C"
/// locale the CLI keeps: rounded once, not through double). The copy gives
/// strtof a terminator the token's bytes may lack.
bool parse_float(string_view token, float& out) {
    if (token.empty()) return false;
    char small[64];
    std::string large;
    const char* s = small;
    if (token.size() < sizeof small) {
        std::memcpy(small, token.data(), token.size());
        small[token.size()] = '\0';
    } else {
        large.assign(token);
        s = large.c_str();
    }
    char* end = nullptr;
    out = std::strtof(s, &end);
    return end == s + token.size();
}

bool parse_integer(string_view token, std::int64_t& out) {
    const char* end = token.data() + token.size();
    const auto r = std::from_chars(token.data(), end, out);
    return r.ec == std::errc() && r.ptr == end && !token.empty();
}

/// The lines of a text, each without its "\n" or "\r\n", numbered from 1.
class Lines {
public:
    explicit Lines(const std::string& text, std::size_t pos = 0, std::uint64_t lines_before = 0)
        : text_(text), pos_(pos), number_(lines_before) {}

    bool next(string_view& line) {
        if (pos_ >= text_.size()) return false;
        std::size_t end = text_.find('\n', pos_);
        if (end == std::string::npos) end = text_.size();
        line = string_view(text_).substr(pos_, end - pos_);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        pos_ = end + 1;
        ++number_;
        return true;
    }
    /// The number of the line next() gave last.
    std::uint64_t number() const { return number_; }
    /// Where the next line starts.
    std::size_t position() const { return std::min(pos_, text_.size()); }
    std::size_t bytes_left() const { return text_.size() - position(); }

private:
    const std::string& text_;
    std::size_t pos_;
    std::uint64_t number_;
};

/// The fields of a line, split at runs of blanks, after cutting a comment
/// from `comment` on ('\0': no comments).
void split_fields(string_view line, char comment, std::vector<string_view>& fields) {
    fields.clear();
    if (comment) line = line.substr(0, line.find(comment));
    constexpr const char* blanks = " \t\r\v\f";
    for (std::size_t b = line.find_first_not_of(blanks); b != string_view::npos;
         b = line.find_first_not_of(blanks, b)) {
        const std::size_t e = line.find_first_of(blanks, b);
        fields.push_back(line.substr(b, e == string_view::npos ? string_view::npos : e - b));
        b = e;
    }
}

/// Tokens across lines (ASCII PLY data, ASCII STL), with the line of each.
class Tokens {
public:
    Tokens(const std::string& text, std::size_t pos, std::uint64_t lines_before) : lines_(text, pos, lines_before) {}

    bool next(string_view& token) {
        while (i_ == fields_.size()) {
            string_view line;
            if (!lines_.next(line)) return false;
            split_fields(line, '\0', fields_);
            i_ = 0;
        }
        token = fields_[i_++];
        return true;
    }
    /// Drops what is left of the current line (an STL solid's name).
    void skip_line() { i_ = fields_.size(); }
    /// The line of the token next() gave last.
    std::uint64_t line() const { return lines_.number(); }
    std::size_t bytes_left() const { return lines_.bytes_left(); }

private:
    Lines lines_;
    std::vector<string_view> fields_;
    std::size_t i_ = 0;
};

/// Vertices and faces as read, and the boxes made from them once every
/// vertex is known (a face may come before the vertices it names: in an OBJ
/// by a positive index, in a PLY whose face element comes first).
class MeshBuilder {
public:
    MeshBuilder(const std::string& name, int first_index) : name_(name), first_index_(first_index) {}

    /// Reserves for `n` vertices, but never more than `cap`: a header's count
    /// is bounded by what the bytes left can hold before it sizes anything.
    void reserve_vertices(std::uint64_t n, std::uint64_t cap) {
        xyz_.reserve(3 * static_cast<std::size_t>(std::min(n, cap)));
    }
    void reserve_faces(std::uint64_t n, std::uint64_t cap) {
        const auto k = static_cast<std::size_t>(std::min({n, cap, broadphase::max_boxes}));
        ends_.reserve(k);
        lines_.reserve(k);
        indices_.reserve(3 * k);
    }

    std::uint64_t vertex_count() const { return xyz_.size() / 3; }
    std::uint64_t face_count() const { return ends_.size(); }

    void add_vertex(float x, float y, float z) {
        xyz_.push_back(x);
        xyz_.push_back(y);
        xyz_.push_back(z);
    }
    /// A vertex of the face being read, from 0 (checked in boxes()).
    void add_index(std::uint64_t v) { indices_.push_back(v); }
    /// Ends the face: at least 3 vertices. `line` 0: binary data.
    void end_face(std::uint64_t line) {
        const std::uint64_t begin = ends_.empty() ? 0 : ends_.back();
        const std::uint64_t n = indices_.size() - begin;
        if (n < 3)
            fail(name_, line,
                 "face " + std::to_string(ends_.size()) + " has " + std::to_string(n) +
                     (n == 1 ? " vertex" : " vertices") + "; a face needs at least 3");
        if (ends_.size() >= broadphase::max_boxes) fail(name_, line, "more faces than 32-bit box indices allow");
        ends_.push_back(indices_.size());
        lines_.push_back(line);
    }

    /// The face boxes; throws for an index past the last vertex.
    FloatBoxes boxes() const {
        const std::uint64_t nv = vertex_count();
        FloatBoxes out(ends_.size());
        std::uint64_t begin = 0;
        for (std::size_t f = 0; f < ends_.size(); ++f) {
            float lo[3], hi[3];
            bool nan[3] = {false, false, false};
            for (int k = 0; k < 3; ++k) {
                lo[k] = std::numeric_limits<float>::infinity();
                hi[k] = -lo[k];
            }
            for (std::uint64_t i = begin; i < ends_[f]; ++i) {
                const std::uint64_t v = indices_[i];
                if (v >= nv) bad_index(f, v);
                for (int k = 0; k < 3; ++k) {
                    const float c = xyz_[3 * v + k];
                    // std::min with a NaN answers by argument order: say NaN outright.
                    if (std::isnan(c)) nan[k] = true;
                    lo[k] = std::min(lo[k], c);
                    hi[k] = std::max(hi[k], c);
                }
            }
            for (int k = 0; k < 3; ++k) {
                out.min(k)[f] = nan[k] ? std::numeric_limits<float>::quiet_NaN() : lo[k];
                out.max(k)[f] = nan[k] ? std::numeric_limits<float>::quiet_NaN() : hi[k];
            }
            begin = ends_[f];
        }
        return out;
    }

private:
    [[noreturn]] void bad_index(std::size_t face, std::uint64_t v) const {
        const std::uint64_t nv = vertex_count();
        const std::string range = nv == 0 ? "there are none"
                                          : "vertices are numbered " + std::to_string(first_index_) + " to " +
                                                std::to_string(nv - 1 + first_index_);
        fail(name_, lines_[face],
             "face " + std::to_string(face) + " refers to vertex " + std::to_string(v + first_index_) + " of " +
                 std::to_string(nv) + " (" + range + ")");
    }

    const std::string& name_;
    int first_index_;                     // how the file numbers vertices: 0, or 1 in an OBJ
    std::vector<float> xyz_;              // 3 a vertex
    std::vector<std::uint64_t> indices_;  // every face's vertices, one face after another
    std::vector<std::uint64_t> ends_;     // where each face's indices end
    std::vector<std::uint64_t> lines_;    // each face's line, for messages (0: binary)
};

/// Three whole tokens as x y z.
void parse_vertex(MeshBuilder& mesh, const string_view* xyz, const std::string& name, std::uint64_t line) {
    float c[3];
    for (int k = 0; k < 3; ++k)
        if (!parse_float(xyz[k], c[k]))
            fail(name, line, quoted(xyz[k]) + " is not a number (vertex " + std::to_string(mesh.vertex_count()) + ")");
    mesh.add_vertex(c[0], c[1], c[2]);
}

// ---------------------------------------------------------------- OFF

/// Whether `key` is an OFF keyword this reader takes: [ST][C][N]OFF.
/// Throws for the 4-D, n-D and binary kinds, which it does not.
bool is_off_keyword(string_view key, const std::string& name, std::uint64_t line) {
    if (key.size() < 3 || key.substr(key.size() - 3) != "OFF") return false;
    string_view prefix = key.substr(0, key.size() - 3);
    if (!prefix.empty() && (prefix.back() == '4' || prefix.back() == 'n'))
        fail(name, line, quoted(key) + ": only 3-D OFF files are supported");
    for (string_view part : {"ST", "C", "N"})
        if (prefix.substr(0, part.size()) == part) prefix.remove_prefix(part.size());
    return prefix.empty();
}

FloatBoxes parse_off(const std::string& bytes, const std::string& name) {
    MeshBuilder mesh(name, 0);
    Lines lines(bytes);
    std::vector<string_view> f;
    const auto next_fields = [&] {
        string_view line;
        while (lines.next(line)) {
            split_fields(line, '#', f);
            if (!f.empty()) return true;
        }
        return false;
    };
    if (!next_fields() || !is_off_keyword(f[0], name, lines.number()))
        fail(name, lines.number(), "not an OFF file: it does not start with OFF (or COFF, NOFF, ...)");
    if (f.size() > 1 && equal_ignoring_case(f[1], "BINARY")) fail(name, lines.number(), "binary OFF is not supported");
    f.erase(f.begin());  // the counts may follow the keyword on its line
    if (f.empty() && !next_fields()) fail(name, lines.number(), "the file ends before the vertex and face counts");
    std::int64_t nv = 0, nf = 0, ne = 0;
    if (f.size() < 2 || f.size() > 3 || !parse_integer(f[0], nv) || !parse_integer(f[1], nf) ||
        (f.size() == 3 && !parse_integer(f[2], ne)) || nv < 0 || nf < 0 || ne < 0)
        fail(name, lines.number(), "expected the vertex, face and (optional) edge counts");

    // At least "0 0 0\n" a vertex and "3 0 1 2\n" a face.
    mesh.reserve_vertices(nv, lines.bytes_left() / 6);
    for (std::int64_t i = 0; i < nv; ++i) {
        if (!next_fields())
            fail(name, lines.number(),
                 "the file ends after " + std::to_string(i) + " of " + std::to_string(nv) + " vertices");
        if (f.size() < 3)
            fail(name, lines.number(),
                 "vertex " + std::to_string(i) + ": expected x y z, found " + std::to_string(f.size()) + " values");
        parse_vertex(mesh, f.data(), name, lines.number());
    }
    mesh.reserve_faces(nf, lines.bytes_left() / 8);
    for (std::int64_t i = 0; i < nf; ++i) {
        if (!next_fields())
            fail(name, lines.number(),
                 "the file ends after " + std::to_string(i) + " of " + std::to_string(nf) + " faces");
        const std::string face = "face " + std::to_string(i);
        std::int64_t n = 0;
        if (!parse_integer(f[0], n) || n < 0)
            fail(name, lines.number(), face + ": " + quoted(f[0]) + " is not a vertex count");
        if (static_cast<std::uint64_t>(n) > f.size() - 1)
            fail(name, lines.number(),
                 face + ": " + std::to_string(n) + " vertices announced, " + std::to_string(f.size() - 1) +
                     " values found");
        for (std::int64_t k = 1; k <= n; ++k) {
            std::int64_t v = 0;
            if (!parse_integer(f[k], v) || v < 0)
                fail(name, lines.number(), face + ": " + quoted(f[k]) + " is not a vertex index");
            mesh.add_index(static_cast<std::uint64_t>(v));
        }
        mesh.end_face(lines.number());  // values after the indices (a colour) are ignored
    }
    if (next_fields())
        fail(name, lines.number(),
             "more lines than the header's " + std::to_string(nv) + " vertices and " + std::to_string(nf) + " faces");
    return mesh.boxes();
}

// ---------------------------------------------------------------- OBJ

FloatBoxes parse_obj(const std::string& bytes, const std::string& name) {
    MeshBuilder mesh(name, 1);
    Lines lines(bytes);
    std::vector<string_view> f;
    string_view line;
    while (lines.next(line)) {
        split_fields(line, '#', f);
        if (f.empty()) continue;
        if (f[0] == "v") {
            if (f.size() < 4) fail(name, lines.number(), "expected 'v x y z'");
            parse_vertex(mesh, f.data() + 1, name, lines.number());  // w, or colours, ignored
        } else if (f[0] == "f") {
            const std::string face = "face " + std::to_string(mesh.face_count());
            for (std::size_t k = 1; k < f.size(); ++k) {
                const string_view index = f[k].substr(0, f[k].find('/'));  // a, a/t, a/t/n, a//n
                std::int64_t v = 0;
                if (!parse_integer(index, v) || v == 0)
                    fail(name, lines.number(), face + ": " + quoted(f[k]) + " is not a vertex index");
                if (v < 0) {  // relative: -1 is the last vertex so far
                    const std::uint64_t back = 0 - static_cast<std::uint64_t>(v);
                    if (back > mesh.vertex_count())
                        fail(name, lines.number(),
                             face + ": relative index " + std::to_string(v) + " with only " +
                                 std::to_string(mesh.vertex_count()) + " vertices before it");
                    mesh.add_index(mesh.vertex_count() - back);
                } else {
                    mesh.add_index(static_cast<std::uint64_t>(v) - 1);
                }
            }
            mesh.end_face(lines.number());
        }
    }
    return mesh.boxes();
}

// ---------------------------------------------------------------- binary data

enum class Endian { little, big };

/// Bytes of binary data read in order; every read checked against the end.
class Bytes {
public:
    Bytes(const std::string& bytes, std::size_t pos, Endian endian)
        : data_(reinterpret_cast<const unsigned char*>(bytes.data())),
          size_(bytes.size()),
          pos_(pos),
          endian_(endian) {}

    std::size_t left() const { return size_ - pos_; }
    std::size_t position() const { return pos_; }
    /// An unsigned integer of `n` (<= 8) bytes; precondition: left() >= n.
    std::uint64_t take(int n) {
        std::uint64_t v = 0;
        for (int k = 0; k < n; ++k) {
            const std::uint64_t byte = data_[pos_ + (endian_ == Endian::little ? k : n - 1 - k)];
            v |= byte << (8 * k);
        }
        pos_ += static_cast<std::size_t>(n);
        return v;
    }
    void skip(std::uint64_t n) { pos_ += static_cast<std::size_t>(n); }

private:
    const unsigned char* data_;
    std::size_t size_, pos_;
    Endian endian_;
};

float float_of_bits(std::uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

/// A double rounded to the nearest float, beyond float's range to an
/// infinity (as IEEE rounding does; a plain cast out of range is undefined).
float to_float(double d) {
    // Half an ulp above FLT_MAX rounds (to even) up to infinity.
    const double overflow = double(std::numeric_limits<float>::max()) + std::ldexp(1.0, 103);
    if (d >= overflow) return std::numeric_limits<float>::infinity();
    if (d <= -overflow) return -std::numeric_limits<float>::infinity();
    return static_cast<float>(d);
}

// ---------------------------------------------------------------- STL

/// A binary STL's size for its header's count: 84 + 50 x count.
std::uint64_t binary_stl_size(const std::string& bytes) {
    Bytes count(bytes, 80, Endian::little);
    return 84 + 50 * count.take(4);
}

FloatBoxes parse_binary_stl(const std::string& bytes, const std::string& name) {
    MeshBuilder mesh(name, 0);
    Bytes in(bytes, 80, Endian::little);
    const std::uint64_t n = in.take(4);  // the size was checked: 84 + 50 n
    mesh.reserve_vertices(3 * n, 3 * n);
    mesh.reserve_faces(n, n);
    for (std::uint64_t t = 0; t < n; ++t) {
        in.skip(12);  // the normal
        for (int v = 0; v < 3; ++v) {
            float c[3];
            for (float& x : c) x = float_of_bits(static_cast<std::uint32_t>(in.take(4)));
            mesh.add_index(mesh.vertex_count());
            mesh.add_vertex(c[0], c[1], c[2]);
        }
        in.skip(2);  // the attribute byte count
        mesh.end_face(0);
    }
    return mesh.boxes();
}

FloatBoxes parse_ascii_stl(const std::string& bytes, const std::string& name) {
    MeshBuilder mesh(name, 0);
    Tokens in(bytes, 0, 0);
    string_view t;
    const auto expect = [&](const char* keyword) {
        if (!in.next(t)) fail(name, in.line(), std::string("the file ends where '") + keyword + "' belongs");
        if (!equal_ignoring_case(t, keyword))
            fail(name, in.line(), std::string("expected '") + keyword + "', found " + quoted(t));
    };
    expect("solid");
    in.skip_line();  // the solid's name
    while (true) {
        if (!in.next(t)) fail(name, in.line(), "the file ends before 'endsolid'");
        if (equal_ignoring_case(t, "endsolid")) {
            in.skip_line();
            if (!in.next(t)) break;
            if (!equal_ignoring_case(t, "solid"))
                fail(name, in.line(), "expected 'solid' or the end of the file, found " + quoted(t));
            in.skip_line();
            continue;
        }
        if (!equal_ignoring_case(t, "facet"))
            fail(name, in.line(), "expected 'facet' or 'endsolid', found " + quoted(t));
        const std::uint64_t facet_line = in.line();
        expect("normal");
        for (int k = 0; k < 3; ++k)
            if (!in.next(t)) fail(name, in.line(), "the file ends in a facet's normal");
        expect("outer");
        expect("loop");
        while (true) {
            if (!in.next(t)) fail(name, in.line(), "the file ends before 'endloop'");
            if (equal_ignoring_case(t, "endloop")) break;
            if (!equal_ignoring_case(t, "vertex"))
                fail(name, in.line(), "expected 'vertex' or 'endloop', found " + quoted(t));
            string_view xyz[3];
            for (string_view& c : xyz)
                if (!in.next(c)) fail(name, in.line(), "the file ends in a vertex");
            mesh.add_index(mesh.vertex_count());
            parse_vertex(mesh, xyz, name, in.line());
        }
        expect("endfacet");
        mesh.end_face(facet_line);
    }
    return mesh.boxes();
}

FloatBoxes parse_stl(const std::string& bytes, const std::string& name) {
    // Binary files may start with "solid" too: the size decides.
    if (bytes.size() >= 84 && binary_stl_size(bytes) == bytes.size()) return parse_binary_stl(bytes, name);
    const std::string why_not_binary = bytes.size() < 84 ? "shorter than a binary STL's 84-byte header"
                                                         : std::to_string(bytes.size()) + " bytes, not the " +
                                                               std::to_string(binary_stl_size(bytes)) +
                                                               " of a binary STL of the header's count";
    const std::size_t start = bytes.find_first_not_of(" \t\r\n");
    if (start == std::string::npos || !equal_ignoring_case(string_view(bytes).substr(start, 5), "solid"))
        throw CliError(name + ": not an STL file: not ASCII (no 'solid' at the start) and " + why_not_binary);
    try {
        return parse_ascii_stl(bytes, name);
    } catch (const CliError& e) {
        // A NUL byte: more likely a binary file of the wrong size (truncated)
        // than broken text, so say why it was not read as binary.
        if (bytes.find('\0') == std::string::npos) throw;
        throw CliError(std::string(e.what()) + " (read as ASCII STL: " + why_not_binary + ")");
    }
}

// ---------------------------------------------------------------- PLY

enum class Scalar { i8, u8, i16, u16, i32, u32, f32, f64 };

bool scalar_of(string_view s, Scalar& out) {
    static const std::pair<const char*, Scalar> names[] = {
        {"char", Scalar::i8},   {"int8", Scalar::i8},     {"uchar", Scalar::u8},   {"uint8", Scalar::u8},
        {"short", Scalar::i16}, {"int16", Scalar::i16},   {"ushort", Scalar::u16}, {"uint16", Scalar::u16},
        {"int", Scalar::i32},   {"int32", Scalar::i32},   {"uint", Scalar::u32},   {"uint32", Scalar::u32},
        {"float", Scalar::f32}, {"float32", Scalar::f32}, {"double", Scalar::f64}, {"float64", Scalar::f64}};
    for (const auto& n : names)
        if (s == n.first) return out = n.second, true;
    return false;
}

int size_of(Scalar t) {
    switch (t) {
        case Scalar::i8:
        case Scalar::u8: return 1;
        case Scalar::i16:
        case Scalar::u16: return 2;
        case Scalar::f64: return 8;
        default: return 4;
    }
}

bool is_integer(Scalar t) { return t != Scalar::f32 && t != Scalar::f64; }

struct PlyProperty {
    std::string name;
    bool list = false;
    Scalar count_type = Scalar::u8, type = Scalar::f32;
};

struct PlyElement {
    std::string name;
    std::uint64_t count = 0;
    std::vector<PlyProperty> properties;

    /// The index of the property named `n`, or -1.
    int find(string_view n) const {
        for (std::size_t i = 0; i < properties.size(); ++i)
            if (properties[i].name == n) return static_cast<int>(i);
        return -1;
    }
    /// The fewest bytes a binary record takes: its scalars and list counts.
    std::uint64_t min_binary_size() const {
        std::uint64_t n = 0;
        for (const PlyProperty& p : properties)
            n += static_cast<std::uint64_t>(size_of(p.list ? p.count_type : p.type));
        return n;
    }
};

struct PlyHeader {
    bool ascii = true;
    Endian endian = Endian::little;
    std::vector<PlyElement> elements;
    std::size_t data = 0;     // where the data starts
    std::uint64_t lines = 0;  // the header's lines
};

PlyHeader parse_ply_header(const std::string& bytes, const std::string& name) {
    PlyHeader h;
    Lines lines(bytes);
    std::vector<string_view> f;
    string_view line;
    if (!lines.next(line) || line != "ply") fail(name, 0, "not a PLY file: it does not start with 'ply'");
    bool has_format = false;
    while (true) {
        if (!lines.next(line)) fail(name, lines.number(), "the file ends before 'end_header'");
        split_fields(line, '\0', f);
        const std::uint64_t at = lines.number();
        if (f.empty() || f[0] == "comment" || f[0] == "obj_info") continue;
        if (f[0] == "end_header") break;
        if (f[0] == "format") {
            if (f.size() != 3) fail(name, at, "expected 'format ascii|binary_little_endian|binary_big_endian 1.0'");
            h.ascii = f[1] == "ascii";
            h.endian = f[1] == "binary_big_endian" ? Endian::big : Endian::little;
            if (!h.ascii && f[1] != "binary_little_endian" && f[1] != "binary_big_endian")
                fail(name, at, "unknown PLY format " + quoted(f[1]));
            has_format = true;
        } else if (f[0] == "element") {
            std::int64_t n = 0;
            if (f.size() != 3 || !parse_integer(f[2], n) || n < 0) fail(name, at, "expected 'element NAME COUNT'");
            h.elements.push_back(PlyElement{std::string(f[1]), static_cast<std::uint64_t>(n), {}});
        } else if (f[0] == "property") {
            if (h.elements.empty()) fail(name, at, "a property before any element");
            PlyProperty p;
            const bool list = f.size() == 5 && f[1] == "list";
            if (!(list || f.size() == 3))
                fail(name, at, "expected 'property TYPE NAME' or 'property list COUNT_TYPE TYPE NAME'");
            p.list = list;
            p.name = std::string(f.back());
            if ((list && !scalar_of(f[2], p.count_type)) || !scalar_of(f[f.size() - 2], p.type))
                fail(name, at, "unknown property type in " + quoted(line));
            if (list && !is_integer(p.count_type)) fail(name, at, "a list's count must have an integer type");
            h.elements.back().properties.push_back(p);
        } else {
            fail(name, at, "unknown PLY header line " + quoted(line));
        }
    }
    if (!has_format) fail(name, lines.number(), "the PLY header has no 'format' line");
    h.data = lines.position();
    h.lines = lines.number();
    return h;
}

/// Where a reader of PLY data is, for its messages: the file, the element
/// and the record ("face 3").
class PlyPlace {
public:
    explicit PlyPlace(const std::string& name) : name_(name) {}
    void place(const std::string& element, std::uint64_t record) {
        element_ = &element;
        record_ = record;
    }

protected:
    std::string here() const { return *element_ + " " + std::to_string(record_); }
    const std::string& name_;

private:
    const std::string* element_ = nullptr;
    std::uint64_t record_ = 0;
};

/// The values of an ASCII PLY's data, one token each.
class PlyAsciiValues : public PlyPlace {
public:
    PlyAsciiValues(const std::string& bytes, const PlyHeader& h, const std::string& name)
        : PlyPlace(name), tokens_(bytes, h.data, h.lines) {}

    [[noreturn]] void fail_here(const std::string& why) const { fail(name_, tokens_.line(), here() + ": " + why); }
    float coordinate(Scalar) {
        float v;
        if (!parse_float(next(), v)) fail_here(quoted(token_) + " is not a number");
        return v;
    }
    std::int64_t integer(Scalar) {
        std::int64_t v;
        if (!parse_integer(next(), v)) fail_here(quoted(token_) + " is not an integer");
        return v;
    }
    void skip(Scalar) { next(); }
    void expect_list(Scalar, std::uint64_t) {}  // a short file ends in it
    void skip_list(Scalar, std::uint64_t n) {
        for (std::uint64_t i = 0; i < n; ++i) next();  // ends at the file's end
    }
    /// Records of an element that the bytes left can hold, at most: a value
    /// takes at least a character and a separator.
    std::uint64_t room(std::uint64_t values_per_record) const {
        return (tokens_.bytes_left() + 1) / 2 / std::max<std::uint64_t>(values_per_record, 1);
    }
    std::uint64_t line() const { return tokens_.line(); }
    bool at_end() {
        string_view t;
        return !tokens_.next(t);
    }

private:
    string_view next() {
        if (!tokens_.next(token_)) fail_here("the file ends inside it");
        return token_;
    }

    Tokens tokens_;
    string_view token_;
};

/// The values of a binary PLY's data, in its byte order.
class PlyBinaryValues : public PlyPlace {
public:
    PlyBinaryValues(const std::string& bytes, const PlyHeader& h, const std::string& name)
        : PlyPlace(name), in_(bytes, h.data, h.endian) {}

    [[noreturn]] void fail_here(const std::string& why) const {
        fail(name_, 0, here() + " (byte " + std::to_string(in_.position()) + "): " + why);
    }
    float coordinate(Scalar t) {
        const std::uint64_t bits = take(t);
        switch (t) {
            case Scalar::f32: return float_of_bits(static_cast<std::uint32_t>(bits));
            case Scalar::f64: {
                double d;
                std::memcpy(&d, &bits, sizeof d);
                return to_float(d);
            }
            default: return static_cast<float>(signed_value(t, bits));
        }
    }
    std::int64_t integer(Scalar t) { return signed_value(t, take(t)); }
    void skip(Scalar t) { take(t); }
    /// Throws unless `n` values of type `t` are left.
    void expect_list(Scalar t, std::uint64_t n) {
        if (n > in_.left() / static_cast<std::uint64_t>(size_of(t)))
            fail_here("a list of " + std::to_string(n) + " values runs past the end of the file (" +
                      std::to_string(in_.left()) + " bytes left)");
    }
    void skip_list(Scalar t, std::uint64_t n) {
        expect_list(t, n);
        in_.skip(n * static_cast<std::uint64_t>(size_of(t)));
    }
    std::uint64_t room(std::uint64_t min_record_size) const {
        return in_.left() / std::max<std::uint64_t>(min_record_size, 1);
    }
    std::uint64_t line() const { return 0; }
    bool at_end() const { return in_.left() == 0; }

private:
    std::uint64_t take(Scalar t) {
        const int n = size_of(t);
        if (in_.left() < static_cast<std::size_t>(n)) fail_here("the file ends inside it");
        return in_.take(n);
    }
    static std::int64_t signed_value(Scalar t, std::uint64_t bits) {
        switch (t) {
            case Scalar::i8: return static_cast<std::int8_t>(bits);
            case Scalar::i16: return static_cast<std::int16_t>(bits);
            case Scalar::i32: return static_cast<std::int32_t>(bits);
            default: return static_cast<std::int64_t>(bits);  // unsigned types (floats are refused before)
        }
    }

    Bytes in_;
};

template <class Values>
FloatBoxes read_ply_data(Values& in, const PlyHeader& h, const std::string& name) {
    MeshBuilder mesh(name, 0);
    bool has_faces = false;
    for (const PlyElement& e : h.elements) {
        if (e.properties.empty()) continue;  // records of nothing: no data, however many
        const bool is_vertex = e.name == "vertex", is_face = e.name == "face";
        int xyz[3] = {-1, -1, -1}, indices = -1;
        if (is_vertex) {
            for (int k = 0; k < 3; ++k) {
                xyz[k] = e.find(std::string(1, char('x' + k)));
                if (xyz[k] < 0)
                    fail(name, 0, "the vertex element has no " + std::string(1, char('x' + k)) + " property");
                if (e.properties[xyz[k]].list) fail(name, 0, "the vertex element's coordinates are lists");
            }
        }
        if (is_face) {
            indices = e.find("vertex_indices");
            if (indices < 0) indices = e.find("vertex_index");
            if (indices < 0 || !e.properties[indices].list)
                fail(name, 0, "the face element has no vertex_indices (or vertex_index) list");
            if (!is_integer(e.properties[indices].type))
                fail(name, 0, "the face element's vertex indices are not integers");
            has_faces = true;
        }
        const std::uint64_t room = in.room(h.ascii ? e.properties.size() : e.min_binary_size());
        if (is_vertex) mesh.reserve_vertices(e.count, room);
        if (is_face) mesh.reserve_faces(e.count, room);
        for (std::uint64_t r = 0; r < e.count; ++r) {
            in.place(e.name, r);
            float c[3] = {0, 0, 0};
            for (int j = 0; j < static_cast<int>(e.properties.size()); ++j) {
                const PlyProperty& p = e.properties[j];
                if (p.list) {
                    const std::int64_t n = in.integer(p.count_type);
                    if (n < 0) in.fail_here("a list of " + std::to_string(n) + " values");
                    if (j != indices) {
                        in.skip_list(p.type, static_cast<std::uint64_t>(n));
                        continue;
                    }
                    in.expect_list(p.type, static_cast<std::uint64_t>(n));
                    for (std::int64_t k = 0; k < n; ++k) {
                        const std::int64_t v = in.integer(p.type);
                        if (v < 0) in.fail_here("refers to vertex " + std::to_string(v));
                        mesh.add_index(static_cast<std::uint64_t>(v));
                    }
                    mesh.end_face(in.line());
                } else if (j == xyz[0] || j == xyz[1] || j == xyz[2]) {
                    c[j == xyz[0] ? 0 : j == xyz[1] ? 1 : 2] = in.coordinate(p.type);
                } else {
                    in.skip(p.type);
                }
            }
            if (is_vertex) mesh.add_vertex(c[0], c[1], c[2]);
        }
    }
    if (!has_faces) fail(name, 0, "no 'face' element: nothing to make boxes of (a point cloud?)");
    if (!in.at_end()) fail(name, in.line(), "more data than the header's elements hold");
    return mesh.boxes();
}

FloatBoxes parse_ply(const std::string& bytes, const std::string& name) {
    const PlyHeader h = parse_ply_header(bytes, name);
    if (h.ascii) {
        PlyAsciiValues in(bytes, h, name);
        return read_ply_data(in, h, name);
    }
    PlyBinaryValues in(bytes, h, name);
    return read_ply_data(in, h, name);
}

}  // namespace

const char* mesh_format_name(MeshFormat format) {
    switch (format) {
        case MeshFormat::off: return "off";
        case MeshFormat::ply: return "ply";
        case MeshFormat::obj: return "obj";
        default: return "stl";
    }
}

FloatBoxes parse_mesh_face_boxes(const std::string& bytes, const std::string& name, MeshFormat format) {
    switch (format) {
        case MeshFormat::off: return parse_off(bytes, name);
        case MeshFormat::ply: return parse_ply(bytes, name);
        case MeshFormat::obj: return parse_obj(bytes, name);
        default: return parse_stl(bytes, name);
    }
}

LoadedBoxes read_mesh_face_boxes(std::FILE* in, const std::string& name, MeshFormat format) {
    std::string bytes;
    std::vector<char> buf(1 << 16);
    std::size_t got;
    while ((got = std::fread(buf.data(), 1, buf.size(), in)) > 0) bytes.append(buf.data(), got);
    if (std::ferror(in)) throw CliError(name + ": read error");
    return LoadedBoxes(parse_mesh_face_boxes(bytes, name, format));
}

}  // namespace broadphase_cli
