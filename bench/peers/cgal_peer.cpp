// CGAL's box_self_intersection_d as a peer (bench/peers/peers.hpp): float
// boxes carrying our index as their id, the closed topology (touching
// counts, CGAL's default) and the default cutoff (10), on one thread
// (Sequential_tag). CGAL sorts the range it is given, so each run starts
// from a copy of the loaded boxes in their original order.
#include <cstdint>
#include <string>
#include <vector>

#include <CGAL/box_intersection_d.h>
#include <CGAL/version.h>

#include "registry.hpp"

namespace broadphase_peers {
namespace {

/// A CGAL box whose id is our box's index: ids break ties between equal
/// coordinates and tell CGAL which boxes are the same in a self-intersection.
class IndexedBox : public CGAL::Box_intersection_d::Box_d<float, 3, CGAL::Box_intersection_d::ID_NONE> {
public:
    using Base = CGAL::Box_intersection_d::Box_d<float, 3, CGAL::Box_intersection_d::ID_NONE>;
    IndexedBox() = default;
    IndexedBox(float lo[3], float hi[3], std::uint32_t index) : Base(lo, hi), index_(index) {}
    std::size_t id() const { return index_; }

private:
    std::uint32_t index_ = 0;
};

class CgalPeer : public Peer {
public:
    void load(const broadphase::Boxes& boxes) override {
        loaded_.clear();
        loaded_.reserve(boxes.size());
        for (std::size_t i = 0; i < boxes.size(); ++i) {
            if (!usable(boxes, i)) continue;
            const broadphase::Box b = boxes[i];
            float lo[3] = {b.min[0], b.min[1], b.min[2]};
            float hi[3] = {b.max[0], b.max[1], b.max[2]};
            loaded_.emplace_back(lo, hi, static_cast<std::uint32_t>(i));
        }
        work_ = loaded_;
    }

    void find_pairs(std::vector<broadphase::Pair>& out) override {
        if (used_) work_ = loaded_;  // a second run without clear(): start unsorted again
        used_ = true;
        out.clear();
        CGAL::box_self_intersection_d<CGAL::Sequential_tag>(
            work_.begin(), work_.end(), [&out](const IndexedBox& a, const IndexedBox& b) {
                out.push_back(ordered_pair(static_cast<std::uint32_t>(a.id()), static_cast<std::uint32_t>(b.id())));
            });
    }

    void clear() override {
        work_ = loaded_;
        used_ = false;
    }

private:
    std::vector<IndexedBox> loaded_, work_;
    bool used_ = false;
};

}  // namespace

std::unique_ptr<Peer> make_cgal_peer() { return std::make_unique<CgalPeer>(); }

std::string cgal_version() {
    const long nr = CGAL_VERSION_NR;  // 1MMmmbiiii: major, minor, bug-fix, release
    return "CGAL " + std::to_string(nr / 10000000 % 100) + "." + std::to_string(nr / 100000 % 100) + "." +
           std::to_string(nr / 10000 % 10);
}

}  // namespace broadphase_peers
