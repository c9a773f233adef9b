// The cluster-pair kernel (src/simd/cluster_types.hpp says what it reports),
// one copy per instruction set: included by kernels.ipp inside each copy's
// namespace and target region, where Isa, Batch, Mask, load, splat, le,
// operator&, bits, width and append_pairs are that set's. No include guard,
// as there.
//
// A group is M consecutive entries of one level of a cluster tree (boxes, or
// bounding boxes of the level below); for a pair of groups every entry of
// the first is tested against all the entries of the second: the second's
// M entries stay in registers (M / width batches an axis), each entry of
// the first is broadcast against them, one mask a row. Rows are pruned
// first, unless the pair is a group with itself: only the first's entries
// that meet the second group's bounding box are tested, against only the
// second's entries that meet the first group's box (two masks for a pair,
// as cheap as one row). Comparisons only, so each copy reports exactly
// what the scalar loops report, in the same order.

/// See detail::cluster_pair_hits.
template <int M, int D, class Flush>
inline void cluster_pair_hits(Isa, std::integral_constant<int, M>, const ClusterSide<float, D>& side_a,
                              const ClusterSide<float, D>& side_b, const Pair* pairs, std::size_t count, int mode,
                              Flush& flush) {
    static_assert(M >= 1 && M <= 16, "a group's lanes fit one append_pairs");
    constexpr int Q = (M + width - 1) / width;  // batches a group
    // Locals, so that the pointers stay in registers across flush calls.
    const SoaView<float, D> ea = side_a.entries, eb = side_b.entries;
    const SoaView<float, D> ga = side_a.groups, gb = side_b.groups;
    const std::uint32_t* const ids_a = side_a.ids;
    const std::uint32_t* const ids_b = side_b.ids;
    const bool ordered = mode != cluster_two_sets;
    Pair buf[cluster_block + 32];
    std::size_t held = 0;
    for (std::size_t t = 0; t < count; ++t) {
        const std::size_t g = pairs[t].a, h = pairs[t].b;
        const std::size_t a0 = g * M, b0 = h * M;
        const std::size_t na = std::min<std::size_t>(M, ea.n - a0), nb = std::min<std::size_t>(M, eb.n - b0);
        Batch blo[D][Q], bhi[D][Q];
        for (int k = 0; k < D; ++k)
            for (int q = 0; q < Q; ++q) {
                blo[k][q] = load(eb.lo[k] + b0 + static_cast<std::size_t>(q * width));
                bhi[k][q] = load(eb.hi[k] + b0 + static_cast<std::size_t>(q * width));
            }
        std::uint32_t rows = cluster_lanes(na), cols = cluster_lanes(nb);
        const bool triangle = mode != cluster_two_sets && g == h;
        if (!triangle) {
            std::uint32_t ra = 0, cb = 0;
            for (int q = 0; q < Q; ++q) {
                const std::size_t at = a0 + static_cast<std::size_t>(q * width);
                Mask mr = le(load(ea.lo[0] + at), splat(gb.hi[0][h])) & le(splat(gb.lo[0][h]), load(ea.hi[0] + at));
                Mask mc = le(blo[0][q], splat(ga.hi[0][g])) & le(splat(ga.lo[0][g]), bhi[0][q]);
                for (int k = 1; k < D; ++k) {
                    mr = mr & le(load(ea.lo[k] + at), splat(gb.hi[k][h])) & le(splat(gb.lo[k][h]), load(ea.hi[k] + at));
                    mc = mc & le(blo[k][q], splat(ga.hi[k][g])) & le(splat(ga.lo[k][g]), bhi[k][q]);
                }
                ra |= bits(mr) << (q * width);
                cb |= bits(mc) << (q * width);
            }
            rows &= ra;
            cols &= cb;
            if (!cols) continue;
        }
        const std::uint32_t* const b_ids = ids_b ? ids_b + b0 : nullptr;
        while (rows) {
            const unsigned r = static_cast<unsigned>(count_trailing_zeros(rows));
            rows &= rows - 1;
            const std::size_t i = a0 + r;
            std::uint32_t m = 0;
            for (int q = 0; q < Q; ++q) {
                Mask mm = le(blo[0][q], splat(ea.hi[0][i])) & le(splat(ea.lo[0][i]), bhi[0][q]);
                for (int k = 1; k < D; ++k) mm = mm & le(blo[k][q], splat(ea.hi[k][i])) & le(splat(ea.lo[k][i]), bhi[k][q]);
                m |= bits(mm) << (q * width);
            }
            m &= cols;
            if (triangle) m &= cluster_after(r, mode);
            const auto id = static_cast<std::uint32_t>(ids_a ? ids_a[i] : i);
            append_pairs(m, id, b_ids, static_cast<std::uint32_t>(b0), ordered, buf, held);
            if (held >= cluster_block) flush(static_cast<const Pair*>(buf), held), held = 0;
        }
    }
    if (held) flush(static_cast<const Pair*>(buf), held);
}
