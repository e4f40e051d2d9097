// Text trace reader and writer. The reader tokenizes line by line, builds a MemoryTrace, and
// validates everything in MemoryTrace::finalize() so that errors carry file:line.
#include "trace/io.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>

#include <fmt/format.h>

#include "sim/error.h"
#include "sim/files.h"

namespace simfa::trace {
namespace {

namespace fs = std::filesystem;

struct Parser {
  MemoryTrace& t;
  std::string file;
  std::uint32_t line = 0;
  bool saw_header = false;
  bool& saw_kernel;
  std::map<std::uint32_t, std::size_t>& cta_index;  // id -> index in t.ctas
  CtaData* cta = nullptr;
  WgData* wg = nullptr;

  [[noreturn]] void fail(const std::string& msg) const {
    throw UserError(fmt::format("{}:{}: {}", file, line, msg));
  }

  std::uint64_t num(std::string_view tok, std::string_view what, std::uint64_t max) const {
    std::uint64_t v = 0;
    int base = 10;
    std::string_view s = tok;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2), base = 16;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (ec != std::errc() || p != s.data() + s.size() || s.empty())
      fail(fmt::format("{} {} is not a non-negative integer", what, quote(tok)));
    if (v > max) fail(fmt::format("{} {} is too large (maximum {})", what, v, max));
    return v;
  }

  // A role or kernel name: 1 to 64 printable characters (it is echoed in reports and file names).
  std::string name(std::string_view tok, std::string_view what) const {
    const bool printable = std::all_of(tok.begin(), tok.end(), [](char c) { return c > 0x20 && c < 0x7f; });
    if (tok.empty() || tok.size() > 64 || !printable)
      fail(fmt::format("{} {} is not a name (1 to 64 printable characters)", what, quote(tok)));
    return std::string(tok);
  }

  std::vector<std::uint64_t> list(std::string_view tok, std::string_view what, std::size_t n) const {
    std::vector<std::uint64_t> out;
    if (tok == "-" && n == 0) return out;
    std::size_t start = 0;
    while (start <= tok.size()) {
      auto comma = tok.find(',', start);
      if (comma == std::string_view::npos) comma = tok.size();
      out.push_back(num(tok.substr(start, comma - start), what, ~0ULL));
      start = comma + 1;
    }
    if (out.size() != n) fail(fmt::format("{} has {} values, rank needs {}", what, out.size(), n));
    return out;
  }

  // Splits positional operands from trailing key=value modifiers.
  static void split_mods(std::vector<std::string_view>& toks, std::vector<std::pair<std::string_view, std::string_view>>& mods) {
    while (toks.size() > 1) {
      auto eq = toks.back().find('=');
      if (eq == std::string_view::npos) break;
      mods.insert(mods.begin(), {toks.back().substr(0, eq), toks.back().substr(eq + 1)});
      toks.pop_back();
    }
  }

  void expect_operands(const std::vector<std::string_view>& toks, std::size_t n, std::string_view usage) const {
    if (toks.size() - 1 != n)
      fail(fmt::format("{} takes {} operand{} ({}), got {}", toks[0], n, n == 1 ? "" : "s", usage, toks.size() - 1));
  }

  void check_mods(const std::vector<std::pair<std::string_view, std::string_view>>& mods,
                  std::initializer_list<std::string_view> allowed, std::string_view op) const {
    for (const auto& [k, v] : mods) {
      if (std::find(allowed.begin(), allowed.end(), k) == allowed.end())
        fail(fmt::format("{} does not take the modifier {}", op, quote(k)));
    }
  }

