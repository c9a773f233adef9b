// Index: a built set of boxes answering box queries, one at a time or in
// batches, exactly in the query's precision (float_query.hpp).

#include "bindings.hpp"
#include "float_query.hpp"
#include "numpy_boxes.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace broadphase_python {
namespace {

class Index {
public:
    Index(py::handle boxes, const std::string& algorithm, long threads, OnInvalid on_invalid) {
        const bp::Options o = make_options(algorithm, threads, false, std::nullopt);
        Rows a = box_rows_of(boxes, "boxes");
        is_double_ = a.is_double;
        dim_ = a.dim;
        n_ = a.n;
        bp::Report r;
        {
            py::gil_scoped_release nogil;
            if (dim_ == 2) r = is_double_ ? build<double, 2>(a, o) : build<float, 2>(a, o);
            else r = is_double_ ? build<double, 3>(a, o) : build<float, 3>(a, o);
        }
        check_report(r, on_invalid, "boxes", "");
    }

    py::array query(py::handle box, bool sorted) const {
        std::vector<std::uint32_t> hits;
        if (dim_ == 2) query_dim<2>(box, hits, sorted);
        else query_dim<3>(box, hits, sorted);
        return ids_array(hits);
    }

    py::array query_batch(py::handle boxes, const bp::Options& o, OnInvalid on_invalid) const {
        Rows q = box_rows_of(boxes, "boxes", is_double_, dim_, why());
        std::vector<bp::Pair> out;
        bp::Report r;
        {
            py::gil_scoped_release nogil;
            if (dim_ == 2) r = is_double_ ? batch<double, 2>(q, out, o) : batch<float, 2>(q, out, o);
            else r = is_double_ ? batch<double, 3>(q, out, o) : batch<float, 3>(q, out, o);
        }
        check_report(r, on_invalid, "boxes", "", &out);
        return pairs_array(std::move(out));
    }

    std::size_t size() const { return n_; }
    int dim() const { return dim_; }
    std::string algorithm() const {
        bp::Algorithm a;
        if (dim_ == 2) a = is_double_ ? index<double, 2>().algorithm() : index<float, 2>().algorithm();
        else a = is_double_ ? index<double, 3>().algorithm() : index<float, 3>().algorithm();
        return bp::to_string(a);
    }
    std::string dtype() const { return is_double_ ? "float64" : "float32"; }
    std::string repr() const {
        return "<broadphase.Index " + std::to_string(n_) + (n_ == 1 ? " box, " : " boxes, ") + std::to_string(dim_) + "-D " +
               dtype() + ", " + algorithm() + ">";
    }

private:
    std::string why() const { return "the index is " + dim_words(dim_); }

    template <class T, int D>
    std::unique_ptr<bp::BasicIndex<T, D>>& slot() {
        if constexpr (D == 2) {
            if constexpr (std::is_same_v<T, float>) return f2_;
            else return d2_;
        } else {
            if constexpr (std::is_same_v<T, float>) return f3_;
            else return d3_;
        }
    }

    template <class T, int D>
    const bp::BasicIndex<T, D>& index() const {
        return *const_cast<Index*>(this)->slot<T, D>();
    }

    template <class T, int D>
    bp::Report build(const Rows& a, const bp::Options& o) {
        bp::BasicBoxes<T, D> boxes;
        fill_boxes(boxes, data_of<T>(a), a.n, o.threads);
        auto& idx = slot<T, D>();
        idx = std::make_unique<bp::BasicIndex<T, D>>();
        return idx->build(boxes, o);
    }

