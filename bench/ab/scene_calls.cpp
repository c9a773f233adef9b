// The Scene's per-call costs, for bench/ab/ab_scene.sh: 100,000 boxes;
// move() of one body at a time (1,000 random bodies a frame, the moves
// timed, the update not), the same on 1,000 bodies in cache (the call
// alone), box() and contains() reads, and small box queries. Prints ns a
// call: the median of 15 repetitions (the minimum for the cached ones).
#include <broadphase/scene.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

namespace bp = broadphase;
using clk = std::chrono::steady_clock;

static double ns_since(clk::time_point t0) { return std::chrono::duration<double, std::nano>(clk::now() - t0).count(); }

int main() {
    const int n = 100000;
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(0, 100);
    std::vector<bp::Box> boxes(n);
    for (auto& b : boxes) {
        const float x = u(rng), y = u(rng), z = u(rng);
        b = bp::Box{{x, y, z}, {x + 0.5f, y + 0.5f, z + 0.5f}};
    }
    bp::Scene scene;
    std::vector<bp::Scene::Id> ids(n);
    scene.add(boxes.data(), n, ids.data());
    scene.update();
    std::vector<bp::Scene::Id> pick(1000);
    std::vector<double> move_ns, cached_ns, box_ns, query_ns;
    volatile double sink = 0;
    for (int rep = 0; rep < 15; ++rep) {
        double t_move = 0;
        for (int f = 0; f < 50; ++f) {
            for (auto& p : pick) p = ids[rng() % n];
            const float d = (f & 1) ? 0.01f : -0.01f;
            const auto t0 = clk::now();
            for (auto id : pick) {
                bp::Box b = boxes[id];
                b.min[0] += d, b.max[0] += d;
                boxes[id] = b;
                scene.move(id, b);
            }
            t_move += ns_since(t0);
            scene.update();
        }
        move_ns.push_back(t_move / (50.0 * double(pick.size())));
        auto t0 = clk::now();
        for (int k = 0; k < 100; ++k) {
            const float d = (k & 1) ? 0.01f : -0.01f;
            for (int i = 0; i < 1000; ++i) {
                bp::Box b = boxes[ids[i]];
                b.min[1] += d, b.max[1] += d;
                boxes[ids[i]] = b;
                scene.move(ids[i], b);
            }
        }
        cached_ns.push_back(ns_since(t0) / 100000.0);
        scene.update();
        t0 = clk::now();
        double s = 0;
        for (int k = 0; k < 10; ++k)
            for (auto id : ids) s += scene.box(id).min[0] + double(scene.contains(id));
        box_ns.push_back(ns_since(t0) / (10.0 * n));
        sink = sink + s;
        t0 = clk::now();
        long hits = 0;
        for (int q = 0; q < 20000; ++q) scene.for_each_overlap(boxes[ids[q * 5]], [&](bp::Scene::Id) { ++hits; });
        query_ns.push_back(ns_since(t0) / 20000.0);
        sink = sink + double(hits);
    }
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    auto least = [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); };
    std::printf("move_ns=%.2f cached_move_ns=%.2f box_ns=%.2f query_ns=%.1f\n", median(move_ns), least(cached_ns),
                least(box_ns), median(query_ns));
}
