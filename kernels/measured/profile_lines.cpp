#include "measured/profile_lines.hpp"

#include "linecount/count_lines.hpp"

namespace bs::measured {

Status lines_refusal(const lab::Lab& lab, std::string_view kernel) {
  const lab::KernelInfo* k = lab.find_kernel(kernel);
  if (!k)
    return Status::failure(
        "the " + std::string(lab.title()) + " lab has no kernel '" + std::string(kernel) + "' to sample",
        "pick one of the kernel list", "profile_lines");
  if (k->group == KernelGroup::Ceiling)
    return Status::failure(k->label + " is a cudaMemcpy, not a kernel: there are no instructions to sample",
                           "sample one of the kernels", "profile_lines");
  if (lab.backend().kind != BackendKind::Cuda) {
    // The simulator has no warps stalling to sample, but it can count how often each line runs:
    // a user kernel's runner builds it once more with coverage counters; the rungs are counted by
    // blockscope-line-counter, which links the labs' simulator units built that way.
    if (k->group == KernelGroup::Custom) return Status::success();
    return linecount::count_refusal(lab, kernel);
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
  // A rung on the CPU: executions per line, counted in a process of its own.
  if (lab.backend().kind != BackendKind::Cuda) {
    auto counted = linecount::count_lines(lab, kernel, config);
    if (counted) counted->device = lab.backend().label;
    return counted;
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
