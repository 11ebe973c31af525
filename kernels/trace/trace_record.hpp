// What an instrumented kernel writes per block (DeviceBlockRecord), and the host-side step that
// turns those raw records into the BlockTrace list a LaunchRecord carries. Host-only and
// CUDA-free, so the checks are unit-tested without a GPU; the device side is block_trace.cuh,
// the copy from the GPU is trace_buffer.hpp.
#pragma once
#include <cstdint>
#include <vector>

#include "core/dim.hpp"
#include "core/launch_record.hpp"
#include "core/status.hpp"

namespace bs::trace {

// One per block, at index = linear block id (x fastest). The buffer starts zeroed; `writes`
// counts how many times a block's recorder wrote it (atomically), so the host can prove every
// block wrote its record exactly once. 64 bytes: one record per block, written once by one
// thread at the block's end, so tracing stays a barrier and a few stores per block.
struct DeviceBlockRecord {
  std::uint64_t start_ns;  // %globaltimer when thread (0,0,0) entered the block
  std::uint64_t end_ns;    // %globaltimer after the block's final barrier (all threads done)
  std::uint32_t smid;      // %smid: the SM the block ran on
  std::uint32_t writes;    // 1 after a correct run
  std::uint32_t threads;   // threads that reached the block's end (each warp adds its lanes)
  // Bit 0: the cluster fields below were read from the GPU's registers (sm_90 and later: a
  // GPU without clusters leaves them zero). Bit 1: %is_explicit_cluster.
  std::uint32_t cluster_flags;
  std::uint32_t cluster_id[3];     // %clusterid.x, y, z
  std::uint32_t cluster_rank;      // %cluster_ctarank
  std::uint32_t cluster_count[3];  // %nclusterid.x, y, z
  std::uint32_t cluster_blocks;    // %cluster_nctarank
};
static_assert(sizeof(DeviceBlockRecord) == 64, "the device and host layouts must agree");
inline constexpr std::uint32_t kClusterRead = 1u, kClusterExplicit = 2u;

// Checks every record (exactly one write, start <= end, smid < sm_count when sm_count > 0) and
// converts them to BlockTraces indexed by linear block id, with times relative to the earliest
// start. The Status names the first bad block.
Result<std::vector<BlockTrace>> records_to_trace(const std::vector<DeviceBlockRecord>& records, Dim3 grid,
                                                 unsigned sm_count = 0);

}  // namespace bs::trace
