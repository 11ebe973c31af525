// The grayscale kernel registry: which kernels exist, what each teaches, the exact launch shape
// each uses for an image, and the shapes each refuses (with the reason) before any launch.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/launch.hpp"
#include "core/launch_record.hpp"

namespace bs::gray {

enum class GrayKernel { Flat1D, Grid2D };

struct GrayKernelInfo {
  GrayKernel id;
  std::string_view key;      // for the command line and JSON: "1d", "2d"
  std::string_view name;     // registry id in LaunchRecord::kernel
  std::string_view label;    // for the UI
  std::string_view teaches;  // one sentence
  std::string_view file;     // the header holding its body
  std::string_view grid_rule;
  Dim3 default_block;
};

const std::array<GrayKernelInfo, 2>& gray_kernels();
const GrayKernelInfo& info(GrayKernel k);
std::optional<GrayKernel> gray_kernel_from_key(std::string_view key);

// Block presets offered by the UI and swept by `blockscope bench gray`.
const std::vector<Dim3>& gray_block_presets(GrayKernel k);

// The grid the launcher will use: 1D covers n = w*h flattened pixels with blockDim.x*y*z
// threads per block; 2D covers (w, h) with (blockDim.x, blockDim.y).
LaunchConfig gray_launch_config(GrayKernel k, Dim3 block, int width, int height);

// Kernel-specific rules on top of bs::validate_launch (CUDA's own rules).
Status check_gray_launch(GrayKernel k, const LaunchConfig& config, int width, int height,
                         const DeviceLimits& limits, const KernelAttributes* attributes);

// Converts interleaved RGBA8 (4 bytes per pixel) to the planar RGB layout the kernels read.
void rgba_to_planar_rgb(const std::uint8_t* rgba, int width, int height, std::uint8_t* planar);

// The reference, computed another way: in double precision straight from RGBA, one pixel at a
// time, with no grid at all. Kernel outputs may differ from it by at most 1 where float rounding
// lands next to an integer.
void gray_reference(const std::uint8_t* rgba, int width, int height, std::uint8_t* out);

}  // namespace bs::gray
