// Replays files or directories of inputs through LLVMFuzzerTestOneInput, for compilers without
// libFuzzer (g++): keeps each harness compiling and runs its committed corpus as a regression
// test. Each input's name is printed before it runs, so a failing test names the input.
#include <algorithm>
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
    if (!in) {
      std::fprintf(stderr, "fuzz_replay: cannot read %s\n", p.c_str());
      std::exit(1);
    }
    std::vector<unsigned char> d((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::printf("fuzz_replay: %s (%zu bytes)\n", p.c_str(), d.size());
    std::fflush(stdout);
    LLVMFuzzerTestOneInput(d.data(), d.size());
    ++n;
  };
  for (int i = 1; i < argc; ++i) {
    if (fs::is_directory(argv[i])) {
      std::vector<fs::path> files;  // in name order, so runs are reproducible
      for (const auto& e : fs::directory_iterator(argv[i]))
        if (e.is_regular_file()) files.push_back(e.path());
      std::sort(files.begin(), files.end());
      for (const auto& f : files) run(f);
    } else {
      run(argv[i]);
    }
  }
  std::printf("fuzz_replay: %zu inputs, no findings\n", n);
  return n > 0 ? 0 : 1;
}
