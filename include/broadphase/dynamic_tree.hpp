// A dynamic AABB tree for incremental scenes (physics engines): proxies are
// inserted, moved and removed one at a time, and queries (boxes, points,
// spheres, rays, moving boxes, all pairs) run against the current state.
//
// The ideas are the well-known ones of Box2D's and Bullet's dynamic trees,
// written anew here:
//   - nodes live in one flat array of plain structs with a free list and
//     32-bit indices; nothing is allocated per node;
//   - a proxy id is the index of its leaf node; leaves never move, so ids are
//     stable until remove();
//   - each leaf stores a FAT box (the tight box grown by a margin, and along
//     the displacement hint of move()); a move whose tight box stays inside
//     the fat box leaves the tree alone;
//   - each leaf also stores the TIGHT box: every query is exact against the
//     tight boxes, fat and internal boxes only prune;
//   - insertion picks a sibling by the surface-area heuristic (greedy descent:
//     stop where a new parent costs less than going down), then refits the
//     ancestors and applies at each one the tree rotation (a child swapped
//     with a grandchild) that most reduces the surface area of a child, as
//     Box2D v3 does; an ancestor whose subtrees' heights differ by more than
//     a slack (12 by default) is rebalanced AVL-style instead, which bounds
//     the height where area-only rotations let it grow (mixed sizes);
//   - rebuild() rebuilds every internal node top-down (binned surface-area
//     heuristic over the leaves' centres) when the tree has degraded.
//
// Bad input: an invalid box (any NaN, or min > max on an axis) never enters
// the tree. insert() returns `null`, move() returns false and keeps the old
// boxes, queries with an invalid query box, a NaN point, a NaN or negative
// radius, a non-finite ray origin or direction, or a NaN or negative max_t
// report nothing. Infinite box coordinates are valid (a ground slab spanning
// -inf..+inf is found by every query that touches it).
//
// Threads: every const member function may run from many threads at once on
// one tree (no mutable scratch: traversals use a small stack array on the
// call stack, spilling to a local std::vector only when the tree is 60 or
// more levels deep). Mutations need exclusive access.
//
// Costs below: n live proxies, h the tree height (about log2 n after
// insertion with rotations or after rebuild()), k the number of results.
//
// This file is the class as a reader scans it: members and their contracts.
// The queries' bodies are in detail/dynamic_tree_inline.hpp and _queries.hpp
// (included at the end: templates on the caller's callback); the settings,
// mutation and structure are compiled in the library
// (src/dynamic_tree/dynamic_tree_impl.hpp and _structure.hpp; header-only, included
// at the end too); the
// per-box tests every query applies (overlaps, box_contains_point,
// sphere_overlaps_box, ray_hits_box, box_cast_hits_box) are in geometry.hpp.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "boxes.hpp"
#include "pairs.hpp"
#include "geometry.hpp"

namespace broadphase {

/// A dynamic bounding-volume tree over proxies (boxes with a user value).
template <class T, int D>
class BasicDynamicTree {
    static_assert(std::is_floating_point_v<T>, "T must be a floating-point type");
    static_assert(D >= 1, "at least one axis");

public:
    using scalar = T;
    static constexpr int dims = D;
    using box_type = BasicBox<T, D>;
    using vec_type = std::array<T, D>;

    /// The id that is no proxy: what insert() returns for an invalid box (or
    /// when 32-bit node indices are exhausted), and Hit::proxy for no hit.
    static constexpr std::uint32_t null = 0xFFFFFFFFu;

    /// Default margin: 0.1 in the user's length unit, grown on every side of
    /// every tight box (Box2D's choice for scenes in metres with objects of
    /// about 0.1 to 10 units). Scale it with your scene: about a tenth of a
    /// typical object size, or the distance a typical object moves in a few
    /// frames.
    static constexpr T default_margin = T(0.1);
    /// Default displacement factor: move() grows the fat box by this many
    /// times the displacement hint, on the side it points to.
    static constexpr T default_displacement_factor = T(4);
    /// Default balance slack (see set_balance_slack()).
    static constexpr int default_balance_slack = 12;

    /// A ray or box-cast result: proxy == null when nothing was hit.
    struct Hit {
        std::uint32_t proxy = null;
        T t = T(0);
        explicit operator bool() const { return proxy != null; }
    };

