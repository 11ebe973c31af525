// The GPU side of the matmul lab: one-line __global__ wrappers around each rung's body, the
// compiled set of instantiations, and CudaMatmulLab (buffers, launches, timing, cuBLAS).
//
// Sections: 1. kernels  2. dispatch to the compiled set  3. device report  4. the lab
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/exec.hpp"
#include "device/cuda_status.hpp"
#include "device/device_buffer.hpp"
#include "device/device_limits.hpp"
#include "device/event_timer.hpp"
#include "labs/matmul/k1_naive.hpp"
#include "labs/matmul/k2_uncoalesced.hpp"
#include "labs/matmul/k3_smem_tiled.hpp"
#include "labs/matmul/k4_blocktile_1d.hpp"
#include "labs/matmul/k5_blocktile_2d.hpp"
#include "labs/matmul/k6_vectorized.hpp"
#include "labs/matmul/k7_warptile.hpp"
#include "labs/matmul/matmul_cuda.hpp"

namespace bs::matmul {

// ---------------------------------------------------------------------------------------------
// 1. Kernels: declare the shared struct, fill the context from the built-ins, call the body.
// ---------------------------------------------------------------------------------------------

__global__ void k1_naive_kernel(MatmulArgs a) {
  __shared__ NoSmem s;
  k1_naive_thread(DeviceCtx::from_builtins(), s, a);
}

__global__ void k2_uncoalesced_kernel(MatmulArgs a) {
  __shared__ NoSmem s;
  k2_uncoalesced_thread(DeviceCtx::from_builtins(), s, a);
}

template <int T>
__global__ void __launch_bounds__(T* T) k3_smem_tiled_kernel(MatmulArgs a) {
  __shared__ K3Smem<T> s;
  k3_smem_tiled_thread<T>(DeviceCtx::from_builtins(), s, a);
}

template <int BM, int BN, int BK, int TM>
__global__ void __launch_bounds__((BM / TM) * BN) k4_blocktile_1d_kernel(MatmulArgs a) {
  __shared__ K4Smem<BM, BN, BK> s;
  k4_blocktile_1d_thread<BM, BN, BK, TM>(DeviceCtx::from_builtins(), s, a);
}

template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN)) k5_blocktile_2d_kernel(MatmulArgs a) {
  __shared__ K5Smem<BM, BN, BK> s;
  k5_blocktile_2d_thread<BM, BN, BK, TM, TN>(DeviceCtx::from_builtins(), s, a);
}

template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN)) k6_vectorized_kernel(MatmulArgs a) {
  __shared__ K6Smem<BM, BN, BK> s;
  k6_vectorized_thread<BM, BN, BK, TM, TN>(DeviceCtx::from_builtins(), s, a);
}

// MB is the occupancy the configuration asks for (see TileParams): the register budget ptxas
// must meet so that MB blocks fit on one SM.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int MB>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32, MB)
    k7_warptile_kernel(MatmulArgs a) {
  __shared__ K7Smem<BM, BN, BK> s;
  k7_warptile_thread<BM, BN, BK, WM, WN, TM, TN>(DeviceCtx::from_builtins(), s, a);
}

