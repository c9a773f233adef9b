// The CLI's mesh reader (tools/broadphase/mesh.cpp), called directly: one
// mesh written here in every format and variant the reader takes gives the
// same face boxes, computed here from the mesh; each malformed file fails with
// a CliError that says where and what.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "errors.hpp"
#include "mesh.hpp"

namespace {

using broadphase_cli::CliError;
using broadphase_cli::FloatBoxes;
using broadphase_cli::MeshFormat;
using broadphase_cli::parse_mesh_face_boxes;

struct Mesh {
    std::vector<std::array<float, 3>> vertices;
    std::vector<std::vector<int>> faces;
};

/// Ten vertices at coordinates that are not short decimals in binary, and
/// faces of 3 to 5 vertices, or only triangles (for STL).
Mesh sample_mesh(bool triangles_only) {
    Mesh m;
    for (int i = 0; i < 10; ++i)
        m.vertices.push_back({0.1f * static_cast<float>(i), 1.3f - 0.7f * static_cast<float>(i % 4),
                              -2.7f + 0.3f * static_cast<float>(i * i % 7)});
    m.faces = {{0, 1, 2}, {2, 3, 4}, {9, 8, 5}, {1, 6, 7}, {3, 4, 5}, {0, 9, 4}};
    if (!triangles_only) {
        m.faces.push_back({0, 1, 2, 3});
        m.faces.push_back({5, 6, 7, 8, 9});
        m.faces.push_back({9, 2, 4, 6});
    }
    return m;
}

/// The boxes the reader must give: each face's vertices' bounds.
FloatBoxes boxes_of(const Mesh& m) {
    FloatBoxes b(m.faces.size());
    for (std::size_t f = 0; f < m.faces.size(); ++f)
        for (int k = 0; k < 3; ++k) {
            float lo = m.vertices[m.faces[f][0]][k], hi = lo;
            for (int v : m.faces[f]) {
                lo = std::min(lo, m.vertices[v][k]);
                hi = std::max(hi, m.vertices[v][k]);
            }
            b.min(k)[f] = lo;
            b.max(k)[f] = hi;
        }
    return b;
}

/// Bit for bit (NaN equal to NaN).
void expect_same_boxes(const FloatBoxes& got, const FloatBoxes& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i)
        for (int k = 0; k < 3; ++k) {
            EXPECT_EQ(std::memcmp(&got.min(k)[i], &want.min(k)[i], 4), 0) << "box " << i << " min " << k;
            EXPECT_EQ(std::memcmp(&got.max(k)[i], &want.max(k)[i], 4), 0) << "box " << i << " max " << k;
        }
}

/// A float's shortest text that reads back as the same float.
std::string text(float x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(x));
    return buf;
}

std::string off_file(const Mesh& m, bool counts_on_keyword_line) {
    std::string s = counts_on_keyword_line ? "OFF " : "OFF\n# a comment, then the counts\n";
    s += std::to_string(m.vertices.size()) + " " + std::to_string(m.faces.size()) + " 0\n";
    for (const auto& v : m.vertices) s += text(v[0]) + " " + text(v[1]) + "\t" + text(v[2]) + "  # a vertex\n";
    s += "\n";
    for (std::size_t f = 0; f < m.faces.size(); ++f) {
        s += std::to_string(m.faces[f].size());
        for (int v : m.faces[f]) s += " " + std::to_string(v);
        s += f % 2 ? " 255 0 0\r\n" : "\n";  // a colour after the indices, and a CRLF
    }
    return s;
}

/// Index styles in turn: a, a/t, a/t/n, a//n, and each negative (relative).
std::string obj_file(const Mesh& m) {
    std::string s = "# made by mesh_test\nmtllib none.mtl\no sample\n";
    for (const auto& v : m.vertices) s += "v " + text(v[0]) + " " + text(v[1]) + " " + text(v[2]) + " 1.0\n";
    s += "vt 0 0\nvn 0 0 1\ng faces\nusemtl none\ns off\n";
    const int n = static_cast<int>(m.vertices.size());
    int style = 0;
    for (const auto& face : m.faces) {
        s += "f";
        for (int v : face) {
            const int index = style % 2 ? v - n : v + 1;
            const char* const suffix[] = {"", "", "/1", "/1", "/1/1", "/1/1", "//1", "//1"};
            s += " " + std::to_string(index) + suffix[style % 8];
            ++style;
        }
        s += "\n";
    }
    return s + "l 1 2\n";
}

