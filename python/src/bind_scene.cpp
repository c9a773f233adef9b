// Scene: objects kept between frames with stable ids, types, filters and
// user values; contact events at each update; box, point and sphere
// queries, ray casts and box casts. A float32 Scene answers float64 query
// boxes and points exactly (float_query.hpp).

#include "bindings.hpp"
#include "float_query.hpp"
#include "numpy_boxes.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <broadphase/scene.hpp>

namespace broadphase_python {
namespace {

/// Every UpdateMode the header names (to_string gives it a name), so that
/// values added to the enum appear here without a change.
std::vector<std::pair<std::string, bp::UpdateMode>> update_modes() {
    std::vector<std::pair<std::string, bp::UpdateMode>> out;
    for (int v = 0; v < 256; ++v) {
        const auto m = static_cast<bp::UpdateMode>(v);
        const std::string name = bp::to_string(m);
        if (name.empty() || name == "?" || name == "unknown") continue;
        out.emplace_back(name, m);
    }
    return out;
}

std::string canonical_mode(std::string s) {
    std::replace(s.begin(), s.end(), '_', '-');
    return s;
}

bp::UpdateMode parse_update_mode(const std::string& name) {
    if (name == "incremental")
        raise_value("unknown update mode 'incremental': the incremental method is spelt 'multi_box_pruning'");
    std::string known;
    for (const auto& [n, m] : update_modes()) {
        if (canonical_mode(n) == canonical_mode(name)) return m;
        known += (known.empty() ? "'" : ", '") + n + "'";
    }
    raise_value("unknown update mode '" + name + "'; one of " + known);
}

bp::ObjectType parse_type(const std::string& s) {
    if (s == "dynamic") return bp::ObjectType::dynamic_object;
    if (s == "static") return bp::ObjectType::static_object;
    raise_value("object type must be 'dynamic' or 'static'; got '" + s + "'");
}

bp::Filter make_filter(std::uint64_t category, std::uint64_t mask, std::int32_t group) {
    bp::Filter f;
    f.category = category;
    f.mask = mask;
    f.group = group;
    return f;
}

class Scene {
public:
    explicit Scene(const std::string& dtype) {
        if (dtype == "float32") f_ = std::make_unique<bp::BasicScene<float, 3>>();
        else if (dtype == "float64") d_ = std::make_unique<bp::BasicScene<double, 3>>();
        else raise_value("dtype must be 'float32' or 'float64'; got '" + dtype + "'");
    }

    /// fn(scene) on the scene of whichever precision this one is.
    template <class F>
    decltype(auto) visit(F&& fn) {
        return f_ ? fn(*f_) : fn(*d_);
    }
    template <class F>
    decltype(auto) visit(F&& fn) const {
        return f_ ? fn(std::as_const(*f_)) : fn(std::as_const(*d_));
    }

    std::string dtype() const { return f_ ? "float32" : "float64"; }

    std::uint32_t add(py::handle box, const std::string& type, std::uint64_t user_value, std::uint64_t category,
                      std::uint64_t mask, std::int32_t group) {
        const bp::ObjectType t = parse_type(type);
        const bp::Filter filter = make_filter(category, mask, group);
        return visit([&](auto& s) {
            using B = typename std::decay_t<decltype(s)>::box_type;
            const B b = box_of<scalar_of<B>>(box, "box");
            std::unique_lock lock(mutex_);
            return s.add(b, t, user_value, filter);
        });
    }

    py::array add_batch(py::handle boxes, const std::string& type) {
        const bp::ObjectType t = parse_type(type);
        return visit([&](auto& s) {
            using B = typename std::decay_t<decltype(s)>::box_type;
            std::vector<B> bs = boxes_of<B>(boxes);
            std::vector<std::uint32_t> ids(bs.size());
            {
                py::gil_scoped_release nogil;
                std::unique_lock lock(mutex_);
                s.add(bs.data(), bs.size(), ids.data(), t);
            }
            return ids_array(ids);
        });
    }

    bool remove(std::uint32_t id) {
        std::unique_lock lock(mutex_);
        return visit([&](auto& s) { return s.remove(id); });
    }

    std::size_t remove_batch(py::handle ids_obj) {
        const std::vector<std::uint32_t> ids = ids_of(ids_obj, "ids");
        py::gil_scoped_release nogil;
        std::unique_lock lock(mutex_);
        return visit([&](auto& s) { return s.remove(ids.data(), ids.size()); });
    }

