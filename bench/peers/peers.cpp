// The peer registry: which peers this build has (BROADPHASE_PEER_* are set by
// bench/peers/CMakeLists.txt for the libraries it found).
#include "peers.hpp"

#include <cstdint>

#include "registry.hpp"

namespace broadphase_peers {
namespace {

struct Entry {
    const char* name;
    std::unique_ptr<Peer> (*make)();
    std::string (*version)();
};

// In the order benchmarks run them: the slowest last.
const Entry entries[] = {
#ifdef BROADPHASE_PEER_BULLET
    {"bullet-dbvt", make_bullet_dbvt_peer, bullet_version},
#endif
#ifdef BROADPHASE_PEER_FCL
    {"fcl", make_fcl_peer, fcl_version},
#endif
#ifdef BROADPHASE_PEER_CGAL
    {"cgal", make_cgal_peer, cgal_version},
#endif
    {nullptr, nullptr, nullptr},  // keeps the array non-empty when no peer is built
};

const Entry* find(const std::string& name) {
    for (const Entry& e : entries)
        if (e.name && name == e.name) return &e;
    return nullptr;
}

}  // namespace

std::vector<std::string> peer_names() {
    std::vector<std::string> names;
    for (const Entry& e : entries)
        if (e.name) names.push_back(e.name);
    return names;
}

bool is_peer_name(const std::string& name) { return name == "cgal" || name == "fcl" || name == "bullet-dbvt"; }

std::unique_ptr<Peer> make_peer(const std::string& name) {
    const Entry* e = find(name);
    return e ? e->make() : nullptr;
}

std::string peer_version(const std::string& name) {
    const Entry* e = find(name);
    return e ? e->version() : std::string();
}

std::size_t peer_pair_limit(const std::string& name) {
    return name == "bullet-dbvt" ? std::size_t(20000000) : SIZE_MAX;
}

bool run_peer(const std::string& name, const broadphase::Boxes& boxes, std::vector<broadphase::Pair>& pairs_out) {
    std::unique_ptr<Peer> peer = make_peer(name);
    if (!peer) return false;
    peer->load(boxes);
    peer->find_pairs(pairs_out);
    peer->clear();
    return true;
}

}  // namespace broadphase_peers