enum class PlyFormat { ascii, little, big };

/// PLY values of any type, as text or as bytes in either order.
class PlyWriter {
public:
    explicit PlyWriter(PlyFormat format) : format_(format) {}
    /// `type`: a PLY scalar type name.
    void put(const std::string& type, double value) {
        if (format_ == PlyFormat::ascii) {
            out += (type == "float" || type == "double" ? text(static_cast<float>(value))
                                                        : std::to_string(static_cast<long long>(value))) +
                   " ";
            return;
        }
        std::uint64_t bits = 0;
        int size = 4;
        if (type == "float") {
            const float f = static_cast<float>(value);
            std::uint32_t u;
            std::memcpy(&u, &f, 4);
            bits = u;
        } else if (type == "double") {
            std::memcpy(&bits, &value, 8);
            size = 8;
        } else {
            bits = static_cast<std::uint64_t>(static_cast<std::int64_t>(value));
            size = type == "uchar" || type == "char" ? 1 : type == "short" || type == "ushort" ? 2 : 4;
        }
        for (int k = 0; k < size; ++k) {
            const int shift = 8 * (format_ == PlyFormat::little ? k : size - 1 - k);
            out += static_cast<char>((bits >> shift) & 0xff);
        }
    }
    void end_record() {
        if (format_ == PlyFormat::ascii) out += "\n";
    }
    std::string out;

private:
    PlyFormat format_;
};

/// A PLY with properties and an element to skip around the ones read: a
/// vertex colour, a list among the vertex's properties, an 'edge' element
/// with a list, a face property before the indices and a list after them.
std::string ply_file(const Mesh& m, PlyFormat format, const std::string& indices = "list uchar int vertex_indices") {
    const char* const names[] = {"ascii", "binary_little_endian", "binary_big_endian"};
    std::string s = "ply\nformat " + std::string(names[static_cast<int>(format)]) + " 1.0\ncomment mesh_test\n";
    s += "element vertex " + std::to_string(m.vertices.size()) + "\n";
    s += "property float x\nproperty uchar red\nproperty double y\nproperty list uchar short extra\n"
         "property float z\nproperty int w\n";
    s += "element edge 2\nproperty int vertex1\nproperty list ushort uint more\n";
    s += "element face " + std::to_string(m.faces.size()) + "\n";
    s += "property uchar flags\nproperty " + indices + "\nproperty list int short other\nobj_info x\nend_header\n";
    const std::string count_type = indices.substr(5, indices.find(' ', 5) - 5);
    const std::string index_type =
        indices.substr(indices.find(' ', 5) + 1, indices.rfind(' ') - indices.find(' ', 5) - 1);
    PlyWriter w(format);
    for (const auto& v : m.vertices) {
        w.put("float", v[0]);
        w.put("uchar", 200);
        w.put("double", v[1]);
        w.put("uchar", 2);
        w.put("short", -1);
        w.put("short", 7);
        w.put("float", v[2]);
        w.put("int", -5);
        w.end_record();
    }
    for (int e = 0; e < 2; ++e) {
        w.put("int", e);
        w.put("ushort", e + 1);
        for (int k = 0; k <= e; ++k) w.put("uint", 4000000000.0);
        w.end_record();
    }
    for (const auto& face : m.faces) {
        w.put("uchar", 1);
        w.put(count_type, static_cast<double>(face.size()));
        for (int v : face) w.put(index_type, v);
        w.put("int", 1);
        w.put("short", 3);
        w.end_record();
    }
    return s + w.out;
}

