// The software splatter, the run plot and the 5x7 font: see render.hpp.
#include "particles/render.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "particles/simulation.hpp"

namespace particles {
namespace {

using u8 = std::uint8_t;

u8 to_byte(double v) { return static_cast<u8>(std::lround(std::min(1.0, std::max(0.0, v)) * 255.0)); }

void put(Image& im, int x, int y, const u8 c[3]) {
    if (x < 0 || y < 0 || x >= im.width || y >= im.height) return;
    u8* p = im.at(x, y);
    p[0] = c[0], p[1] = c[1], p[2] = c[2];
}

void fill_rect(Image& im, int x0, int y0, int x1, int y1, const u8 c[3]) {  // [x0, x1) x [y0, y1)
    x0 = std::max(x0, 0), y0 = std::max(y0, 0), x1 = std::min(x1, im.width), y1 = std::min(y1, im.height);
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) put(im, x, y, c);
}

void line(Image& im, int x0, int y0, int x1, int y1, const u8 c[3]) {  // Bresenham
    const int dx = std::abs(x1 - x0), dy = -std::abs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
    int err = dx + dy;
    for (;;) {
        put(im, x0, y0, c);
        if (x0 == x1 && y0 == y1) return;
        const int e2 = 2 * err;
        if (e2 >= dy) err += dy, x0 += sx;
        if (e2 <= dx) err += dx, y0 += sy;
    }
}

// The 5x7 font: capitals, digits, a little punctuation ('#' = ink).
struct Glyph {
    char c;
    const char* rows[7];
};
const Glyph glyphs[] = {
    {'A', {" ### ", "#   #", "#   #", "#####", "#   #", "#   #", "#   #"}},
    {'B', {"#### ", "#   #", "#   #", "#### ", "#   #", "#   #", "#### "}},
    {'C', {" ### ", "#   #", "#    ", "#    ", "#    ", "#   #", " ### "}},
    {'D', {"#### ", "#   #", "#   #", "#   #", "#   #", "#   #", "#### "}},
    {'E', {"#####", "#    ", "#    ", "#### ", "#    ", "#    ", "#####"}},
    {'F', {"#####", "#    ", "#    ", "#### ", "#    ", "#    ", "#    "}},
    {'G', {" ### ", "#   #", "#    ", "# ###", "#   #", "#   #", " ####"}},
    {'H', {"#   #", "#   #", "#   #", "#####", "#   #", "#   #", "#   #"}},
    {'I', {" ### ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### "}},
    {'J', {"  ###", "   # ", "   # ", "   # ", "   # ", "#  # ", " ##  "}},
    {'K', {"#   #", "#  # ", "# #  ", "##   ", "# #  ", "#  # ", "#   #"}},
    {'L', {"#    ", "#    ", "#    ", "#    ", "#    ", "#    ", "#####"}},
    {'M', {"#   #", "## ##", "# # #", "# # #", "#   #", "#   #", "#   #"}},
    {'N', {"#   #", "#   #", "##  #", "# # #", "#  ##", "#   #", "#   #"}},
    {'O', {" ### ", "#   #", "#   #", "#   #", "#   #", "#   #", " ### "}},
    {'P', {"#### ", "#   #", "#   #", "#### ", "#    ", "#    ", "#    "}},
    {'Q', {" ### ", "#   #", "#   #", "#   #", "# # #", "#  # ", " ## #"}},
    {'R', {"#### ", "#   #", "#   #", "#### ", "# #  ", "#  # ", "#   #"}},
    {'S', {" ####", "#    ", "#    ", " ### ", "    #", "    #", "#### "}},
    {'T', {"#####", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  "}},
    {'U', {"#   #", "#   #", "#   #", "#   #", "#   #", "#   #", " ### "}},
    {'V', {"#   #", "#   #", "#   #", "#   #", "#   #", " # # ", "  #  "}},
    {'W', {"#   #", "#   #", "#   #", "# # #", "# # #", "# # #", " # # "}},
    {'X', {"#   #", "#   #", " # # ", "  #  ", " # # ", "#   #", "#   #"}},
    {'Y', {"#   #", "#   #", " # # ", "  #  ", "  #  ", "  #  ", "  #  "}},
    {'Z', {"#####", "    #", "   # ", "  #  ", " #   ", "#    ", "#####"}},
    {'0', {" ### ", "#   #", "#  ##", "# # #", "##  #", "#   #", " ### "}},
    {'1', {"  #  ", " ##  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### "}},
    {'2', {" ### ", "#   #", "    #", "   # ", "  #  ", " #   ", "#####"}},
    {'3', {"#####", "   # ", "  #  ", "   # ", "    #", "#   #", " ### "}},
    {'4', {"   # ", "  ## ", " # # ", "#  # ", "#####", "   # ", "   # "}},
    {'5', {"#####", "#    ", "#### ", "    #", "    #", "#   #", " ### "}},
    {'6', {"  ## ", " #   ", "#    ", "#### ", "#   #", "#   #", " ### "}},
    {'7', {"#####", "    #", "   # ", "  #  ", " #   ", " #   ", " #   "}},
    {'8', {" ### ", "#   #", "#   #", " ### ", "#   #", "#   #", " ### "}},
    {'9', {" ### ", "#   #", "#   #", " ####", "    #", "   # ", " ##  "}},
    {'.', {"     ", "     ", "     ", "     ", "     ", " ##  ", " ##  "}},
    {',', {"     ", "     ", "     ", "     ", " ##  ", "  #  ", " #   "}},
    {':', {"     ", " ##  ", " ##  ", "     ", " ##  ", " ##  ", "     "}},
    {'/', {"    #", "    #", "   # ", "  #  ", " #   ", "#    ", "#    "}},
    {'(', {"   # ", "  #  ", " #   ", " #   ", " #   ", "  #  ", "   # "}},
    {')', {" #   ", "  #  ", "   # ", "   # ", "   # ", "  #  ", " #   "}},
    {'%', {"##   ", "##  #", "   # ", "  #  ", " #   ", "#  ##", "   ##"}},
    {'-', {"     ", "     ", "     ", "#####", "     ", "     ", "     "}},
    {'+', {"     ", "  #  ", "  #  ", "#####", "  #  ", "  #  ", "     "}},
    {'=', {"     ", "     ", "#####", "     ", "#####", "     ", "     "}},
    {'_', {"     ", "     ", "     ", "     ", "     ", "     ", "#####"}},
    {'|', {"  #  ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  "}},
};

const Glyph* find_glyph(char c) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    for (const Glyph& g : glyphs)
        if (g.c == c) return &g;
    return nullptr;
}

/// "12", "2.5", "1.2k", "3.4M": short tick labels.
std::string tick_label(double v) {
    char buf[32];
    const double a = std::abs(v);
    if (a >= 1e6) std::snprintf(buf, sizeof buf, "%.3gM", v / 1e6);
    else if (a >= 1e4) std::snprintf(buf, sizeof buf, "%.3gk", v / 1e3);
    else if (a >= 100 || v == std::floor(v)) std::snprintf(buf, sizeof buf, "%.0f", v);
    else std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

/// The smallest of 1, 2, 2.5, 5 x 10^k at least v (axis tops).
double nice_ceiling(double v) {
    if (!(v > 0)) return 1;
    const double p = std::pow(10.0, std::floor(std::log10(v)));
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (m * p >= v * (1 - 1e-12)) return m * p;
    return 10 * p;
}

}  // namespace

SphereView view_of(const Simulation& sim) {
    SphereView v;
    v.x = sim.x(), v.y = sim.y(), v.z = sim.z(), v.r = sim.radius();
    v.hit = sim.in_contact();
    v.n = sim.size();
    v.box[0] = sim.box().x, v.box[1] = sim.box().y, v.box[2] = sim.box().z;
    return v;
}

void draw_text(Image& image, int x, int y, const std::string& text, const u8 rgb[3], int scale) {
    for (char c : text) {
        if (const Glyph* g = find_glyph(c))
            for (int row = 0; row < 7; ++row)
                for (int col = 0; col < 5; ++col)
                    if (g->rows[row][col] == '#')
                        fill_rect(image, x + col * scale, y + row * scale, x + (col + 1) * scale, y + (row + 1) * scale, rgb);
        x += 6 * scale;
    }
}

void render(const SphereView& s, Image& image, std::vector<float>& depth) {
    if (image.width <= 0 || image.height <= 0) image.resize(960, 540);
    const int W = image.width, H = image.height;
    // Background: a vertical gradient of blue-greys (blue >= red everywhere).
    for (int y = 0; y < H; ++y) {
        const double t = static_cast<double>(y) / std::max(1, H - 1);
        const u8 c[3] = {to_byte(0.08 + 0.07 * t), to_byte(0.09 + 0.08 * t), to_byte(0.13 + 0.10 * t)};
        for (int x = 0; x < W; ++x) put(image, x, y, c);
    }
    // The camera: the box's front face fills the picture, less a margin.
    const double margin = std::max(4.0, 0.02 * std::min(W, H));
    const double bx = std::max(s.box[0], 1e-9), by = std::max(s.box[1], 1e-9), bz = std::max(s.box[2], 1e-9);
    const double scale = std::min((W - 2 * margin) / bx, (H - 2 * margin) / by);
    const double ox = (W - bx * scale) / 2, oy = (H - by * scale) / 2;
    {  // the box's outline (grey), behind the spheres
        const u8 grey[3] = {96, 100, 112}, floor_grey[3] = {150, 154, 166};
        const int x0 = static_cast<int>(std::floor(ox)) - 1, x1 = static_cast<int>(std::ceil(ox + bx * scale));
        const int y0 = static_cast<int>(std::floor(oy)) - 1, y1 = static_cast<int>(std::ceil(oy + by * scale));
        line(image, x0, y0, x1, y0, grey);
        line(image, x0, y0, x0, y1, grey);
        line(image, x1, y0, x1, y1, grey);
        line(image, x0, y1, x1, y1, floor_grey);
        line(image, x0, y1 + 1, x1, y1 + 1, floor_grey);
    }
    depth.assign(static_cast<std::size_t>(W) * H, -std::numeric_limits<float>::infinity());
    // Light from the upper left front; Blinn-Phong highlight towards the camera (+z).
    const double lx0 = -0.45, ly0 = 0.65, lz0 = 0.62;
    const double ll = std::sqrt(lx0 * lx0 + ly0 * ly0 + lz0 * lz0);
    const double lx = lx0 / ll, ly = ly0 / ll, lz = lz0 / ll;
    const double hx0 = lx, hy0 = ly, hz0 = lz + 1;
    const double hl = std::sqrt(hx0 * hx0 + hy0 * hy0 + hz0 * hz0);
    const double hx = hx0 / hl, hy = hy0 / hl, hz = hz0 / hl;
    // Front to back (largest z first), so hidden spheres fail the depth test
    // before any shading: each visible pixel is shaded about once.
    std::vector<std::uint32_t> order(s.n);
    for (std::size_t i = 0; i < s.n; ++i) order[i] = static_cast<std::uint32_t>(i);
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        return s.z[a] + s.r[a] > s.z[b] + s.r[b] || (s.z[a] + s.r[a] == s.z[b] + s.r[b] && a < b);
    });
    for (const std::uint32_t i : order) {
        const double r = s.r[i], R = r * scale;
        if (!(R > 0)) continue;
        const double cx = ox + s.x[i] * scale, cy = oy + (by - s.y[i]) * scale;
        const int px0 = std::max(0, static_cast<int>(std::floor(cx - R))), px1 = std::min(W - 1, static_cast<int>(std::ceil(cx + R)));
        const int py0 = std::max(0, static_cast<int>(std::floor(cy - R))), py1 = std::min(H - 1, static_cast<int>(std::ceil(cy + R)));
        if (px0 > px1 || py0 > py1) continue;
        const bool red = s.hit && s.hit[i];
        const double base[3] = {red ? 0.93 : 0.94, red ? 0.13 : 0.94, red ? 0.10 : 0.92};
        // Further back is darker: the front wall (z = box) at full light.
        const double fog = 0.38 + 0.62 * std::min(1.0, std::max(0.0, s.z[i] / bz));
        const double inv = 1.0 / R;
        for (int py = py0; py <= py1; ++py) {
            const double dy = (py + 0.5 - cy) * inv;
            for (int px = px0; px <= px1; ++px) {
                const double dx = (px + 0.5 - cx) * inv;
                const double q = 1.0 - dx * dx - dy * dy;
                if (q <= 0) continue;
                const double nz = std::sqrt(q);
                const float d = static_cast<float>(s.z[i] + r * nz);
                float& zb = depth[static_cast<std::size_t>(py) * W + px];
                if (d <= zb) continue;
                zb = d;
                const double nx = dx, ny = -dy;  // picture rows grow downwards
                const double diffuse = std::max(0.0, nx * lx + ny * ly + nz * lz);
                const double sh = std::max(0.0, nx * hx + ny * hy + nz * hz);
                const double s2 = sh * sh, s4 = s2 * s2, s8 = s4 * s4, s16 = s8 * s8;
                const double spec = 0.30 * s16 * s8 * s4;  // sh^28
                const double rim = 0.55 + 0.45 * nz;  // darker edges keep touching spheres apart
                const double light = (0.14 + 0.86 * diffuse) * rim * fog;
                const u8 c[3] = {to_byte(base[0] * light + spec * fog), to_byte(base[1] * light + spec * fog),
                                 to_byte(base[2] * light + spec * fog)};
                put(image, px, py, c);
            }
        }
    }
}

