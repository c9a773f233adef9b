// The dynamic AABB tree on its own: insert, move, remove, every query kind.
#include <broadphase/dynamic_tree.hpp>
#include <cstdio>

int main() {
    broadphase::DynamicTree tree;                     // margin 0.1 (set_margin), displacement factor 4
    std::uint32_t ids[10];
    for (int i = 0; i < 10; ++i) {                    // a row of unit boxes, one every two units along x
        const float x = 2.0f * float(i);
        ids[i] = tree.insert(broadphase::Box{{x, 0, 0}, {x + 1, 1, 1}}, /*user data*/ 100 + i);
    }
    // Move box 9 next to box 0, with a displacement hint (how far it will go next frame).
    bool restructured = tree.move(ids[9], broadphase::Box{{0.5f, 0, 0}, {1.5f, 1, 1}}, {-0.1f, 0, 0});
    tree.remove(ids[5]);
    tree.rebuild();                                   // when quality().area_ratio has grown

    int overlaps = 0, containing = 0, in_sphere = 0, crossed = 0, pairs = 0;
    tree.for_each_overlap(broadphase::Box{{0, 0, 0}, {3, 1, 1}}, [&](std::uint32_t) { ++overlaps; });  // 0, 9, 1
    tree.for_each_containing({2.5f, 0.5f, 0.5f}, [&](std::uint32_t) { ++containing; });            // 1
    tree.for_each_overlapping_sphere({7.0f, 0.5f, 0.5f}, 1.0f, [&](std::uint32_t) { ++in_sphere; });  // 3, 4
    broadphase::DynamicTree::Hit hit = tree.ray_cast({-5, 0.5f, 0.5f}, {1, 0, 0}, 100.0f);  // box 0 at t = 5
    tree.for_each_ray_hit({-5, 0.5f, 0.5f}, {1, 0, 0}, 100.0f, [&](std::uint32_t, float) {
        ++crossed;                                    // every box left: 9
        return true;                                  // false would stop the walk
    });
    broadphase::DynamicTree::Hit cast = tree.box_cast(broadphase::Box{{2.2f, 3, 0}, {2.8f, 4, 1}}, {0, -4, 0});
    tree.for_each_pair([&](std::uint32_t, std::uint32_t) { ++pairs; });   // 0 and 9 overlap: one pair

    std::printf("restructured %d; overlaps %d, containing %d, sphere %d; ray: %u at %g, %d crossed; "
                "box cast: %u at %g; %d pair; height %d\n",
                int(restructured), overlaps, containing, in_sphere, hit.proxy, double(hit.t), crossed, cast.proxy,
                double(cast.t), pairs, tree.quality().height);
    const bool right = overlaps == 3 && containing == 1 && in_sphere == 2 && hit.proxy == ids[0] && hit.t == 5.0f &&
                       crossed == 9 && cast.proxy == ids[1] && cast.t > 0.49f && cast.t < 0.51f && pairs == 1 &&
                       tree.user_value(ids[3]) == 103 && tree.validate().empty();
    return right ? 0 : 1;
}
