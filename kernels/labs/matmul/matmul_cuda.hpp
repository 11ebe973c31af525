// The matmul lab on the GPU: device buffers for A, B, C and the cuBLAS reference, launches of
// every rung with validation, event timing and cuBLAS SGEMM (FP32, tensor cores off).
//
// No CUDA headers here (pimpl), so the UI and the bench driver include it from plain C++.
// Declared only when the CUDA backend is built (BLOCKSCOPE_HAS_CUDA).
#pragma once
#if BLOCKSCOPE_HAS_CUDA
#include <cstddef>
#include <memory>
#include <string>

#include "core/launch.hpp"
#include "core/launch_record.hpp"
#include "core/status.hpp"
#include "labs/matmul/matmul.hpp"

namespace bs::matmul {

// What the bench prints about the device, and how the FP32 peak was derived.
struct CudaDeviceReport {
  int device = 0;
  std::string name;
  int compute_major = 0, compute_minor = 0;
  int sm_count = 0;
  int fp32_lanes_per_sm = 0;   // FP32 FMA units per SM: 128 on sm_80+ except sm_80 itself (64)
  double clock_khz = 0;        // cudaDeviceGetAttribute(cudaDevAttrClockRate): the peak SM clock.
                               // cudaDeviceProp::clockRate was removed in CUDA 13.
  double fp32_peak_gflops = 0;  // sm_count * lanes * 2 FLOP/FMA * clock
  std::string peak_formula;     // the same, with the numbers
  int driver_version = 0;       // cudaDriverGetVersion, e.g. 13000 = CUDA 13.0 driver API
  int runtime_version = 0;      // cudaRuntimeGetVersion
  int cublas_version = 0;       // cublasGetVersion
  std::size_t total_global_bytes = 0;
  std::size_t l2_bytes = 0;
};

enum class CublasMath {
  Default,   // CUBLAS_DEFAULT_MATH: FP32 SGEMM on the FMA units (TF32 is opt-in and not used)
  Pedantic,  // CUBLAS_PEDANTIC_MATH: additionally forbids any reduced-precision shortcut
};

class CudaMatmulLab {
 public:
  // Fails (as a value) when there is no usable CUDA device or cuBLAS cannot start.
  static Result<std::unique_ptr<CudaMatmulLab>> create(int device = 0);
  ~CudaMatmulLab();
  CudaMatmulLab(const CudaMatmulLab&) = delete;
  CudaMatmulLab& operator=(const CudaMatmulLab&) = delete;

  const DeviceLimits& limits() const;
  const CudaDeviceReport& device_report() const;

  // Device memory for A, B, C and Cref: checked against cudaMemGetInfo before anything is
  // allocated, so a size that does not fit gives a message, not a crash. Previous buffers are
  // released first.
  Status reserve(int M, int N, int K);
  // reserve() + upload. Also computes the error scale used by verify_against_cublas().
  Status set_matrices(const float* A, const float* B, int M, int N, int K);
  int M() const;
  int N() const;
  int K() const;

  // Validates (sizes, the kernel's rules, device limits, the compiled kernel's attributes),
  // launches `warmup` untimed and `repeats` timed runs (CUDA events around each launch), checks
  // cudaGetLastError, and reports the median time and the exact grid and block. C holds the
  // result of the last run.
  LaunchRecord run(MatmulKernel kernel, const MatmulConfig& config, int repeats = 1,
                   int warmup = 0);
  // cublasSgemm into Cref (row-major through swapped operands: C^T = B^T A^T).
  LaunchRecord run_cublas(int repeats = 1, int warmup = 0);

  Status download_c(float* host) const;          // M * N floats
  Status download_reference(float* host) const;  // Cref; run_cublas() first
  // Compares C with Cref (running cuBLAS once if it has not run for these matrices).
  Verification verify_against_cublas();
  // Compares C with a host reference (e.g. cpu_reference) of the current matrices.
  Verification verify_against(const float* host_reference);

  const float* device_a() const;
  const float* device_b() const;
  const float* device_c() const;  // for CUDA-GL interop heatmaps; valid until reserve()
  const float* device_reference() const;

  // Timed repeats start from a cold L2 (a memset over twice the L2 between repeats, untimed).
  void set_flush_l2(bool flush);
  void set_cublas_math(CublasMath math);

 private:
  CudaMatmulLab();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace bs::matmul
#endif
