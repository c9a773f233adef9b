// The MPI tests' harness (tests/mpi/distributed_test.cpp): failure
// bookkeeping on every rank, scenes built the same on every rank, the ways
// of spreading a scene's boxes over ranks, and the oracle's answer mapped to
// global ids. Plain code, no test framework: a failure on any rank makes
// the program exit non-zero, and rank 0 prints the summary.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <broadphase/mpi/distributed.hpp>
#include <broadphase_fixtures/scenes.hpp>

namespace mpitest {

namespace bp = broadphase;
namespace bm = broadphase::mpi;

template <class T, int D>
using Boxes = bp::BasicBoxes<T, D>;
template <class T, int D>
using Box = bp::BasicBox<T, D>;

// ---------------------------------------------------------------- bookkeeping

struct Tally {
    int rank = 0;
    int size = 1;
    long checks = 0;
    long failures = 0;
    long calls = 0;        // distributed find_pairs calls checked
    std::string where;     // the case being checked, for failure messages
    std::vector<std::string> failed_cases;  // each case with a failure, once
};
inline Tally& tally() {
    static Tally t;
    return t;
}

inline void fail(const std::string& what) {
    Tally& t = tally();
    ++t.failures;
    if (t.failed_cases.empty() || t.failed_cases.back() != t.where) t.failed_cases.push_back(t.where);
    if (t.failures <= 25)
        std::fprintf(stderr, "[rank %d] FAIL %s: %s\n", t.rank, t.where.c_str(), what.c_str());
    else if (t.failures == 26)
        std::fprintf(stderr, "[rank %d] (further failures not printed)\n", t.rank);
}

// EXPECT(condition, message pieces...): counts a check, reports a failure.
template <class... A>
std::string cat(const A&... a) {
    std::ostringstream s;
    (void)std::initializer_list<int>{((s << a), 0)...};
    return s.str();
}
#define EXPECT(cond, ...)                                                         \
    do {                                                                          \
        ++::mpitest::tally().checks;                                              \
        if (!(cond)) ::mpitest::fail(::mpitest::cat(#cond, " -- ", __VA_ARGS__)); \
    } while (0)

inline std::string str(const bm::IdPair& p) { return cat("(", p.a, ",", p.b, ")"); }

// --------------------------------------------------------------------- scenes

using Random = broadphase_fixtures::Random;

template <class T, int D>
struct Scene {
    std::string name;
    Boxes<T, D> boxes;
};

template <class T, int D>
Box<T, D> box_of(const double* lo, const double* hi) {
    Box<T, D> b;
    for (int k = 0; k < D; ++k) {
        b.min[k] = static_cast<T>(lo[k]);
        b.max[k] = static_cast<T>(hi[k]);
    }
    return b;
}

// Random boxes: centres uniform in offset +- spread, edges uniform in [min_size, max_size].
template <class T, int D>
Boxes<T, D> random_scene(std::size_t n, std::uint64_t seed, double offset = 0, double spread = 100,
                         double min_size = 0, double max_size = 10) {
    Boxes<T, D> out;
    Random r(seed);
    for (std::size_t i = 0; i < n; ++i) {
        double lo[D], hi[D];
        for (int k = 0; k < D; ++k) {
            const double c = offset + r.uniform(-spread, spread);
            const double e = r.uniform(min_size, max_size);
            lo[k] = c - e / 2;
            hi[k] = c + e / 2;
        }
        out.push_back(box_of<T, D>(lo, hi));
    }
    return out;
}

// The first D axes of a built-in (float 3-D) scene.
template <class T, int D>
Boxes<T, D> convert(const bp::Boxes& in) {
    Boxes<T, D> out;
    for (std::size_t i = 0; i < in.size(); ++i) {
        Box<T, D> b;
        for (int k = 0; k < D; ++k) {
            b.min[k] = static_cast<T>(in.min(k)[i]);
            b.max[k] = static_cast<T>(in.max(k)[i]);
        }
        out.push_back(b);
    }
    return out;
}

template <class T, int D>
void append(Boxes<T, D>& to, const Boxes<T, D>& from) {
    for (std::size_t i = 0; i < from.size(); ++i) to.push_back(from[i]);
}

// 16 tight clusters far apart (the clustered scenes the partition must balance).
template <class T, int D>
Boxes<T, D> clusters(std::size_t n, std::uint64_t seed) {
    Boxes<T, D> out;
    Random r(seed);
    double centres[16][D];
    for (auto& c : centres)
        for (int k = 0; k < D; ++k) c[k] = r.uniform(-3000, 3000);
    for (std::size_t i = 0; i < n; ++i) {
        const double* c = centres[r.below(16)];
        double lo[D], hi[D];
        for (int k = 0; k < D; ++k) {
            const double x = c[k] + r.uniform(-40, 40), e = r.uniform(0.5, 6);
            lo[k] = x - e / 2;
            hi[k] = x + e / 2;
        }
        out.push_back(box_of<T, D>(lo, hi));
    }
    return out;
}

// Boxes on a plane: zero thickness on the last axis (most at 0, some at 7).
template <class T, int D>
Boxes<T, D> plane(std::size_t n, std::uint64_t seed) {
    Boxes<T, D> out = random_scene<T, D>(n, seed, 0, 60, 0, 8);
    for (std::size_t i = 0; i < n; ++i) {
        const T z = i % 5 == 0 ? T(7) : T(0);
        out.min(D - 1)[i] = z;
        out.max(D - 1)[i] = z;
    }
    return out;
}

// Random boxes plus far outliers, some of which overlap each other out there.
template <class T, int D>
Boxes<T, D> outliers(std::size_t n, std::uint64_t seed) {
    Boxes<T, D> out = random_scene<T, D>(n, seed, 0, 80, 0, 8);
    const double far[] = {1e6, -1e6, 1e12, -3e30, 3e30};
    for (double f : far) {
        for (int j = 0; j < 3; ++j) {  // three overlapping boxes at each far place
            double lo[D], hi[D];
            for (int k = 0; k < D; ++k) {
                lo[k] = f - std::abs(f) * 1e-6 * (j + 1);
                hi[k] = f + std::abs(f) * 1e-6 * (j + 1);
            }
            out.push_back(box_of<T, D>(lo, hi));
        }
    }
    return out;
}

// Random boxes plus one box covering them all (and the space around).
template <class T, int D>
Boxes<T, D> cover(std::size_t n, std::uint64_t seed) {
    Boxes<T, D> out = random_scene<T, D>(n, seed, 0, 100, 0, 6);
    double lo[D], hi[D];
    for (int k = 0; k < D; ++k) {
        lo[k] = -1e4;
        hi[k] = 1e4;
    }
    out.push_back(box_of<T, D>(lo, hi));
    return out;
}

// Random boxes plus infinite slabs: -inf..+inf on some axes, thin on the
// others; the whole space; half-spaces; points at +-inf.
template <class T, int D>
Boxes<T, D> slabs(std::size_t n, std::uint64_t seed) {
    Boxes<T, D> out = random_scene<T, D>(n, seed, 0, 100, 0, 6);
    const double inf = std::numeric_limits<double>::infinity();
    for (unsigned mask = 1; mask < (1u << D); ++mask) {  // which axes are infinite
        double lo[D], hi[D];
        for (int k = 0; k < D; ++k) {
            const bool infinite = mask & (1u << k);
            lo[k] = infinite ? -inf : 10.0 * k - 1;
            hi[k] = infinite ? inf : 10.0 * k + 1;
        }
        out.push_back(box_of<T, D>(lo, hi));
    }
    double lo[D], hi[D];
    for (int k = 0; k < D; ++k) {
        lo[k] = 0;
        hi[k] = inf;  // a half-infinite box
    }
    out.push_back(box_of<T, D>(lo, hi));
    for (int k = 0; k < D; ++k) lo[k] = hi[k] = inf;  // a point at +inf
    out.push_back(box_of<T, D>(lo, hi));
    out.push_back(box_of<T, D>(lo, hi));
    for (int k = 0; k < D; ++k) lo[k] = hi[k] = -inf;  // a point at -inf
    out.push_back(box_of<T, D>(lo, hi));
    return out;
}

// Random boxes with NaN and inverted (min > max) boxes mixed in, on every axis.
template <class T, int D>
Boxes<T, D> with_invalid(std::size_t n, std::uint64_t seed) {
    Boxes<T, D> out = random_scene<T, D>(n, seed, 0, 50, 0, 10);
    const T nan = std::numeric_limits<T>::quiet_NaN();
    Random r(seed + 1);
    for (std::size_t i = 3; i < out.size(); i += 5) {
        Box<T, D> b = out[i];
        const int k = static_cast<int>(r.below(D));
        switch (r.below(5)) {
            case 0: b.min[k] = nan; break;
            case 1: b.max[k] = nan; break;
            case 2:
                for (int j = 0; j < D; ++j) b.min[j] = b.max[j] = nan;
                break;
            case 3: std::swap(b.min[k], b.max[k]), b.min[k] += T(1); break;  // inverted on one axis
            default:
                for (int j = 0; j < D; ++j) b.min[j] = b.max[j] + T(1);  // inverted on all
        }
        out.set(i, b);
    }
    return out;
}

// Points (zero-size boxes) on a coarse lattice, many coincident.
template <class T, int D>
Boxes<T, D> points(std::size_t n, std::uint64_t seed) {
    Boxes<T, D> out;
    Random r(seed);
    for (std::size_t i = 0; i < n; ++i) {
        double p[D];
        for (int k = 0; k < D; ++k) p[k] = static_cast<double>(r.below(7)) - 3;
        out.push_back(box_of<T, D>(p, p));
    }
    return out;
}

// n copies of one box.
template <class T, int D>
Boxes<T, D> identical(std::size_t n) {
    Boxes<T, D> out;
    double lo[D], hi[D];
    for (int k = 0; k < D; ++k) {
        lo[k] = 8;
        hi[k] = 12;
    }
    for (std::size_t i = 0; i < n; ++i) out.push_back(box_of<T, D>(lo, hi));
    return out;
}

// -------------------------------------------------------------- distributions

enum class Dist { contiguous, random, spatial, rank0, last };
inline const char* to_string(Dist d) {
    switch (d) {
        case Dist::contiguous: return "contiguous";
        case Dist::random: return "random";
        case Dist::spatial: return "spatial";
        case Dist::rank0: return "all-on-0";
        case Dist::last: return "all-on-last";
    }
    return "?";
}
constexpr Dist all_dists[] = {Dist::contiguous, Dist::random, Dist::spatial, Dist::rank0, Dist::last};

// Which rank passes which box of a scene, and in what order. The default
// global id of scene box i is its rank's offset plus its place in that
// rank's list (the library's numbering: ranks in order).
struct Assign {
    std::vector<std::vector<std::uint32_t>> lists;  // per rank: scene indices, in local order
    std::vector<int> owner;                         // per scene box: the rank that passes it
    std::vector<std::uint64_t> gid;                 // per scene box: its default global id
};

inline Assign finish_assign(std::vector<std::vector<std::uint32_t>> lists, std::size_t n) {
    Assign a;
    a.lists = std::move(lists);
    a.owner.assign(n, -1);
    a.gid.assign(n, 0);
    std::uint64_t offset = 0;
    for (std::size_t r = 0; r < a.lists.size(); ++r) {
        for (std::size_t p = 0; p < a.lists[r].size(); ++p) {
            a.owner[a.lists[r][p]] = static_cast<int>(r);
            a.gid[a.lists[r][p]] = offset + p;
        }
        offset += a.lists[r].size();
    }
    return a;
}

// Spreads n boxes over `ranks` ranks. `only` (when not empty) limits the
// boxes to those ranks (two-set tests: A on some ranks, B on others).
template <class T, int D>
Assign distribute(const Boxes<T, D>& s, Dist d, int ranks, std::uint64_t seed, const std::vector<int>& only = {}) {
    const std::size_t n = s.size();
    std::vector<int> targets = only;
    if (targets.empty())
        for (int r = 0; r < ranks; ++r) targets.push_back(r);
    const std::size_t t = targets.size();
    std::vector<std::vector<std::uint32_t>> lists(ranks);
    auto slices = [&](const std::vector<std::uint32_t>& order) {
        for (std::size_t j = 0; j < t; ++j)
            for (std::size_t i = j * n / t; i < (j + 1) * n / t; ++i) lists[targets[j]].push_back(order[i]);
    };
    std::vector<std::uint32_t> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = static_cast<std::uint32_t>(i);
    switch (d) {
        case Dist::contiguous: slices(order); break;
        case Dist::random: {
            Random r(seed);
            for (std::uint32_t i : order) lists[targets[r.below(t)]].push_back(i);
            for (auto& l : lists)  // and a shuffled local order
                for (std::size_t i = l.size(); i > 1; --i) std::swap(l[i - 1], l[r.below(i)]);
            break;
        }
        case Dist::spatial: {
            // Sorted on the centre's first axis (NaN last), then sliced.
            auto key = [&](std::uint32_t i) {
                const double c = 0.5 * static_cast<double>(s.min(0)[i]) + 0.5 * static_cast<double>(s.max(0)[i]);
                return c;
            };
            std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
                const double ka = key(a), kb = key(b);
                const bool na = std::isnan(ka), nb = std::isnan(kb);
                if (na != nb) return nb;
                if (!na && ka != kb) return ka < kb;
                return a < b;
            });
            slices(order);
            break;
        }
        case Dist::rank0: lists[targets.front()] = order; break;
        case Dist::last: lists[targets.back()] = order; break;
    }
    return finish_assign(std::move(lists), n);
}

template <class T, int D>
Boxes<T, D> local_boxes(const Boxes<T, D>& s, const std::vector<std::uint32_t>& list) {
    Boxes<T, D> out;
    out.reserve(list.size());
    for (std::uint32_t i : list) out.push_back(s[i]);
    return out;
}

// Large sparse 64-bit ids, not in scene order: reversed, times a prime, plus 2^40.
inline std::uint64_t custom_id(std::size_t i, std::size_t n, std::uint64_t salt = 0) {
    return (static_cast<std::uint64_t>(n - i) * 1000003ull + (std::uint64_t(1) << 40)) ^ (salt << 20);
}

// ------------------------------------------------------------------ expected

// What a call should give, from the oracle. `pairs` (rank 0 only) sorted,
// with the ranks that passed each box; the rest on every rank.
struct Expected {
    std::vector<bm::IdPair> pairs;
    std::vector<int> holder_a, holder_b;
    std::uint64_t total_pairs = 0;
    std::uint64_t total_invalid = 0;
    std::uint64_t total_valid = 0;
    std::uint64_t my_valid = 0;
    std::vector<std::uint64_t> invalid_a, invalid_b;  // this rank's, sorted
    bool two = false;
};

template <class T, int D>
bool valid(const Boxes<T, D>& s, std::size_t i) {
    return s[i].valid();
}

// The single-process answer: brute force over the whole scene. The pairs
// are the same set whichever order the boxes come in, so it is computed
// once per scene (in scene order) and mapped to each distribution's ids.
template <class T, int D>
std::vector<bp::Pair> oracle(const Boxes<T, D>& s) {
    std::vector<bp::Pair> out;
    bp::Options o;
    o.algorithm = bp::Algorithm::brute_force;
    const bp::Report r = bp::find_pairs(s, out, o);
    EXPECT(r.ok(), "oracle status ", bp::to_string(r.status));
    return out;
}
template <class T, int D>
std::vector<bp::Pair> oracle(const Boxes<T, D>& a, const Boxes<T, D>& b) {
    std::vector<bp::Pair> out;
    bp::Options o;
    o.algorithm = bp::Algorithm::brute_force;
    const bp::Report r = bp::find_pairs(a, b, out, o);
    EXPECT(r.ok(), "oracle status ", bp::to_string(r.status));
    return out;
}

// One set's ids: custom (ids[i] for scene box i) or the default numbering.
struct Ids {
    const Assign* as;
    std::vector<std::uint64_t> custom;  // per scene box; empty: default ids
    std::uint64_t operator()(std::size_t i) const { return custom.empty() ? as->gid[i] : custom[i]; }
    // The ids this rank passes (null for the default).
    std::vector<std::uint64_t> local(int rank) const {
        std::vector<std::uint64_t> out;
        if (custom.empty()) return out;
        for (std::uint32_t i : as->lists[rank]) out.push_back(custom[i]);
        return out;
    }
};

template <class T, int D>
void expect_invalid(const Boxes<T, D>& s, const Ids& ids, int rank, std::vector<std::uint64_t>& mine,
                    std::uint64_t& total_invalid, std::uint64_t& total_valid, std::uint64_t& my_valid) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (valid(s, i)) {
            ++total_valid;
            if (ids.as->owner[i] == rank) ++my_valid;
        } else {
            ++total_invalid;
            if (ids.as->owner[i] == rank) mine.push_back(ids(i));
        }
    }
    std::sort(mine.begin(), mine.end());
}

