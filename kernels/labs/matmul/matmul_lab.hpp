// The matmul lab: C = A * B on generated matrices, the ladder from the lecture's naive kernel to
// warp tiling, cuBLAS as the library anchor on the GPU, and a reference that checks every run
// against a documented per-element tolerance (matmul.hpp, section 2). One class for both
// backends; the CUDA device and the CPU grid simulator are engines behind it. The class is written
// in four files: matmul_lab.cpp (kernels, problem, plan, run, fragments), matmul_lab_access.cpp
// (warp_accesses), matmul_lab_banks.cpp (shared-memory requests), matmul_lab_pipeline.cpp.
//
//   auto lab = bs::matmul::MatmulLab::create(backend);
//   lab->set_matrices({512, 512, 512, Pattern::Uniform, Pattern::Uniform, 1});
//   LaunchRecord r = lab->run("k5_blocktile_2d", {.compiled = 1}, {});
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/host_data.hpp"
#include "lab/lab.hpp"
#include "labs/matmul/fragment_record.hpp"
#include "labs/matmul/matmul.hpp"
#include "labs/matmul/matmul_shared.hpp"
#include "labs/matmul/pipeline_trace.hpp"

namespace bs::matmul {

class MatmulEngine;  // matmul_engine.hpp

struct MatrixSpec {
  int M = 0, N = 0, K = 0;
  Pattern a = Pattern::Uniform, b = Pattern::Uniform;
  std::uint64_t seed = 1;  // A from seed, B from seed + 1
  friend bool operator==(const MatrixSpec&, const MatrixSpec&) = default;
};

// The library anchors' ids in the kernel list (GPU only): cuBLAS SGEMM (the FP32 ladder's
// library), and beside the tensor-core ladder cuBLAS BF16 (its library) with TF32 and SGEMM
// timed in the same run as ceilings.
inline constexpr const char* kCublasId = "cublas_sgemm";
inline constexpr const char* kCublasTf32Id = "cublas_tf32";
inline constexpr const char* kCublasBf16Id = "cublas_bf16";
// SGEMM again beside the tensor-core ladder, as a ceiling there (its own id: a report holding
// both ladders tells the FP32 ladder's library from the BF16 ladder's ceiling).
inline constexpr const char* kCublasSgemmCeilingId = "cublas_sgemm_ceiling";

class MatmulLab final : public lab::Lab {
 public:
  static Result<std::unique_ptr<MatmulLab>> create(const lab::Backend& backend);
  ~MatmulLab() override;

  // lab::Lab
  std::string_view id() const override { return "matmul"; }
  std::string_view title() const override { return "Matmul"; }
  const lab::Backend& backend() const override { return backend_; }
  const std::vector<lab::KernelInfo>& kernels() const override { return kernels_; }
  lab::ProblemInfo problem() const override;
  LaunchRecord plan(std::string_view kernel, const KernelConfig& config) override;
  LaunchRecord run(std::string_view kernel, const KernelConfig& config, const lab::RunOptions& options) override;
  std::size_t output_bytes() const override;
  Status download_output(void* host) override;
  std::optional<mapping::ElementOwner> owner(const LaunchRecord& launch, long long x, long long y) const override;
  std::vector<mapping::WarpAccess> warp_accesses(const LaunchRecord& launch, Dim3 block, unsigned warp,
                                                 int step) const override;
  Result<std::unique_ptr<lab::Lab>> fork() const override;
  std::optional<lab::BlockSuggestion> suggested_block(std::string_view kernel) override;
  Status set_random_problem(std::string_view size) override;
  std::string size_syntax() const override { return "MxNxK, or N for N x N x N"; }
  std::vector<std::string> default_sizes() const override;
  // precision = fp32 (the FP32 ladder) or bf16 (the tensor-core ladder, BF16 inputs); a change
  // swaps the kernel list and rebuilds the matrices (rounded to BF16, the same seeds).
  std::vector<lab::Setting> settings() const override;
  Status set_setting(std::string_view key, std::string_view value) override;
  std::uint64_t kernels_version() const override { return kernels_version_; }
  Precision precision() const { return precision_; }
  const lab::UserKernelSpec* user_kernel_spec() const override;  // matmul_user_spec.hpp

