// One launch, one truth: everything the UI, the benchmark JSON and the tests say about a launch
// comes from this record, filled by the launcher with what it really ran.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/launch.hpp"
#include "core/status.hpp"

namespace bs {

enum class BackendKind { Cuda, CpuSimulation };

inline const char* to_string(BackendKind k) {
  return k == BackendKind::Cuda ? "CUDA" : "CPU simulation";
}

// Where and when one block ran. On the GPU `unit` is the SM (%smid) and times come from
// %globaltimer; in the simulator `unit` is the worker thread and times come from steady_clock.
struct BlockTrace {
  Dim3 block;
  unsigned unit = 0;
  std::uint64_t start_ns = 0;  // relative to the earliest start in the launch
  std::uint64_t end_ns = 0;
};

struct LaunchRecord {
  std::string kernel;          // registry id, e.g. "gray_1d_flat"
  BackendKind backend = BackendKind::CpuSimulation;
  LaunchConfig config;         // exactly what was launched (or would have been, if refused)
  Status status;               // refusal, launch error or success
  double kernel_ms = 0;        // CUDA events on the GPU, steady_clock on the CPU
  std::string timer;           // says which clock measured kernel_ms
  double bytes_moved = 0;      // the napkin count the bandwidth figure uses (documented per kernel)
  double flops = 0;
  std::vector<BlockTrace> schedule;  // filled when tracing was asked for
  bool schedule_simulated = false;

  bool ok() const { return status.ok(); }
  double gbytes_per_s() const { return kernel_ms > 0 ? bytes_moved / (kernel_ms * 1e6) : 0; }
  double gflops() const { return kernel_ms > 0 ? flops / (kernel_ms * 1e6) : 0; }
};

}  // namespace bs