  void parse_line(std::string_view text) {
    auto hash = text.find('#');
    if (hash != std::string_view::npos) text = text.substr(0, hash);
    std::vector<std::string_view> toks;
    std::size_t i = 0;
    while (i < text.size()) {
      while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r')) ++i;
      std::size_t j = i;
      while (j < text.size() && text[j] != ' ' && text[j] != '\t' && text[j] != '\r') ++j;
      if (j > i) toks.push_back(text.substr(i, j - i));
      i = j;
    }
    if (toks.empty()) return;
    if (!saw_header) {
      if (toks[0] != "SIMFA_TRACE" || toks.size() != 2)
        fail("a trace file must begin with 'SIMFA_TRACE <version>'");
      const auto v = num(toks[1], "format version", 1000);
      if (v != static_cast<std::uint64_t>(kFormatVersion))
        fail(fmt::format("format version {} is not supported (this simfa reads version {})", v, kFormatVersion));
      saw_header = true;
      return;
    }
    std::vector<std::pair<std::string_view, std::string_view>> mods;
    if (toks[0] == "KERNEL") return parse_kernel(toks);
    split_mods(toks, mods);
    if (toks[0] == "DEF_TMAP") return parse_tmap(toks, mods);
    if (toks[0] == "CTA") {
      expect_operands(toks, 1, "CTA id");
      check_mods(mods, {}, "CTA");
      const auto id = static_cast<std::uint32_t>(num(toks[1], "CTA id", 0xFFFFFFFEu));
      if (cta_index.count(id)) fail(fmt::format("CTA {} appears twice", id));
      cta_index[id] = t.ctas.size();
      t.ctas.push_back({id, {}});
      cta = &t.ctas.back();
      wg = nullptr;
      return;
    }
    if (toks[0] == "WG") {
      if (!cta) fail("WG before any CTA line");
      expect_operands(toks, 1, "WG index [role=NAME]");
      check_mods(mods, {"role"}, "WG");
      const auto idx = static_cast<std::uint32_t>(num(toks[1], "WG index", 63));
      for (const auto& w : cta->wgs)
        if (w.index == idx) fail(fmt::format("WG {} appears twice in CTA {}", idx, cta->id));
      WgData w;
      w.index = idx;
      w.file = file;
      for (const auto& [k, v] : mods) w.role = name(v, "WG role");
      cta->wgs.push_back(std::move(w));
      wg = &cta->wgs.back();
      return;
    }
    auto op = op_from_name(toks[0]);
    if (!op) fail(fmt::format("unknown opcode {}", quote(toks[0])));
    if (!wg) fail(fmt::format("{} outside a WG section (add 'CTA id' and 'WG index' lines first)", toks[0]));
    wg->code.push_back(parse_instr(*op, toks, mods));
    wg->lines.push_back(line);
  }

