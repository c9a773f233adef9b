// NumPy .npy files (format versions 1.0, 2.0 and 3.0).
//
// Boxes come in as a C-order array of shape (N, 6), dtype '<f4' or '<f8',
// columns minx miny minz maxx maxy maxz, and stay in the file's precision:
// float32 as float, float64 as double (never rounded to float).
// Pairs go out as a C-order (K, 2) '<u4' array, format 1.0; boxes as (N, 6) '<f4'.
// Byte order is handled explicitly, so this works on any host.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <broadphase/boxes.hpp>
#include <broadphase/pairs.hpp>

#include "loaded_boxes.hpp"

namespace broadphase_cli {

/// Bytes read in order from somewhere: an open file, or an entry of a .npz
/// archive (npz.hpp).
class ByteSource {
public:
    virtual ~ByteSource() = default;
    /// Reads up to `n` bytes into `dst` and returns how many it read: fewer
    /// only at the end of the data (or on a read error the caller checks
    /// afterwards). May throw CliError for data it finds broken.
    virtual std::size_t read(void* dst, std::size_t n) = 0;
};

/// The bytes of an open stream from its current position.
class FileSource : public ByteSource {
public:
    explicit FileSource(std::FILE* in) : in_(in) {}
    std::size_t read(void* dst, std::size_t n) override { return std::fread(dst, 1, n, in_); }

private:
    std::FILE* in_;
};

/// Reads boxes from a .npy byte source, as read_npy_boxes(FILE*) does (the
/// source must end where the array ends). Checks no read error of its own:
/// the caller checks the stream under the source.
LoadedBoxes read_npy_boxes(ByteSource& in, const std::string& name);

/// Reads boxes from an open .npy stream: float boxes from '<f4', double
/// boxes from '<f8', bit for bit. `name` labels the error messages: throws
/// CliError("name: problem") on any malformed or truncated input.
LoadedBoxes read_npy_boxes(std::FILE* in, const std::string& name);

/// Reads rows [N*part/parts, N*(part+1)/parts) of the (N, 6) array of an
/// open .npy stream (one rank's share of the file), with read_npy_boxes'
/// checks and messages for the whole file. A seekable stream is checked by
/// its size and only the slice's bytes are read; one that cannot seek is
/// read whole. Sets *total_rows to N when given.
LoadedBoxes read_npy_box_slice(std::FILE* in, const std::string& name, std::uint64_t part, std::uint64_t parts,
                               std::uint64_t* total_rows = nullptr);

/// Seeks within `in` (fseeko: past 2 GiB too); false when the stream cannot
/// (a pipe) or the offset does not fit.
bool seek_stream(std::FILE* in, std::uint64_t offset, int whence);

/// The position of `in`; false when the stream has none (a pipe).
bool tell_stream(std::FILE* in, std::uint64_t& offset);

/// Writes pairs as a (K, 2) '<u4' array. False on a write error.
bool write_npy_pairs(std::FILE* out, const std::vector<broadphase::Pair>& pairs);

/// Writes boxes as an (N, 6) '<f4' array, columns minx miny minz maxx maxy
/// maxz (what read_npy_boxes reads back, bit for bit). False on a write error.
bool write_npy_boxes(std::FILE* out, const broadphase::Boxes& boxes);

}  // namespace broadphase_cli
