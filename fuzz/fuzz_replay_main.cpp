// Replays files or directories of inputs through LLVMFuzzerTestOneInput, for compilers without
// libFuzzer (g++): keeps the harness compiling and runs the seed corpus as a regression test.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::size_t n = 0;
  auto run = [&](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::vector<unsigned char> d((std::istreambuf_iterator<char>(in)),
                                 std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(d.data(), d.size());
    ++n;
  };
  for (int i = 1; i < argc; ++i) {
    if (fs::is_directory(argv[i])) {
      for (const auto& e : fs::directory_iterator(argv[i]))
        if (e.is_regular_file()) run(e.path());
    } else {
      run(argv[i]);
    }
  }
  std::printf("fuzz_replay: %zu inputs, no findings\n", n);
  return n > 0 ? 0 : 1;
}
