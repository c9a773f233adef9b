// End-to-end tests of the `broadphase` command-line tool.
//
// Each test writes its inputs to a fresh temporary directory, runs the built
// executable (BROADPHASE_CLI_PATH) through the shell, and checks its exit
// status, its stdout and stderr, and the files it wrote. The .npy and .csv
// files are written and read here independently of the tool's own code, and
// the expected pairs come from the library's brute force (cli_harness.hpp,
// shared with the lab's tests, tests/lab/).
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cli_harness.hpp"

#ifndef BROADPHASE_CLI_PATH
#error "BROADPHASE_CLI_PATH must name the broadphase executable"
#endif

namespace {

using namespace broadphase_cli_test;

class Cli : public ProgramTest {
protected:
    Cli() : ProgramTest(BROADPHASE_CLI_PATH) {}
};

const char* const all_algorithms[] = {"automatic", "brute_force", "sweep_and_prune", "uniform_grid", "hybrid_grid",
                                      "adaptive_grid", "cluster_pairs"};

// ---------------------------------------------------------------- pairs

TEST_F(Cli, NpyFloat32EveryAlgorithmMatchesBruteForce) {
    const std::vector<double> rows = random_rows(400, 11);
    write_file(path("a.npy"), npy_file(rows));
    const std::vector<Pair> expected = brute(boxes_of(rows));
    ASSERT_GT(expected.size(), 100u);
    for (const char* algorithm : all_algorithms) {
        SCOPED_TRACE(algorithm);
        const RunResult r = run({"pairs", path("a.npy"), "-o", path("out.npy"), "--algorithm", algorithm});
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(r.err, "");
        EXPECT_EQ(sorted(read_npy_pairs(path("out.npy"))), expected);
    }
}

TEST_F(Cli, NpyFloat64IsComputedInDouble) {
    std::vector<double> rows = random_rows(300, 12);
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i] += (i % 3 == 0 ? 1e-9 : -3e-8) * double(i % 7);
    write_file(path("a.npy"), npy_file(rows, true));
    const std::vector<Pair> expected = brute(boxes64_of(rows));
    for (const char* algorithm : all_algorithms) {
        SCOPED_TRACE(algorithm);
        const RunResult r = run({"pairs", path("a.npy"), "-o", path("out.npy"), "--algorithm", algorithm});
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(sorted(read_npy_pairs(path("out.npy"))), expected);
    }
}

// ---------------------------------------------------------------- float64 input, exactly

/// One ulp of double above / below.
double up(double x) { return std::nextafter(x, std::numeric_limits<double>::infinity()); }
double down(double x) { return std::nextafter(x, -std::numeric_limits<double>::infinity()); }

/// The rows in a float64 .npy (name.npy) and a .csv (name.csv, %.17g: exact).
void write_both(const std::string& npy, const std::string& csv, const std::vector<double>& rows) {
    write_file(npy, npy_file(rows, true));
    write_file(csv, csv_file(rows, false));
}

TEST_F(Cli, Float64BoxesOneUlpApartDoNotTouch) {
    for (double offset : {0.0, 1e7}) {
        SCOPED_TRACE(offset);
        const double x = offset + 0.1 + 0.2;  // 0.30000000000000004 at offset 0
        ASSERT_EQ(static_cast<float>(x), static_cast<float>(up(x)));  // to nearest float they would touch
        // Box 0 ends at x on the x axis; box 1 starts one double ulp later.
        const std::vector<double> apart = {offset, 0, 0, x, 1, 1, up(x), 0, 0, offset + 2, 1, 1};
        const std::vector<double> touching = {offset, 0, 0, x, 1, 1, x, 0, 0, offset + 2, 1, 1};
        ASSERT_EQ(brute(boxes_of(apart)).size(), 1u);  // what rounding to float gave
        for (const char* ext : {".npy", ".csv"}) {
            SCOPED_TRACE(ext);
            write_both(path("apart.npy"), path("apart.csv"), apart);
            write_both(path("touching.npy"), path("touching.csv"), touching);
            for (const char* algorithm : all_algorithms) {
                SCOPED_TRACE(algorithm);
                RunResult r = run({"pairs", path(std::string("apart") + ext), "-o", path("out.csv"), "-a", algorithm});
                ASSERT_EQ(r.status, 0) << r.err;
                EXPECT_EQ(r.err, "");
                EXPECT_EQ(read_file(path("out.csv")), "");
                r = run({"pairs", path(std::string("touching") + ext), "-o", path("out.csv"), "-a", algorithm});
                ASSERT_EQ(r.status, 0) << r.err;
                EXPECT_EQ(read_file(path("out.csv")), "0,1\n");
            }
            // The same boxes as two files of one box each.
            write_both(path("a.npy"), path("a.csv"), {apart.begin(), apart.begin() + 6});
            write_both(path("b.npy"), path("b.csv"), {apart.begin() + 6, apart.end()});
            RunResult r = run({"pairs", path(std::string("a") + ext), path(std::string("b") + ext), "-o", path("out.csv")});
            ASSERT_EQ(r.status, 0) << r.err;
            EXPECT_EQ(read_file(path("out.csv")), "");
        }
    }
}

TEST_F(Cli, Float64MinAboveMaxByOneUlpStaysInvalid) {
    for (double offset : {0.0, 1e7}) {
        SCOPED_TRACE(offset);
        const double m = offset + 0.1 + 0.2;
        ASSERT_EQ(static_cast<float>(up(m)), static_cast<float>(m));  // to nearest float: a valid flat box
        // Box 0: min x one double ulp above its max x. Box 1 surrounds it.
        const std::vector<double> rows = {up(m), 0, 0, m, 1, 1, offset - 1, -1, -1, offset + 2, 2, 2};
        ASSERT_EQ(brute(boxes_of(rows)).size(), 1u);  // what rounding to float gave
        write_both(path("a.npy"), path("a.csv"), rows);
        for (const char* ext : {".npy", ".csv"}) {
            SCOPED_TRACE(ext);
            const std::string in = path(std::string("a") + ext);
            const RunResult r = run({"pairs", in, "-o", path("out.csv")});
            ASSERT_EQ(r.status, 0) << r.err;
            EXPECT_EQ(read_file(path("out.csv")), "");
            EXPECT_EQ(count_lines(r.err), 1u) << r.err;
            EXPECT_NE(r.err.find("skipped invalid boxes (NaN or min > max): 1 in " + in), std::string::npos) << r.err;
        }
    }
}

TEST_F(Cli, Float32AndFloat64FilesAreComparedInDouble) {
    for (double offset : {0.0, 1e7}) {
        SCOPED_TRACE(offset);
        const float f = static_cast<float>(offset + 0.3);  // box 0's max x in the float32 file
        const double fd = f;
        // float64 boxes: one starting one double ulp past f, one starting at f,
        // one ending one ulp before the float32 box's min (offset - 1).
        const std::vector<double> a = {offset - 1, 0, 0, fd, 1, 1};
        const std::vector<double> b = {up(fd), 0, 0, offset + 3, 1, 1, fd, 0, 0, offset + 3, 1, 1,
                                       offset - 5, 0, 0, down(offset - 1), 1, 1};
        ASSERT_EQ(brute(boxes_of(a), boxes_of(b)).size(), 3u);  // what rounding to float gave
        write_file(path("a.npy"), npy_file(a, false));
        write_both(path("b.npy"), path("b.csv"), b);
        for (const char* other : {"b.npy", "b.csv"}) {
            SCOPED_TRACE(other);
            RunResult r = run({"pairs", path("a.npy"), path(other), "-o", path("out.csv"), "--sorted"});
            ASSERT_EQ(r.status, 0) << r.err;
            EXPECT_EQ(read_file(path("out.csv")), "0,1\n");
            r = run({"pairs", path(other), path("a.npy"), "-o", path("out.csv"), "--sorted"});
            ASSERT_EQ(r.status, 0) << r.err;
            EXPECT_EQ(read_file(path("out.csv")), "1,0\n");
        }
        // Random mixed files against brute force in double.
        std::vector<double> c = random_rows(200, 31), d = random_rows(150, 32);
        for (std::size_t i = 0; i < d.size(); ++i) d[i] += (i % 2 ? 1 : -1) * std::ldexp(1.0, -30) + offset;
        for (double& v : c) v = static_cast<float>(v + offset);
        write_file(path("c.npy"), npy_file(c, false));
        write_file(path("d.npy"), npy_file(d, true));
        const std::vector<Pair> expected = brute(boxes64_of(c), boxes64_of(d));
        for (const char* algorithm : all_algorithms) {
            SCOPED_TRACE(algorithm);
            const RunResult r = run({"pairs", path("c.npy"), path("d.npy"), "-o", path("out.npy"), "-a", algorithm});
            ASSERT_EQ(r.status, 0) << r.err;
            EXPECT_EQ(sorted(read_npy_pairs(path("out.npy"))), expected);
        }
    }
}

