// jolt_replay: replays a move file (JOLTMOV1, written by `broadphase-lab bench
// SEQUENCE --save-moves FILE`; the layout is in docs/scene.md) through Jolt
// Physics' BroadPhaseQuadTree alone, as Jolt's own broad-phase tests drive
// it, so that the Scene and Jolt are timed on the same moves
// (bench/jolt_bench.sh). Not built with the project: it needs a Jolt build
// (JOLT_BUILD, compiled with that build's own flags), and Jolt is not part
// of this repository.
//
//   jolt_replay FILE [--verify]
//
// Per block of the file (one per fraction), from the file's initial boxes:
// one dynamic body per box (a BoxShape of the box's half extents, at its
// centre; Jolt's bounds are centre -/+ half extent, which may differ from
// the box by an ulp), all added at once and the tree optimised (untimed).
// Per frame, untimed: the moved bodies (and only they) activated, each put
// at its new box's centre (the sequences that can be saved only translate
// boxes). Timed: NotifyBodiesAABBChanged, FrameSync, UpdatePrepare/
// Finalize, then FindCollidingPairs for the moved bodies. Prints per block
//   fraction=F moved=M median_ms=X min_ms=Y pairs=P file_pairs=Q mismatches=K
// (P, Q: Jolt's and the file's pairs with a moved body after the last
// frame; K: frames where they differ, which only boxes touching to the ulp
// can cause).
#include <Jolt/Jolt.h>

#include <Jolt/Core/Factory.h>
#include <Jolt/Physics/Body/BodyCreationSettings.h>
#include <Jolt/Physics/Body/BodyManager.h>
#include <Jolt/Physics/Body/BodyPair.h>
#include <Jolt/Physics/Collision/BroadPhase/BroadPhaseQuadTree.h>
#include <Jolt/Physics/Collision/Shape/BoxShape.h>
#include <Jolt/RegisterTypes.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "jolt_frame.hpp"

namespace {

using namespace JPH;

// One broad-phase layer, and every pair allowed.
class SingleLayer final : public BroadPhaseLayerInterface {
public:
    uint GetNumBroadPhaseLayers() const override { return 1; }
    BroadPhaseLayer GetBroadPhaseLayer(ObjectLayer) const override { return BroadPhaseLayer(0); }
#if defined(JPH_EXTERNAL_PROFILE) || defined(JPH_PROFILE_ENABLED)
    const char* GetBroadPhaseLayerName(BroadPhaseLayer) const override { return "all"; }
#endif
};
class AnyLayer final : public ObjectVsBroadPhaseLayerFilter {
public:
    bool ShouldCollide(ObjectLayer, BroadPhaseLayer) const override { return true; }
};
class AnyPair final : public ObjectLayerPairFilter {
public:
    bool ShouldCollide(ObjectLayer, ObjectLayer) const override { return true; }
};
class Counter final : public BodyPairCollector {
public:
    std::uint64_t pairs = 0;
    void AddHit(const BodyPair&) override { ++pairs; }
};

struct File {
    std::vector<char> bytes;
    std::size_t at = 0;
    bool ok = true;
    template <class V>
    V get() {
        V v{};
        if (bytes.size() - at < sizeof(V)) {
            ok = false;
            return v;
        }
        std::memcpy(&v, bytes.data() + at, sizeof(V));
        at += sizeof(V);
        return v;
    }
};

struct Box6 {
    float v[6];  // min x y z, max x y z
};

double median(std::vector<double> t) {
    std::sort(t.begin(), t.end());
    return t.empty() ? 0 : t[t.size() / 2];
}

int fail(const char* what) {
    std::fprintf(stderr, "jolt_replay: %s\n", what);
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) return std::fprintf(stderr, "usage: jolt_replay FILE [--verify]\n"), 2;
    const bool verify = argc > 2 && std::strcmp(argv[2], "--verify") == 0;
    File in;
    {
        std::FILE* f = std::fopen(argv[1], "rb");
        if (!f) return fail("cannot open the move file");
        char buf[1 << 16];
        for (std::size_t got; (got = std::fread(buf, 1, sizeof buf, f)) > 0;) in.bytes.insert(in.bytes.end(), buf, buf + got);
        std::fclose(f);
    }
    char magic[8];
    for (char& c : magic) c = in.get<char>();
    if (!in.ok || std::memcmp(magic, "JOLTMOV1", 8) != 0) return fail("not a move file (no JOLTMOV1 header)");
    const std::uint32_t n = in.get<std::uint32_t>(), blocks = in.get<std::uint32_t>(), frames = in.get<std::uint32_t>();
    in.get<std::uint32_t>();
    in.get<float>();
    for (std::uint32_t i = 0; i < n; ++i) in.get<std::uint32_t>();
    std::vector<Box6> initial(n);
    for (Box6& b : initial)
        for (float& x : b.v) x = in.get<float>();
    if (!in.ok || n == 0 || n > BodyID::cMaxBodyIndex) return fail("bad header or body count");

