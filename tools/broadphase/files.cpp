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
#include "mesh.hpp"
#include "npy.hpp"
#include "npz.hpp"

namespace broadphase_cli {
namespace {

enum class FileType { npy, npz, csv, txt, off, ply, obj, stl, unknown };

/// Mesh files: read as the boxes of their faces (mesh.hpp), never written.
bool is_mesh(FileType type) {
    return type == FileType::off || type == FileType::ply || type == FileType::obj || type == FileType::stl;
}

MeshFormat mesh_format(FileType type) {
    switch (type) {
        case FileType::off: return MeshFormat::off;
        case FileType::ply: return MeshFormat::ply;
        case FileType::obj: return MeshFormat::obj;
        default: return MeshFormat::stl;
    }
}

/// The type --format names npy, npz, csv, txt, off, ply, obj or stl (as
/// the extensions spell them), else unknown.
FileType type_named(const std::string& name) {
    static const std::pair<const char*, FileType> names[] = {
        {"npy", FileType::npy}, {"npz", FileType::npz}, {"csv", FileType::csv}, {"txt", FileType::txt},
        {"off", FileType::off}, {"ply", FileType::ply}, {"obj", FileType::obj}, {"stl", FileType::stl}};
    for (const auto& n : names)
        if (name == n.first) return n.second;
    return FileType::unknown;
}

FileType type_of_extension(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (ext == ".dat") return FileType::txt;
    return ext.empty() ? FileType::unknown : type_named(ext.substr(1));
}

/// --format's value; unknown for "" (not given), a usage error for anything else.
FileType type_of_format(const std::string& format) {
    if (format.empty()) return FileType::unknown;
    const FileType type = type_named(format);
    if (type == FileType::unknown)
        throw usage_error("--format takes npy, npz, csv, txt, off, ply, obj or stl, not '" + format + "'");
    return type;
}

/// The dialect of a text type: commas for csv, whitespace for txt.
TextDialect dialect_of(FileType type) { return type == FileType::csv ? TextDialect::csv : TextDialect::whitespace; }

/// A path and, for FILE.npz:NAME, the array named after the colon.
struct Target {
    std::string file, array;
};

Target split_array(const std::string& path) {
    const std::size_t colon = path.rfind(':');
    if (colon != std::string::npos && type_of_extension(path.substr(0, colon)) == FileType::npz)
        return {path.substr(0, colon), path.substr(colon + 1)};
    return {path, ""};
}

/// The type of `path` (FILE.npz:NAME counts as .npz): its extension's, else the --format's.
FileType file_type(const std::string& path, const std::string& format) {
    const FileType by_extension = type_of_extension(split_array(path).file);
    const FileType by_format = type_of_format(format);  // checked even when the extension decides
    return by_extension != FileType::unknown ? by_extension : by_format;
}

struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

FilePtr open_box_file(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw CliError(path + ": is a directory");
    errno = 0;
    FilePtr in(std::fopen(path.c_str(), "rb"));
    if (!in) throw CliError(path + ": cannot open: " + std::strerror(errno));
    return in;
}

/// A seekable copy of what is left of `in` (a pipe), in a temporary file
/// that goes away when closed: a zip archive is read from its end.
FilePtr seekable_copy(std::FILE* in, const std::string& name) {
    FilePtr copy(std::tmpfile());
    if (!copy) throw CliError(name + ": cannot make a temporary copy to read the .npz from: " + std::strerror(errno));
    std::vector<char> buf(1 << 16);
    std::size_t got;
    while ((got = std::fread(buf.data(), 1, buf.size(), in)) > 0)
        if (std::fwrite(buf.data(), 1, got, copy.get()) != got)
            throw CliError(name + ": cannot make a temporary copy to read the .npz from: write error");
    if (std::ferror(in)) throw CliError(name + ": read error");
    if (std::fflush(copy.get()) != 0) throw CliError(name + ": cannot make a temporary copy to read the .npz from");
    return copy;
}

LoadedBoxes read_npz(std::FILE* in, const std::string& name, const std::string& array) {
    FilePtr copy;
    if (!seek_stream(in, 0, SEEK_CUR)) {
        copy = seekable_copy(in, name);
        in = copy.get();
    }
    LoadedBoxes boxes = read_npz_boxes(in, name, array);
    if (std::ferror(in)) throw CliError(name + ": read error");
    return boxes;
}

}  // namespace

bool has_box_file_extension(const std::string& path) {
    return type_of_extension(split_array(path).file) != FileType::unknown;
}

void check_box_input(const std::string& path, const FileOptions& options) {
    if (file_type(path, options.format) == FileType::unknown) {
        if (is_std_stream(path))
            throw usage_error("reading boxes from stdin ('-') needs --format npy, npz, csv, txt, off, ply, obj or stl");
        throw usage_error(path +
                          ": unknown file type; expected a .npy, .npz, .csv, .txt, .off, .ply, .obj or .stl file, "
                          "or give --format");
    }
}

void check_pairs_output(const std::string& path, const std::string& format) {
    const FileType type = file_type(path, format);
    if (type == FileType::npz || is_mesh(type))
        throw usage_error(path + ": pairs are written as .npy, .csv or .txt, not ." +
                          (is_mesh(type) ? mesh_format_name(mesh_format(type)) : "npz") +
                          " (--output-format names the output's)");
    if (type == FileType::unknown) {
        if (is_std_stream(path)) throw usage_error("writing pairs to stdout ('-o -') needs --format npy, csv or txt");
        throw usage_error(path + ": unknown file type; expected a .npy, .csv or .txt file, or give --format");
    }
}

void refuse_std_stream(const std::string& path) {
    if (is_std_stream(path)) throw usage_error("'-' (stdin or stdout) is not supported here: name a file");
}

void check_file_extension(const std::string& path) {
    refuse_std_stream(path);
    check_box_input(path, FileOptions{});
}

void check_one_stdin(const std::vector<std::string>& inputs) {
    std::size_t n = 0;
    for (const std::string& in : inputs) n += is_std_stream(in) ? 1 : 0;
    if (n > 1) throw usage_error("only one input can be stdin ('-'): it can be read only once");
}

std::string file_label(const std::string& path) { return is_std_stream(path) ? "<stdin>" : path; }

LoadedBoxes load_boxes(const std::string& path, const FileOptions& options) {
    check_box_input(path, options);
    const FileType type = file_type(path, options.format);
    const Target target = split_array(path);
    if (!target.array.empty() && !options.array.empty() && target.array != options.array)
        throw usage_error(path + ": two arrays named: '" + target.array + "' and --array '" + options.array + "'");
    const std::string array = target.array.empty() ? options.array : target.array;
    const std::string name = file_label(target.file);
    FilePtr file;
    std::FILE* in = stdin;
    if (!is_std_stream(target.file)) {
        file = open_box_file(target.file);
        in = file.get();
    }
    switch (type) {
        case FileType::npy: return read_npy_boxes(in, name);
        case FileType::npz: return read_npz(in, name, array);
        case FileType::off:
        case FileType::ply:
        case FileType::obj:
        case FileType::stl: return read_mesh_face_boxes(in, name, mesh_format(type));
        default: return read_text_boxes(in, name, dialect_of(type));
    }
}

LoadedBoxes load_box_slice(const std::string& path, std::uint64_t part, std::uint64_t parts,
                           std::uint64_t* total_rows) {
    if (parts == 0 || part >= parts) throw CliError(path + ": no such slice");
    check_file_extension(path);
    if (file_type(path, "") == FileType::npy) {
        FilePtr in = open_box_file(path);
        return read_npy_box_slice(in.get(), path, part, parts, total_rows);
    }
    const LoadedBoxes all = load_boxes(path);
    const std::uint64_t n = all.size(), begin = n * part / parts, end = n * (part + 1) / parts;
    if (total_rows) *total_rows = n;
    return all.slice(static_cast<std::size_t>(begin), static_cast<std::size_t>(end));
}

namespace {

/// Writes through write(FILE*): to stdout for "-", else into a temporary
/// file renamed into place, so a failure leaves no partial output; throws
/// CliError.
template <class Write>
void save_file(const std::string& path, Write&& write) {
    if (is_std_stream(path)) {
        errno = 0;
        bool ok = write(stdout);
        ok = std::fflush(stdout) == 0 && ok;
        if (!ok) throw CliError(std::string("<stdout>: cannot write: ") + (errno ? std::strerror(errno) : "write error"));
        return;
    }
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

void save_pairs(const std::string& path, const std::vector<broadphase::Pair>& pairs, const std::string& format) {
    check_pairs_output(path, format);
    const FileType type = file_type(path, format);
    save_file(path, [&](std::FILE* out) {
        if (type == FileType::npy) return write_npy_pairs(out, pairs);
        return write_text_pairs(out, pairs, dialect_of(type));
    });
}

void save_boxes(const std::string& path, const broadphase::Boxes& boxes, const std::string& format) {
    const FileType type = file_type(path, format);
    if (type == FileType::npz || is_mesh(type) || type == FileType::unknown)
        throw usage_error((is_std_stream(path) ? std::string("'-'") : path) +
                          ": boxes are written as .npy, .csv or .txt (for '-', name one with --format)");
    save_file(path, [&](std::FILE* out) {
        if (type == FileType::npy) return write_npy_boxes(out, boxes);
        return write_text_boxes(out, boxes, dialect_of(type));
    });
}

}  // namespace broadphase_cli
