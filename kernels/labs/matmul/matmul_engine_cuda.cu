// The matmul lab on a CUDA device: one-line __global__ wrappers around each rung's body (and a
// traced twin of each, for the real per-SM schedule), the compiled set of instantiations, cuBLAS
// as the reference and the library anchor, and the engine behind MatmulLab (buffers, launches,
// the clock).
//
// Sections: 1. kernels  2. dispatch to the compiled set  3. device report  4. the engine
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
#include "device/l2_flush.hpp"
#include "labs/matmul/k1_naive.hpp"
#include "labs/matmul/k2_uncoalesced.hpp"
#include "labs/matmul/k3_smem_tiled.hpp"
#include "labs/matmul/k4_blocktile_1d.hpp"
#include "labs/matmul/k5_blocktile_2d.hpp"
#include "labs/matmul/k6_vectorized.hpp"
#include "labs/matmul/k7_warptile.hpp"
#include "labs/matmul/matmul_engine.hpp"
#include "trace/block_trace.cuh"
#include "trace/trace_buffer.hpp"

namespace bs::matmul {

// ---------------------------------------------------------------------------------------------
// 1. Kernels: declare the shared struct, fill the context from the built-ins, call the body. The
//    traced twin runs the same body inside a BlockRecorder (trace/block_trace.cuh); `records` is
//    nullptr in the plain launch, which then records nothing and times as the plain kernel would
//    not: so the plain kernel is a separate function, and only the traced one takes records.
// ---------------------------------------------------------------------------------------------

#define BS_MATMUL_WRAPPERS(NAME, BOUNDS, TEMPLATE_HEAD, SMEM, BODY)                        \
  TEMPLATE_HEAD __global__ void BOUNDS NAME##_kernel(MatmulArgs a) {                       \
    __shared__ SMEM s;                                                                    \
    BODY(DeviceCtx::from_builtins(), s, a);                                               \
  }                                                                                       \
  TEMPLATE_HEAD __global__ void BOUNDS NAME##_traced(MatmulArgs a,                         \
                                                     trace::DeviceBlockRecord* records) { \
    trace::BlockRecorder recorder(records);                                               \
    __shared__ SMEM s;                                                                    \
    BODY(DeviceCtx::from_builtins(), s, a);                                               \
  }

#define BS_NOTHING
#define BS_COMMA ,
BS_MATMUL_WRAPPERS(k1_naive, BS_NOTHING, BS_NOTHING, NoSmem, k1_naive_thread)
BS_MATMUL_WRAPPERS(k2_uncoalesced, BS_NOTHING, BS_NOTHING, NoSmem, k2_uncoalesced_thread)
BS_MATMUL_WRAPPERS(k3_smem_tiled, __launch_bounds__(T * T), template <int T>, K3Smem<T>,
                   k3_smem_tiled_thread<T>)
BS_MATMUL_WRAPPERS(k4_blocktile_1d, __launch_bounds__((BM / TM) * BN),
                   template <int BM BS_COMMA int BN BS_COMMA int BK BS_COMMA int TM>,
                   K4Smem<BM BS_COMMA BN BS_COMMA BK>,
                   k4_blocktile_1d_thread<BM BS_COMMA BN BS_COMMA BK BS_COMMA TM>)
BS_MATMUL_WRAPPERS(k5_blocktile_2d, __launch_bounds__((BM / TM) * (BN / TN)),
                   template <int BM BS_COMMA int BN BS_COMMA int BK BS_COMMA int TM BS_COMMA int TN>,
                   K5Smem<BM BS_COMMA BN BS_COMMA BK>,
                   k5_blocktile_2d_thread<BM BS_COMMA BN BS_COMMA BK BS_COMMA TM BS_COMMA TN>)
BS_MATMUL_WRAPPERS(k6_vectorized, __launch_bounds__((BM / TM) * (BN / TN)),
                   template <int BM BS_COMMA int BN BS_COMMA int BK BS_COMMA int TM BS_COMMA int TN>,
                   K6Smem<BM BS_COMMA BN BS_COMMA BK>,
                   k6_vectorized_thread<BM BS_COMMA BN BS_COMMA BK BS_COMMA TM BS_COMMA TN>)
// MB is the occupancy the configuration asks for (see TileParams): the register budget ptxas
// must meet so that MB blocks fit on one SM.
BS_MATMUL_WRAPPERS(k7_warptile, __launch_bounds__((BM / WM) * (BN / WN) * 32 BS_COMMA MB),
                   template <int BM BS_COMMA int BN BS_COMMA int BK BS_COMMA int WM BS_COMMA int WN
                                 BS_COMMA int TM BS_COMMA int TN BS_COMMA int MB>,
                   K7Smem<BM BS_COMMA BN BS_COMMA BK>,
                   k7_warptile_thread<BM BS_COMMA BN BS_COMMA BK BS_COMMA WM BS_COMMA WN BS_COMMA TM
                                          BS_COMMA TN>)
