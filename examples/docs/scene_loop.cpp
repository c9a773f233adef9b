// A physics engine's broad phase: objects kept between frames, begin/end events.
#include <broadphase/scene.hpp>
#include <cstdio>

int main() {
    broadphase::Scene scene;
    const broadphase::Box ground{{-100, -1, -100}, {100, 0, 100}};
    auto floor = scene.add(ground, broadphase::ObjectType::static_object);  // ids are stable
    auto ball = scene.add(broadphase::Box{{0, 5, 0}, {1, 6, 1}}, broadphase::ObjectType::dynamic_object,
                          /*user value*/ 42, broadphase::Filter{/*category*/ 1, /*mask*/ ~0ull, /*group*/ 0});
    int begun = 0, ended = 0;
    for (int frame = 0; frame < 10; ++frame) {
        const float y = 5.0f - float(frame);          // falls through the floor, one unit a frame
        scene.move(ball, broadphase::Box{{0, y, 0}, {1, y + 1, 1}});
        scene.update();
        for (auto [a, b] : scene.begun()) std::printf("frame %d: %u and %u begin\n", frame, a, b), ++begun;
        for (auto [a, b] : scene.ended()) std::printf("frame %d: %u and %u end\n", frame, a, b), ++ended;
    }
    const bool touching_now = !scene.pairs().empty();   // the whole current set, sorted
    std::printf("floor %u, ball %u, touching now: %d\n", floor, ball, int(touching_now));
    return begun == 1 && ended == 1 && !touching_now ? 0 : 1;
}
