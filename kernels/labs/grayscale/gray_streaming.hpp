// Rung 6: cache-streaming hints on the grid-stride loop.
//
//   loads:  ld.global.nc.L1::no_allocate  (read-only path; keep no L1 line: every byte is read once)
//   stores: st.global.cs                  (evict-first: nobody reads the output again here)
//
// What it changes from rung 5: only the cache operators of the 16-byte accesses (CacheHint in
// gray_common.hpp); the loop, the grid and the ownership are rung 5's.
//
// Why it might help: a streaming kernel reuses nothing, so caching its lines only displaces other
// data; telling L1 not to allocate and L2 to evict the output first leaves the caches to what is
// reused (in a real pipeline: the next kernel's inputs). On its own the kernel can only gain where
// cache management was in the way. The misaligned streams read each boundary word twice (once by
// each of two neighbouring lanes); without L1 lines the second read goes to L2, so the hint can
// also cost L2 traffic.
//
// Kept or dropped by measurement: see NOTES.md ("Measured").
//
// Index scheme: as rung 5.
#pragma once
#include "labs/grayscale/gray_grid_stride.hpp"

namespace bs::gray {

template <GrayLayout L, class Ctx>
BS_HD void gray_streaming_thread(const Ctx& t, const GrayArgs& a) {
  gray_grid_stride_loop<L, kGridStrideChunks, CacheHint::Streaming>(t, a);
}

}  // namespace bs::gray