std::string stl_ascii(const Mesh& m) {
    std::string s = "solid sample\n";
    for (const auto& face : m.faces) {
        s += "  facet normal 0 0 1\n    outer loop\n";
        for (int v : face)
            s += "      vertex " + text(m.vertices[v][0]) + " " + text(m.vertices[v][1]) + " " +
                 text(m.vertices[v][2]) + "\n";
        s += "    endloop\n  endfacet\n";
    }
    return s + "endsolid sample\n";
}

void put_le32(std::string& out, std::uint32_t v) {
    for (int k = 0; k < 4; ++k) out += static_cast<char>((v >> (8 * k)) & 0xff);
}
void put_float(std::string& out, float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    put_le32(out, u);
}

std::string stl_binary(const Mesh& m, const std::string& header) {
    std::string s = header;
    s.resize(80, ' ');
    put_le32(s, static_cast<std::uint32_t>(m.faces.size()));
    for (const auto& face : m.faces) {
        for (int k = 0; k < 3; ++k) put_float(s, 0.0f);
        for (int v : face)
            for (int k = 0; k < 3; ++k) put_float(s, m.vertices[v][k]);
        s += std::string(2, '\0');
    }
    return s;
}

FloatBoxes parse(const std::string& bytes, MeshFormat format) { return parse_mesh_face_boxes(bytes, "mesh", format); }

/// The message of the CliError parsing `bytes` throws ("" and a failure if none).
std::string error_of(const std::string& bytes, MeshFormat format) {
    try {
        parse_mesh_face_boxes(bytes, "m", format);
    } catch (const CliError& e) {
        return e.what();
    }
    ADD_FAILURE() << "no error";
    return "";
}

#define EXPECT_ERROR(bytes, format, text)                                             \
    do {                                                                              \
        const std::string message_ = error_of(bytes, format);                         \
        EXPECT_NE(message_.find(text), std::string::npos) << "message: " << message_; \
    } while (0)

// ---------------------------------------------------------------- formats

TEST(MeshReader, OffWithCommentsColoursAndCountsOnEitherLine) {
    const Mesh m = sample_mesh(false);
    expect_same_boxes(parse(off_file(m, false), MeshFormat::off), boxes_of(m));
    expect_same_boxes(parse(off_file(m, true), MeshFormat::off), boxes_of(m));
    // COFF's colours after x y z are ignored; so are NOFF's normals.
    std::string coff = off_file(m, false);
    coff.replace(0, 3, "COFF");
    expect_same_boxes(parse(coff, MeshFormat::off), boxes_of(m));
    std::string noff = "NOFF 3 1\n0 0 0 0 0 1\n1 2 3 0 0 1\n-1 5 0.5 0 0 1\n3 0 1 2\n";
    const FloatBoxes b = parse(noff, MeshFormat::off);
    ASSERT_EQ(b.size(), 1u);
    EXPECT_EQ(b.min(0)[0], -1.0f);
    EXPECT_EQ(b.max(1)[0], 5.0f);
    EXPECT_EQ(b.max(2)[0], 3.0f);
}

TEST(MeshReader, ObjWithSlashesNegativeIndicesAndPolygons) {
    const Mesh m = sample_mesh(false);
    expect_same_boxes(parse(obj_file(m), MeshFormat::obj), boxes_of(m));
    // A face may name a vertex defined after it.
    const FloatBoxes b = parse("f 1 2 3\nv 0 0 0\nv 1 1 1\nv 2 0 -1\n", MeshFormat::obj);
    ASSERT_EQ(b.size(), 1u);
    EXPECT_EQ(b.min(2)[0], -1.0f);
    EXPECT_EQ(b.max(0)[0], 2.0f);
}

