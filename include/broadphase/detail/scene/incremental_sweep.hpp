// Incremental sweep and prune on every axis (Baraff's "sort and sweep" as in
// I-COLLIDE; the structure behind Bullet's btAxisSweep3), kept across frames.
//
// Each axis holds its objects' endpoints (every object has a min and a max
// endpoint per axis) in one array sorted by the key (value, flag), where a
// min endpoint comes BEFORE a max endpoint of equal value. With that order,
// closed boxes that touch overlap: on one axis a and b overlap iff
//     key(a.min) < key(b.max) and key(b.min) < key(a.max),
// which is exactly !(a.max < b.min || b.max < a.min). Every object records
// where its endpoints are on every axis, so overlap on an axis can be read
// from positions alone (integers, exact, one cache line per object).
//
// A move rewrites an object's endpoint values and restores the order by
// insertion sort: each endpoint is bubbled left or right past its
// neighbours. Temporal coherence (objects move a little per frame) makes
// that cheap: the cost is the number of endpoints passed. Only a swap of a
// min endpoint with a max endpoint changes whether two objects overlap on
// that axis; when it does and the two overlap on every other axis (boxes as
// currently represented: the mover's new values on the axes already
// processed, its old values on the rest), their overall overlap changed, and
// the move reports it: sink(a, b, true) when it began, sink(a, b, false)
// when it ended. Applying those calls to a set keeps the set equal to the
// overlapping pairs of the represented boxes after every move. A pair may
// begin and end within one move (jumping over another object), or within
// one frame of several moves; callers that want per-frame events cancel
// such pairs (for each pair, the calls alternate began / ended, starting
// with began for a pair that did not overlap).
//
// Memory: per axis one value array (T) and one tag array (owner id << 1 |
// is_max), each with a sentinel at both ends (the smallest key (-inf, min)
// and the largest (+inf, max): strict comparisons never pass them, so the
// bubbling loops need no bounds tests); per object one record of 2*D
// positions. Nothing is allocated by a move; insertion and removal grow the
// arrays geometrically and keep their capacity.
//
// Cost in practice: a move costs the endpoints it passes, so dense
// projections hurt (every axis sees all objects). On uniform:100000 (boxes 4
// wide, 10% moving per frame by 0.05 to 0.3 of their size per axis) a move
// passes about 545 endpoints; measured on a shared 2-core VM (noisy): 2 to
// 4 us per move in the quiet frames, 9 to 14 us median. Most of it is the
// random access to each passed neighbour's position record, hence the
// prefetch ahead of the loops. The one-shot for_each_pair sweeps one axis:
// O(pairs overlapping on that axis), 0.1 to 0.3 s there; a scene with many
// objects should find its initial pairs with a one-shot algorithm instead.
//
// Preconditions (checked by assert only): ids are below 2^31 - 1; boxes are
// valid (min <= max on every axis, no NaN); infinite coordinates are fine.
// Not thread-safe: one writer, and no reader while it writes.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "../../boxes.hpp"
#include "../prefetch.hpp"

namespace broadphase {
namespace detail {

template <class T, int D>
class IncrementalSweep {
    static_assert(std::is_floating_point<T>::value, "IncrementalSweep needs float or double coordinates");
    static_assert(D >= 1 && D <= 3, "IncrementalSweep handles 1, 2 or 3 axes");

public:
    using scalar = T;
    static constexpr int dims = D;
    using box_type = BasicBox<T, D>;

    /// Largest id + 1 (tags keep the flag in the low bit; one id is the sentinels').
    static constexpr std::uint32_t max_id = (std::uint32_t(1) << 31) - 1;

    /// Empty: each axis holds only its two sentinels. O(D).
    IncrementalSweep() { reset_axes(); }

    /// Number of objects held. O(1).
    std::size_t size() const { return count_; }

    /// True when id is held. O(1).
    bool contains(std::uint32_t id) const {
        return std::size_t(id) * R < pos_.size() && pos_[std::size_t(id) * R] != npos;
    }

    /// The box held for id (exactly the values last given). Requires contains(id). O(D).
    box_type box(std::uint32_t id) const {
        assert(contains(id));
        box_type b;
        const std::uint32_t* p = &pos_[std::size_t(id) * R];
        for (int k = 0; k < D; ++k) {
            b.min[k] = val_[k][p[2 * k]];
            b.max[k] = val_[k][p[2 * k + 1]];
        }
        return b;
    }

