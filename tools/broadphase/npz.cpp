#include "npz.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <memory>

#if defined(BROADPHASE_WITH_ZLIB)
#include <zlib.h>
#endif

#include "errors.hpp"
#include "npy.hpp"

namespace broadphase_cli {
namespace {

// Zip record signatures (PKWARE's APPNOTE.TXT, section 4.3).
constexpr std::uint32_t local_header_sig = 0x04034b50;
constexpr std::uint32_t central_header_sig = 0x02014b50;
constexpr std::uint32_t end_record_sig = 0x06054b50;
constexpr std::uint32_t zip64_end_record_sig = 0x06064b50;
constexpr std::uint32_t zip64_locator_sig = 0x07064b50;
constexpr std::size_t end_record_size = 22, zip64_end_record_size = 56, zip64_locator_size = 20;
constexpr std::size_t central_header_size = 46, local_header_size = 30;
constexpr std::uint16_t method_stored = 0, method_deflate = 8;

std::uint16_t le16(const unsigned char* p) { return static_cast<std::uint16_t>(p[0] | p[1] << 8); }
std::uint32_t le32(const unsigned char* p) { return le16(p) | std::uint32_t(le16(p + 2)) << 16; }
std::uint64_t le64(const unsigned char* p) { return le32(p) | std::uint64_t(le32(p + 4)) << 32; }

/// CRC-32 (the zip and gzip one: reflected polynomial 0xEDB88320).
class Crc32 {
public:
    void update(const unsigned char* p, std::size_t n) {
        static const std::array<std::uint32_t, 256> table = [] {
            std::array<std::uint32_t, 256> t{};
            for (std::uint32_t i = 0; i < 256; ++i) {
                std::uint32_t c = i;
                for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
                t[i] = c;
            }
            return t;
        }();
        for (std::size_t i = 0; i < n; ++i) state_ = table[(state_ ^ p[i]) & 0xff] ^ (state_ >> 8);
    }
    std::uint32_t value() const { return ~state_; }

private:
    std::uint32_t state_ = 0xFFFFFFFFu;
};

/// One entry of the central directory.
struct Entry {
    std::string name;
    std::uint16_t flags = 0, method = 0;
    std::uint32_t crc = 0;
    std::uint64_t compressed = 0, size = 0, local_offset = 0;
};

/// An open archive: its size and its central directory.
class Archive {
public:
    Archive(std::FILE* in, const std::string& name) : in_(in), name_(name) {
        if (!seek_stream(in, 0, SEEK_END) || !tell_stream(in, file_size_))
            throw CliError(name + ": cannot seek in the .npz file");
        read_directory();
    }

    const std::vector<Entry>& entries() const { return entries_; }
    std::FILE* stream() const { return in_; }
    std::uint64_t file_size() const { return file_size_; }
    [[noreturn]] void fail(const std::string& why) const { throw CliError(name_ + ": " + why); }

    /// Reads `n` bytes at `offset`, or fails saying the archive is truncated.
    void read_at(std::uint64_t offset, unsigned char* dst, std::size_t n, const char* what) const {
        if (offset > file_size_ || n > file_size_ - offset || !seek_stream(in_, offset, SEEK_SET) ||
            std::fread(dst, 1, n, in_) != n)
            fail(std::string("not a valid .npz (zip) archive: truncated ") + what);
    }

private:
    void read_directory() {
        // The end record: 22 bytes and a comment of up to 65,535 at the end of the file.
        const std::uint64_t tail_size = std::min<std::uint64_t>(file_size_, end_record_size + 0xFFFF);
        if (tail_size < end_record_size) fail("not a .npz (zip) archive: too short");
        std::vector<unsigned char> tail(static_cast<std::size_t>(tail_size));
        read_at(file_size_ - tail_size, tail.data(), tail.size(), "end record");
        std::size_t at = tail.size() - end_record_size;  // the last signature whose comment fits
        while (le32(&tail[at]) != end_record_sig || at + end_record_size + le16(&tail[at + 20]) > tail.size()) {
            if (at == 0) fail("not a .npz (zip) archive: no end of central directory record");
            --at;
        }
        const unsigned char* end = &tail[at];
        const std::uint64_t end_offset = file_size_ - tail_size + at;
        if (le16(end + 4) != 0 || le16(end + 6) != 0) fail("multi-disk zip archives are not supported");
        std::uint64_t count = le16(end + 10), dir_size = le32(end + 12), dir_offset = le32(end + 16);

        // Zip64: a locator just before the end record points to the zip64 end record.
        if (end_offset >= zip64_locator_size) {
            unsigned char loc[zip64_locator_size];
            read_at(end_offset - zip64_locator_size, loc, sizeof loc, "zip64 locator");
            if (le32(loc) == zip64_locator_sig) {
                unsigned char rec[zip64_end_record_size];
                read_at(le64(loc + 8), rec, sizeof rec, "zip64 end record");
                if (le32(rec) != zip64_end_record_sig) fail("not a valid .npz (zip) archive: bad zip64 end record");
                count = le64(rec + 32);
                dir_size = le64(rec + 40);
                dir_offset = le64(rec + 48);
            }
        }
        if (dir_offset > file_size_ || dir_size > file_size_ - dir_offset)
            fail("not a valid .npz (zip) archive: the central directory lies outside the file");
        // Each entry takes at least 46 bytes: a count beyond that is a lie, not an allocation.
        if (count > dir_size / central_header_size)
            fail("not a valid .npz (zip) archive: more entries than the central directory holds");
        std::vector<unsigned char> dir(static_cast<std::size_t>(dir_size));
        read_at(dir_offset, dir.data(), dir.size(), "central directory");
        std::size_t pos = 0;
        for (std::uint64_t k = 0; k < count; ++k) pos = parse_entry(dir, pos);
    }

