// One broad-phase frame of Jolt Physics as its own broad-phase tests drive
// it, shared by the drivers that time Jolt beside the Scene (jolt_replay.cpp,
// jolt_open_world.cpp; compiled by bench/jolt_bench.sh against a Jolt build,
// never with the project): the moved bodies' bounds notified, the update,
// then the moved bodies' pairs. Include after <Jolt/Jolt.h> and the broad
// phase's headers.
#pragma once

#include <vector>

/// The timed part of a frame. `work` is scratch: Jolt may reorder the
/// arrays it is given, so it gets copies of `moved` (into reused memory).
template <class ObjectVsLayer, class PairFilter, class Collector>
void jolt_broad_phase_frame(JPH::BroadPhase& bp, const std::vector<JPH::BodyID>& moved, std::vector<JPH::BodyID>& work,
                            const ObjectVsLayer& object_vs_layer, const PairFilter& pairs, Collector& found) {
    work = moved;
    if (!work.empty()) bp.NotifyBodiesAABBChanged(work.data(), int(work.size()), true);
    bp.FrameSync();
    bp.LockModifications();
    JPH::BroadPhase::UpdateState us = bp.UpdatePrepare();
    bp.UpdateFinalize(us);
    bp.UnlockModifications();
    work = moved;
    if (!work.empty()) bp.FindCollidingPairs(work.data(), int(work.size()), 0.0f, object_vs_layer, pairs, found);
}
