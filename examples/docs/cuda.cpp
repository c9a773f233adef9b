// The CUDA backend: the same pairs as the CPU, on the GPU. Exits 77 (skipped) without a device.
#include <broadphase/broadphase.hpp>
#include <broadphase/cuda/pair_finder.hpp>   // target_link_libraries(app PRIVATE broadphase::cuda)
#include <algorithm>
#include <cstdio>
#include <vector>

int main() {
    if (!broadphase::cuda::available()) {
        std::puts("SKIP: no CUDA device");
        return 77;
    }
    std::vector<float> rows;                      // 100,000 unit boxes, two units apart, on a 100 x 100 x 10 lattice
    for (int i = 0; i < 100000; ++i) {
        const float x = 2.0f * float(i % 100), y = 2.0f * float(i / 100 % 100), z = 2.0f * float(i / 10000);
        rows.insert(rows.end(), {x, y, z, x + 1.5f, y + 1.5f, z + 1.5f});   // overlaps its neighbours
    }
    broadphase::Boxes boxes;
    boxes.assign_rows(rows.data(), 100000);

    broadphase::cuda::PairFinder gpu;            // keep it: device buffers are reused every frame
    broadphase::Options options;
    options.sorted = true;                        // sorted on the device
    std::vector<broadphase::Pair> on_gpu, on_cpu;
    broadphase::Report r = gpu.find_pairs(boxes, on_gpu, options);   // host boxes in (copied), host pairs out

    broadphase::cuda::DeviceBoxSet resident;      // boxes kept on the device: nothing copied per call
    resident.upload(boxes);
    gpu.find_pairs_on_device(resident.view());   // the pairs stay on the device:
    const std::uint64_t count = gpu.device_pair_count();   // gpu.device_pairs() points at them

    broadphase::find_pairs(boxes, on_cpu, options);
    std::printf("%s: %zu pairs (%llu on the device), the CPU %zu\n", broadphase::cuda::device_name().c_str(),
                on_gpu.size(), static_cast<unsigned long long>(count), on_cpu.size());
    return r.ok() && on_gpu == on_cpu && count == on_cpu.size() ? 0 : 1;
}
