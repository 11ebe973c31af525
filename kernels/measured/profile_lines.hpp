// A lab's launch sampled per source line (issue 22), written once against the lab interface so
// the Source tab's worker and `bench --lines` share it.
//
//   auto sampling = sampling::keep_cubins(true, "");   // before the lab's first launch
//   auto lines = measured::profile_lines(lab, "k3_smem_tiled", config, sampling);
//
// Each sampled launch is lab.run with TimingPolicy::once(), no L2 flush, no trace, no
// verification: one launch of the kernel (plus the lab's CUDA events), launched again until the
// sampler has enough samples. The user's kernels are sampled by the runner process they run in
// (Lab::profile_lines_elsewhere). On the CPU backend nothing stalls to sample: each line's
// executions are counted instead (LineMeasure::Executions), by the user kernel's runner or, for a
// built-in rung, by blockscope-line-counter (linecount/count_lines.hpp). Refused, with the
// reason: the copy ceiling (not a kernel), a library's kernel on the CPU, a build without the
// line counter.
#pragma once
#include <string>
#include <string_view>

#include "core/kernel_config.hpp"
#include "core/line_profile.hpp"
#include "lab/lab.hpp"
#include "sampling/pc_sampler.hpp"

namespace bs::measured {

// Why `kernel` of `lab` cannot be sampled, before anything runs (success when it can).
Status lines_refusal(const lab::Lab& lab, std::string_view kernel);

// Samples launches of `kernel` with `config`; the result names the kernel and the device.
Result<LineProfile> profile_lines(lab::Lab& lab, const std::string& kernel, const KernelConfig& config,
                                  const sampling::SamplerHandle& sampling, const LineSampling& options = {});

// A LineProfile that says why there is none (bench results carry it).
LineProfile lines_unavailable(Status why, std::string kernel = {});

}  // namespace bs::measured
