// The matmul lab on the CPU grid simulator: A, B and C in host memory, every rung's own body run
// thread by thread (fibers for the rungs with barriers), the multi-threaded double-precision
// product as the reference, steady_clock around each launch.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "labs/matmul/matmul_engine.hpp"
#include "labs/matmul/matmul.hpp"
#include "simulator/cancellable.hpp"
#include "simulator/grid_simulator.hpp"

namespace bs::matmul {

// ---------------------------------------------------------------------------------------------
// cuBLASLt's algorithms in words (matmul_engine.hpp): plain functions of what the CUDA engine
// read from cuBLASLt, here so that the CPU build and its tests have them too.
// ---------------------------------------------------------------------------------------------
namespace {

std::string ms_text(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g ms", ms);
  return buf;
}

// How split-K's partial products are summed (cublasLtReductionScheme_t's bits).
std::string reduction_text(int split_k, unsigned scheme) {
  if (split_k <= 1) return "split-K 1";
  std::string how;
  if (scheme & 1u) how = "reduced in place in C";
  else if (scheme & 2u) how = "reduced in a compute-type workspace";
  else if (scheme & 4u) how = "reduced in an output-type workspace";
  else how = "no reduction scheme named";
  return "split-K " + std::to_string(split_k) + " (" + how + ")";
}

// The candidates that ran, and the range of their times.
struct LtRange {
  std::size_t ran = 0;
  double lo = 0, hi = 0;
};
LtRange lt_range(const std::vector<LtAlgo>& candidates) {
  LtRange r;
  for (const LtAlgo& c : candidates)
    if (c.failed.empty() && c.ms > 0) {
      r.lo = r.ran ? std::min(r.lo, c.ms) : c.ms;
      r.hi = r.ran ? std::max(r.hi, c.ms) : c.ms;
      ++r.ran;
    }
  return r;
}

}  // namespace

std::string lt_algo_text(const LtAlgo& a) {
  std::string t = "algo " + std::to_string(a.id) + ", tile " + (a.tile.empty() ? "undefined" : a.tile);
  t += ", stages " + (a.stages.empty() ? std::string("undefined") : a.stages);
  t += ", " + reduction_text(a.split_k, a.reduction);
  t += ", swizzle " + std::to_string(a.swizzle);
  if (a.custom) t += ", custom option " + std::to_string(a.custom);
  if (!a.cluster.empty()) t += ", cluster " + a.cluster;
  return t;
}

int lt_fastest(const std::vector<LtAlgo>& candidates) {
  int best = -1;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const LtAlgo& c = candidates[i];
    if (!c.failed.empty() || c.ms <= 0) continue;
    if (best < 0 || c.ms < candidates[static_cast<std::size_t>(best)].ms) best = static_cast<int>(i);
  }
  return best;
}

std::string lt_search_label(const LtSearch& s) {
  if (s.best < 0) return "cuBLASLt: no candidate ran";
  // The algorithm first (a table cuts the label short), then the candidates' range.
  std::string t = "best of " + std::to_string(s.candidates.size()) + ": " +
                  lt_algo_text(s.candidates[static_cast<std::size_t>(s.best)]);
  const LtRange r = lt_range(s.candidates);
  t += "; " + std::to_string(r.ran) + " ran in " + ms_text(r.lo) + " to " + ms_text(r.hi);
  if (r.ran < s.candidates.size()) t += ", " + std::to_string(s.candidates.size() - r.ran) + " failed";
  return t;
}

std::string lt_search_note(const LtSearch& s) {
  std::string t = "cuBLASLt's heuristic (cublasLtMatmulAlgoGetHeuristic) returned " +
                  std::to_string(s.candidates.size()) + " candidate" + (s.candidates.size() == 1 ? "" : "s") +
                  " (asked for " + std::to_string(s.requested) + ")";
  std::string failed;
  for (const LtAlgo& c : s.candidates)
    if (!c.failed.empty()) failed += (failed.empty() ? "" : "; ") + ("algo " + std::to_string(c.id) + ": " + c.failed);
  const LtRange r = lt_range(s.candidates);
  t += "; " + std::to_string(r.ran) + " tried, each the median of " + std::to_string(s.repeats) +
       " launches (interleaved rounds after an untimed one, each launch after an L2 flush)";
  if (r.ran > 0) t += ", from " + ms_text(r.lo) + " to " + ms_text(r.hi);
  if (s.best >= 0) {
    const LtAlgo& b = s.candidates[static_cast<std::size_t>(s.best)];
    t += "; kept the fastest, the heuristic's #" + std::to_string(s.best + 1) + ": " + lt_algo_text(b) + " (" +
         ms_text(b.ms) + ")";
    if (s.best != 0 && !s.candidates.empty() && s.candidates.front().failed.empty() && s.candidates.front().ms > 0)
      t += "; its first choice, " + lt_algo_text(s.candidates.front()) + ", took " + ms_text(s.candidates.front().ms);
  } else {
    t += "; none ran";
  }
  if (!failed.empty()) t += "; could not run: " + failed;
  return t;
}

namespace {

using Clock = std::chrono::steady_clock;

class CpuEngine final : public MatmulEngine, public sim::Cancellable {
 public:
  explicit CpuEngine(const lab::Backend& backend) : backend_(backend), simulator_(backend.sim_workers) {}

