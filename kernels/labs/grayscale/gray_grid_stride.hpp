// Rung 5: a grid-stride loop over the 16-pixel chunks, with a grid sized from the device.
//
//   G = gridDim.x * T threads; thread g (block b, thread t) does, pass after pass,
//     chunks c = pass * G + b*T + t  while c < chunks        (rung 4's body for each)
//   and the scalar head and tail pixels e = g, g + G, ... (one per thread when G covers them)
//
// What it changes from rung 4: the grid no longer follows the image. The launcher sizes it from
// the device (SMs x blocks resident per SM, from the occupancy calculator), so exactly one wave
// of blocks runs and each thread loops over the image. Any grid covers any image, including a
// single block: the form production kernels use, since the grid is bounded whatever the input.
//
// Why it should help (or why production kernels use it even when it does not): block launch and
// retirement happen once per resident slot instead of once per 256 x 16 pixels, the per-thread
// setup (the alignment plan, index arithmetic) is paid once per thread instead of once per chunk,
// and the one-wave grid has no partial last wave. What it costs: the loop keeps its state live, so
// the thread needs more registers (40 against rung 4's 32: 6 blocks of 256 per SM instead of 8),
// and with a single wave SMs that finish their share early idle while the slowest finishes.
// Measured (H200, 8192 x 8192, share of a same-bytes copy): planar 3.91 TB/s = 95.9%, RGBA
// 3.80 TB/s = 93.3%, a few percent behind rung 4 (101%): on this GPU many short blocks reach the
// ceiling at least as well as one persistent wave; the loop's value is the bounded grid, not
// speed. Neither more waves nor fewer registers closed the gap (NOTES.md, run 2). More chunks per pass (K = 2, 4: loads
// of several chunks in flight, as rung 3 did with pixels) measured no better, and costs registers (64 and 157 for
// planar).
//
// Index scheme: Flat, vector 16, per_thread K (1), grid_stride, head and tail from GrayVecPlan;
// head and tail pixel e belongs to thread e mod G (see core/index_scheme.hpp).
#pragma once
#include "labs/grayscale/gray_vec16.hpp"
#include "labs/grayscale/gray_rung.hpp"

namespace bs::gray {

inline constexpr int kGridStrideChunks = 1;  // K: chunks per thread per pass (NOTES.md: K = 1 won)

// P (pixels per chunk), K (chunks per pass) and F (the formula's spelling) are the tuning
// harness's knobs; the rung is K = 1, P = 16.
template <GrayLayout L, int K, CacheHint H, int P = kVecPixels<L>, class F = GrayFormula, class Ctx>
BS_HD void gray_grid_stride_loop(const Ctx& t, const GrayArgs& a) {
  const GrayVecPlan plan = gray_vec_plan<L, P>(a);
  const long long T = static_cast<long long>(t.blockDim.x) * t.blockDim.y * t.blockDim.z;
  const long long tid = linear_thread_in_block(t);
  const long long G = static_cast<long long>(t.gridDim.x) * T;
  const long long g = static_cast<long long>(t.blockIdx.x) * T + tid;
  // The scalar head and tail first, so nothing of theirs stays live across the main loop.
  for (long long e = g; e < plan.head; e += G) a.out[e] = gray_pixel<L>(a, e);
  for (long long e = g; e < plan.tail; e += G) {
    const long long i = a.n - plan.tail + e;
    a.out[i] = gray_pixel<L>(a, i);
  }
  // Chunk counters in 32 bits (fewer registers live across the loop: 40 instead of 48 for the
  // planar body, so 6 blocks of 256 fit per SM instead of 5). Safe: chunks < 2^31 / P, the first
  // chunk is checked in 64 bits, and the step is clamped to the chunk count, so c0 + step never
  // wraps.
  const long long first = static_cast<long long>(t.blockIdx.x) * T * K + tid;
  if (first >= plan.vectors) return;
  const unsigned vectors = static_cast<unsigned>(plan.vectors);
  const unsigned step = static_cast<unsigned>(G * K < plan.vectors ? G * K : plan.vectors);
  for (unsigned c0 = static_cast<unsigned>(first); c0 < vectors; c0 += step)
    gray_vec_chunks<L, P, K, H, F>(a, plan, c0, T);
}

template <GrayLayout L, class Ctx>
BS_HD void gray_grid_stride_thread(const Ctx& t, const GrayArgs& a) {
  gray_grid_stride_loop<L, kGridStrideChunks, CacheHint::Default>(t, a);
}

// The rung: rung 4's traits, K chunks a pass, a grid of one wave of resident blocks (any fixed
// grid accepted: it loops).
struct GrayGridStride : GrayVec16Base<GrayGridStride> {
  static constexpr unsigned kPerThread = kGridStrideChunks;
  static constexpr bool kGridStride = true;
  static constexpr std::string_view kUserTemplate = "gray_grid_stride";
  static lab::KernelInfo info() {
    lab::KernelInfo i;
    i.id = "gray_grid_stride";
    i.label = "5. grid-stride loop, grid from the device";
    i.teaches =
        "One wave of blocks (SMs x resident blocks) loops over the image in 16-pixel chunks: the form "
        "production kernels use, with a grid that no longer depends on the image.";
    i.file = "kernels/labs/grayscale/gray_grid_stride.hpp";
    i.block_rank = 1;
    i.presets = gray_flat_presets();
    i.grid_rule = "min(SMs x resident blocks per SM, blocks the image needs)";
    return i;
  }
  template <GrayLayout L, class Ctx>
  static BS_HD void body(const Ctx& t, const GrayArgs& a) {
    gray_grid_stride_thread<L>(t, a);
  }
};

}  // namespace bs::gray
