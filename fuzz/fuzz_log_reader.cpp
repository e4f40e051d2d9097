// libFuzzer harness for the event-log reader. Property: parse_log either returns a log or throws
// simfa::UserError (any other exception, crash, leak or huge allocation is a finding); a parsed
// log re-encodes to bytes that parse again and re-encode to the same bytes, and WarpGroup
// deduplication either succeeds or throws UserError.
//
// Build: clang++ -fsanitize=fuzzer,address (target fuzz_log_reader, see fuzz/CMakeLists.txt).
// Without libFuzzer the same entry point is linked with fuzz_replay_main.cpp to replay a corpus.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "instr/error.h"
#include "instr/log_reader.h"
#include "instr/log_writer.h"
#include "instr/warpgroups.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace simfa::instr;
  EventLog log;
  try {
    log = parse_log(data, size, "fuzz-input");
  } catch (const simfa::UserError&) {
    return 0;  // rejected with a message: fine
  }
  const std::vector<unsigned char> once = encode_log(log);
  const EventLog again = parse_log(once.data(), once.size(), "re-encoded");  // must not throw
  if (encode_log(again) != once) std::abort();                               // round trip is stable
  if (again.warps.size() != log.warps.size()) std::abort();
  try {  // the first translation step must cope with whatever the reader accepts
    const DedupResult d = dedupe_warpgroups(log);
    if (d.ctas.size() != log.num_blocks()) std::abort();
  } catch (const simfa::UserError&) {
  }
  return 0;
}
