// broadphase-lab bench on motion sequences (broadphase_fixtures/motion.hpp):
// each mode is a broad phase kept across frames and driven by the same
// moves. Scene modes are broadphase::Scene in one UpdateMode; Bullet's broad
// phases are optional peers (bullet_peers.cpp, built with
// BROADPHASE_WITH_BULLET).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <broadphase_fixtures/motion.hpp>

#include "args.hpp"

namespace broadphase_cli {

/// One broad phase under test, kept across the frames of a sequence.
class MotionRunner {
public:
    virtual ~MotionRunner() = default;
    /// The mode's name as --mode spells it.
    virtual std::string name() const = 0;
    /// Whether its pairs are exact (else: a superset, e.g. fat boxes).
    virtual bool exact() const = 0;
    /// Adds every object of `seq` at frame 0 and finds the first pairs (untimed).
    virtual void setup(const broadphase_fixtures::motion::Sequence& seq) = 0;
    /// The timed part of a frame: applies `moves`, then finds the pairs (and
    /// events, where the mode gives them).
    virtual void frame(const broadphase_fixtures::motion::Moves& moves) = 0;
    /// Pairs after the last frame.
    virtual std::size_t pairs() const = 0;
    /// Whether every pair of `exact` (sorted, object indices) is among this
    /// mode's pairs. Used for inexact modes under --verify.
    virtual bool covers(const std::vector<broadphase::Pair>& exact) const = 0;
};

/// Bullet's broad phases this build has ("bullet-dbvt", "bullet-sap"), none
/// without BROADPHASE_WITH_BULLET.
std::vector<std::string> bullet_mode_names();
/// A runner for one of bullet_mode_names().
std::unique_ptr<MotionRunner> make_bullet_runner(const std::string& mode);
/// Bullet's version, "" without it.
std::string bullet_version();

/// bench SEQUENCE [--mode M,M|all] [--frames K] [--threads T] [--verify] [--json]
int run_motion_bench(const ParsedArgs& p);
/// bench jolt-moves:FILE [--mode M,M|all] [--threads T] [--verify] [--json]:
/// replays a move file (jolt_incremental --moves, ../shared/peers) through
/// the Scene, per fraction and mode.
int run_moves_bench(const ParsedArgs& p);

}  // namespace broadphase_cli