    /// Parses the central directory entry at `pos`; returns where the next one starts.
    std::size_t parse_entry(const std::vector<unsigned char>& dir, std::size_t pos) {
        const auto bad = [&](const char* why) { fail(std::string("not a valid .npz (zip) archive: ") + why); };
        if (dir.size() - pos < central_header_size || le32(&dir[pos]) != central_header_sig)
            bad("bad central directory entry");
        const unsigned char* h = &dir[pos];
        Entry e;
        e.flags = le16(h + 8);
        e.method = le16(h + 10);
        e.crc = le32(h + 16);
        e.compressed = le32(h + 20);
        e.size = le32(h + 24);
        const std::size_t name_len = le16(h + 28), extra_len = le16(h + 30), comment_len = le16(h + 32);
        if (le16(h + 34) != 0 && le16(h + 34) != 0xFFFF) fail("multi-disk zip archives are not supported");
        e.local_offset = le32(h + 42);
        const std::size_t next = pos + central_header_size + name_len + extra_len + comment_len;
        if (next > dir.size()) bad("truncated central directory entry");
        e.name.assign(reinterpret_cast<const char*>(h + central_header_size), name_len);
        // The zip64 extra field: 64-bit values for those of the header that are 0xFFFFFFFF, in this order.
        const unsigned char* x = h + central_header_size + name_len;
        for (std::size_t i = 0; i + 4 <= extra_len;) {
            const std::size_t id = le16(x + i), len = le16(x + i + 2);
            if (i + 4 + len > extra_len) bad("truncated extra field");
            if (id == 0x0001) {
                std::size_t j = i + 4;
                for (std::uint64_t* v : {&e.size, &e.compressed, &e.local_offset}) {
                    if (*v != 0xFFFFFFFFu) continue;
                    if (j + 8 > i + 4 + len) bad("truncated zip64 extra field");
                    *v = le64(x + j);
                    j += 8;
                }
            }
            i += 4 + len;
        }
        entries_.push_back(std::move(e));
        return next;
    }

    std::FILE* in_;
    const std::string& name_;
    std::uint64_t file_size_ = 0;
    std::vector<Entry> entries_;
};

/// The bytes of one entry, uncompressed, its size and CRC-32 checked when
/// the last is read.
class EntrySource : public ByteSource {
public:
    EntrySource(const Archive& archive, const Entry& entry, const std::string& label)
        : archive_(archive), entry_(entry), label_(label), left_(entry.compressed) {}

    std::size_t read(void* dst, std::size_t n) override {
        const std::size_t got = produce(static_cast<unsigned char*>(dst), n);
        crc_.update(static_cast<const unsigned char*>(dst), got);
        produced_ += got;
        if (produced_ > entry_.size) fail("holds more bytes than its directory entry says");
        if (got < n && !checked_) {  // the end: the whole entry has been read
            checked_ = true;
            if (produced_ != entry_.size) fail("holds fewer bytes than its directory entry says");
            if (crc_.value() != entry_.crc) fail("CRC-32 mismatch: the archive is corrupt");
        }
        return got;
    }

protected:
    [[noreturn]] void fail(const std::string& why) const { throw CliError(label_ + ": " + why); }

    /// Up to `n` raw (compressed) bytes of the entry; 0 at its end.
    std::size_t read_raw(unsigned char* dst, std::size_t n) {
        const std::size_t k = static_cast<std::size_t>(std::min<std::uint64_t>(n, left_));
        if (k > 0 && std::fread(dst, 1, k, archive_.stream()) != k) fail("truncated archive entry");
        left_ -= k;
        return k;
    }
    std::uint64_t raw_left() const { return left_; }

