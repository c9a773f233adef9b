// The particle files (sim/include/particles/export.hpp) read back: a short
// simulation written as extended XYZ and as .vtu (raw and ASCII) + .pvd,
// each file parsed here with its own small reader, and every count,
// position, radius, velocity, contact flag and time compared with what the
// simulation held when the frame was written. tests/sim/read_particles.py
// reads the demo's files with meshio and ASE.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "particles/demo.hpp"
#include "particles/export.hpp"
#include "particles/simulation.hpp"

namespace {

namespace fs = std::filesystem;
using particles::ParticleFormat;

/// A copy of one frame as the simulation held it.
struct Snapshot {
    std::vector<double> x, y, z, vx, vy, vz, r;
    std::vector<int> contact;
    particles::Vec3 box;
    double time = 0;
    std::uint64_t step = 0;
};

Snapshot snapshot(const particles::Simulation& sim) {
    Snapshot s;
    const std::size_t n = sim.size();
    s.x.assign(sim.x(), sim.x() + n), s.y.assign(sim.y(), sim.y() + n), s.z.assign(sim.z(), sim.z() + n);
    s.vx.assign(sim.vx(), sim.vx() + n), s.vy.assign(sim.vy(), sim.vy() + n), s.vz.assign(sim.vz(), sim.vz() + n);
    s.r.assign(sim.radius(), sim.radius() + n);
    s.contact.assign(sim.in_contact(), sim.in_contact() + n);
    s.box = sim.box();
    s.time = sim.time();
    s.step = sim.steps();
    return s;
}

std::string read_all(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// A fresh folder under the build's temporary directory.
fs::path fresh_dir(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("broadphase_export_test_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

// ------------------------------------------------------------ extended XYZ

struct XyzFrame {
    std::size_t n = 0;
    std::map<std::string, std::string> info;  // key=value of the comment line, quotes removed
    std::vector<std::string> species;
    std::vector<std::vector<double>> columns;  // pos x y z, radius, velo x y z, contact
};

/// Parses "key=value key="a b c" ..." into `info`.
std::map<std::string, std::string> parse_comment(const std::string& line) {
    std::map<std::string, std::string> out;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && line[i] == ' ') ++i;
        if (i >= line.size()) break;
        const std::size_t eq = line.find('=', i);
        if (eq == std::string::npos) break;
        const std::string key = line.substr(i, eq - i);
        std::string value;
        i = eq + 1;
        if (i < line.size() && line[i] == '"') {
            const std::size_t end = line.find('"', i + 1);
            value = line.substr(i + 1, end - i - 1);
            i = end + 1;
        } else {
            const std::size_t end = line.find(' ', i);
            value = line.substr(i, end == std::string::npos ? std::string::npos : end - i);
            i = end == std::string::npos ? line.size() : end;
        }
        out[key] = value;
    }
    return out;
}

std::vector<XyzFrame> read_xyz(const fs::path& path) {
    std::ifstream in(path);
    std::vector<XyzFrame> frames;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        XyzFrame f;
        f.n = std::stoull(line);
        std::getline(in, line);
        f.info = parse_comment(line);
        f.columns.assign(8, std::vector<double>(f.n));
        f.species.resize(f.n);
        for (std::size_t i = 0; i < f.n; ++i) {
            if (!std::getline(in, line)) return frames;  // truncated: the frame is left out
            std::istringstream ls(line);
            ls >> f.species[i];
            for (int c = 0; c < 8; ++c) ls >> f.columns[c][i];
            EXPECT_FALSE(ls.fail()) << "line " << i << " of a frame: " << line;
        }
        frames.push_back(std::move(f));
    }
    return frames;
}

void expect_close(double got, double want, const char* what, std::size_t i) {
    EXPECT_NEAR(got, want, 1e-8 * std::abs(want) + 1e-300) << what << " of particle " << i;
}

void check_xyz_frame(const XyzFrame& f, const Snapshot& s) {
    ASSERT_EQ(f.n, s.r.size());
    EXPECT_EQ(f.info.at("Properties"), "species:S:1:pos:R:3:radius:R:1:velo:R:3:contact:I:1");
    EXPECT_EQ(f.info.at("pbc"), "F F F");
    std::istringstream lattice(f.info.at("Lattice"));
    double m[9];
    for (double& v : m) lattice >> v;
    ASSERT_FALSE(lattice.fail()) << f.info.at("Lattice");
    EXPECT_EQ(m[0], s.box.x);
    EXPECT_EQ(m[4], s.box.y);
    EXPECT_EQ(m[8], s.box.z);
    for (int k : {1, 2, 3, 5, 6, 7}) EXPECT_EQ(m[k], 0.0);
    EXPECT_EQ(std::strtod(f.info.at("Time").c_str(), nullptr), s.time);  // 17 digits: exact
    EXPECT_EQ(std::stoull(f.info.at("Step")), s.step);
    for (std::size_t i = 0; i < f.n; ++i) {
        EXPECT_EQ(f.species[i], "X");
        expect_close(f.columns[0][i], s.x[i], "x", i);
        expect_close(f.columns[1][i], s.y[i], "y", i);
        expect_close(f.columns[2][i], s.z[i], "z", i);
        expect_close(f.columns[3][i], s.r[i], "radius", i);
        expect_close(f.columns[4][i], s.vx[i], "vx", i);
        expect_close(f.columns[5][i], s.vy[i], "vy", i);
        expect_close(f.columns[6][i], s.vz[i], "vz", i);
        EXPECT_EQ(f.columns[7][i], s.contact[i]) << "contact of particle " << i;
    }
}

// ------------------------------------------------------------ VTK XML

/// The attribute `name` of the XML tag starting at `tag` ("" if absent).
std::string attribute(const std::string& text, std::size_t tag, const std::string& name) {
    const std::size_t end = text.find('>', tag);
    const std::string key = " " + name + "=\"";
    const std::size_t at = text.find(key, tag);
    if (at == std::string::npos || at > end) return "";
    const std::size_t begin = at + key.size();
    return text.substr(begin, text.find('"', begin) - begin);
}

/// A .vtu file's arrays by name ("points" for the Points array), every
/// value as double, read from ASCII or appended raw data.
struct Vtu {
    std::size_t points = 0, cells = 0;
    std::map<std::string, std::vector<double>> arrays;
    std::map<std::string, int> components;
    std::map<std::string, std::string> types;
    std::map<std::string, std::vector<double>> field;  // FieldData (ASCII)
};

template <class T>
void decode(const std::string& bytes, std::size_t at, std::size_t count, std::vector<double>& out) {
    for (std::size_t k = 0; k < count; ++k) {
        T v;
        std::memcpy(&v, bytes.data() + at + k * sizeof(T), sizeof(T));
        out.push_back(static_cast<double>(v));
    }
}

Vtu read_vtu(const fs::path& path) {
    const std::string text = read_all(path);
    Vtu v;
    const std::size_t appended = text.find("<AppendedData");
    const std::string xml = text.substr(0, appended);
    std::size_t data_start = std::string::npos;
    if (appended != std::string::npos) {
        EXPECT_EQ(attribute(text, appended, "encoding"), "raw");
        data_start = text.find('_', appended) + 1;
        EXPECT_EQ(attribute(text, text.find("<VTKFile"), "header_type"), "UInt64");
    }
    const std::size_t piece = xml.find("<Piece");
    v.points = std::stoull(attribute(xml, piece, "NumberOfPoints"));
    v.cells = std::stoull(attribute(xml, piece, "NumberOfCells"));
    const std::size_t points_tag = xml.find("<Points>");
    for (std::size_t at = xml.find("<DataArray"); at != std::string::npos; at = xml.find("<DataArray", at + 1)) {
        const bool in_field = at < piece;
        std::string name = attribute(xml, at, "Name");
        if (!in_field && at > points_tag && name.empty()) name = "points";
        const std::string type = attribute(xml, at, "type");
        const std::string comps = attribute(xml, at, "NumberOfComponents");
        std::vector<double> values;
        if (attribute(xml, at, "format") == "appended") {
            EXPECT_NE(data_start, std::string::npos);
            const std::size_t at_data = data_start + std::stoull(attribute(xml, at, "offset"));
            std::uint64_t bytes = 0;
            std::memcpy(&bytes, text.data() + at_data, 8);
            const std::size_t first = at_data + 8;
            EXPECT_LE(first + bytes, text.size());
            if (type == "Float64") decode<double>(text, first, bytes / 8, values);
            else if (type == "Int64") decode<std::int64_t>(text, first, bytes / 8, values);
            else if (type == "UInt8") decode<std::uint8_t>(text, first, bytes, values);
            else ADD_FAILURE() << "type " << type;
        } else {
            EXPECT_EQ(attribute(xml, at, "format"), "ascii");
            const std::size_t body = xml.find('>', at) + 1;
            std::istringstream in(xml.substr(body, xml.find("</DataArray>", body) - body));
            std::string word;
            while (in >> word) values.push_back(std::strtod(word.c_str(), nullptr));
        }
        if (in_field) {
            v.field[name] = values;
        } else {
            v.arrays[name] = values;
            v.components[name] = comps.empty() ? 1 : std::stoi(comps);
            v.types[name] = type;
        }
    }
    return v;
}

void check_vtu(const Vtu& v, const Snapshot& s) {
    const std::size_t n = s.r.size();
    ASSERT_EQ(v.points, n);
    ASSERT_EQ(v.cells, n);
    for (const char* name : {"points", "radius", "velocity", "contact", "connectivity", "offsets", "types"})
        ASSERT_EQ(v.arrays.count(name), 1u) << name;
    EXPECT_EQ(v.components.at("points"), 3);
    EXPECT_EQ(v.components.at("velocity"), 3);
    EXPECT_EQ(v.types.at("points"), "Float64");
    const std::vector<double>& p = v.arrays.at("points");
    const std::vector<double>& vel = v.arrays.at("velocity");
    ASSERT_EQ(p.size(), 3 * n);
    ASSERT_EQ(vel.size(), 3 * n);
    ASSERT_EQ(v.arrays.at("radius").size(), n);
    ASSERT_EQ(v.arrays.at("contact").size(), n);
    ASSERT_EQ(v.arrays.at("connectivity").size(), n);
    ASSERT_EQ(v.arrays.at("offsets").size(), n);
    ASSERT_EQ(v.arrays.at("types").size(), n);
    for (std::size_t i = 0; i < n; ++i) {  // float64, raw or 17 digits: exact
        EXPECT_EQ(p[3 * i], s.x[i]) << i;
        EXPECT_EQ(p[3 * i + 1], s.y[i]) << i;
        EXPECT_EQ(p[3 * i + 2], s.z[i]) << i;
        EXPECT_EQ(vel[3 * i], s.vx[i]) << i;
        EXPECT_EQ(vel[3 * i + 1], s.vy[i]) << i;
        EXPECT_EQ(vel[3 * i + 2], s.vz[i]) << i;
        EXPECT_EQ(v.arrays.at("radius")[i], s.r[i]) << i;
        EXPECT_EQ(v.arrays.at("contact")[i], s.contact[i]) << i;
        EXPECT_EQ(v.arrays.at("connectivity")[i], double(i));
        EXPECT_EQ(v.arrays.at("offsets")[i], double(i + 1));
        EXPECT_EQ(v.arrays.at("types")[i], 1.0);  // VTK_VERTEX
    }
    ASSERT_EQ(v.field.count("TIME"), 1u);
    ASSERT_EQ(v.field.count("STEP"), 1u);
    EXPECT_EQ(v.field.at("TIME").at(0), s.time);
    EXPECT_EQ(v.field.at("STEP").at(0), double(s.step));
}

struct PvdItem {
    double time;
    std::string file;
};

std::vector<PvdItem> read_pvd(const fs::path& path) {
    const std::string text = read_all(path);
    EXPECT_NE(text.find("type=\"Collection\""), std::string::npos);
    std::vector<PvdItem> out;
    for (std::size_t at = text.find("<DataSet"); at != std::string::npos; at = text.find("<DataSet", at + 1))
        out.push_back(PvdItem{std::strtod(attribute(text, at, "timestep").c_str(), nullptr), attribute(text, at, "file")});
    return out;
}

// ------------------------------------------------------------ the tests

particles::Config small_config() {
    particles::Config c;
    c.n = 300;
    c.threads = 1;
    c.seed = 7;
    return c;
}

TEST(ParticleFiles, ParseFormats) {
    std::vector<ParticleFormat> f;
    ASSERT_TRUE(particles::parse_particle_formats("xyz", f));
    EXPECT_EQ(f, std::vector<ParticleFormat>{ParticleFormat::xyz});
    ASSERT_TRUE(particles::parse_particle_formats("vtu,xyz,vtu", f));
    EXPECT_EQ(f, (std::vector<ParticleFormat>{ParticleFormat::vtu, ParticleFormat::xyz}));
    ASSERT_TRUE(particles::parse_particle_formats("both", f));
    EXPECT_EQ(f.size(), 2u);
    for (const char* bad : {"", "vtk", "xyz,", ",vtu", "XYZ"}) {
        std::vector<ParticleFormat> g{ParticleFormat::xyz};
        EXPECT_FALSE(particles::parse_particle_formats(bad, g)) << bad;
        EXPECT_EQ(g.size(), 1u) << bad;  // unchanged
    }
}

/// A short DEM run written in both formats (the .vtu both binary and ASCII),
/// every frame read back and compared with the simulation's state.
TEST(ParticleFiles, ReadBackEqualsTheSimulation) {
    const fs::path dir = fresh_dir("readback");
    particles::Simulation sim(small_config());
    {  // Two spheres overlapping, so that the contact column holds ones too.
        const Snapshot s = snapshot(sim);
        std::vector<particles::Vec3> pos(s.r.size()), vel(s.r.size());
        for (std::size_t i = 0; i < pos.size(); ++i)
            pos[i] = {s.x[i], s.y[i], s.z[i]}, vel[i] = {s.vx[i], s.vy[i], s.vz[i]};
        pos[1] = {s.x[0] + s.r[0], s.y[0], s.z[0]};
        sim.set_particles(pos, vel, s.r, false);
    }
    std::vector<Snapshot> frames;
    {
        particles::ParticleWriter raw(dir.string(), {ParticleFormat::xyz, ParticleFormat::vtu});
        particles::ParticleWriter ascii(dir.string(), {ParticleFormat::vtu}, "ascii", particles::VtuEncoding::ascii);
        for (int f = 0; f < 4; ++f) {
            // One step, then a few a frame (a whole frame_dt takes hundreds at this size).
            for (int s = 0; s < (f == 0 ? 0 : f == 1 ? 1 : 25); ++s) sim.step();
            frames.push_back(snapshot(sim));
            raw.write(sim);
            ascii.write(sim);
        }
        raw.close();
        EXPECT_EQ(raw.frames(), 4);
        EXPECT_EQ(raw.paths(), (std::vector<std::string>{(dir / "particles.xyz").string(), (dir / "particles.pvd").string()}));
    }
    EXPECT_GT(frames.back().time, 0.0);
    EXPECT_EQ(frames[1].contact[0], 1);  // the spheres placed overlapping, after one step
    EXPECT_EQ(frames[1].contact[1], 1);

    const std::vector<XyzFrame> xyz = read_xyz(dir / "particles.xyz");
    ASSERT_EQ(xyz.size(), frames.size());
    for (std::size_t f = 0; f < frames.size(); ++f) {
        SCOPED_TRACE("xyz frame " + std::to_string(f));
        check_xyz_frame(xyz[f], frames[f]);
    }
    for (const char* stem : {"particles", "ascii"}) {
        const std::vector<PvdItem> pvd = read_pvd(dir / (std::string(stem) + ".pvd"));
        ASSERT_EQ(pvd.size(), frames.size()) << stem;
        EXPECT_FALSE(fs::exists(dir / (std::string(stem) + ".pvd.tmp")));
        for (std::size_t f = 0; f < frames.size(); ++f) {
            SCOPED_TRACE(std::string(stem) + " frame " + std::to_string(f));
            char name[64];
            std::snprintf(name, sizeof name, "%s_%04zu.vtu", stem, f);
            EXPECT_EQ(pvd[f].file, name);
            EXPECT_EQ(pvd[f].time, frames[f].time);
            check_vtu(read_vtu(dir / pvd[f].file), frames[f]);
        }
    }
    // The binary file really is binary (and smaller than the ASCII one).
    EXPECT_NE(read_all(dir / "particles_0001.vtu").find("encoding=\"raw\""), std::string::npos);
    EXPECT_LT(fs::file_size(dir / "particles_0001.vtu"), fs::file_size(dir / "ascii_0001.vtu"));
    fs::remove_all(dir);
}

/// run_particles (the demo's run) with particle files: one frame per
/// picture instant, the starting state first, into the run's folder.
TEST(ParticleFiles, RunWritesAFramePerFrameDt) {
    const fs::path dir = fresh_dir("run");
    particles::RunSettings run;
    run.config = small_config();
    run.config.substeps = 10;  // 10 steps a frame: a short run
    run.steps = 35;            // frames at steps 0, 10, 20, 30
    run.pictures = false;
    run.progress = false;
    run.out_dir = dir.string();
    run.particle_formats = {ParticleFormat::vtu, ParticleFormat::xyz};
    const particles::RunResult r = particles::run_particles(run, nullptr);
    EXPECT_EQ(r.particle_frames, 4);
    ASSERT_EQ(r.particle_files.size(), 2u);
    EXPECT_EQ(fs::path(r.particle_files[0]).filename(), "particles.xyz");
    EXPECT_EQ(fs::path(r.particle_files[1]).filename(), "particles.pvd");
    const std::vector<XyzFrame> xyz = read_xyz(r.particle_files[0]);
    const std::vector<PvdItem> pvd = read_pvd(r.particle_files[1]);
    ASSERT_EQ(xyz.size(), 4u);
    ASSERT_EQ(pvd.size(), 4u);
    for (std::size_t f = 0; f < 4; ++f) {
        EXPECT_EQ(std::stoull(xyz[f].info.at("Step")), 10 * f);
        EXPECT_EQ(std::strtod(xyz[f].info.at("Time").c_str(), nullptr), pvd[f].time);
        const Vtu v = read_vtu(fs::path(r.out_dir) / pvd[f].file);
        ASSERT_EQ(v.points, run.config.n);
        EXPECT_EQ(v.field.at("STEP").at(0), double(10 * f));
        for (std::size_t i = 0; i < v.points; ++i) {  // the same particles in both files
            expect_close(xyz[f].columns[0][i], v.arrays.at("points")[3 * i], "x", i);
            expect_close(xyz[f].columns[1][i], v.arrays.at("points")[3 * i + 1], "y", i);
            expect_close(xyz[f].columns[2][i], v.arrays.at("points")[3 * i + 2], "z", i);
        }
    }
    fs::remove_all(dir);
}

TEST(ParticleFiles, UnwritableFolderThrows) {
    EXPECT_THROW(particles::ParticleWriter("/nonexistent/broadphase/dir", {ParticleFormat::xyz}), std::runtime_error);
    particles::ParticleWriter vtu("/nonexistent/broadphase/dir", {ParticleFormat::vtu});  // opens nothing yet
    particles::Simulation sim(small_config());
    EXPECT_THROW(vtu.write(sim), std::runtime_error);
}

}  // namespace