    /// Room for ids below `ids` and for `objects` objects, so that inserting
    /// them allocates nothing. O(ids + objects).
    void reserve(std::size_t ids, std::size_t objects) {
        if (ids * R > pos_.size()) pos_.resize(ids * R, npos);
        for (int k = 0; k < D; ++k) {
            val_[k].reserve(2 * objects + 2);
            tag_[k].reserve(2 * objects + 2);
        }
    }

    /// Removes every object; keeps the memory. O(capacity of ids).
    void clear() {
        std::fill(pos_.begin(), pos_.end(), npos);
        count_ = 0;
        reset_axes();
    }

    /// Adds object `id` (not held) with `box`, silently: no pair is reported
    /// (the caller finds the new object's pairs itself). Each endpoint goes
    /// to its sorted place by binary search; the endpoints after it shift
    /// and their owners' positions are fixed. O(D n) for n objects held
    /// (memory moves), O(1) amortised allocation.
    void insert(std::uint32_t id, const box_type& box) {
        assert(id < max_id && !contains(id) && box.valid());
        grow_ids(id);
        std::uint32_t* me = &pos_[std::size_t(id) * R];
        for (int k = 0; k < D; ++k) {
            std::vector<T>& val = val_[k];
            std::vector<std::uint32_t>& tag = tag_[k];
            const std::size_t m = val.size();  // including both sentinels
            const T lo = box.min[k], hi = box.max[k];
            // First position whose key is above (lo, min) / (hi, max), among the real endpoints.
            const std::size_t a = upper_position(k, lo, false);
            const std::size_t b = upper_position(k, hi, true);
            assert(1 <= a && a <= b && b <= m - 1);
            val.resize(m + 2);
            tag.resize(m + 2);
            std::uint32_t* P = pos_.data();
            // Old [b, m) moves right by two (the last one is the sentinel), old [a, b) by one.
            val[m + 1] = val[m - 1];
            tag[m + 1] = tag[m - 1];
            for (std::size_t j = m - 1; j-- > b;) {
                val[j + 2] = val[j];
                tag[j + 2] = tag[j];
                P[std::size_t(tag[j] >> 1) * R + 2 * k + (tag[j] & 1)] = static_cast<std::uint32_t>(j + 2);
            }
            for (std::size_t j = b; j-- > a;) {
                val[j + 1] = val[j];
                tag[j + 1] = tag[j];
                P[std::size_t(tag[j] >> 1) * R + 2 * k + (tag[j] & 1)] = static_cast<std::uint32_t>(j + 1);
            }
            val[a] = lo;
            tag[a] = id << 1;
            val[b + 1] = hi;
            tag[b + 1] = (id << 1) | 1u;
            me[2 * k] = static_cast<std::uint32_t>(a);
            me[2 * k + 1] = static_cast<std::uint32_t>(b + 1);
        }
        ++count_;
    }

    /// Removes object `id` (held), silently: its pairs are not reported (the
    /// caller drops them). The endpoints after it shift left and their
    /// owners' positions are fixed. O(D n).
    void remove(std::uint32_t id) {
        assert(contains(id));
        std::uint32_t* me = &pos_[std::size_t(id) * R];
        std::uint32_t* P = pos_.data();
        for (int k = 0; k < D; ++k) {
            std::vector<T>& val = val_[k];
            std::vector<std::uint32_t>& tag = tag_[k];
            const std::size_t m = val.size();
            const std::size_t a = me[2 * k], b = me[2 * k + 1];
            for (std::size_t j = a + 1; j < b; ++j) {
                val[j - 1] = val[j];
                tag[j - 1] = tag[j];
                P[std::size_t(tag[j] >> 1) * R + 2 * k + (tag[j] & 1)] = static_cast<std::uint32_t>(j - 1);
            }
            for (std::size_t j = b + 1; j + 1 < m; ++j) {
                val[j - 2] = val[j];
                tag[j - 2] = tag[j];
                P[std::size_t(tag[j] >> 1) * R + 2 * k + (tag[j] & 1)] = static_cast<std::uint32_t>(j - 2);
            }
            val[m - 3] = val[m - 1];  // the right sentinel
            tag[m - 3] = tag[m - 1];
            val.resize(m - 2);
            tag.resize(m - 2);
        }
        std::fill(me, me + R, npos);
        --count_;
    }

