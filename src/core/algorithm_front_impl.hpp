// The bodies of algorithm_front.hpp: each call hands over to the
// algorithm behind the pointer (Impl, an AlgorithmBase: src/core/algorithm_base.hpp).
// Included by each algorithm's body (src/<component>/<algorithm>_impl.hpp);
// Impl must be complete where these are instantiated (src/<component>/*.cpp,
// or a program on the single header).
#pragma once

#include <broadphase/adaptive_grid.hpp>
#include <broadphase/algorithm_front.hpp>
#include <broadphase/brute_force.hpp>
#include <broadphase/cluster_pairs.hpp>
#include <broadphase/hybrid_grid.hpp>
#include <broadphase/sweep_and_prune.hpp>
#include <broadphase/uniform_grid.hpp>

#include <memory>
#include <new>
#include <utility>

#include <broadphase/detail/buffers.hpp>

namespace broadphase {

template <class T, int D, class Impl>
AlgorithmFront<T, D, Impl>::AlgorithmFront() : impl_(std::make_unique<Impl>()) {}

template <class T, int D, class Impl>
AlgorithmFront<T, D, Impl>::~AlgorithmFront() = default;

template <class T, int D, class Impl>
AlgorithmFront<T, D, Impl>::AlgorithmFront(const AlgorithmFront& other)
    : impl_(other.impl_ ? std::make_unique<Impl>(*other.impl_) : std::make_unique<Impl>()) {}

template <class T, int D, class Impl>
AlgorithmFront<T, D, Impl>::AlgorithmFront(AlgorithmFront&&) noexcept = default;

template <class T, int D, class Impl>
AlgorithmFront<T, D, Impl>& AlgorithmFront<T, D, Impl>::operator=(const AlgorithmFront& other) {
    if (this == &other) return *this;
    if (!other.impl_)
        impl_ = std::make_unique<Impl>();
    else if (impl_)
        *impl_ = *other.impl_;  // reuses this algorithm's memory
    else
        impl_ = std::make_unique<Impl>(*other.impl_);
    return *this;
}

template <class T, int D, class Impl>
AlgorithmFront<T, D, Impl>& AlgorithmFront<T, D, Impl>::operator=(AlgorithmFront&&) noexcept = default;

template <class T, int D, class Impl>
Impl* AlgorithmFront<T, D, Impl>::ready(Report& r) {
    if (!impl_) detail::guarded(r, [&] { impl_ = std::make_unique<Impl>(); });
    return impl_.get();
}

template <class T, int D, class Impl>
Impl& AlgorithmFront<T, D, Impl>::impl() {
    if (!impl_) impl_ = std::make_unique<Impl>();
    return *impl_;
}

template <class T, int D, class Impl>
Report AlgorithmFront<T, D, Impl>::find_pairs(view_type boxes, std::vector<Pair>& out, const Options& options) {
    Report r;
    Impl* a = ready(r);
    return a ? a->find_pairs(boxes, out, options) : (out.clear(), r);
}

template <class T, int D, class Impl>
Report AlgorithmFront<T, D, Impl>::find_pairs(view_type a, view_type b, std::vector<Pair>& out,
                                              const Options& options) {
    Report r;
    Impl* algo = ready(r);
    return algo ? algo->find_pairs(a, b, out, options) : (out.clear(), r);
}

template <class T, int D, class Impl>
Report AlgorithmFront<T, D, Impl>::build(view_type boxes, const Options& options) {
    Report r;
    Impl* a = ready(r);
    return a ? a->build(boxes, options) : r;
}

template <class T, int D, class Impl>
bool AlgorithmFront<T, D, Impl>::built() const {
    return impl_ && impl_->built();
}

template <class T, int D, class Impl>
std::size_t AlgorithmFront<T, D, Impl>::query(const box_type& q, std::vector<std::uint32_t>& out) const {
    if (!impl_) return out.clear(), 0;
    return impl_->query(q, out);
}

template <class T, int D, class Impl>
Report AlgorithmFront<T, D, Impl>::query_batch(view_type queries, std::vector<Pair>& out,
                                               const Options& options) const {
    if (!impl_) {  // moved from: nothing built; the queries still counted as the built one would
        out.clear();
        Impl none;
        return none.query_batch(queries, out, options);
    }
    return impl_->query_batch(queries, out, options);
}

template <class T, int D, class Impl>
Report AlgorithmFront<T, D, Impl>::stream_self(view_type boxes, PairCallbackRef f, std::uint64_t max_pairs) {
    Report r;
    Impl* a = ready(r);
    return a ? a->stream_self(boxes, f, max_pairs) : r;
}

template <class T, int D, class Impl>
Report AlgorithmFront<T, D, Impl>::stream_cross(view_type a, view_type b, PairCallbackRef f,
                                                std::uint64_t max_pairs) {
    Report r;
    Impl* algo = ready(r);
    return algo ? algo->stream_cross(a, b, f, max_pairs) : r;
}

template <class T, int D, class Impl>
Report AlgorithmFront<T, D, Impl>::stream_batch(view_type queries, PairCallbackRef f,
                                                std::uint64_t max_pairs) const {
    if (!impl_) {
        Impl none;
        return none.stream_batch(queries, f, max_pairs);
    }
    return impl_->stream_batch(queries, f, max_pairs);
}

template <class T, int D, class Impl>
bool AlgorithmFront<T, D, Impl>::overlaps(const box_type& q, HitCallbackRef f) const {
    return !impl_ || impl_->overlaps(q, f);
}

}  // namespace broadphase