TEST(MeshReader, PlyAsciiAndBothBinaryOrdersSkippingWhatIsNotRead) {
    const Mesh m = sample_mesh(false);
    for (PlyFormat format : {PlyFormat::ascii, PlyFormat::little, PlyFormat::big}) {
        SCOPED_TRACE(static_cast<int>(format));
        expect_same_boxes(parse(ply_file(m, format), MeshFormat::ply), boxes_of(m));
        expect_same_boxes(parse(ply_file(m, format, "list int uint vertex_index"), MeshFormat::ply), boxes_of(m));
        expect_same_boxes(parse(ply_file(m, format, "list ushort short vertex_indices"), MeshFormat::ply), boxes_of(m));
    }
}

TEST(MeshReader, StlAsciiAndBinaryEvenWhenBinaryStartsWithSolid) {
    const Mesh m = sample_mesh(true);
    expect_same_boxes(parse(stl_ascii(m), MeshFormat::stl), boxes_of(m));
    expect_same_boxes(parse(stl_binary(m, "binary STL"), MeshFormat::stl), boxes_of(m));
    expect_same_boxes(parse(stl_binary(m, "solid sample, but binary"), MeshFormat::stl), boxes_of(m));
    // Two solids, keywords in capitals.
    std::string two = stl_ascii(m) + stl_ascii(m);
    Mesh twice = m;
    for (const auto& f : m.faces) twice.faces.push_back(f);
    expect_same_boxes(parse(two, MeshFormat::stl), boxes_of(twice));
    std::string caps = stl_ascii(m);
    for (char& c : caps) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    expect_same_boxes(parse(caps, MeshFormat::stl), boxes_of(m));
}

TEST(MeshReader, OneMeshInEveryFormatGivesTheSameBoxes) {
    const Mesh m = sample_mesh(true);
    const FloatBoxes want = boxes_of(m);
    const std::vector<std::pair<std::string, MeshFormat>> files = {
        {off_file(m, false), MeshFormat::off},
        {obj_file(m), MeshFormat::obj},
        {ply_file(m, PlyFormat::ascii), MeshFormat::ply},
        {ply_file(m, PlyFormat::little), MeshFormat::ply},
        {ply_file(m, PlyFormat::big), MeshFormat::ply},
        {stl_ascii(m), MeshFormat::stl},
        {stl_binary(m, "solid"), MeshFormat::stl},
    };
    for (const auto& f : files) expect_same_boxes(parse(f.first, f.second), want);
}

TEST(MeshReader, EmptyMeshesGiveNoBoxes) {
    EXPECT_EQ(parse("OFF\n0 0 0\n", MeshFormat::off).size(), 0u);
    EXPECT_EQ(parse("", MeshFormat::obj).size(), 0u);
    EXPECT_EQ(parse("solid x\nendsolid x\n", MeshFormat::stl).size(), 0u);
    EXPECT_EQ(parse(stl_binary(Mesh{}, ""), MeshFormat::stl).size(), 0u);
    EXPECT_EQ(parse("ply\nformat ascii 1.0\nelement vertex 0\nproperty float x\nproperty float y\nproperty float z\n"
                    "element face 0\nproperty list uchar int vertex_indices\nend_header\n",
                    MeshFormat::ply)
                  .size(),
              0u);
}

TEST(MeshReader, NanGivesAnInvalidBoxAndInfinitiesAreKept) {
    const FloatBoxes b = parse("v nan 0 0\nv 1 -inf 0\nv 2 0 1\nv 3 3 3\nf 1 2 3\nf 2 3 4\n", MeshFormat::obj);
    ASSERT_EQ(b.size(), 2u);
    EXPECT_TRUE(std::isnan(b.min(0)[0]));
    EXPECT_TRUE(std::isnan(b.max(0)[0]));
    EXPECT_EQ(b.min(1)[0], -std::numeric_limits<float>::infinity());
    EXPECT_EQ(b.max(2)[0], 1.0f);
    EXPECT_EQ(b.min(0)[1], 1.0f);
    EXPECT_EQ(b.min(1)[1], -std::numeric_limits<float>::infinity());
    // A NaN in a vertex that comes later in the face too.
    const FloatBoxes c = parse("OFF\n3 1\n0 0 0\n1 1 1\n2 nan 2\n3 0 1 2\n", MeshFormat::off);
    EXPECT_TRUE(std::isnan(c.min(1)[0]));
    EXPECT_EQ(c.max(0)[0], 2.0f);
}

