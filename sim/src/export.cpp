// Particle files for OVITO and ParaView: see export.hpp.
#include "particles/export.hpp"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace particles {
namespace {

/// Appends v to `line`: the shortest text of `digits` significant digits.
void append_number(std::string& line, double v, int digits) {
    char buf[40];
    const auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, digits);
    line.append(buf, res.ptr);
}

void append_number(std::string& line, std::uint64_t v) {
    char buf[24];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    line.append(buf, res.ptr);
}

bool little_endian() {
    const std::uint16_t one = 1;
    unsigned char first = 0;
    std::memcpy(&first, &one, 1);
    return first == 1;
}

std::string xml_escaped(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

/// A file closed on every path; written through a large buffer.
struct File {
    std::FILE* f = nullptr;
    explicit File(const std::string& path) : f(std::fopen(path.c_str(), "wb")) {
        if (f) std::setvbuf(f, nullptr, _IOFBF, 1 << 20);
    }
    ~File() {
        if (f) std::fclose(f);
    }
    /// Closes; false if anything written was lost.
    bool close() {
        const bool ok = std::ferror(f) == 0;
        const bool closed = std::fclose(f) == 0;
        f = nullptr;
        return ok && closed;
    }
    bool put(const std::string& s) { return std::fwrite(s.data(), 1, s.size(), f) == s.size(); }
};

/// One array of the .vtu file: its XML attributes and its values, as
/// doubles (Float64), bytes (UInt8) or int64 (Int64).
struct VtuArray {
    const char* type;  // "Float64", "UInt8", "Int64"
    const char* name;  // nullptr: no Name attribute (the Points array)
    int components;
    std::size_t values;  // tuples * components
    std::vector<unsigned char> bytes;  // the values, in the host's byte order
};

template <class T>
void fill_bytes(VtuArray& a, std::size_t n, int components, T (*value)(const ParticleFrame&, std::size_t, int),
                const ParticleFrame& f) {
    a.components = components;
    a.values = n * static_cast<std::size_t>(components);
    a.bytes.resize(a.values * sizeof(T));
    unsigned char* out = a.bytes.data();
    for (std::size_t i = 0; i < n; ++i)
        for (int c = 0; c < components; ++c, out += sizeof(T)) {
            const T v = value(f, i, c);
            std::memcpy(out, &v, sizeof(T));
        }
}

void append_values_as_text(std::string& text, const VtuArray& a) {
    const unsigned char* p = a.bytes.data();
    for (std::size_t k = 0; k < a.values; ++k) {
        if (k) text += (k % 12 == 0) ? '\n' : ' ';
        if (std::strcmp(a.type, "Float64") == 0) {
            double v;
            std::memcpy(&v, p + k * 8, 8);
            append_number(text, v, 17);
        } else if (std::strcmp(a.type, "Int64") == 0) {
            std::int64_t v;
            std::memcpy(&v, p + k * 8, 8);
            append_number(text, static_cast<std::uint64_t>(v));  // (never negative here)
        } else {
            append_number(text, static_cast<std::uint64_t>(p[k]));
        }
    }
}

}  // namespace

const char* to_string(ParticleFormat f) { return f == ParticleFormat::xyz ? "xyz" : "vtu"; }

bool parse_particle_formats(const std::string& list, std::vector<ParticleFormat>& out) {
    std::vector<ParticleFormat> got;
    auto add = [&](ParticleFormat f) {
        for (ParticleFormat g : got)
            if (g == f) return;
        got.push_back(f);
    };
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = list.find(',', start);
        const std::string name = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (name == "xyz") add(ParticleFormat::xyz);
        else if (name == "vtu") add(ParticleFormat::vtu);
        else if (name == "both") add(ParticleFormat::xyz), add(ParticleFormat::vtu);
        else return false;
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    out = got;
    return true;
}

ParticleFrame frame_of(const Simulation& sim) {
    ParticleFrame f;
    f.n = sim.size();
    f.x = sim.x(), f.y = sim.y(), f.z = sim.z();
    f.vx = sim.vx(), f.vy = sim.vy(), f.vz = sim.vz();
    f.radius = sim.radius();
    f.contact = sim.in_contact();
    f.box = sim.box();
    f.time = sim.time();
    f.step = sim.steps();
    return f;
}

