// Rung 6: several 16-byte chunks per thread, every load of them in flight before the first
// store, and a short path to the first load when the buffers are aligned.
//
//   K = kIlpChunks; block b of T threads owns the K*T chunks [b*K*T, (b+1)*K*T); its thread t
//   converts chunks b*K*T + t, + T, + 2T, ... (K of them, T apart: each warp access stays 512
//   contiguous bytes, as in rung 4)
//     1. all K chunks' loads (planar: 3K x LDG.128; RGBA: 4K x LDG.128)
//     2. then, chunk by chunk, the formula and one STG.128
//   aligned buffers (every source stream and the output 16-byte aligned, n % 16 == 0: 3840 x 2160,
//   8192 x 8192 from cudaMalloc): the plan is known without computing it (no head, no tail, no
//   shifts, n / 16 chunks) and indices are 32-bit
//   otherwise: rung 4's plan and body, one chunk at a time, and its scalar head and tail
//
// What it changes from rung 4: the work per thread and the path to the first load. Rung 4 gives
// each thread one chunk, so a 3840 x 2160 image is 518,400 threads: 4,050 blocks of 128, about
// two waves of resident blocks on an H200 (132 SMs x 16 blocks of 128). Every thread first works
// out the alignment plan (~80 PTX instructions, most of them 64-bit) before its first load. Here a
// thread owns K chunks: K times fewer threads, each paying that setup once for K chunks, and with
// K = 4 the same image is 1,013 blocks of 128, one wave if 8 blocks fit per SM (64 registers or
// fewer).
//
// Why it should help at 3840 x 2160 (where rung 4 reaches 89% of a same-bytes copy and 98.5% at
// 8192 x 8192: NOTES.md): a launch that moves 33 MB in ~12 us pays its ramp-up and drain in full.
// With two waves, the first wave's blocks issue their loads together, wait together, and retire
// together, and the second wave's loads only start after that: the memory pipeline drains and
// refills in the middle of the kernel. With one wave every load of the image is issued in the
// first microsecond and DRAM streams them back to back. Each thread holds 3K x 16 bytes in flight
// (192 B at K = 4), so even at half occupancy an SM keeps ~190 KB in flight, far above the ~29 KB
// Little's law asks for (NOTES.md). The aligned path drops the plan and the 64-bit index
// arithmetic from the ~80 PTX instructions before the first load, which is what the first warps of
// every SM wait behind at launch.
//
// What it costs: registers (the K chunks' words are live together: 3K x 4 planar), so fewer
// threads per SM: ptxas (nvcc 13.0, sm_90) gives planar 32 / 56 / 56 / 64 registers at K = 1..4
// (the aligned path alone: 32 / 40 / - / 64; the misaligned path, rung 4's code one chunk at a
// time, sets the kernel's count at K = 2 and 3), RGBA 72 at K = 4. With K large the last blocks
// are big, so SMs finish less evenly. At 8192 x 8192 (many waves whatever K is) it should match
// rung 4, not beat it. Misaligned images run rung 4's code and should run about as fast as rung 4.
//
// The knobs below are what the probe varies (NOTES.md, "Closing the 4K gap"); their values are
// the prediction until it has run on the GPU, then its best.
//
// Index scheme: Flat, vector 16, per_thread K (T apart), head and tail from GrayVecPlan (none for
// aligned buffers); the grid is ceil(chunks / (K * T)), at least enough threads for the head and
// tail.
// Measured: TO BE MEASURED (H200, 3840 x 2160 and 8192 x 8192 planar, share of a same-bytes
// device-to-device copy in the same run).
#pragma once
#include "labs/grayscale/gray_rung.hpp"
#include "labs/grayscale/gray_vec16.hpp"

namespace bs::gray {

// ---------------------------------------------------------------------------------------------
// The knobs (one edit each; the probe's variants are these with other values)
// ---------------------------------------------------------------------------------------------

inline constexpr int kIlpChunks = 4;                         // K: chunks per thread, T apart
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
struct GrayVec16Ilp : GrayVec16Base<GrayVec16Ilp> {
  static constexpr unsigned kPerThread = kIlpChunks;
  static lab::KernelInfo info() {
    lab::KernelInfo i;
    i.id = "gray_vec16_ilp";
    i.label = "6. several 16-byte chunks per thread";
    i.teaches = "Each thread converts K = " + std::to_string(kIlpChunks) +
                " chunks of 16 pixels with all their loads in flight before its first store: K times fewer threads "
                "and blocks, each paying its setup once (at K = 4 a 4K image is one wave of blocks on an H200).";
    i.file = "kernels/labs/grayscale/gray_vec16_ilp.hpp";
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