    bool move(std::uint32_t id, py::handle box) {
        return visit([&](auto& s) {
            using B = typename std::decay_t<decltype(s)>::box_type;
            const B b = box_of<scalar_of<B>>(box, "box");
            std::unique_lock lock(mutex_);
            return s.move(id, b);
        });
    }

    std::size_t move_batch(py::handle ids_obj, py::handle boxes) {
        const std::vector<std::uint32_t> ids = ids_of(ids_obj, "ids");
        return visit([&](auto& s) {
            using B = typename std::decay_t<decltype(s)>::box_type;
            std::vector<B> bs = boxes_of<B>(boxes);
            if (bs.size() != ids.size())
                raise_value("ids and boxes must have the same length; got " + std::to_string(ids.size()) + " ids and " +
                            std::to_string(bs.size()) + " boxes");
            py::gil_scoped_release nogil;
            std::unique_lock lock(mutex_);
            return s.move(ids.data(), bs.data(), bs.size());
        });
    }

    bool set_type(std::uint32_t id, const std::string& type) {
        const bp::ObjectType t = parse_type(type);
        std::unique_lock lock(mutex_);
        return visit([&](auto& s) { return s.set_type(id, t); });
    }
    bool set_filter(std::uint32_t id, std::uint64_t category, std::uint64_t mask, std::int32_t group) {
        std::unique_lock lock(mutex_);
        return visit([&](auto& s) { return s.set_filter(id, make_filter(category, mask, group)); });
    }
    bool set_user_value(std::uint32_t id, std::uint64_t v) {
        std::unique_lock lock(mutex_);
        return visit([&](auto& s) { return s.set_user_value(id, v); });
    }

    bool contains(std::uint32_t id) const {
        std::shared_lock lock(mutex_);
        return visit([&](const auto& s) { return s.contains(id); });
    }
    std::size_t size() const {
        std::shared_lock lock(mutex_);
        return visit([&](const auto& s) { return s.size(); });
    }

    void require(std::uint32_t id) const {
        if (!contains(id)) throw py::key_error("no live object with id " + std::to_string(id));
    }

    py::array box(std::uint32_t id) const {
        require(id);
        std::shared_lock lock(mutex_);
        return visit([&](const auto& s) -> py::array {
            const auto b = s.box(id);
            using T = typename decltype(b.min)::value_type;
            py::array_t<T> a(6);
            for (int k = 0; k < 3; ++k) a.mutable_data()[k] = b.min[k], a.mutable_data()[3 + k] = b.max[k];
            return a;
        });
    }
    std::string type(std::uint32_t id) const {
        require(id);
        std::shared_lock lock(mutex_);
        return visit([&](const auto& s) { return s.type(id) == bp::ObjectType::static_object ? "static" : "dynamic"; });
    }
    py::tuple filter(std::uint32_t id) const {
        require(id);
        std::shared_lock lock(mutex_);
        return visit([&](const auto& s) {
            const bp::Filter f = s.filter(id);
            return py::make_tuple(f.category, f.mask, f.group);
        });
    }
    std::uint64_t user_value(std::uint32_t id) const {
        require(id);
        std::shared_lock lock(mutex_);
        return visit([&](const auto& s) { return s.user_value(id); });
    }

    void set_options(const std::string& algorithm, long threads) {
        const bp::Options o = make_options(algorithm, threads, false, std::nullopt);
        std::unique_lock lock(mutex_);
        visit([&](auto& s) { s.set_options(o); });
    }
    void set_update_mode(const std::string& mode) {
        const bp::UpdateMode m = parse_update_mode(mode);
        std::unique_lock lock(mutex_);
        visit([&](auto& s) { s.set_update_mode(m); });
        mode_ = m;
    }
    std::string update_mode() const { return bp::to_string(mode_); }
    std::string last_method() const {
        std::shared_lock lock(mutex_);
        return visit([&](const auto& s) { return std::string(bp::to_string(s.last_method())); });
    }
    bool set_margin(double margin) {
        std::unique_lock lock(mutex_);
        return visit([&](auto& s) {
            using B = typename std::decay_t<decltype(s)>::box_type;
            return s.set_margin(static_cast<scalar_of<B>>(margin));
        });
    }
    double margin() const {
        std::shared_lock lock(mutex_);
        return visit([&](const auto& s) { return static_cast<double>(s.margin()); });
    }
    void set_fat_pairs(bool on) {
        std::unique_lock lock(mutex_);
        visit([&](auto& s) { s.set_fat_pairs(on); });
    }
    bool fat_pairs() const {
        std::shared_lock lock(mutex_);
        return visit([&](const auto& s) { return s.fat_pairs(); });
    }

