// The compute side of a running app: which backend was chosen (and why), the device's limits
// and the measured copy bandwidth, as the lab::Backend every lab is made for. The shell makes
// the labs (through the catalog) for this backend and never calls CUDA itself.
#pragma once
#include <string>

#include "cli/options.hpp"
#include "lab/lab.hpp"

namespace bs::app {

struct ComputeSession {
  lab::Backend backend;
  std::string why_cpu;  // when auto fell back to the CPU: the reason
};

// Opens the backend the user asked for. Auto picks CUDA when a device with code for it exists,
// else the CPU simulation with the reason recorded. `preferred_device` < 0: the first usable
// device (the app passes the one driving the GL context when it knows it). `measure_copy`
// measures the copy bandwidth once (about a tenth of a second on a GPU).
Result<ComputeSession> open_compute_session(BackendChoice choice, int preferred_device, bool measure_copy);

}  // namespace bs::app
