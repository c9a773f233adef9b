// Pairs, sinks and the report every query returns.
//
// A sink receives pairs one at a time as sink(a, b) and may ask the
// algorithm to stop (stopped()). Algorithms poll stopped() at coarse points
// (per box or per cell), so a sink must tolerate a few pairs after it asked.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstddef>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace broadphase {

/// An overlapping pair: within one set a < b; between two sets a indexes
/// the first set and b the second.
struct Pair {
    std::uint32_t a = 0;
    std::uint32_t b = 0;
};
inline bool operator==(const Pair& x, const Pair& y) { return x.a == y.a && x.b == y.b; }
inline bool operator!=(const Pair& x, const Pair& y) { return !(x == y); }
inline bool operator<(const Pair& x, const Pair& y) { return x.a != y.a ? x.a < y.a : x.b < y.b; }

/// Memory sort_pairs keeps between calls.
struct PairSortScratch {
    std::vector<std::uint32_t> start;  ///< per a: where its row starts (n + 1)
    std::vector<std::uint32_t> b;      ///< the partners, row by row (K)
};

/// Sorts pairs by (a, b), the canonical order, where every a < n (the set's
/// size), in memory kept in `scratch` (nothing is allocated once it has
/// grown): a counting sort by a, then each a's partners (a few, for boxes
/// or particles) sorted by b: O(K + n). Few pairs (under 1,024, or under
/// n / 8) go to std::sort instead: O(K log K). Every sorted output of the
/// library comes from here.
inline void sort_pairs(std::vector<Pair>& pairs, std::size_t n, PairSortScratch& scratch) {
    const std::size_t k = pairs.size();
    if (k < 1024 || k < n / 8) {
        std::sort(pairs.begin(), pairs.end());
        return;
    }
    std::vector<std::uint32_t>& start = scratch.start;
    std::vector<std::uint32_t>& b = scratch.b;
    start.assign(n + 1, 0);
    for (const Pair& p : pairs) ++start[p.a + 1];
    for (std::size_t i = 0; i < n; ++i) start[i + 1] += start[i];
    b.resize(k);
    for (const Pair& p : pairs) b[start[p.a]++] = p.b;  // start[a] becomes a's end
    std::uint32_t s = 0;
    for (std::size_t a = 0; a < n; ++a) {
        const std::uint32_t e = start[a];
        if (e - s > 1) std::sort(b.begin() + s, b.begin() + e);
        for (std::uint32_t t = s; t < e; ++t) pairs[t] = {static_cast<std::uint32_t>(a), b[t]};
        s = e;
    }
}

/// Sorts pairs by (a, b): sort_pairs above, with n the largest a + 1 and
/// scratch of its own (allocated on each call). O(K + max a) or O(K log K).
inline void sort_pairs(std::vector<Pair>& pairs) {
    std::size_t n = 0;
    for (const Pair& p : pairs) n = std::max<std::size_t>(n, std::size_t(p.a) + 1);
    PairSortScratch scratch;
    sort_pairs(pairs, n, scratch);
}

/// Why a call stopped.
enum class Status {
    ok,                    ///< every pair was delivered
    pair_budget_exceeded,  ///< more pairs than Options::max_pairs; the output is incomplete
    stopped_by_callback,   ///< the callback returned false; the output is incomplete
    too_many_boxes,        ///< more boxes (or grid cell entries) than 32-bit indices allow; no pairs
    out_of_memory,         ///< an allocation failed; the output is incomplete
    invalid_argument,      ///< a bad period, in builds without exceptions (with them: std::invalid_argument); no pairs
};

/// Human-readable name of a status.
inline const char* to_string(Status s) {
    switch (s) {
        case Status::ok: return "ok";
        case Status::pair_budget_exceeded: return "pair budget exceeded";
        case Status::stopped_by_callback: return "stopped by callback";
        case Status::too_many_boxes: return "too many boxes for 32-bit indices";
        case Status::out_of_memory: return "out of memory";
        case Status::invalid_argument: return "invalid argument";
    }
    return "unknown";
}

