// Rung 6: rung 4's 16-byte chunks with a short path for aligned buffers, and K chunks per thread.
//
//   aligned buffers (every source stream and the output 16-byte aligned, n % 16 == 0: 3840 x 2160,
//   8192 x 8192 from cudaMalloc): the plan is known without computing it (no head, no tail, no
//   funnel shifts, n / 16 chunks) and the chunk numbers are 32-bit
//   otherwise: rung 4's plan and body, one chunk at a time, and its scalar head and tail
//   K = kIlpChunks chunks per thread, T apart (each warp access 512 contiguous bytes, as in rung 4),
//   every load of them in flight before the first store
//
// What it changes from rung 4: the path to the first load. Every rung-4 thread first works out the
// alignment plan (~80 PTX instructions, most of them 64-bit) before its first load; a launch that
// moves 33 MB in ~12 us (3840 x 2160) pays that in full at its start.
//
// What it taught (H200, one probe run, flush method as in `blockscope bench`: a 2 x L2 memset
// before each timed launch, median of 100; share of a same-bytes device-to-device copy timed the
// same way; NOTES.md "Closing the 4K gap"):
//   - The aligned path helps at 4K: K = 1, block 128, 91.8-92.1% of copy against rung 4's 89.1%
//     (13.3 against 13.8 us); at 8192 x 8192 98.0-98.2% against 97.6%.
//   - More chunks per thread (fewer, fuller blocks: one wave at K = 4) was the bet, and it lost:
//     K = 2 89.7%, K = 4 78-80% at 4K; streaming and no-allocate cache hints did not change that.
//   - The limit at 4K is the access pattern, not the arithmetic: the same loads and store with no
//     formula reach 93.4% of copy, while a copy kernel reading one stream reaches 100-105%. Three
//     planes read 8 MB apart are three DRAM streams; 95% of copy at 4K (issue 35) is not reached.
//
// Index scheme: Flat, vector 16, per_thread K (T apart), head and tail from GrayVecPlan (none for
// aligned buffers); the grid is ceil(chunks / (K * T)), at least enough threads for the head and
// tail.
#pragma once
#include "labs/grayscale/gray_rung.hpp"
#include "labs/grayscale/gray_vec16.hpp"