  Instr parse_instr(Op op, const std::vector<std::string_view>& toks,
                    const std::vector<std::pair<std::string_view, std::string_view>>& mods) {
    const std::uint64_t kAddr = ~0ULL;
    auto u16 = [&](std::string_view s, std::string_view what) { return static_cast<std::uint16_t>(num(s, what, 0xFFFF)); };
    auto u32 = [&](std::string_view s, std::string_view what) { return static_cast<std::uint32_t>(num(s, what, 0xFFFFFFFFu)); };
    std::uint16_t mc = 0;
    bool read_only = false;
    std::uint32_t tx = 0;
    for (const auto& [k, v] : mods) {
      if (k == "mc") mc = u16(v, "multicast mask");
      if (k == "read") read_only = num(v, "read flag", 1) == 1;
      if (k == "tx") tx = u32(v, "tx bytes");
    }
    switch (op) {
      case Op::TMA_TENSOR:
        expect_operands(toks, 4, "smem gmem map sid");
        check_mods(mods, {"mc"}, toks[0]);
        return Instr::tma_tensor(num(toks[1], "smem", kAddr), num(toks[2], "gmem", kAddr), u16(toks[3], "map"),
                                 u16(toks[4], "sid"), mc);
      case Op::TMA_BULK:
        expect_operands(toks, 4, "smem gmem bytes sid");
        check_mods(mods, {"mc"}, toks[0]);
        return Instr::tma_bulk(num(toks[1], "smem", kAddr), num(toks[2], "gmem", kAddr), u32(toks[3], "bytes"),
                               u16(toks[4], "sid"), mc);
      case Op::MB_WAIT:
        expect_operands(toks, 1, "sid");
        check_mods(mods, {}, toks[0]);
        return Instr::mb_wait(u16(toks[1], "sid"));
      case Op::ACQUIRE_STAGE:
        expect_operands(toks, 1, "sid [tx=BYTES]");
        check_mods(mods, {"tx"}, toks[0]);
        return Instr::acquire(u16(toks[1], "sid"), tx);
      case Op::RELEASE_STAGE:
        expect_operands(toks, 1, "sid [mc=MASK]");
        check_mods(mods, {"mc"}, toks[0]);
        return Instr::release(u16(toks[1], "sid"), mc);
      case Op::TMA_STORE:
        expect_operands(toks, 4, "smem gmem map gid");
        check_mods(mods, {}, toks[0]);
        return Instr::tma_store(num(toks[1], "smem", kAddr), num(toks[2], "gmem", kAddr), u16(toks[3], "map"),
                                u16(toks[4], "gid"));
      case Op::TMA_COMMIT:
      case Op::WGMMA_COMMIT: {
        expect_operands(toks, 1, "gid");
        check_mods(mods, {}, toks[0]);
        const auto g = u16(toks[1], "gid");
        return op == Op::TMA_COMMIT ? Instr::tma_commit(g) : Instr::wgmma_commit(g);
      }
      case Op::TMA_WAIT:
        expect_operands(toks, 2, "gid N [read=1]");
        check_mods(mods, {"read"}, toks[0]);
        return Instr::tma_wait(u16(toks[1], "gid"), u32(toks[2], "N"), read_only);
      case Op::WGMMA_WAIT:
        expect_operands(toks, 2, "gid N");
        check_mods(mods, {}, toks[0]);
        return Instr::wgmma_wait(u16(toks[1], "gid"), u32(toks[2], "N"));
      case Op::WGMMA: {
        expect_operands(toks, 11, "d a b M N K dtype acc mode sp gid");
        check_mods(mods, {}, toks[0]);
        auto dt = dtype_from_name(toks[7]);
        if (!dt) fail(fmt::format("dtype {} is not one of f16, bf16, e4m3, e5m2, tf32", quote(toks[7])));
        MmaMode mode;
        if (toks[9] == "SS") mode = MmaMode::SS;
        else if (toks[9] == "RS") mode = MmaMode::RS;
        else fail(fmt::format("mode {} is not SS or RS", quote(toks[9])));
        return Instr::wgmma(u32(toks[1], "d"), num(toks[2], "a", kAddr), num(toks[3], "b", kAddr), u16(toks[4], "M"),
                            u16(toks[5], "N"), u16(toks[6], "K"), *dt, num(toks[8], "acc", 1) == 1, mode,
                            num(toks[10], "sp", 1) == 1, u16(toks[11], "gid"));
      }
      case Op::BAR_ARRIVE:
        expect_operands(toks, 1, "bid");
        check_mods(mods, {}, toks[0]);
        return Instr::bar_arrive(u16(toks[1], "bid"));
      case Op::BAR_WAIT:
        expect_operands(toks, 2, "bid k");
        check_mods(mods, {}, toks[0]);
        return Instr::bar_wait(u16(toks[1], "bid"), u32(toks[2], "k"));
      case Op::BUBBLE: {
        expect_operands(toks, 1, "cycles");
        check_mods(mods, {"fixed"}, toks[0]);
        bool fixed = false;
        for (const auto& [k, v] : mods) fixed = num(v, "fixed", 1) == 1;
        return Instr::bubble(u32(toks[1], "cycles"), fixed);
      }
      case Op::LDG:
        expect_operands(toks, 2, "gmem bytes");
        check_mods(mods, {}, toks[0]);
        return Instr::ldg(num(toks[1], "gmem", kAddr), u32(toks[2], "bytes"));
      case Op::kCount: break;
    }
    fail("unknown opcode");
  }

  void parse_kernel(const std::vector<std::string_view>& toks) {
    if (saw_kernel) fail(fmt::format("a second KERNEL line (one kernel per trace; the first is at {})", t.kernel_where));
    saw_kernel = true;
    t.kernel_where = fmt::format("{}:{}", file, line);
    KernelInfo& k = t.info;
    for (std::size_t i = 1; i < toks.size(); ++i) {
      auto eq = toks[i].find('=');
      if (eq == std::string_view::npos) fail(fmt::format("KERNEL expects key=value, got {}", quote(toks[i])));
      auto key = toks[i].substr(0, eq), v = toks[i].substr(eq + 1);
      if (key == "name") k.name = v.empty() ? std::string() : name(v, "KERNEL name");
      else if (key == "ctas") k.ctas = static_cast<std::uint32_t>(num(v, "ctas", 0x7FFFFFFF));
      else if (key == "cluster") k.cluster = static_cast<std::uint32_t>(num(v, "cluster", 16));
      else if (key == "smem") k.smem = num(v, "smem", 1ULL << 32);
      else if (key == "regs") k.regs = static_cast<std::uint32_t>(num(v, "regs", 1u << 24));
      else if (key == "threads") k.threads = static_cast<std::uint32_t>(num(v, "threads", 4096));
      else if (key == "stages") k.stages = static_cast<std::uint32_t>(num(v, "stages", 0xFFFF));
      else if (key == "stage_arrivals") k.stage_arrivals = static_cast<std::uint32_t>(num(v, "stage_arrivals", 0xFFFF));
      else if (key == "groups") k.groups = static_cast<std::uint32_t>(num(v, "groups", 0xFFFF));
      else fail(fmt::format("unknown KERNEL key {} (name, ctas, cluster, smem, regs, threads, stages, "
                            "stage_arrivals, groups)", quote(key)));
    }
    if (k.cluster == 0) fail("cluster must be at least 1");
  }

