// particles: the particles of a run, frame by frame, in the files that
// OVITO and ParaView open (the viewers DEM and MD users already have):
//
//   xyz  extended XYZ, every frame in one file (particles.xyz): per frame
//        a count line, then a comment line with the domain as the lattice
//        and the columns,
//          Lattice="Lx 0 0 0 Ly 0 0 0 Lz" Properties=species:S:1:pos:R:3:radius:R:1:velo:R:3:contact:I:1
//          Time=... Step=... pbc="F F F"
//        then one line a particle (species X). OVITO reads radius and velo
//        as its Radius and Velocity; ASE's ase.io.read(index=':') reads it.
//   vtu  VTK XML unstructured grids, one a frame (particles_0000.vtu, ...):
//        the centres as points, one vertex cell each, point data radius,
//        velocity and contact, field data TIME and STEP; plus
//        particles.pvd, the collection that lists them with their times,
//        which ParaView opens as a time series. Binary (appended raw,
//        float64, exact) by default, or ASCII.
//
// Plain C++17 and the standard library, nothing else. The domain is the
// simulation's box [0, box.x] x [0, box.y] x [0, box.z].
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "particles/simulation.hpp"

namespace particles {

enum class ParticleFormat { xyz, vtu };

const char* to_string(ParticleFormat f);
/// A comma-separated list of formats: "xyz", "vtu", "xyz,vtu" ("both" is
/// both); repeats are dropped. False (out unchanged) on an unknown name.
bool parse_particle_formats(const std::string& list, std::vector<ParticleFormat>& out);

/// One frame: the arrays of n particles (not owned) and where and when it is.
struct ParticleFrame {
    std::size_t n = 0;
    const double* x = nullptr;
    const double* y = nullptr;
    const double* z = nullptr;
    const double* vx = nullptr;
    const double* vy = nullptr;
    const double* vz = nullptr;
    const double* radius = nullptr;
    const std::uint8_t* contact = nullptr;  ///< 1: touching another particle; null: all 0
    Vec3 box{1, 1, 1};                      ///< the domain [0, box]
    double time = 0;
    std::uint64_t step = 0;
};

/// The simulation's current state as a frame.
ParticleFrame frame_of(const Simulation& sim);

/// Appends one extended XYZ frame to `out` (numbers with 9 significant
/// digits). False when a write fails.
bool write_extxyz_frame(std::FILE* out, const ParticleFrame& frame);

enum class VtuEncoding {
    ascii,  ///< numbers as text (17 significant digits: exact)
    raw,    ///< appended raw binary, UInt64 block headers, the host's byte order
};

/// Writes one frame as a .vtu file. False and `error` set on failure.
bool write_vtu(const std::string& path, const ParticleFrame& frame, VtuEncoding encoding, std::string& error);

/// A .pvd collection's entry: a data set file (relative to the .pvd) and its time.
struct PvdEntry {
    double time = 0;
    std::string file;
};

/// Writes a .pvd collection listing `entries` in order. False and `error` set on failure.
bool write_pvd(const std::string& path, const std::vector<PvdEntry>& entries, std::string& error);

/// Writes a run's frames into a folder (which must exist), in each of the
/// formats asked: `stem`.xyz (every frame), `stem`_NNNN.vtu (one a frame)
/// and `stem`.pvd (rewritten after every frame, so a run cut short leaves a
/// collection that opens). Throws std::runtime_error when a file cannot be
/// written.
class ParticleWriter {
public:
    ParticleWriter(const std::string& dir, const std::vector<ParticleFormat>& formats,
                   const std::string& stem = "particles", VtuEncoding encoding = VtuEncoding::raw);
    ~ParticleWriter();
    ParticleWriter(const ParticleWriter&) = delete;
    ParticleWriter& operator=(const ParticleWriter&) = delete;

    void write(const ParticleFrame& frame);
    void write(const Simulation& sim) { write(frame_of(sim)); }
    /// Flushes and closes the .xyz file (the destructor does it too, ignoring errors).
    void close();

    int frames() const { return frames_; }
    /// What a viewer opens: the .xyz file and the .pvd collection, as asked.
    std::vector<std::string> paths() const;

private:
    std::string dir_, stem_;
    bool xyz_ = false, vtu_ = false;
    VtuEncoding encoding_;
    std::FILE* xyz_file_ = nullptr;
    std::vector<PvdEntry> entries_;
    int frames_ = 0;
};

}  // namespace particles