// Sorts pairs and their holders together.
inline void sort_expected(Expected& e) {
    std::vector<std::size_t> idx(e.pairs.size());
    for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    std::sort(idx.begin(), idx.end(), [&](std::size_t x, std::size_t y) { return e.pairs[x] < e.pairs[y]; });
    std::vector<bm::IdPair> p(idx.size());
    std::vector<int> ha(idx.size()), hb(idx.size());
    for (std::size_t i = 0; i < idx.size(); ++i) {
        p[i] = e.pairs[idx[i]];
        ha[i] = e.holder_a[idx[i]];
        hb[i] = e.holder_b[idx[i]];
    }
    e.pairs.swap(p);
    e.holder_a.swap(ha);
    e.holder_b.swap(hb);
}

// One set: `pairs` is the oracle (rank 0; ignored elsewhere), `total` its size.
template <class T, int D>
Expected expect_one(const Boxes<T, D>& s, const Ids& ids, const std::vector<bp::Pair>& pairs, std::uint64_t total,
                    int rank) {
    Expected e;
    e.total_pairs = total;
    expect_invalid(s, ids, rank, e.invalid_a, e.total_invalid, e.total_valid, e.my_valid);
    if (rank == 0) {
        for (const bp::Pair& p : pairs) {
            bm::IdPair q{ids(p.a), ids(p.b)};
            int ra = ids.as->owner[p.a], rb = ids.as->owner[p.b];
            if (q.b < q.a) {
                std::swap(q.a, q.b);
                std::swap(ra, rb);
            }
            e.pairs.push_back(q);
            e.holder_a.push_back(ra);
            e.holder_b.push_back(rb);
        }
        sort_expected(e);
    }
    return e;
}

template <class T, int D>
Expected expect_two(const Boxes<T, D>& a, const Ids& ida, const Boxes<T, D>& b, const Ids& idb,
                    const std::vector<bp::Pair>& pairs, std::uint64_t total, int rank) {
    Expected e;
    e.two = true;
    e.total_pairs = total;
    expect_invalid(a, ida, rank, e.invalid_a, e.total_invalid, e.total_valid, e.my_valid);
    expect_invalid(b, idb, rank, e.invalid_b, e.total_invalid, e.total_valid, e.my_valid);
    if (rank == 0) {
        for (const bp::Pair& p : pairs) {
            e.pairs.push_back(bm::IdPair{ida(p.a), idb(p.b)});
            e.holder_a.push_back(ida.as->owner[p.a]);
            e.holder_b.push_back(idb.as->owner[p.b]);
        }
        sort_expected(e);
    }
    return e;
}

}  // namespace mpitest
