// The PC sampler of a build without CUDA or without CUPTI's headers: it says why there is none.
#include "sampling/pc_sampler.hpp"

namespace bs::sampling {

struct PcSampler::Impl {};

bool pc_sampling_built() { return false; }

Result<std::unique_ptr<PcSampler>> PcSampler::create(const Options&) {
  return Status::failure("this build of blockscope has no PC sampling (built without CUDA or without CUPTI's headers)",
                         "build blockscope with the CUDA toolkit, CUPTI included, to see stall samples per line");
}

PcSampler::PcSampler(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PcSampler::~PcSampler() = default;

Result<LineProfile> PcSampler::sample(const std::function<Status()>&, const SampleOptions&) {
  return Status::failure("this build of blockscope has no PC sampling");
}

Result<RawSamples> PcSampler::sample_raw(const std::function<Status()>&, const SampleOptions&) {
  return Status::failure("this build of blockscope has no PC sampling");
}

std::size_t PcSampler::cubins_kept() const { return 0; }
void PcSampler::keep_cubin(std::string) {}

SourceLocation PcSampler::locate(std::uint64_t, const std::string&, std::uint64_t) const { return {}; }

bool PcSampler::has_cubin(std::uint64_t) const { return false; }

const std::string& PcSampler::cupti_library() const {
  static const std::string none;
  return none;
}

}  // namespace bs::sampling
