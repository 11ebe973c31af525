// The matmul lab's shared-memory requests, for the bank view (matmul_shared.hpp): one warp's
// requests recorded by running its block alone on the simulator (now, or as a job for a worker),
// or modelled from the rung's index expressions, and the model's totals over a whole launch.
#include <algorithm>
#include <cstdlib>
#include <memory>

#include "labs/matmul/matmul_lab.hpp"
#include "labs/matmul/matmul_registry.hpp"

namespace bs::matmul {

Result<std::vector<SharedRequest>> MatmulLab::recorded_shared_requests(const LaunchRecord& r, Dim3 block, unsigned warp,
                                                                       unsigned max_requests) const {
  auto job = shared_replay_job(r, block, warp, max_requests);
  if (!job) return job.status();
  return (*job)();
}

Result<MatmulLab::SharedReplay> MatmulLab::shared_replay_job(const LaunchRecord& r, Dim3 block, unsigned warp,
                                                             unsigned max_requests) const {
  const auto what = resolve(r.kernel, r.request);
  if (!what || !ready_)
    return Status::failure("no matmul launch of the ladder to record", "", "recorded_shared_requests");
  const auto [k, mc] = *what;
  const MatmulKernelInfo& info = matmul_kernel_info(k);
  if (!has_shared_model(k))
    return Status::failure(info.id +
                               ": the bank view records k3..k7 and T2 (the rungs whose shared memory goes "
                               "through the load/store pipe and that the simulator runs)",
                           info.simulated ? "" : "this rung runs on Hopper GPUs only: its tiles are written by TMA",
                           "recorded_shared_requests");
  const int M = spec_.M, N = spec_.N, K = spec_.K;
  // Only this block runs (record_shared), so the matrices are allocated at full size but left
  // untouched except for the rows of A and columns of B the block reads and its tile of C:
  // malloc'd, not value-initialised, so the untouched pages cost nothing (at 8192^3 that saved
  // about 290 MB of resident memory; the seconds a T2 block takes are its simulation over all of
  // K, which is why the Memory tab runs this job on a worker). The copies are the job's own: the
  // lab may change its matrices while the job runs.
  const MatmulGeometry g = matmul_geometry(k, mc);
  const int r0 = std::min(M, static_cast<int>(block.y) * g.block_rows), r1 = std::min(M, r0 + g.block_rows);
  const int c0 = std::min(N, static_cast<int>(block.x) * g.block_cols), c1 = std::min(N, c0 + g.block_cols);
  struct Scratch {
    struct Free {
      void operator()(void* p) const { std::free(p); }
    };
    std::unique_ptr<void, Free> a, b, c, a16, bt16;
    static std::unique_ptr<void, Free> make(std::size_t bytes) {
      return std::unique_ptr<void, Free>(std::malloc(std::max<std::size_t>(bytes, 1)));
    }
  };
  auto s = std::make_shared<Scratch>();
  const std::size_t MK = static_cast<std::size_t>(M) * K, KN = static_cast<std::size_t>(K) * N;
  s->a = Scratch::make(MK * sizeof(float));
  s->b = Scratch::make(KN * sizeof(float));
  s->c = Scratch::make(static_cast<std::size_t>(M) * N * sizeof(float));
  if (!s->a || !s->b || !s->c)
    return Status::failure("no host memory for the bank view's replay", "", "recorded_shared_requests");
  float* const A = static_cast<float*>(s->a.get());
  float* const B = static_cast<float*>(s->b.get());
  for (int row = r0; row < r1; ++row)
    std::copy_n(a_.data() + static_cast<std::size_t>(row) * K, K, A + static_cast<std::size_t>(row) * K);
  for (int kk = 0; kk < K; ++kk)
    std::copy(b_.data() + static_cast<std::size_t>(kk) * N + c0, b_.data() + static_cast<std::size_t>(kk) * N + c1,
              B + static_cast<std::size_t>(kk) * N + c0);
  MatmulBuffers bufs;
  bufs.f32 = MatmulArgs{A, B, static_cast<float*>(s->c.get()), M, N, K};
  if (info.precision == Precision::Bf16) {
    const std::size_t ld = static_cast<std::size_t>(bf16_row_pitch(K));
    s->a16 = Scratch::make(static_cast<std::size_t>(M) * ld * sizeof(Bf16));
    s->bt16 = Scratch::make(static_cast<std::size_t>(N) * ld * sizeof(Bf16));
    if (!s->a16 || !s->bt16)
      return Status::failure("no host memory for the bank view's replay", "", "recorded_shared_requests");
    pack_bf16_rows_into(A, K, r0, r1, static_cast<Bf16*>(s->a16.get()));
    pack_bf16_transposed_into(B, K, N, c0, c1, static_cast<Bf16*>(s->bt16.get()));
    bufs.bf16 = Bf16Args{static_cast<Bf16*>(s->a16.get()),
                         static_cast<Bf16*>(s->bt16.get()),
                         static_cast<float*>(s->c.get()),
                         M,
                         N,
                         K,
                         static_cast<int>(ld)};
  }
  const LaunchConfig lc = matmul_launch_config(k, mc, M, N, K);
  const unsigned long long lin = block.x + static_cast<unsigned long long>(lc.grid.x) * block.y;
  return SharedReplay(
      [s, bufs, k = k, mc = mc, M, N, K, block, lin, warp, max_requests]() -> Result<std::vector<SharedRequest>> {
        auto rec = record_shared(k, mc, bufs, M, N, K, {block}, max_requests);
        if (!rec) return rec.status();
        return group_requests((*rec)->warp_lanes(lin, warp));
      });
}

Result<std::vector<SharedRequest>> MatmulLab::modelled_shared_requests(const LaunchRecord& r, Dim3 block, unsigned warp,
                                                                       const SharedModelOptions& options) const {
  const auto what = resolve(r.kernel, r.request);
  if (!what || !ready_)
    return Status::failure("no matmul launch of the ladder to model", "", "modelled_shared_requests");
  auto lanes = model_shared_lanes(what->first, what->second, spec_.M, spec_.N, spec_.K, block, warp, options);
  if (!lanes) return lanes.status();
  return group_requests(*lanes);
}

std::optional<mapping::SharedTotals> MatmulLab::shared_memory_model(const LaunchRecord& r, std::string* sample) const {
  const auto what = resolve(r.kernel, r.request);
  if (!what || !ready_ || !has_shared_model(what->first)) return std::nullopt;
  auto m = model_shared_launch(what->first, what->second, spec_.M, spec_.N, spec_.K);
  if (!m) return std::nullopt;
  if (sample) *sample = m->sample;
  return m->totals;
}

}  // namespace bs::matmul