// Every algorithm's front for the compiled types, compiled once, each in its
// algorithm's src/<component>/*.cpp: a file that sees these bodies (through
// one algorithm's body) compiles no other algorithm's front. (The single
// header leaves out every `extern template` line.)
namespace broadphase {
extern template class AlgorithmFront<float, 2, detail::BruteForceImpl<float, 2>>;
extern template class AlgorithmFront<float, 2, detail::SweepAndPruneImpl<float, 2>>;
extern template class AlgorithmFront<float, 2, detail::ClusterPairsImpl<float, 2>>;
extern template class AlgorithmFront<float, 2, detail::AdaptiveGridImpl<float, 2>>;
extern template class AlgorithmFront<float, 2, detail::GridAlgorithmImpl<float, 2, UniformGridPolicy>>;
extern template class AlgorithmFront<float, 2, detail::GridAlgorithmImpl<float, 2, HybridGridPolicy>>;
extern template class AlgorithmFront<float, 3, detail::BruteForceImpl<float, 3>>;
extern template class AlgorithmFront<float, 3, detail::SweepAndPruneImpl<float, 3>>;
extern template class AlgorithmFront<float, 3, detail::ClusterPairsImpl<float, 3>>;
extern template class AlgorithmFront<float, 3, detail::AdaptiveGridImpl<float, 3>>;
extern template class AlgorithmFront<float, 3, detail::GridAlgorithmImpl<float, 3, UniformGridPolicy>>;
extern template class AlgorithmFront<float, 3, detail::GridAlgorithmImpl<float, 3, HybridGridPolicy>>;
extern template class AlgorithmFront<double, 2, detail::BruteForceImpl<double, 2>>;
extern template class AlgorithmFront<double, 2, detail::SweepAndPruneImpl<double, 2>>;
extern template class AlgorithmFront<double, 2, detail::ClusterPairsImpl<double, 2>>;
extern template class AlgorithmFront<double, 2, detail::AdaptiveGridImpl<double, 2>>;
extern template class AlgorithmFront<double, 2, detail::GridAlgorithmImpl<double, 2, UniformGridPolicy>>;
extern template class AlgorithmFront<double, 2, detail::GridAlgorithmImpl<double, 2, HybridGridPolicy>>;
extern template class AlgorithmFront<double, 3, detail::BruteForceImpl<double, 3>>;
extern template class AlgorithmFront<double, 3, detail::SweepAndPruneImpl<double, 3>>;
extern template class AlgorithmFront<double, 3, detail::ClusterPairsImpl<double, 3>>;
extern template class AlgorithmFront<double, 3, detail::AdaptiveGridImpl<double, 3>>;
extern template class AlgorithmFront<double, 3, detail::GridAlgorithmImpl<double, 3, UniformGridPolicy>>;
extern template class AlgorithmFront<double, 3, detail::GridAlgorithmImpl<double, 3, HybridGridPolicy>>;
}  // namespace broadphase
