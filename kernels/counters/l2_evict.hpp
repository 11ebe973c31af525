// Evicting L2 between passes, so each pass of a profile starts from a cold cache (as ncu does).
//
// Writing a big buffer (cudaMemset) would evict the cache too, but would leave it full of dirty
// lines, and writing those back would count as DRAM writes of the next kernel. Reading a buffer
// twice the L2's size leaves it holding clean lines only: the kernel under test then misses as
// it would after Nsight Compute's own flush, and evicting what the flush left costs no DRAM
// traffic. CUDA build only.
#pragma once
#include <cstddef>

#include "core/status.hpp"

namespace bs::counters {

// Reads every byte of `scratch` (device memory, `bytes` long, a multiple of 16) on the current
// device, on the legacy default stream, and waits for it.
Status evict_l2(const void* scratch, std::size_t bytes);

}  // namespace bs::counters
