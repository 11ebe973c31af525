// The words for each CounterProblem. Hints say what the user can do, in the order most users
// would try it; messages end with what still works, since counters are an extra, not a blocker.
#include "counters/counter_errors.hpp"

#include <utility>

namespace bs::counters {
namespace {

struct Words {
  const char* message;
  const char* hint;
};

Words words_for(CounterProblem p) {
  switch (p) {
    case CounterProblem::InsufficientPrivileges:
      return {
          "this user may not read the GPU's performance counters: the NVIDIA driver "
          "restricts profiling to administrators",
          "load the nvidia kernel module with NVreg_RestrictProfilingToAdminUsers=0 (put "
          "'options nvidia NVreg_RestrictProfilingToAdminUsers=0' in "
          "/etc/modprobe.d/nvidia-profiling.conf, rebuild the initramfs, reboot), or run "
          "blockscope as root; see https://developer.nvidia.com/ERR_NVGPUCTRPERM"};
    case CounterProblem::VirtualizedDevice:
      return {
          "this GPU is virtualised (vGPU or a VM) and its host does not expose performance "
          "counters to the guest",
          "ask the host administrator to enable profiling for this vGPU (the vGPU "
          "plugin parameter enable_profiling=1), or measure on a bare-metal GPU"};
    case CounterProblem::AnotherProfiler:
      return {
          "another profiler is attached to this process (Nsight Compute, Nsight Systems "
          "with GPU metrics, or another CUPTI client), and CUPTI allows one at a time",
          "run blockscope without ncu or nsys around it, or read the counters in that "
          "tool instead"};
    case CounterProblem::HardwareBusy:
      return {
          "the GPU's performance counters are in use by another process (often DCGM's "
          "profiling module, or ncu or nsys profiling another program)",
          "stop the other profiler (for DCGM: 'dcgmi profile --pause') and try again"};
    case CounterProblem::UnsupportedDevice:
      return {
          "CUPTI's range profiler cannot profile this GPU (it needs Volta or newer, and a "
          "CUPTI that knows the chip)",
          "use a newer GPU, or update the CUDA toolkit so its CUPTI knows this chip"};
    case CounterProblem::MigSlice:
      return {
          "this is a MIG instance: CUPTI cannot profile it with the counters blockscope "
          "asks for",
          "measure on a GPU with MIG disabled ('nvidia-smi -i <gpu> -mig 0' as root)"};
    case CounterProblem::ConfidentialCompute:
      return {"the GPU runs in confidential-computing mode, which forbids profiling",
              "measure on a GPU without confidential computing enabled"};
    case CounterProblem::MiningProcessor:
      return {"NVIDIA CMP (crypto-mining) boards do not support profiling",
              "measure on a GeForce, RTX, or data-centre GPU"};
    case CounterProblem::Sli:
      return {"SLI is enabled, and CUPTI cannot profile SLI-linked GPUs", "disable SLI in the driver settings"};
    case CounterProblem::Wsl:
      return {"this WSL driver does not support GPU profiling",
              "update the Windows NVIDIA driver, or measure on native Linux"};
    case CounterProblem::LibraryMissing:
      return {"CUPTI, the CUDA toolkit's profiling library, could not be loaded",
              "install the toolkit's CUPTI (on Debian or Ubuntu the cuda-cupti-<version> "
              "package) or add the folder holding libcupti.so (cuda/lib64 or "
              "cuda/extras/CUPTI/lib64) to LD_LIBRARY_PATH"};
    case CounterProblem::LibraryTooOld:
      return {"this libcupti has no range profiler API (it needs CUPTI from CUDA 12.6 or newer)",
              "install the CUPTI of a newer CUDA toolkit, or point LD_LIBRARY_PATH at it"};
    case CounterProblem::GpuFeature:
      return {
          "hardware counters are a GPU feature: the CPU backend simulates the grid and "
          "has no counters to read",
          "switch to the CUDA backend on an NVIDIA GPU (in a CUDA build of blockscope)"};
    case CounterProblem::Other: break;
  }
  return {"CUPTI could not read the GPU's performance counters", ""};
}

}  // namespace

Status explain(CounterProblem problem, std::string call, std::string code, const std::string& detail) {
  const Words w = words_for(problem);
  std::string message = w.message;
  if (!detail.empty()) message += " (" + detail + ")";
  if (problem != CounterProblem::GpuFeature) message += "; everything else in blockscope works without them";
  return Status::failure(std::move(message), w.hint, std::move(call), std::move(code));
}

}  // namespace bs::counters
