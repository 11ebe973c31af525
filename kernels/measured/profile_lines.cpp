#include "measured/profile_lines.hpp"

namespace bs::measured {

Status lines_refusal(const lab::Lab& lab, std::string_view kernel) {
  const lab::KernelInfo* k = lab.find_kernel(kernel);
  if (!k)
    return Status::failure("the " + std::string(lab.title()) + " lab has no kernel '" +
                               std::string(kernel) + "' to sample",
                           "pick one of the kernel list", "profile_lines");
  if (k->group == KernelGroup::Ceiling)
    return Status::failure(k->label + " is a cudaMemcpy, not a kernel: there are no instructions to sample",
                           "sample one of the kernels", "profile_lines");
  if (lab.backend().kind != BackendKind::Cuda) {
    // The simulator counts how often each line of a user kernel runs (its runner builds it once
    // more with coverage counters); the rungs are compiled into blockscope, without them.
    if (k->group == KernelGroup::Custom) return Status::success();
    return Status::failure(
        "stall samples come from the GPU's PC sampling: the CPU backend simulates the grid and has no warps "
        "stalling to sample. On the CPU, blockscope counts how often each line runs for your own kernels "
        "(built again with coverage counters), not for the built-in rungs, which are compiled into blockscope",
        "switch to the CUDA backend on an NVIDIA GPU, or count the lines of your own kernel (Edit kernel); the "
        "source and PTX still show here");
  }
  if (!sampling::pc_sampling_built())
    return Status::failure("this build of blockscope has no PC sampling (no CUPTI headers at build time)",
                           "build blockscope with the CUDA toolkit, CUPTI included");
  return Status::success();
}

Result<LineProfile> profile_lines(lab::Lab& lab, const std::string& kernel, const KernelConfig& config,
                                  const sampling::SamplerHandle& sampling, const LineSampling& options) {
  if (Status s = lines_refusal(lab, kernel); !s) return s;
  // The user's kernels run, and are sampled, in a runner process of their own.
  if (auto elsewhere = lab.profile_lines_elsewhere(kernel, config, options)) {
    if (elsewhere->ok() && elsewhere->value().device.empty()) elsewhere->value().device = lab.backend().label;
    return std::move(*elsewhere);
  }
  if (!sampling.sampler) return sampling.problem;
  lab::RunOptions run;
  run.timing = TimingPolicy::once();
  run.trace_schedule = false;
  run.verify = false;
  sampling::PcSampler::SampleOptions with_device;
  static_cast<LineSampling&>(with_device) = options;
  with_device.device = lab.backend().cuda_device;  // the worker thread that calls this has none current
  auto got = sampling.sampler->sample(
      [&]() -> Status {
        LaunchRecord r = lab.run(kernel, config, run);
        return r.status;
      },
      with_device);
  if (!got) return got.status();
  LineProfile p = std::move(got).value();
  p.kernel = kernel;
  p.device = lab.backend().label;
  return p;
}

LineProfile lines_unavailable(Status why, std::string kernel) {
  LineProfile p;
  p.status = std::move(why);
  p.kernel = std::move(kernel);
  return p;
}

}  // namespace bs::measured
