// The backend half of the matmul lab (matmul_lab.hpp): device or host memory for A, B and C,
// launches of the compiled ladder, the clock, and the reference (cuBLAS on the GPU, the
// multi-threaded double-precision CPU product on the simulator). The lab does everything that
// does not depend on the backend.
#pragma once
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/host_data.hpp"
#include "core/launch_record.hpp"
#include "core/status.hpp"
#include "lab/lab.hpp"
#include "labs/matmul/fragment_record.hpp"
#include "labs/matmul/matmul.hpp"
#include "labs/matmul/pipeline_trace.hpp"

namespace bs::matmul {

// The library anchors: cuBLAS in FP32 (SGEMM, tensor cores off), in TF32 (FP32 data, the tensor
// cores' reduced-precision FP32 mode) and in BF16 (cublasGemmEx: BF16 A and B, FP32 C and
// accumulation); and cuBLASLt's best of its heuristic's candidates, timed here, for the same
// SGEMM (CUBLAS_COMPUTE_32F_PEDANTIC: no TF32) and the same BF16 product.
enum class Library { Sgemm, Tf32, Bf16, LtSgemm, LtBf16 };
// The cuBLASLt ceilings' ids in the lab's kernel list (GPU only; matmul_lab.hpp names the others).
inline constexpr const char* kCublasLtSgemmId = "cublaslt_sgemm";
inline constexpr const char* kCublasLtBf16Id = "cublaslt_bf16";

// ---------------------------------------------------------------------------------------------
// cuBLASLt's algorithms, named: what "beats cuBLAS" is measured against is cuBLASLt's fastest
// candidate for the problem, and the records say which one that was.
// ---------------------------------------------------------------------------------------------

// One algorithm as cublasLtMatmulAlgoConfigGetAttribute describes it, and its time in the search.
struct LtAlgo {
  int id = -1;                // CUBLASLT_ALGO_CONFIG_ID
  std::string tile;           // CUBLASLT_ALGO_CONFIG_TILE_ID as cublasLtMatmulTile_t names it: "128x256"
  std::string stages;         // CUBLASLT_ALGO_CONFIG_STAGES_ID (cublasLtMatmulStages_t): "64x4"; "" undefined
  int split_k = 1;            // CUBLASLT_ALGO_CONFIG_SPLITK_NUM
  unsigned reduction = 0;     // CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME (cublasLtReductionScheme_t bits)
  unsigned swizzle = 0;       // CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING
  unsigned custom = 0;        // CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION
  std::string cluster;        // CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID: "2x1x1", "auto"; "" not asked
  std::size_t workspace = 0;  // bytes the heuristic says it needs
  double ms = 0;              // median of its timed launches in the search; 0: not timed
  std::string failed;         // why it could not run (never kept); empty: it ran
};

// The search for one problem: the heuristic's candidates in its order (the first is its first
// choice), each timed, and the fastest that ran.
struct LtSearch {
  std::vector<LtAlgo> candidates;
  int requested = 0;  // candidates asked of the heuristic
  int repeats = 0;    // timed rounds (each candidate once a round, after an untimed round)
  int best = -1;      // index into candidates; -1: none ran
};

// "algo 66, tile 128x256, stages 64x4, split-K 1 (no reduction), swizzle 0, cluster 2x1x1".
std::string lt_algo_text(const LtAlgo& a);
// The index of the fastest candidate that ran (ties: the heuristic's earlier), or -1.
int lt_fastest(const std::vector<LtAlgo>& candidates);
// The record's configuration label: "best of 8: algo 66, tile 128x256, ...".
std::string lt_search_label(const LtSearch& s);
// The whole search in a sentence: how many candidates ran, their times' range, the one kept,
// and where the heuristic's first choice came.
std::string lt_search_note(const LtSearch& s);

class MatmulEngine {
 public:
  virtual ~MatmulEngine() = default;

  // Checks the memory first (a size that does not fit is a message, not a crash), then keeps A
  // and B (FP32; for Precision::Bf16 already rounded to BF16 by the lab, and packed here into
  // the tensor-core rungs' layouts, tc_common.hpp). On failure the previous matrices are gone
  // (the lab says so).
  virtual Status set_matrices(std::span<const float> A, std::span<const float> B, int M, int N, int K,
                              Precision precision) = 0;
  // The reference product into `ref` (M * N floats, host) and what produced it; its median time
  // in *ms. GPU: cuBLAS SGEMM (FP32, tensor cores off), or cuBLAS BF16 for BF16 matrices; CPU:
  // cpu_reference (the BF16 values are exact in its double accumulation).
  virtual Status reference(HostVector<float>& ref, double* ms, std::string* note) = 0;
  // Whether this backend can run the rung at all (the simulator has no body for the Hopper
  // rungs; a GPU older than the rung needs; a build without sm_90a), with the reason.
  virtual Status can_run(const MatmulKernelInfo& info) const = 0;
  // The clusters (or blocks, for clusters of one) of a launch that fit on the device at once
  // (cudaOccupancyMaxActiveClusters): a persistent rung's grid, and the Launch tab's figure for
  // every launch with clusters.
  virtual Result<int> resident_clusters(MatmulKernel k, const MatmulConfig& c, const LaunchConfig& lc) {
    (void)k, (void)c, (void)lc;
    return Status::failure("the CPU simulation has no occupancy API to ask", "", "resident_clusters");
  }