    /// How good the tree is: area_ratio = sum of the surface areas (perimeters
    /// in 2-D) of all internal nodes / that of the root (1 is the least
    /// possible; lower is better; inf or NaN with infinite boxes); height =
    /// the longest root-to-leaf path in edges (0 for an empty or one-leaf tree).
    struct Quality {
        double area_ratio = 0;
        int height = 0;
        std::size_t leaves = 0;
        std::size_t nodes = 0;
    };

    BasicDynamicTree() = default;
    /// A tree with the given margin (see set_margin()).
    explicit BasicDynamicTree(T margin) { set_margin(margin); }

    // -- settings ----------------------------------------------------------

    /// The margin every fat box gets on every side, applied from the next
    /// insert() or re-inserting move(). Must be finite and >= 0 (0 means fat =
    /// tight: every move that changes a box rebuilds its path); otherwise
    /// nothing changes and it returns false. O(1).
    bool set_margin(T margin);
    T margin() const { return margin_; }

    /// How far ahead move() grows a fat box along its displacement hint
    /// (finite, >= 0; else false and unchanged). O(1).
    bool set_displacement_factor(T factor);
    T displacement_factor() const { return factor_; }

    /// Balance: after an insertion or removal, an ancestor whose two
    /// subtrees' heights differ by more than this is rebalanced AVL-style
    /// (the taller child takes its place), whatever the surface areas say.
    /// Small values keep the tree shallow but blind to space: with slack 1
    /// (a plain AVL rule) the area ratio of 100,000 uniform boxes was 7,900
    /// against 186 at the default 12 and 184 with rotations only, and queries
    /// far slower (measured: docs/measured-in-code.md\#dynamic-tree). A huge value leaves only the
    /// area-driven rotations (as Box2D v3), whose height is unbounded in
    /// mixed-size scenes (105 levels for 4,000 boxes in the tests' mixed
    /// scene; 30 with the default). Must be >= 1; else false and unchanged.
    bool set_balance_slack(int slack);
    int balance_slack() const { return slack_; }

    // -- mutation ----------------------------------------------------------

    /// Adds a proxy with tight box `box` and a user value (any 64-bit value
    /// the caller wants back: an index, a pointer's bits); returns its id
    /// (stable until remove()), or `null` when the box is invalid (NaN or
    /// min > max: the tree is not touched) or 2^32 - 1 nodes would be needed.
    /// O(h) box tests and rotations; amortised O(1) allocation (the node
    /// array doubles when full; std::bad_alloc leaves the tree unchanged).
    std::uint32_t insert(const box_type& box, std::uint64_t user_value = 0);

    /// Removes proxy `id`; false (and nothing done) when id is no live proxy.
    /// O(h). Never allocates; the nodes go to the free list.
    bool remove(std::uint32_t id);

    /// Gives proxy `id` a new tight box. `displacement` (optional, e.g. the
    /// velocity times the step) is a hint: a re-inserted fat box is grown by
    /// displacement_factor() times it on the side it points to, so the next
    /// moves stay inside. Returns true when the tree's structure changed (the
    /// leaf was re-inserted: the new tight box left the fat box, or the fat
    /// box had become much larger than needed); false when only the stored
    /// tight box changed, and also (nothing changed) when id is no live proxy
    /// or the box is invalid (NaN, min > max: the old boxes stay). A
    /// non-finite displacement is ignored (treated as zero). O(D) when the
    /// box stays inside its fat box, else O(h) like remove() + insert().
    /// Never allocates (the re-insertion reuses the freed node).
    bool move(std::uint32_t id, const box_type& box, const vec_type& displacement = vec_type{});

    /// Replaces the user value of proxy id (a live proxy). O(1).
    void set_user_value(std::uint32_t id, std::uint64_t value) { user_[id] = value; }

    /// Rebuilds every internal node top-down from the leaves (binned surface
    /// area heuristic over the fat boxes' centres, 16 bins per axis; a
    /// median split where the bins cannot separate the centres). Ids, fat and
    /// tight boxes stay. O(n log n) time; allocates only scratch that it keeps
    /// for the next call.
    void rebuild();

    /// Removes every proxy; keeps the memory. O(capacity).
    void clear();

    /// Makes room for `proxies` proxies (2 * proxies - 1 nodes) so that
    /// inserting them allocates nothing. O(capacity).
    void reserve(std::size_t proxies);

