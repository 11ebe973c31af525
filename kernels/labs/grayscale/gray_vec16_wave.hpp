// Rung 7: one wave of resident blocks, each converting one contiguous, equal share of the image's
// 16-pixel chunks.
//
//   R = SMs x blocks of T threads resident per SM (the occupancy calculator, with the kernel's
//       registers: mapping/occupancy.hpp); C = the image's 16-pixel chunks
//   K = ceil(C / (R * T)) chunks per thread, the grid ceil(C / (K * T)) <= R blocks: one wave
//   block b converts the chunks [b*K*T, (b+1)*K*T) (the last block what is left), thread t the
//   chunks b*K*T + t + j*T, j = 0..K-1 (each warp access 512 contiguous bytes, as in rung 4),
//   kWaveInFlight of them at a time with every load issued before the first store
//   aligned buffers (n % 16 == 0, every stream 16-byte aligned: 3840 x 2160 and 8192 x 8192 from
//   cudaMalloc): rung 6's closed-form chunks; otherwise rung 4's plan, a chunk at a time, and its
//   scalar head and tail
// The kernel reads K from its own grid (K = ceil(C / (gridDim.x * T))), so the record's grid is
// all it needs: the index scheme of the launch says K (per_thread) the same way.
//
// What it changes from rung 6: who decides how much work a block does. Rungs 4 and 6 give every
// thread one chunk, so a 3840 x 2160 image (518,400 chunks) is 4,050 blocks of 128, 1.9 waves of
// 132 x 16 resident blocks: the first wave's blocks start together, and the second starts as they
// retire, so (the hypothesis) the memory pipeline drains and refills once more, and the
// last partial wave leaves SMs idle while the slowest finish. Here the grid is sized to the
// machine: at most one wave, every block the same share, so every SM starts at once and has the
// same work to within one block (4K, blocks of 128: K = 2, 2025 blocks, 15 or 16 an SM).
// Unlike rung 5's grid-stride loop, a block's chunks are one contiguous range (not one T-chunk
// run a whole grid apart each pass), there is no ragged last pass, and the per-block share is
// fixed by the grid, not by a loop over passes.
//
// Why it should help: no second wave (no mid-kernel drain and refill, no block launches after
// the first), the per-thread setup (the alignment plan, indices) paid once per K chunks, and
// SMs finishing together. Why it may not (the prediction): rung 6's probe measured fewer, fuller
// blocks slower at 4K (K = 2: 89.7%, K = 4 in one shot: 78-80% of copy), many 64-thread blocks
// best (92.4% in the last bench), and an access pattern with no arithmetic at 93.4%: a block here
// streams K*T chunks of each plane where rung 4's resident blocks move as one contiguous window,
// which DRAM row locality may reward (NOTES.md, "Closing the 4K gap" and "Rung 7").
//
// Index scheme: Flat, vector 16, per_thread K from the launch's grid (not grid-stride), head and
// tail from GrayVecPlan (none for aligned buffers).
// Registers: 32 (ptxas, sm_90), as rungs 4 and 6: the general path is written for it (below).
// Predicted (NOTES.md, "Rung 7"): 4K planar 89-92% of copy, no better than rung 6; 8192^2 96-98%.
// Measured: (to be filled: H200, `blockscope bench gray`, 3840 x 2160 and 8192 x 8192 planar,
// share of the same run's device-to-device copy)
#pragma once
#include <algorithm>

#include "labs/grayscale/gray_rung.hpp"
#include "labs/grayscale/gray_vec16.hpp"
#include "labs/grayscale/gray_vec16_aligned.hpp"
#include "mapping/occupancy.hpp"

