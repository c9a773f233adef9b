// CSV files.
//
// Boxes: six numbers per line, minx,miny,minz,maxx,maxy,maxz, separated by
// commas with optional spaces or tabs around them. Blank lines are ignored.
// The first non-blank line is a header, and skipped, when it has six fields
// and none is a number. "nan" and "inf" are numbers. Values are rounded to
// float.
//
// Pairs: one "i,j" line per pair, no header.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include <broadphase/boxes.hpp>
#include <broadphase/pairs.hpp>

namespace broadphase_cli {

/// Reads boxes from an open CSV stream. `name` labels the error messages:
/// throws CliError("name: line L: problem") on malformed input.
broadphase::Boxes read_csv_boxes(std::FILE* in, const std::string& name);

/// Writes one "i,j" line per pair. False on a write error.
bool write_csv_pairs(std::FILE* out, const std::vector<broadphase::Pair>& pairs);

}  // namespace broadphase_cli