    template <int D>
    void query_dim(py::handle box, std::vector<std::uint32_t>& hits, bool sorted) const {
        if (is_double_) {
            const bp::BasicBox<double, D> q = box_of<double, D>(box, "box", why());
            py::gil_scoped_release nogil;
            index<double, D>().query(q, hits);
        } else {  // float32 index: the query is taken as float64 and answered exactly (FloatQuery)
            const std::array<double, 2 * D> q = box_values_of<D>(box, "box", why());
            py::gil_scoped_release nogil;
            const bp::BasicIndex<float, D>& f = index<float, D>();
            float_query_hits(float_query<D>(q.data()), [&](const bp::BasicBox<float, D>& b, auto& out) { f.query(b, out); },
                             hits);
        }
        if (sorted) std::sort(hits.begin(), hits.end());
    }

    template <class T, int D>
    bp::Report batch(const Rows& q, std::vector<bp::Pair>& out, const bp::Options& o) const {
        if constexpr (std::is_same_v<T, float>)
            if (q.is_double) return float_index_double_batch<D>(q, out, o);
        bp::BasicBoxes<T, D> boxes;  // same dtype as the index (a float64 index converts float32 queries exactly)
        fill_boxes(boxes, data_of<T>(q), q.n, o.threads);
        return index<T, D>().query_batch(boxes, out, o);
    }

    /// A float32 index given float64 queries: exact, never rounded to nearest.
    /// Each query becomes a FloatQuery: rounded inwards it hits exactly what
    /// the float64 query hits, in one batch; queries with a gap axis (no float
    /// between their min and max there) run a second batch of their `b` boxes,
    /// and their pairs from the first are kept only where the second has them.
    template <int D>
    bp::Report float_index_double_batch(const Rows& q, std::vector<bp::Pair>& out, const bp::Options& o) const {
        const bp::BasicIndex<float, D>& f = index<float, D>();
        const double* rows = data_of<double>(q);
        bp::BasicBoxes<float, D> a(q.n), b;
        std::vector<std::uint32_t> gap_query;  // the query index of each row of b
        for (std::size_t i = 0; i < q.n; ++i) {
            const BasicFloatQuery<D> fq = float_query<D>(rows + 2 * D * i);
            a.set(i, fq.a);
            if (fq.gap) {
                b.push_back(fq.b);
                gap_query.push_back(static_cast<std::uint32_t>(i));
            }
        }
        if (gap_query.empty()) return f.query_batch(a, out, o);

        bp::Options unsorted = o;
        unsorted.sorted = false;
        std::vector<bp::Pair> second;
        bp::Report rb = f.query_batch(b, second, unsorted);
        bp::Report r = f.query_batch(a, out, o);
        if (r.status == bp::Status::ok && rb.status == bp::Status::ok) {
            for (bp::Pair& p : second) p.a = gap_query[p.a];
            bp::sort_pairs(second);
            std::vector<char> is_gap(q.n, 0);
            for (std::uint32_t i : gap_query) is_gap[i] = 1;
            out.erase(std::remove_if(out.begin(), out.end(),
                                     [&](const bp::Pair& p) {
                                         return is_gap[p.a] && !std::binary_search(second.begin(), second.end(), p);
                                     }),
                      out.end());
            r.pairs = out.size();
            return r;
        }
        if (r.status != bp::Status::pair_budget_exceeded && r.status != bp::Status::ok) return r;
        if (rb.status != bp::Status::pair_budget_exceeded && rb.status != bp::Status::ok) return rb;
        // Past max_pairs before the filter: the exact pairs in the batch's own
        // order (that of the answer without a budget), the first max_pairs of
        // them; a gap query's `b` hits are looked up when its first pair
        // comes. Memory: the output (at most max_pairs) and those hits.
        out.clear();
        constexpr std::uint32_t none = ~std::uint32_t(0);
        std::vector<std::uint32_t> gap_of(q.n, none);  // the gap query's row in b_hits
        for (std::size_t g = 0; g < gap_query.size(); ++g) gap_of[gap_query[g]] = static_cast<std::uint32_t>(g);
        std::vector<std::vector<std::uint32_t>> b_hits(gap_query.size());
        std::vector<char> looked_up(gap_query.size(), 0);
        bool over = false;
        bp::Report exact = f.for_each_overlap_batch(a, [&](std::uint32_t i, std::uint32_t h) {
            const std::uint32_t g = gap_of[i];
            if (g != none) {
                std::vector<std::uint32_t>& v = b_hits[g];
                if (!looked_up[g]) {
                    f.query(float_query<D>(rows + 2 * D * std::size_t(i)).b, v);
                    std::sort(v.begin(), v.end());
                    looked_up[g] = 1;
                }
                if (!std::binary_search(v.begin(), v.end(), h)) return true;
            }
            if (out.size() >= o.max_pairs) {
                over = true;
                return false;
            }
            out.push_back(bp::Pair{i, h});
            return true;
        });
        if (exact.status == bp::Status::stopped_by_callback || exact.status == bp::Status::ok)
            exact.status = over ? bp::Status::pair_budget_exceeded : bp::Status::ok;
        if (o.sorted) bp::sort_pairs(out);
        exact.pairs = out.size();
        return exact;
    }

