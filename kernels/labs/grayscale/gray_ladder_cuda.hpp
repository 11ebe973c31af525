// The GPU side of the grayscale ladder: launch any rung of BS_GRAY_RUNGS in either layout (plain
// or traced) and the compiled kernel's attributes; a rung without a body of ours (the library
// anchor) launches through its traits' launch_cuda. Include from .cu/.cpp files compiled with
// the CUDA toolkit.
#pragma once
#include <cuda_runtime.h>

#include <utility>

#include "core/launch.hpp"
#include "core/status.hpp"
#include "labs/grayscale/gray_ladder.hpp"
#include "trace/trace_record.hpp"

namespace bs::gray {

// Launches `rung` over layout `l` on `stream` with config's grid and block, asynchronously; the
// Status is the launch's (cudaGetLastError), execution errors surface at the next
// synchronisation. `records` non-null: the traced wrapper (the same body inside a BlockRecorder,
// one record per block; trace/block_trace.cuh), never to be timed. A rung without a body ignores
// the config and the records (CUB launches its own grid). A rung a test added to a ladder (no
// line in BS_GRAY_RUNGS) has no CUDA build: a Status.
Status launch_gray_rung(const GrayRung& rung, GrayLayout l, const LaunchConfig& config, const GrayArgs& args,
                        trace::DeviceBlockRecord* records, cudaStream_t stream);

// cudaFuncGetAttributes of the plain wrapper (registers, spills, shared memory). A rung without
// a body of ours has none: a Status.
Result<KernelAttributes> gray_rung_attributes(const GrayRung& rung, GrayLayout l);

// cudaOccupancyMaxPotentialBlockSize for the plain wrapper (no dynamic shared memory): the block
// size with the highest occupancy and the smallest grid that fills the device with it.
Result<std::pair<int, int>> gray_rung_suggested_block(const GrayRung& rung, GrayLayout l);

}  // namespace bs::gray