  void parse_tmap(const std::vector<std::string_view>& toks,
                  const std::vector<std::pair<std::string_view, std::string_view>>& mods) {
    expect_operands(toks, 6, "map rank dims strides box esz [base=ADDR]");
    check_mods(mods, {"base"}, "DEF_TMAP");
    TensorMap m;
    m.id = static_cast<std::uint16_t>(num(toks[1], "map", 0xFFFF));
    const auto rank = num(toks[2], "rank", 255);
    if (rank < 1 || rank > kMaxRank) fail(fmt::format("DEF_TMAP rank {} is not in 1..{}", rank, kMaxRank));
    m.rank = static_cast<std::uint8_t>(rank);
    auto dims = list(toks[3], "dims", rank);
    auto strides = list(toks[4], "strides", rank - 1);
    auto box = list(toks[5], "box", rank);
    m.esz = static_cast<std::uint32_t>(num(toks[6], "esz", 8));
    for (std::size_t i = 0; i < rank; ++i) {
      m.dims[i] = dims[i];
      if (box[i] > 0xFFFFFFFFu) fail("box too large");
      m.box[i] = static_cast<std::uint32_t>(box[i]);
    }
    m.strides[0] = m.esz;
    for (std::size_t i = 1; i < rank; ++i) m.strides[i] = strides[i - 1];
    for (const auto& [k, v] : mods) m.base = num(v, "base", ~0ULL);
    if (auto e = validate(m)) fail(fmt::format("DEF_TMAP {}: {}", m.id, *e));
    if (t.info.has_tmap(m.id) && !(t.info.tmap(m.id) == m))
      fail(fmt::format("TensorMap {} is declared twice with different parameters", m.id));
    t.info.define_tmap(m);
  }
};

void parse_stream(std::istream& in, const std::string& name, MemoryTrace& t, bool& saw_kernel,
                  std::map<std::uint32_t, std::size_t>& cta_index) {
  Parser p{t, name, 0, false, saw_kernel, cta_index};
  std::string line;
  while (std::getline(in, line)) {
    ++p.line;
    p.parse_line(line);
  }
  if (!p.saw_header) throw UserError(fmt::format("{}: empty file (no 'SIMFA_TRACE' header)", name));
}

}  // namespace

MemoryTrace read_trace_paths(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const auto& p : paths) {
    std::error_code ec;
    const fs::file_status st = fs::status(p, ec);
    if (ec && ec != std::errc::no_such_file_or_directory)
      throw UserError(fmt::format("{}: cannot read: {}", p, ec.message()));
    if (fs::is_directory(st)) {
      // The .sft files directly in the folder (not below), in name order. Entries that cannot be
      // examined (a symlink loop, a dangling link) are errors naming them, as is an unreadable folder.
      std::vector<std::string> in_dir;
      fs::directory_iterator it(p, ec);
      if (ec) throw UserError(fmt::format("{}: cannot read directory: {}", p, ec.message()));
      for (const fs::directory_iterator end; it != end; it.increment(ec)) {
        if (ec) break;
        const fs::path& e = it->path();
        if (e.extension() != ".sft") continue;
        std::error_code fe;
        const fs::file_status est = fs::status(e, fe);
        if (fe) throw UserError(fmt::format("{}: cannot read: {}", e.string(), fe.message()));
        if (fs::is_directory(est)) continue;
        in_dir.push_back(e.string());
      }
      if (ec) throw UserError(fmt::format("{}: cannot read directory: {}", p, ec.message()));
      std::sort(in_dir.begin(), in_dir.end());
      if (in_dir.empty()) throw UserError(fmt::format("{}: directory holds no .sft trace files", p));
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else if (fs::exists(st) || fs::is_symlink(fs::symlink_status(p, ec))) {
      files.push_back(p);
    } else {
      throw UserError(fmt::format("{}: no such file or directory", p));
    }
  }
  if (files.empty()) throw UserError("no trace files given");
  MemoryTrace t;
  bool saw_kernel = false;
  std::map<std::uint32_t, std::size_t> cta_index;
  for (const auto& f : files) {
    std::ifstream in = open_input_file(f, "trace file");
    parse_stream(in, f, t, saw_kernel, cta_index);
    if (in.bad()) throw UserError(fmt::format("{}: read error", f));
  }
  if (!saw_kernel) throw UserError(fmt::format("{}: no KERNEL line in the trace", files.front()));
  t.finalize();
  return t;
}

