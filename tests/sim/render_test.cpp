// Pictures: the splatter's red pixels appear exactly when spheres collide,
// and PNG files (frames, plot) decode with libpng to what was written.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include "particles/demo.hpp"
#include "particles/render.hpp"
#include "particles/simulation.hpp"

namespace {

using particles::Image;

std::string temp_path(const std::string& name) {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("broadphase_sim_test_" + std::to_string(static_cast<long>(::getpid())));
    std::filesystem::create_directories(dir);
    return (dir / name).string();
}

/// Three spheres side by side in a 12 x 6 x 4 box; `touching` moves the
/// middle one against the left one.
struct Three {
    double x[3] = {3, 6, 9}, y[3] = {3, 3, 3}, z[3] = {2, 2, 2}, r[3] = {1, 1, 1};
    std::uint8_t hit[3] = {0, 0, 0};
    particles::SphereView view() {
        particles::SphereView v;
        v.x = x, v.y = y, v.z = z, v.r = r, v.hit = hit, v.n = 3;
        v.box[0] = 12, v.box[1] = 6, v.box[2] = 4;
        return v;
    }
};

TEST(Render, RedPixelsExactlyWhenSpheresCollide) {
    Image image;
    image.resize(320, 180);
    std::vector<float> depth;
    Three s;
    particles::render(s.view(), image, depth);
    EXPECT_EQ(particles::count_red_pixels(image), 0u);
    // Something was drawn: bright sphere pixels.
    std::size_t bright = 0;
    for (std::size_t p = 0; p < image.rgb.size(); p += 3) bright += image.rgb[p + 1] > 150 ? 1 : 0;
    EXPECT_GT(bright, 100u);

    s.hit[0] = s.hit[1] = 1;
    particles::render(s.view(), image, depth);
    const std::size_t red = particles::count_red_pixels(image);
    EXPECT_GT(red, 500u);  // two discs of radius ~13 px
    // Only the left two are red: nothing red in the right third of the picture.
    for (int y = 0; y < image.height; ++y)
        for (int x = image.width * 2 / 3; x < image.width; ++x) {
            const std::uint8_t* p = image.at(x, y);
            ASSERT_FALSE(p[0] > p[1] + 40 && p[0] > p[2] + 40) << x << "," << y;
        }
}

TEST(Render, SimulationPicturesAreRedIffContacts) {
    particles::Config c;
    c.n = 400;
    c.threads = 1;
    particles::Simulation sim(c);
    Image image;
    image.resize(256, 144);
    std::vector<float> depth;
    sim.step();
    ASSERT_TRUE(sim.contacts().empty());  // the starting cloud: no sphere touches another
    particles::render(particles::view_of(sim), image, depth);
    EXPECT_EQ(particles::count_red_pixels(image), 0u);
    for (int s = 0; s < 4000 && sim.contacts().empty(); ++s) sim.step();
    ASSERT_FALSE(sim.contacts().empty());
    particles::render(particles::view_of(sim), image, depth);
    EXPECT_GT(particles::count_red_pixels(image), 0u);
}

TEST(Png, RoundTripKeepsSizeAndPixels) {
    if (!particles::png_supported()) GTEST_SKIP() << "built without libpng";
    Image image;
    image.resize(200, 120);
    std::vector<float> depth;
    Three s;
    s.hit[1] = s.hit[2] = 1;
    particles::render(s.view(), image, depth);
    const std::string path = temp_path("round_trip.png");
    std::string error;
    ASSERT_TRUE(particles::write_png(path, image, error)) << error;
    Image back;
    ASSERT_TRUE(particles::read_png(path, back, error)) << error;
    EXPECT_EQ(back.width, 200);
    EXPECT_EQ(back.height, 120);
    EXPECT_TRUE(back.rgb == image.rgb);
    EXPECT_EQ(particles::count_red_pixels(back), particles::count_red_pixels(image));
    EXPECT_GT(particles::count_red_pixels(back), 0u);
    std::filesystem::remove(path);
}

TEST(Png, ReadRejectsWhatIsNotAPng) {
    if (!particles::png_supported()) GTEST_SKIP() << "built without libpng";
    const std::string path = temp_path("not_a.png");
    if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
        std::fputs("hello, this is text", f);
        std::fclose(f);
    }
    Image back;
    std::string error;
    EXPECT_FALSE(particles::read_png(path, back, error));
    EXPECT_FALSE(error.empty());
    EXPECT_FALSE(particles::read_png(path + ".missing", back, error));
    std::filesystem::remove(path);
}

TEST(Demo, RunWritesFramesPlotAndCsv) {
    particles::RunSettings run;
    run.config.n = 300;
    run.config.threads = 1;
    run.steps = 0;
    run.seconds = 0.2;
    run.width = 160, run.height = 90;
    run.animation = false;
    run.progress = false;
    run.out_dir = temp_path("run");
    const particles::RunResult r = particles::run_particles(run, nullptr);
    EXPECT_GT(r.steps, 0);
    EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(r.out_dir) / "steps.csv"));
    if (!particles::png_supported()) {
        EXPECT_EQ(r.frames, 0);
        return;
    }
    // 0.2 s at 30 frames a second: the start and 6 frames.
    EXPECT_EQ(r.frames, 7);
    Image frame, plot;
    std::string error;
    ASSERT_TRUE(particles::read_png(r.last_frame, frame, error)) << error;
    EXPECT_EQ(frame.width, 160);
    EXPECT_EQ(frame.height, 90);
    ASSERT_TRUE(particles::read_png(r.plot, plot, error)) << error;
    EXPECT_EQ(plot.width, 960);
    EXPECT_EQ(plot.height, 540);
    std::filesystem::remove_all(r.out_dir);
}

}  // namespace
