// End-to-end tests of broadphase-lab (bench/lab/): the peers after our
// algorithms, the motion sequences in every mode, move files written and
// replayed, and what the lab leaves to the CLI. Run as the CLI's tests are
// (tests/cli/cli_harness.hpp): the built executable (BROADPHASE_LAB_PATH)
// through the shell on files in a temporary directory.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cli_harness.hpp"

#ifndef BROADPHASE_LAB_PATH
#error "BROADPHASE_LAB_PATH must name the broadphase-lab executable"
#endif

namespace {

using namespace broadphase_cli_test;

class Lab : public ProgramTest {
protected:
    Lab() : ProgramTest(BROADPHASE_LAB_PATH) {}
};

// ---------------------------------------------------------------- peers

// "all" is ours, then the peers this build has (bench/peers/: none, some or
// all of cgal, fcl, bullet-dbvt), each verified equal to brute force.
TEST_F(Lab, BenchAllRunsThePeersAfterOurs) {
    broadphase::Boxes scene;
    ASSERT_TRUE(broadphase_fixtures::make_scene("uniform:3000", scene));
    const std::string expected_pairs = std::to_string(brute(scene).size());
    const RunResult r = run({"bench", "uniform:3000", "--algorithm", "all", "--frames", "1", "--verify", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::vector<std::string> lines = lines_of(r.out);
    ASSERT_GE(lines.size(), 7u) << r.out;
    ASSERT_LE(lines.size(), 10u) << r.out;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        std::map<std::string, std::string> obj;
        ASSERT_TRUE(parse_flat_json(lines[i], obj)) << lines[i];
        EXPECT_EQ(obj["pairs"], expected_pairs) << lines[i];
        EXPECT_EQ(obj["verified"], "true") << lines[i];
        EXPECT_EQ(obj.count("peer"), i < 7 ? 0u : 1u) << lines[i];
        if (i < 7) continue;
        EXPECT_TRUE(obj["algorithm"] == "cgal" || obj["algorithm"] == "fcl" || obj["algorithm"] == "bullet-dbvt")
            << lines[i];
        EXPECT_EQ(obj["relation"], "equal") << lines[i];
        EXPECT_EQ(obj["missing"], "0") << lines[i];
        EXPECT_EQ(obj["extra"], "0") << lines[i];
        EXPECT_EQ(obj["threads"], "1") << lines[i];  // the peers run on one thread
    }
}

// One peer by name: its row when this build has it, else one line saying so.
TEST_F(Lab, BenchOnePeerOrACleanRefusal) {
    for (const char* name : {"cgal", "fcl", "bullet-dbvt"}) {
        SCOPED_TRACE(name);
        const RunResult r = run({"bench", "uniform:2000", "--algorithm", name, "--frames", "1", "--verify", "--json"});
        if (r.status != 0) {
            EXPECT_EQ(r.status, 1);
            EXPECT_EQ(count_lines(r.err), 1u) << r.err;
            EXPECT_NE(r.err.find("built without"), std::string::npos) << r.err;
            continue;
        }
        const std::vector<std::string> lines = lines_of(r.out);
        ASSERT_EQ(lines.size(), 1u) << r.out;
        std::map<std::string, std::string> obj;
        ASSERT_TRUE(parse_flat_json(lines[0], obj)) << lines[0];
        EXPECT_EQ(obj["algorithm"], name);
        EXPECT_EQ(obj["verified"], "true");
    }
    EXPECT_EQ(run({"bench", "uniform:2000", "--algorithm", "cgal", "--queries"}).status, 2);
}

// ---------------------------------------------------------------- motion sequences

TEST_F(Lab, BenchMotionSequencesVerifyEveryMode) {
    for (const char* sequence : {"brownian:2000:0.1", "fall:2000", "static-world:2000:0.1"}) {
        SCOPED_TRACE(sequence);
        const RunResult r = run({"bench", sequence, "--mode", "all", "--verify", "--json", "--frames", "3"});
        ASSERT_EQ(r.status, 0) << r.err;
        std::vector<std::string> modes;
        for (const std::string& line : lines_of(r.out)) {
            std::map<std::string, std::string> obj;
            ASSERT_TRUE(parse_flat_json(line, obj)) << line;
            for (const char* key : {"scene", "n", "mode", "frames", "median_ms", "min_ms", "pairs", "begun", "ended",
                                    "moved", "verified", "covers_exact", "oracle", "exact"})
                EXPECT_EQ(obj.count(key), 1u) << key;
            EXPECT_EQ(obj["scene"], sequence);
            EXPECT_EQ(obj["n"], "2000");
            EXPECT_EQ(obj["frames"], "3");
            EXPECT_EQ(obj["oracle"], "brute_force");
            EXPECT_GT(std::stod(obj["pairs"]), 0.0) << line;
            EXPECT_GT(std::stod(obj["moved"]), 0.0) << line;
            EXPECT_LE(std::stod(obj["min_ms"]), std::stod(obj["median_ms"]));
            if (obj["mode"].rfind("bullet-", 0) == 0 || obj["mode"] == "fat-pairs") {  // fat pairs, never claimed exact
                EXPECT_EQ(obj["exact"], "false");
                EXPECT_EQ(obj["verified"], "null");
                EXPECT_EQ(obj["covers_exact"], "true") << line;
            } else {
                EXPECT_EQ(obj["exact"], "true");
                EXPECT_EQ(obj["verified"], "true") << line;
            }
            modes.push_back(obj["mode"]);
        }
        ASSERT_GE(modes.size(), 2u) << r.out;
        EXPECT_EQ(modes[0], "multi_box_pruning");
        EXPECT_EQ(modes[1], "rebuild");
        for (const char* m : {"grid", "enlarged", "automatic", "fat-pairs"})
            EXPECT_NE(std::find(modes.begin(), modes.end(), m), modes.end()) << m;
    }
}

TEST_F(Lab, BenchMotionDefaultModesAndTable) {
    const RunResult j = run({"bench", "brownian:500:1", "--frames", "2", "--json"});
    ASSERT_EQ(j.status, 0) << j.err;
    const std::vector<std::string> lines = lines_of(j.out);
    ASSERT_EQ(lines.size(), 2u) << j.out;  // multi_box_pruning, rebuild
    std::map<std::string, std::string> obj;
    ASSERT_TRUE(parse_flat_json(lines[1], obj)) << lines[1];
    EXPECT_EQ(obj["mode"], "rebuild");
    EXPECT_EQ(obj["verified"], "null");
    EXPECT_EQ(obj["moved"], "500.0");

    const RunResult t = run({"bench", "static-world:1000:0.5", "--frames", "2", "--verify", "--mode", "enlarged,rebuild"});
    ASSERT_EQ(t.status, 0) << t.err;
    EXPECT_NE(t.out.find("enlarged"), std::string::npos) << t.out;
    EXPECT_NE(t.out.find("yes"), std::string::npos) << t.out;
    EXPECT_EQ(t.out.find("NO"), std::string::npos) << t.out;
    EXPECT_EQ(t.out.find("multi_box_pruning"), std::string::npos) << t.out;

    const RunResult l = run({"scenes"});
    ASSERT_EQ(l.status, 0) << l.err;
    for (const char* name : {"fall:N", "brownian:N:F", "static-world:N:F", "game:N:F", "particles:N"})
        EXPECT_NE(l.out.find(name), std::string::npos) << name;

    // Update modes are named as in C++ and Python (multi_box_pruning); the
    // hyphen spelling is the same mode, asked for once.
    const RunResult h = run({"bench", "brownian:300:0.5", "--frames", "1", "--json", "--mode",
                             "grid,multi-box-pruning,multi_box_pruning"});
    ASSERT_EQ(h.status, 0) << h.err;
    const std::vector<std::string> hl = lines_of(h.out);
    ASSERT_EQ(hl.size(), 2u) << h.out;
    std::map<std::string, std::string> first, second;
    ASSERT_TRUE(parse_flat_json(hl[0], first)) << hl[0];
    ASSERT_TRUE(parse_flat_json(hl[1], second)) << hl[1];
    EXPECT_EQ(first["mode"], "grid");
    EXPECT_EQ(second["mode"], "multi_box_pruning");
}

TEST_F(Lab, BenchMotionRejectsBadNames) {
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"bench", "fall:x"},
             {"bench", "fall:0"},
             {"bench", "fall"},
             {"bench", "fall:100:0.5"},
             {"bench", "fall:99999999999"},
             {"bench", "brownian:100"},
             {"bench", "brownian:100:0"},
             {"bench", "brownian:100:1.5"},
             {"bench", "brownian:100:abc"},
             {"bench", "brownian:100:nan"},
             {"bench", "static-world:-5:0.1"},
             {"bench", "static-world:100:"},
             {"bench", "fall:100", "--mode", "nosuchmode"},
             {"bench", "fall:100", "--mode", "incremental"},
             {"bench", "fall:100", "--mode", "rebuild,,tree"},
             {"bench", "fall:100", "--algorithm", "all"},
             {"bench", "fall:100", "--queries"},
             {"bench", "fall:100", "--frames", "0"},
             {"bench", "dense20k", "--mode", "rebuild"}}) {
        SCOPED_TRACE(args[1] + (args.size() > 2 ? " " + args[2] : ""));
        const RunResult b = run(args);
        EXPECT_NE(b.status, 0);
        EXPECT_NE(b.status, -1);
        EXPECT_EQ(count_lines(b.err), 1u) << b.err;
        EXPECT_EQ(b.out, "");
        if (args.back() == "incremental") {
            EXPECT_NE(b.err.find("'multi_box_pruning'"), std::string::npos) << b.err;
        }
    }
}


