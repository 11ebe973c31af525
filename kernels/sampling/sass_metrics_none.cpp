// The SASS metrics of a build without CUDA or without CUPTI's headers: they say why there are none.
#include "sampling/sass_metrics.hpp"

#include "sampling/pc_sampler.hpp"

namespace bs::sampling {

bool sass_metrics_built() { return false; }

namespace {
Status not_built() {
  return Status::failure(
      "this build of blockscope counts no executed instructions (built without CUDA or without CUPTI's headers)",
      "build blockscope with the CUDA toolkit, CUPTI included");
}
}  // namespace

Result<RawSass> count_sass(const std::function<Status()>&, const SassOptions&) { return not_built(); }

void add_sass_metrics(LineProfile& profile, const PcSampler&, const std::function<Status()>&, const SassOptions&) {
  profile.sass_status = not_built();
}

}  // namespace bs::sampling
