// Built without CUDA: every query says so, and the app runs the CPU simulation.
#include "device/cuda_device.hpp"

namespace bs {
namespace {
Status no_cuda() {
  return Status::failure("blockscope was built without CUDA", "rebuild on a machine with nvcc", "build");
}
}  // namespace
bool built_with_cuda() { return false; }
Result<std::vector<CudaDeviceSummary>> list_cuda_devices() { return no_cuda(); }
std::string cuda_versions() { return "built without CUDA"; }
Result<DeviceLimits> cuda_device_limits(int) { return no_cuda(); }
Result<double> measure_copy_bandwidth_gbs(int, std::size_t, int) { return no_cuda(); }
Result<std::pair<std::size_t, std::size_t>> device_memory_info(int) { return no_cuda(); }
Status inject_illegal_address(int) { return no_cuda(); }
}  // namespace bs