/// A JOLTMOV1 move file (the format of ../shared/peers/jolt_incremental.cpp's
/// --moves): a row of unit boxes 0.9 apart, one block of two frames; frame
/// 0 moves box 1 up out of reach of its neighbours, frame 1 moves box 3
/// onto box 4 (it then meets 4 and 5, no longer 2). `peer` is the count of
/// pairs with a moved body the file claims for frame 1 (the right one is 2).
std::string move_file(std::uint64_t peer) {
    std::string s = "JOLTMOV1";
    auto put = [&](auto v) { s.append(reinterpret_cast<const char*>(&v), sizeof v); };
    auto box = [&](float x, float y) {
        for (float v : {x, y, 0.0f, x + 1, y + 1, 1.0f}) put(v);
    };
    const std::uint32_t n = 6;
    put(n), put(std::uint32_t(1)), put(std::uint32_t(2)), put(std::uint32_t(7)), put(0.05f);
    for (std::uint32_t i = 0; i < n; ++i) put(i);
    for (std::uint32_t i = 0; i < n; ++i) box(0.9f * float(i), 0);
    put(0.2f), put(std::uint32_t(1));
    put(std::uint32_t(1)), put(std::uint32_t(1)), box(0.9f, 5), put(std::uint64_t(0));  // box 1 leaves both neighbours
    put(std::uint32_t(1)), put(std::uint32_t(3)), box(3.6f, 0), put(peer);  // box 3 onto box 4
    return s;
}

