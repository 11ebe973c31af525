// The CPU backend of the ladder: the rung's own body (gray_ladder_bodies.hpp) for every thread.
#include "labs/grayscale/gray_ladder_bodies.hpp"
#include "simulator/grid_simulator.hpp"

namespace bs::gray {

sim::SimResult simulate_gray_rung(sim::GridSimulator& simulator, GrayRung r, GrayLayout l,
                                  const LaunchConfig& config, const GrayArgs& args,
                                  sim::SimOptions options) {
  sim::SimResult result;
  const bool ran = with_gray_rung(r, l, [&]<GrayRung R, GrayLayout L>() {
    result = simulator.run(
        config, [&args](const sim::HostCtx& t) { gray_rung_body<R, L>(t, args); }, options);
  });
  if (!ran)
    result.status = Status::failure(
        std::string(rung_info(r).id) + " is a library anchor: it runs on the GPU only",
        "pick one of the ladder's own kernels for the CPU simulation", "simulate_gray_rung");
  return result;
}

}  // namespace bs::gray