TEST(MeshReader, DoublePlyCoordinatesAreRoundedOnceToFloat) {
    PlyWriter w(PlyFormat::little);
    for (double d : {1.0 / 3, 1e300, -1e300, 0.5, 1.0, 2.0, 1.0, 0.5, 3.0}) w.put("double", d);
    w.put("uchar", 3);
    for (int v = 0; v < 3; ++v) w.put("int", v);
    const std::string ply =
        "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty double x\n"
        "property double y\nproperty double z\nelement face 1\n"
        "property list uchar int vertex_indices\nend_header\n" +
        w.out;
    const FloatBoxes b = parse(ply, MeshFormat::ply);
    ASSERT_EQ(b.size(), 1u);
    EXPECT_EQ(b.min(0)[0], static_cast<float>(1.0 / 3));
    EXPECT_EQ(b.max(0)[0], 1.0f);
    EXPECT_EQ(b.max(1)[0], std::numeric_limits<float>::infinity());
    EXPECT_EQ(b.min(1)[0], 0.5f);
    EXPECT_EQ(b.min(2)[0], -std::numeric_limits<float>::infinity());
    EXPECT_EQ(b.max(2)[0], 3.0f);
}

/// EXPECT_ERROR for each (bytes, text) case of one format.
void expect_errors(MeshFormat format, const std::vector<std::pair<std::string, std::string>>& cases) {
    for (const auto& c : cases) {
        SCOPED_TRACE(c.second);
        EXPECT_ERROR(c.first, format, c.second);
    }
}

// ---------------------------------------------------------------- malformed

TEST(MeshReader, MalformedOffSaysWhereAndWhat) {
    const std::string head = "OFF\n4 2 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n";
    expect_errors(
        MeshFormat::off,
        {
            {"", "m: not an OFF file"},
            {"3 1 0\n", "not an OFF file"},
            {"4OFF\n1 0 0\n0 0 0 0\n", "only 3-D OFF"},
            {"nOFF\n", "only 3-D OFF"},
            {"OFF BINARY\n", "binary OFF is not supported"},
            {"OFF\n", "the file ends before the vertex and face counts"},
            {"OFF\n4 x 0\n", "line 2: expected the vertex, face"},
            {"OFF\n4 -2 0\n", "expected the vertex, face"},
            {"OFF\n4 2 0\n0 0 0\n1 0 0\n", "the file ends after 2 of 4 vertices"},
            {"OFF\n4 2 0\n0 0 0\n1 0\n", "line 4: vertex 1: expected x y z, found 2 values"},
            {"OFF\n4 2 0\n0 0 0\n1 zero 0\n", "line 4: 'zero' is not a number (vertex 1)"},
            {head + "3 0 1 2\n", "the file ends after 1 of 2 faces"},
            {head + "3 0 1 2\n3 0 1 4\n", "m: line 8: face 1 refers to vertex 4 of 4 (vertices are numbered 0 to 3)"},
            {head + "3 0 1 2\n2 0 1\n", "line 8: face 1 has 2 vertices; a face needs at least 3"},
            {head + "3 0 1 2\n0\n", "face 1 has 0 vertices"},
            {head + "3 0 1 2\n4 0 1 2\n", "line 8: face 1: 4 vertices announced, 3 values found"},
            {head + "3 0 1 2\n3 0 -1 2\n", "face 1: '-1' is not a vertex index"},
            {head + "3 0 1 2\n3 0 1 2\n3 0 1 3\n", "line 9: more lines than the header's 4 vertices and 2 faces"},
        });
    // Counts no file of this size can hold: an error, not gigabytes reserved.
    expect_errors(MeshFormat::off,
                  {
                      {"OFF\n4000000000 4000000000 0\n0 0 0\n", "the file ends after 1 of 4000000000 vertices"},
                      {"OFF\n99999999999999999999 1 0\n", "expected the vertex, face"},
                  });
}