    /// Adds n objects (ids not held, no id twice) at once, silently. Per axis
    /// the new endpoints are sorted and merged into the array from its end,
    /// then every endpoint's position is written once. O(D (n_held + n) +
    /// D n log n): use it for bulk builds and for more than a few inserts.
    void insert_batch(const std::uint32_t* ids, const box_type* boxes, std::size_t n) {
        if (n == 0) return;
        std::uint32_t top = 0;
        for (std::size_t i = 0; i < n; ++i) top = std::max(top, ids[i]);
        grow_ids(top);
        for (std::size_t i = 0; i < n; ++i) {
            assert(ids[i] < max_id && !contains(ids[i]) && boxes[i].valid());
            pos_[std::size_t(ids[i]) * R] = 0;  // held from here on (catches an id given twice)
        }
        for (int k = 0; k < D; ++k) {
            scratch_.resize(2 * n);
            for (std::size_t i = 0; i < n; ++i) {
                scratch_[2 * i] = {boxes[i].min[k], ids[i] << 1};
                scratch_[2 * i + 1] = {boxes[i].max[k], (ids[i] << 1) | 1u};
            }
            std::sort(scratch_.begin(), scratch_.end(), [](const Endpoint& x, const Endpoint& y) {
                return x.value < y.value || (x.value == y.value && (x.tag & 1) < (y.tag & 1));
            });
            std::vector<T>& val = val_[k];
            std::vector<std::uint32_t>& tag = tag_[k];
            const std::size_t m = val.size();
            val.resize(m + 2 * n);
            tag.resize(m + 2 * n);
            std::size_t w = m + 2 * n - 1;
            val[w] = val[m - 1];  // the right sentinel
            tag[w] = tag[m - 1];
            // Merge from the back: old real endpoints [1, m-1), new ones [0, 2n).
            std::size_t i = m - 1, j = 2 * n;
            while (j > 0) {
                --w;
                const Endpoint& e = scratch_[j - 1];
                if (i > 1 && key_less(e.value, e.tag & 1, val[i - 1], tag[i - 1] & 1)) {
                    --i;
                    val[w] = val[i];
                    tag[w] = tag[i];
                } else {
                    --j;
                    val[w] = e.value;
                    tag[w] = e.tag;
                }
            }
            reindex(k, 1);
        }
        count_ += n;
    }

    /// Removes n objects at once, silently; ids not held are ignored (an id
    /// given twice counts once). Per axis the array is compacted in one pass and every
    /// endpoint's position written once. O(D (n_held + n)).
    void remove_batch(const std::uint32_t* ids, std::size_t n) {
        if (n == 0) return;
        std::size_t removed = 0;
        for (std::size_t i = 0; i < n; ++i) {
            if (!contains(ids[i])) continue;  // not held, or given twice
            pos_[std::size_t(ids[i]) * R] = npos;  // marks it: contains() is false from here on
            ++removed;
        }
        if (removed == 0) return;
        for (int k = 0; k < D; ++k) {
            std::vector<T>& val = val_[k];
            std::vector<std::uint32_t>& tag = tag_[k];
            const std::size_t m = val.size();
            std::size_t w = 1;
            for (std::size_t j = 1; j + 1 < m; ++j) {
                const std::uint32_t t = tag[j];
                if (pos_[std::size_t(t >> 1) * R] == npos) continue;
                val[w] = val[j];
                tag[w] = t;
                ++w;
            }
            val[w] = val[m - 1];
            tag[w] = tag[m - 1];
            val.resize(w + 1);
            tag.resize(w + 1);
            reindex(k, 1);
        }
        for (std::size_t i = 0; i < n; ++i)
            if (std::size_t(ids[i]) * R < pos_.size()) std::fill_n(&pos_[std::size_t(ids[i]) * R], R, npos);
        count_ -= removed;
    }

    /// Moves object `id` (held) to `box` and reports the pairs whose overlap
    /// changed, through sink(a, b, began) with a < b: began true when a and b
    /// start to overlap, false when they stop. Axis by axis, the endpoints
    /// that grow the box are bubbled first (min left, max right), then those
    /// that shrink it, so an object's min never passes its own max. Applying
    /// the calls to a pair set keeps it exactly the overlapping pairs of the
    /// boxes held, after every call; one pair may begin and end within one
    /// move (see the file comment). Cost: O(D + s) for s endpoints passed,
    /// plus one test of O(D) integer compares per min/max swap; no
    /// allocation. A move to the same box passes nothing.
    template <class Sink>
    void move(std::uint32_t id, const box_type& box, Sink&& sink) {
        assert(contains(id) && box.valid());
        move_axes(id, box, sink, std::make_integer_sequence<int, D>{});
    }

