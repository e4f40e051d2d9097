// Log reader: a bounds-checked little-endian cursor walks header, tensormap table, warp table and
// entries in file order; every count is checked against the bytes that remain before anything is
// allocated, so memory use is bounded by the file size.
#include "instr/log_reader.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include <sys/stat.h>

#include "instr/error.h"

namespace simfa::instr {

void throw_log_error(const std::string& file, const std::string& what) {
  throw UserError(file + ": " + what);
}

namespace {

std::string hex16(uint32_t v) {
  static const char* d = "0123456789abcdef";
  std::string s = "0x0000";
  for (int i = 0; i < 4; ++i) s[5 - i] = d[(v >> (4 * i)) & 0xF];
  return s;
}

// Bounds-checked little-endian reader over the file image.
class Cursor {
 public:
  Cursor(const unsigned char* data, std::size_t size, const std::string& name)
      : data_(data), size_(size), name_(name) {}
  std::size_t offset() const { return pos_; }
  std::size_t remaining() const { return size_ - pos_; }
  // Fails with "truncated <what>" unless n more bytes are present.
  void need(uint64_t n, const std::string& what) const {
    if (n > remaining())
      fail("file truncated in " + what + ": needs " + std::to_string(n) + " bytes, " +
           std::to_string(remaining()) + " left");
  }
  void skip(uint64_t n, const std::string& what) {
    need(n, what);
    pos_ += static_cast<std::size_t>(n);
  }
  uint16_t u16(const std::string& what) { return static_cast<uint16_t>(le(2, what)); }
  uint32_t u32(const std::string& what) { return static_cast<uint32_t>(le(4, what)); }
  uint64_t u64(const std::string& what) { return le(8, what); }
  const unsigned char* bytes(std::size_t n, const std::string& what) {
    need(n, what);
    const unsigned char* p = data_ + pos_;
    pos_ += n;
    return p;
  }
  // Error at the current offset (or the given one).
  [[noreturn]] void fail(const std::string& what) const { fail_at(what, pos_); }
  [[noreturn]] void fail_at(const std::string& what, std::size_t off) const {
    throw_log_error(name_, what + " (offset " + std::to_string(off) + ")");
  }

 private:
  uint64_t le(int n, const std::string& what) {
    need(static_cast<uint64_t>(n), what);
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= uint64_t{data_[pos_ + i]} << (8 * i);
    pos_ += static_cast<std::size_t>(n);
    return v;
  }
  const unsigned char* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
  const std::string& name_;
};

// Collects at most a few examples of one warning class, then one summary line.
class WarningGroup {
 public:
  explicit WarningGroup(std::string what) : what_(std::move(what)) {}
  void add(const std::string& example) {
    if (count_++ < kExamples) examples_ += (examples_.empty() ? "" : "; ") + example;
  }
  void flush(const std::string& file, std::vector<std::string>& out) const {
    if (count_ == 0) return;
    std::string s = file + ": " + what_ + " in " + std::to_string(count_) + " warp" +
                    (count_ == 1 ? "" : "s") + " (" + examples_ +
                    (count_ > kExamples ? "; ..." : "") + ")";
    out.push_back(std::move(s));
  }