// ---------------------------------------------------------------------------------------------
// 2. Dispatch: the address of the instantiation for a configuration, nullptr if not compiled.
// ---------------------------------------------------------------------------------------------
namespace {

const void* kernel_function(MatmulKernel kernel, const MatmulConfig& c) {
  const void* f = nullptr;
  switch (kernel) {
    case MatmulKernel::Naive:
      return reinterpret_cast<const void*>(&k1_naive_kernel);
    case MatmulKernel::Uncoalesced:
      return reinterpret_cast<const void*>(&k2_uncoalesced_kernel);
    case MatmulKernel::SmemTiled:
      visit_index<std::size(kK3Tiles)>(find_in(kK3Tiles, static_cast<int>(c.block.x)), [&](auto i) {
        f = reinterpret_cast<const void*>(&k3_smem_tiled_kernel<kK3Tiles[decltype(i)::value]>);
      });
      return f;
    case MatmulKernel::Blocktile1D:
      visit_index<std::size(kK4Params)>(find_in(kK4Params, c.tile), [&](auto i) {
        constexpr TileParams P = kK4Params[decltype(i)::value];
        f = reinterpret_cast<const void*>(&k4_blocktile_1d_kernel<P.BM, P.BN, P.BK, P.TM>);
      });
      return f;
    case MatmulKernel::Blocktile2D:
      visit_index<std::size(kK5Params)>(find_in(kK5Params, c.tile), [&](auto i) {
        constexpr TileParams P = kK5Params[decltype(i)::value];
        f = reinterpret_cast<const void*>(&k5_blocktile_2d_kernel<P.BM, P.BN, P.BK, P.TM, P.TN>);
      });
      return f;
    case MatmulKernel::Vectorized:
      visit_index<std::size(kK6Params)>(find_in(kK6Params, c.tile), [&](auto i) {
        constexpr TileParams P = kK6Params[decltype(i)::value];
        f = reinterpret_cast<const void*>(&k6_vectorized_kernel<P.BM, P.BN, P.BK, P.TM, P.TN>);
      });
      return f;
    case MatmulKernel::Warptile:
      visit_index<std::size(kK7Params)>(find_in(kK7Params, c.tile), [&](auto i) {
        constexpr TileParams P = kK7Params[decltype(i)::value];
        f = reinterpret_cast<const void*>(
            &k7_warptile_kernel<P.BM, P.BN, P.BK, P.WM, P.WN, P.TM, P.TN, P.MB>);
      });
      return f;
  }
  return f;
}

// ---------------------------------------------------------------------------------------------
// 3. Device report and limits
// ---------------------------------------------------------------------------------------------

// FP32 FMA lanes per SM by compute capability (the CUDA C Programming Guide's throughput table):
// 64 on sm_60/sm_70/sm_75/sm_80, 128 on sm_61, sm_86, sm_89, sm_90 and later.
int fp32_lanes_per_sm(int major, int minor) {
  if (major == 6) return minor == 0 ? 64 : 128;
  if (major == 7) return 64;
  if (major == 8) return minor == 0 ? 64 : 128;
  if (major >= 9) return 128;
  return 128;  // sm_5x
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

Status cublas_status(cublasStatus_t s, const char* call) {
  if (s == CUBLAS_STATUS_SUCCESS) return Status::success();
  return Status::failure(std::string("cuBLAS: ") + cublasGetStatusString(s),
                         s == CUBLAS_STATUS_ALLOC_FAILED ? "the GPU is out of memory" : "", call,
                         cublasGetStatusName(s));
}

#define BS_CUBLAS_TRY(expr)                                                     \
  do {                                                                          \
    if (cublasStatus_t bs_cublas_err_ = (expr); bs_cublas_err_ != CUBLAS_STATUS_SUCCESS) \
      return cublas_status(bs_cublas_err_, #expr);                              \
  } while (0)

}  // namespace

// ---------------------------------------------------------------------------------------------
// 4. The lab
// ---------------------------------------------------------------------------------------------

struct CudaMatmulLab::Impl {
  int device = 0;
  DeviceLimits limits;
  CudaDeviceReport report;
  cublasHandle_t cublas = nullptr;
  CublasMath math = CublasMath::Default;
  bool flush_l2 = false;
  cuda::DeviceBuffer<unsigned char> flush_buffer;
  cuda::DeviceBuffer<float> a, b, c, ref;
  int M = 0, N = 0, K = 0;
  bool has_data = false, ref_valid = false;
  ErrorScale scale;

  ~Impl() {
    if (cublas) cublasDestroy(cublas);
  }

  Status check_data(const char* what) const {
    if (!has_data)
      return Status::failure(std::string(what) + ": no matrices on the GPU yet",
                             "call set_matrices first", what);
    return Status::success();
  }

  void flush() {
    if (flush_l2 && flush_buffer.get())
      cudaMemsetAsync(flush_buffer.get(), 0, flush_buffer.bytes());
  }

  // Times `repeats` launches of `launch` after `warmup` untimed ones; median into rec.
  template <class Launch>
  void time_launches(LaunchRecord& rec, int repeats, int warmup, Launch launch) {
    for (int w = 0; w < warmup; ++w) {
      if (Status s = launch(); !s) {
        rec.status = s;
        return;
      }
    }
    std::vector<float> times;
    cuda::EventTimer timer;
    for (int r = 0; r < std::max(1, repeats); ++r) {
      flush();
      timer.start();
      Status s = launch();
      timer.stop();
      if (!s) {
        rec.status = s;
        return;
      }
      Result<float> ms = timer.elapsed_ms();
      if (!ms) {
        rec.status = ms.status();
        return;
      }
      times.push_back(ms.value());
    }
    rec.timing.samples_ms.assign(times.begin(), times.end());
    summarize(rec.timing);
    rec.timing.clock = "CUDA events around each launch, median of " + std::to_string(times.size()) +
                (flush_l2 ? " (L2 flushed before each)" : "");
  }
};

CudaMatmulLab::CudaMatmulLab() : impl_(std::make_unique<Impl>()) {}
CudaMatmulLab::~CudaMatmulLab() = default;

Result<std::unique_ptr<CudaMatmulLab>> CudaMatmulLab::create(int device) {
  int count = 0;
  if (cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) {
    cudaGetLastError();
    return cuda::to_status(e, "cudaGetDeviceCount");
  }
  if (count == 0)
    return Status::failure("no CUDA device found", "use the CPU simulation backend",
                           "cudaGetDeviceCount", "cudaErrorNoDevice");
  if (device < 0 || device >= count)
    return Status::failure("CUDA device " + std::to_string(device) + " does not exist (" +
                               std::to_string(count) + " found)",
                           "", "cudaSetDevice", "cudaErrorInvalidDevice");
  BS_CUDA_TRY(cudaSetDevice(device));

  std::unique_ptr<CudaMatmulLab> lab(new CudaMatmulLab());
  Impl& im = *lab->impl_;
  im.device = device;
  // The limits come from the one device query every backend uses; the report adds the FP32
  // peak, the versions and the L2 size on top of them.
  Result<DeviceLimits> limits = cuda::query_device_limits(device);
  if (!limits) return limits.status();
  im.limits = std::move(limits.value());
  const DeviceLimits& l = im.limits;
  int l2_bytes = 0;
  BS_CUDA_TRY(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));

  CudaDeviceReport& r = im.report;
  r.device = device;
  r.name = l.name;
  r.compute_major = l.compute_major, r.compute_minor = l.compute_minor;
  r.sm_count = static_cast<int>(l.sm_count);
  r.fp32_lanes_per_sm = fp32_lanes_per_sm(l.compute_major, l.compute_minor);
  r.clock_khz = l.clock_khz;
  r.fp32_peak_gflops = r.sm_count * r.fp32_lanes_per_sm * 2.0 * r.clock_khz * 1e-6;
  r.peak_formula = std::to_string(r.sm_count) + " SMs x " + std::to_string(r.fp32_lanes_per_sm) +
                   " FP32 lanes x 2 FLOP x " + fixed(r.clock_khz * 1e-3, 0) +
                   " MHz (cudaDevAttrClockRate) = " + fixed(r.fp32_peak_gflops, 0) + " GFLOP/s";
  cudaDriverGetVersion(&r.driver_version);
  cudaRuntimeGetVersion(&r.runtime_version);
  r.total_global_bytes = l.total_global_bytes;
  r.l2_bytes = static_cast<std::size_t>(l2_bytes);

  BS_CUBLAS_TRY(cublasCreate(&im.cublas));
  cublasGetVersion(im.cublas, &r.cublas_version);
  BS_CUBLAS_TRY(cublasSetMathMode(im.cublas, CUBLAS_DEFAULT_MATH));

  auto flush = cuda::DeviceBuffer<unsigned char>::allocate(2 * r.l2_bytes);
  if (flush) im.flush_buffer = std::move(flush.value());
  return std::move(lab);  // Result<unique_ptr> is built from an rvalue
}

const DeviceLimits& CudaMatmulLab::limits() const { return impl_->limits; }
const CudaDeviceReport& CudaMatmulLab::device_report() const { return impl_->report; }
int CudaMatmulLab::M() const { return impl_->M; }
int CudaMatmulLab::N() const { return impl_->N; }
int CudaMatmulLab::K() const { return impl_->K; }
const float* CudaMatmulLab::device_a() const { return impl_->a.get(); }
const float* CudaMatmulLab::device_b() const { return impl_->b.get(); }
const float* CudaMatmulLab::device_c() const { return impl_->c.get(); }
const float* CudaMatmulLab::device_reference() const { return impl_->ref.get(); }
void CudaMatmulLab::set_flush_l2(bool flush) { impl_->flush_l2 = flush; }
void CudaMatmulLab::set_cublas_math(CublasMath math) {
  impl_->math = math;
  cublasSetMathMode(impl_->cublas,
                    math == CublasMath::Pedantic ? CUBLAS_PEDANTIC_MATH : CUBLAS_DEFAULT_MATH);
  impl_->ref_valid = false;
}

Status CudaMatmulLab::reserve(int M, int N, int K) {
  Impl& im = *impl_;
  if (Status s = check_matmul_sizes(M, N, K); !s) return s;
  im.a.reset(), im.b.reset(), im.c.reset(), im.ref.reset();
  im.has_data = im.ref_valid = false;
  im.M = im.N = im.K = 0;

  const std::size_t mk = static_cast<std::size_t>(M) * K, kn = static_cast<std::size_t>(K) * N,
                    mn = static_cast<std::size_t>(M) * N;
  const double need = 4.0 * (static_cast<double>(mk) + kn + 2.0 * mn);
  std::size_t free_bytes = 0, total_bytes = 0;
  BS_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (need > static_cast<double>(free_bytes)) {
    auto mib = [](double b) { return fixed(b / (1 << 20), 0) + " MiB"; };
    return Status::failure(
        "A (" + std::to_string(M) + "x" + std::to_string(K) + "), B (" + std::to_string(K) + "x" +
            std::to_string(N) + "), C and the cuBLAS reference (" + std::to_string(M) + "x" +
            std::to_string(N) + " each) need " + mib(need) + " of GPU memory; " + mib(free_bytes) +
            " of " + mib(total_bytes) + " is free on " + im.limits.name,
        "choose smaller sizes", "cudaMemGetInfo", "cudaErrorMemoryAllocation");
  }
  auto a = cuda::DeviceBuffer<float>::allocate(mk);
  if (!a) return a.status();
  auto b = cuda::DeviceBuffer<float>::allocate(kn);
  if (!b) return b.status();
  auto c = cuda::DeviceBuffer<float>::allocate(mn);
  if (!c) return c.status();
  auto ref = cuda::DeviceBuffer<float>::allocate(mn);
  if (!ref) return ref.status();
  im.a = std::move(a.value()), im.b = std::move(b.value());
  im.c = std::move(c.value()), im.ref = std::move(ref.value());
  im.M = M, im.N = N, im.K = K;
  return Status::success();
}

Status CudaMatmulLab::set_matrices(const float* A, const float* B, int M, int N, int K) {
  if (!A || !B) return Status::failure("set_matrices needs host A and B", "", "set_matrices");
  if (Status s = reserve(M, N, K); !s) return s;
  Impl& im = *impl_;
  BS_CUDA_TRY(cudaMemcpy(im.a.get(), A, im.a.bytes(), cudaMemcpyHostToDevice));
  BS_CUDA_TRY(cudaMemcpy(im.b.get(), B, im.b.bytes(), cudaMemcpyHostToDevice));
  BS_CUDA_TRY(cudaMemset(im.c.get(), 0xff, im.c.bytes()));  // NaN: a kernel that skips an output fails
  im.scale = error_scale(A, B, M, N, K);
  im.has_data = true;
  return Status::success();
}

LaunchRecord CudaMatmulLab::run(MatmulKernel kernel, const MatmulConfig& config, int repeats,
                                int warmup) {
  Impl& im = *impl_;
  LaunchRecord rec;
  rec.kernel = matmul_kernel_info(kernel).id;
  rec.backend = BackendKind::Cuda;
  rec.config = matmul_launch_config(kernel, config, im.M, im.N, im.K);
  rec.flops = matmul_flops(im.M, im.N, im.K);
  rec.bytes_moved = matmul_compulsory_bytes(im.M, im.N, im.K);
  if (rec.status = im.check_data("run"); !rec.ok()) return rec;
  if (rec.status = check_matmul_config(kernel, config, im.M, im.N, im.K, im.limits); !rec.ok())
    return rec;
  const void* fn = kernel_function(kernel, config);
  if (!fn) {
    rec.status = Status::failure("no compiled kernel for " + describe(kernel, config), "",
                                 "CudaMatmulLab::run");
    return rec;
  }
  Result<KernelAttributes> attrs = cuda::query_kernel_attributes(fn);
  if (!attrs) {
    rec.status = attrs.status();
    return rec;
  }
  if (rec.status = validate_launch(rec.config, im.limits, &attrs.value()); !rec.ok()) return rec;

  MatmulArgs args{im.a.get(), im.b.get(), im.c.get(), im.M, im.N, im.K};
  void* params[] = {&args};
  const dim3 grid(rec.config.grid.x, rec.config.grid.y, rec.config.grid.z);
  const dim3 block(rec.config.block.x, rec.config.block.y, rec.config.block.z);
  im.time_launches(rec, repeats, warmup, [&]() -> Status {
    BS_CUDA_TRY(cudaLaunchKernel(fn, grid, block, params, 0, nullptr));
    BS_CUDA_TRY(cudaGetLastError());
    return Status::success();
  });
  if (rec.ok()) {
    // A fault inside the kernel surfaces at the next synchronisation.
    if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess)
      rec.status = cuda::to_status(e, "cudaDeviceSynchronize");
  }
  return rec;
}

