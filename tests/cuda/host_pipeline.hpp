// The CUDA backend's pipeline run on the CPU: the same per-box and per-entry
// functions the kernels call (broadphase/cuda/detail/grid_logic.hpp),
// driven by plain loops, with std::stable_sort standing in for the device
// radix sort and std::partial_sum for the device scans. Built with the
// ordinary C++ compiler, so the tests run without a GPU.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <vector>

#include <broadphase/boxes.hpp>
#include <broadphase/pairs.hpp>
#include <broadphase/cuda/detail/grid_logic.hpp>

namespace bptest {
namespace gd = broadphase::cuda::detail;

struct HostRun {
    std::vector<broadphase::Pair> pairs;      ///< up to the limit, in the device's order
    std::uint64_t total = 0;                  ///< pairs counted (before the limit)
    std::vector<std::uint32_t> invalid_a, invalid_b;
    gd::GridParams params{};
    std::uint64_t entries = 0;
    std::uint32_t residents[gd::max_slots] = {};
};

/// All pairs within `a` (b == nullptr) or between a and b, as the device
/// computes them. force_h > 0 forces the level-0 cell side.
inline HostRun host_pipeline(const broadphase::Boxes& a, const broadphase::Boxes* b, double force_h = 0,
                             std::uint64_t limit = broadphase::no_budget) {
    HostRun run;
    const std::uint32_t na = static_cast<std::uint32_t>(a.size());
    const std::uint32_t n = na + static_cast<std::uint32_t>(b ? b->size() : 0);
    // Pack (the device's first kernel): 16-byte halves, validity.
    std::vector<gd::Half> lo(n), hi(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        const broadphase::Boxes& s = i < na ? a : *b;
        const std::uint32_t j = i < na ? i : i - na;
        lo[i] = {s.min(0)[j], s.min(1)[j], s.min(2)[j], 0};
        hi[i] = {s.max(0)[j], s.max(1)[j], s.max(2)[j], 0};
        if (!gd::box_valid(lo[i], hi[i])) (i < na ? run.invalid_a : run.invalid_b).push_back(j);
    }
    if (n == 0) return run;
    // Sample and grid.
    const std::uint32_t m = std::min(n, gd::sample_size);
    std::vector<gd::Half> slo(m), shi(m);
    for (std::uint32_t t = 0; t < m; ++t) {
        const std::uint32_t i = gd::sample_index(t, m, n);
        slo[t] = lo[i], shi[t] = hi[i];
    }
    gd::GridParams p{};
    p = gd::choose_params(slo.data(), shi.data(), m, n, force_h);
    p.na = na;
    p.cross = b ? 1 : 0;
    // Slots (levels, top groups) and residents per slot.
    std::vector<int> level(n, -1);
    for (std::uint32_t i = 0; i < n; ++i)
        if (gd::box_valid(lo[i], hi[i])) {
            level[i] = gd::box_slot(lo[i], hi[i], p);
            ++run.residents[level[i]];
        }
    const std::uint32_t occupied = gd::occupied_slots(p, run.residents);
    gd::finish_key_layout(p, run.residents);
    // Entries: count, scan, write.
    std::vector<std::uint64_t> offset(n + 1, 0);
    for (std::uint32_t i = 0; i < n; ++i)
        offset[i + 1] = offset[i] + (level[i] >= 0 ? gd::count_entries(lo[i], hi[i], level[i], p, occupied) : 0);
    const std::uint64_t mtotal = offset[n];
    run.entries = mtotal;
    std::vector<std::uint32_t> keys(mtotal), values(mtotal);
    for (std::uint32_t i = 0; i < n; ++i)
        if (level[i] >= 0) gd::write_entries(lo[i], hi[i], i, level[i], p, keys.data() + offset[i], values.data() + offset[i]);
    for (std::uint64_t e = 0; e < mtotal; ++e) {
        if (p.key_bits < 32 && (keys[e] >> p.key_bits) != 0) throw std::logic_error("key wider than key_bits");
    }
    // Sort (stable, like a radix sort) and gather records.
    std::vector<std::uint32_t> order(mtotal);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) { return keys[x] < keys[y]; });
    std::vector<gd::Rec> recs(mtotal);
    for (std::uint64_t e = 0; e < mtotal; ++e) {
        const std::uint32_t v = values[order[e]];
        const std::uint32_t box = v >> gd::flag_bits;
        recs[e].lo = lo[box];
        recs[e].hi = hi[box];
        recs[e].lo.w = v;
        recs[e].hi.w = keys[order[e]];
    }
    // Runs: exclusive count of heads, start of each run.
    std::vector<std::uint64_t> run_excl(mtotal);
    std::vector<std::uint32_t> run_start;
    std::uint32_t heads = 0;
    for (std::uint64_t e = 0; e < mtotal; ++e) {
        run_excl[e] = heads;
        if (e == 0 || recs[e].hi.w != recs[e - 1].hi.w) {
            run_start.push_back(static_cast<std::uint32_t>(e));
            ++heads;
        }
    }
    // Pairs: count, scan, write.
    const std::uint32_t mm = static_cast<std::uint32_t>(mtotal);
    std::vector<std::uint64_t> poff(mtotal + 1, 0);
    for (std::uint32_t e = 0; e < mm; ++e)
        poff[e + 1] = poff[e] + gd::entry_pairs(recs.data(), mm, e, run_excl.data(), run_start.data(), p, nullptr, 0);
    run.total = poff[mm];
    const std::uint64_t kept = std::min(run.total, limit);
    std::vector<std::uint32_t> pa(kept, 0xFFFFFFFFu), pb(kept, 0xFFFFFFFFu);
    gd::PairOut out;
    out.a = pa.data();
    out.b = pb.data();
    out.stride = 1;
    out.limit = kept;
    for (std::uint32_t e = 0; e < mm; ++e) {
        const std::uint32_t c = gd::entry_pairs(recs.data(), mm, e, run_excl.data(), run_start.data(), p, &out, poff[e]);
        if (c != poff[e + 1] - poff[e]) throw std::logic_error("write pass found a different count");
    }
    run.pairs.resize(kept);
    for (std::uint64_t t = 0; t < kept; ++t) run.pairs[t] = broadphase::Pair{pa[t], pb[t]};
    run.params = p;
    return run;
}

}  // namespace bptest
