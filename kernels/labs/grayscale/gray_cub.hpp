// The library anchor's traits: cub::DeviceTransform::Transform computing the same pixels, timed
// and verified beside the ladder on the GPU (its launcher, the CUB call, is in gray_cub.cu: only
// nvcc compiles CUB). No body of ours, so no simulation, no grid of ours and no ownership to draw.
#pragma once
#include "labs/grayscale/gray_rung.hpp"

struct CUstream_st;  // cudaStream_t is CUstream_st* (the toolkit's driver_types.h)

namespace bs::gray {

struct GrayCubTransform : GrayRungBase<GrayCubTransform> {
  static constexpr bool kBody = false;
  static constexpr bool kGridStride = true;  // CUB picks its grid: any launch covers the image
  static lab::KernelInfo info() {
    lab::KernelInfo i;
    i.id = "cub_transform";
    i.label = "CUB DeviceTransform (library anchor)";
    i.teaches =
        "cub::DeviceTransform::Transform computing the same pixels: what the CUDA toolkit's own library "
        "reaches on this device.";
    i.file = "kernels/labs/grayscale/gray_cub.cu";
    i.group = KernelGroup::Library;
    i.block_rank = 1;
    i.style = lab::ConfigStyle::Compiled;
    i.configs.push_back({"CUB's own choice", Dim3{0, 0, 0}});
    i.timed_only = true;
    i.grid_rule = "chosen by CUB";
    return i;
  }
  static LaunchConfig launch_config(GrayLayout, Dim3, int, int, const DeviceLimits&, const KernelAttributes&) {
    return LaunchConfig{Dim3{0, 0, 0}, Dim3{0, 0, 0}, 0};
  }
  static Status check(GrayLayout, const LaunchConfig&, int, int, const DeviceLimits&, const KernelAttributes*) {
    return Status::success();  // CUB validates its own launch
  }
  static std::optional<IndexScheme> scheme(GrayLayout, const GrayArgs&) { return std::nullopt; }
  // Asynchronous on `stream` (gray_cub.cu).
  static Status launch_cuda(GrayLayout l, const GrayArgs& args, CUstream_st* stream);
};

}  // namespace bs::gray