#undef BS_MATMUL_WRAPPERS

// ---------------------------------------------------------------------------------------------
// 2. Dispatch: the addresses of the plain and traced instantiations for a configuration, both
//    nullptr if not compiled.
// ---------------------------------------------------------------------------------------------
namespace {

struct KernelPair {
  const void* plain = nullptr;
  const void* traced = nullptr;
};

template <class P, class T>
KernelPair pair_of(P* plain, T* traced) {
  return {reinterpret_cast<const void*>(plain), reinterpret_cast<const void*>(traced)};
}

KernelPair kernel_functions(MatmulKernel kernel, const MatmulConfig& c) {
  KernelPair f;
  switch (kernel) {
    case MatmulKernel::Naive:
      return pair_of(&k1_naive_kernel, &k1_naive_traced);
    case MatmulKernel::Uncoalesced:
      return pair_of(&k2_uncoalesced_kernel, &k2_uncoalesced_traced);
    case MatmulKernel::SmemTiled:
      visit_index<std::size(kK3Tiles)>(find_in(kK3Tiles, static_cast<int>(c.block.x)), [&](auto i) {
        constexpr int T = kK3Tiles[decltype(i)::value];
        f = pair_of(&k3_smem_tiled_kernel<T>, &k3_smem_tiled_traced<T>);
      });
      return f;
    case MatmulKernel::Blocktile1D:
      visit_index<std::size(kK4Params)>(find_in(kK4Params, c.tile), [&](auto i) {
        constexpr TileParams P = kK4Params[decltype(i)::value];
        f = pair_of(&k4_blocktile_1d_kernel<P.BM, P.BN, P.BK, P.TM>,
                    &k4_blocktile_1d_traced<P.BM, P.BN, P.BK, P.TM>);
      });
      return f;
    case MatmulKernel::Blocktile2D:
      visit_index<std::size(kK5Params)>(find_in(kK5Params, c.tile), [&](auto i) {
        constexpr TileParams P = kK5Params[decltype(i)::value];
        f = pair_of(&k5_blocktile_2d_kernel<P.BM, P.BN, P.BK, P.TM, P.TN>,
                    &k5_blocktile_2d_traced<P.BM, P.BN, P.BK, P.TM, P.TN>);
      });
      return f;
    case MatmulKernel::Vectorized:
      visit_index<std::size(kK6Params)>(find_in(kK6Params, c.tile), [&](auto i) {
        constexpr TileParams P = kK6Params[decltype(i)::value];
        f = pair_of(&k6_vectorized_kernel<P.BM, P.BN, P.BK, P.TM, P.TN>,
                    &k6_vectorized_traced<P.BM, P.BN, P.BK, P.TM, P.TN>);
      });
      return f;
    case MatmulKernel::Warptile:
      visit_index<std::size(kK7Params)>(find_in(kK7Params, c.tile), [&](auto i) {
        constexpr TileParams P = kK7Params[decltype(i)::value];
        f = pair_of(&k7_warptile_kernel<P.BM, P.BN, P.BK, P.WM, P.WN, P.TM, P.TN, P.MB>,
                    &k7_warptile_traced<P.BM, P.BN, P.BK, P.WM, P.WN, P.TM, P.TN, P.MB>);
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
// 4. The engine
// ---------------------------------------------------------------------------------------------
namespace {

class CudaEngine final : public MatmulEngine {
 public:
  explicit CudaEngine(const lab::Backend& backend) : backend_(backend) {}
  ~CudaEngine() override {
    if (cublas_) cublasDestroy(cublas_);
  }

  Status init() {
    BS_CUDA_TRY(cudaSetDevice(backend_.cuda_device));
    const DeviceLimits& l = backend_.limits;
    const int lanes = fp32_lanes_per_sm(l.compute_major, l.compute_minor);
    peak_ = l.sm_count * lanes * 2.0 * l.clock_khz * 1e-6;
    peak_formula_ = std::to_string(l.sm_count) + " SMs x " + std::to_string(lanes) +
                    " FP32 lanes x 2 FLOP x " + fixed(l.clock_khz * 1e-3, 0) +
                    " MHz (cudaDevAttrClockRate) = " + fixed(peak_, 0) + " GFLOP/s";
    BS_CUBLAS_TRY(cublasCreate(&cublas_));
    BS_CUBLAS_TRY(cublasSetMathMode(cublas_, CUBLAS_DEFAULT_MATH));
    auto flusher = cuda::L2Flusher::create(backend_.cuda_device);
    if (flusher) flusher_ = std::move(flusher.value());
    else flush_error_ = flusher.status();
    return Status::success();
  }

  Status set_matrices(const std::vector<float>& A, const std::vector<float>& B, int M, int N,
                      int K) override {
    BS_CUDA_TRY(cudaSetDevice(backend_.cuda_device));
    a_.reset(), b_.reset(), c_.reset(), ref_.reset();
    M_ = N_ = K_ = 0;
    const std::size_t mk = static_cast<std::size_t>(M) * K, kn = static_cast<std::size_t>(K) * N,
                      mn = static_cast<std::size_t>(M) * N;
    const double need = 4.0 * (static_cast<double>(mk) + kn + 2.0 * mn);
    std::size_t free_bytes = 0, total_bytes = 0;
    BS_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (need > static_cast<double>(free_bytes)) {
      auto mib = [](double b) { return fixed(b / (1 << 20), 0) + " MiB"; };
      return Status::failure(
          "A (" + std::to_string(M) + "x" + std::to_string(K) + "), B (" + std::to_string(K) +
              "x" + std::to_string(N) + "), C and the cuBLAS reference (" + std::to_string(M) +
              "x" + std::to_string(N) + " each) need " + mib(need) + " of GPU memory; " +
              mib(static_cast<double>(free_bytes)) + " of " + mib(static_cast<double>(total_bytes)) +
              " is free on " + backend_.limits.name,
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
    BS_CUDA_TRY(cudaMemcpy(a->get(), A.data(), a->bytes(), cudaMemcpyHostToDevice));
    BS_CUDA_TRY(cudaMemcpy(b->get(), B.data(), b->bytes(), cudaMemcpyHostToDevice));
    // NaN everywhere: a kernel that skips an output fails verification.
    BS_CUDA_TRY(cudaMemset(c->get(), 0xff, c->bytes()));
    a_ = std::move(a.value()), b_ = std::move(b.value());
    c_ = std::move(c.value()), ref_ = std::move(ref.value());
    M_ = M, N_ = N, K_ = K;
    return Status::success();
  }

  Status reference(std::vector<float>& ref, double* ms, std::string* note) override {
    // Fewer repeats for products that take cuBLAS itself a noticeable time (above 4096^3).
    const double mnk = static_cast<double>(M_) * N_ * K_;
    const int repeats = mnk > 0x1p39 ? 1 : mnk > 0x1p36 ? 3 : 5;
    std::vector<double> times;
    for (int r = 0; r < repeats + (repeats > 1 ? 1 : 0); ++r) {
      auto t = library_timed(ref_.get());
      if (!t) return t.status();
      if (repeats == 1 || r > 0) times.push_back(t.value());  // the first one warms up
    }
    *ms = median_of(times);
    *note = "cuBLAS SGEMM (FP32, tensor cores off)";
    ref.resize(static_cast<std::size_t>(M_) * N_);
    BS_CUDA_TRY(cudaMemcpy(ref.data(), ref_.get(), ref_.bytes(), cudaMemcpyDeviceToHost));
    return Status::success();
  }

  Result<KernelAttributes> attributes(MatmulKernel k, const MatmulConfig& c, bool* measured) override {
    *measured = true;
    const KernelPair f = kernel_functions(k, c);
    if (!f.plain)
      return Status::failure("no compiled kernel for " + describe(k, c), "", "attributes");
    return cuda::query_kernel_attributes(f.plain);
  }

  Result<std::pair<int, int>> suggested_block(MatmulKernel k) override {
    BS_CUDA_TRY(cudaSetDevice(backend_.cuda_device));
    int min_grid = 0, block = 0;
    if (k == MatmulKernel::Naive)
      BS_CUDA_TRY(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, k1_naive_kernel, 0, 0));
    else if (k == MatmulKernel::Uncoalesced)
      BS_CUDA_TRY(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, k2_uncoalesced_kernel, 0, 0));
    else
      return Status::failure("compiled configurations fix their own block", "", "suggested_block");
    return std::pair<int, int>{min_grid, block};
  }

  float* own_output() override { return c_.get(); }
  Status download(float* host) override {
    BS_CUDA_TRY(cudaMemcpy(host, c_.get(), c_.bytes(), cudaMemcpyDeviceToHost));
    return Status::success();
  }

  Result<double> launch_timed(MatmulKernel k, const MatmulConfig& c, const LaunchConfig& lc,
                              float* out) override {
    const KernelPair f = kernel_functions(k, c);
    if (!f.plain) return Status::failure("no compiled kernel for " + describe(k, c), "", "launch");
    MatmulArgs args{a_.get(), b_.get(), out, M_, N_, K_};
    void* params[] = {&args};
    timer_.start();
    const cudaError_t launched = cudaLaunchKernel(f.plain, dim(lc.grid), dim(lc.block), params, 0, nullptr);
    timer_.stop();
    BS_CUDA_TRY(launched);
    BS_CUDA_TRY(cudaGetLastError());
    auto ms = timer_.elapsed_ms();  // synchronises: a fault inside the kernel surfaces here
    if (!ms) return ms.status();
    return static_cast<double>(ms.value());
  }

  Result<std::vector<BlockTrace>> launch_traced(MatmulKernel k, const MatmulConfig& c,
                                                const LaunchConfig& lc, float* out) override {
    const KernelPair f = kernel_functions(k, c);
    if (!f.traced) return Status::failure("no traced kernel for " + describe(k, c), "", "launch");
    auto buffer = trace::TraceBuffer::allocate(lc.grid);
    if (!buffer) return buffer.status();
    MatmulArgs args{a_.get(), b_.get(), out, M_, N_, K_};
    trace::DeviceBlockRecord* records = buffer->records();
    void* params[] = {&args, &records};
    BS_CUDA_TRY(cudaLaunchKernel(f.traced, dim(lc.grid), dim(lc.block), params, 0, nullptr));
    BS_CUDA_TRY(cudaGetLastError());
    return buffer->collect(backend_.limits.sm_count);
  }

  bool has_library() const override { return true; }
  Result<double> library_timed(float* out) override {
    const float one = 1.0f, zero = 0.0f;
    // Row-major C (M x N) = A B is column-major C^T (N x M) = B^T A^T; a row-major matrix read
    // as column-major is its transpose, so pass B first with ld = N, then A with ld = K.
    timer_.start();
    const cublasStatus_t st = cublasSgemm(cublas_, CUBLAS_OP_N, CUBLAS_OP_N, N_, M_, K_, &one,
                                          b_.get(), N_, a_.get(), K_, &zero, out, N_);
    timer_.stop();
    BS_CUBLAS_TRY(st);
    BS_CUDA_TRY(cudaGetLastError());
    auto ms = timer_.elapsed_ms();
    if (!ms) return ms.status();
    return static_cast<double>(ms.value());
  }

  Status flush_l2() override {
    if (!flush_error_.ok()) return flush_error_;
    return flusher_.flush();
  }
  std::string clock() const override { return "CUDA events"; }
  bool simulated() const override { return false; }
  double peak_gflops(std::string* formula) const override {
    *formula = peak_formula_;
    return peak_;
  }

  Result<std::unique_ptr<MatmulEngine>> clone() const override {
    auto e = std::make_unique<CudaEngine>(backend_);
    if (Status s = e->init(); !s) return s;
    return std::unique_ptr<MatmulEngine>(std::move(e));
  }

  const float* device_a() const override { return a_.get(); }
  const float* device_b() const override { return b_.get(); }
  const float* device_reference() const override { return ref_.get(); }

 private:
  static dim3 dim(const Dim3& d) { return dim3(d.x, d.y, d.z); }

  lab::Backend backend_;
  cublasHandle_t cublas_ = nullptr;
  cuda::DeviceBuffer<float> a_, b_, c_, ref_;
  cuda::EventTimer timer_;
  cuda::L2Flusher flusher_;
  Status flush_error_;
  int M_ = 0, N_ = 0, K_ = 0;
  double peak_ = 0;
  std::string peak_formula_;
};

}  // namespace

Result<std::unique_ptr<MatmulEngine>> make_cuda_engine(const lab::Backend& backend) {
  int count = 0;
  if (cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess || count == 0) {
    cudaGetLastError();
    return e != cudaSuccess ? cuda::to_status(e, "cudaGetDeviceCount")
                            : Status::failure("no CUDA device found", "use --backend cpu",
                                              "cudaGetDeviceCount", "cudaErrorNoDevice");
  }
  if (backend.cuda_device < 0 || backend.cuda_device >= count)
    return Status::failure("CUDA device " + std::to_string(backend.cuda_device) +
                               " does not exist (" + std::to_string(count) + " found)",
                           "", "cudaSetDevice", "cudaErrorInvalidDevice");
  auto e = std::make_unique<CudaEngine>(backend);
  if (Status s = e->init(); !s) return s;
  return std::unique_ptr<MatmulEngine>(std::move(e));
}

}  // namespace bs::matmul