/// What a call did: its status, how many pairs it delivered, and which
/// boxes it skipped as invalid (NaN, or min > max on some axis), by index
/// in the caller's arrays. invalid_a is for the first set (or the query
/// boxes of a batch query), invalid_b for the second set of a two-set call.
struct Report {
    Status status = Status::ok;
    std::uint64_t pairs = 0;
    std::vector<std::uint32_t> invalid_a;
    std::vector<std::uint32_t> invalid_b;

    bool ok() const { return status == Status::ok; }
    std::size_t invalid_count() const { return invalid_a.size() + invalid_b.size(); }
};

/// Largest number of boxes in one set: indices are 32-bit and one value is
/// kept free as a sentinel.
constexpr std::uint64_t max_boxes = std::numeric_limits<std::uint32_t>::max() - 1;

/// Whether n items fit 32-bit indices (n <= max_boxes): the check behind
/// Status::too_many_boxes, for the boxes of a set and, inside the grids, for
/// the copies of boxes in cells (a box touching several cells is in each). O(1).
constexpr bool fits_indices(std::uint64_t n) { return n <= max_boxes; }

/// Unlimited pair budget.
constexpr std::uint64_t no_budget = std::numeric_limits<std::uint64_t>::max();

/// Appends pairs to a vector, up to a budget. Past the budget it keeps
/// nothing more and asks the algorithm to stop.
///
/// Pairs are written straight into the vector's storage, grown a chunk at a
/// time (chunks small enough to stay in cache), not pushed one by one: on
/// scenes with hundreds of millions of pairs the output is the bottleneck.
/// finish() trims the vector to the pairs written; the destructor calls it.
class VectorSink {
public:
    explicit VectorSink(std::vector<Pair>& out, std::uint64_t budget = no_budget)
        : out_(out),
          start_(out.size()),
          limit_(budget >= no_budget - out.size() ? no_budget : out.size() + budget),
          used_(out.size()) {}
    VectorSink(const VectorSink&) = delete;
    VectorSink& operator=(const VectorSink&) = delete;
    ~VectorSink() { finish(); }

    void operator()(std::uint32_t a, std::uint32_t b) {
        if (cur_ == end_ && !grow()) return;
        cur_->a = a;
        cur_->b = b;
        ++cur_;
    }
    bool stopped() const { return over_; }
    Status status() const { return over_ ? Status::pair_budget_exceeded : Status::ok; }
    std::uint64_t count() const { return written() - start_; }

    /// Pairs the budget still allows.
    std::uint64_t budget_left() const { return limit_ == no_budget ? no_budget : limit_ - written(); }

    /// Makes room for n more pairs, as many as the budget allows (`granted`;
    /// fewer than n stops the sink), and returns where they go. For writers
    /// that fill a block at once, such as parallel searches.
    Pair* extend(std::size_t n, std::size_t& granted) {
        finish();
        const std::size_t at = out_.size();
        const std::uint64_t room = budget_left();
        granted = static_cast<std::size_t>(std::min<std::uint64_t>(n, room));
        if (granted < n) over_ = true;
        out_.resize(at + granted);
        used_ = at + granted;
        return out_.data() + at;
    }

    /// Records that more pairs existed than the budget let through.
    void exceed() { over_ = true; }

    /// Trims the vector to the pairs written. Idempotent.
    void finish() {
        const std::size_t n = written();
        if (out_.size() != n) out_.resize(n);
        cur_ = end_ = nullptr;
        used_ = n;
    }

private:
    // Chunks start small and double up to max_chunk: a search with few
    // pairs (or each of many parallel tasks) zero-fills little.
    static constexpr std::size_t first_chunk = 256;
    static constexpr std::size_t max_chunk = std::size_t(1) << 16;

    std::size_t written() const { return cur_ ? static_cast<std::size_t>(cur_ - out_.data()) : used_; }

