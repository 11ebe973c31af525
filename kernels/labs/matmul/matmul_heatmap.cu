// Heatmaps on the GPU: one thread per texel, straight into the caller's buffer (in the app, a GL
// pixel buffer CUDA has mapped, so the image reaches the texture without touching the host).
#include <cuda_runtime.h>

#include "device/cuda_status.hpp"
#include "labs/matmul/matmul_heatmap.hpp"
#include "labs/matmul/matmul_heatmap_texel.hpp"

namespace bs::matmul {
namespace {

__global__ void heatmap_kernel(const float* m, const float* ref, HeatmapSpec spec, std::uint8_t* out) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= spec.out_w || y >= spec.out_h) return;
  out[static_cast<long long>(y) * spec.out_w + x] = detail::heatmap_texel(m, ref, spec, x, y);
}

}  // namespace

Status fill_heatmap_device(const float* device_matrix, const float* device_reference, const HeatmapSpec& spec,
                           std::uint8_t* device_out) {
  if (Status s = check_heatmap_spec(spec); !s) return s;
  if (!device_matrix || !device_out || (spec.encoding == HeatmapEncoding::AbsError && !device_reference))
    return Status::failure("fill_heatmap_device needs the matrix, the output and (for errors) the reference", "",
                           "fill_heatmap_device");
  const dim3 block(32, 8);
  const dim3 grid((spec.out_w + 31) / 32, (spec.out_h + 7) / 8);
  heatmap_kernel<<<grid, block>>>(device_matrix, device_reference, spec, device_out);
  return cuda::to_status(cudaGetLastError(), "heatmap_kernel<<<>>>");
}

}  // namespace bs::matmul