namespace bs::gray {

// Chunks a thread keeps in flight (all their loads before the first store). 1: 32 registers
// (ptxas, sm_90, nvcc 13: 16 blocks of 128 per SM, as rungs 4 and 6); 2: 40 planar / 44 RGBA
// (12 and 10 blocks of 128), with twice the bytes in flight per thread; 4: 72.
inline constexpr int kWaveInFlight = 1;

// The rung's share rule, written once for the launch rule, the scheme and the body: K chunks per
// thread for `chunks` chunks over `blocks` blocks of `threads` (at least 1, so an image of no
// chunks still has a well-formed scheme). 32-bit division: chunks < 2^27 for any image the kernels
// accept (n < 2^31), and the lanes are fewer than the chunks when it divides (a 64-bit division
// is a subroutine that costs the kernel 8 more registers).
BS_HD unsigned gray_wave_per_thread(unsigned chunks, unsigned long long blocks, unsigned long long threads) {
  const unsigned long long lanes = blocks * threads;
  return lanes == 0 || chunks <= lanes ? 1u : (chunks - 1u) / static_cast<unsigned>(lanes) + 1u;
}

// One chunk of rung 4's plan (any alignment) for the general path's loop, lighter on registers
// than gray_vec_chunks: a kernel has one register count, the larger of its two paths', and rung
// 4's body in a loop takes 40 (8 more than on its own), which would cost the aligned path a quarter
// of its resident threads. So the streams but the last are loaded and re-aligned first, and the
// last after them: two round trips to memory a chunk instead of one, on images whose planes are not
// all 16-byte aligned (odd sizes), for 32 registers. The empty asm makes the first streams' words
// a value the code needs at that point, so the compiler cannot keep every stream's raw words live
// at once.
template <GrayLayout L, class F>
BS_HD void gray_wave_misaligned_chunk(const GrayArgs& a, const GrayVecPlan& plan, unsigned c) {
  using S = GrayStreams<L>;
  constexpr int P = kVecPixels<L>;
  constexpr int k = S::kBytesPerPixel;
  constexpr int NW = k * P / 16;  // aligned 16-byte words per chunk and stream
  const long long px = plan.head + static_cast<long long>(c) * P;
  std::uint32_t words[S::kCount][4 * NW];
  BS_UNROLL
  for (int s = 0; s < S::kCount; ++s) {
    std::uint32_t raw[4 * NW + 4];
    load_raw<NW, CacheHint::Default>(S::base(a, s) + k * px - plan.shift[s], plan.shift[s], raw);
    realign<NW>(raw, plan.shift[s], words[s]);
#if BS_ON_DEVICE
    if (s == S::kCount - 2) {
      BS_UNROLL
      for (int w = 0; w <= s; ++w) {
        BS_UNROLL
        for (int q = 0; q < 4 * NW; ++q) asm volatile("" : "+r"(words[w][q]));
      }
    }
#endif
  }
  std::uint32_t out[P / 4];
  gray_convert_chunk<L, P, F, NW>(words, out);
  store16<CacheHint::Default>(a.out + px, Vec16{{out[0], out[1], out[2], out[3]}});
}

// The body with its knob as a parameter.
template <GrayLayout L, int U, class F = GrayFormula, class Ctx>
BS_HD void gray_vec16_wave_thread(const Ctx& t, const GrayArgs& a) {
  constexpr int P = kVecPixels<L>;
  static_assert(P == 16, "the aligned path stores 16 pixels per chunk");
  const unsigned T = t.blockDim.x * t.blockDim.y * t.blockDim.z;  // <= 1024 (validated launches)
  const unsigned tid = linear_thread_in_block(t);
  if (gray_buffers_aligned<L>(a)) {
    // chunks < 2^27 (n < 2^31): the block's range, and every chunk number below, fit 32 bits.
    const unsigned chunks = static_cast<unsigned>(a.n) / P;
    const unsigned K = gray_wave_per_thread(chunks, t.gridDim.x, T);
    const unsigned long long begin = static_cast<unsigned long long>(t.blockIdx.x) * K * T;
    if (begin >= chunks) return;
    const unsigned long long stop = begin + K * T;
    const unsigned end = stop < chunks ? static_cast<unsigned>(stop) : chunks;
    // Thread t's chunks begin + t + jT (j < K) are exactly those of the range congruent to t: the
    // range's end bounds them, U at a time.
    for (unsigned c = static_cast<unsigned>(begin) + tid; c < end; c += static_cast<unsigned>(U) * T)
      gray_aligned_chunks<L, U, CacheHint::Default, CacheHint::Default, F>(a, c, T, end);
    return;
  }
  const GrayVecPlan plan = gray_vec_plan<L, P>(a);
  // The scalar head and tail first, so nothing of theirs stays live across the chunk loop.
  const unsigned long long g = static_cast<unsigned long long>(t.blockIdx.x) * T + tid;
  if (g < static_cast<unsigned long long>(plan.head)) a.out[g] = gray_pixel<L>(a, static_cast<long long>(g));
  if (g < static_cast<unsigned long long>(plan.tail)) {
    const long long e = a.n - plan.tail + static_cast<long long>(g);
    a.out[e] = gray_pixel<L>(a, e);
  }
  // A chunk at a time, with 32-bit chunk numbers (plan.vectors < 2^27).
  const auto chunks = static_cast<unsigned>(plan.vectors);
  const unsigned K = gray_wave_per_thread(chunks, t.gridDim.x, T);
  const unsigned long long begin = static_cast<unsigned long long>(t.blockIdx.x) * K * T;
  if (begin >= chunks) return;
  const unsigned long long stop = begin + K * T;
  const unsigned end = stop < chunks ? static_cast<unsigned>(stop) : chunks;
  for (unsigned c = static_cast<unsigned>(begin) + tid; c < end; c += T) gray_wave_misaligned_chunk<L, F>(a, plan, c);
}

// The rung: rung 4's traits, with a grid from the machine and a per-thread share from the grid.
struct GrayVec16Wave : GrayVec16Base<GrayVec16Wave> {
  static lab::KernelInfo info() {
    lab::KernelInfo i;
    i.id = "gray_vec16_wave";
    i.label = "7. one wave, an equal contiguous share per block";
    i.teaches =
        "The grid is one wave of resident blocks (SMs x blocks per SM at this block size and register count); "
        "each block converts one contiguous range of K * blockDim 16-pixel chunks, K = ceil(chunks / threads "
        "of the wave), so every SM starts at once with the same work and no second wave follows.";
    i.file = "kernels/labs/grayscale/gray_vec16_wave.hpp";
    i.block_rank = 1;
    i.default_block = Dim3{128, 1, 1};
    i.presets = gray_flat_presets();
    i.grid_rule =
        "ceil(chunks / (K * blockDim.x*y*z)), K = ceil(chunks / (SMs x resident blocks per SM x blockDim.x*y*z))";
    return i;
  }
  template <GrayLayout L, class Ctx>
  static BS_HD void body(const Ctx& t, const GrayArgs& a) {
    gray_vec16_wave_thread<L, kWaveInFlight>(t, a);
  }

