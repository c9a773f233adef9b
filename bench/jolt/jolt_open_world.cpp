// jolt_open_world: the open world of issue 45 (bench/open_world.hpp: S
// static tiles, M boxes all moving every frame) through Jolt Physics'
// BroadPhaseQuadTree alone, set up as Jolt recommends for a game, so that
// bench/jolt_bench.sh times it against bench/open_world_bench.cpp (the
// Scene) on exactly the same boxes and moves. Not built with the project:
// it needs a Jolt build (JOLT_BUILD, compiled with that build's own flags),
// and Jolt is not part of this repository.
//
//   jolt_open_world [--statics S] [--movers M] [--frames F] [--warmup W] [--stream K] [--seed N]
//
// Layers, as in Jolt's HelloWorld and samples: two object layers and two
// broad-phase layers, NON_MOVING and MOVING; NON_MOVING meets MOVING only,
// MOVING meets both. The tiles are EMotionType::Static bodies in
// NON_MOVING, the movers Dynamic bodies in MOVING, each kind sharing one
// BoxShape (convex radius 0, so that its bounds are the box). Adding the
// world (timed once, add_ms): creating the bodies, AddBodiesPrepare/
// Finalize per layer, and Optimize() (what a game does after loading a
// level). The movers are then activated (untimed), as a moving body is.
// Per frame, untimed: the world steps and each mover is put at its new
// centre (SetPositionAndRotationInternal, as bench/jolt/jolt_replay.cpp
// does). Timed: NotifyBodiesAABBChanged(movers), FrameSync, UpdatePrepare/
// Finalize, FindCollidingPairs(movers). With --stream K (as
// open_world_bench.cpp's), first in the timed part: the K tiles that left
// the broad phase last frame come back (AddBodiesPrepare/Finalize, the
// bodies kept in the body manager meanwhile, as a game keeps a streamed
// tile's body) and the next window of K leaves (RemoveBodies). Prints
//   statics=S movers=M mode=jolt stream=K add_ms=A median_ms=X min_ms=Y pairs=P
// (P: Jolt's pairs with a mover in the last frame; the world's coordinates
// are exact in float, so it equals the Scene's count).
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
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../open_world.hpp"
#include "jolt_frame.hpp"

