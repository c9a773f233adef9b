// Box and pair files by extension: .npy or .csv (case-insensitive).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <broadphase/boxes.hpp>
#include <broadphase/pairs.hpp>

#include "loaded_boxes.hpp"

namespace broadphase_cli {

/// True when `path` ends in .npy or .csv.
bool has_box_file_extension(const std::string& path);

/// Throws a usage error naming `path` unless it ends in .npy or .csv.
void check_file_extension(const std::string& path);

/// Reads the boxes of a .npy or .csv file in the file's precision (float32
/// .npy: float; float64 .npy: double; .csv: see csv.hpp); throws
/// CliError("path: problem").
LoadedBoxes load_boxes(const std::string& path);

/// One part of a box file, as load_boxes reads it (same checks of the whole
/// file, same messages): rows [N*part/parts, N*(part+1)/parts). A .npy is
/// checked by its header and size and only those rows are read; a .csv is
/// read whole (its precision depends on every value) and sliced. Sets
/// *total_rows to N when given.
LoadedBoxes load_box_slice(const std::string& path, std::uint64_t part, std::uint64_t parts,
                           std::uint64_t* total_rows = nullptr);

/// Writes pairs to a .npy or .csv file through a temporary file renamed
/// into place, so a failure leaves no partial output; throws CliError.
void save_pairs(const std::string& path, const std::vector<broadphase::Pair>& pairs);

/// Writes boxes to a .npy file ((N, 6) float32), the same way; a usage
/// error for any other extension.
void save_boxes(const std::string& path, const broadphase::Boxes& boxes);

}  // namespace broadphase_cli
