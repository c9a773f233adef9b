// Where the cell list (cell_list.hpp) and the sphere finder (spheres.hpp)
// put their pairs: a std::vector of the caller's, or a LargeArray that the
// Python module hands to numpy. Apart from the cell list, so that
// spheres.hpp declares its calls without it.
#pragma once

#include <cstddef>
#include <vector>

#include "../pairs.hpp"
#include "../large_array.hpp"

namespace broadphase {
namespace detail {

/// Where CellList::pairs (and the sphere finder) put their pairs: a block
/// of memory grown on demand. A vector of the caller's (VectorPairOutput)
/// or a LargeArray that becomes a numpy array (LargePairOutput).
class PairOutput {
public:
    virtual ~PairOutput() = default;
    /// Room for n pairs, the first `keep` kept; returns the block. Throws
    /// std::bad_alloc.
    virtual Pair* reserve(std::size_t n, std::size_t keep) = 0;
    /// The output is the first n pairs (n <= what was reserved).
    virtual void finish(std::size_t n) = 0;
    /// Whether one task may write straight in, growing it as it goes
    /// (cheap where growing copies nothing).
    virtual bool direct() const = 0;
};

/// Into a std::vector<Pair> of the caller's: sized once, the pairs copied in.
class VectorPairOutput final : public PairOutput {
public:
    explicit VectorPairOutput(std::vector<Pair>& v) : v_(v) {}
    Pair* reserve(std::size_t n, std::size_t keep) override {
        if (keep < v_.size()) v_.resize(keep);
        reserve_large(v_, n);
        v_.resize(n);
        return v_.data();
    }
    void finish(std::size_t n) override { v_.resize(n); }
    bool direct() const override { return false; }

private:
    std::vector<Pair>& v_;
};

/// Into a LargeArray<Pair>: written once, straight, grown without copies.
class LargePairOutput final : public PairOutput {
public:
    explicit LargePairOutput(LargeArray<Pair>& a) : a_(a) {}
    Pair* reserve(std::size_t n, std::size_t keep) override {
        a_.set_size(keep < a_.size() ? keep : a_.size());
        a_.reserve(n);
        a_.set_size(n);
        return a_.data();
    }
    void finish(std::size_t n) override { a_.set_size(n); }
    bool direct() const override { return true; }

private:
    LargeArray<Pair>& a_;
};

}  // namespace detail
}  // namespace broadphase