    std::size_t update() {
        bp::Report r;
        {
            py::gil_scoped_release nogil;
            std::unique_lock lock(mutex_);
            r = visit([&](auto& s) { return s.update(); });
        }
        if (r.status == bp::Status::out_of_memory) throw std::bad_alloc();
        if (!r.ok()) throw std::runtime_error(std::string("update failed: ") + bp::to_string(r.status));
        return static_cast<std::size_t>(r.pairs);
    }

    py::array pairs() const {
        std::shared_lock lock(mutex_);
        return visit([&](const auto& s) { return pairs_copy(s.pairs()); });
    }
    py::array begun() const {
        std::shared_lock lock(mutex_);
        return visit([&](const auto& s) { return pairs_copy(s.begun()); });
    }
    py::array ended() const {
        std::shared_lock lock(mutex_);
        return visit([&](const auto& s) { return pairs_copy(s.ended()); });
    }

    // Queries (sorted ids). query_box and query_point are exact for float64
    // input on a float32 scene too (FloatQuery: never rounded to nearest).
    py::array query_box(py::handle box) const {
        const std::array<double, 6> q = box_values_of(box, "box");
        return visit([&](const auto& s) {
            using B = typename std::decay_t<decltype(s)>::box_type;
            if constexpr (std::is_same_v<scalar_of<B>, float>) {
                const FloatQuery fq = float_query(q.data());
                return collect([&](auto& out) {
                    float_query_hits(
                        fq,
                        [&](const B& b, std::vector<std::uint32_t>& v) {
                            v.clear();
                            s.for_each_overlap(b, [&](std::uint32_t id) { v.push_back(id); });
                        },
                        out);
                });
            } else {
                B b;
                for (int k = 0; k < 3; ++k) b.min[k] = q[k], b.max[k] = q[3 + k];
                return collect([&](auto& out) { s.for_each_overlap(b, [&](std::uint32_t id) { out.push_back(id); }); });
            }
        });
    }
    py::array query_point(py::handle point) const {
        const std::array<double, 3> p = vec_of<double>(point, "point");
        return visit([&](const auto& s) {
            using B = typename std::decay_t<decltype(s)>::box_type;
            if constexpr (std::is_same_v<scalar_of<B>, float>) {
                // The point as the box [p, p]: its FloatQuery's boxes are points too.
                const double q[6] = {p[0], p[1], p[2], p[0], p[1], p[2]};
                const FloatQuery fq = float_query(q);
                return collect([&](auto& out) {
                    float_query_hits(
                        fq,
                        [&](const B& b, std::vector<std::uint32_t>& v) {
                            v.clear();
                            s.for_each_containing(b.min, [&](std::uint32_t id) { v.push_back(id); });
                        },
                        out);
                });
            } else {
                return collect([&](auto& out) { s.for_each_containing(p, [&](std::uint32_t id) { out.push_back(id); }); });
            }
        });
    }
    py::array query_sphere(py::handle center, double radius) const {
        return visit([&](const auto& s) {
            using B = typename std::decay_t<decltype(s)>::box_type;
            using T = scalar_of<B>;
            const auto c = vec_of<T>(center, "center");
            return collect([&](auto& out) {
                s.for_each_overlapping_sphere(c, static_cast<T>(radius), [&](std::uint32_t id) { out.push_back(id); });
            });
        });
    }
    py::object ray_cast(py::handle origin, py::handle direction, double max_t) const {
        return visit([&](const auto& s) {
            using T = scalar_of<typename std::decay_t<decltype(s)>::box_type>;
            const auto o = vec_of<T>(origin, "origin");
            const auto d = vec_of<T>(direction, "direction");
            return first_hit(s, [&] { return s.ray_cast(o, d, static_cast<T>(max_t)); });
        });
    }
    py::tuple ray_hits(py::handle origin, py::handle direction, double max_t) const {
        return visit([&](const auto& s) {
            using B = typename std::decay_t<decltype(s)>::box_type;
            using T = scalar_of<B>;
            const auto o = vec_of<T>(origin, "origin");
            const auto d = vec_of<T>(direction, "direction");
            std::vector<std::pair<double, std::uint32_t>> hits;
            {
                py::gil_scoped_release nogil;
                std::shared_lock lock(mutex_);
                s.for_each_ray_hit(o, d, static_cast<T>(max_t), [&](std::uint32_t id, T t) { hits.emplace_back(double(t), id); });
                std::sort(hits.begin(), hits.end());
            }
            py::array_t<std::uint32_t> ids(static_cast<py::ssize_t>(hits.size()));
            py::array_t<double> ts(static_cast<py::ssize_t>(hits.size()));
            for (std::size_t i = 0; i < hits.size(); ++i) ids.mutable_data()[i] = hits[i].second, ts.mutable_data()[i] = hits[i].first;
            return py::make_tuple(ids, ts);
        });
    }
    py::object box_cast(py::handle box, py::handle displacement) const {
        return visit([&](const auto& s) {
            using T = scalar_of<typename std::decay_t<decltype(s)>::box_type>;
            const auto b = box_of<T>(box, "box");
            const auto d = vec_of<T>(displacement, "displacement");
            return first_hit(s, [&] { return s.box_cast(b, d); });
        });
    }

private:
    /// A cast's hit, run without the GIL under the read lock: (id, t), or None.
    template <class S, class Cast>
    py::object first_hit(const S&, Cast&& cast) const {  // (S: the scene type)
        typename S::Hit h;
        {
            py::gil_scoped_release nogil;
            std::shared_lock lock(mutex_);
            h = cast();
        }
        if (h.id == S::null) return py::none();
        return py::make_tuple(h.id, static_cast<double>(h.t));
    }