    bool grow() {
        const std::size_t n = written();
        if (n >= limit_) {
            over_ = true;
            return false;
        }
        std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(limit_, n + chunk_));
        chunk_ = std::min(chunk_ * 2, max_chunk);
        // Fill the capacity the vector already has before growing it, so a
        // reused vector reallocates only when it is really full.
        if (n < out_.capacity()) want = std::min(want, out_.capacity());
        out_.resize(want);  // geometric reallocation inside; the chunk's zero-fill stays in cache
        cur_ = out_.data() + n;
        end_ = out_.data() + want;
        return true;
    }

    std::vector<Pair>& out_;
    std::size_t start_;
    std::uint64_t limit_;
    std::size_t used_;  // pairs written while no chunk is open
    std::size_t chunk_ = first_chunk;
    Pair* cur_ = nullptr;
    Pair* end_ = nullptr;
    bool over_ = false;
};

/// Streams pairs to a callable f(a, b), storing nothing. If f returns bool,
/// false stops the search (Status::stopped_by_callback). An optional budget
/// stops it after that many pairs (Status::pair_budget_exceeded).
template <class F>
class CallbackSink {
public:
    explicit CallbackSink(F& f, std::uint64_t budget = no_budget) : f_(f), budget_(budget) {}

    void operator()(std::uint32_t a, std::uint32_t b) {
        if (status_ != Status::ok) return;
        if (count_ >= budget_) {
            status_ = Status::pair_budget_exceeded;
            return;
        }
        ++count_;
        if constexpr (std::is_same_v<decltype(std::declval<F&>()(a, b)), bool>) {
            if (!f_(a, b)) status_ = Status::stopped_by_callback;
        } else {
            f_(a, b);
        }
    }
    bool stopped() const { return status_ != Status::ok; }
    Status status() const { return status_; }
    std::uint64_t count() const { return count_; }

private:
    F& f_;
    std::uint64_t budget_;
    std::uint64_t count_ = 0;
    Status status_ = Status::ok;
};

namespace detail {

/// A caller's f(a, b) behind a pointer, handed to the algorithms in blocks
/// (BatchedCallbackSink): deliver(f, pairs, n, taken) calls f on pairs[0..n)
/// in order and returns false when f returned false (on pairs[taken - 1];
/// f's value counts only when it is a bool). Made by pair_callback_ref.
struct PairCallbackRef {
    void* f;
    bool (*deliver)(void* f, const Pair* pairs, std::size_t n, std::size_t& taken);
};

template <class F>
bool deliver_pairs(void* fp, const Pair* pairs, std::size_t n, std::size_t& taken) {
    F& f = *static_cast<F*>(fp);
    for (std::size_t i = 0; i < n; ++i) {
        if constexpr (std::is_same_v<decltype(f(pairs[i].a, pairs[i].b)), bool>) {
            if (!f(pairs[i].a, pairs[i].b)) {
                taken = i + 1;
                return false;
            }
        } else {
            f(pairs[i].a, pairs[i].b);
        }
    }
    taken = n;
    return true;
}

/// f as a PairCallbackRef (f must outlive it). O(1).
template <class F>
PairCallbackRef pair_callback_ref(F& f) {
    return {const_cast<void*>(static_cast<const void*>(std::addressof(f))), &deliver_pairs<F>};
}

/// A caller's f(index) behind a pointer, as PairCallbackRef (f's value is
/// ignored).
struct HitCallbackRef {
    void* f;
    /// Calls f on hits[0..n); false when f returned false (stop), after
    /// which it is called no more.
    bool (*deliver)(void* f, const std::uint32_t* hits, std::size_t n);
};

/// Calls f(args...); true unless f returned false (a callback returning
/// void means "go on"). Every query callback is called through it.
template <class F, class... A>
inline bool call_go_on(F& f, A&&... a) {
    if constexpr (std::is_void_v<std::invoke_result_t<F&, A...>>) {
        f(std::forward<A>(a)...);
        return true;
    } else {
        return static_cast<bool>(f(std::forward<A>(a)...));
    }
}

template <class F>
bool deliver_hits(void* fp, const std::uint32_t* hits, std::size_t n) {
    F& f = *static_cast<F*>(fp);
    for (std::size_t i = 0; i < n; ++i)
        if (!call_go_on(f, hits[i])) return false;
    return true;
}

/// f as a HitCallbackRef (f must outlive it). O(1).
template <class F>
HitCallbackRef hit_callback_ref(F& f) {
    return {const_cast<void*>(static_cast<const void*>(std::addressof(f))), &deliver_hits<F>};
}

/// CallbackSink's contract over a PairCallbackRef: the algorithms' loops
/// store each pair in a small buffer and every `block` pairs (and at the end:
/// flush()) one indirect call hands the block to the caller's code, where f
/// runs inlined. So an algorithm is compiled once for all callback types
/// (broadphase::compiled holds it) instead of once per lambda in every file
/// that streams pairs, for a store a pair. The same pairs in the same order
/// as CallbackSink; f's false stops the search, that pair the last counted;
/// past the budget, Status::pair_budget_exceeded. f runs later than the pair
/// is found (at most a block later), on the calling thread.
class BatchedCallbackSink {
public:
    explicit BatchedCallbackSink(PairCallbackRef f, std::uint64_t budget = no_budget)
        : f_(f), budget_(budget), room_(static_cast<std::size_t>(std::min<std::uint64_t>(block, budget))) {}
    BatchedCallbackSink(const BatchedCallbackSink&) = delete;
    BatchedCallbackSink& operator=(const BatchedCallbackSink&) = delete;

