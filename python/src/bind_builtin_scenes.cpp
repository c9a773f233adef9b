// builtin_scene: the CLI's built-in scenes ('uniform:100000', 'dense20k',
// ...) as (N, 6) float32 arrays, for the tests and the benchmarks.

#include "bindings.hpp"

#include <string>

#include <broadphase_fixtures/scenes.hpp>

namespace broadphase_python {
namespace {

py::array builtin_scene(const std::string& name) {
    bp::Boxes boxes;
    bool ok;
    {
        py::gil_scoped_release nogil;
        ok = broadphase_fixtures::make_scene(name, boxes);
    }
    if (!ok) {
        std::string names;
        for (const auto& n : broadphase_fixtures::scene_names()) names += (names.empty() ? "" : ", ") + n;
        raise_value("unknown scene '" + name + "'; one of " + names);
    }
    py::array_t<float> a({static_cast<py::ssize_t>(boxes.size()), py::ssize_t(6)});
    float* p = a.mutable_data();
    for (std::size_t i = 0; i < boxes.size(); ++i)
        for (int k = 0; k < 3; ++k) p[6 * i + k] = boxes.min(k)[i], p[6 * i + 3 + k] = boxes.max(k)[i];
    return a;
}

}  // namespace

void bind_builtin_scenes(py::module_& m) {
    m.def("builtin_scene", &builtin_scene, py::arg("name"),
          "A built-in scene of the CLI ('uniform:100000', 'dense20k', ...) as an (N, 6) float32 array.");
}

}  // namespace broadphase_python
