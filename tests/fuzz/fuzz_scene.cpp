// Fuzz target: a Scene driven by a sequence of operations decoded from the
// bytes (add, remove, move, set_type, set_filter, update, update mode, fat
// pairs and margin, queries and casts), checked after every update against
// a brute-force oracle:
// - the pairs: every two live objects whose pair boxes overlap (tight boxes,
//   or the fat ones with fat pairs on), not both static, the filters
//   allowing, each once, sorted; with fat pairs on, a superset of the tight
//   boxes' pairs;
// - begun = now \ before and ended = before \ now;
// - ids stay unique among live objects.
// Queries are checked against a scan of the live tight boxes at any time.
// Float 3-D and double 2-D.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <vector>

#include <broadphase/scene.hpp>

#include "fuzz_queries.hpp"

namespace {

using broadphase::Filter;
using broadphase::ObjectType;
using broadphase::Pair;
using broadphase::UpdateMode;

template <class T, int D>
std::vector<Pair> oracle(const broadphase::BasicScene<T, D>& s, const std::vector<std::uint32_t>& live, bool fat) {
    std::vector<Pair> out;
    for (std::size_t i = 0; i < live.size(); ++i)
        for (std::size_t j = i + 1; j < live.size(); ++j) {
            const std::uint32_t a = std::min(live[i], live[j]), b = std::max(live[i], live[j]);
            if (s.type(a) == ObjectType::static_object && s.type(b) == ObjectType::static_object) continue;
            if (!Filter::may_meet(s.filter(a), s.filter(b))) continue;
            const auto& x = fat ? s.pair_box(a) : s.box(a);
            const auto& y = fat ? s.pair_box(b) : s.box(b);
            if (x.valid() && y.valid() && broadphase::overlaps(x, y)) out.push_back({a, b});
        }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<Pair> minus(const std::vector<Pair>& x, const std::vector<Pair>& y) {
    std::vector<Pair> out;
    std::set_difference(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(out));
    return out;
}

Filter filter(FuzzedDataProvider& in) {
    Filter f;
    const std::uint8_t b = in.ConsumeIntegral<std::uint8_t>();
    f.category = std::uint64_t(1) << (b & 3);
    f.mask = (b & 16) ? ~std::uint64_t(0) : std::uint64_t((b >> 2) & 3) | 1;
    f.group = (b >> 5) % 3;
    return f;
}

template <class T, int D>
void run(FuzzedDataProvider& in) {
    using Scene = broadphase::BasicScene<T, D>;
    const T off = bpfuzz::offset<T>(in);
    Scene scene;
    broadphase::Options opt;
    opt.threads = 1 + in.ConsumeIntegral<std::uint8_t>() % 3;
    opt.min_boxes_per_thread = 1;
    scene.set_options(opt);

    std::vector<std::uint32_t> live;  // ids of live objects
    std::vector<Pair> before;         // the pairs of the last update
    std::vector<std::uint32_t> retired;  // removed since the last update: not to be reused before it

    auto pick = [&]() -> std::uint32_t {
        if (live.empty() || in.ConsumeIntegral<std::uint8_t>() < 16) return in.ConsumeIntegral<std::uint8_t>();
        return live[in.ConsumeIntegralInRange<std::size_t>(0, live.size() - 1)];
    };
    auto is_live = [&](std::uint32_t id) { return std::find(live.begin(), live.end(), id) != live.end(); };

    for (int step = 0; step < 400 && in.remaining_bytes() > 0; ++step) {
        switch (in.ConsumeIntegral<std::uint8_t>() % 12) {
            case 0:
            case 1:
            case 2: {
                if (live.size() >= 200) break;
                const auto b = bpfuzz::box<T, D>(in, off, nullptr);
                const ObjectType type = in.ConsumeIntegral<std::uint8_t>() < 64 ? ObjectType::static_object
                                                                                 : ObjectType::dynamic_object;
                const std::uint32_t id = scene.add(b, type, step, filter(in));
                BPFUZZ_CHECK(!is_live(id));
                BPFUZZ_CHECK(std::find(retired.begin(), retired.end(), id) == retired.end());
                BPFUZZ_CHECK(scene.contains(id) && std::memcmp(&scene.box(id), &b, sizeof b) == 0);
                live.push_back(id);
                break;
            }
            case 3: {
                const std::uint32_t id = pick();
                const bool was = is_live(id);
                BPFUZZ_CHECK(scene.remove(id) == was);
                if (was) {
                    live.erase(std::find(live.begin(), live.end(), id));
                    retired.push_back(id);
                }
                break;
            }
            case 4:
            case 5: {
                const std::uint32_t id = pick();
                BPFUZZ_CHECK(scene.move(id, bpfuzz::box<T, D>(in, off, nullptr)) == is_live(id));
                break;
            }
            case 6: {
                const std::uint32_t id = pick();
                const ObjectType type = in.ConsumeBool() ? ObjectType::static_object : ObjectType::dynamic_object;
                BPFUZZ_CHECK(scene.set_type(id, type) == is_live(id));
                break;
            }
            case 7: {
                const std::uint32_t id = pick();
                BPFUZZ_CHECK(scene.set_filter(id, filter(in)) == is_live(id));
                break;
            }
            case 8: {
                static const UpdateMode modes[] = {UpdateMode::automatic, UpdateMode::rebuild,
                                                   UpdateMode::multi_box_pruning, UpdateMode::grid, UpdateMode::enlarged};
                scene.set_update_mode(modes[in.ConsumeIntegral<std::uint8_t>() % std::size(modes)]);
                break;
            }
            case 9: {
                if (in.ConsumeBool()) {
                    scene.set_fat_pairs(!scene.fat_pairs());
                } else {
                    static const T margins[6] = {T(0), T(0.1), T(1), T(-1), std::numeric_limits<T>::quiet_NaN(),
                                                 std::numeric_limits<T>::infinity()};
                    const T m = margins[in.ConsumeIntegral<std::uint8_t>() % 6];
                    BPFUZZ_CHECK(scene.set_margin(m) == (m >= T(0) && std::isfinite(m)));
                }
                break;
            }
            case 10: {
                std::vector<bpfuzz::Live<T, D>> boxes;
                for (std::uint32_t id : live)
                    if (scene.box(id).valid()) boxes.push_back({id, scene.box(id)});
                bpfuzz::check_one_query<T, D>(in, scene, boxes, off, [](const auto& h) { return h.id; });
                break;
            }
            default: {
                BPFUZZ_CHECK(scene.update().ok());
                const std::vector<Pair> want = oracle(scene, live, scene.fat_pairs());
                BPFUZZ_CHECK(scene.pairs() == want);
                BPFUZZ_CHECK(scene.begun() == minus(want, before));
                BPFUZZ_CHECK(scene.ended() == minus(before, want));
                if (scene.fat_pairs()) {
                    const std::vector<Pair> tight = oracle(scene, live, false);
                    BPFUZZ_CHECK(std::includes(want.begin(), want.end(), tight.begin(), tight.end()));
                    for (std::uint32_t id : live)
                        if (scene.box(id).valid()) BPFUZZ_CHECK(broadphase::contains(scene.pair_box(id), scene.box(id)));
                }
                BPFUZZ_CHECK(scene.size() == live.size());
                before = want;
                retired.clear();
                break;
            }
        }
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