    // -- inspection --------------------------------------------------------

    /// True when id is a live proxy. O(1).
    bool contains(std::uint32_t id) const { return id < nodes_.size() && nodes_[id].height == 0; }
    /// The tight box, fat box and user value of a live proxy. O(1).
    const box_type& tight_box(std::uint32_t id) const { return tight_[id]; }
    const box_type& fat_box(std::uint32_t id) const { return nodes_[id].box; }
    std::uint64_t user_value(std::uint32_t id) const { return user_[id]; }

    /// Live proxies. O(1).
    std::size_t size() const { return leaf_count_; }
    bool empty() const { return leaf_count_ == 0; }
    /// Nodes in use (leaves + internal) and allocated. O(1).
    std::size_t node_count() const { return used_; }
    std::size_t node_capacity() const { return nodes_.size(); }
    /// The root node's index (null when empty): for diagnostics.
    std::uint32_t root() const { return root_; }
    /// Height of the tree in edges (0 when empty or one proxy). O(1).
    int height() const { return root_ == null ? 0 : nodes_[root_].height; }

    /// Quality figures (see Quality). O(capacity).
    Quality quality() const;

    /// Checks every invariant; "" when all hold, else a description of the
    /// first broken one: parent/child links, internal boxes containing their
    /// children's, fat boxes containing tight ones, valid boxes, heights, the
    /// free list, node and leaf counts, no cycles. O(capacity).
    std::string validate() const;

    // -- queries (const; many threads at once) -------------------------------
    // Callbacks return bool (false stops the query) or void. Each for_each_*
    // returns false when a callback stopped it, else true. Results come in no
    // particular order. Typical cost O(log n + k) node visits; worst case
    // O(n) when the fat boxes overlap heavily.

    /// f(id) for every proxy whose tight box overlaps the closed box q
    /// (touching counts). Nothing for an invalid q.
    template <class F>
    bool for_each_overlap(const box_type& q, F&& f) const;

    /// The ids for_each_overlap(q) reports, into `out` (replacing its
    /// contents, as Index::query does); returns their number. Same cost.
    std::size_t query(const box_type& q, std::vector<std::uint32_t>& out) const;

    /// f(id) for every proxy whose tight box contains point p (boundary
    /// included). Nothing for a point with a NaN coordinate.
    template <class F>
    bool for_each_containing(const vec_type& p, F&& f) const;

    /// f(id) for every proxy whose tight box touches the closed sphere
    /// (sphere_overlaps_box). Nothing for a NaN centre or radius, or r < 0.
    template <class F>
    bool for_each_overlapping_sphere(const vec_type& center, T radius, F&& f) const;

    /// The first proxy hit by the ray origin + t * direction, t in
    /// [0, max_t] (direction need not be unit length; with a unit direction t
    /// is the distance), against tight boxes (ray_hits_box): the smallest t,
    /// ties to the smallest id; t = 0 when the origin is inside. max_t may be
    /// +inf; a zero direction or max_t = 0 is a point test at the origin.
    /// Nothing for a non-finite origin or direction or a NaN/negative max_t.
    /// Nearer child first, subtrees entered after the best t pruned:
    /// typically O(log n) node visits.
    Hit ray_cast(const vec_type& origin, const vec_type& direction, T max_t) const;

    /// f(id, t) for every proxy hit by the ray (as ray_cast), t its entry
    /// parameter. Cost O(log n + k) typical.
    template <class F>
    bool for_each_ray_hit(const vec_type& origin, const vec_type& direction, T max_t, F&& f) const;

    /// The first proxy touched by box `moving` swept along `displacement`
    /// (at time t it is moving + t * displacement, t in [0, 1];
    /// box_cast_hits_box): the smallest t, ties to the smallest id; t = 0 for
    /// proxies it overlaps at the start. Nothing for an invalid moving box or
    /// a non-finite displacement. Typically O(log n) node visits.
    Hit box_cast(const box_type& moving, const vec_type& displacement) const;

    /// f(id, t) for every proxy the swept box touches, t the first time.
    template <class F>
    bool for_each_box_cast_hit(const box_type& moving, const vec_type& displacement, F&& f) const;

