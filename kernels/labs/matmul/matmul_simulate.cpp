// Rungs on the CPU: the simulator runs each rung's own body (the same template the GPU runs)
// for every thread of every block, with fibers honouring __syncthreads and the warp-collective
// tensor-core operations (tc_warp_ops.hpp). One dispatch, with_config (matmul_registry.hpp).
#include <chrono>

#include "labs/matmul/matmul.hpp"

namespace bs::matmul {

sim::SimResult simulate_kernel(sim::GridSimulator& simulator, MatmulKernel kernel, const MatmulConfig& config,
                               const LaunchConfig& lc, sim::SimOptions options, const MatmulBuffers& buffers) {
  const MatmulKernelInfo& info = matmul_kernel_info(kernel);
  options.uses_barriers = info.uses_barriers;
  sim::SimResult result;
  result.status =
      info.simulated
          ? Status::failure("no compiled instantiation for this configuration", "", "simulate_matmul")
          : Status::failure(info.id +
                                " runs on Hopper GPUs only: the CPU simulator has no "
                                "warpgroup MMA, TMA or clusters to run it with",
                            "use the CUDA backend on an H100 or H200; its layouts still draw here", "simulate_matmul");
  with_config(kernel, config, [&]<class R, std::size_t I>() {
    using At = typename R::template At<I>;
    const auto& args = R::args(buffers);
    result = simulator.run_with_shared<typename At::Smem>(
        lc, [&](const sim::HostCtx& t, typename At::Smem& s) { At::body(t, s, args); }, options);
  });
  return result;
}

namespace {

LaunchRecord simulate(sim::GridSimulator& simulator, MatmulKernel kernel, const MatmulConfig& config,
                      const MatmulBuffers& buffers, int M, int N, int K, bool have_buffers, sim::SimOptions options) {
  const MatmulKernelInfo& info = matmul_kernel_info(kernel);
  LaunchRecord rec;
  rec.kernel = info.id;
  rec.backend = BackendKind::CpuSimulation;
  rec.timing.clock = "steady_clock around the whole simulated launch (CPU wall time)";
  rec.config = matmul_launch_config(kernel, config, M, N, K);
  rec.flops = matmul_flops(M, N, K);
  rec.bytes_moved = matmul_compulsory_bytes(M, N, K, info.precision);

  rec.status = check_matmul_config(kernel, config, M, N, K, sim::simulator_limits(simulator.workers()));
  if (!rec.ok()) return rec;
  const long double work = static_cast<long double>(M) * N * K;
  if (work > static_cast<long double>(kSimMaxMultiplyAdds)) {
    rec.status =
        Status::failure("simulating " + std::to_string(M) + " x " + std::to_string(N) + " x " + std::to_string(K) +
                            " (" + std::to_string(static_cast<long long>(work)) +
                            " multiply-adds) is above the simulator's cap of 2^27 = 134217728 per launch",
                        "the CPU simulator runs every thread's code one by one; use sizes up to 512^3 here, or "
                        "the CUDA backend",
                        "simulate_matmul");
    return rec;
  }
  if (!have_buffers) {
    rec.status = Status::failure("simulate_matmul needs three host buffers", "", "simulate_matmul");
    return rec;
  }
  sim::SimResult r = simulate_kernel(simulator, kernel, config, rec.config, options, buffers);
  rec.status = r.status;
  rec.timing.samples_ms = {r.elapsed_ms};
  rec.timing.simulated = true;
  summarize(rec.timing);
  rec.schedule = std::move(r.schedule);
  rec.schedule_simulated = true;
  return rec;
}

}  // namespace

LaunchRecord simulate_matmul(sim::GridSimulator& simulator, MatmulKernel kernel, const MatmulConfig& config,
                             const float* A, const float* B, float* C, int M, int N, int K, sim::SimOptions options) {
  if (matmul_kernel_info(kernel).precision != Precision::Fp32) {
    LaunchRecord rec;
    rec.kernel = matmul_kernel_info(kernel).id;
    rec.status =
        Status::failure(rec.kernel + " multiplies BF16 matrices", "use simulate_matmul_bf16", "simulate_matmul");
    return rec;
  }
  MatmulBuffers b;
  b.f32 = MatmulArgs{A, B, C, M, N, K};
  return simulate(simulator, kernel, config, b, M, N, K, A && B && C, options);
}

LaunchRecord simulate_matmul_bf16(sim::GridSimulator& simulator, MatmulKernel kernel, const MatmulConfig& config,
                                  const Bf16Args& args, sim::SimOptions options) {
  if (matmul_kernel_info(kernel).precision != Precision::Bf16) {
    LaunchRecord rec;
    rec.kernel = matmul_kernel_info(kernel).id;
    rec.status =
        Status::failure(rec.kernel + " multiplies FP32 matrices", "use simulate_matmul", "simulate_matmul_bf16");
    return rec;
  }
  MatmulBuffers b;
  b.bf16 = args;
  return simulate(simulator, kernel, config, b, args.M, args.N, args.K, args.A && args.Bt && args.C, options);
}

}  // namespace bs::matmul
