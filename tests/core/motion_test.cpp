// Motion sequences (motion.hpp): names, determinism, what each kind moves,
// and the falling pile's stacking.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

#include <broadphase_fixtures/motion.hpp>

namespace {

namespace motion = broadphase_fixtures::motion;
using broadphase::Box;
using broadphase::ObjectType;

bool same_bits(const Box& a, const Box& b) { return std::memcmp(&a, &b, sizeof(Box)) == 0; }

bool inside(const Box& b, const Box& world) {
    for (int k = 0; k < 3; ++k)
        if (b.min[k] < world.min[k] || b.max[k] > world.max[k]) return false;
    return true;
}

motion::Sequence make(const std::string& name) {
    motion::Sequence s;
    std::string error;
    EXPECT_TRUE(motion::Sequence::make(name, s, error)) << name << ": " << error;
    EXPECT_EQ(error, "");
    return s;
}

TEST(Motion, ParsesGoodNames) {
    motion::Spec s;
    std::string error;
    ASSERT_TRUE(motion::parse("fall:100000", s, error)) << error;
    EXPECT_EQ(s.kind, motion::Kind::fall);
    EXPECT_EQ(s.n, 100000u);
    EXPECT_EQ(s.fraction, 1.0);
    ASSERT_TRUE(motion::parse("brownian:2000:0.01", s, error)) << error;
    EXPECT_EQ(s.kind, motion::Kind::brownian);
    EXPECT_EQ(s.n, 2000u);
    EXPECT_EQ(s.fraction, 0.01);
    ASSERT_TRUE(motion::parse("static-world:7:1", s, error)) << error;
    EXPECT_EQ(s.kind, motion::Kind::static_world);
    EXPECT_EQ(s.fraction, 1.0);
    ASSERT_TRUE(motion::parse("brownian:1:1e-3", s, error)) << error;
    ASSERT_TRUE(motion::parse("game:5000:0.02", s, error)) << error;
    EXPECT_EQ(s.kind, motion::Kind::game);
    EXPECT_EQ(s.fraction, 0.02);
    for (const std::string& p : motion::sequence_names()) EXPECT_NE(motion::describe(p), "") << p;
}

TEST(Motion, RejectsBadNamesWithAReason) {
    for (const char* name : {"fall", "fall:", "fall:0", "fall:x", "fall:-1", "fall:1.5", "fall:100:1", "fall:99999999999",
                             "brownian:100", "brownian:100:0", "brownian:100:-0.1", "brownian:100:1.01",
                             "brownian:100:x", "brownian:100:nan", "brownian:100:inf", "brownian::0.5",
                             "brownian:100:0.5:2", "static-world:100:", "static-world:100:2", "game:100", "game:100:0", "falls:10", "",
                             "uniform:100"}) {
        motion::Spec s;
        std::string error;
        EXPECT_FALSE(motion::parse(name, s, error)) << name;
        EXPECT_NE(error, "") << name;
        EXPECT_EQ(error.find('\n'), std::string::npos) << error;
        motion::Sequence seq;
        EXPECT_FALSE(motion::Sequence::make(name, seq, error)) << name;
    }
    EXPECT_TRUE(motion::is_sequence_name("fall:x"));
    EXPECT_TRUE(motion::is_sequence_name("brownian"));
    EXPECT_TRUE(motion::is_sequence_name("static-world:1:1"));
    EXPECT_FALSE(motion::is_sequence_name("uniform:100"));
    EXPECT_FALSE(motion::is_sequence_name("dense20k"));
    EXPECT_FALSE(motion::is_sequence_name("fallen:3"));
}

TEST(Motion, SameNameSameSequence) {
    for (const char* name : {"fall:3000", "brownian:3000:0.1", "brownian:500:1", "static-world:3000:0.05", "game:3000:0.05"}) {
        SCOPED_TRACE(name);
        motion::Sequence a = make(name), b = make(name);
        ASSERT_EQ(a.size(), b.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
            ASSERT_TRUE(same_bits(a.initial()[i], b.initial()[i])) << i;
            ASSERT_EQ(a.types()[i], b.types()[i]);
        }
        EXPECT_TRUE(same_bits(a.bounds(), b.bounds()));
        motion::Moves ma, mb;
        for (int f = 0; f < 40; ++f) {
            a.next_frame(ma);
            b.next_frame(mb);
            ASSERT_EQ(ma.index, mb.index) << "frame " << f;
            for (std::size_t k = 0; k < ma.size(); ++k) ASSERT_TRUE(same_bits(ma.box[k], mb.box[k]));
        }
        EXPECT_EQ(a.frame(), 40u);
    }
}

TEST(Motion, AnotherSeedAnotherSequence) {
    motion::Spec s;
    std::string error;
    ASSERT_TRUE(motion::parse("brownian:1000:0.1", s, error));
    motion::Sequence a(s), b(s, 12345);
    bool differs = false;
    for (std::size_t i = 0; i < a.size(); ++i) differs = differs || !same_bits(a.initial()[i], b.initial()[i]);
    EXPECT_TRUE(differs);
}

/// Runs `frames` frames, checking what every kind promises: each object
/// moves at most once a frame, static objects never, boxes() follows the
/// moves, every box stays valid and inside bounds(). Returns moves per frame.
std::vector<std::size_t> run_and_check(motion::Sequence& seq, int frames) {
    std::vector<std::size_t> moved;
    std::vector<Box> expect = seq.initial();
    for (const Box& b : expect) EXPECT_TRUE(b.valid() && inside(b, seq.bounds()));
    motion::Moves m;
    for (int f = 0; f < frames; ++f) {
        seq.next_frame(m);
        EXPECT_EQ(m.index.size(), m.box.size());
        std::set<std::uint32_t> seen;
        for (std::size_t k = 0; k < m.size(); ++k) {
            const std::uint32_t i = m.index[k];
            EXPECT_LT(i, seq.size());
            EXPECT_TRUE(seen.insert(i).second) << "object " << i << " moved twice in frame " << f;
            EXPECT_EQ(seq.types()[i], ObjectType::dynamic_object) << i;
            EXPECT_TRUE(m.box[k].valid());
            EXPECT_TRUE(inside(m.box[k], seq.bounds())) << "object " << i << " frame " << f;
            expect[i] = m.box[k];
        }
        for (std::size_t i = 0; i < seq.size(); ++i)
            if (!same_bits(expect[i], seq.boxes()[i])) {
                ADD_FAILURE() << "boxes() differs from the moves at object " << i << ", frame " << f;
                return moved;
            }
        moved.push_back(m.size());
    }
    return moved;
}

TEST(Motion, BrownianMovesItsShareOfDistinctBoxes) {
    motion::Sequence seq = make("brownian:2000:0.1");
    EXPECT_EQ(seq.size(), 2000u);
    EXPECT_EQ(seq.static_count(), 0u);
    for (std::size_t moved : run_and_check(seq, 20)) EXPECT_EQ(moved, 200u);
    motion::Sequence all = make("brownian:300:1");
    for (std::size_t moved : run_and_check(all, 5)) EXPECT_EQ(moved, 300u);
    motion::Sequence one = make("brownian:300:0.0001");  // at least one box moves
    for (std::size_t moved : run_and_check(one, 5)) EXPECT_EQ(moved, 1u);
}

TEST(Motion, GameWakesNeighbourhoodsThatMoveSettleAndSleep) {
    motion::Sequence seq = make("game:4000:0.05");
    EXPECT_EQ(seq.static_count(), 0u);
    std::vector<std::set<std::uint32_t>> movers;
    motion::Moves m;
    std::set<std::uint32_t> ever;
    const std::vector<std::size_t> moved = run_and_check(seq, 1);  // frame 1: the first 200 wake
    EXPECT_EQ(moved[0], 200u);
    std::set<std::uint32_t> last;
    std::size_t stayed = 0, total = 0;
    for (int f = 0; f < 150; ++f) {
        seq.next_frame(m);
        EXPECT_EQ(m.size(), 200u) << "frame " << f;  // F*N awake at a time
        std::set<std::uint32_t> now(m.index.begin(), m.index.end());
        for (std::uint32_t i : now) stayed += last.count(i), ++total, ever.insert(i);
        last = now;
    }
    // The same boxes move frame after frame (they sleep after about 30
    // frames), and over 150 frames many more than 200 have woken.
    EXPECT_GT(double(stayed) / double(total), 0.9);
    EXPECT_GT(ever.size(), 600u);
    EXPECT_LT(ever.size(), 4000u);
}

TEST(Motion, StaticWorldHasStaticCityAndMovers) {
    motion::Sequence seq = make("static-world:3000:0.1");
    EXPECT_EQ(seq.size(), 3000u);
    EXPECT_EQ(seq.static_count(), 2700u);
    for (std::size_t i = 0; i < seq.size(); ++i)
        EXPECT_EQ(seq.types()[i], i < 2700 ? ObjectType::static_object : ObjectType::dynamic_object);
    for (std::size_t moved : run_and_check(seq, 30)) EXPECT_EQ(moved, 300u);
    motion::Sequence movers = make("static-world:200:1");
    EXPECT_EQ(movers.static_count(), 0u);
    run_and_check(movers, 10);
}

TEST(Motion, FallSettlesIntoAPileWithoutInterpenetration) {
    motion::Sequence seq = make("fall:800");
    EXPECT_EQ(seq.size(), 805u);
    EXPECT_EQ(seq.static_count(), 5u);
    const std::vector<std::size_t> moved = run_and_check(seq, 200);
    EXPECT_EQ(moved.front(), 800u);  // everything falls at first
    for (std::size_t f = 1; f < moved.size(); ++f) EXPECT_LE(moved[f], moved[f - 1]) << "frame " << f;
    EXPECT_EQ(moved.back(), 0u);  // all landed
    // Boxes over a common patch of floor never overlap with volume: each
    // rests on the floor or touches a box below it.
    const std::vector<Box>& b = seq.boxes();
    std::size_t on_floor = 0, touching = 0;
    for (std::size_t i = 5; i < b.size(); ++i) {
        bool rests = b[i].min[2] == 0.0f;
        on_floor += rests ? 1 : 0;
        for (std::size_t j = 5; j < b.size(); ++j) {
            if (i == j) continue;
            const bool footprint = b[i].min[0] < b[j].max[0] && b[j].min[0] < b[i].max[0] &&
                                   b[i].min[1] < b[j].max[1] && b[j].min[1] < b[i].max[1];
            if (!footprint) continue;
            EXPECT_FALSE(b[i].min[2] < b[j].max[2] && b[j].min[2] < b[i].max[2]) << i << " and " << j << " overlap";
            rests = rests || b[i].min[2] == b[j].max[2];
        }
        touching += rests ? 1 : 0;
        EXPECT_TRUE(rests) << "box " << i << " hangs in the air";
    }
    EXPECT_GT(on_floor, 0u);
    EXPECT_EQ(touching, 800u);
}

}  // namespace
