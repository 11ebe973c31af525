// Rungs on the CPU: the simulator runs each rung's own body (the same template the GPU runs)
// for every thread of every block, with fibers honouring __syncthreads for rungs 3-7. Also the
// matmul lab's CPU engine (MatmulLab on the CPU backend).
#include <chrono>

#include "labs/matmul/k1_naive.hpp"
#include "labs/matmul/k2_uncoalesced.hpp"
#include "labs/matmul/k3_smem_tiled.hpp"
#include "labs/matmul/k4_blocktile_1d.hpp"
#include "labs/matmul/k5_blocktile_2d.hpp"
#include "labs/matmul/k6_vectorized.hpp"
#include "labs/matmul/k7_warptile.hpp"
#include "labs/matmul/matmul.hpp"

namespace bs::matmul {
namespace {

template <class Smem, class Body>
sim::SimResult run(sim::GridSimulator& simulator, const LaunchConfig& lc, sim::SimOptions options,
                   const MatmulArgs& args, Body body) {
  return simulator.run_with_shared<Smem>(
      lc, [&](const sim::HostCtx& t, Smem& s) { body(t, s, args); }, options);
}

}  // namespace

sim::SimResult simulate_kernel(sim::GridSimulator& simulator, MatmulKernel kernel,
                               const MatmulConfig& config, const LaunchConfig& lc,
                               sim::SimOptions options, const MatmulArgs& args) {
  options.uses_barriers = matmul_kernel_info(kernel).uses_barriers;
  sim::SimResult result;
  result.status = Status::failure("no compiled instantiation for this configuration", "",
                                  "simulate_matmul");
  switch (kernel) {
    case MatmulKernel::Naive:
      return run<NoSmem>(simulator, lc, options, args,
                         [](const auto& t, NoSmem& s, const MatmulArgs& a) { k1_naive_thread(t, s, a); });
    case MatmulKernel::Uncoalesced:
      return run<NoSmem>(simulator, lc, options, args, [](const auto& t, NoSmem& s, const MatmulArgs& a) {
        k2_uncoalesced_thread(t, s, a);
      });
    case MatmulKernel::SmemTiled:
      visit_index<std::size(kK3Tiles)>(find_in(kK3Tiles, static_cast<int>(config.block.x)), [&](auto i) {
        constexpr int T = kK3Tiles[decltype(i)::value];
        result = run<K3Smem<T>>(simulator, lc, options, args, [](const auto& t, K3Smem<T>& s, const MatmulArgs& a) {
          k3_smem_tiled_thread<T>(t, s, a);
        });
      });
      return result;
    case MatmulKernel::Blocktile1D:
      visit_index<std::size(kK4Params)>(find_in(kK4Params, config.tile), [&](auto i) {
        constexpr TileParams P = kK4Params[decltype(i)::value];
        using S = K4Smem<P.BM, P.BN, P.BK>;
        result = run<S>(simulator, lc, options, args, [&](const auto& t, S& s, const MatmulArgs& a) {
          k4_blocktile_1d_thread<P.BM, P.BN, P.BK, P.TM>(t, s, a);
        });
      });
      return result;
    case MatmulKernel::Blocktile2D:
      visit_index<std::size(kK5Params)>(find_in(kK5Params, config.tile), [&](auto i) {
        constexpr TileParams P = kK5Params[decltype(i)::value];
        using S = K5Smem<P.BM, P.BN, P.BK>;
        result = run<S>(simulator, lc, options, args, [&](const auto& t, S& s, const MatmulArgs& a) {
          k5_blocktile_2d_thread<P.BM, P.BN, P.BK, P.TM, P.TN>(t, s, a);
        });
      });
      return result;
    case MatmulKernel::Vectorized:
      visit_index<std::size(kK6Params)>(find_in(kK6Params, config.tile), [&](auto i) {
        constexpr TileParams P = kK6Params[decltype(i)::value];
        using S = K6Smem<P.BM, P.BN, P.BK>;
        result = run<S>(simulator, lc, options, args, [&](const auto& t, S& s, const MatmulArgs& a) {
          k6_vectorized_thread<P.BM, P.BN, P.BK, P.TM, P.TN>(t, s, a);
        });
      });
      return result;
    case MatmulKernel::Warptile:
      visit_index<std::size(kK7Params)>(find_in(kK7Params, config.tile), [&](auto i) {
        constexpr TileParams P = kK7Params[decltype(i)::value];
        using S = K7Smem<P.BM, P.BN, P.BK>;
        result = run<S>(simulator, lc, options, args, [&](const auto& t, S& s, const MatmulArgs& a) {
          k7_warptile_thread<P.BM, P.BN, P.BK, P.WM, P.WN, P.TM, P.TN>(t, s, a);
        });
      });
      return result;
  }
  return result;
}

LaunchRecord simulate_matmul(sim::GridSimulator& simulator, MatmulKernel kernel,
                             const MatmulConfig& config, const float* A, const float* B, float* C,
                             int M, int N, int K, sim::SimOptions options) {
  const MatmulKernelInfo& info = matmul_kernel_info(kernel);
  LaunchRecord rec;
  rec.kernel = info.id;
  rec.backend = BackendKind::CpuSimulation;
  rec.timing.clock = "steady_clock around the whole simulated launch (CPU wall time)";
  rec.config = matmul_launch_config(kernel, config, M, N, K);
  rec.config.dynamic_shared_bytes = 0;
  rec.flops = matmul_flops(M, N, K);
  rec.bytes_moved = matmul_compulsory_bytes(M, N, K);

  rec.status = check_matmul_config(kernel, config, M, N, K, sim::simulator_limits(simulator.workers()));
  if (!rec.ok()) return rec;
  const long double work = static_cast<long double>(M) * N * K;
  if (work > static_cast<long double>(kSimMaxMultiplyAdds)) {
    rec.status = Status::failure(
        "simulating " + std::to_string(M) + " x " + std::to_string(N) + " x " + std::to_string(K) +
            " (" + std::to_string(static_cast<long long>(work)) +
            " multiply-adds) is above the simulator's cap of 2^27 = 134217728 per launch",
        "the CPU simulator runs every thread's code one by one; use sizes up to 512^3 here, or "
        "the CUDA backend",
        "simulate_matmul");
    return rec;
  }
  if (!A || !B || !C) {
    rec.status = Status::failure("simulate_matmul needs three host buffers", "", "simulate_matmul");
    return rec;
  }
  const MatmulArgs args{A, B, C, M, N, K};
  sim::SimResult r = simulate_kernel(simulator, kernel, config, rec.config, options, args);
  rec.status = r.status;
  rec.timing.samples_ms = {r.elapsed_ms};
  rec.timing.simulated = true;
  summarize(rec.timing);
  rec.schedule = std::move(r.schedule);
  rec.schedule_simulated = true;
  return rec;
}

}  // namespace bs::matmul
