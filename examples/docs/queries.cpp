// Box queries against a built set (Index) and ray casts against a Scene.
#include <broadphase/broadphase.hpp>
#include <broadphase/scene.hpp>
#include <array>
#include <cmath>
#include <cstdio>
#include <vector>

int main() {
    // A row of 100 unit boxes along x, one every two units.
    std::vector<float> rows;
    for (int i = 0; i < 100; ++i) rows.insert(rows.end(), {2.0f * i, 0, 0, 2.0f * i + 1, 1, 1});
    broadphase::Boxes boxes;
    boxes.assign_rows(rows.data(), 100);

    broadphase::Index index;                       // build once, query many times (const, thread-safe)
    index.build(boxes);
    std::vector<std::uint32_t> hits;
    index.query(broadphase::Box{{3.5f, 0, 0}, {6.5f, 1, 1}}, hits);   // boxes 2 and 3
    std::printf("query: %zu hits\n", hits.size());

    std::vector<broadphase::Pair> batch;           // (query, hit) pairs for a batch of queries
    index.query_batch(boxes, batch);               // every box against the set: each hits itself
    std::printf("batch: %zu pairs\n", batch.size());

    broadphase::Scene scene;                       // ray casts walk the scene's dynamic tree
    for (int i = 0; i < 100; ++i)
        scene.add(broadphase::Box{{2.0f * i, 0, 0}, {2.0f * i + 1, 1, 1}}, broadphase::ObjectType::static_object);
    scene.update();
    auto hit = scene.ray_cast({-10, 0.5f, 0.5f}, {1, 0, 0}, 1000.0f);   // nearest hit: id and t
    std::printf("ray: object %u at t = %g\n", hit.id, double(hit.t));
    int crossed = 0;
    scene.for_each_ray_hit({-10, 0.5f, 0.5f}, {1, 0, 0}, 1000.0f, [&](std::uint32_t, float) { ++crossed; });
    std::printf("ray crosses %d objects\n", crossed);

    // An engine's closest hit: its narrow phase (here a sphere of radius 0.4
    // in each box) clips the ray as it finds nearer hits, so farther
    // subtrees are skipped; the filter leaves out the shooter (object 0).
    const std::array<float, 3> o{-10, 0.5f, 0.5f}, d{1, 0, 0};
    auto sphere_hit = [&](broadphase::Scene::Id id, float& s) {  // ray against the sphere in id's box
        float b = 0, c = -0.16f;
        for (int k = 0; k < 3; ++k) {
            const float m = o[k] - 0.5f * (scene.box(id).min[k] + scene.box(id).max[k]);
            b += m * d[k], c += m * m;                   // (d is a unit vector)
        }
        if (c <= 0) return s = 0, true;                  // the origin is inside
        return b < 0 && b * b - c >= 0 && (s = -b - std::sqrt(b * b - c), true);
    };
    broadphase::Scene::Hit shot;
    scene.ray_cast_clipped(o, d, 1000.0f, [&](broadphase::Scene::Id id, float /*box entry*/) {
        float s;
        if (!sphere_hit(id, s)) return broadphase::Scene::cast_ignore;  // the box is hit, the shape missed
        shot = {id, s};
        return s;                                        // the new end of the ray
    }, [](broadphase::Scene::Id id) { return id != 0; });
    std::printf("shot: object %u at t = %g\n", shot.id, double(shot.t));
    return hits.size() == 2 && batch.size() == 100 && hit.id == 0 && hit.t == 10.0f && crossed == 100 &&
                   shot.id == 1 && std::fabs(shot.t - 12.1f) < 1e-4f
               ? 0
               : 1;
}