  Status set_matrices(std::span<const float> A, std::span<const float> B, int M, int N, int K,
                      Precision precision) override {
    try {
      a_.assign(A.begin(), A.end());
      b_.assign(B.begin(), B.end());
      c_.assign(static_cast<std::size_t>(M) * N, 0.0f);
      a16_.clear(), bt16_.clear();
      if (precision == Precision::Bf16) {
        a16_ = pack_bf16_rows(A.data(), M, K);
        bt16_ = pack_bf16_transposed(B.data(), K, N);
      }
    } catch (const std::bad_alloc&) {
      return Status::failure("not enough host memory for the simulator's matrices", "choose smaller sizes",
                             "MatmulEngine::set_matrices");
    }
    M_ = M, N_ = N, K_ = K;
    return Status::success();
  }

  Status reference(HostVector<float>& ref, double* ms, std::string* note) override {
    ref.resize(static_cast<std::size_t>(M_) * N_);  // every element written by cpu_reference
    const auto t0 = Clock::now();
    if (Status s = cpu_reference(a_.data(), b_.data(), ref.data(), M_, N_, K_); !s) return s;
    *ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    *note = "the multi-threaded CPU product (double accumulation)";
    return Status::success();
  }

  Status can_run(const MatmulKernelInfo& info) const override {
    if (info.simulated) return Status::success();
    return Status::failure(info.id +
                               " runs on Hopper GPUs only: the CPU simulator has no warpgroup MMA, "
                               "TMA or clusters to run it with",
                           "use the CUDA backend on an H100 or H200; its tiles and fragment layouts still draw here",
                           "can_run");
  }

  Result<KernelAttributes> attributes(MatmulKernel k, const MatmulConfig& c, bool* measured) override {
    *measured = false;
    KernelAttributes a;
    a.static_shared_bytes = matmul_shared_bytes(k, c);  // what the kernel declares
    return a;
  }

  float* own_output() override { return c_.data(); }
  Status download(float* host) override {
    std::memcpy(host, c_.data(), c_.size() * sizeof(float));
    return Status::success();
  }

  Result<double> launch_timed(MatmulKernel k, const MatmulConfig& c, const LaunchConfig& lc, float* out) override {
    sim::SimOptions o;
    o.cancel = cancel_;
    sim::SimResult r = simulate_kernel(simulator_, k, c, lc, o, buffers(out));
    if (!r.status) return r.status;
    return r.elapsed_ms;
  }

  Result<std::vector<BlockTrace>> launch_traced(MatmulKernel k, const MatmulConfig& c, const LaunchConfig& lc,
                                                float* out) override {
    sim::SimOptions o;
    o.record_schedule = true;
    o.cancel = cancel_;
    sim::SimResult r = simulate_kernel(simulator_, k, c, lc, o, buffers(out));
    if (!r.status) return r.status;
    return std::move(r.schedule);
  }

  Result<FragmentRecord> record_fragments(MatmulKernel k, const MatmulConfig& c, const LaunchConfig&, int M, int N,
                                          int K) override {
    return simulate_fragment_record(k, c, M, N, K, backend_.sim_workers);
  }

  bool has_library() const override { return false; }
  Result<double> library_timed(Library, float*) override {
    return Status::failure("cuBLAS and cuBLASLt run on the GPU only", "use the CUDA backend", "library_timed");
  }
  Status flush_l2() override { return Status::success(); }
  std::string clock() const override {
    return "steady_clock, CPU simulation (" + std::to_string(simulator_.workers()) + " workers)";
  }
  bool simulated() const override { return true; }
  void set_cancel(const std::atomic<bool>* cancel) override { cancel_ = cancel; }
  double peak_gflops(Precision, std::string*) const override { return 0; }

  Result<std::unique_ptr<MatmulEngine>> clone() const override {
    return std::unique_ptr<MatmulEngine>(std::make_unique<CpuEngine>(backend_));
  }

 private:
  MatmulBuffers buffers(float* out) const {
    MatmulBuffers b;
    b.f32 = MatmulArgs{a_.data(), b_.data(), out, M_, N_, K_};
    b.bf16 = Bf16Args{a16_.data(), bt16_.data(), out, M_, N_, K_, bf16_row_pitch(K_)};
    return b;
  }

  lab::Backend backend_;
  sim::GridSimulator simulator_;
  const std::atomic<bool>* cancel_ = nullptr;  // the run's, while a run holds it (sim::CancelScope)
  std::vector<float> a_, b_, c_;
  std::vector<Bf16> a16_, bt16_;  // BF16 matrices: the tensor-core rungs' layouts
  int M_ = 0, N_ = 0, K_ = 0;
};

}  // namespace

std::unique_ptr<MatmulEngine> make_cpu_engine(const lab::Backend& backend) {
  return std::make_unique<CpuEngine>(backend);
}

#if !defined(BLOCKSCOPE_HAS_CUDA)
Result<std::unique_ptr<MatmulEngine>> make_cuda_engine(const lab::Backend&) {
  return Status::failure("blockscope was built without CUDA", "use --backend cpu", "make_cuda_engine");
}
#endif

}  // namespace bs::matmul