LaunchRecord CudaMatmulLab::run_cublas(int repeats, int warmup) {
  Impl& im = *impl_;
  LaunchRecord rec;
  rec.kernel = "cublas_sgemm";
  rec.backend = BackendKind::Cuda;
  rec.flops = matmul_flops(im.M, im.N, im.K);
  rec.bytes_moved = matmul_compulsory_bytes(im.M, im.N, im.K);
  if (rec.status = im.check_data("run_cublas"); !rec.ok()) return rec;
  const float one = 1.0f, zero = 0.0f;
  // Row-major C (M x N) = A B is column-major C^T (N x M) = B^T A^T; a row-major matrix read as
  // column-major is its transpose, so pass B first with ld = N, then A with ld = K.
  im.time_launches(rec, repeats, warmup, [&]() -> Status {
    BS_CUBLAS_TRY(cublasSgemm(im.cublas, CUBLAS_OP_N, CUBLAS_OP_N, im.N, im.M, im.K, &one,
                              im.b.get(), im.N, im.a.get(), im.K, &zero, im.ref.get(), im.N));
    BS_CUDA_TRY(cudaGetLastError());
    return Status::success();
  });
  if (rec.ok()) {
    if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess)
      rec.status = cuda::to_status(e, "cudaDeviceSynchronize");
  }
  im.ref_valid = rec.ok();
  rec.timing.clock += im.math == CublasMath::Pedantic ? "; CUBLAS_PEDANTIC_MATH" : "; CUBLAS_DEFAULT_MATH";
  return rec;
}

