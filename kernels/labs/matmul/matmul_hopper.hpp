// The Hopper tensor-core rungs on a CUDA device (tc3-tc6: wgmma, TMA, clusters): launches (plain
// or traced), compiled attributes, and the TMA descriptors of the BF16 buffers. They live in
// matmul_hopper.cu, built for sm_90a only, and answer with the reason where they were not built.
// (Rungs tc1-tc2 have per-thread bodies: the generic wrappers of matmul_engine_cuda.cu run them.)
// Include from code compiled with the CUDA toolkit.
#pragma once
#include <cuda_runtime.h>

#include <memory>

#include "core/launch.hpp"
#include "core/status.hpp"
#include "labs/matmul/fragment_tags.hpp"
#include "labs/matmul/matmul.hpp"
#include "labs/matmul/pipeline_trace.hpp"
#include "labs/matmul/tc_common.hpp"
#include "trace/trace_record.hpp"

namespace bs::matmul {

// A CUtensorMap (the driver's 128-byte, 128-byte aligned TMA descriptor), kept opaque here.
struct alignas(128) TensorMapBytes {
  unsigned char bytes[128] = {};
};

// The descriptors of one set of BF16 buffers: A in 128-row boxes, Bt in 128- and 256-row boxes,
// each box 64 BF16 (128 bytes) wide with the 128-byte swizzle. Encode once per set of buffers
// (set_matrices), not per launch: the time it takes would land inside the timed region.
// T7 (tc7_tma_store.hpp) stores C through TMA too: the descriptor of the C it was encoded with
// (c_base; a launch on another C encodes its own), and the words its split tiles signal through,
// with the epoch counter that makes clearing them unnecessary.
struct TcSplitFlags;
struct TcTensorMaps {
  TensorMapBytes a_128, b_128, b_256, c;
  const float* c_base = nullptr;
  std::shared_ptr<TcSplitFlags> split;
  bool encoded = false;
};

// The launchers, in matmul_hopper.cu (or its stub, matmul_hopper_none.cpp).
namespace hopper_host {
// True where this build holds the sm_90a rungs.
bool built();
// cuTensorMapEncodeTiled (looked up through cudaGetDriverEntryPointByVersion, so the driver
// library is not linked) for the three boxes, and for C where args.C is given (T7).
Result<TcTensorMaps> encode(const Bf16Args& args);
// Launches Hopper rung `k` in configuration `c` (which compiled kernel: tc6's cluster size) with
// `lc` (grid, block, cluster and dynamic shared memory as its traits give them) on `stream`. `records` non-null: the
// traced wrapper (one block record each; trace/block_trace.cuh), never timed. The Status is the launch's.
Status launch(MatmulKernel k, const MatmulConfig& c, const LaunchConfig& lc, const Bf16Args& args,
              const TcTensorMaps& maps, trace::DeviceBlockRecord* records, cudaStream_t stream);
// The tagged variant of the same kernel (fragment_record.hpp): `args` and `maps` are the probe's
// buffers, `sink` where the tags go (device memory). Not timed, never on the lab's own C.
Status launch_tagged(MatmulKernel k, const MatmulConfig& c, const LaunchConfig& lc, const Bf16Args& args,
                     const TcTensorMaps& maps, const TagFragments& sink, cudaStream_t stream);
// Whether configuration `c` of rung `k` has a pipeline-traced variant (T4, T5, T6).
bool has_pipeline_trace(MatmulKernel k, const MatmulConfig& c);
// Readies that variant for launch (loads it, where modules load lazily, and sets its shared
// memory), so a launch timed right after does not time the loading.
Status prepare_pipeline(MatmulKernel k, const MatmulConfig& c);
// Launches that variant: `records` one block record per block (trace/block_trace.cuh), `events`
// the per-warpgroup event buffer (pipeline_trace.hpp), both zeroed by the caller.
Status launch_pipeline(MatmulKernel k, const MatmulConfig& c, const LaunchConfig& lc, const Bf16Args& args,
                       const TcTensorMaps& maps, trace::DeviceBlockRecord* records, PipelineDeviceArgs events,
                       cudaStream_t stream);
// cudaFuncGetAttributes of the plain wrapper, with max_dynamic_shared_bytes what the rung asks for.
Result<KernelAttributes> attributes(MatmulKernel k, const MatmulConfig& c);
// cudaOccupancyMaxActiveClusters for `lc`'s block, cluster and shared memory: how many clusters
// (blocks, for clusters of one) of configuration `c` fit on the device at once.
Result<int> max_active_clusters(MatmulKernel k, const MatmulConfig& c, const LaunchConfig& lc);
}  // namespace hopper_host

}  // namespace bs::matmul