  // One wave: R = SMs x resident blocks; K from the chunks an image of n pixels can have at most
  // (ceil(n / 16): the plan's body is never more), so the grid covers any alignment's plan, and
  // at least enough threads for the scalar head and tail (each under 48 pixels: GrayVecPlan).
  static LaunchConfig launch_config(GrayLayout, Dim3 block, int width, int height, const DeviceLimits& limits,
                                    const KernelAttributes& kernel) {
    LaunchConfig c;
    c.block = block;
    const unsigned long long n =
        static_cast<unsigned long long>(std::max(width, 0)) * static_cast<unsigned long long>(std::max(height, 0));
    const unsigned long long threads = static_cast<unsigned long long>(block.x) * block.y * block.z;
    if (threads == 0 || n == 0) {
      c.grid = Dim3{0, 0, 0};  // the check names the zero dimension, or that there is no image
      return c;
    }
    const unsigned long long chunks = ceil_div(n, 16ull);
    const mapping::Occupancy occ =
        mapping::compute_occupancy(static_cast<unsigned>(std::min(threads, 0xffffffffull)), 0, kernel, limits);
    const unsigned long long resident =
        static_cast<unsigned long long>(std::max(1u, limits.sm_count)) * std::max(1u, occ.active_blocks_per_sm);
    // Images of 2^31 pixels or more are refused by the check; their grid only has to exist.
    const unsigned long long K =
        gray_wave_per_thread(static_cast<unsigned>(std::min(chunks, 0xffffffffull)), resident, threads);
    const unsigned long long scalar = std::min(n, 48ull);
    const unsigned long long blocks = std::max({ceil_div(chunks, K * threads), ceil_div(scalar, threads), 1ull});
    c.grid = Dim3{static_cast<unsigned>(std::min(blocks, 0xffffffffull)), 1, 1};
    return c;
  }

  // Flat, K chunks per thread T apart, as the body reads K from the grid: the plan of these
  // buffers (aligned ones have no head or tail and n / 16 chunks, as the body's fast path).
  static std::optional<IndexScheme> scheme(GrayLayout l, const GrayArgs& a, const LaunchConfig& c) {
    IndexScheme s = IndexScheme::flat();
    s.vector = vector(l);
    const GrayVecPlan p = plan(l, a);
    s.head = p.head;
    s.tail = p.tail;
    s.per_thread = gray_wave_per_thread(static_cast<unsigned>(p.vectors), c.grid.x, c.block.volume());
    return s;
  }
};

}  // namespace bs::gray