    RegisterDefaultAllocator();
    Factory::sInstance = new Factory();
    RegisterTypes();
    SingleLayer layers;
    AnyLayer any_layer;
    AnyPair any_pair;

    for (std::uint32_t block = 0; block < blocks; ++block) {
        const float fraction = in.get<float>();
        const std::uint32_t m_declared = in.get<std::uint32_t>();
        (void)m_declared;
        auto bodies = std::make_unique<BodyManager>();
        bodies->Init(n, 0, layers);
        auto bp = std::make_unique<BroadPhaseQuadTree>();
        bp->Init(bodies.get(), layers);
        std::vector<BodyID> ids(n);
        for (std::uint32_t i = 0; i < n; ++i) {
            const float* b = initial[i].v;
            const Vec3 half(0.5f * (b[3] - b[0]), 0.5f * (b[4] - b[1]), 0.5f * (b[5] - b[2]));
            const RVec3 centre(0.5f * (b[0] + b[3]), 0.5f * (b[1] + b[4]), 0.5f * (b[2] + b[5]));
            BodyCreationSettings s(new BoxShape(half, 0.0f), centre, Quat::sIdentity(), EMotionType::Dynamic, ObjectLayer(0));
            s.mOverrideMassProperties = EOverrideMassProperties::MassAndInertiaProvided;
            s.mMassPropertiesOverride.mMass = 1.0f;
            s.mMassPropertiesOverride.mInertia = Mat44::sIdentity();
            Body* body = bodies->AllocateBody(s);
            if (!bodies->AddBody(body)) return fail("AddBody failed");
            ids[i] = body->GetID();
        }
        {
            std::vector<BodyID> all = ids;
            BroadPhase::AddState st = bp->AddBodiesPrepare(all.data(), int(n));
            bp->AddBodiesFinalize(all.data(), int(n), st);
        }
        bp->Optimize();

        std::vector<BodyID> moved, previous, work;
        std::vector<double> times;
        Counter found;
        std::uint64_t file_pairs = 0;
        std::size_t mismatches = 0;
        for (std::uint32_t f = 0; f < frames; ++f) {
            const std::uint32_t m = in.get<std::uint32_t>();
            if (!in.ok || m > n) return fail("truncated or inconsistent frame");
            moved.clear();
            std::vector<std::pair<std::uint32_t, Box6>> moves(m);
            for (auto& mv : moves) {
                mv.first = in.get<std::uint32_t>();
                for (float& x : mv.second.v) x = in.get<float>();
                if (mv.first >= n) return fail("a moved body out of range");
                moved.push_back(ids[mv.first]);
            }
            file_pairs = in.get<std::uint64_t>();
            if (!in.ok) return fail("truncated frame");
            // Untimed: only this frame's movers are active; each at its new centre.
            if (!previous.empty()) bodies->DeactivateBodies(previous.data(), int(previous.size()));
            if (!moved.empty()) bodies->ActivateBodies(moved.data(), int(moved.size()));
            previous = moved;
            for (const auto& mv : moves) {
                const float* b = mv.second.v;
                bodies->GetBody(ids[mv.first])
                    .SetPositionAndRotationInternal(RVec3(0.5f * (b[0] + b[3]), 0.5f * (b[1] + b[4]), 0.5f * (b[2] + b[5])),
                                                    Quat::sIdentity());
            }
            // Timed: the broad phase follows the moves and finds the movers' pairs.
            found.pairs = 0;
            const auto t0 = std::chrono::steady_clock::now();
            jolt_broad_phase_frame(*bp, moved, work, any_layer, any_pair, found);
            times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
            mismatches += verify && found.pairs != file_pairs;
        }
        std::printf("fraction=%g moved=%zu median_ms=%.4f min_ms=%.4f pairs=%llu file_pairs=%llu mismatches=%zu\n",
                    double(fraction), moved.size(), median(times), *std::min_element(times.begin(), times.end()),
                    static_cast<unsigned long long>(found.pairs), static_cast<unsigned long long>(file_pairs),
                    verify ? mismatches : std::size_t(0));
        std::fflush(stdout);
    }
    UnregisterTypes();
    delete Factory::sInstance;
    Factory::sInstance = nullptr;
    return in.at == in.bytes.size() ? 0 : fail("bytes past the last frame");
}
