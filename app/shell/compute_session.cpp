#include "shell/compute_session.hpp"

#include "device/cuda_device.hpp"

namespace bs::app {
namespace {

ComputeSession cpu_session(std::string why) {
  ComputeSession s;
  s.kind = BackendKind::CpuSimulation;
  s.simulator = std::make_unique<sim::GridSimulator>();
  s.label = "CPU simulation (" + std::to_string(s.simulator->workers()) + " workers)";
  s.why_cpu = std::move(why);
  s.versions = cuda_versions();
  s.limits = sim::simulator_limits(s.simulator->workers());
  s.copy_note = "no GPU: timings are the simulator's, on the CPU";
  s.gray = gray::make_cpu_gray_lab(*s.simulator);
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
                                  std::to_string(d.compute_minor) +
                                  ") has no code in this build",
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
                            "pick one of 0.." + std::to_string(devices->size() - 1),
                            "--device");
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
  auto lab = gray::make_cuda_gray_lab(device, limits.value());
  if (!lab) {
    if (choice == BackendChoice::Cuda) return lab.status();
    return cpu_session(lab.status().describe());
  }
  ComputeSession s;
  s.kind = BackendKind::Cuda;
  s.cuda_device = device;
  s.limits = limits.value();
  s.label = s.limits.name + " (sm_" + std::to_string(s.limits.compute_major) +
            std::to_string(s.limits.compute_minor) + ")";
  s.versions = cuda_versions();
  s.simulator = std::make_unique<sim::GridSimulator>();
  s.gray = std::move(lab.value());
  if (measure_copy) {
    auto bw = measure_copy_bandwidth_gbs(device);
    if (bw) s.copy_gbs = bw.value();
    else s.copy_note = "copy bandwidth not measured: " + bw.status().describe();
  } else {
    s.copy_note = "copy bandwidth not measured";
  }
  return s;
}

}  // namespace bs::app
