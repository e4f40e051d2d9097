// cuTensorMapEncodeTiled through cudaGetDriverEntryPointByVersion, so no binary links libcuda.
#pragma once

#include <cuda.h>  // CUtensorMap and its enums (types only)
#include <cuda_runtime.h>
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled_v12000

#include <cstdio>
#include <cstdlib>

#include "host_util.h"

namespace simfa_gpu {

inline PFN_cuTensorMapEncodeTiled_v12000 tensormap_encoder() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
  if (!fn) {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    SIMFA_CUDA_CHECK(
        cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q));
    if (q != cudaDriverEntryPointSuccess || !p) {
      std::fprintf(stderr, "cuTensorMapEncodeTiled not available from the driver\n");
      std::exit(3);
    }
    fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }
  return fn;
}

// Encodes a tiled TensorMap. dims/box are innermost-first; strides_bytes[i] is the byte stride of
// dimension i+1 (rank-1 entries). Exits with a message on failure.
inline CUtensorMap make_tensormap(CUtensorMapDataType type, int rank, void* base,
                                  const cuuint64_t* dims, const cuuint64_t* strides_bytes,
                                  const cuuint32_t* box, CUtensorMapSwizzle swizzle,
                                  CUtensorMapL2promotion promo = CU_TENSOR_MAP_L2_PROMOTION_L2_128B) {
  CUtensorMap m;
  cuuint32_t estride[5] = {1, 1, 1, 1, 1};
  CUresult r = tensormap_encoder()(&m, type, static_cast<cuuint32_t>(rank), base, dims,
                                   strides_bytes, box, estride, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                   swizzle, promo, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed (CUresult %d), rank %d box0 %u\n",
                 static_cast<int>(r), rank, box[0]);
    std::exit(3);
  }
  return m;
}

}  // namespace simfa_gpu
