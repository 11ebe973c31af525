#include "shell/compute_session.hpp"

#include <thread>

#include "device/cuda_device.hpp"
#include "simulator/grid_simulator.hpp"

namespace bs::app {
namespace {

ComputeSession cpu_session(std::string why) {
  ComputeSession s;
  lab::Backend& b = s.backend;
  b.kind = BackendKind::CpuSimulation;
  b.sim_workers = std::max(1u, std::thread::hardware_concurrency());
  b.label = "CPU simulation (" + std::to_string(b.sim_workers) + " workers)";
  b.versions = cuda_versions();
  b.limits = sim::simulator_limits(b.sim_workers);
  b.copy_note = "no GPU: timings are the simulator's, on the CPU";
  s.why_cpu = std::move(why);
  return s;
}

}  // namespace

Result<ComputeSession> open_compute_session(BackendChoice choice, int preferred_device,
                                            bool measure_copy) {
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
        why = Status::failure(d.name + " (sm_" + std::to_string(d.compute_major) +
                                  std::to_string(d.compute_minor) + ") has no code in this build",
                              "rebuild with -DCMAKE_CUDA_ARCHITECTURES=" +
                                  std::to_string(d.compute_major) + std::to_string(d.compute_minor),
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
  auto limits = cuda_device_limits(device);
  if (!limits) {
    if (choice == BackendChoice::Cuda) return limits.status();
    return cpu_session(limits.status().describe());
  }
  ComputeSession s;
  lab::Backend& b = s.backend;
  b.kind = BackendKind::Cuda;
  b.cuda_device = device;
  b.limits = limits.value();
  b.label = b.limits.name + " (sm_" + std::to_string(b.limits.compute_major) +
            std::to_string(b.limits.compute_minor) + ")";
  b.versions = cuda_versions();
  if (measure_copy) {
    auto bw = measure_copy_bandwidth_gbs(device);
    if (bw) {
      b.copy_gbs = bw.value();
      b.copy_note = "cudaMemcpy device to device of 512 MiB, median of 9, read + write bytes, "
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
