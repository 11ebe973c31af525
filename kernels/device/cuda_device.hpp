// The CUDA devices present, described without CUDA headers so the app (and builds without CUDA)
// can include this. Every function returns a Status explaining why when CUDA is unusable: no
// driver, no device, a driver older than the runtime, or a build without CUDA.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/launch.hpp"
#include "core/status.hpp"

namespace bs {

struct CudaDeviceSummary {
  int index = 0;
  std::string name;
  int compute_major = 0, compute_minor = 0;
  std::size_t total_bytes = 0;
  bool has_code_for_it = true;  // this binary carries SASS or PTX that can run on it
};

bool built_with_cuda();
Result<std::vector<CudaDeviceSummary>> list_cuda_devices();
std::string cuda_versions();  // "driver 13.0, runtime 13.0" or why unknown

// Everything DeviceLimits holds, read from the device (properties plus the per-architecture
// allocation rules that the occupancy calculator needs).
Result<DeviceLimits> cuda_device_limits(int device);

// Device-to-device copy bandwidth in GB/s, counting bytes read plus bytes written: the ceiling a
// memory-bound kernel such as grayscale is measured against. Median of `repeats` timed copies.
Result<double> measure_copy_bandwidth_gbs(int device, std::size_t bytes = 512u << 20, int repeats = 9);

// For tests of fault handling: launches a kernel that writes to an invalid address, so the
// device reports cudaErrorIllegalAddress (a sticky fault) at the next synchronisation.
Status inject_illegal_address(int device);

// Free and total device memory in bytes.
Result<std::pair<std::size_t, std::size_t>> device_memory_info(int device);

}  // namespace bs
