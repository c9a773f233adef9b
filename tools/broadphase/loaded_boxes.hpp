// Boxes read from a file, in the precision the file holds them.
//
// A float32 .npy gives float boxes; a float64 .npy gives double boxes; a
// .csv gives float boxes when every value it holds is exactly a float, double
// otherwise (see csv.hpp). Answers computed on them are exact in that
// precision: nothing is rounded on the way in. Two sets of different
// precision are compared in double, which holds every float exactly.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>
#include <variant>

#include <broadphase/boxes.hpp>

namespace broadphase_cli {

using FloatBoxes = broadphase::BasicBoxes<float, 3>;
using DoubleBoxes = broadphase::BasicBoxes<double, 3>;

class LoadedBoxes {
public:
    LoadedBoxes() = default;
    LoadedBoxes(FloatBoxes boxes) : boxes_(std::move(boxes)) {}
    LoadedBoxes(DoubleBoxes boxes) : boxes_(std::move(boxes)) {}

    /// True when the boxes are held in double (a float64 .npy, or a .csv
    /// with a value that is not exactly a float).
    bool is_double() const { return std::holds_alternative<DoubleBoxes>(boxes_); }

    std::size_t size() const {
        return std::visit([](const auto& b) { return b.size(); }, boxes_);
    }

    /// Whether the boxes are held as BasicBoxes<T, 3>.
    template <class T>
    bool holds() const {
        return std::holds_alternative<broadphase::BasicBoxes<T, 3>>(boxes_);
    }
    /// The boxes as held; precondition: holds<T>().
    template <class T>
    const broadphase::BasicBoxes<T, 3>& get() const {
        return std::get<broadphase::BasicBoxes<T, 3>>(boxes_);
    }

    /// A copy in T. To double: exact. To float: each value rounded to the
    /// nearest float, which may change answers (bench's timing only).
    template <class T>
    broadphase::BasicBoxes<T, 3> converted() const {
        return std::visit(
            [](const auto& src) {
                broadphase::BasicBoxes<T, 3> out(src.size());
                for (int k = 0; k < 3; ++k)
                    for (std::size_t i = 0; i < src.size(); ++i) {
                        out.min(k)[i] = static_cast<T>(src.min(k)[i]);
                        out.max(k)[i] = static_cast<T>(src.max(k)[i]);
                    }
                return out;
            },
            boxes_);
    }

    /// The boxes in T: moved out when held in T, else converted<T>().
    template <class T>
    broadphase::BasicBoxes<T, 3> into() && {
        if (holds<T>()) return std::move(std::get<broadphase::BasicBoxes<T, 3>>(boxes_));
        return converted<T>();
    }

    /// Rows [begin, end) as a set of their own, in the precision held.
    LoadedBoxes slice(std::size_t begin, std::size_t end) const {
        return std::visit([&](const auto& boxes) {
            std::decay_t<decltype(boxes)> out(end - begin);
            for (int k = 0; k < 3; ++k)
                for (std::size_t i = begin; i < end; ++i) {
                    out.min(k)[i - begin] = boxes.min(k)[i];
                    out.max(k)[i - begin] = boxes.max(k)[i];
                }
            return LoadedBoxes(std::move(out));
        }, boxes_);
    }

    /// fn(boxes) on the boxes as held (BasicBoxes<float, 3> or <double, 3>).
    template <class F>
    decltype(auto) visit(F&& fn) const {
        return std::visit(std::forward<F>(fn), boxes_);
    }

private:
    std::variant<FloatBoxes, DoubleBoxes> boxes_;
};

}  // namespace broadphase_cli
