// The compiled library: PairFinder, Index and the automatic choice
// (<broadphase/broadphase.hpp>) for float and double boxes in 2-D and 3-D,
// with the algorithms behind them (core/pair_finder_impl.hpp).
#include <broadphase/broadphase.hpp>
#include "core/pair_finder_impl.hpp"

namespace broadphase {

template Algorithm detail::choose_algorithm(const BasicBoxesView<float, 2>&, detail::StatsScratch&);
template Algorithm choose_algorithm(const BasicBoxesView<float, 2>&);
template class BasicPairFinder<float, 2>;
template class BasicIndex<float, 2>;
template Algorithm detail::choose_algorithm(const BasicBoxesView<float, 3>&, detail::StatsScratch&);
template Algorithm choose_algorithm(const BasicBoxesView<float, 3>&);
template class BasicPairFinder<float, 3>;
template class BasicIndex<float, 3>;
template Algorithm detail::choose_algorithm(const BasicBoxesView<double, 2>&, detail::StatsScratch&);
template Algorithm choose_algorithm(const BasicBoxesView<double, 2>&);
template class BasicPairFinder<double, 2>;
template class BasicIndex<double, 2>;
template Algorithm detail::choose_algorithm(const BasicBoxesView<double, 3>&, detail::StatsScratch&);
template Algorithm choose_algorithm(const BasicBoxesView<double, 3>&);
template class BasicPairFinder<double, 3>;
template class BasicIndex<double, 3>;

}  // namespace broadphase