bool write_extxyz_frame(std::FILE* out, const ParticleFrame& f) {
    std::string text;
    text.reserve(256 + f.n * 96);
    append_number(text, static_cast<std::uint64_t>(f.n));
    text += "\nLattice=\"";
    append_number(text, f.box.x, 17);
    text += " 0 0 0 ";
    append_number(text, f.box.y, 17);
    text += " 0 0 0 ";
    append_number(text, f.box.z, 17);
    text += "\" Properties=species:S:1:pos:R:3:radius:R:1:velo:R:3:contact:I:1 Time=";
    append_number(text, f.time, 17);
    text += " Step=";
    append_number(text, f.step);
    text += " pbc=\"F F F\"\n";
    const int d = 9;
    for (std::size_t i = 0; i < f.n; ++i) {
        text += "X ";
        append_number(text, f.x[i], d), text += ' ';
        append_number(text, f.y[i], d), text += ' ';
        append_number(text, f.z[i], d), text += ' ';
        append_number(text, f.radius[i], d), text += ' ';
        append_number(text, f.vx[i], d), text += ' ';
        append_number(text, f.vy[i], d), text += ' ';
        append_number(text, f.vz[i], d);
        text += (f.contact && f.contact[i]) ? " 1\n" : " 0\n";
        if (text.size() > (1u << 20)) {
            if (std::fwrite(text.data(), 1, text.size(), out) != text.size()) return false;
            text.clear();
        }
    }
    return std::fwrite(text.data(), 1, text.size(), out) == text.size();
}

bool write_vtu(const std::string& path, const ParticleFrame& f, VtuEncoding encoding, std::string& error) {
    const std::size_t n = f.n;
    std::vector<VtuArray> arrays(7);
    // Point data, then the points, then the cells (one vertex each).
    arrays[0] = VtuArray{"Float64", "radius", 1, 0, {}};
    fill_bytes<double>(arrays[0], n, 1, [](const ParticleFrame& p, std::size_t i, int) { return p.radius[i]; }, f);
    arrays[1] = VtuArray{"Float64", "velocity", 3, 0, {}};
    fill_bytes<double>(arrays[1], n, 3,
                       [](const ParticleFrame& p, std::size_t i, int c) { return c == 0 ? p.vx[i] : c == 1 ? p.vy[i] : p.vz[i]; },
                       f);
    arrays[2] = VtuArray{"UInt8", "contact", 1, 0, {}};
    fill_bytes<std::uint8_t>(
        arrays[2], n, 1,
        [](const ParticleFrame& p, std::size_t i, int) { return std::uint8_t(p.contact && p.contact[i] ? 1 : 0); }, f);
    arrays[3] = VtuArray{"Float64", nullptr, 3, 0, {}};
    fill_bytes<double>(arrays[3], n, 3,
                       [](const ParticleFrame& p, std::size_t i, int c) { return c == 0 ? p.x[i] : c == 1 ? p.y[i] : p.z[i]; },
                       f);
    arrays[4] = VtuArray{"Int64", "connectivity", 1, 0, {}};
    fill_bytes<std::int64_t>(arrays[4], n, 1, [](const ParticleFrame&, std::size_t i, int) { return std::int64_t(i); }, f);
    arrays[5] = VtuArray{"Int64", "offsets", 1, 0, {}};
    fill_bytes<std::int64_t>(arrays[5], n, 1, [](const ParticleFrame&, std::size_t i, int) { return std::int64_t(i + 1); },
                             f);
    arrays[6] = VtuArray{"UInt8", "types", 1, 0, {}};
    fill_bytes<std::uint8_t>(arrays[6], n, 1, [](const ParticleFrame&, std::size_t, int) { return std::uint8_t(1); },
                             f);  // VTK_VERTEX

    const bool raw = encoding == VtuEncoding::raw;
    std::uint64_t offset = 0;  // into the appended data, after its '_'
    auto data_array = [&](const VtuArray& a, const char* indent) {
        std::string s = indent;
        s += "<DataArray type=\"";
        s += a.type;
        s += '"';
        if (a.name) s += " Name=\"", s += a.name, s += '"';
        if (a.components != 1) s += " NumberOfComponents=\"", append_number(s, std::uint64_t(a.components)), s += '"';
        if (raw) {
            s += " format=\"appended\" offset=\"";
            append_number(s, offset);
            s += "\"/>\n";
            offset += 8 + a.bytes.size();
        } else {
            s += " format=\"ascii\">\n";
            append_values_as_text(s, a);
            s += '\n', s += indent, s += "</DataArray>\n";
        }
        return s;
    };

    File file(path);
    if (!file.f) {
        error = "cannot write " + path + ": " + std::strerror(errno);
        return false;
    }
    std::string head = "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"";
    head += little_endian() ? "LittleEndian" : "BigEndian";
    head += "\" header_type=\"UInt64\">\n  <UnstructuredGrid>\n    <FieldData>\n";
    head += "      <DataArray type=\"Float64\" Name=\"TIME\" NumberOfTuples=\"1\" format=\"ascii\">";
    append_number(head, f.time, 17);
    head += "</DataArray>\n      <DataArray type=\"Int64\" Name=\"STEP\" NumberOfTuples=\"1\" format=\"ascii\">";
    append_number(head, f.step);
    head += "</DataArray>\n    </FieldData>\n    <Piece NumberOfPoints=\"";
    append_number(head, static_cast<std::uint64_t>(n));
    head += "\" NumberOfCells=\"";
    append_number(head, static_cast<std::uint64_t>(n));
    head += "\">\n      <PointData Scalars=\"radius\" Vectors=\"velocity\">\n";
    bool ok = file.put(head);
    for (int k = 0; k < 3; ++k) ok = ok && file.put(data_array(arrays[k], "        "));
    ok = ok && file.put("      </PointData>\n      <Points>\n");
    ok = ok && file.put(data_array(arrays[3], "        "));
    ok = ok && file.put("      </Points>\n      <Cells>\n");
    for (int k = 4; k < 7; ++k) ok = ok && file.put(data_array(arrays[k], "        "));
    ok = ok && file.put("      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n");
    if (raw) {
        ok = ok && file.put("  <AppendedData encoding=\"raw\">\n   _");
        for (const VtuArray& a : arrays) {
            const std::uint64_t size = a.bytes.size();
            ok = ok && std::fwrite(&size, sizeof size, 1, file.f) == 1;
            ok = ok && std::fwrite(a.bytes.data(), 1, a.bytes.size(), file.f) == a.bytes.size();
        }
        ok = ok && file.put("\n  </AppendedData>\n");
    }
    ok = ok && file.put("</VTKFile>\n");
    if (!file.close() || !ok) {
        error = "cannot write " + path + ": " + std::strerror(errno);
        return false;
    }
    return true;
}