    // -- casts an engine steers: filters and clipping callbacks ------------
    //
    // ray_cast_clipped() and box_cast_clipped() hand every hit to a callback
    // whose return value steers the cast, as an engine's narrow phase needs
    // (the semantics of Box2D's b2RayCastCallback and Bullet's m_lambda_max):
    //
    //   filter(id) -> bool   optional; called first for each proxy whose
    //                        tight box the cast hits within the current clip;
    //                        false skips the proxy (f is not called).
    //   f(id, t) -> T        t is the entry on the tight box, 0 <= t <= clip.
    //                        The return value r says what to do next:
    //     r < 0 or NaN  (cast_ignore)   ignore this hit; the clip stays;
    //     r == 0        (cast_stop)     stop the cast at once;
    //     0 < r < clip                  clip: from now on the cast ends at r;
    //                                   subtrees and boxes whose entry is
    //                                   beyond r are skipped (pruned);
    //     r >= clip     (cast_continue) go on; the clip stays (it never grows).
    //   f may also return bool (false: stop, true: go on) or void (go on).
    //
    // The clip starts at max_t (rays) or 1 (box casts). A box whose entry
    // equals the clip is still reported (ties are seen), and t = 0 hits
    // (origin inside) are reported like any other; only stopping is spelt 0.
    // Closest hit with an exact narrow phase: return the narrow-phase t on a
    // hit (the cast shrinks to it) and cast_ignore on a miss; the nearest
    // narrow-phase hit is the last one f clipped to. The walk is depth first,
    // nearer child first, and prunes by the current clip, so a clip found
    // early cuts the rest of the walk. Hits come in no particular order (not
    // sorted by t). Cost: O(log n + k) node visits typical, fewer as the clip
    // shrinks; worst case O(n). Nothing allocated unless the tree is 60 or
    // more levels deep. Invalid input (as ray_cast()/box_cast()) reports
    // nothing.

    /// Callback return values for ray_cast_clipped() and box_cast_clipped().
    static constexpr T cast_ignore = T(-1);
    static constexpr T cast_stop = T(0);
    static constexpr T cast_continue = std::numeric_limits<T>::infinity();

    /// The default filter: accepts every proxy.
    struct AcceptAll {
        constexpr bool operator()(std::uint32_t) const { return true; }
    };

    /// What a clipped cast did: the clip at the end (max_t, or 1 for box
    /// casts, when f never clipped), whether f stopped it, and the work:
    /// internal nodes whose children were tested, and leaves whose fat box
    /// passed the pruning test (each then tested exactly on its tight box).
    struct CastResult {
        T clip = T(0);
        bool stopped = false;
        std::size_t nodes = 0;
        std::size_t leaves = 0;
    };

    /// The ray origin + t * direction, t in [0, max_t] (as ray_cast()),
    /// against the tight boxes; filter(id) then f(id, t) for each hit, f
    /// steering the cast (see above). Typically O(log n + k) node visits.
    template <class F, class Filter = AcceptAll>
    CastResult ray_cast_clipped(const vec_type& origin, const vec_type& direction, T max_t, F&& f,
                                Filter&& filter = Filter{}) const;

    /// Box `moving` swept along `displacement`, t in [0, 1] (as box_cast()),
    /// against the tight boxes; filter(id) then f(id, t) for each proxy
    /// touched, t the first time, f steering the cast (see above).
    /// Typically O(log n + k) node visits.
    template <class F, class Filter = AcceptAll>
    CastResult box_cast_clipped(const box_type& moving, const vec_type& displacement, F&& f,
                                Filter&& filter = Filter{}) const;

    /// f(a, b), a < b, once for every unordered pair of proxies whose tight
    /// boxes overlap (touching counts): a self-traversal of the tree, each
    /// internal node's two subtrees tested against each other. O(n + pairs of
    /// overlapping fat/internal boxes visited); nothing allocated unless the
    /// tree is deeper than 32 levels.
    template <class F>
    bool for_each_pair(F&& f) const;

    /// Every overlapping pair (a < b) into `out` (replacing its contents,
    /// as find_pairs does); returns their number. Same cost.
    std::size_t pairs(std::vector<Pair>& out) const;

private:
    struct Node {
        box_type box;    // fat box (leaf) or union of the children's boxes
        std::uint32_t parent = null;  // free nodes: next free node
        std::uint32_t child1 = null;
        std::uint32_t child2 = null;
        std::int32_t height = -1;  // -1 free, 0 leaf, > 0 internal
    };

