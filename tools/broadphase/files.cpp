#include "files.hpp"

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <type_traits>
#include <utility>

#include "csv.hpp"
#include "errors.hpp"
#include "npy.hpp"

namespace broadphase_cli {
namespace {

enum class FileType { npy, csv, unknown };

FileType file_type(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (ext == ".npy") return FileType::npy;
    if (ext == ".csv") return FileType::csv;
    return FileType::unknown;
}

struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

}  // namespace

bool has_box_file_extension(const std::string& path) { return file_type(path) != FileType::unknown; }

void check_file_extension(const std::string& path) {
    if (!has_box_file_extension(path)) throw usage_error(path + ": unknown file type; expected a .npy or .csv file");
}

namespace {

FilePtr open_box_file(const std::string& path) {
    check_file_extension(path);
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw CliError(path + ": is a directory");
    errno = 0;
    FilePtr in(std::fopen(path.c_str(), "rb"));
    if (!in) throw CliError(path + ": cannot open: " + std::strerror(errno));
    return in;
}

}  // namespace

LoadedBoxes load_boxes(const std::string& path) {
    FilePtr in = open_box_file(path);
    if (file_type(path) == FileType::npy) return read_npy_boxes(in.get(), path);
    return read_csv_boxes(in.get(), path);
}

LoadedBoxes load_box_slice(const std::string& path, std::uint64_t part, std::uint64_t parts,
                           std::uint64_t* total_rows) {
    if (parts == 0 || part >= parts) throw CliError(path + ": no such slice");
    FilePtr in = open_box_file(path);
    if (file_type(path) == FileType::npy) return read_npy_box_slice(in.get(), path, part, parts, total_rows);
    const LoadedBoxes all = read_csv_boxes(in.get(), path);
    const std::uint64_t n = all.size(), begin = n * part / parts, end = n * (part + 1) / parts;
    if (total_rows) *total_rows = n;
    return all.visit([&](const auto& boxes) {
        std::decay_t<decltype(boxes)> out(static_cast<std::size_t>(end - begin));
        for (int k = 0; k < 3; ++k)
            for (std::uint64_t i = begin; i < end; ++i) {
                out.min(k)[i - begin] = boxes.min(k)[i];
                out.max(k)[i - begin] = boxes.max(k)[i];
            }
        return LoadedBoxes(std::move(out));
    });
}

namespace {

/// Writes `path` through write(FILE*) into a temporary file renamed into
/// place, so a failure leaves no partial output; throws CliError.
template <class Write>
void save_file(const std::string& path, Write&& write) {
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    const std::string tmp = path + ".tmp" + std::to_string(stamp);
    errno = 0;
    std::FILE* out = std::fopen(tmp.c_str(), "wb");
    if (!out) throw CliError(path + ": cannot create: " + std::strerror(errno));
    errno = 0;
    bool ok = false;
    try {
        ok = write(out);
    } catch (...) {  // out of memory for a buffer: leave nothing behind
        std::fclose(out);
        std::error_code ignored;
        std::filesystem::remove(tmp, ignored);
        throw;
    }
    ok = std::fflush(out) == 0 && ok;
    ok = std::fclose(out) == 0 && ok;
    const int err = errno;
    std::error_code ec;
    if (!ok) {
        std::filesystem::remove(tmp, ec);
        throw CliError(path + ": cannot write: " + (err ? std::strerror(err) : "write error"));
    }
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::error_code ignored;
        std::filesystem::remove(tmp, ignored);
        throw CliError(path + ": cannot write: " + ec.message());
    }
}

}  // namespace

void save_pairs(const std::string& path, const std::vector<broadphase::Pair>& pairs) {
    check_file_extension(path);
    save_file(path, [&](std::FILE* out) {
        return file_type(path) == FileType::npy ? write_npy_pairs(out, pairs) : write_csv_pairs(out, pairs);
    });
}

void save_boxes(const std::string& path, const broadphase::Boxes& boxes) {
    if (file_type(path) != FileType::npy) throw usage_error(path + ": boxes are written as .npy only");
    save_file(path, [&](std::FILE* out) { return write_npy_boxes(out, boxes); });
}

}  // namespace broadphase_cli
