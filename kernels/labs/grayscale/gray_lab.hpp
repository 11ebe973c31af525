// A grayscale lab runs the grayscale kernels on one image on one backend (the GPU, or the CPU
// grid simulator) and reports each launch as a LaunchRecord. The app holds one and never calls
// CUDA itself: it hands the lab an output pointer in the lab's memory space (a CUDA-mapped GL
// buffer for zero-copy interop) or lets the lab write to its own buffer and downloads from it.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "core/launch_record.hpp"
#include "labs/grayscale/gray_kernels.hpp"

namespace bs::sim {
class GridSimulator;
}

namespace bs::gray {

struct GrayRunOptions {
  bool trace_schedule = false;  // per-block SM (or worker) and start/end times
  int repeats = 1;              // >1: kernel_ms is the median of the repeats
};

class GrayLab {
 public:
  virtual ~GrayLab() = default;

  virtual BackendKind backend() const = 0;
  virtual const DeviceLimits& limits() const = 0;
  virtual KernelAttributes attributes(GrayKernel k) const = 0;

  // Converts RGBA8 to planar RGB and keeps it in the backend's memory. On failure the previous
  // image stays loaded.
  virtual Status set_image(const std::uint8_t* rgba, int width, int height) = 0;
  virtual int width() const = 0;
  virtual int height() const = 0;

  // Launches `k` with `block` over the image. `out`: where the kernel writes (width*height
  // bytes in this backend's memory space), or nullptr for the lab's own result buffer.
  virtual LaunchRecord run(GrayKernel k, Dim3 block, std::uint8_t* out,
                           const GrayRunOptions& options = {}) = 0;

  // Copies the lab's own result buffer (the last run with out == nullptr) to host memory.
  virtual Status download_result(std::uint8_t* host) = 0;
};

// The CPU backend. `simulator` must outlive the lab.
std::unique_ptr<GrayLab> make_cpu_gray_lab(sim::GridSimulator& simulator);

// The CUDA backend on `device` (nullptr with a Status when built without CUDA or no device).
Result<std::unique_ptr<GrayLab>> make_cuda_gray_lab(int device, const DeviceLimits& limits);

}  // namespace bs::gray
