// GPU tests run only where a CUDA device exists; elsewhere they skip visibly (ctest reports
// them as skipped, not passed) and say why.
#pragma once
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <string>

namespace bs::mapping::test {

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

}  // namespace bs::mapping::test

#define BS_SKIP_WITHOUT_GPU()                                                    \
  do {                                                                           \
    if (const std::string why = ::bs::mapping::test::why_no_gpu(); !why.empty()) \
      GTEST_SKIP() << why;                                                       \
  } while (0)
