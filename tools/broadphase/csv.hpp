// Text files: CSV (.csv) and whitespace-separated text (.txt, .dat), one
// reader for both.
//
// Boxes: six numbers per line, minx miny minz maxx maxy maxz.
//   CSV: separated by commas with optional spaces or tabs around them.
//   Text (what numpy's np.savetxt writes by default, and np.loadtxt reads):
//   separated by any run of spaces or tabs; '#' starts a comment that runs
//   to the end of the line (np.savetxt's "# " header is one).
// Blank lines are ignored. The first non-blank line is a header, and
// skipped, when it has six fields and none is a number. "nan" and "inf" are
// numbers, and so is scientific notation (1.000000000000000000e+00).
//
// Precision: each value is parsed as the double nearest its decimal text
// (strtod), and answers are exact for those doubles. When every value of the
// file is exactly a float (as in a file written from float32 data) the boxes
// are returned as float, which gives the same answers faster; otherwise as
// double. No value is ever rounded to float, so 0.30000000000000004 and the
// next double above it stay apart, and min > max by one double ulp stays
// invalid.
//
// Pairs: one "i,j" (CSV) or "i j" (text) line per pair, no header.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include <broadphase/boxes.hpp>
#include <broadphase/pairs.hpp>

#include "loaded_boxes.hpp"

namespace broadphase_cli {

/// How the fields of a line are separated.
enum class TextDialect {
    csv,         ///< commas, optional spaces around them
    whitespace,  ///< runs of spaces or tabs; '#' comments (np.savetxt, np.loadtxt)
};

/// Reads boxes from an open text stream: float boxes when every value is
/// exactly a float, double boxes otherwise (see above). `name` labels the
/// error messages: throws CliError("name: line L: problem") on malformed input.
LoadedBoxes read_text_boxes(std::FILE* in, const std::string& name, TextDialect dialect);

/// read_text_boxes for a CSV stream.
inline LoadedBoxes read_csv_boxes(std::FILE* in, const std::string& name) {
    return read_text_boxes(in, name, TextDialect::csv);
}

/// Writes one "i,j" (csv) or "i j" (whitespace) line per pair. False on a write error.
bool write_text_pairs(std::FILE* out, const std::vector<broadphase::Pair>& pairs, TextDialect dialect);

/// Writes one "i,j" line per pair. False on a write error.
inline bool write_csv_pairs(std::FILE* out, const std::vector<broadphase::Pair>& pairs) {
    return write_text_pairs(out, pairs, TextDialect::csv);
}

/// Writes six numbers a line (minx miny minz maxx maxy maxz), each the
/// shortest text that reads back as the same value, so read_text_boxes
/// gives the same float boxes back. False on a write error.
bool write_text_boxes(std::FILE* out, const broadphase::Boxes& boxes, TextDialect dialect);

}  // namespace broadphase_cli
