#include "labs/grayscale/gray_kernels.hpp"

#include <algorithm>
#include <cmath>

#include "labs/grayscale/gray_common.hpp"

namespace bs::gray {

const std::array<GrayKernelInfo, 2>& gray_kernels() {
  static const std::array<GrayKernelInfo, 2> kernels{{
      {GrayKernel::Flat1D, "1d", "gray_1d_flat", "1D, one thread per pixel (lecture)",
       "One thread per flattened index; blocks are runs of pixels that wrap across rows.",
       "kernels/labs/grayscale/gray_1d_flat.hpp", "grid.x = ceil(w*h / (blockDim.x*y*z))",
       Dim3{256, 1, 1}},
      {GrayKernel::Grid2D, "2d", "gray_2d", "2D blocks over x and y (lecture)",
       "Blocks are rectangles of the image; partial blocks line the right and bottom edges.",
       "kernels/labs/grayscale/gray_2d.hpp", "grid = (ceil(w / blockDim.x), ceil(h / blockDim.y))",
       Dim3{16, 16, 1}},
  }};
  return kernels;
}

const GrayKernelInfo& info(GrayKernel k) { return gray_kernels()[static_cast<int>(k)]; }

std::optional<GrayKernel> gray_kernel_from_key(std::string_view key) {
  for (const auto& k : gray_kernels())
    if (k.key == key || k.name == key) return k.id;
  return std::nullopt;
}

const std::vector<Dim3>& gray_block_presets(GrayKernel k) {
  static const std::vector<Dim3> flat{{32, 1, 1},  {64, 1, 1},  {128, 1, 1},
                                      {256, 1, 1}, {512, 1, 1}, {1024, 1, 1}};
  static const std::vector<Dim3> grid{{8, 8, 1},  {16, 16, 1}, {32, 8, 1},  {32, 32, 1},
                                      {64, 4, 1}, {256, 1, 1}, {1, 256, 1}, {32, 4, 1}};
  return k == GrayKernel::Flat1D ? flat : grid;
}

LaunchConfig gray_launch_config(GrayKernel k, Dim3 block, int width, int height) {
  LaunchConfig c;
  c.block = block;
  const unsigned long long w = width > 0 ? width : 0, h = height > 0 ? height : 0;
  auto clamp_u32 = [](unsigned long long v) {
    return static_cast<unsigned>(std::min<unsigned long long>(v, 0xffffffffull));
  };
  if (block.x == 0 || block.y == 0 || block.z == 0) {
    c.grid = Dim3{0, 0, 0};  // validation names the zero block dimension
  } else if (k == GrayKernel::Flat1D) {
    // Saturating x*y*z: typed 32-bit dimensions can pass 2^64 (4194304^3 wraps to exactly 0, a
    // division by zero). Such a block is refused by validation; its grid only has to exist.
    const unsigned long long xy = static_cast<unsigned long long>(block.x) * block.y;
    const unsigned long long threads = xy > ~0ull / block.z ? ~0ull : xy * block.z;
    const unsigned long long n = w * h;
    c.grid = Dim3{clamp_u32(threads >= n ? (n > 0 ? 1 : 0) : ceil_div(n, threads)), 1, 1};
  } else {
    c.grid = Dim3{clamp_u32(ceil_div(w, block.x)), clamp_u32(ceil_div(h, block.y)), 1};
  }
  return c;
}

Status check_gray_launch(GrayKernel k, const LaunchConfig& config, int width, int height,
                         const DeviceLimits& limits, const KernelAttributes* attributes) {
  if (width <= 0 || height <= 0)
    return Status::failure("no image loaded", "drop an image on the window", "gray launch");
  if (k == GrayKernel::Grid2D && config.block.z != 1)
    return Status::failure("the 2D kernel maps x and y only; blockDim.z = " +
                               std::to_string(config.block.z) +
                               " would make every pixel be computed " +
                               std::to_string(config.block.z) + " times",
                           "set blockDim.z to 1 (or use the 1D kernel, which flattens x*y*z)",
                           "check_gray_launch");
  if (Status s = validate_launch(config, limits, attributes); !s) {
    if (k == GrayKernel::Grid2D && config.grid.y > limits.max_grid.y)
      s.hint = "this image is " + std::to_string(height) + " rows tall: blockDim.y >= " +
               std::to_string(ceil_div(height, limits.max_grid.y)) +
               " keeps gridDim.y within 65535, or use the 1D kernel";
    return s;
  }
  return Status::success();
}

void rgba_to_planar_rgb(const std::uint8_t* rgba, int width, int height, std::uint8_t* planar) {
  const std::size_t n = static_cast<std::size_t>(width) * height;
  for (std::size_t i = 0; i < n; ++i) {
    planar[i] = rgba[4 * i + 0];
    planar[i + n] = rgba[4 * i + 1];
    planar[i + 2 * n] = rgba[4 * i + 2];
  }
}

void gray_reference(const std::uint8_t* rgba, int width, int height, std::uint8_t* out) {
  const std::size_t n = static_cast<std::size_t>(width) * height;
  for (std::size_t i = 0; i < n; ++i) {
    const double v = 0.2989 * rgba[4 * i] + 0.5870 * rgba[4 * i + 1] + 0.1140 * rgba[4 * i + 2];
    out[i] = static_cast<std::uint8_t>(std::floor(v));
  }
}

}  // namespace bs::gray