 private:
  static constexpr uint64_t kExamples = 4;
  std::string what_;
  std::string examples_;
  uint64_t count_ = 0;
};

std::string warp_name(uint64_t w, uint32_t wpb) {
  return "warp " + std::to_string(w) + " = block " + std::to_string(w / wpb) + " warp " +
         std::to_string(w % wpb);
}

void read_header(Cursor& c, EventLog& log) {
  // A short file that is not a prefix of the magic is "bad magic", not "truncated".
  if (c.remaining() == 0) c.fail_at("empty file, not a simfa event log", 0);
  const std::size_t n =
      c.remaining() < SIMFA_EVLOG_MAGIC_SIZE ? c.remaining() : SIMFA_EVLOG_MAGIC_SIZE;
  if (std::memcmp(c.bytes(n, "magic"), SIMFA_EVLOG_MAGIC, n) != 0)
    c.fail_at("not a simfa event log: bad magic (expected \"" SIMFA_EVLOG_MAGIC "\")", 0);
  c.need(SIMFA_EVLOG_MAGIC_SIZE - n, "magic");
  const std::size_t version_off = c.offset();
  log.version = c.u32("header");
  if (log.version != SIMFA_EVLOG_VERSION)
    c.fail_at("unsupported log version " + std::to_string(log.version) + " (this reader reads " +
                  std::to_string(SIMFA_EVLOG_VERSION) + ")",
              version_off);
  const uint32_t header_size = c.u32("header");
  if (header_size < evlog::kHeaderSize)
    c.fail_at("header size " + std::to_string(header_size) + " is smaller than " +
                  std::to_string(evlog::kHeaderSize),
              12);
  c.need(header_size - c.offset(), "header");
  FileHeader& h = log.header;
  for (uint32_t& g : h.grid) g = c.u32("header");
  for (uint32_t& t : h.block) t = c.u32("header");
  h.warps_per_block = c.u32("header");
  h.entries_per_warp = c.u32("header");
  h.clock_kind = c.u32("header");
  const uint32_t entry_size = c.u32("header");
  h.clock_rate_hz = c.u64("header");
  // Shape consistency: the warp table below is sized from these fields.
  for (int i = 0; i < 3; ++i) {
    if (h.grid[i] == 0) c.fail_at("grid dimension " + std::to_string(i) + " is 0", 16 + 4 * i);
    if (h.block[i] == 0) c.fail_at("block dimension " + std::to_string(i) + " is 0", 28 + 4 * i);
  }
  const uint64_t threads = uint64_t{h.block[0]} * h.block[1] * h.block[2];
  if (h.warps_per_block != evlog::warps_for_threads(threads))
    c.fail_at("warps per block " + std::to_string(h.warps_per_block) + " does not match block " +
                  std::to_string(h.block[0]) + "x" + std::to_string(h.block[1]) + "x" +
                  std::to_string(h.block[2]) + " (" + std::to_string(threads) + " threads)",
              40);
  if (h.clock_kind != SIMFA_CLOCK_GLOBALTIMER_NS && h.clock_kind != SIMFA_CLOCK_CLOCK64)
    c.fail_at("unknown clock kind " + std::to_string(h.clock_kind), 48);
  if (entry_size != evlog::kEntrySize)
    c.fail_at("entry size " + std::to_string(entry_size) + " (expected 16)", 52);
}

void read_tensormaps(Cursor& c, EventLog& log, uint32_t count, uint32_t record_size) {
  if (count == 0) return;
  if (record_size < evlog::kTensorMapRecordSize)
    c.fail_at("tensormap record size " + std::to_string(record_size) + " is smaller than " +
                  std::to_string(evlog::kTensorMapRecordSize),
              68);
  c.need(uint64_t{count} * record_size, "tensormap table");  // before reserve()
  log.tensormaps.reserve(count);
  std::set<uint32_t> ids;  // duplicate check in n log n (a scan per record was quadratic: 24 MB took 25 s)
  for (uint32_t i = 0; i < count; ++i) {
    const std::size_t start = c.offset();
    simfa_tensormap_desc t{};
    t.id = c.u32("tensormap table");
    t.rank = c.u32("tensormap table");
    t.base = c.u64("tensormap table");
    for (uint64_t& d : t.dims) d = c.u64("tensormap table");
    for (uint64_t& s : t.strides_bytes) s = c.u64("tensormap table");
    for (uint32_t& b : t.box) b = c.u32("tensormap table");
    t.elem_bytes = c.u32("tensormap table");
    c.skip(record_size - evlog::kTensorMapRecordSize, "tensormap table");
    const std::string which =
        "tensormap " + std::to_string(i) + " (id " + std::to_string(t.id) + ")";
    if (t.rank < 1 || t.rank > SIMFA_EVLOG_MAX_RANK)
      c.fail_at(which + ": rank " + std::to_string(t.rank) + " outside 1..5", start + 4);
    if (t.elem_bytes != 1 && t.elem_bytes != 2 && t.elem_bytes != 4 && t.elem_bytes != 8)
      c.fail_at(which + ": element size " + std::to_string(t.elem_bytes) + " bytes", start + 116);
    for (uint32_t d = 0; d < t.rank; ++d)
      if (t.dims[d] == 0 || t.box[d] == 0)
        c.fail_at(which + ": dimension " + std::to_string(d) + " has extent or box 0", start);
    if (!ids.insert(t.id).second) c.fail_at(which + ": duplicate tensormap id", start);
    log.tensormaps.push_back(t);
  }
}

}  // namespace

EventLog parse_log(const unsigned char* data, std::size_t size, const std::string& name) {
  EventLog log;
  log.source = name;
  Cursor c(data, size, name);
  read_header(c, log);
  // Fields after the shape block (offsets 64..79).
  const uint32_t n_tmaps = c.u32("header");
  const uint32_t tmap_record = c.u32("header");
  const uint64_t n_warps = c.u64("header");
  const FileHeader& h = log.header;
  // grid x warps per block can exceed 64 bits in a corrupt header: multiply with overflow checks.
  uint64_t expect = 0;
  const bool too_big = __builtin_mul_overflow(uint64_t{h.grid[0]}, uint64_t{h.grid[1]}, &expect) ||
                       __builtin_mul_overflow(expect, uint64_t{h.grid[2]}, &expect) ||
                       __builtin_mul_overflow(expect, uint64_t{h.warps_per_block}, &expect);
  if (too_big || expect != n_warps)
    c.fail_at("warp count " + std::to_string(n_warps) + " does not match grid " +
                  std::to_string(h.grid[0]) + "x" + std::to_string(h.grid[1]) + "x" +
                  std::to_string(h.grid[2]) + " x " + std::to_string(h.warps_per_block) +
                  " warps per block",
              72);
  // Skip header bytes a later minor revision may add (header_size > 80).
  uint32_t header_size = 0;
  for (int i = 0; i < 4; ++i) header_size |= uint32_t{data[12 + i]} << (8 * i);
  c.skip(header_size - c.offset(), "header");

  read_tensormaps(c, log, n_tmaps, tmap_record);

  // Warp table: counts and overflow flags. Validate its size before allocating.
  const std::size_t table_off = c.offset();
  if (n_warps > c.remaining() / evlog::kWarpRecordSize)
    c.need(n_warps * evlog::kWarpRecordSize, "warp table (" + std::to_string(n_warps) + " warps)");
  std::vector<uint32_t> counts(n_warps);
  std::vector<uint8_t> overflow(n_warps);
  uint64_t total = 0;
  for (uint64_t w = 0; w < n_warps; ++w) {
    counts[w] = c.u32("warp table");
    const uint32_t flag = c.u32("warp table");
    if (flag > 1)
      c.fail_at("overflow flag " + std::to_string(flag) + " of " + warp_name(w, h.warps_per_block) +
                    " is neither 0 nor 1",
                table_off + w * 8 + 4);
    overflow[w] = static_cast<uint8_t>(flag);
    if (counts[w] > h.entries_per_warp)
      c.fail_at("entry count " + std::to_string(counts[w]) + " of " +
                    warp_name(w, h.warps_per_block) + " exceeds the buffer capacity of " +
                    std::to_string(h.entries_per_warp) + " entries per warp",
                table_off + w * 8);
    total += counts[w];  // <= 2^32 * n_warps, and n_warps <= file size / 8: no overflow
  }
  if (total > c.remaining() / evlog::kEntrySize)
    c.fail("file truncated in entries: counts promise " + std::to_string(total) + " entries (" +
           std::to_string(total * evlog::kEntrySize) + " bytes), " + std::to_string(c.remaining()) +
           " bytes left");
  if (total * evlog::kEntrySize != c.remaining())
    c.fail_at(std::to_string(c.remaining() - total * evlog::kEntrySize) +
                  " trailing bytes after the last entry",
              c.offset() + total * evlog::kEntrySize);

  // Entries, warp by warp.
  WarningGroup overflowed("buffer overflowed, later events were dropped");
  WarningGroup non_monotonic("timestamps decrease");
  log.warps.resize(n_warps);
  for (uint64_t w = 0; w < n_warps; ++w) {
    WarpLog& wl = log.warps[w];
    wl.overflow = overflow[w] != 0;
    if (wl.overflow) overflowed.add(warp_name(w, h.warps_per_block));
    wl.entries.resize(counts[w]);
    bool reported = false;
    for (uint32_t i = 0; i < counts[w]; ++i) {
      const std::size_t off = c.offset();
      Entry& e = wl.entries[i];
      e.timestamp = c.u64("entries");
      e.event = c.u16("entries");
      e.stage = c.u16("entries");
      e.payload = c.u16("entries");
      e.pad = 0;
      c.skip(2, "entries");
      if (!simfa_evlog_event_valid(e.event))
        throw_log_error(name, "unknown event id " + hex16(e.event) + " (offset " +
                                  std::to_string(off) + " / warp " + std::to_string(w) + " entry " +
                                  std::to_string(i) + ")");
      if (i > 0 && e.timestamp < wl.entries[i - 1].timestamp && !reported) {
        non_monotonic.add(warp_name(w, h.warps_per_block) + " entry " + std::to_string(i));
        reported = true;
      }
    }
  }
  overflowed.flush(name, log.warnings);
  non_monotonic.flush(name, log.warnings);
  return log;
}

EventLog read_log(const std::string& path) {
  // Only a regular file: a FIFO would block the read forever (this library stands alone, so the
  // check is here rather than sim/files.h's).
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw_log_error(path, errno == ENOENT ? std::string("no such file or directory")
                                          : std::string("cannot read: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw_log_error(path, "is a directory, not an event log");
  if (!S_ISREG(st.st_mode))
    throw_log_error(path, "not a regular file (a FIFO, socket or device); an event log is read from a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw_log_error(path, "cannot open file");
  std::vector<unsigned char> data((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
  if (in.bad()) throw_log_error(path, "read error");
  return parse_log(data.data(), data.size(), path);
}

}  // namespace simfa::instr