TEST_F(Lab, BenchReplaysAMoveFileInEveryMode) {
    write_file(path("moves.bin"), move_file(2));
    const RunResult r = run({"bench", "jolt-moves:" + path("moves.bin"), "--mode", "all", "--verify", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::set<std::string> modes;
    for (const std::string& line : lines_of(r.out)) {
        std::map<std::string, std::string> obj;
        ASSERT_TRUE(parse_flat_json(line, obj)) << line;
        EXPECT_EQ(obj["bodies"], "6");
        EXPECT_EQ(obj["frames"], "2");
        modes.insert(obj["mode"]);
        if (obj["mode"] == "queries") {  // the floor: the last frame's mover, box 3, finds boxes 4 and 5
            EXPECT_EQ(obj["hits"], "2") << line;
            continue;
        }
        EXPECT_EQ(obj["verified"], "true") << line;
        EXPECT_EQ(obj["moved_pairs"], "2") << line;
    }
    for (const char* m : {"automatic", "multi_box_pruning", "grid", "rebuild", "enlarged", "queries"})
        EXPECT_EQ(modes.count(m), 1u) << m;
}

TEST_F(Lab, BenchMoveFileErrors) {
    write_file(path("wrong.bin"), move_file(3));
    const RunResult wrong = run({"bench", "jolt-moves:" + path("wrong.bin"), "--verify"});
    EXPECT_EQ(wrong.status, 1);
    EXPECT_NE(wrong.err.find("differ from the peer's"), std::string::npos) << wrong.err;
    const std::string whole = move_file(2);
    write_file(path("short.bin"), whole.substr(0, whole.size() - 5));
    const RunResult cut = run({"bench", "jolt-moves:" + path("short.bin")});
    EXPECT_EQ(cut.status, 1);
    EXPECT_NE(cut.err.find("truncated at byte"), std::string::npos) << cut.err;
    write_file(path("other.bin"), "NOTMOVES" + whole.substr(8));
    const RunResult other = run({"bench", "jolt-moves:" + path("other.bin")});
    EXPECT_EQ(other.status, 1);
    EXPECT_NE(other.err.find("not a move file"), std::string::npos) << other.err;
    write_file(path("moves.bin"), whole);
    const RunResult frames = run({"bench", "jolt-moves:" + path("moves.bin"), "--frames", "3"});
    EXPECT_EQ(frames.status, 2);
}

TEST_F(Lab, BenchSavesASequencesMovesForAReplay) {
    const RunResult w = run({"bench", "game:2000:0.05", "--frames", "4", "--mode", "grid", "--save-moves", path("game.bin")});
    ASSERT_EQ(w.status, 0) << w.err;
    const RunResult r = run({"bench", "jolt-moves:" + path("game.bin"), "--mode", "all", "--verify", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::size_t rows = 0;
    for (const std::string& line : lines_of(r.out)) {
        std::map<std::string, std::string> obj;
        ASSERT_TRUE(parse_flat_json(line, obj)) << line;
        if (obj["mode"] != "queries") {
            EXPECT_EQ(obj["verified"], "true") << line;
        }
        EXPECT_EQ(obj["frames"], "7");  // 3 warm-up + 4
        EXPECT_EQ(obj["moved"], "100");
        ++rows;
    }
    EXPECT_EQ(rows, 6u);  // five modes and the queries' floor
    const RunResult statics = run({"bench", "static-world:500:0.1", "--save-moves", path("city.bin")});
    EXPECT_EQ(statics.status, 2);
    EXPECT_NE(statics.err.find("static objects"), std::string::npos) << statics.err;
}

// ---------------------------------------------------------------- particles, help, the CLI's part

TEST_F(Lab, BenchParticlesTimesTheSimulation) {
    const RunResult r = run({"bench", "particles:500", "--frames", "3", "--threads", "1", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::map<std::string, std::string> obj;
    ASSERT_TRUE(parse_flat_json(r.out, obj)) << r.out;
    EXPECT_EQ(obj["n"], "500");
    EXPECT_EQ(obj["steps"], "3");
    EXPECT_EQ(obj["broad_phase"], "neighbor_list");
    EXPECT_EQ(run({"bench", "particles:500:nosuch"}).status, 2);
}

TEST_F(Lab, HelpVersionAndWhatIsTheClis) {
    const RunResult h = run({"--help"});
    EXPECT_EQ(h.status, 0);
    for (const char* text : {"broadphase-lab bench SEQUENCE", "jolt-moves:FILE", "particles:N", "--mode", "cgal",
                             "--save-moves"})
        EXPECT_NE(h.out.find(text), std::string::npos) << text;
    const RunResult v = run({"--version"});
    EXPECT_EQ(v.status, 0);
    EXPECT_EQ(v.out.rfind("broadphase-lab ", 0), 0u) << v.out;
    EXPECT_EQ(run({}).status, 2);
    // Box queries, the GPU, saved boxes and the CLI's commands: one line naming broadphase.
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"bench", "uniform:100", "--queries"},
             {"bench", "uniform:100", "--device", "cuda"},
             {"bench", "uniform:100", "--save-boxes", "b.npy"},
             {"pairs", "a.npy", "-o", "p.npy"},
             {"query", "a.npy", "b.npy", "-o", "p.npy"},
             {"demo"}}) {
        SCOPED_TRACE(args[0] + " " + args.back());
        const RunResult r = run(args);
        EXPECT_EQ(r.status, 2);
        EXPECT_EQ(count_lines(r.err), 1u) << r.err;
        EXPECT_EQ(r.err.rfind("broadphase-lab: ", 0), 0u) << r.err;
        EXPECT_NE(r.err.find("broadphase "), std::string::npos) << r.err;
        EXPECT_EQ(r.out, "");
    }
    EXPECT_EQ(run({"frobnicate"}).status, 2);
}

}  // namespace