    template <class B>
    static std::vector<B> boxes_of(py::handle boxes) {
        using T = scalar_of<B>;
        Rows r = box_rows_of(boxes, "boxes", std::is_same_v<T, double>, 3, "a Scene holds 3-D boxes");
        std::vector<B> out(r.n);
        if (r.is_double) {
            const double* p = data_of<double>(r);
            for (std::size_t i = 0; i < r.n; ++i)
                for (int k = 0; k < 3; ++k) out[i].min[k] = static_cast<T>(p[6 * i + k]), out[i].max[k] = static_cast<T>(p[6 * i + 3 + k]);
        } else {
            const float* p = data_of<float>(r);
            for (std::size_t i = 0; i < r.n; ++i)
                for (int k = 0; k < 3; ++k) out[i].min[k] = p[6 * i + k], out[i].max[k] = p[6 * i + 3 + k];
        }
        return out;
    }

    /// Runs fill(ids) without the GIL under the shared lock; sorted ids.
    template <class F>
    py::array collect(F&& fill) const {
        std::vector<std::uint32_t> ids;
        {
            py::gil_scoped_release nogil;
            std::shared_lock lock(mutex_);
            fill(ids);
            std::sort(ids.begin(), ids.end());
        }
        return ids_array(ids);
    }

    mutable std::shared_mutex mutex_;
    std::unique_ptr<bp::BasicScene<float, 3>> f_;
    std::unique_ptr<bp::BasicScene<double, 3>> d_;
    bp::UpdateMode mode_ = bp::UpdateMode::automatic;
};

}  // namespace

void bind_scene(py::module_& m) {
    py::class_<Scene>(m, "Scene", R"doc(Objects kept between frames, with contact events (broadphase::Scene).

Scene(dtype='float32'): 'float32' or 'float64' boxes. Objects have stable
integer ids, a type ('dynamic' or 'static': static objects never meet each
other), a user value and a filter (category, mask, group: two objects meet
iff each one's mask has a bit of the other's category and they do not share
a nonzero group). After update(), pairs() is the current set of touching
pairs (a < b, sorted), begun() and ended() the differences from the set of
the update before. An invalid box (NaN, min > max) meets nothing.
A float32 scene stores float32 boxes: add/move round float64 boxes to the
nearest float32, and pairs are exact for the stored boxes. Its query_box and
query_point answer float64 input exactly against the stored boxes (never
rounded to nearest); query_sphere, ray_cast, ray_hits and box_cast compute
in float32 (float64 input rounded to nearest first). Use dtype='float64' for
float64 throughout.)doc")
        .def(py::init<const std::string&>(), py::arg("dtype") = "float32")
        .def("add", &Scene::add, py::arg("box"), py::arg("type") = "dynamic", py::arg("user_value") = 0,
             py::arg("category") = 1, py::arg("mask") = ~std::uint64_t(0), py::arg("group") = 0,
             "Adds one object; returns its id.")
        .def("add_batch", &Scene::add_batch, py::arg("boxes"), py::arg("type") = "dynamic",
             "Adds (N, 6) boxes of one type; returns their ids (uint32 array, ids[i] for boxes[i]).")
        .def("remove", &Scene::remove, py::arg("id"), "Removes an object; False if id is not live. Its pairs end at the next update().")
        .def("remove_batch", &Scene::remove_batch, py::arg("ids"), "Removes objects; returns how many ids were live.")
        .def("move", &Scene::move, py::arg("id"), py::arg("box"), "Gives an object its new box; False if id is not live.")
        .def("move_batch", &Scene::move_batch, py::arg("ids"), py::arg("boxes"),
             "Moves objects (ids[i] gets boxes[i]); returns how many ids were live.")
        .def("set_type", &Scene::set_type, py::arg("id"), py::arg("type"), "'dynamic' or 'static'.")
        .def("set_filter", &Scene::set_filter, py::arg("id"), py::arg("category") = 1, py::arg("mask") = ~std::uint64_t(0),
             py::arg("group") = 0)
        .def("set_user_value", &Scene::set_user_value, py::arg("id"), py::arg("value"))
        .def("contains", &Scene::contains, py::arg("id"))
        .def("__contains__", &Scene::contains)
        .def("__len__", &Scene::size)
        .def("__repr__",
             [](const Scene& s) {
                 const std::size_t n = s.size();
                 return "<broadphase.Scene " + std::to_string(n) + (n == 1 ? " object, " : " objects, ") + s.dtype() +
                        ", update mode " + s.update_mode() + ">";
             })
        .def("box", &Scene::box, py::arg("id"), "The object's box (six numbers). KeyError if id is not live.")
        .def("type", &Scene::type, py::arg("id"))
        .def("filter", &Scene::filter, py::arg("id"), "(category, mask, group)")
        .def("user_value", &Scene::user_value, py::arg("id"))
        .def("set_options", &Scene::set_options, py::arg("algorithm") = "automatic", py::arg("threads") = 0,
             "Algorithm and threads of the full rebuilds.")
        .def("set_update_mode", &Scene::set_update_mode, py::arg("mode"),
             "How update() finds the pairs: one of update_modes() ('automatic' by default).")
        .def_property_readonly("update_mode", &Scene::update_mode)
        .def_property_readonly("last_method", &Scene::last_method, "The method the last update ran.")
        .def_static(
            "update_modes",
            []() {
                std::vector<std::string> names;
                for (const auto& [n, mode] : update_modes()) names.push_back(n);
                return names;
            },
            "The names set_update_mode accepts ('-' and '_' are interchangeable).")
        .def("set_margin", &Scene::set_margin, py::arg("margin"),
             "Margin of the fat boxes (default 0.1); False unless finite and >= 0. Pairs stay exact unless "
             "fat pairs are on.")
        .def_property_readonly("margin", &Scene::margin)
        .def_property("fat_pairs", &Scene::fat_pairs, &Scene::set_fat_pairs,
                      "False (default): pairs exact on the tight boxes. True: pairs of the fat boxes (each box "
                      "grown by the margin, grown again only when it leaves), a superset that moves inside the "
                      "margin do not change, as Bullet's and Box2D's pair caches.")
        .def("update", &Scene::update,
             "Finds the current pairs and the events since the last update; returns the number of current pairs.")
        .def("pairs", &Scene::pairs, "The last update's pairs ((K, 2) uint32, a < b, sorted; a copy).")
        .def("begun", &Scene::begun, "Pairs that began at the last update (sorted; a copy).")
        .def("ended", &Scene::ended, "Pairs that ended at the last update (removed objects' pairs too; sorted; a copy).")
        .def("query_box", &Scene::query_box, py::arg("box"), "Ids of the objects whose boxes overlap box (sorted).")
        .def("query_point", &Scene::query_point, py::arg("point"), "Ids of the objects whose boxes contain point (sorted).")
        .def("query_sphere", &Scene::query_sphere, py::arg("center"), py::arg("radius"),
             "Ids of the objects whose boxes the closed sphere touches (sorted).")
        .def("ray_cast", &Scene::ray_cast, py::arg("origin"), py::arg("direction"),
             py::arg("max_t") = std::numeric_limits<double>::infinity(),
             "The first object hit along origin + t * direction, t in [0, max_t]: (id, t), or None.")
        .def("ray_hits", &Scene::ray_hits, py::arg("origin"), py::arg("direction"),
             py::arg("max_t") = std::numeric_limits<double>::infinity(),
             "Every object the ray hits: (ids, ts), ordered by t.")
        .def("box_cast", &Scene::box_cast, py::arg("box"), py::arg("displacement"),
             "The first object the box touches when swept along displacement: (id, t), or None.");
}

}  // namespace broadphase_python
