#include "mesh.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string_view>
#include <vector>

#include <broadphase/pairs.hpp>

#include "errors.hpp"
#include "mesh_reading.hpp"

namespace broadphase_cli {
namespace mesh_reading {

[[noreturn]] void fail(const std::string& name, std::uint64_t line, const std::string& why) {
    throw CliError(name + (line ? ": line " + std::to_string(line) : std::string()) + ": " + why);
}

std::string quoted(string_view token) {
    constexpr std::size_t most = 40;
    if (token.size() <= most) return "'" + std::string(token) + "'";
    return "'" + std::string(token.substr(0, most)) + "...'";
}

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

void MeshBuilder::end_face(std::uint64_t line) {
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

FloatBoxes MeshBuilder::boxes() const {
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

void MeshBuilder::bad_index(std::size_t face, std::uint64_t v) const {
    const std::uint64_t nv = vertex_count();
    const std::string range = nv == 0 ? "there are none"
                                      : "vertices are numbered " + std::to_string(first_index_) + " to " +
                                            std::to_string(nv - 1 + first_index_);
    fail(name_, lines_[face],
         "face " + std::to_string(face) + " refers to vertex " + std::to_string(v + first_index_) + " of " +
             std::to_string(nv) + " (" + range + ")");
}

}  // namespace mesh_reading

namespace {

using namespace mesh_reading;

bool equal_ignoring_case(string_view a, string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

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