    /// Up to `n` uncompressed bytes; fewer only at the end.
    virtual std::size_t produce(unsigned char* dst, std::size_t n) { return read_raw(dst, n); }

private:
    const Archive& archive_;
    const Entry& entry_;
    std::string label_;
    std::uint64_t left_, produced_ = 0;
    Crc32 crc_;
    bool checked_ = false;
};

#if defined(BROADPHASE_WITH_ZLIB)
/// A deflated entry, inflated as it is read (zlib, raw deflate).
class InflateSource : public EntrySource {
public:
    InflateSource(const Archive& archive, const Entry& entry, const std::string& label)
        : EntrySource(archive, entry, label) {
        if (inflateInit2(&z_, -MAX_WBITS) != Z_OK) fail("zlib cannot start inflating");
    }
    ~InflateSource() override { inflateEnd(&z_); }
    InflateSource(const InflateSource&) = delete;
    InflateSource& operator=(const InflateSource&) = delete;

private:
    std::size_t produce(unsigned char* dst, std::size_t n) override {
        z_.next_out = dst;
        z_.avail_out = static_cast<uInt>(std::min<std::size_t>(n, std::numeric_limits<uInt>::max()));
        const std::size_t asked = z_.avail_out;
        while (z_.avail_out > 0 && !ended_) {
            if (z_.avail_in == 0 && raw_left() > 0) {
                z_.next_in = buffer_.data();
                z_.avail_in = static_cast<uInt>(read_raw(buffer_.data(), buffer_.size()));
            }
            const int r = inflate(&z_, Z_NO_FLUSH);
            if (r == Z_STREAM_END) {
                ended_ = true;
            } else if (r == Z_BUF_ERROR) {  // no progress: only more input can help
                if (z_.avail_in != 0 || raw_left() == 0)
                    fail("compressed data ends early: the archive is truncated or corrupt");
            } else if (r != Z_OK) {
                fail(std::string("corrupt compressed data") + (z_.msg ? std::string(" (") + z_.msg + ")" : ""));
            }
        }
        return asked - z_.avail_out;
    }

    z_stream z_{};
    std::array<unsigned char, 1 << 14> buffer_{};
    bool ended_ = false;
};
#endif

std::string array_name(const Entry& e) {
    const std::string& n = e.name;
    return n.size() > 4 && n.compare(n.size() - 4, 4, ".npy") == 0 ? n.substr(0, n.size() - 4) : n;
}

}  // namespace

bool npz_reads_compressed() {
#if defined(BROADPHASE_WITH_ZLIB)
    return true;
#else
    return false;
#endif
}

LoadedBoxes read_npz_boxes(std::FILE* in, const std::string& name, const std::string& array) {
    const Archive archive(in, name);
    const std::vector<Entry>& entries = archive.entries();
    if (entries.empty()) archive.fail("the .npz archive holds no arrays");
    const Entry* entry = &entries.front();
    if (!array.empty()) {
        const auto it = std::find_if(entries.begin(), entries.end(),
                                     [&](const Entry& e) { return e.name == array || array_name(e) == array; });
        if (it == entries.end()) {
            std::string list;
            for (std::size_t k = 0; k < entries.size() && k < 20; ++k) list += (k ? ", " : "") + array_name(entries[k]);
            if (entries.size() > 20) list += ", ...";
            archive.fail("no array '" + array + "' in the archive; it holds " + list);
        }
        entry = &*it;
    }
    const std::string label = name + ":" + array_name(*entry);
    if (entry->flags & 1) throw CliError(label + ": encrypted zip entries are not supported");

    unsigned char local[local_header_size];
    archive.read_at(entry->local_offset, local, sizeof local, "local header");
    if (le32(local) != local_header_sig) archive.fail("not a valid .npz (zip) archive: bad local header");
    const std::uint64_t data_at = entry->local_offset + local_header_size + le16(local + 26) + le16(local + 28);
    if (data_at > archive.file_size() || entry->compressed > archive.file_size() - data_at)
        archive.fail("not a valid .npz (zip) archive: an entry runs past the end of the file");
    if (!seek_stream(in, data_at, SEEK_SET)) archive.fail("cannot seek in the .npz file");

    if (entry->method == method_stored) {
        if (entry->compressed != entry->size)
            throw CliError(label + ": a stored entry whose sizes differ: the archive is corrupt");
        EntrySource source(archive, *entry, label);
        return read_npy_boxes(source, label);
    }
    if (entry->method == method_deflate) {
#if defined(BROADPHASE_WITH_ZLIB)
        InflateSource source(archive, *entry, label);
        return read_npy_boxes(source, label);
#else
        throw CliError(label + ": compressed .npz needs zlib: rebuild with zlib1g-dev or save with np.savez");
#endif
    }
    throw CliError(label + ": zip compression method " + std::to_string(entry->method) +
                   " is not supported (only stored, np.savez, and deflate, np.savez_compressed)");
}

}  // namespace broadphase_cli
