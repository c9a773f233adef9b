// The compiled library: the neighbour list (<broadphase/neighbor_list.hpp>)
// for float and double (neighbor_list/neighbor_list_impl.hpp, with the cell
// list). Its members are named one by one, not the class: the inline ones
// (the argument checks) stay in the caller's translation unit.
#include <broadphase/neighbor_list.hpp>
#include "neighbor_list/neighbor_list_impl.hpp"

namespace broadphase {

template BasicNeighborList<float>::BasicNeighborList(const NeighborListOptions&, BasicNeighborList<float>::Allocate);
template BasicNeighborList<float>::~BasicNeighborList();
template BasicNeighborList<float>::BasicNeighborList(BasicNeighborList<float>&&) noexcept;
template BasicNeighborList<float>& BasicNeighborList<float>::operator=(BasicNeighborList<float>&&) noexcept;
template bool BasicNeighborList<float>::update(const SphereView<float>&);
template Report BasicNeighborList<float>::build(const SphereView<float>&);
template std::vector<std::uint32_t> BasicNeighborList<float>::spatial_order() const;
template BasicNeighborList<double>::BasicNeighborList(const NeighborListOptions&, BasicNeighborList<double>::Allocate);
template BasicNeighborList<double>::~BasicNeighborList();
template BasicNeighborList<double>::BasicNeighborList(BasicNeighborList<double>&&) noexcept;
template BasicNeighborList<double>& BasicNeighborList<double>::operator=(BasicNeighborList<double>&&) noexcept;
template bool BasicNeighborList<double>::update(const SphereView<double>&);
template Report BasicNeighborList<double>::build(const SphereView<double>&);
template std::vector<std::uint32_t> BasicNeighborList<double>::spatial_order() const;

}  // namespace broadphase
