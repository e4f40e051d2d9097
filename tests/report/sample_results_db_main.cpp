// report_sample_db PATH: writes the sample results database of sample_results_db.h to PATH
// (replacing it), for the browser test of `simfa report` (browser_test.py).
#include <cstdio>
#include <exception>
#include <filesystem>

#include "sample_results_db.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: report_sample_db PATH\n");
    return 2;
  }
  try {
    std::filesystem::remove(argv[1]);
    simfa::test::make_sample_results_db(argv[1]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "report_sample_db: %s\n", e.what());
    return 1;
  }
  return 0;
}
