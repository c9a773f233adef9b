// A game loop around a Scene: physics in fixed steps whatever the frame
// rate, bodies moved every step, begin/end contact events, a body removed,
// then a box query and a ray cast. Three crates slide right over a floor;
// the fast one reaches the wall and breaks.
#include <broadphase/scene.hpp>
#include <cstdio>
#include <vector>

using broadphase::ObjectType;
using Id = broadphase::Scene::Id;

struct Crate {
    float x, y, vx, vy;  // centre and velocity; a unit cube
    Id id = broadphase::Scene::null;
};

broadphase::Box box_of(const Crate& c) {
    return {{c.x - 0.5f, c.y - 0.5f, -0.5f}, {c.x + 0.5f, c.y + 0.5f, 0.5f}};
}

int main() {
    broadphase::Scene scene;
    const Id floor = scene.add(broadphase::Box{{-50, -1, -1}, {50, 0, 1}}, ObjectType::static_object);
    const Id wall = scene.add(broadphase::Box{{20, 0, -1}, {21, 10, 1}}, ObjectType::static_object);
    std::vector<Crate> crates = {{-12, 3, 2, 0}, {-6, 4, 2, 0}, {0, 5, 12, 0}};
    for (std::size_t i = 0; i < crates.size(); ++i)  // the user value: our index of the body
        crates[i].id = scene.add(box_of(crates[i]), ObjectType::dynamic_object, i);

    const float dt = 1.0f / 60;  // the fixed physics step
    double accumulator = 0;      // frame time not yet simulated
    int landed = 0, broken = 0, ended = 0;
    for (int frame = 0; frame < 120; ++frame) {
        accumulator += frame % 2 ? 1.0 / 45 : 1.0 / 75;  // what the last frame took to draw: it varies
        while (accumulator >= dt) {
            accumulator -= dt;
            for (Crate& c : crates) {  // integrate, then tell the scene where each body went
                if (c.id == broadphase::Scene::null) continue;
                c.vy -= 10 * dt, c.x += c.vx * dt, c.y += c.vy * dt;
                if (c.y < 0.5f) c.y = 0.5f, c.vy = 0;  // resting on the floor: touching is a contact
                scene.move(c.id, box_of(c));
            }
            scene.update();  // pairs and events of this step
            std::vector<Id> to_remove;
            for (auto [a, b] : scene.begun()) {
                const Id body = scene.type(a) == ObjectType::static_object ? b : a;
                const Id other = body == a ? b : a;
                Crate& c = crates[scene.user_value(body)];
                if (other == floor) std::printf("crate %u lands at x = %.2f\n", body, c.x), ++landed;
                if (other == wall) to_remove.push_back(body);
            }
            for (auto [a, b] : scene.ended()) std::printf("%u and %u part\n", a, b), ++ended;
            for (Id body : to_remove) {  // the crate breaks: gone from the scene from the next update on
                std::printf("crate %u hits the wall and breaks\n", body);
                crates[scene.user_value(body)].id = broadphase::Scene::null;
                scene.remove(body), ++broken;
            }
        }
    }

    // Which bodies are in a region (an explosion, a trigger volume)?
    std::vector<Id> inside;
    scene.for_each_overlap(broadphase::Box{{-10, 0.25f, -1}, {0, 2, 1}}, [&](Id id) { inside.push_back(id); });
    // What does a shot from the left hit first?
    const auto hit = scene.ray_cast({-30, 0.5f, 0}, {1, 0, 0}, 100.0f);
    std::printf("%zu crates in the region; the shot hits object %u at distance %.2f\n", inside.size(), hit.id,
                double(hit.t));
    return landed == 3 && broken == 1 && ended == 2 && inside.size() == 2 && hit.id == crates[0].id ? 0 : 1;
}