  // The compiled kernel's attributes (cudaFuncGetAttributes) or what the simulator declares.
  virtual Result<KernelAttributes> attributes(MatmulKernel k, const MatmulConfig& c, bool* measured) = 0;
  // cudaOccupancyMaxPotentialBlockSize for the free-blockDim rungs' kernels: (min grid, block
  // size). Compiled configurations fix their own block; the simulator has no API to ask.
  virtual Result<std::pair<int, int>> suggested_block(MatmulKernel k) {
    (void)k;
    return Status::failure("the CPU simulation has no occupancy API to ask", "", "suggested_block");
  }
  virtual float* own_output() = 0;           // C, in this backend's memory
  virtual Status download(float* host) = 0;  // C to host
  virtual Result<double> launch_timed(MatmulKernel k, const MatmulConfig& c, const LaunchConfig& lc, float* out) = 0;
  virtual Result<std::vector<BlockTrace>> launch_traced(MatmulKernel k, const MatmulConfig& c, const LaunchConfig& lc,
                                                        float* out) = 0;
  // Fragment tags (fragment_record.hpp): the tagged variant of tensor-core rung `k` launched as
  // `lc` on PROBE operands of M x N x K (its own buffers: the lab's A, B and C are not touched),
  // and the tags its threads recorded. GPU: T1..T6 (T3..T6 need sm_90a); CPU: T1 and T2 through
  // the simulator, the Hopper rungs refused with the reason. Safe to call from a thread other
  // than the one launching the lab's kernels (own simulator, own stream).
  virtual Result<FragmentRecord> record_fragments(MatmulKernel k, const MatmulConfig& c, const LaunchConfig& lc, int M,
                                                  int N, int K) = 0;
  // The pipeline-traced variant of a warp-specialized Hopper rung (T4, T5, T6) into `out`, timed
  // with CUDA events: its block records and `capacity` events a warpgroup (pipeline_trace.hpp).
  // The CPU simulator has no Hopper rungs, so it refuses.
  virtual Result<PipelineRaw> launch_pipeline_traced(MatmulKernel k, const MatmulConfig& c, const LaunchConfig& lc,
                                                     float* out, std::uint32_t capacity) {
    (void)k, (void)c, (void)lc, (void)out, (void)capacity;
    return no_pipeline_here();
  }
  // The same launch timed as launch_timed times the rung (CUDA events around the launch alone),
  // with nothing read back: what the trace costs the kernel, measured the way the rung is.
  virtual Result<double> time_pipeline_launch(MatmulKernel k, const MatmulConfig& c, const LaunchConfig& lc, float* out,
                                              std::uint32_t capacity) {
    (void)k, (void)c, (void)lc, (void)out, (void)capacity;
    return no_pipeline_here();
  }
  static Status no_pipeline_here() {
    return Status::failure(
        "the CPU simulation has no Hopper rungs (wgmma, TMA and mbarriers run on sm_90a only), "
        "so there is no pipeline to record",
        "switch to the CUDA backend on a Hopper GPU (--backend cuda)", "launch_pipeline_traced");
  }
  // The library anchors (cuBLAS, cuBLASLt) into `out`; not available on the CPU. The cuBLASLt
  // ones search on their first call for a problem (lt_search) and launch the fastest after.
  virtual bool has_library() const = 0;
  virtual Result<double> library_timed(Library which, float* out) = 0;
  // What is known of a library call's algorithm on the current problem, in a sentence: for
  // cuBLAS SGEMM and BF16, cuBLASLt's heuristic first choice for the same problem (cuBLAS does
  // not say what CUBLAS_GEMM_DEFAULT ran); for the cuBLASLt ceilings, their search
  // (lt_search_note). Empty: nothing known yet (not searched) or not asked (TF32, the CPU).
  virtual std::string library_note(Library which) const {
    (void)which;
    return {};
  }
  // The cuBLASLt search for `which` (LtSgemm, LtBf16) on the current problem, made if not yet
  // made: what library_timed launches. The CPU refuses.
  virtual Result<LtSearch> lt_search(Library which) {
    (void)which;
    return Status::failure("cuBLASLt runs on the GPU only", "use the CUDA backend", "lt_search");
  }
  virtual Status flush_l2() = 0;
  virtual std::string clock() const = 0;
  virtual bool simulated() const = 0;
  // The FP32 peak, or for BF16 the dense BF16 tensor-core peak, in GFLOP/s and how it was
  // derived (0 on the CPU).
  virtual double peak_gflops(Precision precision, std::string* formula) const = 0;

  virtual Result<std::unique_ptr<MatmulEngine>> clone() const = 0;

  // Device pointers for the GPU heatmaps (nullptr on the CPU); FP32 (for BF16 matrices, their
  // rounded values).
  virtual const float* device_a() const { return nullptr; }
  virtual const float* device_b() const { return nullptr; }
  virtual const float* device_reference() const { return nullptr; }
};

std::unique_ptr<MatmulEngine> make_cpu_engine(const lab::Backend& backend);
Result<std::unique_ptr<MatmulEngine>> make_cuda_engine(const lab::Backend& backend);

}  // namespace bs::matmul
