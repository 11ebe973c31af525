// Sections:
//   1. the model: each rung's shared_lane, from its index expressions (the rung's file)
//   2. the recording (the simulator with a SharedRecorder)
//   3. a launch's totals
#include "labs/matmul/matmul_shared.hpp"

#include <algorithm>

#include "labs/matmul/matmul_registry.hpp"

namespace bs::matmul {

// ---- 1. the model: each rung's own shared_lane (its traits, shared_model.hpp) ---------------

bool has_shared_model(MatmulKernel k) { return matmul_kernel_info(k).shared_model; }

Result<std::vector<std::vector<SharedAccess>>> model_shared_lanes(MatmulKernel kernel, const MatmulConfig& config,
                                                                  int M, int N, int K, Dim3 block, unsigned warp,
                                                                  const SharedModelOptions& o) {
  if (!has_shared_model(kernel))
    return Status::failure(matmul_kernel_info(kernel).id + " has no shared-memory model",
                           "the bank view covers k3..k7 and T2", "model_shared_lanes");
  const LaunchConfig lc = matmul_launch_config(kernel, config, M, N, K);
  const unsigned long long threads = lc.block.volume();
  if (block.x >= lc.grid.x || block.y >= lc.grid.y || block.z >= lc.grid.z || warp * 32ull >= threads)
    return Status::failure("no warp " + std::to_string(warp) + " in block (" + std::to_string(block.x) + ", " +
                               std::to_string(block.y) + ") of this launch",
                           "", "model_shared_lanes");
  std::vector<std::vector<SharedAccess>> lanes(32);
  for (unsigned ln = 0; ln < 32; ++ln) {
    const unsigned long long tid = warp * 32ull + ln;
    if (tid >= threads) continue;
    const int t = static_cast<int>(tid);
    with_rung(kernel, [&]<class R>() {
      if constexpr (R::kSharedModel) R::shared_lane(SharedLane{lanes[ln]}, config, K, t, o);
    });
  }
  return lanes;
}

// ---- 2. the recording -------------------------------------------------------------------------

Result<std::unique_ptr<sim::SharedRecorder>> record_shared(MatmulKernel kernel, const MatmulConfig& config,
                                                           const MatmulBuffers& buffers, int M, int N, int K,
                                                           const std::vector<Dim3>& blocks, unsigned max_per_thread) {
  const LaunchConfig lc = matmul_launch_config(kernel, config, M, N, K);
  std::vector<unsigned long long> linear;
  for (Dim3 b : blocks)
    linear.push_back(b.x + static_cast<unsigned long long>(lc.grid.x) *
                               (b.y + static_cast<unsigned long long>(lc.grid.y) * b.z));
  auto rec = std::make_unique<sim::SharedRecorder>(std::move(linear), max_per_thread);
  rec->run_only_recorded = true;
  sim::GridSimulator simulator(1);
  sim::SimOptions o;
  o.workers = 1;
  o.shared_recorder = rec.get();
  const sim::SimResult r = simulate_kernel(simulator, kernel, config, lc, o, buffers);
  if (!r.status) return r.status;
  return rec;
}

// ---- 3. a launch's totals ---------------------------------------------------------------------

Result<SharedLaunchModel> model_shared_launch(MatmulKernel kernel, const MatmulConfig& config, int M, int N, int K,
                                              unsigned max_blocks) {
  if (!has_shared_model(kernel))
    return Status::failure(matmul_kernel_info(kernel).id + " has no shared-memory model", "", "model_shared_launch");
  const LaunchConfig lc = matmul_launch_config(kernel, config, M, N, K);
  const unsigned long long blocks = lc.grid.volume();
  const unsigned warps = static_cast<unsigned>((lc.block.volume() + 31) / 32);
  if (blocks == 0 || warps == 0) return Status::failure("an empty launch", "", "model_shared_launch");
  const unsigned long long n = std::min<unsigned long long>(blocks, std::max(1u, max_blocks));
  SharedLaunchModel out;
  unsigned long long sampled = 0, previous = ~0ull;
  for (unsigned long long i = 0; i < n; ++i) {
    const unsigned long long lin = n == 1 ? 0 : i * (blocks - 1) / (n - 1);
    if (lin == previous) continue;
    previous = lin;
    ++sampled;
    const Dim3 b{static_cast<unsigned>(lin % lc.grid.x), static_cast<unsigned>((lin / lc.grid.x) % lc.grid.y),
                 static_cast<unsigned>(lin / (static_cast<unsigned long long>(lc.grid.x) * lc.grid.y))};
    for (unsigned w = 0; w < warps; ++w) {
      auto lanes = model_shared_lanes(kernel, config, M, N, K, b, w);
      if (!lanes) return lanes.status();
      for (const SharedRequest& r : group_requests(*lanes)) out.totals.add(r);
    }
  }
  out.totals.scale(static_cast<double>(blocks) / static_cast<double>(sampled));
  out.sample = std::to_string(sampled) + " of " + std::to_string(blocks) + " blocks (spread evenly), all " +
               std::to_string(warps) + " warps of each, every request, scaled to the grid";
  return out;
}

}  // namespace bs::matmul
