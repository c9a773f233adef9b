// Fuzz target: the CLI's box file readers (tools/broadphase/npy.cpp, npz.cpp
// and csv.cpp) on any bytes. The first byte's two low bits pick the format
// (bit 0: the .npy family, bit 1: the variant): 0 CSV, 1 .npy, 2
// whitespace-separated text, 3 .npz (a zip archive; its first array, or
// with bit 2 set an array named "b"); the rest is the file. A reader must
// give boxes or throw CliError: no crash, no hang, no read past the data,
// and no allocation beyond what the bytes can hold (the ctest run and
// scripts/fuzz.sh cap allocations with -malloc_limit_mb, so a header
// claiming a huge array fails the run). Boxes that come back are checked
// against the bytes: an .npy file holds 6 values of 4 or 8 bytes per box; a
// text line at least 11 characters; a deflated .npz entry at most about
// 1032 bytes per byte of the archive.
#include <cstdint>
#include <cstdio>
#include <string>

#include "csv.hpp"
#include "errors.hpp"
#include "fuzz_input.hpp"
#include "npy.hpp"
#include "npz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const int format = data[0] & 3;
    std::string bytes(reinterpret_cast<const char*>(data + 1), size - 1);
    // fmemopen of zero bytes is refused by some C libraries: give it one
    // byte and a zero length through the buffer's size instead.
    std::FILE* f = fmemopen(bytes.empty() ? const_cast<char*>("") : bytes.data(), bytes.size(), "rb");
    if (!f) return 0;
    try {
        using namespace broadphase_cli;
        const LoadedBoxes boxes =
            format == 0   ? read_text_boxes(f, "fuzz.csv", TextDialect::csv)
            : format == 1 ? read_npy_boxes(f, "fuzz.npy")
            : format == 2 ? read_text_boxes(f, "fuzz.txt", TextDialect::whitespace)
                          : read_npz_boxes(f, "fuzz.npz", data[0] & 4 ? "b" : "");
        const std::size_t item = boxes.is_double() ? 8 : 4;
        if (format == 1) BPFUZZ_CHECK(boxes.size() * 6 * item <= bytes.size());
        else if (format == 3) BPFUZZ_CHECK(boxes.size() * 6 * item <= bytes.size() * 1032 + 1024);
        else BPFUZZ_CHECK(boxes.size() * 11 <= bytes.size() + 1);
    } catch (const broadphase_cli::CliError& e) {
        BPFUZZ_CHECK(e.what()[0] != '\0');
    }
    std::fclose(f);
    return 0;
}
