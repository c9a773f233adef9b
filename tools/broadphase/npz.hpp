// NumPy .npz archives: what np.savez (a zip of stored .npy entries) and
// np.savez_compressed (deflated entries) write.
//
// The zip reader is this project's own: the end of central directory record
// (zip64's too), the central directory, each entry's local header, then the
// entry's bytes streamed into the .npy reader (npy.hpp), never held whole,
// their CRC-32 and size checked at the end. Stored entries need nothing
// else; deflated ones need zlib (found at build time: BROADPHASE_WITH_ZLIB),
// and without it are refused with a message that says so. Encrypted,
// multi-disk and other compression methods are refused too. Any malformed
// archive gives a CliError naming the file and the problem.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "loaded_boxes.hpp"

namespace broadphase_cli {

/// Reads the boxes of the array `array` of an open, seekable .npz stream
/// (an entry named "array.npy" or "array"), or of its first entry when
/// `array` is empty. `name` labels the messages: "name: problem" for the
/// archive, "name:array: problem" for the array's own (.npy) problems.
LoadedBoxes read_npz_boxes(std::FILE* in, const std::string& name, const std::string& array);

/// Whether this build reads deflated entries (np.savez_compressed): zlib was found.
bool npz_reads_compressed();

}  // namespace broadphase_cli
