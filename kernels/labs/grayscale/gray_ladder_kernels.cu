// The ladder's __global__ wrappers: for every rung of BS_GRAY_RUNGS with a body and every layout,
// one plain wrapper and one traced wrapper around the same body the simulator runs, and the
// dispatch from a GrayRung to them.
#include "device/cuda_status.hpp"
#include "device/device_limits.hpp"
#include "labs/grayscale/gray_ladder_cuda.hpp"
#include "labs/grayscale/gray_registry.hpp"
#include "trace/block_trace.cuh"

namespace bs::gray {

template <class R, GrayLayout L>
__global__ void gray_rung_kernel(GrayArgs a) {
  R::template body<L>(DeviceCtx::from_builtins(), a);
}

template <class R, GrayLayout L>
__global__ void gray_rung_traced(GrayArgs a, trace::DeviceBlockRecord* records) {
  trace::BlockRecorder recorder(records);
  R::template body<L>(DeviceCtx::from_builtins(), a);
}

namespace {

Status no_cuda_build(const GrayRung& rung, const char* what) {
  return Status::failure(rung.info.id +
                             " has no CUDA build: it was added to the ladder at run time, not in "
                             "BS_GRAY_RUNGS",
                         "run it on the CPU simulation", what);
}

// f.template operator()<R, L>() for a rung with a body; false (calling nothing) for one without.
template <class F>
bool with_body(GrayKernel k, GrayLayout l, F&& f) {
  bool ran = false;
  with_rung(k, [&]<class R>() {
    if constexpr (R::kBody) {
      with_layout(l, [&]<GrayLayout L>() { f.template operator()<R, L>(); });
      ran = true;
    }
  });
  return ran;
}

}  // namespace

Status launch_gray_rung(const GrayRung& rung, GrayLayout l, const LaunchConfig& config, const GrayArgs& args,
                        trace::DeviceBlockRecord* records, cudaStream_t stream) {
  if (!rung.kernel) return no_cuda_build(rung, "launch_gray_rung");
  const dim3 grid(config.grid.x, config.grid.y, config.grid.z);
  const dim3 block(config.block.x, config.block.y, config.block.z);
  Status library = Status::success();
  bool own = false;
  with_rung(*rung.kernel, [&]<class R>() {
    if constexpr (!R::kBody) {
      library = R::launch_cuda(l, args, stream);  // the library anchor's own launcher
    } else {
      own = true;
      with_layout(l, [&]<GrayLayout L>() {
        if (records) gray_rung_traced<R, L><<<grid, block, config.dynamic_shared_bytes, stream>>>(args, records);
        else gray_rung_kernel<R, L><<<grid, block, config.dynamic_shared_bytes, stream>>>(args);
      });
    }
  });
  if (!own) return library;
  return cuda::to_status(cudaGetLastError(), records ? "traced kernel launch" : "kernel launch");
}

Result<KernelAttributes> gray_rung_attributes(const GrayRung& rung, GrayLayout l) {
  if (!rung.kernel) return no_cuda_build(rung, "gray_rung_attributes");
  const void* fn = nullptr;
  with_body(*rung.kernel, l,
            [&]<class R, GrayLayout L>() { fn = reinterpret_cast<const void*>(&gray_rung_kernel<R, L>); });
  if (!fn)
    return Status::failure(rung.info.id + " is a library anchor: its kernels are CUB's, not ours", "",
                           "gray_rung_attributes");
  return cuda::query_kernel_attributes(fn);
}

Result<std::pair<int, int>> gray_rung_suggested_block(const GrayRung& rung, GrayLayout l) {
  if (!rung.kernel) return no_cuda_build(rung, "gray_rung_suggested_block");
  int min_grid = 0, block = 0;
  cudaError_t e = cudaSuccess;
  const bool ours = with_body(*rung.kernel, l, [&]<class R, GrayLayout L>() {
    e = cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, gray_rung_kernel<R, L>, 0, 0);
  });
  if (!ours)
    return Status::failure(rung.info.id + " is a library anchor: CUB picks its own blocks", "",
                           "gray_rung_suggested_block");
  if (e != cudaSuccess) return cuda::to_status(e, "cudaOccupancyMaxPotentialBlockSize");
  return std::pair<int, int>{min_grid, block};
}

}  // namespace bs::gray
