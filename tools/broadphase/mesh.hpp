// Mesh files as box files: .off, .ply, .obj and .stl, read as the boxes of
// their faces.
//
// Box i is the axis-aligned bounding box of face i's vertices, in the file's
// face order (for .stl, its triangle order), so a pair (i, j) names two faces
// whose boxes overlap. Faces are polygons of 3 or more vertices. Boxes are
// float: each vertex coordinate is rounded to the nearest float once (a
// float file's are kept bit for bit), so faces sharing a vertex share its
// coordinates and their boxes still touch. A face with a NaN coordinate gets
// NaN on that axis, an invalid box (in no pair, counted by the CLI's note), as
// a NaN in a .csv does; infinities are kept.
//
// Formats:
//   PLY  ascii, binary_little_endian or binary_big_endian 1.0. The 'vertex'
//        element's x, y and z properties (any scalar type, among any other
//        properties), the 'face' element's list property vertex_indices or
//        vertex_index (any integer count and index types); other elements and
//        properties, lists included, are skipped.
//   OFF  an OFF header keyword (OFF, or COFF, NOFF, CNOFF, STOFF, ... whose
//        extra per-vertex values follow x y z on the vertex's line and are
//        ignored; 4OFF, nOFF and binary OFF are refused), then the vertex and
//        face counts (on the keyword's line or the next; the edge count is
//        optional), one vertex per line, one face per line ("n i1 ... in",
//        anything after the indices, such as a colour, ignored). '#' starts a
//        comment.
//   OBJ  "v x y z [w]" lines and "f a b c ..." lines, each index written a,
//        a/t, a/t/n or a//n, 1-based or negative (relative: -1 is the last
//        vertex so far); every other line (vt, vn, l, g, usemtl, ...) is
//        ignored, and so is a '#' comment.
//   STL  binary (an 80-byte header, a little-endian uint32 triangle count,
//        50 bytes a triangle) when the size is exactly 84 + 50 x count, even
//        if the header starts with "solid"; otherwise ASCII ("solid" ...
//        "facet normal" ... "outer loop" "vertex x y z" ... "endloop"
//        "endfacet" ... "endsolid", several solids allowed).
//
// Errors throw CliError("name: line L: problem") for text (or "name: problem"
// for binary data), naming the face and vertex where one is at fault: a
// truncated file, counts that do not match the data (too few or too many
// vertices, faces or values), a face of fewer than 3 vertices, an index out of
// range ("face 3 refers to vertex 99 of 8": faces count from 0 as boxes do,
// vertices as the file counts them, from 1 in an OBJ), a list that runs past
// the end of a binary PLY, an unknown keyword or type. Counts in headers are
// checked against the bytes left before anything is sized by them, so a
// header claiming billions of faces costs no memory.
#pragma once

#include <cstdio>
#include <string>

#include "loaded_boxes.hpp"

namespace broadphase_cli {

enum class MeshFormat { off, ply, obj, stl };

/// The format's name as an extension, without the dot: "off", "ply", ...
const char* mesh_format_name(MeshFormat format);

/// The face boxes of a mesh file held whole in `bytes` (see above). `name`
/// labels the error messages. Time and memory linear in the size: the
/// vertices (12 bytes each) and face indices are held until the boxes (24
/// bytes a face) are made.
FloatBoxes parse_mesh_face_boxes(const std::string& bytes, const std::string& name, MeshFormat format);

/// Reads an open stream to its end (a pipe too) and parses it with
/// parse_mesh_face_boxes: the whole file is held in memory while parsing.
LoadedBoxes read_mesh_face_boxes(std::FILE* in, const std::string& name, MeshFormat format);

}  // namespace broadphase_cli
