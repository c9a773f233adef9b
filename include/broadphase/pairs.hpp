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
    std::vector<std::uint64_t> key, other;  ///< (a, b) packed, for few pairs among many ids (K each)
};

/// Sorts pairs by (a, b), the canonical order, where every a < n (the set's
/// size), in memory kept in `scratch` (nothing is allocated once it has
/// grown): a counting sort by a, then each a's partners (a few, for boxes
/// or particles) sorted by b: O(K + n). Fewer pairs than n / 8 (a scene's
/// changed pairs among all its objects) are radix sorted as (a, b) packed
/// in 64 bits, 12 bits a pass: O(K) per pass, 3 passes below 2^18 ids
/// (std::sort's O(K log K) showed there; measured:
/// docs/measured-in-code.md\#pairs-sorting-and-the-sink). Under 256 pairs:
/// std::sort. Every sorted output of the library comes from here.
inline void sort_pairs(Pair* pairs, std::size_t k, std::size_t n, PairSortScratch& scratch) {
    if (k < 256) {
        std::sort(pairs, pairs + k);
        return;
    }
    if (k < n / 8) {
        std::uint64_t most = 0;  // the largest id, a or b (b may pass n)
        for (std::size_t i = 0; i < k; ++i) most = std::max<std::uint64_t>(most, std::max(pairs[i].a, pairs[i].b));
        int bits = 1;
        while (bits < 32 && (std::uint64_t(1) << bits) <= most) ++bits;
        constexpr int digit = 12;
        constexpr std::size_t buckets = std::size_t(1) << digit;
        std::vector<std::uint64_t>& key = scratch.key;
        std::vector<std::uint64_t>& other = scratch.other;
        key.resize(k);
        other.resize(k);
        for (std::size_t i = 0; i < k; ++i) key[i] = (std::uint64_t(pairs[i].a) << bits) | pairs[i].b;
        std::uint32_t count[buckets];
        for (int shift = 0; shift < 2 * bits; shift += digit) {
            std::fill(count, count + buckets, 0u);
            for (std::uint64_t x : key) ++count[(x >> shift) & (buckets - 1)];
            std::uint32_t sum = 0;
            for (std::size_t d = 0; d < buckets; ++d) {
                const std::uint32_t c = count[d];
                count[d] = sum;
                sum += c;
            }
            for (std::uint64_t x : key) other[count[(x >> shift) & (buckets - 1)]++] = x;
            key.swap(other);
        }
        const std::uint64_t low = (std::uint64_t(1) << bits) - 1;
        for (std::size_t i = 0; i < k; ++i)
            pairs[i] = {static_cast<std::uint32_t>(key[i] >> bits), static_cast<std::uint32_t>(key[i] & low)};
        return;
    }
    std::vector<std::uint32_t>& start = scratch.start;
    std::vector<std::uint32_t>& b = scratch.b;
    start.assign(n + 1, 0);
    for (std::size_t i = 0; i < k; ++i) ++start[pairs[i].a + 1];
    for (std::size_t i = 0; i < n; ++i) start[i + 1] += start[i];
    b.resize(k);
    for (std::size_t i = 0; i < k; ++i) b[start[pairs[i].a]++] = pairs[i].b;  // start[a] becomes a's end
    std::uint32_t s = 0;
    for (std::size_t a = 0; a < n; ++a) {
        const std::uint32_t e = start[a];
        if (e - s > 1) std::sort(b.begin() + s, b.begin() + e);
        for (std::uint32_t t = s; t < e; ++t) pairs[t] = {static_cast<std::uint32_t>(a), b[t]};
        s = e;
    }
}