    /// Calls f(a, b) with a < b once for every overlapping pair held: one
    /// sweep along the axis where the fewest pairs overlap (counted first, in
    /// O(n) per axis), each candidate then tested on the other axes by
    /// positions. O(D n + c) for c pairs overlapping on the sweep axis.
    /// Uses internal scratch memory: not const, one call at a time.
    template <class F>
    void for_each_pair(F&& f) {
        if (count_ < 2) return;
        int best = 0;
        std::uint64_t best_cost = std::numeric_limits<std::uint64_t>::max();
        for (int k = 0; k < D; ++k) {
            const std::vector<std::uint32_t>& tag = tag_[k];
            std::uint64_t cost = 0, open = 0;
            for (std::size_t j = 1; j + 1 < tag.size(); ++j) {
                if (tag[j] & 1) {
                    --open;
                } else {
                    cost += open;
                    ++open;
                }
            }
            if (cost < best_cost) {
                best_cost = cost;
                best = k;
            }
        }
        const std::vector<std::uint32_t>& tag = tag_[best];
        active_.clear();
        slot_.resize(pos_.size() / R);
        const std::uint32_t* P = pos_.data();
        for (std::size_t j = 1; j + 1 < tag.size(); ++j) {
            const std::uint32_t id = tag[j] >> 1;
            if (tag[j] & 1) {
                const std::uint32_t s = slot_[id];
                const std::uint32_t last = active_.back();
                active_[s] = last;
                slot_[last] = s;
                active_.pop_back();
            } else {
                const std::uint32_t* me = P + std::size_t(id) * R;
                for (const std::uint32_t other : active_)
                    if (overlap_all(me, P + std::size_t(other) * R)) f(std::min(id, other), std::max(id, other));
                slot_[id] = static_cast<std::uint32_t>(active_.size());
                active_.push_back(id);
            }
        }
    }

    /// Checks every invariant: sentinels in place, each axis sorted by key,
    /// every endpoint's owner held and pointing back at it, each object's
    /// min before its max, the count. For tests. O(D n + ids).
    bool validate() const {
        std::size_t held = 0;
        for (std::size_t i = 0; i < pos_.size(); i += R)
            if (pos_[i] != npos) ++held;
        if (held != count_) return false;
        for (int k = 0; k < D; ++k) {
            const std::vector<T>& val = val_[k];
            const std::vector<std::uint32_t>& tag = tag_[k];
            const std::size_t m = val.size();
            if (tag.size() != m || m != 2 * count_ + 2) return false;
            if (!(val[0] == -inf() && tag[0] == sentinel_tag_lo)) return false;
            if (!(val[m - 1] == inf() && tag[m - 1] == sentinel_tag_hi)) return false;
            for (std::size_t j = 1; j + 1 < m; ++j) {
                const T v = val[j];
                if (v != v) return false;  // NaN
                if (key_less(v, tag[j] & 1, val[j - 1], tag[j - 1] & 1)) return false;
                const std::uint32_t id = tag[j] >> 1;
                if (!contains(id)) return false;
                if (pos_[std::size_t(id) * R + 2 * k + (tag[j] & 1)] != j) return false;
            }
            if (key_less(val[m - 1], 1, val[m - 2], tag[m - 2] & 1)) return false;
            for (std::size_t i = 0; i < pos_.size(); i += R) {
                if (pos_[i] == npos) continue;
                if (!(pos_[i + 2 * k] < pos_[i + 2 * k + 1])) return false;
                if (!(val[pos_[i + 2 * k]] <= val[pos_[i + 2 * k + 1]])) return false;
            }
        }
        return true;
    }

private:
    // Positions per object: min, max per axis, padded to a power of two
    // (32 bytes in 3-D) so that a record never straddles two cache lines.
    static constexpr int R = D == 3 ? 8 : 2 * D;
    static constexpr std::uint32_t npos = std::numeric_limits<std::uint32_t>::max();
    static constexpr std::uint32_t sentinel_tag_lo = max_id << 1;         // a min endpoint
    static constexpr std::uint32_t sentinel_tag_hi = (max_id << 1) | 1u;  // a max endpoint

