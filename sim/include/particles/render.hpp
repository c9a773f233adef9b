// particles: pictures without a display. A software splatter draws shaded
// spheres (orthographic side view, fixed camera looking along -z, depth
// buffer, Lambert + specular light, darker with depth), colliding spheres red
// and the others white; a plot of a run (time per step split into broad
// phase and the rest, pairs per step); PNG files through libpng.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace particles {

class Simulation;

/// 8-bit RGB, rows top to bottom.
struct Image {
    int width = 0, height = 0;
    std::vector<std::uint8_t> rgb;  ///< width * height * 3

    void resize(int w, int h) {
        width = w, height = h;
        rgb.assign(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 3, 0);
    }
    std::uint8_t* at(int x, int y) { return rgb.data() + (static_cast<std::size_t>(y) * width + x) * 3; }
    const std::uint8_t* at(int x, int y) const { return rgb.data() + (static_cast<std::size_t>(y) * width + x) * 3; }
};

/// Spheres to draw: centres, radii, and which ones collide (drawn red).
struct SphereView {
    const double* x = nullptr;
    const double* y = nullptr;
    const double* z = nullptr;
    const double* r = nullptr;
    const std::uint8_t* hit = nullptr;  ///< nonzero: red; may be null (all white)
    std::size_t n = 0;
    double box[3] = {1, 1, 1};  ///< the box [0, box] the camera frames
};

SphereView view_of(const Simulation& sim);

/// Draws the spheres into `image` (its size is kept; resized to 960x540 if
/// empty): a dark blue-grey background, the box's outline in grey, the
/// spheres shaded, white or red. Background and outline are never red:
/// count_red_pixels() of a picture is nonzero iff some drawn sphere collides.
/// O(pixels + sum of each sphere's pixel area); `depth` is scratch (reused).
void render(const SphereView& spheres, Image& image, std::vector<float>& depth);

/// Pixels whose red channel exceeds both others by more than 40.
std::size_t count_red_pixels(const Image& image);

/// One step of a run, for the plot.
struct StepRecord {
    double broad_ms = 0, total_ms = 0;
    std::size_t box_pairs = 0, contacts = 0;
    bool rebuilt = false;  ///< StepStats::rebuilt
};

/// A plot of a run: top, milliseconds per step stacked (broad phase, then
/// the rest); bottom, pairs per step (the broad phase's box pairs and the
/// sphere contacts). Steps are binned to the plot's width (means per bin).
void plot_run(const std::vector<StepRecord>& steps, const std::string& title, Image& image);

/// Text in a 5x7 pixel font, `scale` pixels per font pixel; unknown characters are blanks.
void draw_text(Image& image, int x, int y, const std::string& text, const std::uint8_t rgb[3], int scale = 1);

/// Whether this build can write and read PNG files (libpng found at build time).
bool png_supported();
/// Writes `image` as an 8-bit RGB PNG (zlib level `compression`, 0-9). False
/// and `error` set on failure, or without libpng.
bool write_png(const std::string& path, const Image& image, std::string& error, int compression = 3);
/// Reads a PNG (any bit depth / colour type, converted to 8-bit RGB).
bool read_png(const std::string& path, Image& image, std::string& error);

}  // namespace particles
