// Fuzz target: the dynamic AABB tree under random insert / remove / move
// (with displacement hints) / rebuild / margin changes: validate() (every
// structural invariant) after each change, and its pairs and queries
// against a scan of the live tight boxes. Float 3-D and double 2-D.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include <broadphase/dynamic_tree.hpp>

#include "fuzz_queries.hpp"

namespace {

template <class T, int D>
void run(FuzzedDataProvider& in) {
    using Tree = broadphase::BasicDynamicTree<T, D>;
    const T off = bpfuzz::offset<T>(in);
    Tree tree;
    std::vector<bpfuzz::Live<T, D>> live;
    auto find = [&](std::uint32_t id) {
        return std::find_if(live.begin(), live.end(), [&](const auto& l) { return l.id == id; });
    };
    auto pick = [&]() -> std::uint32_t {
        if (live.empty() || in.ConsumeIntegral<std::uint8_t>() < 16) return in.ConsumeIntegral<std::uint8_t>();
        return live[in.ConsumeIntegralInRange<std::size_t>(0, live.size() - 1)].id;
    };

    for (int step = 0; step < 300 && in.remaining_bytes() > 0; ++step) {
        switch (in.ConsumeIntegral<std::uint8_t>() % 9) {
            case 0:
            case 1:
            case 2: {
                const auto b = bpfuzz::box<T, D>(in, off, nullptr);
                const std::uint32_t id = tree.insert(b, step);
                if (!b.valid()) {
                    BPFUZZ_CHECK(id == Tree::null);
                    break;
                }
                BPFUZZ_CHECK(id != Tree::null && find(id) == live.end());
                live.push_back({id, b});
                break;
            }
            case 3: {
                const std::uint32_t id = pick();
                const auto it = find(id);
                BPFUZZ_CHECK(tree.remove(id) == (it != live.end()));
                if (it != live.end()) live.erase(it);
                break;
            }
            case 4:
            case 5: {
                const std::uint32_t id = pick();
                const auto b = bpfuzz::box<T, D>(in, off, nullptr);
                const auto it = find(id);
                tree.move(id, b, bpfuzz::direction<T, D>(in));
                if (it != live.end() && b.valid()) it->box = b;
                break;
            }
            case 6: {
                if (in.ConsumeBool()) {
                    tree.rebuild();
                } else {
                    static const T margins[5] = {T(0), T(0.1), T(2), T(-1), std::numeric_limits<T>::quiet_NaN()};
                    tree.set_margin(margins[in.ConsumeIntegral<std::uint8_t>() % 5]);
                }
                break;
            }
            case 7: {  // every pair of live tight boxes, each once
                std::vector<broadphase::Pair> got, want;
                tree.pairs(got);
                for (std::size_t i = 0; i < live.size(); ++i)
                    for (std::size_t j = i + 1; j < live.size(); ++j)
                        if (broadphase::overlaps(live[i].box, live[j].box))
                            want.push_back({std::min(live[i].id, live[j].id), std::max(live[i].id, live[j].id)});
                for (const auto& p : got) BPFUZZ_CHECK(p.a < p.b);
                std::sort(got.begin(), got.end());
                std::sort(want.begin(), want.end());
                BPFUZZ_CHECK(got == want);
                break;
            }
            default:
                bpfuzz::check_one_query<T, D>(in, tree, live, off, [](const auto& h) { return h.proxy; });
                break;
        }
        const std::string broken = tree.validate();
        if (!broken.empty()) bpfuzz::fail(broken.c_str(), __FILE__, __LINE__);
        BPFUZZ_CHECK(tree.size() == live.size());
        for (const auto& l : live) BPFUZZ_CHECK(tree.tight_box(l.id).min == l.box.min && tree.tight_box(l.id).max == l.box.max);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider in(data, size);
    if (in.ConsumeIntegral<std::uint8_t>() % 4 != 3)
        run<float, 3>(in);
    else
        run<double, 2>(in);
    return 0;
}
