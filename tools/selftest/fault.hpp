// `blockscope-selftest fault`: a real sticky GPU fault in a running app, on purpose. The app runs
// headless on the CUDA backend with the grayscale lab; at frame N the tool makes the device
// fault (a kernel writing through an address no allocation owns: cudaErrorIllegalAddress, which
// leaves the CUDA context unusable for the rest of the process). The run passes when the app
// reported the fault by name, moved to the CPU simulation, kept the image, and the result the
// view shows afterwards equals the double-precision reference.
//
// Run it last on a GPU machine: a process after it has once waited on the driver (see
// tests/gpu/run_on_device.sh).
#pragma once
#include <string>

#include "cli/options.hpp"

namespace bs::selftest {

struct FaultOptions {
  int at_frame = 2;    // the frame before which the fault is injected
  int frames = 5;      // frames in all
  std::string output;  // the result as a PNG, after recovery (optional)
  int cuda_device = -1;
};

int run_fault(const FaultOptions& options);

}  // namespace bs::selftest
