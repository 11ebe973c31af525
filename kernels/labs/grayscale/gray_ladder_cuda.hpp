// The GPU side of the grayscale ladder: launch any rung in either layout (plain or traced), the
// compiled kernel's attributes, and CUB's DeviceTransform as the library anchor. Include from
// .cu/.cpp files compiled with the CUDA toolkit.
#pragma once
#include <cuda_runtime.h>

#include <utility>

#include "core/launch.hpp"
#include "core/status.hpp"
#include "labs/grayscale/gray_ladder.hpp"
#include "trace/trace_record.hpp"

namespace bs::gray {

// Launches rung `r` over layout `l` on `stream` with config's grid and block, asynchronously;
// the Status is the launch's (cudaGetLastError), execution errors surface at the next
// synchronisation. `records` non-null: the traced wrapper (the same body inside a BlockRecorder,
// one record per block; trace/block_trace.cuh), never to be timed. The library anchor ignores
// the config and the records (CUB launches its own grid).
Status launch_gray_rung(GrayRung r, GrayLayout l, const LaunchConfig& config, const GrayArgs& args,
                        trace::DeviceBlockRecord* records, cudaStream_t stream);

// cudaFuncGetAttributes of the plain wrapper (registers, spills, shared memory). The library
// anchor has none of ours: a Status.
Result<KernelAttributes> gray_rung_attributes(GrayRung r, GrayLayout l);

// cudaOccupancyMaxPotentialBlockSize for the plain wrapper of rung `r` over layout `l` (no
// dynamic shared memory): the block size with the highest occupancy and the smallest grid that
// fills the device with it. The library anchor has none of ours: a Status.
Result<std::pair<int, int>> gray_rung_suggested_block(GrayRung r, GrayLayout l);

// cub::DeviceTransform::Transform computing gray_value for every pixel of `args` in layout `l`
// (planar: the three planes zipped; RGBA: one uchar4 per pixel, or a 1-byte-aligned 4-byte
// struct when the RGBA buffer is not 4-byte aligned). Asynchronous on `stream`.
Status launch_gray_cub(GrayLayout l, const GrayArgs& args, cudaStream_t stream);

}  // namespace bs::gray
