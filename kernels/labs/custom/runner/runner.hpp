// blockscope-kernel-runner's backends: what the runner process does for each request of the
// protocol (protocol.hpp, messages.hpp). One runner runs one user kernel on one backend; blockscope
// kills it when a launch outlives its time limit and starts a fresh one for the next run. A
// backend launches once per request and times that launch alone; how many launches, warm-ups
// and flushes a measurement takes is the parent's timing policy (lab/measure.hpp), not its.
#pragma once
#include <memory>
#include <string>

#include "labs/custom/counters_wire.hpp"
#include "labs/custom/messages.hpp"

namespace bs::custom::runner {

// The problem's buffers as this process sees them (inputs copy-on-write, outputs shared).
struct ProblemMaps {
  wire::SetProblemHead head;
  unsigned char* input = nullptr;   // MAP_PRIVATE: a kernel that writes its inputs changes only
                                    // this process's copy, never blockscope's data
  unsigned char* output = nullptr;  // MAP_SHARED: blockscope reads the results from here
  bool ready = false;

  void* buffer(unsigned i) const {
    const wire::BufferDesc& b = head.buffers[i];
    return (b.in_output_region ? output : input) + b.offset;
  }
  unsigned* owners(unsigned i) const {
    const wire::BufferDesc& b = head.buffers[i];
    return b.has_owners ? reinterpret_cast<unsigned*>(output + b.owners_offset) : nullptr;
  }
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual wire::Info info() = 0;
  virtual wire::Compiled compile_gpu(const std::string& unit) = 0;
  virtual wire::Loaded load_gpu(const std::string& image, bool is_ptx) = 0;
  virtual wire::Loaded load_cpu(const std::string& path, bool uses_barriers) = 0;
  // Called after the maps changed; uploads (GPU). Empty string on success.
  virtual std::string set_problem(const ProblemMaps& maps) = 0;
  // One launch on fresh outputs (wire::LaunchHead says timed or observing).
  virtual wire::Launched launch(const wire::LaunchHead& launch, const ProblemMaps& maps) = 0;
  // Overwrites the L2 (GPU), after resetting the outputs (so the next launch, which then does not
  // reset them, starts with none of its data in the L2, its output included); a message when it
  // cannot, so no timing claims a flush that did not happen. Empty string on success.
  virtual std::string flush_l2(const ProblemMaps& maps) = 0;
  // Brings the outputs of the last launch into the shared output memory (GPU: from the device).
  virtual std::string fetch(const ProblemMaps& maps) = 0;
  // Per source line of the loaded kernel, over launches of its plain entry on fresh outputs. GPU:
  // stall samples, CUPTI PC sampling in this process. CPU: one launch of `counting_object`, the
  // same kernel built with coverage counters (line_counts.hpp), whose counters it then writes;
  // the parent reads them with gcov. profile.status says why not.
  virtual wire::Lines sample_lines(const wire::SampleLinesHead& request, const std::string& counting_object,
                                   const ProblemMaps& maps) = 0;
  // CPU: one block of `recording_object` (the kernel built with access hooks, shared_recording.hpp)
  // run alone; warp `warp`'s accesses to the block's __shared__ variables, lane by lane. The
  // kernel itself is loaded back afterwards. GPU: refused (the parent asks a CPU runner).
  // GPU: the range profiler's counters of one launch of the plain entry (kernels/counters'
  // CounterSession in this process, CUPTI loaded at the first request). CPU: refused (counters
  // are the GPU's), as blockscope refuses them for its own kernels on the simulator.
  virtual wire::Counters profile_counters(const wire::ProfileCountersHead& request, const std::string& cupti_library,
                                          const ProblemMaps& maps) {
    (void)request, (void)cupti_library, (void)maps;
    wire::Counters r;
    r.status = counters::gpu_feature_status();
    r.status.call.clear();  // no call failed: the backend has no counters
    return r;
  }
  virtual wire::SharedRecorded record_shared(const wire::RecordSharedHead& request, const std::string& recording_object,
                                             const ProblemMaps& maps) {
    (void)request, (void)recording_object, (void)maps;
    wire::SharedRecorded r;
    r.message = "shared-memory accesses are recorded by the CPU simulator, not on the GPU";
    return r;
  }
};

std::unique_ptr<Backend> make_cpu_backend();
std::unique_ptr<Backend> make_gpu_backend(int device);  // runner_gpu.cu or runner_gpu_none.cpp

// Fills every output (and its owners, with "nobody") from its fill byte, as before each launch.
void reset_outputs(const ProblemMaps& maps, bool owners);

}  // namespace bs::custom::runner
