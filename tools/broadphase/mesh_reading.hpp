// What the mesh readers (mesh.hpp) share: mesh.cpp, which reads OFF, OBJ
// and STL and holds mesh.hpp's functions, and mesh_ply.cpp, which reads PLY.
// The error messages, the lines and tokens of text, the bytes of binary data
// in either byte order, and MeshBuilder, which makes the face boxes once
// every vertex is read. Internal to the two readers.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <broadphase/pairs.hpp>

#include "loaded_boxes.hpp"

namespace broadphase_cli::mesh_reading {

using std::string_view;

/// "name: line L: why", or "name: why" for binary data (line 0).
[[noreturn]] void fail(const std::string& name, std::uint64_t line, const std::string& why);

/// A token as quoted in a message: cut short, since it may be binary junk.
std::string quoted(string_view token);

/// A whole token as the float nearest its decimal text (strtof, in the "C"
/// locale the CLI keeps: rounded once, not through double). The copy gives
/// strtof a terminator the token's bytes may lack.
bool parse_float(string_view token, float& out);

bool parse_integer(string_view token, std::int64_t& out);

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
void split_fields(string_view line, char comment, std::vector<string_view>& fields);

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
    void end_face(std::uint64_t line);

    /// The face boxes; throws for an index past the last vertex.
    FloatBoxes boxes() const;

private:
    [[noreturn]] void bad_index(std::size_t face, std::uint64_t v) const;

    const std::string& name_;
    int first_index_;                     // how the file numbers vertices: 0, or 1 in an OBJ
    std::vector<float> xyz_;              // 3 a vertex
    std::vector<std::uint64_t> indices_;  // every face's vertices, one face after another
    std::vector<std::uint64_t> ends_;     // where each face's indices end
    std::vector<std::uint64_t> lines_;    // each face's line, for messages (0: binary)
};

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

inline float float_of_bits(std::uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

/// The face boxes of a PLY file (mesh_ply.cpp).
FloatBoxes parse_ply(const std::string& bytes, const std::string& name);

}  // namespace broadphase_cli::mesh_reading