    struct Endpoint {
        T value;
        std::uint32_t tag;
    };

    static constexpr T inf() { return std::numeric_limits<T>::infinity(); }

    /// (v, fv) < (w, fw): by value, then min (0) before max (1).
    static bool key_less(T v, std::uint32_t fv, T w, std::uint32_t fw) { return v < w || (v == w && fv < fw); }

    void reset_axes() {
        for (int k = 0; k < D; ++k) {
            val_[k].assign({-inf(), inf()});
            tag_[k].assign({sentinel_tag_lo, sentinel_tag_hi});
        }
    }

    void grow_ids(std::uint32_t id) {
        const std::size_t need = (std::size_t(id) + 1) * R;
        if (need > pos_.size()) pos_.resize(std::max(need, pos_.size() * 2), npos);
    }

    /// First position in [1, m-1) whose key is above (v, is_max), or m-1.
    std::size_t upper_position(int k, T v, bool is_max) const {
        const std::vector<T>& val = val_[k];
        const std::vector<std::uint32_t>& tag = tag_[k];
        std::size_t lo = 1, hi = val.size() - 1;
        const std::uint32_t f = is_max ? 1u : 0u;
        while (lo < hi) {
            const std::size_t mid = lo + (hi - lo) / 2;
            if (key_less(v, f, val[mid], tag[mid] & 1))
                hi = mid;
            else
                lo = mid + 1;
        }
        return lo;
    }

    /// Writes the position of every real endpoint of axis k from index `from`.
    void reindex(int k, std::size_t from) {
        const std::vector<std::uint32_t>& tag = tag_[k];
        std::uint32_t* P = pos_.data();
        for (std::size_t j = from; j + 1 < tag.size(); ++j)
            P[std::size_t(tag[j] >> 1) * R + 2 * k + (tag[j] & 1)] = static_cast<std::uint32_t>(j);
    }

    /// Overlap on every axis, from positions.
    static bool overlap_all(const std::uint32_t* a, const std::uint32_t* b) {
        for (int j = 0; j < D; ++j)
            if (!(a[2 * j] < b[2 * j + 1] && b[2 * j] < a[2 * j + 1])) return false;
        return true;
    }

    /// Overlap on every axis but K, from positions.
    template <int K>
    static bool overlap_others(const std::uint32_t* a, const std::uint32_t* b) {
        bool ok = true;
        for (int j = 0; j < D; ++j)
            if (j != K) ok = ok & (a[2 * j] < b[2 * j + 1]) & (b[2 * j] < a[2 * j + 1]);
        return ok;
    }

    /// Starts loading the position record of the owner of endpoint j of
    /// axis k, `ahead` steps before the bubbling loop reaches it: every swap
    /// rewrites its neighbour's record, a random access, and on large sets
    /// these misses are the cost of a move.
    static constexpr std::size_t ahead = 12;
    void prefetch_owner(const std::uint32_t* tag, std::size_t j) const {
        prefetch_write(pos_.data() + std::size_t(tag[j] >> 1) * R);
    }

    template <class Sink>
    static void emit(Sink& sink, std::uint32_t a, std::uint32_t b, bool began) {
        if (a < b)
            sink(a, b, began);
        else
            sink(b, a, began);
    }

    template <class Sink, int... K>
    void move_axes(std::uint32_t id, const box_type& box, Sink& sink, std::integer_sequence<int, K...>) {
        (move_axis<K>(id, box.min[K], box.max[K], sink), ...);
    }

