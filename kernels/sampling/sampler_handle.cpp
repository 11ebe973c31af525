#include <cstdlib>
#include <string_view>

#include "sampling/pc_sampler.hpp"

namespace bs::sampling {

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