TEST_F(Cli, BenchSaysItTimesFloat64FilesInFloat) {
    const std::vector<double> rows = {0, 0, 0, 0.1 + 0.2, 1, 1, up(0.1 + 0.2), 0, 0, 1, 1, 1};
    write_file(path("a.npy"), npy_file(rows, true));
    const RunResult r = run({"bench", path("a.npy"), "--frames", "1", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(count_lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("rounded to float32"), std::string::npos) << r.err;
    const RunResult help = run({"--help"});
    EXPECT_NE(help.out.find("bench times float32"), std::string::npos) << help.out;
}

TEST_F(Cli, NpyFormatVersions2And3) {
    const std::vector<double> rows = random_rows(200, 13);
    const std::vector<Pair> expected = brute(boxes_of(rows));
    for (int major : {2, 3}) {
        SCOPED_TRACE(major);
        write_file(path("a.npy"), npy_file(rows, major == 3, major));
        const RunResult r = run({"pairs", path("a.npy"), "-o", path("out.csv"), "--sorted"});
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(read_csv_pairs(path("out.csv")), expected);
    }
}

TEST_F(Cli, CsvWithAndWithoutHeader) {
    const std::vector<double> rows = random_rows(300, 14);
    const std::vector<Pair> expected = brute(boxes_of(rows));
    for (bool header : {false, true}) {
        SCOPED_TRACE(header);
        write_file(path("a.csv"), csv_file(rows, header));
        const RunResult r = run({"pairs", path("a.csv"), "-o", path("out.npy")});
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(sorted(read_npy_pairs(path("out.npy"))), expected);
    }
}

TEST_F(Cli, CsvSpacesBlankLinesAndCrlf) {
    write_file(path("a.csv"),
               "minx, miny, minz, maxx, maxy, maxz\r\n"
               "\r\n"
               "0,0,0,1,1,1\r\n"
               "  \t\n"
               " 1 ,\t1, 1 , 2,2,2\n"  // touches box 0 at a corner
               "\n"
               "5e-1,0.5,0.5,0.75,0.75,0.75\n"
               "10,10,10,11,11,11");  // no final newline
    const RunResult r = run({"pairs", path("a.csv"), "-o", path("out.csv"), "--sorted"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read_file(path("out.csv")), "0,1\n0,2\n");
}

TEST_F(Cli, TwoFilesGivePairsBetweenThem) {
    const std::vector<double> a = random_rows(250, 15), b = random_rows(180, 16);
    write_file(path("a.npy"), npy_file(a));
    write_file(path("b.csv"), csv_file(b, true));
    const std::vector<Pair> expected = brute(boxes_of(a), boxes_of(b));
    ASSERT_GT(expected.size(), 50u);
    for (const char* algorithm : all_algorithms) {
        SCOPED_TRACE(algorithm);
        const RunResult r = run({"pairs", path("a.npy"), path("b.csv"), "-o", path("out.csv"), "-a", algorithm});
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(sorted(read_csv_pairs(path("out.csv"))), expected);
    }
    // Swapping the files swaps the indices.
    const RunResult r = run({"pairs", path("b.csv"), path("a.npy"), "-o", path("out.npy"), "--sorted"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::vector<Pair> swapped;
    for (const Pair& p : expected) swapped.push_back(Pair{p.b, p.a});
    EXPECT_EQ(read_npy_pairs(path("out.npy")), sorted(swapped));
}

TEST_F(Cli, SortedOutputIsInCanonicalOrder) {
    const std::vector<double> rows = random_rows(500, 17);
    write_file(path("a.npy"), npy_file(rows));
    const std::vector<Pair> expected = brute(boxes_of(rows));
    for (const char* algorithm : all_algorithms) {
        SCOPED_TRACE(algorithm);
        const RunResult r = run({"pairs", path("a.npy"), "-o", path("out.csv"), "--sorted", "--algorithm=" + std::string(algorithm)});
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(read_csv_pairs(path("out.csv")), expected);  // exactly, order included
    }
}

TEST_F(Cli, EmptyInputGivesEmptyOutput) {
    write_file(path("a.npy"), npy_header("<f4", "(0, 6)"));
    write_file(path("a.csv"), "minx,miny,minz,maxx,maxy,maxz\n");
    RunResult r = run({"pairs", path("a.npy"), "-o", path("out.npy")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(read_npy_pairs(path("out.npy")).empty());
    r = run({"pairs", path("a.csv"), "-o", path("out.csv")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read_file(path("out.csv")), "");
}

// ---------------------------------------------------------------- query

// `query BOXES QUERIES`: every query box against an index built over BOXES,
// pairs (query index, built index) as brute force finds them between
// QUERIES and BOXES; every algorithm, any thread count, the same file.
TEST_F(Cli, QueryAnswersEveryQueryBoxAsBruteForce) {
    const std::vector<double> built = random_rows(600, 41), queries = random_rows(150, 42);
    write_file(path("built.npy"), npy_file(built));
    write_file(path("queries.csv"), csv_file(queries, true));
    const std::vector<Pair> expected = brute(boxes_of(queries), boxes_of(built));
    ASSERT_GT(expected.size(), 50u);
    std::string first;
    for (const char* algorithm : all_algorithms)
        for (const char* threads : {"1", "3"}) {
            SCOPED_TRACE(std::string(algorithm) + ", threads " + threads);
            const RunResult r = run({"query", path("built.npy"), path("queries.csv"), "-o", path("q.csv"),
                                     "--algorithm", algorithm, "--threads", threads});
            ASSERT_EQ(r.status, 0) << r.err;
            EXPECT_EQ(r.out.rfind(std::to_string(expected.size()) + " pairs (", 0), 0u) << r.out;
            EXPECT_EQ(sorted(read_csv_pairs(path("q.csv"))), expected);
            if (std::string(algorithm) == "automatic") {  // below 64 built boxes brute force, else the uniform grid
                EXPECT_NE(r.out.find("(uniform_grid)"), std::string::npos) << r.out;
                if (first.empty()) first = read_file(path("q.csv"));
                EXPECT_EQ(read_file(path("q.csv")), first);  // the same order on every thread count
            }
        }
    // --sorted: canonical order, to .npy; to stdout as text, the summary on stderr.
    RunResult r = run({"query", path("built.npy"), path("queries.csv"), "-o", path("q.npy"), "--sorted"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read_npy_pairs(path("q.npy")), expected);
    r = run({"query", path("built.npy"), path("queries.csv"), "-o", "-", "--output-format", "txt", "--sorted"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(count_lines(r.out), expected.size());
    EXPECT_NE(r.err.find("written to <stdout>"), std::string::npos) << r.err;
    // Querying a set against itself: each valid box hits itself too.
    r = run({"query", path("built.npy"), path("built.npy"), "-o", path("self.npy")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read_npy_pairs(path("self.npy")).size(), built.size() / 6 + 2 * brute(boxes_of(built)).size());
}

// float64 files are queried in float64: boxes one double ulp apart do not touch.
TEST_F(Cli, QueryIsExactInFloat64) {
    const double x = 0.1 + 0.2;
    write_file(path("built.npy"), npy_file({0, 0, 0, x, 1, 1}, true));
    write_file(path("apart.npy"), npy_file({up(x), 0, 0, 2, 1, 1}, true));
    write_file(path("touching.npy"), npy_file({x, 0, 0, 2, 1, 1}, true));
    RunResult r = run({"query", path("built.npy"), path("apart.npy"), "-o", path("q.csv")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read_file(path("q.csv")), "");
    r = run({"query", path("built.npy"), path("touching.npy"), "-o", path("q.csv")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read_file(path("q.csv")), "0,0\n");
}

// No query boxes, or nothing built: no pairs, an empty file. Invalid boxes
// (NaN) on either side: skipped, noted by file.
TEST_F(Cli, QueryEmptyAndInvalidBoxes) {
    const std::vector<double> rows = random_rows(100, 43);
    write_file(path("boxes.npy"), npy_file(rows));
    write_file(path("empty.npy"), npy_header("<f4", "(0, 6)"));
    write_file(path("empty.csv"), "minx,miny,minz,maxx,maxy,maxz\n");
    for (const std::vector<std::string>& files : std::vector<std::vector<std::string>>{
             {"boxes.npy", "empty.npy"}, {"empty.npy", "boxes.npy"}, {"boxes.npy", "empty.csv"}}) {
        SCOPED_TRACE(files[0] + " " + files[1]);
        const RunResult r = run({"query", path(files[0]), path(files[1]), "-o", path("q.npy")});
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_TRUE(read_npy_pairs(path("q.npy")).empty());
        EXPECT_EQ(r.out.rfind("0 pairs (", 0), 0u) << r.out;
    }
    std::vector<double> with_nan = rows;
    with_nan[0] = std::nan("");
    write_file(path("nan.csv"), csv_file(with_nan, false));
    const RunResult r = run({"query", path("nan.csv"), path("nan.csv"), "-o", path("q.npy"), "--sorted"});
    ASSERT_EQ(r.status, 0) << r.err;
    Boxes valid = boxes_of(with_nan);
    EXPECT_EQ(read_npy_pairs(path("q.npy")), brute(valid, valid));
    EXPECT_NE(r.err.find("1 in " + path("nan.csv") + ", 1 in " + path("nan.csv")), std::string::npos) << r.err;
}

// A bad file or command line: one line on stderr, no output written.
TEST_F(Cli, QueryBadFilesAndArguments) {
    write_file(path("good.npy"), npy_file(random_rows(20, 44)));
    write_file(path("bad.npy"), "\x93NUMPZ");
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"query", path("good.npy"), path("bad.npy"), "-o", path("q.npy")},
             {"query", path("bad.npy"), path("good.npy"), "-o", path("q.npy")},
             {"query", path("good.npy"), path("missing.csv"), "-o", path("q.npy")},
             {"query", path("good.npy"), "-o", path("q.npy")},
             {"query", path("good.npy"), path("good.npy"), path("good.npy"), "-o", path("q.npy")},
             {"query", path("good.npy"), path("good.npy")},
             {"query", path("good.npy"), path("good.npy"), "-o", path("q.npy"), "--algorithm", "octree"},
             {"query", "-", "-", "--format", "npy", "-o", path("q.npy")}}) {
        SCOPED_TRACE(args[1] + " " + args[2]);
        const RunResult r = run(args);
        EXPECT_TRUE(r.status == 1 || r.status == 2) << r.status;
        EXPECT_EQ(count_lines(r.err), 1u) << r.err;
        EXPECT_EQ(r.out, "");
        EXPECT_FALSE(fs::exists(path("q.npy")));
    }
    const RunResult bad = run({"query", path("good.npy"), path("bad.npy"), "-o", path("q.npy")});
    EXPECT_EQ(bad.status, 1);
    EXPECT_NE(bad.err.find("bad.npy"), std::string::npos) << bad.err;
    EXPECT_EQ(run({"query", path("good.npy"), "-o", path("q.npy")}).status, 2);
}

TEST_F(Cli, InvalidBoxesAreSkippedWithANote) {
    std::vector<double> rows = random_rows(100, 18);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    rows[6 * 3 + 1] = nan;                        // box 3: NaN
    std::swap(rows[6 * 10 + 2], rows[6 * 10 + 5]);  // box 10: min > max
    rows[6 * 10 + 2] += 1;
    rows[6 * 42 + 4] = nan;  // box 42: NaN max
    write_file(path("a.csv"), csv_file(rows, false));
    write_file(path("b.npy"), npy_file(random_rows(50, 19)));
    const std::vector<Pair> expected = brute(boxes_of(rows));
    for (const Pair& p : expected)
        for (std::uint32_t bad : {3u, 10u, 42u}) ASSERT_TRUE(p.a != bad && p.b != bad);

    RunResult r = run({"pairs", path("a.csv"), "-o", path("out.npy")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(sorted(read_npy_pairs(path("out.npy"))), expected);
    EXPECT_EQ(count_lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("3 in " + path("a.csv")), std::string::npos) << r.err;

    r = run({"pairs", path("b.npy"), path("a.csv"), "-o", path("out.npy")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(sorted(read_npy_pairs(path("out.npy"))), brute(boxes_of(random_rows(50, 19)), boxes_of(rows)));
    EXPECT_EQ(count_lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("3 in " + path("a.csv")), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("b.npy"), std::string::npos) << r.err;  // b has none
}

TEST_F(Cli, BenchNotesInvalidBoxes) {
    std::vector<double> rows = random_rows(100, 24);
    rows[6 * 5] = std::numeric_limits<double>::quiet_NaN();
    write_file(path("a.npy"), npy_file(rows));
    const RunResult r = run({"bench", path("a.npy"), "--frames", "1", "--verify", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(count_lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("1 invalid box"), std::string::npos) << r.err;
    std::map<std::string, std::string> obj;
    ASSERT_TRUE(parse_flat_json(r.out, obj)) << r.out;
    EXPECT_EQ(obj["verified"], "true");
    EXPECT_EQ(obj["pairs"], std::to_string(brute(boxes_of(rows)).size()));
}

TEST_F(Cli, InfiniteCoordinatesAreValid) {
    write_file(path("a.csv"),
               "-inf,-inf,-1,inf,inf,1\n"
               "0,0,0,1,1,1\n"
               "5,5,5,6,6,6\n");
    const RunResult r = run({"pairs", path("a.csv"), "-o", path("out.csv"), "--sorted"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(read_file(path("out.csv")), "0,1\n");
}

// ---------------------------------------------------------------- malformed input

struct BadCase {
    const char* label;
    std::string file;      ///< written to the test directory as `file`, unless contents is null
    const char* contents;  ///< nullptr: the file does not exist
    std::size_t size;      ///< bytes of contents (it may hold NULs)
    std::vector<std::string> extra;  ///< more arguments after "pairs FILE -o OUT"
    std::string mention;   ///< what the error line must name ("" = the file)
};

TEST_F(Cli, MalformedInputFailsWithOneLineAndWritesNothing) {
    const std::vector<double> rows = random_rows(20, 20);
    const std::string f4 = row_bytes(rows, false);
    const std::string good = npy_file(rows);
    const std::string s20 = std::to_string(rows.size() / 6);
    const std::vector<std::pair<std::string, std::string>> files = {
        {"bad_magic.npy", "\x93NUMPZ" + good.substr(6)},
        {"not_npy.npy", "minx,miny,minz,maxx,maxy,maxz\n1,2,3,4,5,6\n"},
        {"version4.npy", [&] { std::string s = good; s[6] = 4; return s; }()},
        {"shape5.npy", npy_header("<f4", "(24, 5)") + f4},
        {"shape1d.npy", npy_header("<f4", "(120,)") + f4},
        {"shape3d.npy", npy_header("<f4", "(20, 6, 1)") + f4},
        {"int32.npy", npy_header("<i4", "(" + s20 + ", 6)") + f4},
        {"bigendian.npy", npy_header(">f4", "(" + s20 + ", 6)") + f4},
        {"uint32.npy", npy_header("<u4", "(" + s20 + ", 6)") + f4},
        {"fortran.npy", npy_header("<f4", "(" + s20 + ", 6)", true) + f4},
        {"truncated.npy", good.substr(0, good.size() - 5)},
        {"truncated_f8.npy", npy_file(rows, true).substr(0, good.size())},
        {"truncated_header.npy", good.substr(0, 40)},
        {"only_magic.npy", "\x93NUMPY"},
        {"empty.npy", ""},
        {"trailing.npy", good + "xyz"},
        {"garbled_header.npy", npy_header("<f4", "(20; 6)") + f4},
        {"huge_shape.npy", npy_header("<f4", "(100000000, 6)") + f4},
        {"letters.csv", "0,0,0,1,1,1\n0,0,0,one,1,1\n"},
        {"trailing_junk.csv", "0,0,0,1,1,1\n0,0,0,1,1,1x\n"},
        {"empty_field.csv", "0,0,0,1,1,1\n0,,0,1,1,1\n"},
        {"five_columns.csv", "0,0,0,1,1,1\n0,0,0,1,1\n"},
        {"seven_columns.csv", "0,0,0,1,1,1,1\n"},
        {"second_header.csv", "a,b,c,d,e,f\nminx,miny,minz,maxx,maxy,maxz\n0,0,0,1,1,1\n"},
        {"semicolons.csv", "0;0;0;1;1;1\n"},
        {"short_header.csv", "boxes\n0,0,0,1,1,1\n"},
        {"nul_byte.csv", std::string("0,0,0,1,1,1\n0,0,0") + '\0' + ",1,1,1\n"},
    };
    std::vector<BadCase> cases;
    for (const auto& f : files) cases.push_back({f.first.c_str(), f.first, f.second.data(), f.second.size(), {}, ""});
    write_file(path("good.npy"), good);
    write_file(path("good.csv"), csv_file(rows, false));
    cases.push_back({"missing file", "missing.npy", nullptr, 0, {}, ""});
    cases.push_back({"missing csv", "missing.csv", nullptr, 0, {}, ""});
    cases.push_back({"directory", "dir.csv", nullptr, 0, {}, ""});
    fs::create_directories(dir_ / "dir.csv");
    cases.push_back({"unknown extension", "boxes.xyz", "0,0,0,1,1,1\n", 12, {}, ""});
    cases.push_back({"bad second file", "good.npy", nullptr, 0, {}, "letters.csv"});
    cases.push_back({"unknown option", "good.npy", nullptr, 0, {"--fast"}, "--fast"});
    cases.push_back({"unknown short option", "good.npy", nullptr, 0, {"-x"}, "-x"});
    cases.push_back({"unknown algorithm", "good.npy", nullptr, 0, {"--algorithm", "octree"}, "octree"});
    cases.push_back({"former name auto", "good.npy", nullptr, 0, {"--algorithm", "auto"}, "'automatic'"});
    cases.push_back({"algorithm all is bench-only", "good.npy", nullptr, 0, {"--algorithm", "all"}, "all"});
    cases.push_back({"missing algorithm value", "good.npy", nullptr, 0, {"--algorithm"}, "--algorithm"});
    cases.push_back({"flag with value", "good.npy", nullptr, 0, {"--sorted=yes"}, "--sorted"});
    cases.push_back({"three inputs", "good.npy", nullptr, 0, {path("good.csv"), path("good.npy")}, "one or two"});

    int k = 0;
    for (const BadCase& c : cases) {
        SCOPED_TRACE(c.label);
        if (c.contents) write_file(path(c.file), std::string(c.contents, c.size));
        const std::string out = path("out" + std::to_string(k) + (k % 2 ? ".csv" : ".npy"));
        ++k;
        std::vector<std::string> args = {"pairs", path(c.file), "-o", out};
        if (std::string(c.label) == "bad second file") {
            write_file(path("letters.csv"), "0,0,0,1,1,1\n0,0,0,one,1,1\n");
            args.insert(args.begin() + 2, path("letters.csv"));
        }
        args.insert(args.end(), c.extra.begin(), c.extra.end());
        const auto before = listing();
        const RunResult r = run(args);
        EXPECT_NE(r.status, 0);
        EXPECT_NE(r.status, -1) << "crashed";
        EXPECT_EQ(count_lines(r.err), 1u) << r.err;
        EXPECT_EQ(r.err.rfind("broadphase: ", 0), 0u) << r.err;
        const std::string mention = c.mention.empty() ? path(c.file) : c.mention;
        EXPECT_NE(r.err.find(mention), std::string::npos) << r.err << "should name " << mention;
        EXPECT_FALSE(fs::exists(out));
        EXPECT_EQ(listing(), before) << "a file was left behind";
    }
}

TEST_F(Cli, ErrorMessagesSayWhatIsWrong) {
    const std::string f4 = row_bytes(random_rows(2, 23), false);
    const std::vector<std::pair<std::pair<std::string, std::string>, std::string>> cases = {
        {{"a.csv", "0,0,0,1,1,1\n\n0,0,0,one,1,1\n"}, "a.csv: line 3: 'one' is not a number (column 4)"},
        {{"b.csv", "0,0,0,1,1\n"}, "b.csv: line 1: expected 6 comma-separated numbers, found 5"},
        {{"c.csv", std::string("0,0,0,1,1,1\n0,0,0") + '\0' + ",1,1,1\n"}, "c.csv: line 2: '0?' is not a number"},
        {{"d.npy", npy_header("<f4", "(3, 4)") + f4}, "d.npy: shape (3, 4) is not supported"},
        {{"e.npy", npy_header("<i8", "(2, 6)") + f4}, "e.npy: dtype '<i8' is not supported"},
        {{"f.npy", npy_header("<f4", "(2, 6)", true) + f4}, "f.npy: Fortran-order"},
        {{"g.npy", npy_header("<f4", "(3, 6)") + f4}, "g.npy: truncated data"},
        {{"h.npy", "PK\3\4"}, "h.npy: not a NumPy .npy file"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.first.first);
        write_file(path(c.first.first), c.first.second);
        const RunResult r = run({"pairs", path(c.first.first), "-o", path("out.npy")});
        EXPECT_EQ(r.status, 1);
        EXPECT_EQ(count_lines(r.err), 1u) << r.err;
        EXPECT_NE(r.err.find(c.second), std::string::npos) << r.err;
    }
}

TEST_F(Cli, FailureLeavesAnExistingOutputUntouched) {
    write_file(path("bad.csv"), "0,0,0,1,1\n");
    write_file(path("out.csv"), "previous\n");
    const RunResult r = run({"pairs", path("bad.csv"), "-o", path("out.csv")});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(read_file(path("out.csv")), "previous\n");
    EXPECT_NE(r.err.find(path("bad.csv") + ": line 1"), std::string::npos) << r.err;
}

TEST_F(Cli, UnwritableOutputFailsWithOneLine) {
    write_file(path("a.npy"), npy_file(random_rows(10, 21)));
    for (const std::string& out : {path("no_such_dir/out.npy"), path("out.xyz"), path("out"), path("out.npz")}) {
        SCOPED_TRACE(out);
        const RunResult r = run({"pairs", path("a.npy"), "-o", out});
        EXPECT_NE(r.status, 0);
        EXPECT_EQ(count_lines(r.err), 1u) << r.err;
        EXPECT_NE(r.err.find(out), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(out));
    }
    const RunResult r = run({"pairs", path("a.npy")});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(count_lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("-o"), std::string::npos) << r.err;
}

// ---------------------------------------------------------------- scenes, bench, help

TEST_F(Cli, ScenesListsEveryScene) {
    const RunResult r = run({"scenes"});
    ASSERT_EQ(r.status, 0) << r.err;
    for (const std::string& name : broadphase_fixtures::scene_names()) {
        EXPECT_NE(r.out.find(name), std::string::npos) << name;
        EXPECT_NE(r.out.find(broadphase_fixtures::describe(name)), std::string::npos) << name;
    }
    EXPECT_NE(r.out.find("20004"), std::string::npos) << r.out;  // dense20k's count
    // The motion sequences are the lab's: named on the last line, where to list them.
    EXPECT_NE(r.out.find("broadphase-lab scenes"), std::string::npos) << r.out;
    EXPECT_EQ(run({"scenes", "extra"}).status, 2);
}

TEST_F(Cli, BenchJsonDense20kVerifies) {
    const RunResult r = run({"bench", "dense20k", "--frames", "2", "--verify", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::vector<std::string> lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 1u) << r.out;
    std::map<std::string, std::string> obj;
    ASSERT_TRUE(parse_flat_json(lines[0], obj)) << lines[0];
    for (const char* key : {"scene", "n", "algorithm", "pairs", "median_ms", "min_ms", "verified", "frames", "threads"})
        EXPECT_EQ(obj.count(key), 1u) << key;
    EXPECT_EQ(obj["scene"], "dense20k");
    EXPECT_EQ(obj["n"], "20004");
    EXPECT_EQ(obj["algorithm"], "automatic");
    EXPECT_EQ(obj["verified"], "true");
    // No --threads: all hardware threads, reported as their count.
    EXPECT_EQ(obj["threads"], std::to_string(broadphase::default_threads()));
    const int frames = std::stoi(obj["frames"]);
    EXPECT_GE(frames, 1);
    EXPECT_LE(frames, 2);
    EXPECT_GT(std::stoull(obj["pairs"]), 20000u);
    EXPECT_LE(std::stod(obj["min_ms"]), std::stod(obj["median_ms"]));
}

TEST_F(Cli, BenchAllAlgorithmsJson) {
    broadphase::Boxes scene;
    ASSERT_TRUE(broadphase_fixtures::make_scene("uniform:3000", scene));
    const std::size_t expected_pairs = brute(scene).size();
    // "all" is "ours" here: the peers are broadphase-lab's.
    for (const char* which : {"ours", "all"}) {
        SCOPED_TRACE(which);
        const RunResult r =
            run({"bench", "uniform:3000", "--algorithm", which, "--frames", "2", "--threads", "3", "--verify", "--json"});
        ASSERT_EQ(r.status, 0) << r.err;
        const std::vector<std::string> lines = lines_of(r.out);
        std::vector<std::string> seen;
        for (const std::string& line : lines) {
            std::map<std::string, std::string> obj;
            ASSERT_TRUE(parse_flat_json(line, obj)) << line;
            seen.push_back(obj["algorithm"]);
            EXPECT_EQ(obj["scene"], "uniform:3000");
            EXPECT_EQ(obj["n"], "3000");
            EXPECT_EQ(obj["verified"], "true") << line;
            EXPECT_EQ(obj["threads"], "3");
            EXPECT_EQ(obj.count("peer"), 0u) << line;
            EXPECT_EQ(std::stoull(obj["pairs"]), expected_pairs) << line;
        }
        EXPECT_EQ(seen, (std::vector<std::string>{"brute_force", "sweep_and_prune", "uniform_grid", "hybrid_grid",
                                                  "adaptive_grid", "cluster_pairs", "automatic"}));
    }
}

TEST_F(Cli, BenchWithoutVerifyReportsNull) {
    const RunResult r = run({"bench", "identical:300", "--algorithm", "sweep_and_prune", "--frames", "1", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::map<std::string, std::string> obj;
    ASSERT_TRUE(parse_flat_json(r.out, obj)) << r.out;
    EXPECT_EQ(obj["verified"], "null");
    EXPECT_EQ(obj["pairs"], std::to_string(300 * 299 / 2));
    EXPECT_EQ(obj["frames"], "1");
}

TEST_F(Cli, BenchAllSkipsBruteForceOnBigScenes) {
    const RunResult r = run({"bench", "uniform:50001", "--algorithm", "ours", "--frames", "1", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(lines_of(r.out).size(), 6u) << r.out;  // every algorithm but brute force, and automatic
    EXPECT_EQ(r.out.find("brute_force"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("brute_force skipped"), std::string::npos) << r.err;
}

TEST_F(Cli, BenchHumanTableOnAFile) {
    const std::vector<double> rows = random_rows(300, 22);
    write_file(path("a.csv"), csv_file(rows, true));
    const RunResult r = run({"bench", path("a.csv"), "--algorithm", "ours", "--frames", "3", "--verify"});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::vector<std::string> lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 9u) << r.out;  // title, column header, seven rows
    EXPECT_NE(lines[0].find("300 boxes"), std::string::npos) << r.out;
    EXPECT_NE(lines[1].find("median"), std::string::npos) << r.out;
    const std::string count = std::to_string(brute(boxes_of(rows)).size());
    for (std::size_t i = 2; i < lines.size(); ++i) {
        EXPECT_EQ(lines[i].size(), lines[1].size()) << "columns not aligned:\n" << r.out;
        EXPECT_NE(lines[i].find(" " + count + " "), std::string::npos) << lines[i];
        EXPECT_NE(lines[i].find("yes"), std::string::npos) << lines[i];
    }
    EXPECT_EQ(lines.back().rfind("automatic (", 0), 0u) << lines.back();
}

// The lab's modes (bench/lab/: motion sequences, move files, particles:N,
// --mode, --save-moves, other libraries' broad phases) asked of the CLI: one
// line naming broadphase-lab and the command to run there, exit status 2.
TEST_F(Cli, BenchLabModesNameTheLab) {
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"bench", "jolt-moves:" + path("moves.bin")},
             {"bench", "fall:1000"},
             {"bench", "brownian:1000:0.1", "--mode", "all", "--verify"},
             {"bench", "static-world:1000:0.1"},
             {"bench", "game:1000:0.1", "--save-moves", path("m.bin")},
             {"bench", "particles:1000", "--frames", "5"},
             {"bench", "dense20k", "--mode", "rebuild"},
             {"bench", "uniform:1000", "--save-moves", path("m.bin")},
             {"bench", "uniform:1000", "--algorithm", "cgal"},
             {"bench", "uniform:1000", "--algorithm", "fcl", "--verify"},
             {"bench", "uniform:1000", "-a", "bullet-dbvt"}}) {
        SCOPED_TRACE(args[1] + " " + args.back());
        const RunResult r = run(args);
        EXPECT_EQ(r.status, 2);
        EXPECT_EQ(count_lines(r.err), 1u) << r.err;
        EXPECT_NE(r.err.find("broadphase-lab bench " + args[1]), std::string::npos) << r.err;
        EXPECT_EQ(r.out, "");
        EXPECT_FALSE(fs::exists(path("m.bin")));
    }
}

// --save-boxes writes the scene as float32 .npy, bit for bit: its pairs are the scene's.
TEST_F(Cli, BenchSaveBoxesWritesTheScene) {
    broadphase::Boxes scene;
    ASSERT_TRUE(broadphase_fixtures::make_scene("uniform:2000", scene));
    RunResult r = run({"bench", "uniform:2000", "--save-boxes", path("u.npy")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "");
    r = run({"pairs", path("u.npy"), "-o", path("p.npy"), "--sorted"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read_npy_pairs(path("p.npy")), sorted(brute(scene)));
    // As text: each value's shortest decimal, read back as the same float.
    for (const char* name : {"u.csv", "u.txt"}) {
        r = run({"bench", "uniform:2000", "--save-boxes", path(name)});
        ASSERT_EQ(r.status, 0) << r.err;
        r = run({"pairs", path(name), "-o", path("p.npy"), "--sorted"});
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(read_npy_pairs(path("p.npy")), sorted(brute(scene))) << name;
    }
    for (const char* name : {"u.npz", "u.xyz"}) {
        r = run({"bench", "uniform:2000", "--save-boxes", path(name)});
        EXPECT_EQ(r.status, 2) << name;
        EXPECT_EQ(count_lines(r.err), 1u) << r.err;
        EXPECT_FALSE(fs::exists(path(name)));
    }
}

TEST_F(Cli, BenchRejectsBadArguments) {
    write_file(path("bad.npy"), "\x93NUMPZ");
    const std::vector<std::vector<std::string>> bad = {
        {"bench", "nosuchscene"},
        {"bench", "uniform:abc"},
        {"bench", "uniform:100", "--frames", "0"},
        {"bench", "uniform:100", "--frames", "x"},
        {"bench", "uniform:100", "--threads", "-1"},
        {"bench", "uniform:100", "--threads", "x"},
        {"bench", "uniform:100", "--algorithm", "octree"},
        {"bench", "uniform:100", "--fast"},
        {"bench"},
        {"bench", path("bad.npy")},
        {"bench", path("missing.csv")},
        {"frobnicate"},
    };
    for (const auto& args : bad) {
        SCOPED_TRACE(args.back());
        const RunResult r = run(args);
        EXPECT_NE(r.status, 0);
        EXPECT_NE(r.status, -1);
        EXPECT_EQ(count_lines(r.err), 1u) << r.err;
        EXPECT_EQ(r.out, "");
    }
}

// ---------------------------------------------------------------- bench --queries

/// Every concrete algorithm the library names (what `bench --queries
/// --algorithm all` runs, before automatic).
std::vector<std::string> concrete_algorithm_names() {
    std::vector<std::string> names;
    for (broadphase::Algorithm a : broadphase::concrete_algorithms) names.push_back(broadphase::to_string(a));
    return names;
}

/// Hits of querying every box against all of them: each valid box hits
/// itself and both boxes of each of its pairs; an invalid one hits nothing.
std::uint64_t expected_query_hits(const Boxes& boxes) {
    std::uint64_t valid = 0;
    for (std::size_t i = 0; i < boxes.size(); ++i) valid += boxes[i].valid() ? 1 : 0;
    return valid + 2 * brute(boxes).size();
}

/// Checks one `bench --queries --json` line; returns its algorithm.
std::string check_query_json(const std::string& line, const std::string& scene, std::size_t n,
                             std::uint64_t expected_hits, const char* verified) {
    std::map<std::string, std::string> obj;
    EXPECT_TRUE(parse_flat_json(line, obj)) << line;
    for (const char* key : {"scene", "n", "algorithm", "chosen", "build_ms", "query_p50_ns", "query_p90_ns",
                            "query_p99_ns", "query_mean_ns", "query_hits", "batch_ns_per_query",
                            "clock_overhead_ns", "passes", "verified", "threads"})
        EXPECT_EQ(obj.count(key), 1u) << key << " missing in " << line;
    EXPECT_EQ(obj["scene"], scene);
    EXPECT_EQ(obj["n"], std::to_string(n));
    EXPECT_EQ(obj["verified"], verified) << line;
    broadphase::Algorithm chosen{};
    EXPECT_TRUE(broadphase::parse_algorithm(obj["chosen"], chosen)) << line;
    EXPECT_NE(chosen, broadphase::Algorithm::automatic) << line;
    if (obj["algorithm"] != "automatic") {
        EXPECT_EQ(obj["chosen"], obj["algorithm"]) << line;
    }
    std::map<std::string, double> num;
    for (const char* key : {"n", "build_ms", "query_p50_ns", "query_p90_ns", "query_p99_ns", "query_mean_ns",
                            "query_hits", "batch_ns_per_query", "clock_overhead_ns", "passes"}) {
        const std::string& text = obj[key];
        char* end = nullptr;
        num[key] = std::strtod(text.c_str(), &end);
        EXPECT_TRUE(!text.empty() && *end == '\0' && text != "true" && text != "false" && text != "null")
            << key << " is not a number in " << line;
        EXPECT_GE(num[key], 0) << key << " in " << line;
    }
    EXPECT_LE(num["query_p50_ns"], num["query_p90_ns"]) << line;
    EXPECT_LE(num["query_p90_ns"], num["query_p99_ns"]) << line;
    EXPECT_GT(num["batch_ns_per_query"], 0) << line;
    EXPECT_GT(num["query_mean_ns"], 0) << line;
    EXPECT_GE(num["passes"], 1) << line;
    EXPECT_EQ(obj["query_hits"], std::to_string(expected_hits)) << line;
    return obj["algorithm"];
}

TEST_F(Cli, BenchQueriesJsonVerifies) {
    broadphase::Boxes scene;
    ASSERT_TRUE(broadphase_fixtures::make_scene("uniform:2000", scene));
    const std::uint64_t hits = expected_query_hits(scene);
    EXPECT_GT(hits, 2000u);  // every box hits itself, and some hit others
    const RunResult r = run({"bench", "uniform:2000", "--queries", "--frames", "2", "--verify", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    const std::vector<std::string> lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 1u) << r.out;
    EXPECT_EQ(check_query_json(lines[0], "uniform:2000", 2000, hits, "true"), "automatic");

    // Without --verify: null, same hits.
    const RunResult u = run({"bench", "uniform:2000", "--queries", "-a", "sweep_and_prune", "--frames", "1", "--json"});
    ASSERT_EQ(u.status, 0) << u.err;
    ASSERT_EQ(lines_of(u.out).size(), 1u) << u.out;
    EXPECT_EQ(check_query_json(lines_of(u.out)[0], "uniform:2000", 2000, hits, "null"), "sweep_and_prune");
}

TEST_F(Cli, BenchQueriesAllAlgorithmsJson) {
    broadphase::Boxes scene;
    ASSERT_TRUE(broadphase_fixtures::make_scene("uniform:2000", scene));
    const std::uint64_t hits = expected_query_hits(scene);
    const RunResult r = run({"bench", "uniform:2000", "--queries", "--algorithm", "all", "--frames", "1", "--verify",
                             "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::vector<std::string> seen;
    for (const std::string& line : lines_of(r.out)) seen.push_back(check_query_json(line, "uniform:2000", 2000, hits, "true"));
    std::vector<std::string> expected = concrete_algorithm_names();
    expected.push_back("automatic");
    EXPECT_EQ(seen, expected);
    // At least the four the pair bench runs, in its order.
    const std::vector<std::string> four = {"brute_force", "sweep_and_prune", "uniform_grid", "hybrid_grid"};
    ASSERT_GE(seen.size(), 5u);
    EXPECT_EQ(std::vector<std::string>(seen.begin(), seen.begin() + 4), four);
}

TEST_F(Cli, BenchQueriesHumanTableOnAFile) {
    std::vector<double> rows = random_rows(300, 25);
    rows[6 * 7 + 1] = std::numeric_limits<double>::quiet_NaN();  // box 7 is invalid: it hits nothing, nothing hits it
    write_file(path("a.csv"), csv_file(rows, true));
    const std::string hits = std::to_string(expected_query_hits(boxes_of(rows)));
    const RunResult r = run({"bench", path("a.csv"), "--queries", "--algorithm", "all", "--frames", "2", "--verify"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(count_lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("1 invalid box"), std::string::npos) << r.err;
    const std::vector<std::string> lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 2 + concrete_algorithm_names().size() + 1) << r.out;  // title, header, rows, automatic
    EXPECT_NE(lines[0].find("300 boxes"), std::string::npos) << r.out;
    for (const char* column : {"build ms", "p50 ns", "p90 ns", "p99 ns", "batch ns/box", "hits", "verified"})
        EXPECT_NE(lines[1].find(column), std::string::npos) << column << " missing:\n" << r.out;
    for (std::size_t i = 2; i < lines.size(); ++i) {
        EXPECT_EQ(lines[i].size(), lines[1].size()) << "columns not aligned:\n" << r.out;
        EXPECT_NE(lines[i].find(" " + hits + " "), std::string::npos) << lines[i] << "\nexpected hits " << hits;
        EXPECT_NE(lines[i].find("yes"), std::string::npos) << lines[i];
        // Build ms, p50, p90, p99 follow the name ("automatic (uniform_grid)" is two words).
        std::istringstream in(lines[i]);
        std::string name;
        in >> name;
        if (name == "automatic") in >> name;
        double build = -1, p50 = -1, p90 = -1, p99 = -1;
        in >> build >> p50 >> p90 >> p99;
        ASSERT_FALSE(in.fail()) << lines[i];
        EXPECT_GE(build, 0) << lines[i];
        EXPECT_LE(p50, p90) << lines[i];
        EXPECT_LE(p90, p99) << lines[i];
    }
    EXPECT_EQ(lines.back().rfind("automatic (", 0), 0u) << lines.back();

    // The same file as .npy, one algorithm, JSON.
    write_file(path("a.npy"), npy_file(rows));
    const RunResult j = run({"bench", path("a.npy"), "--queries", "-a", "hybrid_grid", "--verify", "--json"});
    ASSERT_EQ(j.status, 0) << j.err;
    ASSERT_EQ(lines_of(j.out).size(), 1u) << j.out;
    EXPECT_EQ(check_query_json(lines_of(j.out)[0], path("a.npy"), 300, std::stoull(hits), "true"), "hybrid_grid");
}

TEST_F(Cli, BenchQueriesRejectsBadArguments) {
    const RunResult r = run({"bench", "uniform:2000", "--queries", "--algorithm", "octree"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(count_lines(r.err), 1u) << r.err;
    EXPECT_EQ(r.err.rfind("broadphase: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find("unknown algorithm 'octree'"), std::string::npos) << r.err;
    for (const std::vector<std::string>& args :
         std::vector<std::vector<std::string>>{{"bench", "uniform:100", "--queries", "--frames", "0"},
                                               {"bench", "uniform:100", "--queries=yes"},
                                               {"bench", "--queries"},
                                               {"bench", "nosuchscene", "--queries"}}) {
        SCOPED_TRACE(args.back());
        const RunResult b = run(args);
        EXPECT_NE(b.status, 0);
        EXPECT_NE(b.status, -1);
        EXPECT_EQ(count_lines(b.err), 1u) << b.err;
        EXPECT_EQ(b.out, "");
    }
}

TEST_F(Cli, HelpAndVersion) {
    for (const char* flag : {"--help", "-h"}) {
        const RunResult r = run({flag});
        EXPECT_EQ(r.status, 0);
        EXPECT_NE(r.out.find("broadphase pairs"), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("broadphase bench"), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("broadphase scenes"), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("--queries"), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("broadphase query BOXES QUERIES"), std::string::npos) << r.out;
        // The lab's modes are broadphase-lab's (named once, as where they went).
        EXPECT_NE(r.out.find("broadphase-lab --help"), std::string::npos) << r.out;
        for (const char* lab : {"--mode ", "jolt-moves", "--save-moves", "SEQUENCE", "cgal", "fcl", "bullet-dbvt",
                                "particles:"})
            EXPECT_EQ(r.out.find(lab), std::string::npos) << lab;
    }
    EXPECT_EQ(run({"query", "--help"}).status, 0);
    EXPECT_EQ(run({"pairs", "--help"}).status, 0);
    const RunResult v = run({"--version"});
    EXPECT_EQ(v.status, 0);
    EXPECT_EQ(v.out.rfind("broadphase ", 0), 0u) << v.out;
    const RunResult none = run({});
    EXPECT_EQ(none.status, 2);
    EXPECT_NE(none.err.find("broadphase pairs"), std::string::npos) << none.err;
}

// ---------------------------------------------------------------- stdin, stdout, text, .npz

/// Parses "i j" (or "i,j" with sep ',') lines into pairs.
std::vector<Pair> parse_text_pairs(const std::string& text, char sep) {
    std::vector<Pair> pairs;
    for (const std::string& line : lines_of(text)) {
        unsigned long a = 0, b = 0;
        char extra = 0;
        const std::string format = std::string("%lu") + sep + "%lu%c";
        if (std::sscanf(line.c_str(), format.c_str(), &a, &b, &extra) != 2) {
            ADD_FAILURE() << "bad pair line '" << line << "'";
            continue;
        }
        pairs.push_back(Pair{std::uint32_t(a), std::uint32_t(b)});
    }
    return pairs;
}

/// Rows as np.savetxt writes them by default: '%.18e', one space between.
std::string savetxt_file(const std::vector<double>& rows, const std::string& header = "") {
    std::string out = header.empty() ? "" : "# " + header + "\n";
    for (std::size_t i = 0; i < rows.size(); i += 6) {
        for (int c = 0; c < 6; ++c) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "%.18e", rows[i + c]);
            out += (c ? " " : "") + std::string(buf);
        }
        out += '\n';
    }
    return out;
}

/// CRC-32 as zip computes it (written here apart from the tool's).
std::uint32_t crc32_of(const std::string& bytes) {
    std::uint32_t crc = 0xFFFFFFFFu;
    for (unsigned char byte : bytes) {
        crc ^= byte;
        for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

/// `bytes` as a deflate stream of stored (uncompressed) blocks: method 8
/// without a compressor.
std::string deflate_stored_blocks(const std::string& bytes) {
    std::string out;
    std::size_t at = 0;
    do {
        const std::size_t n = std::min<std::size_t>(bytes.size() - at, 65535);
        out += static_cast<char>(at + n == bytes.size() ? 1 : 0);  // BFINAL, BTYPE 00
        append_le(out, n, 2);
        append_le(out, ~n & 0xFFFF, 2);
        out += bytes.substr(at, n);
        at += n;
    } while (at < bytes.size());
    return out;
}

struct ZipEntry {
    std::string name, data;
    bool deflate = false;
};

/// A zip archive as np.savez writes one: a local header and the data per
/// entry, then the central directory and its end record.
std::string zip_file(const std::vector<ZipEntry>& entries, const std::string& comment = "") {
    std::string out, dir;
    for (const ZipEntry& e : entries) {
        const std::string stored = e.deflate ? deflate_stored_blocks(e.data) : e.data;
        const std::uint32_t crc = crc32_of(e.data);
        const std::size_t offset = out.size();
        auto common = [&](std::string& h) {
            append_le(h, 20, 2);                 // version needed
            append_le(h, 0, 2);                  // flags
            append_le(h, e.deflate ? 8 : 0, 2);  // method
            append_le(h, 0, 4);                  // time, date
            append_le(h, crc, 4);
            append_le(h, stored.size(), 4);
            append_le(h, e.data.size(), 4);
            append_le(h, e.name.size(), 2);
            append_le(h, 0, 2);  // extra
        };
        append_le(out, 0x04034b50, 4);
        common(out);
        out += e.name + stored;
        append_le(dir, 0x02014b50, 4);
        append_le(dir, 20, 2);  // version made by
        common(dir);
        append_le(dir, 0, 2);  // comment
        append_le(dir, 0, 2);  // disk
        append_le(dir, 0, 2);  // internal attributes
        append_le(dir, 0, 4);  // external attributes
        append_le(dir, offset, 4);
        dir += e.name;
    }
    const std::size_t dir_at = out.size();
    out += dir;
    append_le(out, 0x06054b50, 4);
    append_le(out, 0, 4);  // disks
    append_le(out, entries.size(), 2);
    append_le(out, entries.size(), 2);
    append_le(out, dir.size(), 4);
    append_le(out, dir_at, 4);
    append_le(out, comment.size(), 2);
    return out + comment;
}

/// A python3 that imports numpy, or "" (then the numpy parts are skipped).
std::string python_with_numpy() {
    for (const char* py : {"python3", "/usr/bin/python3"})
        if (std::system((std::string(py) + " -c 'import numpy' >/dev/null 2>&1").c_str()) == 0) return py;
    return "";
}

TEST_F(Cli, StdinAndStdoutRoundTrip) {
    const std::vector<double> rows = random_rows(300, 31);
    const std::vector<Pair> expected = brute(boxes_of(rows));
    write_file(path("a.npy"), npy_file(rows));
    write_file(path("a.csv"), csv_file(rows, true));
    write_file(path("a.txt"), savetxt_file(rows));

    // npy in, csv out, both through the standard streams: the pairs alone
    // on stdout, the summary on stderr.
    RunResult r = run({"pairs", "-", "--format", "npy", "-o", "-", "--output-format", "csv", "--sorted"}, path("a.npy"));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(parse_text_pairs(r.out, ','), expected);
    EXPECT_NE(r.err.find("pairs ("), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("<stdout>"), std::string::npos) << r.err;

    // csv in, npy out: the bytes on stdout are the .npy file.
    r = run({"pairs", "-", "--format", "csv", "-o", "-", "--output-format", "npy"}, path("a.csv"));
    ASSERT_EQ(r.status, 0) << r.err;
    write_file(path("out.npy"), r.out);
    EXPECT_EQ(sorted(read_npy_pairs(path("out.npy"))), expected);

    // txt both ways, one --format for both.
    r = run({"pairs", "-", "-o", "-", "--format", "txt", "--sorted"}, path("a.txt"));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(parse_text_pairs(r.out, ' '), expected);

    // A named file keeps its extension's format; --format applies to '-'.
    r = run({"pairs", path("a.npy"), "-o", "-", "--format", "csv", "--sorted"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(parse_text_pairs(r.out, ','), expected);

    // Pairs between stdin and a file.
    const std::vector<double> other = random_rows(80, 32);
    write_file(path("b.csv"), csv_file(other, false));
    r = run({"pairs", path("b.csv"), "-", "--format", "npy", "-o", path("out.csv"), "--sorted"}, path("a.npy"));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read_csv_pairs(path("out.csv")), brute(boxes_of(other), boxes_of(rows)));

    // A file with no known extension takes --format too.
    write_file(path("boxes.bin"), npy_file(rows));
    r = run({"pairs", path("boxes.bin"), "--format", "npy", "-o", path("out.npy")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(sorted(read_npy_pairs(path("out.npy"))), expected);
}

TEST_F(Cli, StdinAndStdoutMistakesAreUsageErrors) {
    write_file(path("a.npy"), npy_file(random_rows(20, 33)));
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"pairs", "-", "-o", path("out.npy")}, "--format"},
        {{"pairs", path("a.npy"), "-o", "-"}, "--format"},
        {{"pairs", "-", "-", "--format", "npy", "-o", path("out.npy")}, "only one input can be stdin"},
        {{"pairs", "-", "--format", "npy5", "-o", path("out.npy")}, "npy5"},
        {{"pairs", path("a.npy"), "-o", "-", "--format", "npz"}, "not .npz"},
        {{"pairs", path("a.npy"), "-o", path("out.bin")}, "out.bin"},
        {{"bench", "-", "--frames", "1"}, "--format"},
        {{"bench", "uniform:100", "--save-boxes", "-"}, "--format"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.first[1] + " " + c.second);
        const RunResult r = run(c.first, path("a.npy"));
        EXPECT_EQ(r.status, 2) << r.err;
        EXPECT_EQ(count_lines(r.err), 1u) << r.err;
        EXPECT_NE(r.err.find(c.second), std::string::npos) << r.err;
        EXPECT_EQ(r.out, "");
        EXPECT_FALSE(fs::exists(path("out.npy")));
    }
}

TEST_F(Cli, BenchReadsStdinAndSavesBoxesToStdout) {
    broadphase::Boxes scene;
    ASSERT_TRUE(broadphase_fixtures::make_scene("uniform:1000", scene));
    RunResult r = run({"bench", "uniform:1000", "--save-boxes", "-", "--format", "npy"});
    ASSERT_EQ(r.status, 0) << r.err;
    write_file(path("u.npy"), r.out);
    r = run({"bench", "uniform:1000", "--save-boxes", "-", "--format", "txt"});
    ASSERT_EQ(r.status, 0) << r.err;
    write_file(path("u.txt"), r.out);
    for (const char* name : {"u.npy", "u.txt"}) {
        SCOPED_TRACE(name);
        r = run({"pairs", "-", "--format", std::string(name).substr(2), "-o", path("p.npy"), "--sorted"}, path(name));
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(read_npy_pairs(path("p.npy")), sorted(brute(scene)));
        r = run({"bench", "-", "--format", std::string(name).substr(2), "--frames", "1", "--verify", "--json"},
                path(name));
        ASSERT_EQ(r.status, 0) << r.err;
        std::map<std::string, std::string> obj;
        ASSERT_TRUE(parse_flat_json(r.out, obj)) << r.out;
        EXPECT_EQ(obj["verified"], "true");
        EXPECT_EQ(obj["pairs"], std::to_string(brute(scene).size()));
    }
}

TEST_F(Cli, TxtAsNumpySavetxtWritesIt) {
    const std::vector<double> rows = random_rows(200, 34);
    const std::vector<Pair> expected = brute(boxes_of(rows));
    // np.savetxt's default: '%.18e', spaces, a "# " header.
    write_file(path("a.txt"), savetxt_file(rows, "minx miny minz maxx maxy maxz"));
    RunResult r = run({"pairs", path("a.txt"), "-o", path("out.npy")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(sorted(read_npy_pairs(path("out.npy"))), expected);

    // Runs of spaces and tabs, comment lines, a comment after the numbers,
    // blank lines, CRLF, and .dat.
    std::string messy = "# boxes\r\n\r\n   # indented comment\n";
    for (std::size_t i = 0; i < rows.size(); i += 6) {
        messy += i % 12 ? "\t" : "  ";
        for (int c = 0; c < 6; ++c) messy += format_number(rows[i + c]) + (c % 2 ? " \t " : "   ");
        messy += i % 18 ? "\n" : "# a comment\r\n";
    }
    write_file(path("a.dat"), messy);
    r = run({"pairs", path("a.dat"), "-o", path("out.txt"), "--sorted"});
    ASSERT_EQ(r.status, 0) << r.err;
    // Pairs as text: "i j", what np.loadtxt reads back.
    EXPECT_EQ(parse_text_pairs(read_file(path("out.txt")), ' '), expected);

    // Values that are not all float32 are searched in double.
    write_file(path("b.txt"),
               "1.000000000000000000e+00 0 0 2 1 1\n"
               "2.000000000000000444e+00 0 0 3 1 1\n");
    r = run({"pairs", path("b.txt"), "-o", path("out.csv")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read_file(path("out.csv")), "");  // 2 and its next double up do not touch

    // NaN as np.savetxt writes it: a number, the box skipped with a note.
    write_file(path("c.txt"), "nan 0 0 1 1 1\n0 0 0 1 1 1\n0.5 0.5 0.5 2 2 2\n");
    r = run({"pairs", path("c.txt"), "-o", path("out.csv")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read_file(path("out.csv")), "1,2\n");
    EXPECT_NE(r.err.find("1 in " + path("c.txt")), std::string::npos) << r.err;
}

TEST_F(Cli, TxtErrorsAreTheCsvReadersErrors) {
    const std::vector<std::pair<std::pair<std::string, std::string>, std::string>> cases = {
        {{"a.txt", "0 0 0 1 1 1\n\n0 0 0 one 1 1\n"}, "a.txt: line 3: 'one' is not a number (column 4)"},
        {{"b.txt", "0 0 0 1 1\n"}, "b.txt: line 1: expected 6 whitespace-separated numbers, found 5"},
        {{"c.txt", "0 0 0 1 1 1\n0 0 0 1 1 1 1\n"}, "c.txt: line 2: expected 6 whitespace-separated numbers, found 7"},
        {{"d.txt", "0,0,0,1,1,1\n"}, "d.txt: line 1: expected 6 whitespace-separated numbers, found 1"},
        {{"e.txt", std::string("0 0 0 1 1 1\n0 0 0") + '\0' + " 1 1 1\n"}, "e.txt: line 2: '0?' is not a number"},
        {{"f.txt", "0 0 0 1 1 1x\n"}, "f.txt: line 1: '1x' is not a number (column 6)"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.first.first);
        write_file(path(c.first.first), c.first.second);
        RunResult r = run({"pairs", path(c.first.first), "-o", path("out.npy")});
        EXPECT_EQ(r.status, 1);
        EXPECT_EQ(count_lines(r.err), 1u) << r.err;
        EXPECT_NE(r.err.find(c.second), std::string::npos) << r.err;
        // The same from stdin, named <stdin>.
        r = run({"pairs", "-", "--format", "txt", "-o", path("out.npy")}, path(c.first.first));
        EXPECT_EQ(r.status, 1);
        EXPECT_NE(r.err.find("<stdin>" + c.second.substr(c.second.find(':'))), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(path("out.npy")));
    }
}

TEST_F(Cli, NpzStoredEntriesByNameOrFirst) {
    const std::vector<double> rows_a = random_rows(150, 35), rows_b = random_rows(120, 36);
    const std::string npz = zip_file({{"first.npy", npy_file(rows_a)}, {"second.npy", npy_file(rows_b, true)}},
                                     "a comment, PK\5\6 inside it");
    write_file(path("a.npz"), npz);
    const std::vector<Pair> expected_a = brute(boxes_of(rows_a));
    const std::vector<Pair> expected_b = brute(boxes64_of(rows_b));

    RunResult r = run({"pairs", path("a.npz"), "-o", path("out.npy")});  // the first array
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(sorted(read_npy_pairs(path("out.npy"))), expected_a);
    r = run({"pairs", path("a.npz") + ":second", "-o", path("out.npy")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(sorted(read_npy_pairs(path("out.npy"))), expected_b);
    r = run({"pairs", path("a.npz"), "--array", "second", "-o", path("out.npy")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(sorted(read_npy_pairs(path("out.npy"))), expected_b);
    // Between two arrays of the same archive; and from stdin, piped or not.
    r = run({"pairs", path("a.npz") + ":first", path("a.npz") + ":second", "-o", path("out.npy")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(sorted(read_npy_pairs(path("out.npy"))), brute(boxes64_of(rows_a), boxes64_of(rows_b)));  // in double
    r = run({"pairs", "-", "--format", "npz", "--array", "second", "-o", path("out.npy")}, path("a.npz"));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(sorted(read_npy_pairs(path("out.npy"))), expected_b);
    const std::string piped = shell_quote(BROADPHASE_CLI_PATH) + " pairs - --format npz -o " + shell_quote(path("p.csv")) +
                              " < " + shell_quote(path("a.npz")) + " | cat; cat " + shell_quote(path("a.npz")) + " | " +
                              shell_quote(BROADPHASE_CLI_PATH) + " pairs - --format npz -o " + shell_quote(path("q.csv")) +
                              " >/dev/null";
    ASSERT_EQ(std::system(piped.c_str()), 0);
    EXPECT_EQ(sorted(read_csv_pairs(path("q.csv"))), expected_a);

    // No such array: the names it holds.
    r = run({"pairs", path("a.npz") + ":third", "-o", path("out2.npy")});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(count_lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("no array 'third'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("first, second"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path("out2.npy")));
}

TEST_F(Cli, NpzDeflatedEntriesNeedZlib) {
    const std::vector<double> rows = random_rows(3000, 37);  // > 64 KiB: several deflate blocks
    write_file(path("c.npz"), zip_file({{"arr_0.npy", npy_file(rows, true), true}}));
    const RunResult r = run({"pairs", path("c.npz"), "-o", path("out.npy")});
#if BROADPHASE_CLI_ZLIB
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(sorted(read_npy_pairs(path("out.npy"))), brute(boxes64_of(rows)));
#else
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(count_lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("compressed .npz needs zlib: rebuild with zlib1g-dev or save with np.savez"),
              std::string::npos)
        << r.err;
#endif
}

TEST_F(Cli, NpzFromNumpySavezAndSavezCompressed) {
    const std::string py = python_with_numpy();
    if (py.empty()) GTEST_SKIP() << "no python3 with numpy: np.savez files not tested";
    const std::vector<double> rows = random_rows(500, 38);
    write_file(path("a.npy"), npy_file(rows));
    write_file(path("b.npy"), npy_file(random_rows(40, 39), true));
    const std::string script = "import numpy as np; a = np.load('" + path("a.npy") + "'); b = np.load('" +
                               path("b.npy") + "'); np.savez('" + path("s.npz") + "', a, b); np.savez_compressed('" +
                               path("c.npz") + "', boxes=a, other=b); np.savetxt('" + path("a.txt") + "', a)";
    ASSERT_EQ(std::system((py + " -c " + shell_quote(script)).c_str()), 0);
    const std::vector<Pair> expected = brute(boxes_of(rows));
    const std::vector<Pair> between = brute(boxes64_of(rows), boxes64_of(random_rows(40, 39)));  // in double
    for (const std::string& in : {path("s.npz"), path("s.npz") + ":arr_0", path("a.txt")}) {
        SCOPED_TRACE(in);
        const RunResult r = run({"pairs", in, "-o", path("out.npy")});
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(sorted(read_npy_pairs(path("out.npy"))), expected);
    }
    RunResult r = run({"pairs", path("s.npz") + ":arr_0", path("s.npz") + ":arr_1", "-o", path("out.npy")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(sorted(read_npy_pairs(path("out.npy"))), between);
    r = run({"pairs", path("c.npz"), "-o", path("out.npy")});
#if BROADPHASE_CLI_ZLIB
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(sorted(read_npy_pairs(path("out.npy"))), expected);
    r = run({"pairs", path("c.npz") + ":boxes", path("c.npz") + ":other", "-o", path("out.npy")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(sorted(read_npy_pairs(path("out.npy"))), between);
#else
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("compressed .npz needs zlib"), std::string::npos) << r.err;
#endif
    // Pairs written as text read back by np.loadtxt.
    r = run({"pairs", path("a.txt"), "-o", path("p.txt"), "--sorted"});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string check = "import numpy as np; p = np.loadtxt('" + path("p.txt") +
                              "', dtype=np.uint32, ndmin=2); print(p.shape[0])";
    const std::string out = path("count.txt");
    ASSERT_EQ(std::system((py + " -c " + shell_quote(check) + " > " + shell_quote(out)).c_str()), 0);
    EXPECT_EQ(std::stoul(read_file(out)), expected.size());
}

TEST_F(Cli, MalformedNpzFailsCleanly) {
    const std::string entry = npy_file(random_rows(30, 40));
    const std::string good = zip_file({{"arr_0.npy", entry}});
    const std::string deflated = zip_file({{"arr_0.npy", entry, true}});
    std::vector<std::pair<std::string, std::string>> files = {
        {"empty", ""},
        {"npy_not_zip", entry},
        {"no_entries", zip_file({})},
        {"not_npy_inside", zip_file({{"arr_0.npy", "hello, world"}})},
        {"short_npy_inside", zip_file({{"arr_0.npy", entry.substr(0, entry.size() - 10)}})},
        {"trailing_npy_inside", zip_file({{"arr_0.npy", entry + "x"}})},
        {"bad_crc", [&] { std::string s = good; s[14] ^= 1; s[good.find("PK\1\2") + 16] ^= 1; return s; }()},
        {"flipped_data", [&] { std::string s = good; s[200] ^= 0x40; return s; }()},
        {"bad_local_signature", [&] { std::string s = good; s[1] = 'Q'; return s; }()},
        {"bad_central_signature", [&] { std::string s = good; s[good.find("PK\1\2") + 1] = 'Q'; return s; }()},
        {"method_bzip2", [&] { std::string s = good; s[good.find("PK\1\2") + 10] = 12; return s; }()},
        {"encrypted", [&] { std::string s = good; s[good.find("PK\1\2") + 8] = 1; return s; }()},
        {"offset_past_end", [&] { std::string s = good; s[good.find("PK\1\2") + 45] = 0x7f; return s; }()},
        {"size_past_end", [&] { std::string s = good; s[good.find("PK\1\2") + 23] = 0x7f; return s; }()},
        {"directory_past_end", [&] { std::string s = good; s[s.size() - 4] = 0x7f; return s; }()},
        {"huge_entry_count", [&] { std::string s = good; s[s.size() - 12] = '\xff'; s[s.size() - 11] = '\xff'; return s; }()},
        {"corrupt_deflate", [&] { std::string s = deflated; s[30 + 9] ^= 0x06; return s; }()},
    };
    for (std::size_t n : {10, 22, 30, 100, 200}) files.push_back({"truncated_" + std::to_string(n), good.substr(0, n)});
    for (std::size_t n : {1, 21, 40}) files.push_back({"cut_end_" + std::to_string(n), good.substr(0, good.size() - n)});
    for (const auto& f : files) {
        SCOPED_TRACE(f.first);
        const std::string file = path(f.first + ".npz");
        write_file(file, f.second);
        RunResult r = run({"pairs", file, "-o", path("out.npy")});
        EXPECT_EQ(r.status, 1) << r.err;
        EXPECT_EQ(count_lines(r.err), 1u) << r.err;
        EXPECT_EQ(r.err.rfind("broadphase: " + file, 0), 0u) << r.err;
        EXPECT_FALSE(fs::exists(path("out.npy")));
        r = run({"pairs", "-", "--format", "npz", "-o", path("out.npy")}, file);
        EXPECT_EQ(r.status, 1) << r.err;
        EXPECT_EQ(r.err.rfind("broadphase: <stdin>", 0), 0u) << r.err;
    }
}

// ---------------------------------------------------------------- meshes

/// A small mesh in each format the CLI reads: a unit square (a quad) at z =
/// 0, a triangle above it touching its corner, one far away, and a triangle
/// crossing the square. Box i is face i's bounds; the STL has the quad split
/// in two triangles, so its boxes differ and it gets a mesh of its own.
struct MeshFiles {
    static constexpr const char* obj =
        "# faces: quad, touching triangle, far triangle, crossing triangle\n"
        "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
        "v 1 1 0\nv 2 1 1\nv 2 2 1\n"
        "v 10 10 10\nv 11 10 10\nv 10 11 10\n"
        "vn 0 0 1\n"
        "f 1//1 2//1 3//1 4//1\nf 5/1 6/1 7/1\nf -3 -2 -1\nf 1 3 6\n";
    static constexpr const char* off =
        "OFF\n10 4 0\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n1 1 0\n2 1 1\n2 2 1\n10 10 10\n11 10 10\n10 11 10\n"
        "4 0 1 2 3\n3 4 5 6\n3 7 8 9\n3 0 2 5\n";
};

std::string mesh_ply(const std::string& format) {
    return "ply\nformat " + format + " 1.0\nelement vertex 10\nproperty float x\nproperty float y\nproperty float z\n"
           "element face 4\nproperty list uchar int vertex_indices\nend_header\n"
           "0 0 0\n1 0 0\n1 1 0\n0 1 0\n1 1 0\n2 1 1\n2 2 1\n10 10 10\n11 10 10\n10 11 10\n"
           "4 0 1 2 3\n3 4 5 6\n3 7 8 9\n3 0 2 5\n";
}

TEST_F(Cli, MeshFilesGiveThePairsOfTheirFaceBoxes) {
    // Face boxes: 0 [0,1]^2 x 0, 1 [1,2]^2 x [0,1], 2 far, 3 [0,2]x[0,1]x[0,1].
    const std::vector<double> rows = {0, 0, 0, 1, 1, 0,  1, 1, 0, 2, 2, 1,  10, 10, 10, 11, 11, 10,  0, 0, 0, 2, 1, 1};
    const std::vector<Pair> expected = brute(boxes_of(rows));
    ASSERT_EQ(expected, (std::vector<Pair>{{0, 1}, {0, 3}, {1, 3}}));
    write_file(path("m.obj"), MeshFiles::obj);
    write_file(path("m.off"), MeshFiles::off);
    write_file(path("m.ply"), mesh_ply("ascii"));
    write_file(path("M.PLY"), mesh_ply("ascii"));  // extensions in any case
    for (const std::string name : {"m.obj", "m.off", "m.ply", "M.PLY"}) {
        SCOPED_TRACE(name);
        RunResult r = run({"pairs", path(name), "-o", path("out.csv"), "--sorted"});
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(read_csv_pairs(path("out.csv")), expected);
        // bench --save-boxes writes the face boxes, float32, in face order.
        r = run({"bench", path(name), "--save-boxes", path("boxes.csv")});
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(read_file(path("boxes.csv")), "0,0,0,1,1,0\n1,1,0,2,2,1\n10,10,10,11,11,10\n0,0,0,2,1,1\n");
        // Pairs between a mesh and a box file.
        write_file(path("b.csv"), "0.5,0.5,-1,0.5,0.5,1\n");
        r = run({"pairs", path(name), path("b.csv"), "-o", path("out.csv"), "--sorted"});
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(read_file(path("out.csv")), "0,0\n3,0\n");
    }
    // stdin with --format, and an unknown extension with --format.
    RunResult r = run({"pairs", "-", "--format", "obj", "-o", path("out.csv"), "--sorted"}, path("m.obj"));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read_csv_pairs(path("out.csv")), expected);
    write_file(path("mesh.model"), MeshFiles::off);
    r = run({"pairs", path("mesh.model"), "--format", "off", "-o", path("out.csv"), "--sorted"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read_csv_pairs(path("out.csv")), expected);

    // An STL: triangles only, ASCII and binary, the same boxes.
    const char* stl =
        "solid t\n"
        "facet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 1 1 0\nendloop\nendfacet\n"
        "facet normal 0 0 1\nouter loop\nvertex 1 1 0\nvertex 2 1 1\nvertex 2 2 1\nendloop\nendfacet\n"
        "facet normal 0 0 1\nouter loop\nvertex 5 5 5\nvertex 6 5 5\nvertex 5 6 5\nendloop\nendfacet\n"
        "endsolid t\n";
    write_file(path("t.stl"), stl);
    std::string binary = "solid, but binary";
    binary.resize(80, '\0');
    append_le(binary, 3, 4);
    const float tris[3][9] = {{0, 0, 0, 1, 0, 0, 1, 1, 0}, {1, 1, 0, 2, 1, 1, 2, 2, 1}, {5, 5, 5, 6, 5, 5, 5, 6, 5}};
    for (const auto& t : tris) {
        binary.append(12, '\0');
        for (float c : t) {
            std::uint32_t u;
            std::memcpy(&u, &c, 4);
            append_le(binary, u, 4);
        }
        binary.append(2, '\0');
    }
    write_file(path("b.stl"), binary);
    for (const std::string name : {"t.stl", "b.stl"}) {
        SCOPED_TRACE(name);
        r = run({"pairs", path(name), "-o", path("out.csv"), "--sorted"});
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(read_file(path("out.csv")), "0,1\n");
    }
}

TEST_F(Cli, MeshErrorsAndNansAsForOtherBoxFiles) {
    // A NaN coordinate: an invalid box, counted in the note, as in a .csv.
    write_file(path("nan.obj"), "v 0 0 0\nv 1 nan 0\nv 1 1 0\nv 0 1 0\nf 1 2 3\nf 1 3 4\nf 1 2 4\n");
    RunResult r = run({"pairs", path("nan.obj"), "-o", path("out.csv"), "--sorted"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read_file(path("out.csv")), "");  // faces 0 and 2 hold vertex 2: invalid
    EXPECT_NE(r.err.find("invalid boxes (NaN or min > max): 2 in " + path("nan.obj")), std::string::npos) << r.err;

    const std::vector<std::pair<std::pair<std::string, std::string>, std::string>> cases = {
        {{"a.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n"}, "a.off: line 6: face 0 refers to vertex 3 of 3"},
        {{"b.obj", "v 0 0 0\nv 1 0 0\nf 1 2\n"}, "b.obj: line 3: face 0 has 2 vertices; a face needs at least 3"},
        {{"c.ply", "ply\nformat binary_little_endian 1.0\nelement face 3000000000\n"
                   "property list uchar int vertex_indices\nend_header\n\3"},
         "c.ply: face 0 (byte "},
        {{"d.stl", "not a mesh"}, "d.stl: not an STL file"},
        {{"e.off", "OFF\n1000000000 1000000000 0\n"}, "e.off: line 2: the file ends after 0 of 1000000000 vertices"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.first.first);
        write_file(path(c.first.first), c.first.second);
        r = run({"pairs", path(c.first.first), "-o", path("out.npy")});
        EXPECT_EQ(r.status, 1);
        EXPECT_EQ(count_lines(r.err), 1u) << r.err;
        EXPECT_NE(r.err.find(c.second), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(path("out.npy")));
    }
    // Meshes are read, never written: pairs and boxes go to .npy, .csv, .txt.
    write_file(path("m.off"), MeshFiles::off);
    r = run({"pairs", path("m.off"), "-o", path("out.off")});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("not .off"), std::string::npos) << r.err;
    r = run({"bench", path("m.off"), "--save-boxes", path("boxes.stl")});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("boxes are written as"), std::string::npos) << r.err;
    r = run({"pairs", "-", "--format", "3ds", "-o", path("out.npy")}, path("m.off"));
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("off, ply, obj or stl"), std::string::npos) << r.err;
}

}  // namespace