bool write_pvd(const std::string& path, const std::vector<PvdEntry>& entries, std::string& error) {
    std::string text = "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"";
    text += little_endian() ? "LittleEndian" : "BigEndian";
    text += "\">\n  <Collection>\n";
    for (const PvdEntry& e : entries) {
        text += "    <DataSet timestep=\"";
        append_number(text, e.time, 17);
        text += "\" group=\"\" part=\"0\" file=\"" + xml_escaped(e.file) + "\"/>\n";
    }
    text += "  </Collection>\n</VTKFile>\n";
    // Written beside and renamed over: a viewer never reads half a collection.
    const std::string tmp = path + ".tmp";
    File file(tmp);
    if (!file.f || !file.put(text) || !file.close()) {
        error = "cannot write " + tmp + ": " + std::strerror(errno);
        return false;
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        error = "cannot write " + path + ": " + ec.message();
        return false;
    }
    return true;
}

ParticleWriter::ParticleWriter(const std::string& dir, const std::vector<ParticleFormat>& formats,
                               const std::string& stem, VtuEncoding encoding)
    : dir_(dir), stem_(stem), encoding_(encoding) {
    for (ParticleFormat f : formats) (f == ParticleFormat::xyz ? xyz_ : vtu_) = true;
    if (xyz_) {
        const std::string path = (std::filesystem::path(dir_) / (stem_ + ".xyz")).string();
        xyz_file_ = std::fopen(path.c_str(), "wb");
        if (!xyz_file_) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
    }
}

ParticleWriter::~ParticleWriter() {
    if (xyz_file_) std::fclose(xyz_file_);
}

void ParticleWriter::write(const ParticleFrame& frame) {
    const std::filesystem::path dir(dir_);
    if (xyz_) {
        if (!xyz_file_) throw std::runtime_error("particles: write after close");
        if (!write_extxyz_frame(xyz_file_, frame))
            throw std::runtime_error("cannot write " + (dir / (stem_ + ".xyz")).string() + ": " + std::strerror(errno));
    }
    if (vtu_) {
        char name[32];
        std::snprintf(name, sizeof name, "_%04d.vtu", frames_);
        const std::string file = stem_ + name;
        std::string error;
        if (!write_vtu((dir / file).string(), frame, encoding_, error)) throw std::runtime_error(error);
        entries_.push_back(PvdEntry{frame.time, file});
        if (!write_pvd((dir / (stem_ + ".pvd")).string(), entries_, error)) throw std::runtime_error(error);
    }
    ++frames_;
}

void ParticleWriter::close() {
    if (!xyz_file_) return;
    const bool ok = std::ferror(xyz_file_) == 0;
    const bool closed = std::fclose(xyz_file_) == 0;
    xyz_file_ = nullptr;
    if (!ok || !closed)
        throw std::runtime_error("cannot write " + (std::filesystem::path(dir_) / (stem_ + ".xyz")).string());
}

std::vector<std::string> ParticleWriter::paths() const {
    std::vector<std::string> out;
    const std::filesystem::path dir(dir_);
    if (xyz_) out.push_back((dir / (stem_ + ".xyz")).string());
    if (vtu_) out.push_back((dir / (stem_ + ".pvd")).string());
    return out;
}

}  // namespace particles
