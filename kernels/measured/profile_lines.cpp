#include "measured/profile_lines.hpp"

namespace bs::measured {

Status lines_refusal(const lab::Lab& lab, std::string_view kernel) {
  if (lab.backend().kind != BackendKind::Cuda)
    return Status::failure(
        "stall samples come from the GPU's PC sampling: the CPU backend simulates the grid and "
        "has no warps stalling to sample",
        "switch to the CUDA backend on an NVIDIA GPU; the source and PTX still show here");
  if (!sampling::pc_sampling_built())
    return Status::failure("this build of blockscope has no PC sampling (no CUPTI headers at build time)",
                           "build blockscope with the CUDA toolkit, CUPTI included");
  const lab::KernelInfo* k = lab.find_kernel(kernel);
  if (!k)
    return Status::failure("the " + std::string(lab.title()) + " lab has no kernel '" +
                               std::string(kernel) + "' to sample",
                           "pick one of the kernel list", "profile_lines");
  if (k->group == KernelGroup::Ceiling)
    return Status::failure(k->label + " is a cudaMemcpy, not a kernel: there are no instructions to sample",
                           "sample one of the kernels", "profile_lines");
  if (k->group == KernelGroup::Custom)
    return Status::failure(
        "user kernels run in a runner process of their own, and blockscope samples the launches "
        "of its own process",
        "sample the kernel with Nsight Compute's source page: ncu --set full --import-source yes "
        "--target-processes all blockscope ...",
        "profile_lines");
  return Status::success();
}

Result<LineProfile> profile_lines(lab::Lab& lab, const std::string& kernel, const KernelConfig& config,
                                  sampling::PcSampler& sampler,
                                  const sampling::PcSampler::SampleOptions& options) {
  if (Status s = lines_refusal(lab, kernel); !s) return s;
  lab::RunOptions run;
  run.timing = TimingPolicy::once();
  run.trace_schedule = false;
  run.verify = false;
  sampling::PcSampler::SampleOptions with_device = options;
  with_device.device = lab.backend().cuda_device;  // the worker thread that calls this has none current
  auto got = sampler.sample(
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