namespace {

using namespace JPH;
using Clock = std::chrono::steady_clock;

namespace Layers {
constexpr ObjectLayer NON_MOVING = 0;
constexpr ObjectLayer MOVING = 1;
}  // namespace Layers
namespace BroadPhaseLayers {
constexpr BroadPhaseLayer NON_MOVING(0);
constexpr BroadPhaseLayer MOVING(1);
}  // namespace BroadPhaseLayers

// Each object layer in the broad-phase layer of the same name.
class GameLayers final : public BroadPhaseLayerInterface {
public:
    uint GetNumBroadPhaseLayers() const override { return 2; }
    BroadPhaseLayer GetBroadPhaseLayer(ObjectLayer layer) const override {
        return layer == Layers::NON_MOVING ? BroadPhaseLayers::NON_MOVING : BroadPhaseLayers::MOVING;
    }
#if defined(JPH_EXTERNAL_PROFILE) || defined(JPH_PROFILE_ENABLED)
    const char* GetBroadPhaseLayerName(BroadPhaseLayer layer) const override {
        return layer == BroadPhaseLayers::NON_MOVING ? "NON_MOVING" : "MOVING";
    }
#endif
};
// An object meets a broad-phase layer: NON_MOVING objects only the MOVING tree.
class ObjectVsLayer final : public ObjectVsBroadPhaseLayerFilter {
public:
    bool ShouldCollide(ObjectLayer object, BroadPhaseLayer layer) const override {
        return object == Layers::MOVING || layer == BroadPhaseLayers::MOVING;
    }
};
// Two objects meet unless both are NON_MOVING.
class ObjectPairs final : public ObjectLayerPairFilter {
public:
    bool ShouldCollide(ObjectLayer a, ObjectLayer b) const override {
        return a == Layers::MOVING || b == Layers::MOVING;
    }
};
class Counter final : public BodyPairCollector {
public:
    std::uint64_t pairs = 0;
    void AddHit(const BodyPair&) override { ++pairs; }
};

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double median(std::vector<double> t) {
    std::sort(t.begin(), t.end());
    return t.empty() ? 0 : t[t.size() / 2];
}

int usage() {
    std::fprintf(stderr,
                 "usage: jolt_open_world [--statics S] [--movers M] [--frames F] [--warmup W] [--stream K] [--seed N]\n");
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    std::uint32_t statics = 200000, movers = 2000, stream = 0;
    int frames = 30, warmup = 3;
    std::uint64_t seed = 45;  // open_world_bench's default too
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 >= argc) return usage();
        if (a == "--statics") statics = std::uint32_t(std::strtoul(argv[++i], nullptr, 10));
        else if (a == "--movers") movers = std::uint32_t(std::strtoul(argv[++i], nullptr, 10));
        else if (a == "--frames") frames = std::atoi(argv[++i]);
        else if (a == "--warmup") warmup = std::atoi(argv[++i]);
        else if (a == "--stream") stream = std::uint32_t(std::strtoul(argv[++i], nullptr, 10));
        else if (a == "--seed") seed = std::strtoull(argv[++i], nullptr, 10);
        else return usage();
    }
    const std::uint64_t n = std::uint64_t(statics) + movers;
    if (frames < 1 || warmup < 0 || n == 0 || n > BodyID::cMaxBodyIndex || stream > statics / 2) return usage();

    open_world::World world(statics, movers, seed);
    RegisterDefaultAllocator();
    Factory::sInstance = new Factory();
    RegisterTypes();
    GameLayers layers;
    ObjectVsLayer object_vs_layer;
    ObjectPairs object_pairs;

    auto bodies = std::make_unique<BodyManager>();
    bodies->Init(uint(n), 0, layers);
    auto bp = std::make_unique<BroadPhaseQuadTree>();
    bp->Init(bodies.get(), layers);
    std::vector<BodyID> static_ids(statics), mover_ids(movers), work;

    const Clock::time_point t_add = Clock::now();
    {
        // One shape per kind, shared by its bodies (Jolt's advice for many equal bodies).
        const float h = open_world::World::mover_half();
        RefConst<Shape> tile_shape = new BoxShape(Vec3(0.5f, 0.25f, 0.5f), 0.0f);
        RefConst<Shape> mover_shape = new BoxShape(Vec3(h, h, h), 0.0f);
        float b[6];
        for (std::uint32_t t = 0; t < statics; ++t) {
            world.tile_box(t, b);
            BodyCreationSettings s(tile_shape, RVec3(b[0] + 0.5f, 0.25f, b[2] + 0.5f), Quat::sIdentity(),
                                   EMotionType::Static, Layers::NON_MOVING);
            Body* body = bodies->AllocateBody(s);
            if (!bodies->AddBody(body)) return std::fprintf(stderr, "jolt_open_world: AddBody failed\n"), 1;
            static_ids[t] = body->GetID();
        }
        for (std::uint32_t k = 0; k < movers; ++k) {
            world.mover_centre(k, b);
            BodyCreationSettings s(mover_shape, RVec3(b[0], b[1], b[2]), Quat::sIdentity(), EMotionType::Dynamic,
                                   Layers::MOVING);
            // Mass given, so that no mass properties are computed (the broad phase never reads them).
            s.mOverrideMassProperties = EOverrideMassProperties::MassAndInertiaProvided;
            s.mMassPropertiesOverride.mMass = 1.0f;
            s.mMassPropertiesOverride.mInertia = Mat44::sIdentity();
            Body* body = bodies->AllocateBody(s);
            if (!bodies->AddBody(body)) return std::fprintf(stderr, "jolt_open_world: AddBody failed\n"), 1;
            mover_ids[k] = body->GetID();
        }
        // Per layer, as a game adds a level's static geometry and then its
        // dynamic bodies (Prepare may shuffle the array: a copy is passed).
        for (const std::vector<BodyID>* ids : {&static_ids, &mover_ids}) {
            if (ids->empty()) continue;
            work = *ids;
            BroadPhase::AddState st = bp->AddBodiesPrepare(work.data(), int(work.size()));
            bp->AddBodiesFinalize(work.data(), int(work.size()), st);
        }
        bp->Optimize();
    }
    const double add_ms = ms_since(t_add);
    if (!mover_ids.empty()) bodies->ActivateBodies(mover_ids.data(), int(mover_ids.size()));

    std::vector<double> times;
    times.reserve(std::size_t(frames));
    Counter found;
    // Streaming (see the top): the window out since last frame, and scratch.
    std::uint32_t out_at = 0, out_count = 0;
    std::vector<BodyID> streamed;
    streamed.reserve(stream);
    for (int f = 0; f < warmup + frames; ++f) {
        // Untimed: the world steps; each mover at its new centre (its bounds follow).
        world.step();
        float c[3];
        for (std::uint32_t k = 0; k < movers; ++k) {
            world.mover_centre(k, c);
            bodies->GetBody(mover_ids[k]).SetPositionAndRotationInternal(RVec3(c[0], c[1], c[2]), Quat::sIdentity());
        }
        // Timed: the broad phase follows the moves and finds the movers' pairs.
        found.pairs = 0;
        const Clock::time_point t0 = Clock::now();
        if (stream) {
            const std::uint32_t back = out_count ? (out_at + out_count) % statics : 0;  // the next window
            if (out_count) {
                streamed.clear();
                for (std::uint32_t i = 0; i < out_count; ++i) streamed.push_back(static_ids[(out_at + i) % statics]);
                BroadPhase::AddState st = bp->AddBodiesPrepare(streamed.data(), int(streamed.size()));
                bp->AddBodiesFinalize(streamed.data(), int(streamed.size()), st);
            }
            streamed.clear();
            for (std::uint32_t i = 0; i < stream; ++i) streamed.push_back(static_ids[(back + i) % statics]);
            bp->RemoveBodies(streamed.data(), int(streamed.size()));
            out_at = back, out_count = stream;
        }
        jolt_broad_phase_frame(*bp, mover_ids, work, object_vs_layer, object_pairs, found);
        const double ms = ms_since(t0);
        if (f >= warmup) times.push_back(ms);
    }
    std::printf("statics=%u movers=%u mode=jolt stream=%u add_ms=%.3f median_ms=%.4f min_ms=%.4f pairs=%llu\n", statics,
                movers, stream, add_ms, median(times), *std::min_element(times.begin(), times.end()),
                static_cast<unsigned long long>(found.pairs));
    bp.reset();
    bodies.reset();
    UnregisterTypes();
    delete Factory::sInstance;
    Factory::sInstance = nullptr;
    return 0;
}