    bool is_double_ = false;
    int dim_ = 3;
    std::size_t n_ = 0;
    std::unique_ptr<bp::BasicIndex<float, 2>> f2_;
    std::unique_ptr<bp::BasicIndex<double, 2>> d2_;
    std::unique_ptr<bp::BasicIndex<float, 3>> f3_;
    std::unique_ptr<bp::BasicIndex<double, 3>> d3_;
};

}  // namespace

void bind_index(py::module_& m) {
    py::class_<Index>(m, "Index", R"doc(A built set of boxes answering box queries.

Index(boxes, algorithm='automatic', threads=0, invalid='warn'): builds over a
copy of boxes ((N, 6), or (N, 4) for a 2-D index, as find_pairs). Queries have the
index's dimension: six numbers (or (M, 6) rows) for a 3-D index, four (or
(M, 4)) for a 2-D one; the other gives a ValueError. float32 boxes give a float32 index, any
other dtype a float64 one. Queries are exact in their own precision: float32
queries on a float64 index widen exactly, and float64 queries on a float32
index are never rounded to nearest float32 (a query one float64 ulp clear of
a built box does not hit it; a query with min > max by one ulp is invalid).
Queries may run from many threads at once.)doc")
        .def(py::init([](py::handle boxes, const std::string& algorithm, long threads, const std::string& invalid) {
                 return std::make_unique<Index>(boxes, algorithm, threads, parse_invalid(invalid));
             }),
             py::arg("boxes"), py::arg("algorithm") = "automatic", py::arg("threads") = 0, py::arg("invalid") = "warn")
        .def("query", &Index::query, py::arg("box"), py::arg("sorted") = false,
             "Indices (uint32 array) of the built boxes overlapping one box (six numbers, or four for a 2-D index). "
             "An invalid query box overlaps nothing.")
        .def(
            "query_batch",
            [](const Index& idx, py::handle boxes, long threads, bool sorted, std::optional<std::uint64_t> max_pairs,
               const std::string& invalid) {
                return idx.query_batch(boxes, make_options("automatic", threads, sorted, max_pairs), parse_invalid(invalid));
            },
            py::arg("boxes"), py::arg("threads") = 0, py::arg("sorted") = false, py::arg("max_pairs") = py::none(),
            py::arg("invalid") = "warn",
            "(K, 2) uint32 array of (query index, built index) for every query box in boxes ((M, 6), or (M, 4) for a "
            "2-D index).")
        .def("__len__", &Index::size)
        .def_property_readonly("algorithm", &Index::algorithm, "The algorithm the index was built with.")
        .def_property_readonly("dtype", &Index::dtype, "'float32' or 'float64'.")
        .def_property_readonly("dim", &Index::dim, "2 (built from (N, 4) boxes) or 3 ((N, 6)).")
        .def("__repr__", &Index::repr);
}

}  // namespace broadphase_python
