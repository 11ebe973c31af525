#include "shell/compute_session.hpp"

#include "device/cuda_device.hpp"
#include "lab/catalog.hpp"

namespace bs::app {
namespace {

ComputeSession cpu_session(std::string why) {
  ComputeSession s;
  s.backend = lab::cpu_simulation(0);  // one worker per hardware thread
  s.backend.versions = cuda_versions();
  s.backend.copy_note = "no GPU: timings are the simulator's, on the CPU";
  s.why_cpu = std::move(why);
  return s;
}

}  // namespace

Result<ComputeSession> open_compute_session(BackendChoice choice, int preferred_device, bool measure_copy) {
  if (choice == BackendChoice::Cpu) return cpu_session("chosen with --backend cpu");

  auto devices = list_cuda_devices();
  Status why;
  int device = -1;
  if (!devices) {
    why = devices.status();
  } else if (devices->empty()) {
    why = Status::failure("no CUDA device found", "use --backend cpu", "cudaGetDeviceCount");
  } else {
    for (const auto& d : devices.value()) {
      if (preferred_device >= 0 && d.index != preferred_device) continue;
      if (!d.has_code_for_it) {
        why = Status::failure(d.name + " (sm_" + std::to_string(d.compute_major) + std::to_string(d.compute_minor) +
                                  ") has no code in this build",
                              "rebuild with -DCMAKE_CUDA_ARCHITECTURES=" + std::to_string(d.compute_major) +
                                  std::to_string(d.compute_minor),
                              "cudaFuncGetAttributes", "cudaErrorNoKernelImageForDevice");
        continue;
      }
      device = d.index;
      break;
    }
    if (device < 0 && why.ok())
      why = Status::failure("CUDA device " + std::to_string(preferred_device) + " does not exist",
                            "pick one of 0.." + std::to_string(devices->size() - 1), "--device");
  }
  if (device < 0) {
    if (choice == BackendChoice::Cuda) return why;
    return cpu_session(why.describe());
  }
  auto backend = lab::cuda_backend(device);
  if (!backend) {
    if (choice == BackendChoice::Cuda) return backend.status();
    return cpu_session(backend.status().describe());
  }
  ComputeSession s;
  s.backend = std::move(backend.value());
  lab::Backend& b = s.backend;
  if (measure_copy) {
    auto bw = measure_copy_bandwidth_gbs(device);
    if (bw) {
      b.copy_gbs = bw.value();
      b.copy_note =
          "cudaMemcpy device to device of 512 MiB, median of 9, read + write bytes, "
          "measured at start-up";
    } else {
      b.copy_note = "copy bandwidth not measured: " + bw.status().describe();
    }
  } else {
    b.copy_note = "copy bandwidth not measured";
  }
  return s;
}

}  // namespace bs::app
