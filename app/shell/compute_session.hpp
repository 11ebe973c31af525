// The compute side of a running app: which backend was chosen (and why), the device's limits,
// the measured copy bandwidth, and the labs that run kernels on it. The UI reads this and calls
// the labs; it never calls CUDA itself.
#pragma once
#include <memory>
#include <string>

#include "cli/options.hpp"
#include "core/launch_record.hpp"
#include "labs/grayscale/gray_lab.hpp"
#include "simulator/grid_simulator.hpp"

namespace bs::app {

struct ComputeSession {
  BackendKind kind = BackendKind::CpuSimulation;
  std::string label;            // "NVIDIA H200 (sm_90)" or "CPU simulation (2 workers)"
  std::string why_cpu;          // when auto fell back to the CPU: the reason
  std::string versions;         // CUDA driver and runtime
  int cuda_device = -1;
  DeviceLimits limits;
  double copy_gbs = 0;          // measured device-to-device copy bandwidth (GPU only)
  std::string copy_note;        // why it is missing, if it is
  std::unique_ptr<sim::GridSimulator> simulator;  // always present: the CPU lab and fallbacks
  std::unique_ptr<gray::GrayLab> gray;
};

// Opens the backend the user asked for. Auto picks CUDA when a device with code for it exists,
// else the CPU simulation with the reason recorded. `preferred_device` < 0: the first usable
// device (the app passes the one driving the GL context when it knows it). `measure_copy`
// measures the copy bandwidth once (about a tenth of a second on a GPU).
Result<ComputeSession> open_compute_session(BackendChoice choice, int preferred_device,
                                            bool measure_copy);

}  // namespace bs::app
