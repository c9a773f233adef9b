// Fuzz target: the CLI's mesh reader (tools/broadphase/mesh.cpp) on any
// bytes, parsed from memory. The first byte's two low bits pick the format:
// 0 OFF, 1 PLY, 2 OBJ, 3 STL; the rest is the file. The reader must give
// boxes or throw CliError: no crash, no hang, no read past the data, and no
// allocation beyond what the bytes can hold (a header claiming billions of
// vertices or faces must not size anything by that; -malloc_limit_mb fails
// the run). Boxes that come back are checked against the bytes and against
// what a face's bounds are: a face takes at least 4 bytes in any format (a
// binary PLY's count and three 1-byte indices), and on each axis a box has
// min <= max, or NaN for both (a NaN coordinate).
#include <cmath>
#include <cstdint>
#include <string>

#include "errors.hpp"
#include "fuzz_input.hpp"
#include "mesh.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    using namespace broadphase_cli;
    const MeshFormat formats[] = {MeshFormat::off, MeshFormat::ply, MeshFormat::obj, MeshFormat::stl};
    const MeshFormat format = formats[data[0] & 3];
    const std::string bytes(reinterpret_cast<const char*>(data + 1), size - 1);
    try {
        const FloatBoxes boxes = parse_mesh_face_boxes(bytes, "fuzz", format);
        BPFUZZ_CHECK(boxes.size() * 4 <= bytes.size());
        for (std::size_t i = 0; i < boxes.size(); ++i)
            for (int k = 0; k < 3; ++k) {
                const float lo = boxes.min(k)[i], hi = boxes.max(k)[i];
                BPFUZZ_CHECK(std::isnan(lo) == std::isnan(hi));
                BPFUZZ_CHECK(std::isnan(lo) || lo <= hi);
            }
    } catch (const CliError& e) {
        BPFUZZ_CHECK(e.what()[0] != '\0');
    }
    return 0;
}