    static constexpr std::size_t max_nodes = 0xFFFFFFFFu;  // indices 0 .. 2^32 - 2

    /// What walk() reads at an internal node: its two children's boxes
    /// (copies of their nodes' boxes, axis by axis, child 0 then child 1),
    /// their indices, and which of them are leaves: one 64-byte line for
    /// float 3-D, so a step down the tree costs one cache miss, not two or
    /// three (two 40-byte nodes at unrelated places). Kept equal to the nodes
    /// by sync() wherever a box or a link of an internal node changes;
    /// validate() checks it.
    struct alignas(64) Kids {
        T lo[D][2];
        T hi[D][2];
        std::uint32_t child[2];
        bool leaf[2];
    };

    /// Copies internal node i's children into kids_[i].
    void sync(std::uint32_t i);

    static box_type unite(const box_type& a, const box_type& b);
    /// Half the surface area (3-D and up: sum of the pairwise products of the
    /// extents), or the half perimeter (2-D), or the length (1-D).
    static T half_area(const box_type& b);

    box_type fatten(const box_type& b, const vec_type& disp) const;

    static bool ray_ok(const vec_type& o, const vec_type& d, T max_t);

    /// The one ray walk behind ray_cast(), for_each_ray_hit() and
    /// ray_cast_clipped() (ray_ok() checked by the caller): prunes with the
    /// conservative FastRay (or the exact test when its inverse overflows)
    /// and the walk's bound; count() runs at each internal node visited;
    /// leaf(id, bound) as walk()'s.
    template <class Count, class Leaf>
    bool ray_walk(const vec_type& origin, const vec_type& direction, T max_t, Count&& count, Leaf&& leaf) const;
    /// The same for box casts (cast_ok() checked by the caller), pruning
    /// with box_cast_hits_box().
    template <class Count, class Leaf>
    bool box_cast_walk(const box_type& moving, const vec_type& displacement, Count&& count, Leaf&& leaf) const;
    /// The leaf of the clipped casts: exact(box, t) on the tight box (a hit
    /// at t <= clip), then filter, then f; applies f's answer to clip, bound
    /// and r.
    template <class Exact, class F, class Filter>
    bool clipped_leaf(std::uint32_t i, T& bound, Exact& exact, F& f, Filter& filter, CastResult& r) const;
    static bool cast_ok(const box_type& m, const vec_type& d);

    // -- the query walk ------------------------------------------------------

    /// The one walk behind every query but for_each_pair(): depth first from
    /// the root, nearer child first. The query supplies the tests (the
    /// functions of geometry.hpp, or the ray's conservative FastRay) and what
    /// to do at a leaf; the walk owns the order, the pruning and the stack.
    /// root_hit(box, t) -> bool is the pruning test on the root's box;
    /// pair_hit(kids, t[2], h[2]) the pruning test on both children of an
    /// internal node at once, read from its Kids record (one cache line), t
    /// their entries (0 for queries without one); leaf(id, bound) -> bool runs
    /// on each leaf whose fat box passed (it tests the tight box and acts)
    /// and returns false to stop the walk. A child whose entry is beyond the
    /// bound (+inf at the start) is dropped, and a stacked one is checked
    /// again when popped: the first-hit queries lower the bound from their
    /// leaf as they find hits, the every-hit queries leave it. The pruning
    /// tests must be conservative: a node's entry no greater than that of
    /// any leaf below it. Returns false when a leaf stopped it. The stack
    /// holds at most one entry per level (on the call stack below 60 levels).
    template <class RootHit, class PairHit, class Leaf>
    bool walk(RootHit&& root_hit, PairHit&& pair_hit, Leaf&& leaf) const;
    template <class PairHit, class Leaf, class Stack>
    bool walk_with(PairHit& pair_hit, Leaf& leaf, Stack& stack) const;

    /// walk() for the every-hit queries whose pruning is a test of one box,
    /// node_hit(box) -> bool (no entry, the bound left at +inf), and whose
    /// leaf(id) -> bool needs no bound.
    template <class NodeHit, class Leaf>
    bool walk_all(NodeHit&& node_hit, Leaf&& leaf) const;

