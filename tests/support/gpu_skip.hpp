// GPU tests run only where a CUDA device exists; elsewhere they skip visibly (ctest reports them
// as skipped, not passed) and say why, and on the GPU machine (BLOCKSCOPE_REQUIRE_GPU=1) that
// skip is a failure (skips.hpp). The one device check of the test suite.
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "skips.hpp"

namespace bs::test {

// Why no CUDA device can be used here; empty when one can.
inline std::string why_no_gpu() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return std::string("no CUDA device: cudaGetDeviceCount says ") + cudaGetErrorName(e);
  }
  if (count == 0) return "no CUDA device: cudaGetDeviceCount found 0";
  return {};
}

}  // namespace bs::test

#define BS_SKIP_WITHOUT_GPU()                                                                    \
  do {                                                                                           \
    if (const std::string why = ::bs::test::why_no_gpu(); !why.empty()) BS_SKIP_NO_GPU() << why; \
  } while (0)
