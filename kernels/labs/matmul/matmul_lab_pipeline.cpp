// The matmul lab's warp-specialized pipeline, recorded (pipeline_trace.hpp): which rungs have one,
// one launch of the pipeline-traced variant with its events and its check, and what the recording
// costs against the plain rung under the same timing policy (the Pipeline tab).
#include <algorithm>
#include <string>
#include <vector>

#include "lab/measure.hpp"
#include "labs/matmul/matmul_engine.hpp"
#include "labs/matmul/matmul_lab.hpp"
#include "labs/matmul/matmul_registry.hpp"

namespace bs::matmul {

bool MatmulLab::has_pipeline(std::string_view kernel) {
  const MatmulKernelInfo* info = find_matmul_kernel(kernel);
  return info && info->pipeline;
}

Result<MatmulLab::PipelineRun> MatmulLab::trace_pipeline(std::string_view kernel, const KernelConfig& config,
                                                         const PipelineCapture& capture) {
  if (!has_pipeline(kernel))
    return Status::failure("'" + std::string(kernel) +
                               "' has no pipeline to record: the Pipeline view shows the "
                               "warp-specialized rungs' producer and consumers",
                           "pick T4 (tc4_warp_specialized), T5 or T6 with precision=bf16", "trace_pipeline");
  if (backend_.kind != BackendKind::Cuda)
    return engine_->launch_pipeline_traced(MatmulKernel{}, MatmulConfig{}, LaunchConfig{}, nullptr, 0).status();
  PipelineRun run;
  run.plan = plan(kernel, config);
  if (!run.plan.ok()) return run.plan.status;
  const auto [k, mc] = *resolve(kernel, config);
  const MatmulKernelInfo& info = matmul_kernel_info(k);
  const std::uint32_t capacity = pipeline_capacity(run.plan, capture);
  // As before each timed launch: the L2 flushed, so the recording starts from the state the
  // timings do, and its CUDA events start once the flush is done, with the launch already queued
  // (on an idle GPU they would also time the host's launch call, a few percent of 0.2 ms).
  if (Status s = engine_->flush_l2(); !s) return s;
  auto raw = engine_->launch_pipeline_traced(k, mc, run.plan.config, engine_->own_output(), capacity);
  if (!raw) return raw.status();
  run.raw = std::move(raw.value());
  run.raw.kernel = info.id;
  run.raw.config = mc.label;
  run.raw.M = spec_.M, run.raw.N = spec_.N, run.raw.K = spec_.K;
  run.raw.stages = kTc4Stages;
  run.raw.persistent = info.persistent;
  run.raw.mma_groups_in_flight = info.mma_groups_in_flight;
  std::vector<float> got(static_cast<std::size_t>(spec_.M) * spec_.N);
  if (Status s = engine_->download(got.data()); !s) return s;
  run.check = check_against_reference(got.data());
  return run;
}

Result<Timing> MatmulLab::time_pipeline_traced(std::string_view kernel, const KernelConfig& config,
                                               const TimingPolicy& policy, const PipelineCapture& capture) {
  if (!has_pipeline(kernel) || backend_.kind != BackendKind::Cuda) {
    auto r = trace_pipeline(kernel, config, capture);  // the same refusal, with its reason
    if (!r) return r.status();
  }
  const LaunchRecord planned = plan(kernel, config);
  if (!planned.ok()) return planned.status;
  const auto [k, mc] = *resolve(kernel, config);
  const std::uint32_t capacity = pipeline_capacity(planned, capture);
  Timing t;
  t.clock = engine_->clock();
  Status s = lab::measure(
      policy, t,
      [&]() -> Result<double> {
        return engine_->time_pipeline_launch(k, mc, planned.config, engine_->own_output(), capacity);
      },
      [&] { return engine_->flush_l2(); });
  if (!s) return s;
  return t;
}

Result<MatmulLab::PipelineCost> MatmulLab::pipeline_cost(std::string_view kernel, const KernelConfig& config,
                                                         const TimingPolicy& policy, const PipelineCapture& capture) {
  auto traced = time_pipeline_traced(kernel, config, policy, capture);  // refuses with the reason first
  if (!traced) return traced.status();
  const LaunchRecord planned = plan(kernel, config);
  const auto [k, mc] = *resolve(kernel, config);
  PipelineCost cost;
  cost.traced = traced.value();
  cost.plain.clock = engine_->clock();
  Status s = lab::measure(
      policy, cost.plain,
      [&]() -> Result<double> { return engine_->launch_timed(k, mc, planned.config, engine_->own_output()); },
      [&] { return engine_->flush_l2(); });
  if (!s) return s;
  return cost;
}

std::uint32_t MatmulLab::pipeline_capacity(const LaunchRecord& planned, const PipelineCapture& capture) const {
  const MatmulKernelInfo* info = find_matmul_kernel(planned.kernel);
  // The events each warpgroup will write: slices per tile x tiles per block (persistent rungs:
  // the tiles of the grouped order dealt round-robin to the clusters resident).
  const LaunchConfig& lc = planned.config;
  const int slices = (spec_.K + kTc4BK - 1) / kTc4BK;
  int tiles = 1;
  if (info && info->persistent) {
    const int cs = static_cast<int>(std::max(1u, lc.cluster.x));
    const long long all =
        static_cast<long long>((spec_.M + kTc4BM * cs - 1) / (kTc4BM * cs)) * ((spec_.N + kTc4BN - 1) / kTc4BN);
    const long long clusters = std::max(1u, lc.grid.x / static_cast<unsigned>(cs));
    tiles = static_cast<int>((all + clusters - 1) / clusters);
  }
  const std::uint32_t needed =
      std::max(pipeline_events_needed(0, slices, tiles), pipeline_events_needed(1, slices, tiles));
  return std::max(1u, std::min(needed, capture.max_events_per_warpgroup));
}

}  // namespace bs::matmul
