// Box and pair files: .npy, .npz (input), .csv, .txt or .dat by extension
// (case-insensitive), or "-" for stdin/stdout with --format naming the
// format. A file with another extension takes --format too. Mesh files,
// .off, .ply, .obj and .stl, are box files too (input only): the boxes of
// their faces (mesh.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <broadphase/boxes.hpp>
#include <broadphase/pairs.hpp>

#include "loaded_boxes.hpp"

namespace broadphase_cli {

/// How the command line names a file's format and, in a .npz, its array.
struct FileOptions {
    /// --format: npy, npz, csv, txt, off, ply, obj or stl, for "-" and for
    /// names without one of the known extensions (a known extension
    /// decides); "" when not given.
    std::string format;
    /// --array: the array of a .npz ("" = FILE.npz:NAME's, else the first).
    std::string array;
};

/// "-": stdin as an input, stdout as an output.
inline bool is_std_stream(const std::string& path) { return path == "-"; }

/// True when `path` ends in a known extension: .npy, .npz (or FILE.npz:NAME),
/// .csv, .txt, .dat, .off, .ply, .obj or .stl.
bool has_box_file_extension(const std::string& path);

/// Throws a usage error naming `path` unless it is a box file `options`
/// let load_boxes read: a known extension, or "-" or another name with a
/// --format.
void check_box_input(const std::string& path, const FileOptions& options = {});

/// Throws a usage error unless save_pairs can write `path` (.npy, .csv,
/// .txt, .dat, or "-" or another name with `format` npy, csv or txt).
void check_pairs_output(const std::string& path, const std::string& format = "");

/// Throws a usage error when `path` is "-" (for broadphase-mpi, whose ranks
/// each read their slice of a file and whose rank 0 writes the pairs).
void refuse_std_stream(const std::string& path);

/// Throws a usage error naming `path` unless it ends in a known extension
/// (check_box_input without --format; "-" refused: for broadphase-mpi,
/// whose ranks each read their slice of a file).
void check_file_extension(const std::string& path);

/// Throws a usage error when more than one of `inputs` is "-": stdin can be
/// read only once.
void check_one_stdin(const std::vector<std::string>& inputs);

/// How a path is named in messages: "<stdin>" for "-".
std::string file_label(const std::string& path);

/// Reads the boxes of a file in the file's precision (float32 .npy: float;
/// float64 .npy: double; text: see csv.hpp; a mesh: float, one box a face,
/// see mesh.hpp); throws CliError("path: problem").
LoadedBoxes load_boxes(const std::string& path, const FileOptions& options = {});

/// One part of a box file, as load_boxes reads it (same checks of the whole
/// file, same messages): rows [N*part/parts, N*(part+1)/parts). A .npy is
/// checked by its header and size and only those rows are read; any other
/// file is read whole (a text file's precision depends on every value) and
/// sliced. Sets *total_rows to N when given.
LoadedBoxes load_box_slice(const std::string& path, std::uint64_t part, std::uint64_t parts,
                           std::uint64_t* total_rows = nullptr);

/// Writes pairs to a .npy, .csv or .txt file through a temporary file
/// renamed into place, so a failure leaves no partial output; or to stdout
/// for "-". `format` as FileOptions::format. Throws CliError.
void save_pairs(const std::string& path, const std::vector<broadphase::Pair>& pairs, const std::string& format = "");

/// Writes boxes to a .npy ((N, 6) float32), .csv or .txt file (six numbers
/// a line, each reading back as the same float), or to stdout for "-", the
/// same way; a usage error for a file of no such format.
void save_boxes(const std::string& path, const broadphase::Boxes& boxes, const std::string& format = "");

}  // namespace broadphase_cli