namespace bs::gray {

// ---------------------------------------------------------------------------------------------
// The knobs (one edit each; the probe's variants are these with other values)
// ---------------------------------------------------------------------------------------------

inline constexpr int kIlpChunks = 1;                         // K: chunks per thread, T apart (1 measured best)
inline constexpr CacheHint kIlpLoads = CacheHint::Default;   // aligned path's 16-byte loads
inline constexpr CacheHint kIlpStores = CacheHint::Default;  // aligned path's 16-byte stores
inline constexpr bool kIlpAlignedPath = true;                // false: rung 4's plan always, K chunks in flight

// True when the plan is trivial: every source stream and the output start on a 16-byte boundary
// and n is a multiple of 16 (then the planes at n and 2n are aligned too). gray_vec_plan gives
// head 0, tail 0, shifts 0 and n / 16 chunks for exactly these buffers.
template <GrayLayout L>
BS_HD bool gray_buffers_aligned(const GrayArgs& a) {
  const std::uintptr_t src = reinterpret_cast<std::uintptr_t>(L == GrayLayout::Planar ? a.planar_rgb : a.rgba);
  return ((src | reinterpret_cast<std::uintptr_t>(a.out) | static_cast<std::uintptr_t>(a.n)) & 15u) == 0;
}

// The aligned body: chunks first, first + stride, ... (K of them, those below `chunks`), every
// load first, then the formula and one aligned store each. A chunk past the end loads the last
// chunk again instead (first < chunks, so there is one) and stores nothing: no branch around the
// loads, and every word they fill is defined. 32-bit chunk numbers: the caller guarantees
// first + (K - 1) * stride fits (chunks < 2^27, stride <= 1024).
template <GrayLayout L, int K, CacheHint LoadH, CacheHint StoreH, class F = GrayFormula>
BS_HD void gray_aligned_chunks(const GrayArgs& a, unsigned first, unsigned stride, unsigned chunks) {
  using S = GrayStreams<L>;
  constexpr int NW = S::kBytesPerPixel;  // 16-byte words per chunk and stream (16 pixels x k bytes)
  std::uint32_t words[K][S::kCount][4 * NW];
  BS_UNROLL
  for (int j = 0; j < K; ++j) {
    const unsigned c = first + static_cast<unsigned>(j) * stride;
    const unsigned loaded = c < chunks ? c : chunks - 1;
    BS_UNROLL
    for (int s = 0; s < S::kCount; ++s) {
      const std::uint8_t* p = S::base(a, s) + static_cast<std::size_t>(loaded) * (16u * NW);
      BS_UNROLL
      for (int w = 0; w < NW; ++w) {
        const Vec16 v = load16<LoadH>(p + 16 * w);
        BS_UNROLL
        for (int q = 0; q < 4; ++q) words[j][s][4 * w + q] = v.w[q];
      }
    }
  }
  BS_UNROLL
  for (int j = 0; j < K; ++j) {
    const unsigned c = first + static_cast<unsigned>(j) * stride;
    if (c >= chunks) continue;
    std::uint32_t out[4];
    gray_convert_chunk<L, 16, F, NW>(words[j], out);
    store16<StoreH>(a.out + static_cast<std::size_t>(c) * 16u, Vec16{{out[0], out[1], out[2], out[3]}});
  }
}

// The rung's body with its knobs as parameters (the probe instantiates other values).
template <GrayLayout L, int K, CacheHint LoadH, CacheHint StoreH, bool AlignedPath, class F = GrayFormula, class Ctx>
BS_HD void gray_vec16_ilp_thread(const Ctx& t, const GrayArgs& a) {
  constexpr int P = kVecPixels<L>;
  static_assert(P == 16, "the aligned path stores 16 pixels per chunk");
  const unsigned T = t.blockDim.x * t.blockDim.y * t.blockDim.z;  // <= 1024 (validated launches)
  const unsigned tid = linear_thread_in_block(t);
  // The thread's first chunk in 64 bits once: a grid larger than the rule's would overflow 32.
  const unsigned long long first = static_cast<unsigned long long>(t.blockIdx.x) * T * K + tid;
  if constexpr (AlignedPath) {
    if (gray_buffers_aligned<L>(a)) {
      const unsigned chunks = static_cast<unsigned>(a.n) / P;
      if (first < chunks) gray_aligned_chunks<L, K, LoadH, StoreH, F>(a, static_cast<unsigned>(first), T, chunks);
      return;
    }
  }
  const GrayVecPlan plan = gray_vec_plan<L, P>(a);
  if (first < static_cast<unsigned long long>(plan.vectors)) {
    if constexpr (AlignedPath) {
      // Rung 4's body a chunk at a time: no more registers than rung 4 for the rare misaligned
      // image, so the aligned path keeps its occupancy.
      BS_UNROLL
      for (int j = 0; j < K; ++j)
        gray_vec_chunks<L, P, 1, CacheHint::Default, F>(a, plan, static_cast<long long>(first) + j * T, T);
    } else {
      gray_vec_chunks<L, P, K, CacheHint::Default, F>(a, plan, static_cast<long long>(first), T);
    }
  }
  const unsigned long long g = static_cast<unsigned long long>(t.blockIdx.x) * T + tid;
  if (g < static_cast<unsigned long long>(plan.head)) a.out[g] = gray_pixel<L>(a, static_cast<long long>(g));
  if (g < static_cast<unsigned long long>(plan.tail)) {
    const long long e = a.n - plan.tail + static_cast<long long>(g);
    a.out[e] = gray_pixel<L>(a, e);
  }
}

// The rung: rung 4's traits with K chunks per thread (the grid rule and the index scheme follow
// kPerThread).
struct GrayVec16Aligned : GrayVec16Base<GrayVec16Aligned> {
  static constexpr unsigned kPerThread = kIlpChunks;
  static lab::KernelInfo info() {
    lab::KernelInfo i;
    i.id = "gray_vec16_aligned";
    i.label = "6. 16-byte chunks, aligned fast path";
    i.teaches =
        "Rung 4 when every buffer is 16-byte aligned and n is a multiple of 16: the alignment plan is known "
        "without computing it (no head, tail or funnel shift, 32-bit chunk numbers), so each thread's first "
        "load issues sooner; K = " +
        std::to_string(kIlpChunks) +
        " chunk(s) per thread (more measured slower at 4K: the three planes' DRAM streams are the limit).";
    i.file = "kernels/labs/grayscale/gray_vec16_aligned.hpp";
    i.block_rank = 1;
    i.default_block = Dim3{128, 1, 1};
    i.presets = gray_flat_presets();
    i.grid_rule = "ceil(n / (16 * " + std::to_string(kIlpChunks) + " * blockDim.x*y*z))";
    return i;
  }
  template <GrayLayout L, class Ctx>
  static BS_HD void body(const Ctx& t, const GrayArgs& a) {
    gray_vec16_ilp_thread<L, kIlpChunks, kIlpLoads, kIlpStores, kIlpAlignedPath>(t, a);
  }
};

}  // namespace bs::gray
