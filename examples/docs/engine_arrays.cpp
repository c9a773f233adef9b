// An engine's own box arrays, passed without copying them into Boxes.
#include <broadphase/broadphase.hpp>
#include <cstdio>
#include <vector>

// How an engine may keep its bodies: the box among other fields.
struct Body {
    float min[3], max[3];
    float mass;
    int id;
};

int main() {
    // A row of 100 unit boxes, one unit apart: each touches the next.
    std::vector<float> minx, miny, minz, maxx, maxy, maxz;  // struct of arrays
    std::vector<Body> bodies;                               // array of structs
    for (int i = 0; i < 100; ++i) {
        const float x = float(i);
        minx.push_back(x), miny.push_back(0), minz.push_back(0);
        maxx.push_back(x + 1), maxy.push_back(1), maxz.push_back(1);
        bodies.push_back(Body{{x, 0, 0}, {x + 1, 1, 1}, 1.0f, i});
    }

    broadphase::PairFinder finder;  // keep it between frames
    std::vector<broadphase::Pair> pairs, from_bodies;

    // Struct of arrays: zero copy, the kernels read these arrays in place.
    const auto soa = broadphase::BoxesView::soa({minx.data(), miny.data(), minz.data()},
                                                {maxx.data(), maxy.data(), maxz.data()}, minx.size());
    finder.find_pairs(soa, pairs);

    // Array of structs: one O(n) gather per call into the finder's own
    // arrays (no allocation once warm), then the same search.
    const auto aos = broadphase::BoxesView::aos(bodies[0].min, bodies[0].max, sizeof(Body), bodies.size());
    finder.find_pairs(aos, from_bodies);

    std::printf("%zu pairs from the arrays, %zu from the bodies\n", pairs.size(), from_bodies.size());
    return pairs.size() == 99 && from_bodies.size() == 99 ? 0 : 1;
}