    /// The four bubbling loops of one axis. While an endpoint travels, its
    /// own slot is left stale (only the neighbours' slots are rewritten) and
    /// written once at the end; overlap_others<K> never reads axis K.
    template <int K, class Sink>
    void move_axis(std::uint32_t id, T lo, T hi, Sink& sink) {
        T* const val = val_[K].data();
        std::uint32_t* const tag = tag_[K].data();
        std::uint32_t* const P = pos_.data();
        std::uint32_t* const me = P + std::size_t(id) * R;
        const std::uint32_t imin = me[2 * K], imax = me[2 * K + 1];
        const std::size_t last = val_[K].size() - 1;  // the right sentinel (no owner record)
        const T old_lo = val[imin], old_hi = val[imax];

        // 1. min moves left: passing another's max begins an overlap on this axis.
        if (lo < old_lo) {
            std::size_t i = imin;
            for (;;) {
                const T pv = val[i - 1];
                const std::uint32_t pt = tag[i - 1];
                if (!(lo < pv || (lo == pv && (pt & 1)))) break;
                if (i > ahead) prefetch_owner(tag, i - ahead);
                val[i] = pv;
                tag[i] = pt;
                std::uint32_t* other = P + std::size_t(pt >> 1) * R;
                other[2 * K + (pt & 1)] = static_cast<std::uint32_t>(i);
                // Branch-free test (min or max alternate at random; hits are rare).
                if (((pt & 1) != 0) & overlap_others<K>(me, other)) emit(sink, id, pt >> 1, true);
                --i;
            }
            val[i] = lo;
            tag[i] = id << 1;
            me[2 * K] = static_cast<std::uint32_t>(i);
        }
        // 2. max moves right: passing another's min begins an overlap.
        if (old_hi < hi) {
            std::size_t i = imax;
            for (;;) {
                const T nv = val[i + 1];
                const std::uint32_t nt = tag[i + 1];
                if (!(nv < hi || (nv == hi && !(nt & 1)))) break;
                if (i + ahead < last) prefetch_owner(tag, i + ahead);
                val[i] = nv;
                tag[i] = nt;
                std::uint32_t* other = P + std::size_t(nt >> 1) * R;
                other[2 * K + (nt & 1)] = static_cast<std::uint32_t>(i);
                if (((nt & 1) == 0) & overlap_others<K>(me, other)) emit(sink, id, nt >> 1, true);
                ++i;
            }
            val[i] = hi;
            tag[i] = (id << 1) | 1u;
            me[2 * K + 1] = static_cast<std::uint32_t>(i);
        }
        // 3. min moves right: passing another's max ends an overlap. It stops
        // before its own max, which is already at max(old_hi, hi) >= lo.
        if (old_lo < lo) {
            std::size_t i = me[2 * K];
            for (;;) {
                const T nv = val[i + 1];
                const std::uint32_t nt = tag[i + 1];
                if (!(nv < lo)) break;
                if (i + ahead < last) prefetch_owner(tag, i + ahead);
                val[i] = nv;
                tag[i] = nt;
                std::uint32_t* other = P + std::size_t(nt >> 1) * R;
                other[2 * K + (nt & 1)] = static_cast<std::uint32_t>(i);
                if (((nt & 1) != 0) & overlap_others<K>(me, other)) emit(sink, id, nt >> 1, false);
                ++i;
            }
            val[i] = lo;
            tag[i] = id << 1;
            me[2 * K] = static_cast<std::uint32_t>(i);
        } else if (!(lo < old_lo)) {
            val[imin] = lo;  // equal key (maybe -0 for +0): keep the value given
        }
        // 4. max moves left: passing another's min ends an overlap. It stops
        // after its own min, now at lo <= hi.
        if (hi < old_hi) {
            std::size_t i = me[2 * K + 1];
            for (;;) {
                const T pv = val[i - 1];
                const std::uint32_t pt = tag[i - 1];
                if (!(hi < pv)) break;
                if (i > ahead) prefetch_owner(tag, i - ahead);
                val[i] = pv;
                tag[i] = pt;
                std::uint32_t* other = P + std::size_t(pt >> 1) * R;
                other[2 * K + (pt & 1)] = static_cast<std::uint32_t>(i);
                if (((pt & 1) == 0) & overlap_others<K>(me, other)) emit(sink, id, pt >> 1, false);
                --i;
            }
            val[i] = hi;
            tag[i] = (id << 1) | 1u;
            me[2 * K + 1] = static_cast<std::uint32_t>(i);
        } else if (!(old_hi < hi)) {
            val[me[2 * K + 1]] = hi;
        }
    }

    std::vector<T> val_[D];               // per axis: endpoint values, sorted by key, sentinels at both ends
    std::vector<std::uint32_t> tag_[D];   // per axis: owner id << 1 | is_max
    std::vector<std::uint32_t> pos_;      // per id: R positions (min, max per axis); npos when not held
    std::size_t count_ = 0;
    std::vector<Endpoint> scratch_;       // insert_batch
    std::vector<std::uint32_t> active_, slot_;  // for_each_pair
};

}  // namespace detail
}  // namespace broadphase
