// Fuzz target: the CLI's box file readers (tools/broadphase/npy.cpp and
// csv.cpp) on any bytes. The first byte picks the format; the rest is the
// file. A reader must give boxes or throw CliError: no crash, no hang, no
// read past the data, and no allocation beyond what the bytes can hold
// (the ctest run and scripts/fuzz.sh cap allocations with
// -malloc_limit_mb, so a header claiming a huge array fails the run).
// Boxes that come back are checked against the bytes: an .npy file holds
// 6 values of 4 or 8 bytes per box; a CSV line at least 11 characters.
#include <cstdint>
#include <cstdio>
#include <string>

#include "csv.hpp"
#include "errors.hpp"
#include "fuzz_input.hpp"
#include "npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const bool npy = data[0] & 1;
    std::string bytes(reinterpret_cast<const char*>(data + 1), size - 1);
    // fmemopen of zero bytes is refused by some C libraries: give it one
    // byte and a zero length through the buffer's size instead.
    std::FILE* f = fmemopen(bytes.empty() ? const_cast<char*>("") : bytes.data(), bytes.size(), "rb");
    if (!f) return 0;
    try {
        const broadphase_cli::LoadedBoxes boxes =
            npy ? broadphase_cli::read_npy_boxes(f, "fuzz.npy") : broadphase_cli::read_csv_boxes(f, "fuzz.csv");
        const std::size_t item = boxes.is_double() ? 8 : 4;
        if (npy) BPFUZZ_CHECK(boxes.size() * 6 * item <= bytes.size());
        else BPFUZZ_CHECK(boxes.size() * 11 <= bytes.size() + 1);
    } catch (const broadphase_cli::CliError& e) {
        BPFUZZ_CHECK(e.what()[0] != '\0');
    }
    std::fclose(f);
    return 0;
}