TEST(MeshReader, MalformedObjSaysWhereAndWhat) {
    const std::string v = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
    expect_errors(MeshFormat::obj,
                  {
                      {v + "f 1 2 4\n", "m: line 4: face 0 refers to vertex 4 of 3 (vertices are numbered 1 to 3)"},
                      {v + "f 1 2 3\nf 1 2\n", "line 5: face 1 has 2 vertices; a face needs at least 3"},
                      {v + "f 1 2 0\n", "line 4: face 0: '0' is not a vertex index"},
                      {v + "f 1 2 x/1\n", "face 0: 'x/1' is not a vertex index"},
                      {v + "f 1 2 /1\n", "is not a vertex index"},
                      {v + "f -1 -2 -4\n", "line 4: face 0: relative index -4 with only 3 vertices before it"},
                      {"v 0 0\n", "line 1: expected 'v x y z'"},
                      {"v 0 0 1e\n", "line 1: '1e' is not a number (vertex 0)"},
                      {"f 1 2 3\n", "face 0 refers to vertex 1 of 0 (there are none)"},
                  });
}

TEST(MeshReader, MalformedPlySaysWhereAndWhat) {
    const Mesh m = sample_mesh(false);
    const std::string good = ply_file(m, PlyFormat::little);
    const std::size_t data = good.find("end_header\n") + 11;
    expect_errors(
        MeshFormat::ply,
        {
            {"", "not a PLY file"},
            {"ply\nformat ascii 1.0\n", "the file ends before 'end_header'"},
            {"ply\nformat utf8 1.0\nend_header\n", "line 2: unknown PLY format 'utf8'"},
            {"ply\nelement face 1\nend_header\n", "no 'format' line"},
            {"ply\nformat ascii 1.0\nproperty float x\nend_header\n", "line 3: a property before any element"},
            {"ply\nformat ascii 1.0\nelement vertex 1\nproperty float128 x\nend_header\n",
             "line 4: unknown property type"},
            {"ply\nformat ascii 1.0\nelement face 1\nproperty list float int vertex_indices\nend_header\n",
             "a list's count must have an integer type"},
            {"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nend_header\n0 0\n",
             "the vertex element has no z property"},
            {"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\n"
             "end_header\n0 0 0\n",
             "no 'face' element"},
            {"ply\nformat ascii 1.0\nelement face 1\nproperty list uchar float vertex_indices\nend_header\n3 0 1 2\n",
             "vertex indices are not integers"},
            {"ply\nformat ascii 1.0\nelement face 1\nproperty int vertex_indices\nend_header\n3\n",
             "no vertex_indices (or vertex_index) list"},
            {"ply\nformat ascii 1.0\nbogus line\nend_header\n", "line 3: unknown PLY header line"},
        });

    // Binary: truncated, a list past the end, counts past the file.
    expect_errors(MeshFormat::ply, {
                                       {good.substr(0, good.size() - 3), "face 8 (byte"},
                                       {good.substr(0, good.size() - 3), "the file ends inside it"},
                                       {good + "x", "more data than the header's elements hold"},
                                   });
    std::string overrun = good;
    overrun[data + 4 + 1 + 8] = static_cast<char>(255);  // vertex 0's skipped list of shorts: 255 of them
    expect_errors(MeshFormat::ply, {
                                       {overrun, "m: vertex 0 (byte " + std::to_string(data + 14) + "): "},
                                       {overrun, "a list of 255 values runs past the end of the file"},
                                   });
    // The last face, {9, 2, 4, 6}: flags, count, 4 indices, the other list (6
    // bytes). Its count made 255: the list runs far past the end.
    std::string face_overrun = good;
    face_overrun[good.size() - (1 + 1 + 16 + 6) + 1] = static_cast<char>(255);
    expect_errors(MeshFormat::ply,
                  {
                      {face_overrun, "m: face 8 (byte"},
                      {face_overrun, "a list of 255 values runs past the end of the file (22 bytes left)"},
                  });
    std::string huge = good;
    huge.replace(huge.find("element face 9"), 14, "element face 4000000000");
    EXPECT_ERROR(huge, MeshFormat::ply, "the file ends inside it");
    std::string huge_vertices = good;
    huge_vertices.replace(huge_vertices.find("element vertex 10"), 17, "element vertex 999999999999");
    expect_errors(MeshFormat::ply,
                  {
                      {huge_vertices, "m: vertex "},
                      {"ply\nformat binary_big_endian 1.0\nelement nothing 99999999999999\nelement face 1\n"
                       "property list uchar uint vertex_indices\nend_header\n\xff",
                       "a list of 255 values runs past the end of the file (0 bytes left)"},
                      {"ply\nformat binary_little_endian 1.0\nelement face 1\nproperty list char int vertex_indices\n"
                       "end_header\n\xfe",
                       "a list of -2 values"},
                  });

    // ASCII: out of range, negative, too few, junk, extra values.
    const std::string head =
        "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
        "element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n";
    expect_errors(MeshFormat::ply,
                  {
                      {head + "3 0 1 3\n", "m: line 13: face 0 refers to vertex 3 of 3 (vertices are numbered 0 to 2)"},
                      {head + "3 0 -1 2\n", "line 13: face 0: refers to vertex -1"},
                      {head + "2 0 1\n", "line 13: face 0 has 2 vertices; a face needs at least 3"},
                      {head + "3 0 1 two\n", "line 13: face 0: 'two' is not an integer"},
                      {head + "3 0 1 2 5\n", "line 13: more data than the header's elements hold"},
                      {head + "3 0 1\n", "face 0: the file ends inside it"},
                  });
}