  // The problem: refuses sizes the backend cannot hold (device memory, the simulator's cap,
  // half the host's memory) with the numbers; generates A and B, computes the reference.
  Status set_matrices(const MatrixSpec& spec);
  const MatrixSpec& spec() const { return spec_; }
  bool ready() const { return ready_; }
  const Status& status() const { return status_; }  // why not ready
  // Changes whenever set_matrices runs (labs that copy the data, e.g. the user's own kernels,
  // know when to copy it again).
  std::uint64_t generation() const { return generation_; }
  std::span<const float> a() const { return a_; }
  std::span<const float> b() const { return b_; }
  std::span<const float> reference() const { return reference_; }
  const ErrorScale& error_scale() const { return scale_; }
  double reference_ms() const { return reference_ms_; }
  const std::string& reference_note() const { return reference_note_; }
  double peak_gflops() const { return peak_gflops_; }  // FP32, or the BF16 tensor-core peak
  const std::string& peak_note() const { return peak_note_; }
  // The kernel and MatmulConfig a request names (nullopt: unknown kernel or index).
  std::optional<std::pair<MatmulKernel, MatmulConfig>> resolve(std::string_view kernel,
                                                               const KernelConfig& config) const;
  // Shared-memory requests of warp `warp` of block `block` in `launch` (k3..k7 and T2; see
  // matmul_shared.hpp). Recorded: that block alone run on the CPU simulator from the host copies
  // of A and B (on either backend), the first `max_requests` requests of each lane. Modelled: from
  // the rung's index expressions, with `options` (the swizzle off for a "before" picture).
  Result<std::vector<SharedRequest>> recorded_shared_requests(const LaunchRecord& launch, Dim3 block, unsigned warp,
                                                              unsigned max_requests = 4096) const;
  // The same recording as a job to run on another thread: made here (it copies the rows of A
  // and columns of B the block reads, so it never touches the lab again), run anywhere, once.
  // A T2 block at 8192^3 is 134 M simulated multiply-adds, seconds on the CPU: the Memory tab runs
  // the job on a worker instead of its frame.
  using SharedReplay = std::function<Result<std::vector<SharedRequest>>()>;
  Result<SharedReplay> shared_replay_job(const LaunchRecord& launch, Dim3 block, unsigned warp,
                                         unsigned max_requests = 4096) const;
  Result<std::vector<SharedRequest>> modelled_shared_requests(const LaunchRecord& launch, Dim3 block, unsigned warp,
                                                              const SharedModelOptions& options = {}) const;
  // lab::Lab: the model's wavefronts of the whole launch, for the Measured tab.
  std::optional<mapping::SharedTotals> shared_memory_model(const LaunchRecord& launch,
                                                           std::string* sample) const override;
  // Fragment tags of the launch `shown` (a tensor-core rung; fragment_record.hpp): who held each
  // element of C, recorded by the rung's tagged variant on probe operands (the GPU: T1..T6; the
  // simulator: T1, T2), once per kernel, configuration, grid and size, then cached (the last
  // four). The first call takes a probe launch (on the CPU, a simulation of the whole grid): call
  // it from a worker thread, never the UI's; it is thread-safe and touches neither the lab's
  // matrices nor its C. cached_fragment_record never records: the UI thread's way to ask.
  Result<std::shared_ptr<const FragmentRecord>> fragment_record(const LaunchRecord& shown);
  std::shared_ptr<const FragmentRecord> cached_fragment_record(const LaunchRecord& shown) const;
  // The PTX ISA model of the same launch, to draw beside the record (cheap after the first call
  // per rung: one block tile's owners are cached).
  Result<FragmentModel> fragment_model(const LaunchRecord& shown) const;
  // The warp-specialized pipeline, recorded (pipeline_trace.hpp): one launch of the
  // pipeline-traced variant of T4, T5 or T6 (CUDA backend only; the simulator has no Hopper
  // rungs and says so), its event buffer sized from the launch (slices x tiles a block, capped at
  // `capture`), verified against the reference like any launch (`check`).
  struct PipelineRun {
    PipelineRaw raw;
    Check check;
    LaunchRecord plan;  // the launch as planned (grid as launched, clusters)
  };
  Result<PipelineRun> trace_pipeline(std::string_view kernel, const KernelConfig& config,
                                     const PipelineCapture& capture = {});
  // The traced variant's cost: `policy` (the one timing policy, lab/measure.hpp) applied to
  // launches of the pipeline-traced variant, each timed with CUDA events around the launch alone,
  // as run() times the rung: its buffers are kept between launches and nothing is read back
  // between them (MatmulEngine::time_pipeline_launch). Compare its median with run()'s median of
  // the plain rung under the same policy.
  Result<Timing> time_pipeline_traced(std::string_view kernel, const KernelConfig& config, const TimingPolicy& policy,
                                      const PipelineCapture& capture = {});
  // What the trace costs: the plain rung and its pipeline-traced variant, each timed under
  // `policy` the way run() times the rung (CUDA events around the launch alone, L2 flushed
  // between launches), one after the other on the same matrices. The Pipeline tab shows it.
  struct PipelineCost {
    Timing plain, traced;
    double overhead() const { return plain.median_ms > 0 ? traced.median_ms / plain.median_ms - 1.0 : 0.0; }
  };
  Result<PipelineCost> pipeline_cost(std::string_view kernel, const KernelConfig& config, const TimingPolicy& policy,
                                     const PipelineCapture& capture = {});
  // Whether `kernel` has a pipeline-traced variant (T4, T5, T6), whatever the backend.
  static bool has_pipeline(std::string_view kernel);
  // Device pointers for heatmaps drawn by CUDA (nullptr on the CPU backend).
  const float* device_a() const;
  const float* device_b() const;
  const float* device_reference() const;
  float* device_output();

 private:
  MatmulLab(lab::Backend backend, std::unique_ptr<MatmulEngine> engine);
  struct FragmentCache;  // matmul_lab.cpp
  std::string fragment_key(const LaunchRecord& shown) const;
  void rebuild_kernel_list();
  std::uint32_t pipeline_capacity(const LaunchRecord& planned, const PipelineCapture& capture) const;
  // The check of C (`c`, host memory) against the reference, within the documented tolerance.
  Check check_against_reference(const float* c) const;
  // The check of a run's C, written to `out` (RunOptions::output, or the lab's own buffer).
  Check check_run_output(const lab::RunOptions& options, const float* out);

  lab::Backend backend_;
  std::unique_ptr<MatmulEngine> engine_;
  std::vector<lab::KernelInfo> kernels_;
  MatrixSpec spec_;
  bool ready_ = false;
  Status status_;
  HostVector<float> a_, b_, reference_;  // no zero-fill before they are written (core/host_data.hpp)
  StepTimes made_;                       // how the matrices were made (ProblemInfo::made)
  ErrorScale scale_;
  double reference_ms_ = 0;
  std::string reference_note_;
  double peak_gflops_ = 0;
  std::string peak_note_;
  std::uint64_t generation_ = 0;
  Precision precision_ = Precision::Fp32;
  std::uint64_t kernels_version_ = 0;
  std::shared_ptr<FragmentCache> fragments_;
};

}  // namespace bs::matmul