std::size_t count_red_pixels(const Image& image) {
    std::size_t count = 0;
    for (std::size_t p = 0; p + 2 < image.rgb.size(); p += 3) {
        const int r = image.rgb[p], g = image.rgb[p + 1], b = image.rgb[p + 2];
        count += (r > g + 40 && r > b + 40) ? 1 : 0;
    }
    return count;
}

void plot_run(const std::vector<StepRecord>& steps, const std::string& title, Image& image) {
    if (image.width <= 0 || image.height <= 0) image.resize(960, 540);
    const int W = image.width, H = image.height;
    const u8 white[3] = {255, 255, 255}, ink[3] = {30, 30, 30}, grid[3] = {225, 225, 225};
    const u8 broad_c[3] = {52, 101, 164}, rest_c[3] = {245, 159, 60}, pairs_c[3] = {52, 101, 164},
             contacts_c[3] = {200, 40, 40};
    fill_rect(image, 0, 0, W, H, white);
    draw_text(image, 12, 10, title, ink, 2);

    const int left = 78, right = W - 16;
    const int top0 = 64, bottom0 = H * 52 / 100;            // panel 1: ms per step
    const int top1 = bottom0 + 50, bottom1 = H - 40;        // panel 2: pairs per step
    const int cols = std::max(1, right - left);
    const std::size_t n = steps.size();
    // Per column: the mean over the steps that fall in it.
    std::vector<double> broad(cols, 0), total(cols, 0), pairs(cols, 0), contacts(cols, 0);
    std::vector<int> have(cols, 0);
    for (int c = 0; c < cols && n > 0; ++c) {
        std::size_t a = static_cast<std::size_t>(static_cast<double>(c) * n / cols);
        std::size_t b = static_cast<std::size_t>(static_cast<double>(c + 1) * n / cols);
        if (b <= a) b = a + 1;
        if (a >= n) continue;
        b = std::min(b, n);
        for (std::size_t i = a; i < b; ++i) {
            broad[c] += steps[i].broad_ms, total[c] += steps[i].total_ms;
            pairs[c] += static_cast<double>(steps[i].box_pairs), contacts[c] += static_cast<double>(steps[i].contacts);
        }
        const double k = static_cast<double>(b - a);
        broad[c] /= k, total[c] /= k, pairs[c] /= k, contacts[c] /= k;
        have[c] = 1;
    }
    // Axis tops: ms from the 98th percentile of the columns (the first,
    // allocating steps would flatten the rest), pairs from the maximum.
    std::vector<double> sorted_total;
    double max_pairs = 0;
    for (int c = 0; c < cols; ++c)
        if (have[c]) sorted_total.push_back(total[c]), max_pairs = std::max({max_pairs, pairs[c], contacts[c]});
    std::sort(sorted_total.begin(), sorted_total.end());
    const double ms_top =
        nice_ceiling(sorted_total.empty() ? 1.0 : 1.05 * sorted_total[(sorted_total.size() - 1) * 98 / 100]);
    const double pairs_top = nice_ceiling(max_pairs * 1.05);

    auto axes = [&](int top, int bottom, double ymax, const std::string& ylabel) {
        for (int t = 0; t <= 5; ++t) {
            const int y = bottom - (bottom - top) * t / 5;
            line(image, left, y, right, y, grid);
            const std::string s = tick_label(ymax * t / 5);
            draw_text(image, left - 8 - 6 * static_cast<int>(s.size()), y - 3, s, ink);
        }
        draw_text(image, left, top - 14, ylabel, ink);
    };
    auto x_axis = [&](int bottom) {
        line(image, left, top0 - 2, left, bottom, ink);
        line(image, left, bottom, right, bottom, ink);
        // Ticks at round step numbers, about five of them.
        const double span = std::max<double>(1.0, static_cast<double>(n));
        const double step = nice_ceiling(span / 6);
        for (double v = 0; v <= span + 1e-9; v += step) {
            const int x = left + static_cast<int>(std::lround((right - left) * v / span));
            line(image, x, bottom, x, bottom + 4, ink);
            const std::string s = tick_label(v);
            draw_text(image, x - 3 * static_cast<int>(s.size()), bottom + 8, s, ink);
        }
    };
    axes(top0, bottom0, ms_top, "MS PER STEP");
    axes(top1, bottom1, pairs_top, "PAIRS PER STEP");
    auto y_of = [](int top, int bottom, double v, double vmax) {
        const double t = std::min(1.0, std::max(0.0, v / vmax));
        return bottom - static_cast<int>(std::lround(t * (bottom - top)));
    };
    for (int c = 0; c < cols; ++c) {  // stacked: broad phase below, the rest above
        if (!have[c]) continue;
        const int x = left + c;
        const int yb = y_of(top0, bottom0, broad[c], ms_top), yt = y_of(top0, bottom0, total[c], ms_top);
        fill_rect(image, x, yb, x + 1, bottom0, broad_c);
        fill_rect(image, x, yt, x + 1, yb, rest_c);
    }
    int prev_p = -1, prev_c = -1;
    for (int c = 0; c < cols; ++c) {
        if (!have[c]) continue;
        const int x = left + c;
        const int yp = y_of(top1, bottom1, pairs[c], pairs_top), yc = y_of(top1, bottom1, contacts[c], pairs_top);
        if (prev_p >= 0) {
            line(image, x - 1, prev_p, x, yp, pairs_c), line(image, x - 1, prev_p + 1, x, yp + 1, pairs_c);
            line(image, x - 1, prev_c, x, yc, contacts_c), line(image, x - 1, prev_c + 1, x, yc + 1, contacts_c);
        }
        prev_p = yp, prev_c = yc;
    }
    x_axis(bottom0);
    line(image, left, top1 - 2, left, bottom1, ink);
    x_axis(bottom1);
    draw_text(image, right - 24, bottom1 + 20, "STEP", ink);

    // Legends and the means.
    double sum_b = 0, sum_t = 0;
    for (const StepRecord& s : steps) sum_b += s.broad_ms, sum_t += s.total_ms;
    char buf[160];
    const double mb = n ? sum_b / n : 0, mt = n ? sum_t / n : 0;
    std::snprintf(buf, sizeof buf, "BROAD PHASE %.2f MS", mb);
    fill_rect(image, right - 420, top0 - 16, right - 410, top0 - 6, broad_c);
    draw_text(image, right - 404, top0 - 16, buf, ink);
    std::snprintf(buf, sizeof buf, "REST %.2f MS (BROAD %.0f%%)", mt - mb, mt > 0 ? 100 * mb / mt : 0.0);
    fill_rect(image, right - 260, top0 - 16, right - 250, top0 - 6, rest_c);
    draw_text(image, right - 244, top0 - 16, buf, ink);
    fill_rect(image, right - 420, top1 - 16, right - 410, top1 - 6, pairs_c);
    draw_text(image, right - 404, top1 - 16, "BOX PAIRS (BROAD PHASE)", ink);
    fill_rect(image, right - 250, top1 - 16, right - 240, top1 - 6, contacts_c);
    draw_text(image, right - 234, top1 - 16, "SPHERE CONTACTS", ink);
}

}  // namespace particles
