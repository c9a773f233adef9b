// CSV files.
//
// Boxes: six numbers per line, minx,miny,minz,maxx,maxy,maxz, separated by
// commas with optional spaces or tabs around them. Blank lines are ignored.
// The first non-blank line is a header, and skipped, when it has six fields
// and none is a number. "nan" and "inf" are numbers.
//
// Precision: each value is parsed as the double nearest its decimal text
// (strtod), and answers are exact for those doubles. When every value of the
// file is exactly a float (as in a file written from float32 data) the boxes
// are returned as float, which gives the same answers faster; otherwise as
// double. No value is ever rounded to float, so 0.30000000000000004 and the
// next double above it stay apart, and min > max by one double ulp stays
// invalid.
//
// Pairs: one "i,j" line per pair, no header.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include <broadphase/boxes.hpp>
#include <broadphase/pairs.hpp>

#include "loaded_boxes.hpp"

namespace broadphase_cli {

/// Reads boxes from an open CSV stream: float boxes when every value is
/// exactly a float, double boxes otherwise (see above). `name` labels the
/// error messages: throws CliError("name: line L: problem") on malformed input.
LoadedBoxes read_csv_boxes(std::FILE* in, const std::string& name);

/// Writes one "i,j" line per pair. False on a write error.
bool write_csv_pairs(std::FILE* out, const std::vector<broadphase::Pair>& pairs);

}  // namespace broadphase_cli
