// Evicting L2 between passes, so each pass of a profile starts from a cold cache (as ncu does).
//
// Writing a big buffer (cudaMemset) would evict the cache too, but would leave it full of dirty
// lines, and writing those back would count as DRAM writes of the next kernel. Reading a buffer
// twice the L2's size leaves it holding clean lines only: the kernel under test then misses as
// it would after Nsight Compute's own flush, and evicting what the flush left costs no DRAM
// traffic. CUDA build only.
//
// What differs from ncu: its flush leaves the L2 empty (invalid lines), this one leaves it full of
// clean lines. DRAM reads are the same either way (within 0.2% of ncu on an H200), but the
// write-backs that happen before the kernel ends are not: for the 1D grayscale kernel at
// 4096x4096 blockscope counted 2.7% fewer DRAM bytes written than ncu, the one row of the
// comparison outside its 2% (kernels/counters/NOTES.md). Untried: discarding the scratch lines
// after the sweep (PTX discard.global.L2, sm_80+) would leave invalid lines as ncu does.
#pragma once
#include <cstddef>

#include "core/status.hpp"

namespace bs::counters {

// Reads every byte of `scratch` (device memory, `bytes` long, a multiple of 16) on the current
// device, on the legacy default stream, and waits for it.
Status evict_l2(const void* scratch, std::size_t bytes);

}  // namespace bs::counters
