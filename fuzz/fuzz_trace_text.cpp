// libFuzzer harness for the text trace reader (src/trace/io.*, docs/trace-format.md). Property:
// read_trace_text either returns a validated trace or throws simfa::UserError (any other
// exception, crash, sanitizer report or hang is a finding); an accepted trace written back with
// write_trace reads again, and writing that gives the same text (the writer and reader agree);
// every accepted TensorMap satisfies the layout rule the TMA engine relies on.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string_view>

#include "sim/error.h"
#include "trace/io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace simfa::trace;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  MemoryTrace t;
  try {
    t = read_trace_text(text, "fuzz.sft");
  } catch (const simfa::UserError&) {
    return 0;  // rejected with a message: fine
  }
  if (!t.validated) std::abort();
  // Every accepted TensorMap lists its dimensions innermost first without overlap (the TMA engine
  // relies on it), checked here in 128 bits.
  for (std::size_t id = 0; id < t.info.tmaps.size(); ++id) {
    if (!t.info.tmap_defined[id]) continue;
    const TensorMap& m = t.info.tmaps[id];
    for (int i = 1; i < m.rank; ++i) {
      const unsigned __int128 below =
          static_cast<unsigned __int128>(i == 1 ? m.esz : m.strides[i - 1]) * m.dims[i - 1];
      if (m.strides[i] < below) std::abort();
    }
  }
  std::ostringstream once;
  write_trace(once, t);
  const MemoryTrace again = read_trace_text(once.str(), "rewritten.sft");  // must not throw
  std::ostringstream twice;
  write_trace(twice, again);
  if (twice.str() != once.str()) std::abort();
  return 0;
}
