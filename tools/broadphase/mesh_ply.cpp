// The PLY reader of mesh.hpp: the header's elements and properties, then
// their data, ASCII or binary in either byte order, read by one template
// (read_ply_data) through PlyAsciiValues or PlyBinaryValues.
#include "mesh_reading.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace broadphase_cli::mesh_reading {
namespace {

/// A double rounded to the nearest float, beyond float's range to an
/// infinity (as IEEE rounding does; a plain cast out of range is undefined).
float to_float(double d) {
    // Half an ulp above FLT_MAX rounds (to even) up to infinity.
    const double overflow = double(std::numeric_limits<float>::max()) + std::ldexp(1.0, 103);
    if (d >= overflow) return std::numeric_limits<float>::infinity();
    if (d <= -overflow) return -std::numeric_limits<float>::infinity();
    return static_cast<float>(d);
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

}  // namespace

FloatBoxes parse_ply(const std::string& bytes, const std::string& name) {
    const PlyHeader h = parse_ply_header(bytes, name);
    if (h.ascii) {
        PlyAsciiValues in(bytes, h, name);
        return read_ply_data(in, h, name);
    }
    PlyBinaryValues in(bytes, h, name);
    return read_ply_data(in, h, name);
}

}  // namespace broadphase_cli::mesh_reading
