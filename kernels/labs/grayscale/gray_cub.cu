// The library anchor: cub::DeviceTransform::Transform (CCCL, shipped with the CUDA toolkit)
// computing the same gray_value per pixel, so the ladder is measured against what NVIDIA's own
// library reaches on the same device in the same run, as cuBLAS anchors the matmul ladder.
//
// Planar: three input sequences zipped (the R, G and B planes at 0, n, 2n). RGBA: one sequence of
// 4-byte pixels: uchar4 when the buffer is 4-byte aligned (the natural type), else a 4-byte struct
// of alignment 1 (any address is a valid Rgba8*), so CUB runs on every buffer the rungs accept.
// On sm_90 CUB picks its own algorithm and its own grid: there is no grid of ours to draw.
// Measured (H200, 8192 x 8192, share of a same-bytes copy in the same run): planar 3.13 TB/s =
// 77%, RGBA 3.68 TB/s = 90%; gray_vec16 is 1.32x and 1.12x faster (NOTES.md, run 2).
#include <cub/device/device_transform.cuh>

#include "device/cuda_status.hpp"
#include "labs/grayscale/gray_cub.hpp"

namespace bs::gray {
namespace {

struct Rgba8 {
  std::uint8_t r, g, b, a;
};
static_assert(sizeof(Rgba8) == 4 && alignof(Rgba8) == 1);

struct GrayFromPlanes {
  __host__ __device__ std::uint8_t operator()(std::uint8_t r, std::uint8_t g, std::uint8_t b) const {
    return gray_value(r, g, b);
  }
};

struct GrayFromRgba {
  __host__ __device__ std::uint8_t operator()(uchar4 p) const { return gray_value(p.x, p.y, p.z); }
  __host__ __device__ std::uint8_t operator()(Rgba8 p) const { return gray_value(p.r, p.g, p.b); }
};

}  // namespace

Status GrayCubTransform::launch_cuda(GrayLayout l, const GrayArgs& a, cudaStream_t stream) {
  if (a.n <= 0) return Status::failure("no image", "", "launch_gray_cub");
  cudaError_t e;
  if (l == GrayLayout::Planar) {
    const std::uint8_t* p = a.planar_rgb;
    e = cub::DeviceTransform::Transform(::cuda::std::make_tuple(p, p + a.n, p + 2ll * a.n), a.out, a.n,
                                        GrayFromPlanes{}, stream);
  } else if (reinterpret_cast<std::uintptr_t>(a.rgba) % alignof(uchar4) == 0) {
    e = cub::DeviceTransform::Transform(reinterpret_cast<const uchar4*>(a.rgba), a.out, a.n, GrayFromRgba{}, stream);
  } else {
    e = cub::DeviceTransform::Transform(reinterpret_cast<const Rgba8*>(a.rgba), a.out, a.n, GrayFromRgba{}, stream);
  }
  if (e != cudaSuccess) {
    cudaGetLastError();
    return cuda::to_status(e, "cub::DeviceTransform::Transform");
  }
  return cuda::to_status(cudaGetLastError(), "cub::DeviceTransform::Transform");
}

}  // namespace bs::gray
