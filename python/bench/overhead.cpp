// Times the C++ calls the Python module makes, on a built-in scene, so that
// bench/overhead.py can compare the Python call against them (same process
// layout, same compiler flags as the module).
//
//   broadphase_py_overhead SCENE FRAMES THREADS
//
// Prints one line per variant: name median_ms min_ms pairs
//   rows_oneshot: rows (N, 6) -> Boxes (assign_rows) + a new finder each frame
//                 (what broadphase.find_pairs does)
//   rows_kept:    rows -> kept Boxes + kept finder (broadphase.PairFinder)
//   soa_kept:     kept finder on ready Boxes (what `broadphase bench` times)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <broadphase/broadphase.hpp>
#include <broadphase/scenes.hpp>

namespace bp = broadphase;

template <class F>
void time(const char* name, int frames, F&& frame) {
    std::vector<double> ms;
    std::size_t pairs = frame();  // untimed warm-up
    for (int i = 0; i < frames; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        pairs = frame();
        const auto t1 = std::chrono::steady_clock::now();
        ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    std::printf("%s %.4f %.4f %zu\n", name, ms[ms.size() / 2], ms.front(), pairs);
}

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: broadphase_py_overhead SCENE FRAMES THREADS\n");
        return 2;
    }
    bp::Boxes scene;
    if (!bp::scenes::make_scene(argv[1], scene)) {
        std::fprintf(stderr, "unknown scene %s\n", argv[1]);
        return 2;
    }
    const int frames = std::max(1, std::atoi(argv[2]));
    bp::Options o;
    o.threads = static_cast<unsigned>(std::atoi(argv[3]));
    const std::size_t n = scene.size();
    std::vector<float> rows(6 * n);
    for (std::size_t i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) rows[6 * i + k] = scene.min(k)[i], rows[6 * i + 3 + k] = scene.max(k)[i];

    time("rows_oneshot", frames, [&] {
        bp::Boxes boxes;
        boxes.assign_rows(rows.data(), n);
        std::vector<bp::Pair> out;
        bp::find_pairs(boxes, out, o);
        return out.size();
    });
    bp::PairFinder finder;
    bp::Boxes kept;
    std::vector<bp::Pair> out;
    time("rows_kept", frames, [&] {
        kept.assign_rows(rows.data(), n);
        std::vector<bp::Pair> fresh;  // a new output each frame, as the Python call returns a new array
        finder.find_pairs(kept, fresh, o);
        return fresh.size();
    });
    time("soa_kept", frames, [&] {
        finder.find_pairs(scene, out, o);
        return out.size();
    });
    return 0;
}