    /// One compare and one store a pair; the rest (stop, budget, handing
    /// the block over) when the room runs out.
    void operator()(std::uint32_t a, std::uint32_t b) {
        if (held_ == room_ && !make_room()) return;
        buffer_[held_++] = Pair{a, b};
    }
    bool stopped() const { return status_ != Status::ok; }
    Status status() const { return status_; }
    /// Pairs delivered to f (held ones are not, until flush()).
    std::uint64_t count() const { return delivered_; }

    /// Hands the pairs held to f. The caller calls it before reading
    /// status() and count() at the end of a search.
    void flush() {
        const std::size_t n = held_;
        if (n == 0) return;
        held_ = 0;
        std::size_t taken = n;
        const bool go_on = f_.deliver(f_.f, buffer_, n, taken);
        delivered_ += taken;
        if (!go_on) status_ = Status::stopped_by_callback, room_ = 0;
    }

private:
    // Out of line, so that operator() stays small enough to be inlined into
    // the algorithms' loops (with the flush inlined, GCC called operator()
    // for every pair).
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((noinline))
#endif
    bool make_room() {
        if (status_ != Status::ok) return false;
        flush();
        if (status_ != Status::ok) return false;
        if (delivered_ >= budget_) {  // this pair is one past the budget
            status_ = Status::pair_budget_exceeded;
            room_ = 0;
            return false;
        }
        room_ = static_cast<std::size_t>(std::min<std::uint64_t>(block, budget_ - delivered_));
        return true;
    }

    static constexpr std::size_t block = 256;
    PairCallbackRef f_;
    std::uint64_t budget_;
    std::uint64_t delivered_ = 0;
    std::size_t held_ = 0;
    std::size_t room_;  // held_ may grow to this before make_room()
    Status status_ = Status::ok;
    Pair buffer_[block];
};

/// Calls sink.flush() where the sink has one (BatchedCallbackSink). O(held).
template <class Sink, class = void>
struct HasFlush : std::false_type {};
template <class Sink>
struct HasFlush<Sink, std::void_t<decltype(std::declval<Sink&>().flush())>> : std::true_type {};
template <class Sink>
void flush_sink(Sink& sink) {
    if constexpr (HasFlush<Sink>::value) sink.flush();
}

}  // namespace detail

}  // namespace broadphase