TEST(MeshReader, MalformedPlyBinaryFaceIndexOutOfRange) {
    Mesh m = sample_mesh(false);
    m.faces.push_back({0, 1, 10});
    EXPECT_ERROR(ply_file(m, PlyFormat::big), MeshFormat::ply, "m: face 9 refers to vertex 10 of 10");
}

TEST(MeshReader, MalformedStlSaysWhereAndWhat) {
    const Mesh m = sample_mesh(true);
    const std::string binary = stl_binary(m, "solid but binary");
    expect_errors(
        MeshFormat::stl,
        {
            {"", "not an STL file: not ASCII (no 'solid' at the start) and shorter than"},
            {stl_binary(m, "binary").substr(0, binary.size() - 1),
             "not an STL file: not ASCII (no 'solid' at the start) and 383 bytes, not the 384 of a binary STL"},
        });
    // Starting with "solid", read as ASCII: the message says why not binary.
    EXPECT_ERROR(binary.substr(0, binary.size() - 1), MeshFormat::stl, "(read as ASCII STL: 383 bytes, not the 384");
    const std::string facet = "facet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n";
    expect_errors(MeshFormat::stl,
                  {
                      {"solid a\n" + facet + "endloop\nendfacet\nendsolid a\n",
                       "m: line 2: face 0 has 2 vertices; a face needs at least 3"},
                      {"solid a\n" + facet, "the file ends before 'endloop'"},
                      {"solid a\n" + facet + "vertex 0 1 0\nendloop\n", "the file ends where 'endfacet' belongs"},
                      {"solid a\n" + facet + "vertex 0 x 0\n", "m: line 6: 'x' is not a number (vertex 2)"},
                      {"solid a\nfacet\n", "the file ends where 'normal' belongs"},
                      {"solid a\nfaced normal 0 0 1\n", "line 2: expected 'facet' or 'endsolid', found 'faced'"},
                      {"solid a\n", "the file ends before 'endsolid'"},
                  });
    EXPECT_EQ(error_of("solid a\n" + std::string(100, ' '), MeshFormat::stl),
              "m: line 2: the file ends before 'endsolid'");
    EXPECT_ERROR("solid a\nendsolid a\njunk\n", MeshFormat::stl, "line 3: expected 'solid' or the end of the file");
}

}  // namespace
