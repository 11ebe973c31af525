// The matmul lab on a CUDA device: one __global__ wrapper template around every rung's body
// (plain, and a traced twin for the real per-SM schedule), instantiated for the compiled set
// through the registry's one dispatch (with_config); the Hopper rungs through matmul_hopper.cu;
// cuBLAS as the reference and the library anchors (SGEMM, TF32, BF16); cuBLASLt's fastest
// candidate as a ceiling, and its heuristic's first choice named beside cuBLAS; and the engine
// behind MatmulLab (buffers, launches, the clock).
//
// Sections: 1. kernels  2. dispatch to the compiled set  3. device report  4. cuBLASLt
//           5. the engine
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <vector>

#include "core/exec.hpp"
#include "device/cuda_status.hpp"
#include "device/device_buffer.hpp"
#include "device/device_limits.hpp"
#include "device/event_timer.hpp"
#include "device/l2_flush.hpp"
#include "labs/matmul/matmul_engine.hpp"
#include "labs/matmul/matmul_hopper.hpp"
#include "trace/block_trace.cuh"
#include "trace/trace_buffer.hpp"

namespace bs::matmul {

// ---------------------------------------------------------------------------------------------
// 1. Kernels: declare the shared struct, fill the context from the built-ins, call the body. The
//    traced twin runs the same body inside a BlockRecorder (trace/block_trace.cuh); only it reads
//    `records`, so the plain kernel times as it would with no tracing compiled in. Three forms,
//    for the __launch_bounds__ a rung asks for: none (any block), a block size, or a block size
//    and the blocks per SM the registers must allow (rung 7's MB).
// ---------------------------------------------------------------------------------------------
#define BS_RUNG_WRAPPER_BODY                    \
  using At = typename R::template At<I>;        \
  __shared__ typename At::Smem s;               \
  if constexpr (Traced) {                       \
    trace::BlockRecorder recorder(records);     \
    At::body(DeviceCtx::from_builtins(), s, a); \
  } else {                                      \
    At::body(DeviceCtx::from_builtins(), s, a); \
  }

template <class R, std::size_t I, bool Traced>
__global__ void rung_kernel(typename R::Args a, trace::DeviceBlockRecord* records) {
  BS_RUNG_WRAPPER_BODY
}
template <class R, std::size_t I, bool Traced>
__global__ void __launch_bounds__(R::template At<I>::threads)
    rung_kernel_bounded(typename R::Args a, trace::DeviceBlockRecord* records) {
  BS_RUNG_WRAPPER_BODY
}
template <class R, std::size_t I, bool Traced>
__global__ void __launch_bounds__(R::template At<I>::threads, R::template At<I>::min_blocks)
    rung_kernel_occupancy(typename R::Args a, trace::DeviceBlockRecord* records) {
  BS_RUNG_WRAPPER_BODY
}
#undef BS_RUNG_WRAPPER_BODY

// The tagged variant (fragment_record.hpp) of the rungs with a per-thread body and fragments (T1,
// T2): the same body on probe operands, its epilogue recording who held each element. Compiled
// once per such rung, launched only by record_fragments.
template <class R, std::size_t I>
__global__ void __launch_bounds__(R::template At<I>::threads)
    tagged_rung_kernel(typename R::Args a, TagFragments sink) {
  using At = typename R::template At<I>;
  __shared__ typename At::Smem s;
  At::tagged_body(DeviceCtx::from_builtins(), s, a, sink);
}

// ---------------------------------------------------------------------------------------------
// 2. Dispatch: the addresses of the plain and traced instantiations for a configuration, both
//    nullptr if not compiled (or a Hopper rung: matmul_hopper.cu).
// ---------------------------------------------------------------------------------------------
namespace {

struct KernelPair {
  const void* plain = nullptr;
  const void* traced = nullptr;
};

KernelPair kernel_functions(MatmulKernel kernel, const MatmulConfig& c) {
  KernelPair f;
  with_config(kernel, c, [&]<class R, std::size_t I>() {
    using At = typename R::template At<I>;
    auto pair = [&](auto plain, auto traced) {
      f = {reinterpret_cast<const void*>(plain), reinterpret_cast<const void*>(traced)};
    };
    if constexpr (At::threads == 0) pair(&rung_kernel<R, I, false>, &rung_kernel<R, I, true>);
    else if constexpr (At::min_blocks == 0) pair(&rung_kernel_bounded<R, I, false>, &rung_kernel_bounded<R, I, true>);
    else pair(&rung_kernel_occupancy<R, I, false>, &rung_kernel_occupancy<R, I, true>);
  });
  return f;
}

// The kernel's arguments, in the precision its rung multiplies.
void* rung_args(MatmulKernel k, MatmulBuffers& b) {
  return matmul_kernel_info(k).precision == Precision::Bf16 ? static_cast<void*>(&b.bf16) : static_cast<void*>(&b.f32);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// 3. Device report and limits
// ---------------------------------------------------------------------------------------------
namespace {

// FP32 FMA lanes per SM by compute capability (the CUDA C Programming Guide's throughput table):
// 64 on sm_60/sm_70/sm_75/sm_80, 128 on sm_61, sm_86, sm_89, sm_90 and later.
int fp32_lanes_per_sm(int major, int minor) {
  if (major == 6) return minor == 0 ? 64 : 128;
  if (major == 7) return 64;
  if (major == 8) return minor == 0 ? 64 : 128;
  if (major >= 9) return 128;
  return 128;  // sm_5x
}

// Dense BF16 tensor-core FLOP per SM per clock (FP32 accumulation), by compute capability: 4096 on
// sm_90 (H100, H200: 989 TFLOP/s at 1830 MHz on 132 SMs), 2048 on sm_80 (A100), 1024 on the
// other Ampere and Ada chips; 0 where the tensor cores take no BF16.
int bf16_flop_per_sm_clock(int major, int minor) {
  if (major == 9) return 4096;
  if (major == 8) return minor == 0 ? 2048 : 1024;
  return 0;
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

#define BS_CUBLAS_TRY(expr)                                                              \
  do {                                                                                   \
    if (cublasStatus_t bs_cublas_err_ = (expr); bs_cublas_err_ != CUBLAS_STATUS_SUCCESS) \
      return cublas_status(bs_cublas_err_, #expr);                                       \
  } while (0)

}  // namespace

// ---------------------------------------------------------------------------------------------
// 4. cuBLASLt: handles and descriptors (RAII), the enums' names, one algorithm read back
// ---------------------------------------------------------------------------------------------
namespace {

struct LtDestroy {
  void operator()(cublasLtHandle_t h) const { cublasLtDestroy(h); }
  void operator()(cublasLtMatmulDesc_t d) const { cublasLtMatmulDescDestroy(d); }
  void operator()(cublasLtMatrixLayout_t l) const { cublasLtMatrixLayoutDestroy(l); }
  void operator()(cublasLtMatmulPreference_t p) const { cublasLtMatmulPreferenceDestroy(p); }
};
using LtHandle = std::unique_ptr<std::remove_pointer_t<cublasLtHandle_t>, LtDestroy>;
using LtMatmulDesc = std::unique_ptr<std::remove_pointer_t<cublasLtMatmulDesc_t>, LtDestroy>;
using LtLayout = std::unique_ptr<std::remove_pointer_t<cublasLtMatrixLayout_t>, LtDestroy>;
using LtPreference = std::unique_ptr<std::remove_pointer_t<cublasLtMatmulPreference_t>, LtDestroy>;

// Candidates asked of the heuristic, and the workspace they may use (cuBLAS's own default on
// Hopper is 32 MiB too).
constexpr int kLtCandidates = 8;
constexpr std::size_t kLtWorkspaceBytes = std::size_t{32} << 20;

// cublasLtMatmulTile_t, cublasLtMatmulStages_t and cublasLtClusterShape_t name their values
// "128x256", "64x4", "2x1x1": the table (cublaslt_names.inc) is read from this toolkit's
// cublasLt.h when CMake configures, so a newer toolkit's values are named too.
enum class LtEnum { MATMUL_TILE, MATMUL_STAGES, CLUSTER_SHAPE };
std::string lt_name(LtEnum which, unsigned id) {
  struct Name {
    LtEnum which;
    unsigned id;
    const char* text;
  };
  static constexpr Name kNames[] = {
      {LtEnum::MATMUL_TILE, 0, "undefined"},  // so the table is never empty
#define BS_LT_NAME(which, id, text) {LtEnum::which, id, text},
#include "cublaslt_names.inc"
#undef BS_LT_NAME
  };
  for (const Name& n : kNames)
    if (n.which == which && n.id == id) return n.text;
  return "id " + std::to_string(id);
}

// One algorithm's configuration, as cublasLtMatmulAlgoConfigGetAttribute reads it. An attribute
// this cuBLASLt does not have stays at its default.
LtAlgo read_lt_algo(const cublasLtMatmulAlgo_t& algo, std::size_t workspace) {
  auto get = [&](cublasLtMatmulAlgoConfigAttributes_t attr, auto& v) {
    std::size_t written = 0;
    return cublasLtMatmulAlgoConfigGetAttribute(&algo, attr, &v, sizeof v, &written) == CUBLAS_STATUS_SUCCESS;
  };
  LtAlgo a;
  std::int32_t id = -1, split_k = 1;
  std::uint32_t tile = 0, stages = 0, reduction = 0, swizzle = 0, custom = 0;
  std::uint16_t cluster = 0;
  get(CUBLASLT_ALGO_CONFIG_ID, id);
  if (get(CUBLASLT_ALGO_CONFIG_TILE_ID, tile) && tile != 0) a.tile = lt_name(LtEnum::MATMUL_TILE, tile);
  if (get(CUBLASLT_ALGO_CONFIG_STAGES_ID, stages) && stages != 0) a.stages = lt_name(LtEnum::MATMUL_STAGES, stages);
  get(CUBLASLT_ALGO_CONFIG_SPLITK_NUM, split_k);
  get(CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, reduction);
  get(CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, swizzle);
  get(CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, custom);
  if (get(CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, cluster))
    a.cluster = cluster == 0 ? "auto" : lt_name(LtEnum::CLUSTER_SHAPE, cluster);
  a.id = id, a.split_k = split_k, a.reduction = reduction, a.swizzle = swizzle, a.custom = custom;
  a.workspace = workspace;
  return a;
}

// cublasLtMatmulAlgo_t and cublasLtMatmulHeuristicResult_t are typedefs of unnamed structs, and
// nvcc 13's front end fails (internal error) on a std::vector of them: they are held in named
// structs.
struct LtAlgoSlot {
  cublasLtMatmulAlgo_t algo;
};
struct LtProposal {
  cublasLtMatmulHeuristicResult_t result;
};

// The descriptors of one product: the operation, and A, B, C (= D) as cuBLASLt reads them.
struct LtOperands {
  LtMatmulDesc op;
  LtLayout a, b, c;
  const void* a_ptr = nullptr;
  const void* b_ptr = nullptr;
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// 5. The engine
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
    peak_formula_ = std::to_string(l.sm_count) + " SMs x " + std::to_string(lanes) + " FP32 lanes x 2 FLOP x " +
                    fixed(l.clock_khz * 1e-3, 0) + " MHz (cudaDevAttrClockRate) = " + fixed(peak_, 0) + " GFLOP/s";
    const int tc = bf16_flop_per_sm_clock(l.compute_major, l.compute_minor);
    tensor_peak_ = l.sm_count * static_cast<double>(tc) * l.clock_khz * 1e-6;
    tensor_formula_ = tc > 0 ? std::to_string(l.sm_count) + " SMs x " + std::to_string(tc) +
                                   " dense BF16 FLOP per clock (FP32 accumulation) x " + fixed(l.clock_khz * 1e-3, 0) +
                                   " MHz (cudaDevAttrClockRate) = " + fixed(tensor_peak_, 0) + " GFLOP/s"
                             : "no BF16 tensor-core rate known for sm_" + std::to_string(l.compute_major) +
                                   std::to_string(l.compute_minor);
    BS_CUBLAS_TRY(cublasCreate(&cublas_));
    BS_CUBLAS_TRY(cublasSetMathMode(cublas_, CUBLAS_DEFAULT_MATH));
    cublasLtHandle_t lt = nullptr;
    BS_CUBLAS_TRY(cublasLtCreate(&lt));
    lt_.reset(lt);
    auto flusher = cuda::L2Flusher::create(backend_.cuda_device);
    if (flusher) flusher_ = std::move(flusher.value());
    else flush_error_ = flusher.status();
    return Status::success();
  }

  Status set_matrices(std::span<const float> A, std::span<const float> B, int M, int N, int K,
                      Precision precision) override {
    BS_CUDA_TRY(cudaSetDevice(backend_.cuda_device));
    a_.reset(), b_.reset(), c_.reset(), ref_.reset(), a16_.reset(), bt16_.reset();
    maps_ = TcTensorMaps{};
    maps_error_ = Status::success();
    M_ = N_ = K_ = 0;
    first_choice_.clear();
    const bool bf16 = precision == Precision::Bf16;
    const std::size_t mk = static_cast<std::size_t>(M) * K, kn = static_cast<std::size_t>(K) * N,
                      mn = static_cast<std::size_t>(M) * N;
    const std::size_t ld = static_cast<std::size_t>(bf16_row_pitch(K));
    const double need =
        4.0 * (static_cast<double>(mk) + kn + 2.0 * mn) + (bf16 ? 2.0 * (static_cast<double>(M) + N) * ld : 0.0);
    std::size_t free_bytes = 0, total_bytes = 0;
    BS_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (need > static_cast<double>(free_bytes)) {
      auto mib = [](double b) { return fixed(b / (1 << 20), 0) + " MiB"; };
      return Status::failure("A (" + std::to_string(M) + "x" + std::to_string(K) + "), B (" + std::to_string(K) + "x" +
                                 std::to_string(N) + "), C and the cuBLAS reference (" + std::to_string(M) + "x" +
                                 std::to_string(N) + " each)" + (bf16 ? " and the BF16 copies of A and B" : "") +
                                 " need " + mib(need) + " of GPU memory; " + mib(static_cast<double>(free_bytes)) +
                                 " of " + mib(static_cast<double>(total_bytes)) + " is free on " + backend_.limits.name,
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
    if (bf16) {
      const std::vector<Bf16> a16 = pack_bf16_rows(A.data(), M, K), bt16 = pack_bf16_transposed(B.data(), K, N);
      auto da = cuda::DeviceBuffer<Bf16>::allocate(a16.size());
      if (!da) return da.status();
      auto db = cuda::DeviceBuffer<Bf16>::allocate(bt16.size());
      if (!db) return db.status();
      BS_CUDA_TRY(cudaMemcpy(da->get(), a16.data(), da->bytes(), cudaMemcpyHostToDevice));
      BS_CUDA_TRY(cudaMemcpy(db->get(), bt16.data(), db->bytes(), cudaMemcpyHostToDevice));
      a16_ = std::move(da.value()), bt16_ = std::move(db.value());
      // The TMA descriptors once per set of matrices, so encoding stays out of the timed region
      // (C's too, for T7's stores into the lab's own output); where they cannot be made (no
      // sm_90a in this build), the Hopper rungs say why.
      auto maps = hopper_host::encode(Bf16Args{a16_.get(), bt16_.get(), c->get(), M, N, K, bf16_row_pitch(K)});
      if (maps) maps_ = maps.value();
      else maps_error_ = maps.status();
    }
    // NaN everywhere: a kernel that skips an output fails verification.
    BS_CUDA_TRY(cudaMemset(c->get(), 0xff, c->bytes()));
    a_ = std::move(a.value()), b_ = std::move(b.value());
    c_ = std::move(c.value()), ref_ = std::move(ref.value());
    M_ = M, N_ = N, K_ = K;
    precision_ = precision;
    return Status::success();
  }

  // Warms the GPU up before a library's timed launches: an idle GPU starts at a low clock, and
  // the first launches of a short product ran up to 20% slow (the problem's "cuBLAS" ceiling
  // then flattered the ladder: 117% on an H200 at 4096^3, against 96% in the same bench's own
  // cuBLAS run). Launches until 50 ms of them or 20 launches, whichever comes first (20 launches
  // of a 4096^3 BF16 product are 4 ms; a 50 ms minimum measured no different on an H200: the
  // lab's reference read 0.187-0.198 ms either way); the first failure ends it. What still made
  // the reference slow was the timer, not the clock: on an idle GPU its events also timed
  // cuBLAS's own host work. Since the timer's lead (device/event_timer.hpp) the reference reads
  // 0.1823-0.1831 ms there, as the bench's own cuBLAS rows do (0.1787 flushed, 0.1827 not).
  template <class Launch>
  static Status warm_up(Launch&& launch) {
    double warm_ms = 0;
    for (int w = 0; w < 20 && warm_ms < 50.0; ++w) {
      auto t = launch();
      if (!t) return t.status();
      warm_ms += t.value();
    }
    return Status::success();
  }

  Status reference(HostVector<float>& ref, double* ms, std::string* note) override {
    // Fewer repeats for products that take cuBLAS itself a noticeable time (above 4096^3).
    const double mnk = static_cast<double>(M_) * N_ * K_;
    const int repeats = mnk > 0x1p39 ? 1 : mnk > 0x1p36 ? 3 : 5;
    const Library lib = precision_ == Precision::Bf16 ? Library::Bf16 : Library::Sgemm;
    if (Status s = warm_up([&] { return library_timed(lib, ref_.get()); }); !s) return s;
    std::vector<double> times;
    for (int r = 0; r < repeats; ++r) {
      auto t = library_timed(lib, ref_.get());
      if (!t) return t.status();
      times.push_back(t.value());
    }
    *ms = median_of(times);
    *note = lib == Library::Bf16 ? "cuBLAS BF16 (cublasGemmEx: BF16 A and B, FP32 accumulation and C)"
                                 : "cuBLAS SGEMM (FP32, tensor cores off)";
    first_choice_of_ = lib;
    first_choice_ = heuristic_first_choice(lib);
    ref.resize(static_cast<std::size_t>(M_) * N_);
    BS_CUDA_TRY(cudaMemcpy(ref.data(), ref_.get(), ref_.bytes(), cudaMemcpyDeviceToHost));
    return Status::success();
  }

  Status can_run(const MatmulKernelInfo& info) const override {
    const DeviceLimits& l = backend_.limits;
    const std::string sm = "sm_" + std::to_string(l.compute_major) + std::to_string(l.compute_minor);
    switch (info.needs) {
      case RungNeeds::Any: return Status::success();
      case RungNeeds::Sm80:
        if (l.compute_major >= 8) return Status::success();
        return Status::failure(info.id +
                                   " needs BF16 tensor-core instructions (mma.sync with BF16, "
                                   "cp.async) from sm_80 on; " +
                                   l.name + " is " + sm,
                               "run it on an Ampere or newer GPU", "can_run");
      case RungNeeds::Sm90a:
        if (l.compute_major != 9 || l.compute_minor != 0)
          return Status::failure(info.id +
                                     " uses wgmma, TMA and setmaxnreg, which exist on sm_90a (H100, "
                                     "H200) only; " +
                                     l.name + " is " + sm,
                                 "run it on a Hopper GPU", "can_run");
        if (!hopper_host::built())
          return Status::failure(
              info.id +
                  ": this blockscope was built without sm_90a, the Hopper-only "
                  "target that wgmma, TMA multicast and setmaxnreg need",
              "rebuild with 90 in CMAKE_CUDA_ARCHITECTURES (the default has it) and nvcc 12 or newer", "can_run");
        if (!maps_error_.ok()) return maps_error_;
        return Status::success();
    }
    return Status::success();
  }

  Result<int> resident_clusters(MatmulKernel k, const MatmulConfig& c, const LaunchConfig& lc) override {
    BS_CUDA_TRY(cudaSetDevice(backend_.cuda_device));
    return hopper_host::max_active_clusters(k, c, lc);
  }

  Result<KernelAttributes> attributes(MatmulKernel k, const MatmulConfig& c, bool* measured) override {
    *measured = true;
    if (matmul_kernel_info(k).needs == RungNeeds::Sm90a) return hopper_host::attributes(k, c);
    const KernelPair f = kernel_functions(k, c);
    if (!f.plain) return Status::failure("no compiled kernel for " + describe(k, c), "", "attributes");
    return cuda::query_kernel_attributes(f.plain);
  }

  Result<std::pair<int, int>> suggested_block(MatmulKernel k) override {
    BS_CUDA_TRY(cudaSetDevice(backend_.cuda_device));
    const MatmulKernelInfo& info = matmul_kernel_info(k);
    if (!info.any_block) return Status::failure("compiled configurations fix their own block", "", "suggested_block");
    const KernelPair f = kernel_functions(k, info.configs.front());
    if (!f.plain) return Status::failure("no compiled kernel for " + info.id, "", "suggested_block");
    int min_grid = 0, block = 0;
    BS_CUDA_TRY(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, f.plain, 0, 0));
    return std::pair<int, int>{min_grid, block};
  }

  float* own_output() override { return c_.get(); }
  Status download(float* host) override {
    BS_CUDA_TRY(cudaMemcpy(host, c_.get(), c_.bytes(), cudaMemcpyDeviceToHost));
    return Status::success();
  }

  Result<double> launch_timed(MatmulKernel k, const MatmulConfig& c, const LaunchConfig& lc, float* out) override {
    if (Status s = can_launch(k); !s) return s;
    return event_timed([&] { return launch(k, c, lc, out, nullptr); });
  }

  Result<std::vector<BlockTrace>> launch_traced(MatmulKernel k, const MatmulConfig& c, const LaunchConfig& lc,
                                                float* out) override {
    if (Status s = can_launch(k); !s) return s;
    auto buffer = trace::TraceBuffer::allocate(lc.grid);
    if (!buffer) return buffer.status();
    if (Status s = launch(k, c, lc, out, buffer->records()); !s) return s;
    BS_CUDA_TRY(cudaGetLastError());
    return buffer->collect(backend_.limits.sm_count);
  }

  Result<FragmentRecord> record_fragments(MatmulKernel k, const MatmulConfig& c, const LaunchConfig& lc, int M, int N,
                                          int K) override {
    BS_CUDA_TRY(cudaSetDevice(backend_.cuda_device));
    const MatmulKernelInfo& info = matmul_kernel_info(k);
    if (!has_fragment_record(k))
      return Status::failure(info.id + " holds C in no tensor-core fragments", "pick a tensor-core rung",
                             "record_fragments");
    if (Status s = can_run_device(info); !s) return s;
    if (Status s = check_matmul_sizes(M, N, K); !s) return s;
    FragmentRecord rec = empty_fragment_record(k, c, lc, M, N, K);
    cudaStream_t stream = nullptr;
    BS_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    Status s = tagged_probe(k, c, lc, make_fragment_probe(M, N, K), rec, false, stream);
    if (s && !rec.operands.a.empty()) {  // T2: on at least one whole block tile (operand_probe_size)
      const auto [Mo, No] = operand_probe_size(k, c, M, N);
      s = tagged_probe(k, c, matmul_launch_config(k, c, Mo, No, rec.K), make_operand_probe(Mo, No, K), rec, true,
                       stream);
    }
    cudaStreamDestroy(stream);
    if (!s) return s;
    rec.on_gpu = true;
    rec.how = "Recorded on " + backend_.limits.name + " by a tagged variant of " + info.id +
              " (the same kernel code, one more instantiation) run on probe operands whose product encodes each "
              "element's place in its block tile (C = 256 (row mod 128 + 1) + col mod 256, exact in BF16 and "
              "FP32): each thread decoded the values its accumulator registers held and wrote its thread and "
              "register there. The lab's own matrices and C were not touched." +
              fragment_note(k) +
              std::string(info.needs == RungNeeds::Sm90a
                              ? " wgmma reads A and B from shared memory, not from lanes: no operand record."
                              : "") +
              (rec.K != K ? " K was raised to " + std::to_string(rec.K) + " for the probe (one full k-step)."
                          : std::string());
    return rec;
  }

  Result<double> time_pipeline_launch(MatmulKernel k, const MatmulConfig& c, const LaunchConfig& lc, float* out,
                                      std::uint32_t capacity) override {
    auto ms = launch_pipeline(k, c, lc, out, capacity);
    if (!ms) return ms.status();
    if (Status s = pipeline_buffers_.clear(lc.grid.volume(), lc.grid.volume() * kPipelineWarpgroups); !s) return s;
    return ms;
  }

  Result<PipelineRaw> launch_pipeline_traced(MatmulKernel k, const MatmulConfig& c, const LaunchConfig& lc, float* out,
                                             std::uint32_t capacity) override {
    auto ms = launch_pipeline(k, c, lc, out, capacity);
    if (!ms) return ms.status();
    const std::size_t blocks = lc.grid.volume(), lanes = blocks * kPipelineWarpgroups;
    trace::DeviceBlockRecord* const records = pipeline_buffers_.records.get();
    std::vector<trace::DeviceBlockRecord> host_records(blocks);
    std::vector<std::uint32_t> host_attempted(lanes);
    std::vector<PipelineDeviceEvent> host_events(lanes * capacity);
    BS_CUDA_TRY(
        cudaMemcpy(host_records.data(), records, blocks * sizeof(trace::DeviceBlockRecord), cudaMemcpyDeviceToHost));
    BS_CUDA_TRY(cudaMemcpy(host_attempted.data(), pipeline_buffers_.attempted.get(), lanes * sizeof(std::uint32_t),
                           cudaMemcpyDeviceToHost));
    BS_CUDA_TRY(cudaMemcpy(host_events.data(), pipeline_buffers_.events.get(),
                           host_events.size() * sizeof(PipelineDeviceEvent), cudaMemcpyDeviceToHost));
    // Zeroed again for the next launch now, not just before it: a block or warpgroup that never
    // wrote shows as zeros, and no memset runs between the last launch's work and the timed one.
    if (Status s = pipeline_buffers_.clear(blocks, lanes); !s) return s;
    // The block records' own checks (one write per block, start <= end, SM ids on the device).
    auto checked = trace::records_to_trace(host_records, lc.grid, backend_.limits.sm_count);
    if (!checked) return checked.status();
    PipelineRaw raw;
    raw.grid = lc.grid;
    raw.cluster = lc.cluster;
    raw.event_ms = ms.value();
    raw.capacity = capacity;
    raw.blocks.resize(blocks);
    for (std::size_t b = 0; b < blocks; ++b) {
      const trace::DeviceBlockRecord& r = host_records[b];
      raw.blocks[b].block = (*checked)[b].block;
      raw.blocks[b].sm = r.smid;
      raw.blocks[b].start_ns = r.start_ns;
      raw.blocks[b].end_ns = r.end_ns;
      raw.blocks[b].cluster_rank =
          (r.cluster_flags & trace::kClusterRead) && r.cluster_blocks > 1 ? static_cast<int>(r.cluster_rank) : -1;
    }
    raw.attempted = host_attempted;
    raw.lanes.resize(lanes);
    for (std::size_t l = 0; l < lanes; ++l) {
      const std::size_t kept = std::min<std::size_t>(host_attempted[l], capacity);
      const std::uint64_t start = host_records[l / kPipelineWarpgroups].start_ns;
      raw.lanes[l].reserve(kept);
      for (std::size_t i = 0; i < kept; ++i)
        raw.lanes[l].push_back(decode_pipeline_event(host_events[l * capacity + i], start));
    }
    if (const std::size_t unplaced = place_by_clock(raw); unplaced > 0)
      return Status::failure(std::to_string(unplaced) +
                                 " pipeline events could not be placed in time: their block "
                                 "recorded fewer than two %globaltimer readings to fit its clock to",
                             "", "place_by_clock");
    raw.source = "recorded on " + backend_.limits.name;
    return raw;
  }

  bool has_library() const override { return true; }
  Result<double> library_timed(Library which, float* out) override {
    const float one = 1.0f, zero = 0.0f;
    if (which == Library::LtSgemm || which == Library::LtBf16) {
      auto found = lt_find(which);  // the search, on the first call for this problem
      if (!found) return found.status();
      const LtChoice& choice = *found.value();
      LtOperands ops;
      if (Status s = lt_operands(which, ops); !s) return s;
      const std::size_t best = static_cast<std::size_t>(choice.search.best);
      return lt_timed(ops, choice.algos[best].algo, out);
    }
    if (which == Library::Bf16 && !a16_.get())
      return Status::failure("no BF16 copies of A and B: the problem is FP32", "set precision=bf16", "library_timed");
    // Row-major C (M x N) = A B is column-major C^T (N x M) = B^T A^T; a row-major matrix read
    // as column-major is its transpose, so pass B first with ld = N, then A with ld = K. The BF16
    // copies hold B transposed (Bt, N x ld row-major, i.e. column-major B with ld): op T.
    return timed_library_call([&] {
      switch (which) {
        case Library::Sgemm:
          return cublasSgemm(cublas_, CUBLAS_OP_N, CUBLAS_OP_N, N_, M_, K_, &one, b_.get(), N_, a_.get(), K_, &zero,
                             out, N_);
        case Library::Tf32:
          return cublasGemmEx(cublas_, CUBLAS_OP_N, CUBLAS_OP_N, N_, M_, K_, &one, b_.get(), CUDA_R_32F, N_, a_.get(),
                              CUDA_R_32F, K_, &zero, out, CUDA_R_32F, N_, CUBLAS_COMPUTE_32F_FAST_TF32,
                              CUBLAS_GEMM_DEFAULT);
        case Library::Bf16: {
          const int ld = bf16_row_pitch(K_);
          return cublasGemmEx(cublas_, CUBLAS_OP_T, CUBLAS_OP_N, N_, M_, K_, &one, bt16_.get(), CUDA_R_16BF, ld,
                              a16_.get(), CUDA_R_16BF, ld, &zero, out, CUDA_R_32F, N_, CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT);
        }
        case Library::LtSgemm:
        case Library::LtBf16: break;  // cuBLASLt: above
      }
      return CUBLAS_STATUS_SUCCESS;
    });
  }

  // One library call between the engine's events: the call's status, then the launch's, then
  // the time.
  template <class Call>
  Result<double> timed_library_call(Call&& call) {
    timer_.start();
    const cublasStatus_t st = call();
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

  std::string library_note(Library which) const override {
    if (which == Library::LtSgemm || which == Library::LtBf16) {
      const LtChoice* c = lt_cached(which);
      return c ? lt_search_note(c->search) : std::string();
    }
    return first_choice_of_ == which ? first_choice_ : std::string();
  }
  Result<LtSearch> lt_search(Library which) override {
    auto found = lt_find(which);
    if (!found) return found.status();
    return found.value()->search;
  }

  double peak_gflops(Precision precision, std::string* formula) const override {
    *formula = precision == Precision::Bf16 ? tensor_formula_ : peak_formula_;
    return precision == Precision::Bf16 ? tensor_peak_ : peak_;
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

  // can_run without the lab's own matrices: what the device and the build offer.
  Status can_run_device(const MatmulKernelInfo& info) const {
    if (info.needs == RungNeeds::Sm90a) {
      const DeviceLimits& l = backend_.limits;
      if (l.compute_major != 9 || l.compute_minor != 0 || !hopper_host::built()) return can_run(info);
      return Status::success();
    }
    return can_run(info);
  }

  // One probe through the tagged variant, on its own buffers; the tags into `rec`.
  Status tagged_probe(MatmulKernel k, const MatmulConfig& c, const LaunchConfig& lc, const FragmentProbe& p,
                      FragmentRecord& rec, bool operands, cudaStream_t stream) {
    const std::size_t mn = static_cast<std::size_t>(p.M) * p.N;
    auto a = cuda::DeviceBuffer<Bf16>::allocate(p.a.size());
    if (!a) return a.status();
    auto bt = cuda::DeviceBuffer<Bf16>::allocate(p.bt.size());
    if (!bt) return bt.status();
    auto out = cuda::DeviceBuffer<float>::allocate(mn);
    if (!out) return out.status();
    auto tags = cuda::DeviceBuffer<FragmentTag>::allocate(operands ? 1 : mn);
    if (!tags) return tags.status();
    auto hits = cuda::DeviceBuffer<unsigned>::allocate(operands ? 1 : mn);
    if (!hits) return hits.status();
    auto tiles = cuda::DeviceBuffer<int>::allocate(std::max<std::size_t>(1, rec.tile_block.size()));
    if (!tiles) return tiles.status();
    auto counters = cuda::DeviceBuffer<unsigned>::allocate(2);
    if (!counters) return counters.status();
    auto fed_a = cuda::DeviceBuffer<FragmentTag>::allocate(std::max<std::size_t>(1, rec.operands.a.size()));
    if (!fed_a) return fed_a.status();
    auto fed_b = cuda::DeviceBuffer<FragmentTag>::allocate(std::max<std::size_t>(1, rec.operands.b.size()));
    if (!fed_b) return fed_b.status();
    BS_CUDA_TRY(cudaMemcpyAsync(a->get(), p.a.data(), a->bytes(), cudaMemcpyHostToDevice, stream));
    BS_CUDA_TRY(cudaMemcpyAsync(bt->get(), p.bt.data(), bt->bytes(), cudaMemcpyHostToDevice, stream));
    BS_CUDA_TRY(cudaMemsetAsync(out->get(), 0, out->bytes(), stream));
    BS_CUDA_TRY(cudaMemsetAsync(tags->get(), 0xff, tags->bytes(), stream));  // FragmentTag{-1, -1}
    BS_CUDA_TRY(cudaMemsetAsync(hits->get(), 0, hits->bytes(), stream));
    BS_CUDA_TRY(cudaMemsetAsync(tiles->get(), 0xff, tiles->bytes(), stream));  // -1
    BS_CUDA_TRY(cudaMemsetAsync(counters->get(), 0, counters->bytes(), stream));
    BS_CUDA_TRY(cudaMemsetAsync(fed_a->get(), 0xff, fed_a->bytes(), stream));
    BS_CUDA_TRY(cudaMemsetAsync(fed_b->get(), 0xff, fed_b->bytes(), stream));

    TagFragments sink;
    FragmentSink& s = sink.s;
    s.M = p.M, s.N = p.N;
    s.counters = counters->get();
    if (operands) {
      s.a_fed = fed_a->get(), s.b_fed = fed_b->get();
      s.warp_rows = rec.operands.rows, s.warp_cols = rec.operands.cols;
    } else {
      s.c = tags->get(), s.hits = hits->get();
      s.tile_block = rec.tile_block.empty() ? nullptr : tiles->get();
      s.tile_rows = rec.tile_rows, s.tile_cols = rec.tile_cols;
      s.tiles_n = static_cast<int>(ceil_div_u(p.N, rec.tile_cols));
    }
    const Bf16Args args{a->get(), bt->get(), out->get(), p.M, p.N, p.K, p.ld};
    if (matmul_kernel_info(k).needs == RungNeeds::Sm90a) {
      auto maps = hopper_host::encode(args);
      if (!maps) return maps.status();
      if (Status st = hopper_host::launch_tagged(k, c, lc, args, *maps, sink, stream); !st) return st;
    } else {
      const void* fn = nullptr;
      with_config(k, c, [&]<class R, std::size_t I>() {
        if constexpr (R::kFragments) fn = reinterpret_cast<const void*>(&tagged_rung_kernel<R, I>);
      });
      if (!fn) return Status::failure("no tagged kernel for " + describe(k, c), "", "record_fragments");
      Bf16Args launch_args = args;
      void* params[] = {&launch_args, &sink};
      BS_CUDA_TRY(cudaLaunchKernel(fn, dim(lc.grid), dim(lc.block), params, 0, stream));
    }
    BS_CUDA_TRY(cudaGetLastError());
    BS_CUDA_TRY(cudaStreamSynchronize(stream));  // a fault inside the tagged kernel surfaces here
    unsigned host_counters[2] = {0, 0};
    BS_CUDA_TRY(cudaMemcpy(host_counters, counters->get(), sizeof host_counters, cudaMemcpyDeviceToHost));
    rec.undecodable += host_counters[0];
    if (operands) {
      BS_CUDA_TRY(cudaMemcpy(rec.operands.a.data(), fed_a->get(), rec.operands.a.size() * sizeof(FragmentTag),
                             cudaMemcpyDeviceToHost));
      BS_CUDA_TRY(cudaMemcpy(rec.operands.b.data(), fed_b->get(), rec.operands.b.size() * sizeof(FragmentTag),
                             cudaMemcpyDeviceToHost));
      return Status::success();
    }
    rec.tile_conflicts += host_counters[1];
    BS_CUDA_TRY(cudaMemcpy(rec.c.data(), tags->get(), tags->bytes(), cudaMemcpyDeviceToHost));
    BS_CUDA_TRY(cudaMemcpy(rec.hits.data(), hits->get(), hits->bytes(), cudaMemcpyDeviceToHost));
    if (!rec.tile_block.empty())
      BS_CUDA_TRY(
          cudaMemcpy(rec.tile_block.data(), tiles->get(), rec.tile_block.size() * sizeof(int), cudaMemcpyDeviceToHost));
    return Status::success();
  }

  // A rung of the other precision has no buffers here (the lab refuses it before this).
  Status can_launch(MatmulKernel k) const {
    if (matmul_kernel_info(k).precision == Precision::Bf16 && !a16_.get())
      return Status::failure(matmul_kernel_info(k).id + " multiplies BF16 matrices; these are FP32",
                             "set precision=bf16", "launch");
    return Status::success();
  }

  // Asynchronous on the default stream; `records` non-null: the traced twin.
  Status launch(MatmulKernel k, const MatmulConfig& c, const LaunchConfig& lc, float* out,
                trace::DeviceBlockRecord* records) {
    MatmulBuffers b;
    b.f32 = MatmulArgs{a_.get(), b_.get(), out, M_, N_, K_};
    b.bf16 = Bf16Args{a16_.get(), bt16_.get(), out, M_, N_, K_, bf16_row_pitch(K_)};
    if (matmul_kernel_info(k).needs == RungNeeds::Sm90a)
      return hopper_host::launch(k, c, lc, b.bf16, maps_, records, nullptr);
    const KernelPair f = kernel_functions(k, c);
    if (!(records ? f.traced : f.plain))
      return Status::failure("no compiled kernel for " + describe(k, c), "", "launch");
    void* params[] = {rung_args(k, b), &records};
    BS_CUDA_TRY(cudaLaunchKernel(records ? f.traced : f.plain, dim(lc.grid), dim(lc.block), params, 0, nullptr));
    return Status::success();
  }

  // -------------------------------------------------------------------------------------------
  // cuBLASLt: the same product as the cuBLAS calls above, through cublasLtMatmul, so that its
  // heuristic can propose algorithms and each can be timed.
  // -------------------------------------------------------------------------------------------

  // One search's outcome for one problem, kept until the engine goes: the candidates timed and
  // their algorithms (candidates[i] describes algos[i]).
  struct LtChoice {
    Library which;
    int M, N, K;
    LtSearch search;
    std::vector<LtAlgoSlot> algos;
  };

  const LtChoice* lt_cached(Library which) const {
    for (const LtChoice& c : lt_choices_)
      if (c.which == which && c.M == M_ && c.N == N_ && c.K == K_) return &c;
    return nullptr;
  }

  // The descriptors of `which` on this problem, writing `out`. Row-major C = A B as column-major
  // C^T = B^T A^T, as library_timed passes cuBLAS: SGEMM reads B (N x K, ld N) then A (K x M,
  // ld K); BF16 reads Bt (column-major K x N with the padded pitch) with op T, then A (K x M with
  // the pitch). LtSgemm computes CUBLAS_COMPUTE_32F_PEDANTIC (full FP32: no TF32, whatever
  // NVIDIA_TF32_OVERRIDE says); Sgemm names cuBLAS's SGEMM, CUBLAS_COMPUTE_32F as cublasSgemm
  // uses under CUBLAS_DEFAULT_MATH.
  Status lt_operands(Library which, LtOperands& o) const {
    const bool bf16 = which == Library::LtBf16 || which == Library::Bf16;
    if (which == Library::Tf32) return Status::failure("the TF32 anchor has no cuBLASLt twin here", "", "lt_operands");
    if (bf16 && !a16_.get())
      return Status::failure("no BF16 copies of A and B: the problem is FP32", "set precision=bf16", "lt_operands");
    const cublasComputeType_t compute = which == Library::LtSgemm ? CUBLAS_COMPUTE_32F_PEDANTIC : CUBLAS_COMPUTE_32F;
    cublasLtMatmulDesc_t op = nullptr;
    BS_CUBLAS_TRY(cublasLtMatmulDescCreate(&op, compute, CUDA_R_32F));
    o.op.reset(op);
    const cublasOperation_t ta = bf16 ? CUBLAS_OP_T : CUBLAS_OP_N, tb = CUBLAS_OP_N;
    BS_CUBLAS_TRY(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    BS_CUBLAS_TRY(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    auto layout = [](LtLayout& into, cudaDataType_t type, int rows, int cols, int ld) -> Status {
      cublasLtMatrixLayout_t l = nullptr;
      BS_CUBLAS_TRY(
          cublasLtMatrixLayoutCreate(&l, type, static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(cols), ld));
      into.reset(l);
      return Status::success();
    };
    if (bf16) {
      const int ld = bf16_row_pitch(K_);
      if (Status s = layout(o.a, CUDA_R_16BF, K_, N_, ld); !s) return s;
      if (Status s = layout(o.b, CUDA_R_16BF, K_, M_, ld); !s) return s;
      o.a_ptr = bt16_.get(), o.b_ptr = a16_.get();
    } else {
      if (Status s = layout(o.a, CUDA_R_32F, N_, K_, N_); !s) return s;
      if (Status s = layout(o.b, CUDA_R_32F, K_, M_, K_); !s) return s;
      o.a_ptr = b_.get(), o.b_ptr = a_.get();
    }
    return layout(o.c, CUDA_R_32F, N_, M_, N_);
  }

  // Up to `count` algorithms for these operands, in the heuristic's order. None is an error.
  Result<std::vector<LtProposal>> lt_heuristic(const LtOperands& o, int count) const {
    cublasLtMatmulPreference_t p = nullptr;
    BS_CUBLAS_TRY(cublasLtMatmulPreferenceCreate(&p));
    const LtPreference pref(p);
    const std::size_t workspace = kLtWorkspaceBytes;
    BS_CUBLAS_TRY(cublasLtMatmulPreferenceSetAttribute(p, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                                                       sizeof workspace));
    static_assert(sizeof(LtProposal) == sizeof(cublasLtMatmulHeuristicResult_t));
    std::vector<LtProposal> got(static_cast<std::size_t>(count));
    int returned = 0;
    const cublasStatus_t st =
        cublasLtMatmulAlgoGetHeuristic(lt_.get(), o.op.get(), o.a.get(), o.b.get(), o.c.get(), o.c.get(), p, count,
                                       reinterpret_cast<cublasLtMatmulHeuristicResult_t*>(got.data()), &returned);
    if (st == CUBLAS_STATUS_NOT_SUPPORTED || (st == CUBLAS_STATUS_SUCCESS && returned == 0))
      return Status::failure("cuBLASLt's heuristic returned no algorithm for " + problem_text(),
                             "this cuBLASLt has no kernel for these types on this GPU",
                             "cublasLtMatmulAlgoGetHeuristic", cublasGetStatusName(st));
    BS_CUBLAS_TRY(st);
    got.resize(static_cast<std::size_t>(returned));
    std::erase_if(got, [](const LtProposal& p) { return p.result.state != CUBLAS_STATUS_SUCCESS; });
    if (got.empty())
      return Status::failure(
          "every algorithm cuBLASLt's heuristic returned for " + problem_text() + " was marked unusable", "",
          "cublasLtMatmulAlgoGetHeuristic");
    return got;
  }

  // One cublasLtMatmul of `algo` between the engine's events; its time.
  Result<double> lt_timed(const LtOperands& o, const cublasLtMatmulAlgo_t& algo, float* out) {
    if (Status s = lt_workspace(); !s) return s;
    const float one = 1.0f, zero = 0.0f;
    return timed_library_call([&] {
      return cublasLtMatmul(lt_.get(), o.op.get(), &one, o.a_ptr, o.a.get(), o.b_ptr, o.b.get(), &zero, out, o.c.get(),
                            out, o.c.get(), &algo, lt_workspace_.get(), lt_workspace_.bytes(), nullptr);
    });
  }

  Status lt_workspace() {
    if (lt_workspace_.get()) return Status::success();
    auto w = cuda::DeviceBuffer<std::byte>::allocate(kLtWorkspaceBytes);
    if (!w) return w.status();
    lt_workspace_ = std::move(w.value());
    return Status::success();
  }

  // The search for `which` on this problem, made on the first call: the heuristic's candidates
  // (up to kLtCandidates) into the lab's C, the GPU warmed first, then one untimed round and
  // `repeats` timed rounds of every candidate, each timed launch after an L2 flush; the fastest
  // median is kept. A candidate that fails is noted and skipped; none running is an error (not
  // kept, so the next call asks again).
  Result<const LtChoice*> lt_find(Library which) {
    if (which != Library::LtSgemm && which != Library::LtBf16)
      return Status::failure("only the cuBLASLt ceilings search", "", "lt_search");
    if (!M_) return Status::failure("no matrices yet", "choose M, N and K", "lt_search");
    BS_CUDA_TRY(cudaSetDevice(backend_.cuda_device));
    if (const LtChoice* c = lt_cached(which)) return c;
    float* out = c_.get();
    LtOperands ops;
    if (Status s = lt_operands(which, ops); !s) return s;
    auto heur = lt_heuristic(ops, kLtCandidates);
    if (!heur) return heur.status();
    LtChoice choice{which, M_, N_, K_, {}, {}};
    const double mnk = static_cast<double>(M_) * N_ * K_;
    choice.search.requested = kLtCandidates;
    choice.search.repeats = mnk > 0x1p39 ? 5 : 7;
    // Warmed up as reference() is, on the first candidate that runs.
    for (const LtProposal& p : *heur)
      if (warm_up([&] { return lt_timed(ops, p.result.algo, out); })) break;
    // Interleaved rounds (each round times every candidate once, round 0 untimed) rather than
    // each candidate's repeats back to back: a clock that drifts during the search (a GPU
    // heating up under a long product, measured on an H200 at 8192^3) then shifts every
    // candidate alike instead of flattering whichever ran while it was high. Each timed launch
    // follows an L2 flush, as the bench's are: searched warm, the kept algorithm ran 10% slower
    // than cuBLAS's own in the flushed bench (H200, 8192^3).
    std::vector<std::vector<double>> times(heur->size());
    std::vector<Status> failed(heur->size(), Status::success());
    for (int round = 0; round <= choice.search.repeats; ++round)
      for (std::size_t i = 0; i < heur->size(); ++i) {
        if (!failed[i].ok()) continue;
        if (round > 0 && flush_error_.ok())
          if (Status f = flusher_.flush(); !f) return f;
        auto t = lt_timed(ops, (*heur)[i].result.algo, out);
        if (!t) {
          failed[i] = t.status();
          if (Status sticky = cuda::to_status(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); !sticky) return sticky;
        } else if (round > 0) {
          times[i].push_back(t.value());
        }
      }
    for (std::size_t i = 0; i < heur->size(); ++i) {
      const cublasLtMatmulHeuristicResult_t& r = (*heur)[i].result;
      LtAlgo a = read_lt_algo(r.algo, r.workspaceSize);
      if (!failed[i].ok()) a.failed = failed[i].message;
      else a.ms = median_of(times[i]);
      choice.search.candidates.push_back(std::move(a));
      choice.algos.push_back({r.algo});
    }
    choice.search.best = lt_fastest(choice.search.candidates);
    if (choice.search.best < 0)
      return Status::failure("none of the " + std::to_string(choice.search.candidates.size()) +
                                 " algorithms cuBLASLt's heuristic returned for " + problem_text() +
                                 " ran: " + lt_search_note(choice.search),
                             "", "cublasLtMatmul");
    lt_choices_.push_back(std::move(choice));
    return &lt_choices_.back();
  }

  // cuBLASLt's first choice for the problem cuBLAS's anchor `lib` solves, in a sentence (or why
  // there is none): cuBLAS does not report which kernel CUBLAS_GEMM_DEFAULT ran, so this names
  // what cuBLASLt's heuristic ranks first for the same operands, types and compute type.
  std::string heuristic_first_choice(Library lib) const {
    const std::string said = "cuBLASLt's heuristic first choice for this problem (same operands, CUBLAS_COMPUTE_32F, " +
                             std::to_string(kLtWorkspaceBytes >> 20) +
                             " MiB workspace; cuBLAS does not report which algorithm it ran)";
    LtOperands ops;
    if (Status s = lt_operands(lib, ops); !s) return said + ": none, " + s.message;
    auto heur = lt_heuristic(ops, 1);
    if (!heur) return said + ": none, " + heur.status().message;
    const cublasLtMatmulHeuristicResult_t& first = heur->front().result;
    return said + ": " + lt_algo_text(read_lt_algo(first.algo, first.workspaceSize));
  }

  std::string problem_text() const {
    return std::to_string(M_) + "x" + std::to_string(N_) + "x" + std::to_string(K_) +
           (a16_.get() ? " (BF16 in, FP32 out)" : " (FP32)");
  }

  lab::Backend backend_;
  cublasHandle_t cublas_ = nullptr;
  LtHandle lt_;
  cuda::DeviceBuffer<std::byte> lt_workspace_;  // kLtWorkspaceBytes, allocated on first use
  std::vector<LtChoice> lt_choices_;            // one per library and problem searched
  Library first_choice_of_ = Library::Sgemm;    // the reference's library,
  std::string first_choice_;                    // its algorithm named (empty: not yet)
  cuda::DeviceBuffer<float> a_, b_, c_, ref_;
  cuda::DeviceBuffer<Bf16> a16_, bt16_;  // BF16 matrices: the tensor-core rungs' layouts
  TcTensorMaps maps_;
  Status maps_error_;
  Precision precision_ = Precision::Fp32;
  cuda::EventTimer timer_;
  // The pipeline-traced launch into the kept buffers, timed like launch_timed: the events around
  // the launch alone, the buffers ready beforehand.
  Result<double> launch_pipeline(MatmulKernel k, const MatmulConfig& c, const LaunchConfig& lc, float* out,
                                 std::uint32_t capacity) {
    BS_CUDA_TRY(cudaSetDevice(backend_.cuda_device));
    if (Status s = can_launch(k); !s) return s;
    if (matmul_kernel_info(k).needs != RungNeeds::Sm90a || !hopper_host::has_pipeline_trace(k, c))
      return Status::failure(matmul_kernel_info(k).id + " has no pipeline-traced variant",
                             "pick T4, T5 or T6 (the warp-specialized rungs)", "launch_pipeline_traced");
    if (capacity == 0) return Status::failure("a pipeline trace needs room for events", "", "launch_pipeline_traced");
    if ((K_ + kTc4BK - 1) / kTc4BK >= (1 << kPipelineSliceBits))
      return Status::failure("a pipeline trace numbers at most 2^20 k-slices a tile", "use a smaller K",
                             "launch_pipeline_traced");
    const std::size_t blocks = lc.grid.volume(), lanes = blocks * kPipelineWarpgroups;
    // The buffers stay between launches (grown when a launch needs more): allocating and freeing
    // them around each launch synchronised with the device, and a wait on the host then counted
    // as the trace's cost.
    if (Status s = pipeline_buffers_.reserve(blocks, lanes * capacity, lanes); !s) return s;
    const Bf16Args args{a16_.get(), bt16_.get(), out, M_, N_, K_, bf16_row_pitch(K_)};
    PipelineDeviceArgs where{pipeline_buffers_.events.get(), pipeline_buffers_.attempted.get(), capacity};
    if (Status s = hopper_host::prepare_pipeline(k, c); !s) return s;  // loaded before the events start
    return event_timed([&] {
      return hopper_host::launch_pipeline(k, c, lc, args, maps_, pipeline_buffers_.records.get(), where, nullptr);
    });
  }

  // CUDA events around `launch` (a call that enqueues a kernel and returns its Status) and
  // nothing else: how launch_timed times the rungs and launch_pipeline their traced variants.
  template <class Launch>
  Result<double> event_timed(Launch&& launch) {
    timer_.start();
    const Status launched = launch();
    timer_.stop();
    if (!launched) return launched;
    BS_CUDA_TRY(cudaGetLastError());
    auto ms = timer_.elapsed_ms();  // synchronises: a fault inside the kernel surfaces here
    if (!ms) return ms.status();
    return static_cast<double>(ms.value());
  }

  // The pipeline trace's device buffers, kept between launches (launch_pipeline_traced).
  struct PipelineBuffers {
    cuda::DeviceBuffer<trace::DeviceBlockRecord> records;
    cuda::DeviceBuffer<PipelineDeviceEvent> events;
    cuda::DeviceBuffer<std::uint32_t> attempted;
    // Records and counts are zero whenever no launch is in flight: zeroed when allocated, and
    // again after each launch's readback.
    Status reserve(std::size_t blocks, std::size_t events_needed, std::size_t lanes) {
      if (Status s = grow(records, blocks, true); !s) return s;
      if (Status s = grow(events, events_needed, false); !s) return s;
      return grow(attempted, lanes, true);
    }
    Status clear(std::size_t blocks, std::size_t lanes) {
      BS_CUDA_TRY(cudaMemsetAsync(records.get(), 0, blocks * sizeof(trace::DeviceBlockRecord)));
      BS_CUDA_TRY(cudaMemsetAsync(attempted.get(), 0, lanes * sizeof(std::uint32_t)));
      return Status::success();
    }
    template <class T>
    static Status grow(cuda::DeviceBuffer<T>& b, std::size_t n, bool zeroed) {
      if (b.size() >= n) return Status::success();
      b = {};  // free the smaller one first
      auto bigger = cuda::DeviceBuffer<T>::allocate(n);
      if (!bigger) return bigger.status();
      b = std::move(bigger.value());
      if (zeroed) BS_CUDA_TRY(cudaMemset(b.get(), 0, b.bytes()));
      return Status::success();
    }
  } pipeline_buffers_;
  cuda::L2Flusher flusher_;
  Status flush_error_;
  int M_ = 0, N_ = 0, K_ = 0;
  double peak_ = 0, tensor_peak_ = 0;
  std::string peak_formula_, tensor_formula_;
};

}  // namespace

Result<std::unique_ptr<MatmulEngine>> make_cuda_engine(const lab::Backend& backend) {
  if (Status exists = cuda::device_exists(backend.cuda_device); !exists) return exists;
  auto e = std::make_unique<CudaEngine>(backend);
  if (Status s = e->init(); !s) return s;
  return std::unique_ptr<MatmulEngine>(std::move(e));
}

}  // namespace bs::matmul
