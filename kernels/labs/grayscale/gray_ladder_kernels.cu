// The ladder's __global__ wrappers: for every (rung, layout) one plain wrapper and one traced
// wrapper around the same body the simulator runs (gray_ladder_bodies.hpp), and the dispatch from
// the run-time pair to them.
#include "device/cuda_status.hpp"
#include "device/device_limits.hpp"
#include "labs/grayscale/gray_ladder_bodies.hpp"
#include "labs/grayscale/gray_ladder_cuda.hpp"
#include "trace/block_trace.cuh"

namespace bs::gray {

template <GrayRung R, GrayLayout L>
__global__ void gray_rung_kernel(GrayArgs a) {
  gray_rung_body<R, L>(DeviceCtx::from_builtins(), a);
}

template <GrayRung R, GrayLayout L>
__global__ void gray_rung_traced(GrayArgs a, trace::DeviceBlockRecord* records) {
  trace::BlockRecorder recorder(records);
  gray_rung_body<R, L>(DeviceCtx::from_builtins(), a);
}

Status launch_gray_rung(GrayRung r, GrayLayout l, const LaunchConfig& config, const GrayArgs& args,
                        trace::DeviceBlockRecord* records, cudaStream_t stream) {
  if (r == GrayRung::CubTransform) return launch_gray_cub(l, args, stream);
  const dim3 grid(config.grid.x, config.grid.y, config.grid.z);
  const dim3 block(config.block.x, config.block.y, config.block.z);
  with_gray_rung(r, l, [&]<GrayRung R, GrayLayout L>() {
    if (records)
      gray_rung_traced<R, L><<<grid, block, config.dynamic_shared_bytes, stream>>>(args, records);
    else
      gray_rung_kernel<R, L><<<grid, block, config.dynamic_shared_bytes, stream>>>(args);
  });
  return cuda::to_status(cudaGetLastError(), records ? "traced kernel launch" : "kernel launch");
}

Result<KernelAttributes> gray_rung_attributes(GrayRung r, GrayLayout l) {
  const void* fn = nullptr;
  with_gray_rung(r, l, [&]<GrayRung R, GrayLayout L>() {
    fn = reinterpret_cast<const void*>(&gray_rung_kernel<R, L>);
  });
  if (!fn)
    return Status::failure(std::string(rung_info(r).id) +
                               " is a library anchor: its kernels are CUB's, not ours",
                           "", "gray_rung_attributes");
  return cuda::query_kernel_attributes(fn);
}

Result<std::pair<int, int>> gray_rung_suggested_block(GrayRung r, GrayLayout l) {
  int min_grid = 0, block = 0;
  bool ours = false;
  cudaError_t e = cudaSuccess;
  with_gray_rung(r, l, [&]<GrayRung R, GrayLayout L>() {
    ours = true;
    e = cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, gray_rung_kernel<R, L>, 0, 0);
  });
  if (!ours)
    return Status::failure(std::string(rung_info(r).id) + " is a library anchor: CUB picks its own blocks", "",
                           "gray_rung_suggested_block");
  if (e != cudaSuccess) return cuda::to_status(e, "cudaOccupancyMaxPotentialBlockSize");
  return std::pair<int, int>{min_grid, block};
}

}  // namespace bs::gray
