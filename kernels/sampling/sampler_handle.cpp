// What every build of bs_sampling shares, CUPTI or not: the environment switches and the handle.
#include <cstdlib>
#include <string_view>

#include "sampling/pc_sampler.hpp"
#include "sampling/sass_metrics.hpp"

namespace bs::sampling {

Status sass_metrics_switch() {
  if (const char* env = std::getenv("BLOCKSCOPE_SASS_METRICS"); env && std::string_view(env) == "0")
    return Status::failure("executed instructions are not counted: BLOCKSCOPE_SASS_METRICS=0 is set",
                           "unset BLOCKSCOPE_SASS_METRICS and profile again");
  return Status::success();
}

SamplerHandle keep_cubins(bool wanted, const std::string& cupti_library) {
  SamplerHandle h;
  if (!wanted) {
    h.problem = Status::failure("blockscope started on the CPU backend, so no PC sampler was set up",
                                "restart blockscope with --backend cuda to sample stalls per line");
    return h;
  }
  if (const char* env = std::getenv("BLOCKSCOPE_PC_SAMPLING"); env && std::string_view(env) == "0") {
    h.problem = Status::failure("PC sampling is off: BLOCKSCOPE_PC_SAMPLING=0 is set",
                                "unset BLOCKSCOPE_PC_SAMPLING and restart blockscope");
    return h;
  }
  auto made = PcSampler::create({.cupti_library = cupti_library});
  if (!made) {
    h.problem = made.status();
    return h;
  }
  h.sampler = std::move(made).value();
  h.problem = Status::success();
  return h;
}

}  // namespace bs::sampling
