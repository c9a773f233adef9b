// PNG files through libpng (when CMake found it: BROADPHASE_WITH_PNG).
#include <cstdio>
#include <string>
#include <vector>

#include "particles/render.hpp"

#ifdef BROADPHASE_WITH_PNG
#include <csetjmp>
#include <png.h>
#endif

namespace particles {

#ifndef BROADPHASE_WITH_PNG

bool png_supported() { return false; }
bool write_png(const std::string&, const Image&, std::string& error, int) {
    error = "built without libpng (install libpng-dev and reconfigure)";
    return false;
}
bool read_png(const std::string&, Image&, std::string& error) {
    error = "built without libpng (install libpng-dev and reconfigure)";
    return false;
}

#else

namespace {

// libpng reports errors through a callback that must not return: it keeps
// the message and jumps back to the setjmp in the caller.
void on_error(png_structp png, png_const_charp message) {
    auto* text = static_cast<std::string*>(png_get_error_ptr(png));
    if (text) *text = message;
    png_longjmp(png, 1);
}
void on_warning(png_structp, png_const_charp) {}

}  // namespace

bool png_supported() { return true; }

bool write_png(const std::string& path, const Image& image, std::string& error, int compression) {
    if (image.width <= 0 || image.height <= 0 ||
        image.rgb.size() != static_cast<std::size_t>(image.width) * image.height * 3) {
        error = "empty or inconsistent image";
        return false;
    }
    std::FILE* file = std::fopen(path.c_str(), "wb");
    if (!file) {
        error = "cannot open " + path + " for writing";
        return false;
    }
    std::vector<png_bytep> rows(static_cast<std::size_t>(image.height));
    for (int y = 0; y < image.height; ++y)
        rows[static_cast<std::size_t>(y)] = const_cast<png_bytep>(image.at(0, y));
    std::string message;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &message, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!png || !info) {
        png_destroy_write_struct(&png, nullptr);
        std::fclose(file);
        error = "libpng: out of memory";
        return false;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        std::fclose(file);
        error = "libpng: " + message + " (" + path + ")";
        return false;
    }
    png_init_io(png, file);
    png_set_compression_level(png, compression);
    png_set_IHDR(png, info, static_cast<png_uint_32>(image.width), static_cast<png_uint_32>(image.height), 8,
                 PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    png_write_image(png, rows.data());
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
    if (std::fclose(file) != 0) {
        error = "error writing " + path;
        return false;
    }
    return true;
}

bool read_png(const std::string& path, Image& image, std::string& error) {
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (!file) {
        error = "cannot open " + path;
        return false;
    }
    unsigned char signature[8] = {};
    if (std::fread(signature, 1, 8, file) != 8 || png_sig_cmp(signature, 0, 8) != 0) {
        std::fclose(file);
        error = path + ": not a PNG file";
        return false;
    }
    std::string message;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &message, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!png || !info) {
        png_destroy_read_struct(&png, nullptr, nullptr);
        std::fclose(file);
        error = "libpng: out of memory";
        return false;
    }
    std::vector<png_bytep> rows;  // before setjmp: nothing with a destructor is created after it
    Image result;
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, nullptr);
        std::fclose(file);
        error = "libpng: " + message + " (" + path + ")";
        return false;
    }
    png_init_io(png, file);
    png_set_sig_bytes(png, 8);
    png_read_info(png, info);
    // Whatever the file holds, 8-bit RGB comes out.
    png_set_expand(png);
    png_set_strip_16(png);
    png_set_strip_alpha(png);
    png_set_gray_to_rgb(png);
    png_read_update_info(png, info);
    const png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    if (png_get_rowbytes(png, info) != static_cast<std::size_t>(w) * 3 || w > 1u << 15 || h > 1u << 15)
        png_error(png, "unexpected row layout or size");
    result.resize(static_cast<int>(w), static_cast<int>(h));
    rows.resize(h);
    for (png_uint_32 y = 0; y < h; ++y) rows[y] = result.at(0, static_cast<int>(y));
    png_read_image(png, rows.data());
    png_read_end(png, nullptr);
    png_destroy_read_struct(&png, &info, nullptr);
    std::fclose(file);
    image = std::move(result);
    return true;
}

#endif

}  // namespace particles
