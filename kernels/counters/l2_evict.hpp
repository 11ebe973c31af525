// Evicting L2 between passes, so each pass of a profile starts from a cold cache (as ncu does).
//
// Writing a big buffer (cudaMemset) would evict the cache too, but would leave it full of dirty
// lines, and writing those back would count as DRAM writes of the next kernel. Reading a buffer
// twice the L2's size leaves it holding clean lines only: the kernel under test then misses as
// it would after Nsight Compute's own flush, and evicting what the flush left costs no DRAM
// traffic. CUDA build only.
//
// What differed from ncu with the read alone: its flush leaves the L2 empty (invalid lines), the
// read leaves it full of clean lines. DRAM reads were the same either way (within 0.2% of ncu on
// an H200), but the write-backs that happen before the kernel ends were not: for the 1D grayscale
// kernel at 4096x4096 the read-only eviction counted 2.7% fewer DRAM bytes written than ncu, the
// one row of the comparison outside its 2% (kernels/counters/NOTES.md). With a full cache the
// kernel's dirty lines compete with the clean scratch lines for the same sets, so the L2 writes
// back a different share before the kernel ends. The fix: after the read, discard every scratch
// line (PTX discard.global.L2, sm_80 and newer), which invalidates them without a write-back
// (they are clean anyway), so the kernel starts on an L2 of invalid lines as after ncu's flush.
// Older GPUs (sm_75) keep the read-only eviction. Awaiting confirmation on the device
// (tests/gpu/checks/measured.sh runs the comparison with both).
#pragma once
#include <cstddef>

#include "core/status.hpp"
#include "counters/counters.hpp"  // L2Eviction

namespace bs::counters {

// Reads every byte of `scratch` (device memory, `bytes` long, a multiple of 128) on the current
// device, on the legacy default stream, then (ReadAndDiscard) discards its L2 lines, and waits.
Status evict_l2(const void* scratch, std::size_t bytes, L2Eviction how = L2Eviction::ReadAndDiscard);

}  // namespace bs::counters
