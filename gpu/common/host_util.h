// Host helpers shared by the simfa GPU measurement kit: CUDA error checks, device description
// (printed as '#' comment lines at the top of every CSV), tiny argument parsing, CSV output that
// goes both to stdout and to a file.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define SIMFA_CUDA_CHECK(expr)                                                          \
  do {                                                                                  \
    cudaError_t simfa_err_ = (expr);                                                    \
    if (simfa_err_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(simfa_err_), \
                   __FILE__, __LINE__, cudaGetErrorString(simfa_err_));                 \
      std::exit(3);                                                                     \
    }                                                                                   \
  } while (0)

namespace simfa_gpu {

// What the CSV header comments carry. Clocks are the device's reported peak values (kHz attribute
// / 1000); the effective SM clock during a run is measured separately (measure_sm_clock_mhz).
struct DeviceInfo {
  int device = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int l2_bytes = 0;
  int sm_clock_mhz = 0;
  int mem_clock_mhz = 0;
  int mem_bus_bits = 0;
  size_t smem_per_block = 0;        // default limit (48 KiB)
  size_t smem_per_block_optin = 0;  // after cudaFuncSetAttribute
  size_t smem_per_sm = 0;
  size_t global_mem_bytes = 0;
  int driver_version = 0, runtime_version = 0;
};

inline DeviceInfo query_device(int dev = 0) {
  DeviceInfo d;
  d.device = dev;
  SIMFA_CUDA_CHECK(cudaSetDevice(dev));
  cudaDeviceProp p{};
  SIMFA_CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
  d.name = p.name;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.l2_bytes = p.l2CacheSize;
  d.mem_bus_bits = p.memoryBusWidth;
  d.smem_per_block = p.sharedMemPerBlock;
  d.smem_per_block_optin = p.sharedMemPerBlockOptin;
  d.smem_per_sm = p.sharedMemPerMultiprocessor;
  d.global_mem_bytes = p.totalGlobalMem;
  int khz = 0;  // CUDA 13 dropped clockRate/memoryClockRate from cudaDeviceProp: use attributes
  SIMFA_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
  d.sm_clock_mhz = khz / 1000;
  SIMFA_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, dev));
  d.mem_clock_mhz = khz / 1000;
  cudaDriverGetVersion(&d.driver_version);
  cudaRuntimeGetVersion(&d.runtime_version);
  return d;
}

// '#' comment block: one "key=value" per line so scripts can grep it.
inline std::string device_comment(const DeviceInfo& d) {
  char b[1024];
  std::snprintf(b, sizeof b,
                "# device=%s\n# compute_capability=%d.%d\n# sm_count=%d\n# l2_bytes=%d\n"
                "# sm_clock_peak_mhz=%d\n# mem_clock_peak_mhz=%d\n# mem_bus_bits=%d\n"
                "# smem_per_block_bytes=%zu\n# smem_per_block_optin_bytes=%zu\n"
                "# smem_per_sm_bytes=%zu\n# global_mem_bytes=%zu\n# cuda_driver=%d\n"
                "# cuda_runtime=%d\n",
                d.name.c_str(), d.cc_major, d.cc_minor, d.sm_count, d.l2_bytes, d.sm_clock_mhz,
                d.mem_clock_mhz, d.mem_bus_bits, d.smem_per_block, d.smem_per_block_optin,
                d.smem_per_sm, d.global_mem_bytes, d.driver_version, d.runtime_version);
  return b;
}

// Writes every line to stdout and, when a path was given, to the file as well.
class CsvOut {
 public:
  explicit CsvOut(const std::string& path) {
    if (!path.empty()) {
      f_ = std::fopen(path.c_str(), "w");
      if (!f_) {
        std::fprintf(stderr, "cannot open %s for writing\n", path.c_str());
        std::exit(2);
      }
    }
  }
  ~CsvOut() {
    if (f_) std::fclose(f_);
  }
  CsvOut(const CsvOut&) = delete;
  CsvOut& operator=(const CsvOut&) = delete;
  void line(const std::string& s) {
    std::fputs(s.c_str(), stdout);
    std::fflush(stdout);
    if (f_) {
      std::fputs(s.c_str(), f_);
      std::fflush(f_);
    }
  }
  template <class... A>
  void linef(const char* fmt, A... a) {
    char b[1024];
    std::snprintf(b, sizeof b, fmt, a...);
    line(b);
  }

 private:
  std::FILE* f_ = nullptr;
};

// Minimal "--key value" / "--flag" parser; unknown options are an error (exit 2).
class Args {
 public:
  Args(int argc, char** argv, const char* usage) : usage_(usage) {
    for (int i = 1; i < argc; ++i) a_.emplace_back(argv[i]);
    for (auto& s : a_)
      if (s == "-h" || s == "--help") {
        std::printf("%s", usage_);
        std::exit(0);
      }
  }
  std::string str(const std::string& key, const std::string& def) {
    for (size_t i = 0; i + 1 < a_.size(); ++i)
      if (a_[i] == key) {
        used_.push_back(i);
        used_.push_back(i + 1);
        return a_[i + 1];
      }
    return def;
  }
  long long num(const std::string& key, long long def) {
    std::string s = str(key, "");
    if (s.empty()) return def;
    char* end = nullptr;
    long long v = std::strtoll(s.c_str(), &end, 0);
    if (!end || *end) fail("bad number for " + key + ": " + s);
    return v;
  }
  bool flag(const std::string& key) {
    for (size_t i = 0; i < a_.size(); ++i)
      if (a_[i] == key) {
        used_.push_back(i);
        return true;
      }
    return false;
  }
  // Call after all lookups: rejects leftovers.
  void done() {
    for (size_t i = 0; i < a_.size(); ++i) {
      bool u = false;
      for (size_t j : used_) u = u || j == i;
      if (!u) fail("unknown argument: " + a_[i]);
    }
  }
  [[noreturn]] void fail(const std::string& m) {
    std::fprintf(stderr, "error: %s\n%s", m.c_str(), usage_);
    std::exit(2);
  }

 private:
  const char* usage_;
  std::vector<std::string> a_;
  std::vector<size_t> used_;
};

}  // namespace simfa_gpu