    /// The leaf of the first-hit queries (ray_cast(), box_cast()) for
    /// walk(): keeps in `best` the leaf with the smallest entry t
    /// (leaf_hit(box, t), the exact test on a tight box), ties to the
    /// smallest id, and lowers the bound to the best t so far.
    template <class LeafHit>
    auto nearest_leaf(LeafHit& leaf_hit, Hit& best) const;

    /// Hints the cache to fetch what a visit of child j of k reads first:
    /// an internal child's kids_ record, a leaf's tight box.
    void prefetch(const Kids& k, int j) const;
    /// Child j's box in a Kids record.
    static box_type kid_box(const Kids& k, int j);

    /// A stacked subtree of walk() and its entry.
    struct Entry {
        std::uint32_t node;
        T t;
    };

    // -- node storage --------------------------------------------------------

    bool grow_to(std::size_t cap);
    /// At least `k` free nodes; false when 32-bit indices are exhausted.
    bool ensure_free(std::size_t k);
    /// Takes a node from the free list (which must not be empty).
    std::uint32_t allocate_node();
    void free_node(std::uint32_t i);

    // -- structure -------------------------------------------------------------

    /// The sibling for a new leaf with box b: greedy descent by the surface
    /// area heuristic. Putting the leaf beside node i costs the area of the
    /// new parent; going below i costs i's area growth, which every deeper
    /// choice also pays, plus the growth of the child gone into.
    std::uint32_t find_sibling(const box_type& b) const;

    void insert_leaf(std::uint32_t leaf);

    /// In parent (or at the root when parent is null), child `from` becomes `to`.
    void replace_child(std::uint32_t parent, std::uint32_t from, std::uint32_t to);

    void remove_leaf(std::uint32_t leaf);

    /// From node i to the root: recompute box and height, then rotate.
    void refit_up(std::uint32_t i);

    /// AVL-style: when one child of a is more than one level taller than the
    /// other, that child takes a's place; a goes below it with the shorter
    /// child and the shorter of the tall child's two children. Returns the
    /// node now at a's place.
    std::uint32_t balance(std::uint32_t a);
    std::uint32_t promote(std::uint32_t a, std::uint32_t tall, std::uint32_t other);

    /// At internal node a with children b and c: of the four swaps of one
    /// child with a grandchild under the other child, apply the one that
    /// most reduces the area of the child whose contents change (if any
    /// does). a's own box is unchanged.
    void rotate(std::uint32_t a);

    /// Child x of a trades places with child1 (first) or child2 of y, the
    /// other child of a. y's box and height are recomputed, then a's height.
    void swap_down(std::uint32_t a, std::uint32_t x, std::uint32_t y, bool first);

    /// Centre of box i on axis k, doubled (min + max); NaN (-inf + inf) reads 0.
    T centre2(std::uint32_t i, int k) const;

    /// Builds a subtree over leaves [first, last) and returns its root.
    std::uint32_t build(std::uint32_t* first, std::uint32_t* last, int depth);

    /// Partitions [first, last) (n >= 3) and returns the split point, never
    /// first or last. Binned SAH over the centres on every axis; the median
    /// on the widest axis when no binned split is possible or the recursion
    /// is deep (which bounds the depth by about 48 + log2 n).
    std::uint32_t* split(std::uint32_t* first, std::uint32_t* last, int depth);

    static int bin_of(double c, double lo, double scale, int bins);

    std::vector<Node> nodes_;          // the tree: what traversals read
    std::vector<box_type> tight_;      // per node index: leaves' tight boxes (what queries decide on)
    std::vector<std::uint64_t> user_;  // per node index: leaves' user values
    std::vector<Kids> kids_;           // per internal node: copies of its children's boxes (walk)
    std::vector<std::uint32_t> scratch_;
    std::uint32_t root_ = null;
    std::uint32_t free_ = null;
    std::size_t used_ = 0;
    std::size_t leaf_count_ = 0;
    T margin_ = default_margin;
    T factor_ = default_displacement_factor;
    std::int32_t slack_ = default_balance_slack;
};

using DynamicTree = BasicDynamicTree<float, 3>;

}  // namespace broadphase

// The queries, templates on the caller's callback, in the caller's file.
#include "detail/dynamic_tree_inline.hpp"
#include "detail/dynamic_tree_queries.hpp"

// The settings, mutation and structure: compiled in the library,
// src/dynamic_tree/dynamic_tree.cpp, for float and double in 2-D and 3-D.