Status CudaMatmulLab::download_c(float* host) const {
  if (Status s = impl_->check_data("download_c"); !s) return s;
  BS_CUDA_TRY(cudaMemcpy(host, impl_->c.get(), impl_->c.bytes(), cudaMemcpyDeviceToHost));
  return Status::success();
}

Status CudaMatmulLab::download_reference(float* host) const {
  if (Status s = impl_->check_data("download_reference"); !s) return s;
  if (!impl_->ref_valid)
    return Status::failure("the cuBLAS reference has not been computed for these matrices",
                           "call run_cublas first", "download_reference");
  BS_CUDA_TRY(cudaMemcpy(host, impl_->ref.get(), impl_->ref.bytes(), cudaMemcpyDeviceToHost));
  return Status::success();
}

Verification CudaMatmulLab::verify_against(const float* host_reference) {
  Impl& im = *impl_;
  std::vector<float> got(static_cast<std::size_t>(im.M) * im.N);
  Verification v;
  if (Status s = download_c(got.data()); !s) {
    v.tolerance = "not checked: " + s.describe();
    return v;
  }
  return verify(got.data(), host_reference, im.M, im.N, im.scale);
}

Verification CudaMatmulLab::verify_against_cublas() {
  Impl& im = *impl_;
  Verification v;
  if (!im.ref_valid) {
    LaunchRecord r = run_cublas(1, 0);
    if (!r.ok()) {
      v.tolerance = "not checked: " + r.status.describe();
      return v;
    }
  }
  std::vector<float> ref(static_cast<std::size_t>(im.M) * im.N);
  if (Status s = download_reference(ref.data()); !s) {
    v.tolerance = "not checked: " + s.describe();
    return v;
  }
  return verify_against(ref.data());
}

}  // namespace bs::matmul
