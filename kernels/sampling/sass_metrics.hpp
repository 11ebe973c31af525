// Exact counts per SASS instruction of one launch through CUPTI's SASS metrics API (issue 22):
// warp instructions executed, thread instructions (so predication and partial warps show), and
// shared-memory wavefronts against the ideal (bank conflicts per line, what the bank view
// models). Where PC sampling says where warps wait, these say how often each instruction ran and
// how many passes its shared-memory access took.
//
//   auto profile = (*sampler)->sample(launch, {});   // stall samples; sample() then calls
//                                                     // add_sass_metrics itself (SampleOptions)
//   sampling::add_sass_metrics(profile, *sampler, launch, {});  // or by hand, on any profile
//
// How: CUPTI patches the kernel's SASS with counting code (no hardware counters, no replay), for
// the launch between cuptiSassMetricsEnable and Disable; the records name a pc offset and the
// cubin's CRC, and the sampler's kept cubins turn those into source lines, the same correlation
// the stall samples use (one line table: line_table.hpp's add_sass_counts).
//
// Limits, each said in LineProfile::sass_status with its fix: a CUPTI older than 12.4 has no SASS
// metrics API; a user the driver does not allow to profile is refused (the driver option of the
// counters); the API counts only the first kernel launched after enabling, so `launch` must
// enqueue exactly the kernel to look at and wait for it. BLOCKSCOPE_SASS_METRICS=0 turns the
// counting off; BLOCKSCOPE_SASS_LAZY_PATCHING=0 patches every loaded function at enabling
// instead of the launched one only (slower; for a driver that refuses lazy patching).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/line_profile.hpp"
#include "core/status.hpp"
#include "sampling/line_table.hpp"

namespace bs::sampling {

class PcSampler;

// Whether this build counts (a CUDA build with CUPTI's headers).
bool sass_metrics_built();

struct SassOptions {
  std::string cupti_library;  // empty: the usual search (counters::load_cupti)
  int device = -1;            // >= 0: this CUDA device (made current before the launch); else the
                              // calling thread's current device
  bool lazy_patching = true;  // patch only the function launched (CUPTI's lazy patching)
};

// What one counted launch gave, before any source line is known.
struct RawSass {
  std::vector<RawSassPc> pcs;  // one per (function, cubin, pc): records and instances added
  SassMetricNames metrics;     // the names counted ("" where the chip lists none)
  std::string chip;            // CUPTI's chip name, "GH100"
  bool lazy_patching = true;   // as enabled (false: lazy patching was refused, every function patched)
  long long dropped_records = 0;
  double elapsed_ms = 0;
};

// Counts one call of `launch` (one profile at a time: counters::profile_lock).
Result<RawSass> count_sass(const std::function<Status()>& launch, const SassOptions& options);

// Counts one call of `launch` and adds the counts of `profile.function` (the busiest counted
// function when the profile names none) to its instructions and lines, the lines from the
// sampler's kept cubins. Sets profile.sass_status: success, or why not (the stall samples are
// kept either way), and sass_has_threads / sass_has_shared / sass_ms.
void add_sass_metrics(LineProfile& profile, const PcSampler& sampler, const std::function<Status()>& launch,
                      const SassOptions& options);

// Why counting is off for this process (BLOCKSCOPE_SASS_METRICS=0), or success.
Status sass_metrics_switch();

}  // namespace bs::sampling
