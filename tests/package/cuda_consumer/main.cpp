// Links the installed broadphase::cuda and runs it: the GPU's pairs equal
// the CPU's on a small set, or, on a machine without a CUDA device, the
// library says so (and the program still passes: it linked and ran).
#include <broadphase/broadphase.hpp>
#include <broadphase/cuda/pair_finder.hpp>

#include <cstdio>
#include <vector>

int main() {
    broadphase::Boxes boxes;
    for (int i = 0; i < 200; ++i) {
        const float x = static_cast<float>(i % 20), y = static_cast<float>(i / 20);
        boxes.push_back({{x, y, 0}, {x + 1.5f, y + 0.5f, 1}});
    }
    std::vector<broadphase::Pair> cpu;
    broadphase::Options options;
    options.sorted = true;
    if (!broadphase::find_pairs(boxes, cpu, options).ok()) return 1;
    if (!broadphase::cuda::available()) {
        std::printf("broadphase::cuda linked; no CUDA device here (%zu CPU pairs)\n", cpu.size());
        return 0;
    }
    broadphase::cuda::PairFinder finder;
    std::vector<broadphase::Pair> gpu;
    if (!finder.find_pairs(boxes, gpu, options).ok()) {
        std::printf("broadphase::cuda failed: %s\n", finder.last_error().c_str());
        return 1;
    }
    std::printf("broadphase::cuda on %s: %zu pairs, CPU %zu\n", broadphase::cuda::device_name().c_str(), gpu.size(),
                cpu.size());
    return gpu == cpu ? 0 : 1;
}