/// The same on a vector (all of it).
inline void sort_pairs(std::vector<Pair>& pairs, std::size_t n, PairSortScratch& scratch) {
    sort_pairs(pairs.data(), pairs.size(), n, scratch);
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

/// A caller's f(a, b) behind a pointer, handed to the algorithms in blocks
/// (PairSink, streaming): deliver(f, pairs, n, taken) calls f on pairs[0..n)
/// in order and returns false when f returned false (on pairs[taken - 1];
/// f's value counts only when it is a bool). Made by pair_callback_ref. It
/// lets one compiled search serve every callback type: the callback calls
/// (for_each_pair, ...) build one and hand it to the library.
struct PairCallbackRef {
    void* f;
    bool (*deliver)(void* f, const Pair* pairs, std::size_t n, std::size_t& taken);
};

/// A caller's f(index) behind a pointer, as PairCallbackRef (f's value, when
/// a bool, is whether to go on). Made by hit_callback_ref.
struct HitCallbackRef {
    void* f;
    /// Calls f on hits[0..n); false when f returned false (stop), after
    /// which it is called no more.
    bool (*deliver)(void* f, const std::uint32_t* hits, std::size_t n);
};

namespace detail {

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

}  // namespace detail

/// f as a PairCallbackRef (f must outlive it). O(1).
template <class F>
PairCallbackRef pair_callback_ref(F& f) {
    return {const_cast<void*>(static_cast<const void*>(std::addressof(f))), &detail::deliver_pairs<F>};
}

/// f as a HitCallbackRef (f must outlive it). O(1).
template <class F>
HitCallbackRef hit_callback_ref(F& f) {
    return {const_cast<void*>(static_cast<const void*>(std::addressof(f))), &detail::deliver_hits<F>};
}

/// Where the algorithms put the pairs they find: appended to a vector (the
/// pairs kept), or streamed to a callback a block at a time; up to a budget,
/// past which it keeps nothing more and asks the algorithm to stop.
///
/// One class for both outputs, so that each algorithm is compiled once, not
/// once per output (and once more per index map): about half the library's
/// code and compile time. Either way a pair costs one compare and one store:
/// pairs go into a window of slots [cur_, end_), and when it is full,
/// refill() opens the next one, out of line:
/// - into a vector: the next chunk of the vector's own storage, grown a chunk
///   at a time (chunks small enough to stay in cache), not pushed one by one:
///   on scenes with hundreds of millions of pairs the output is the
///   bottleneck. flush() trims the vector to the pairs written; the
///   destructor calls it.
/// - streaming: the block buffer again, after one indirect call has handed
///   its pairs to the caller's f, where f runs inlined (PairCallbackRef). f's
///   false stops the search, that pair the last counted; f runs later than
///   its pair is found (at most a block later), on the calling thread. The
///   caller calls flush() before reading status() and count().
/// An algorithm that searched a compacted set (invalid boxes left out) gives
/// its working indices and a Mapping the way back to the caller's: the
/// pairs are mapped as they leave (flush(), or each block before f sees it),
/// so the common case, nothing left out, pays nothing for it.
class PairSink {
public:
    /// Appends to `out`, at most `budget` pairs.
    explicit PairSink(std::vector<Pair>& out, std::uint64_t budget = no_budget)
        : out_(&out),
          start_(out.size()),
          limit_(budget >= no_budget - out.size() ? no_budget : out.size() + budget),
          used_(out.size()),
          mapped_(out.size()),
          budget_(budget) {}
    /// Streams to f, at most `budget` pairs.
    explicit PairSink(PairCallbackRef f, std::uint64_t budget = no_budget) : f_(f), budget_(budget) {
        open_block();
    }
    PairSink(const PairSink&) = delete;
    PairSink& operator=(const PairSink&) = delete;
    // Streaming, the caller flushes: f may throw, and a destructor must not.
    ~PairSink() {
        if (out_) flush();
    }

    void operator()(std::uint32_t a, std::uint32_t b) {
        if (cur_ == end_ && !refill()) return;
        cur_->a = a;
        cur_->b = b;
        ++cur_;
    }
    bool stopped() const { return status_ != Status::ok; }
    Status status() const { return status_; }
    /// Pairs kept, or (streaming) handed to f: held ones count after flush().
    std::uint64_t count() const { return out_ ? written() - start_ : delivered_; }
    /// Whether the pairs go to a callback rather than a vector.
    bool streams() const { return out_ == nullptr; }

    /// Pairs the budget still allows.
    std::uint64_t budget_left() const {
        if (budget_ == no_budget) return no_budget;
        return budget_ - (out_ ? written() - start_ : delivered_ + held());
    }

    /// While it lives, the pairs written to `sink` are mapped as they leave:
    /// (a, b) leaves as ((*a_map)[a], (*b_map)[b]), a null map leaving its
    /// side as it is. At its end a vector's pairs are mapped (flush(): even
    /// when an exception cut the search short, none is left unmapped) and
    /// the maps are let go.
    class Mapping {
    public:
        Mapping(PairSink& sink, const std::vector<std::uint32_t>* a_map, const std::vector<std::uint32_t>* b_map)
            : sink_(sink) {
            sink_.map_a_ = a_map;
            sink_.map_b_ = b_map;
        }
        Mapping(const Mapping&) = delete;
        Mapping& operator=(const Mapping&) = delete;
        ~Mapping() {
            if (!sink_.streams()) sink_.flush();  // shrinks the vector at most: cannot throw
            sink_.map_a_ = sink_.map_b_ = nullptr;
        }

    private:
        PairSink& sink_;
    };

    /// Into a vector only: makes room for n more pairs, as many as the
    /// budget allows (`granted`; fewer than n stops the sink), and returns
    /// where they go. For writers that fill a block at once, such as
    /// parallel searches.
    Pair* extend(std::size_t n, std::size_t& granted) {
        flush();
        const std::size_t at = out_->size();
        const std::uint64_t room = budget_left();
        granted = static_cast<std::size_t>(std::min<std::uint64_t>(n, room));
        if (granted < n) exceed();
        out_->resize(at + granted);
        used_ = at + granted;
        return out_->data() + at;
    }

    /// Undoes the last extend() of `granted` pairs, for a writer that could
    /// not fill its block (an exception): no unwritten pair is delivered.
    void retract(std::size_t granted) {
        used_ -= granted;
        out_->resize(used_);
        if (mapped_ > used_) mapped_ = used_;
    }

    /// Records that more pairs existed than the budget let through: no more
    /// are taken (those held are still flushed).
    void exceed() {
        if (status_ == Status::ok) status_ = Status::pair_budget_exceeded;
        end_ = cur_;
    }

    /// Into a vector: trims it to the pairs written. Streaming: hands the
    /// pairs held to f. Maps what it lets out. Idempotent.
    void flush() {
        if (!out_) {
            flush_block();
            return;
        }
        const std::size_t n = written();
        if (map_a_ || map_b_) map_pairs(out_->data() + mapped_, n - mapped_);
        mapped_ = n;
        if (out_->size() != n) out_->resize(n);
        cur_ = end_ = nullptr;
        used_ = n;
    }

private:
    // Into a vector, chunks start small and double up to max_chunk: a
    // search with few pairs (or each of many parallel tasks) zero-fills
    // little. Streaming, f gets blocks of `block` pairs.
    static constexpr std::size_t first_chunk = 256;
    static constexpr std::size_t max_chunk = std::size_t(1) << 16;
    static constexpr std::size_t block = 256;

    std::size_t written() const { return cur_ ? static_cast<std::size_t>(cur_ - out_->data()) : used_; }
    std::size_t held() const { return static_cast<std::size_t>(cur_ - buffer_); }

    // Out of line and cold, so that operator() stays small enough to be
    // inlined into the algorithms' loops (with the refill inlined, GCC
    // called operator() for every pair), and so that the loops keep their
    // registers for the hot path (without `cold`, GCC 12 spilled the brute
    // force's SIMD loop to the stack around the call; measured:
    // docs/measured-in-code.md#pairs-sorting-and-the-sink).
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((noinline, cold))
#endif
    bool refill() {
        if (status_ != Status::ok) return false;
        if (!out_) {
            flush_block();
            if (status_ != Status::ok) return false;
            if (delivered_ >= budget_) {  // this pair is one past the budget
                exceed();
                return false;
            }
            return true;
        }
        const std::size_t n = written();
        if (n >= limit_) {
            exceed();
            return false;
        }
        std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(limit_, n + chunk_));
        chunk_ = std::min(chunk_ * 2, max_chunk);
        // Fill the capacity the vector already has before growing it, so a
        // reused vector reallocates only when it is really full.
        if (n < out_->capacity()) want = std::min(want, out_->capacity());
        out_->resize(want);  // geometric reallocation inside; the chunk's zero-fill stays in cache
        cur_ = out_->data() + n;
        end_ = out_->data() + want;
        return true;
    }

    // Streaming: the held pairs to f, then an empty block (as much of one as
    // the budget leaves) unless the sink has stopped.
    void flush_block() {
        const std::size_t n = held();
        if (n != 0) {
            if (map_a_ || map_b_) map_pairs(buffer_, n);
            std::size_t taken = n;
            const bool go_on = f_.deliver(f_.f, buffer_, n, taken);
            delivered_ += taken;
            if (!go_on) status_ = Status::stopped_by_callback;
        }
        if (status_ == Status::ok) open_block();
        else cur_ = end_ = buffer_;
    }
    void open_block() {
        cur_ = buffer_;
        end_ = buffer_ + static_cast<std::size_t>(std::min<std::uint64_t>(block, budget_ - delivered_));
    }

    void map_pairs(Pair* p, std::size_t n) const {
        for (std::size_t i = 0; i < n; ++i) {
            if (map_a_) p[i].a = (*map_a_)[p[i].a];
            if (map_b_) p[i].b = (*map_b_)[p[i].b];
        }
    }

    Pair* cur_ = nullptr;
    Pair* end_ = nullptr;
    Status status_ = Status::ok;
    // Into a vector.
    std::vector<Pair>* out_ = nullptr;
    std::size_t start_ = 0;
    std::uint64_t limit_ = 0;  // the vector's size at which the budget is spent
    std::size_t used_ = 0;     // pairs written while no chunk is open
    std::size_t mapped_ = 0;   // pairs below this index have left mapped
    std::size_t chunk_ = first_chunk;
    // Streaming.
    PairCallbackRef f_{};
    std::uint64_t budget_ = no_budget;
    std::uint64_t delivered_ = 0;
    const std::vector<std::uint32_t>* map_a_ = nullptr;
    const std::vector<std::uint32_t>* map_b_ = nullptr;
    Pair buffer_[block];
};

}  // namespace broadphase

