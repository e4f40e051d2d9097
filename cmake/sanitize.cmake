# The sanitizer build (`make test-sanitize`, folder build-asan/): everything compiled and linked
# with AddressSanitizer + UndefinedBehaviorSanitizer, any UB report fatal. With clang whose
# libFuzzer links, the code also carries libFuzzer's coverage instrumentation
# (-fsanitize=fuzzer-no-link) and fuzz/ builds the libFuzzer binaries, which ctest runs briefly.
#
# Sets SIMFA_LIBFUZZER (ON: build libFuzzer binaries), SIMFA_LIBFUZZER_WHY (why not, for the
# skipped test's message) and SIMFA_NO_FUZZ_COVERAGE (compile options that turn the coverage
# instrumentation off for one file; empty without libFuzzer).
option(SIMFA_SANITIZE "Build with -fsanitize=address,undefined (make test-sanitize uses build-asan/)" OFF)
set(SIMFA_LIBFUZZER OFF)
set(SIMFA_NO_FUZZ_COVERAGE "")
if(NOT SIMFA_SANITIZE)
  set(SIMFA_LIBFUZZER_WHY "libFuzzer runs are part of the sanitizer build (make test-sanitize, build-asan/)")
  return()
endif()

# -O1: ASan's usual level (faster to build than -O2, stack traces keep their frames).
set(CMAKE_CXX_FLAGS_RELWITHDEBINFO "-O1 -g")
set(_simfa_san -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  include(CheckCXXSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS "-fsanitize=fuzzer,address")
  set(CMAKE_REQUIRED_LINK_OPTIONS "-fsanitize=fuzzer,address")
  check_cxx_source_compiles(
    "#include <cstddef>\n#include <cstdint>\nextern \"C\" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }"
    SIMFA_HAVE_LIBFUZZER)
  unset(CMAKE_REQUIRED_FLAGS)
  unset(CMAKE_REQUIRED_LINK_OPTIONS)
  if(SIMFA_HAVE_LIBFUZZER)
    set(SIMFA_LIBFUZZER ON)
    list(APPEND _simfa_san -fsanitize=fuzzer-no-link)
    # For files that must go without coverage instrumentation: clang 14 fails on coroutines with
    # it ("error: Cannot represent a difference across sections"; src/workload/programs.cpp).
    set(SIMFA_NO_FUZZ_COVERAGE -fno-sanitize-coverage=inline-8bit-counters,indirect-calls,trace-cmp,pc-table)
  else()
    set(SIMFA_LIBFUZZER_WHY "${CMAKE_CXX_COMPILER} cannot link -fsanitize=fuzzer (scripts/install-deps installs libclang-rt-14-dev)")
  endif()
else()
  set(SIMFA_LIBFUZZER_WHY "the sanitizer build uses ${CMAKE_CXX_COMPILER_ID}, not clang (scripts/install-deps installs clang-14 and libclang-rt-14-dev); the corpora are still replayed")
endif()
add_compile_options(${_simfa_san})
add_link_options(-fsanitize=address,undefined)
message(STATUS "simfa: sanitizer build (${_simfa_san}); libFuzzer binaries: ${SIMFA_LIBFUZZER}")