MemoryTrace read_trace_text(std::string_view text, const std::string& name) {
  MemoryTrace t;
  bool saw_kernel = false;
  std::map<std::uint32_t, std::size_t> cta_index;
  std::istringstream in{std::string(text)};
  parse_stream(in, name, t, saw_kernel, cta_index);
  if (!saw_kernel) throw UserError(fmt::format("{}: no KERNEL line in the trace", name));
  t.finalize();
  return t;
}

void TraceWriter::file_header() { os_ << "SIMFA_TRACE " << kFormatVersion << "\n"; }

void TraceWriter::header(const KernelInfo& k) {
  file_header();
  os_ << format_kernel_line(k) << "\n";
  for (std::size_t i = 0; i < k.tmaps.size(); ++i)
    if (k.tmap_defined[i]) os_ << format(k.tmaps[i]) << "\n";
}

void TraceWriter::begin_cta(std::uint32_t id) { os_ << "CTA " << id << "\n"; }

void TraceWriter::begin_wg(std::uint32_t index, std::string_view role) {
  os_ << "WG " << index;
  if (!role.empty()) os_ << " role=" << role;
  os_ << "\n";
}

void TraceWriter::instr(const Instr& in) { os_ << format(in) << "\n"; }

void write_trace(std::ostream& os, const MemoryTrace& t) {
  TraceWriter w(os);
  w.header(t.info);
  for (const auto& c : t.ctas) {
    w.begin_cta(c.id);
    for (const auto& g : c.wgs) {
      w.begin_wg(g.index, g.role);
      for (const auto& in : g.code) w.instr(in);
    }
  }
}

void write_trace_dir(const std::string& dir, TraceSource& src) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw UserError(fmt::format("{}: cannot create directory: {}", dir, ec.message()));
  if (!fs::is_directory(dir, ec)) throw UserError(fmt::format("{}: not a directory", dir));
  // A folder written before: its kernel.sft and cta_NNNNNN.sft go first (a smaller trace would leave
  // CTAs of the old one behind, which `trace run DIR` reads). Any other .sft file would be read with
  // the new trace too: an error, before anything changes.
  std::vector<fs::path> stale;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    if (p.extension() != ".sft") continue;
    const std::string name = p.filename().string();
    const bool ours = name == "kernel.sft" ||
                      (name.size() == 14 && name.rfind("cta_", 0) == 0 &&
                       std::all_of(name.begin() + 4, name.begin() + 10, [](char ch) { return ch >= '0' && ch <= '9'; }));
    if (!ours)
      throw UserError(fmt::format("{}: holds {}, which `simfa trace run {}` would read with the new trace; "
                                  "write to a new or empty folder",
                                  dir, name, dir));
    stale.push_back(p);
  }
  if (ec) throw UserError(fmt::format("{}: cannot list directory: {}", dir, ec.message()));
  std::sort(stale.begin(), stale.end());
  for (const auto& p : stale)
    if (!fs::remove(p, ec) && ec) throw UserError(fmt::format("{}: cannot remove: {}", p.string(), ec.message()));
  // Each file is renamed into place when complete; kernel.sft comes last, so an interrupted write
  // leaves no folder that reads as a whole trace.
  std::vector<Instr> buf(4096);
  for (std::uint32_t c = 0; c < src.kernel().ctas; ++c) {
    OutputFile file((fs::path(dir) / fmt::format("cta_{:06d}.sft", c)).string());
    TraceWriter w(file.stream());
    w.file_header();
    w.begin_cta(c);
    CtaProgram prog = src.open(c);
    for (std::size_t g = 0; g < prog.wgs.size(); ++g) {
      w.begin_wg(static_cast<std::uint32_t>(g), prog.wgs[g].role);
      while (std::size_t n = prog.wgs[g].stream->read(buf.data(), buf.size()))
        for (std::size_t i = 0; i < n; ++i) w.instr(buf[i]);
    }
    file.commit();
  }
  OutputFile kernel((fs::path(dir) / "kernel.sft").string());
  TraceWriter(kernel.stream()).header(src.kernel());
  kernel.commit();
}

}  // namespace simfa::trace
