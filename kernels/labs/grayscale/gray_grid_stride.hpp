// Rung 5: a grid-stride loop over the 16-byte chunks, with a grid sized from the device.
//
//   G = gridDim.x * T threads; thread g (block b, thread t) does, pass after pass,
//     chunks c = pass * G*K + b*T*K + j*T + t,  j = 0..K-1,  while c < chunks
//   and the scalar head and tail pixels e = g, g + G, ... (one per thread when G covers them)
//
// What it changes from rung 4: the grid no longer follows the image. The launcher sizes it from
// the device (SMs x blocks resident per SM, from the occupancy calculator), so exactly one wave
// of blocks runs and each thread loops over the image, K chunks per pass (all K chunks' loads in
// flight together, as rung 3 did with pixels). Any grid covers any image, including one block.
//
// Why it should help (or why production kernels use it even when it does not): block launch and
// retirement happen once per resident slot instead of once per 256 x 16 pixels, the per-thread
// setup (the alignment plan, index arithmetic) is paid once per thread instead of once per chunk,
// and the one-wave grid has no partial last wave. What it can cost: with a single wave, SMs that
// finish their share early idle while the slowest finishes (the tail effect), and a thread's
// chunks are a whole grid apart, so a block streams from G*16 bytes further on at each pass.
//
// Index scheme: Flat, vector P (16 planar, 4 RGBA), per_thread K, grid_stride, head and tail from
// GrayVecPlan; head and tail pixel e belongs to thread e mod G (see core/index_scheme.hpp).
// Measured (H200, 8192 x 8192): see NOTES.md ("Measured").
#pragma once
#include "labs/grayscale/gray_vec16.hpp"

namespace bs::gray {

inline constexpr int kGridStrideChunks = 2;  // K: chunks per thread per pass

// P (pixels per chunk) and F (the formula's spelling) are the tuning harness's knobs.
template <GrayLayout L, int K, CacheHint H, int P = kVecPixels<L>, class F = GrayFormula,
          class Ctx>
BS_HD void gray_grid_stride_loop(const Ctx& t, const GrayArgs& a) {
  const GrayVecPlan plan = gray_vec_plan<L, P>(a);
  const long long T = static_cast<long long>(t.blockDim.x) * t.blockDim.y * t.blockDim.z;
  const long long tid = linear_thread_in_block(t);
  const long long G = static_cast<long long>(t.gridDim.x) * T;
  const long long g = static_cast<long long>(t.blockIdx.x) * T + tid;
  for (long long c0 = static_cast<long long>(t.blockIdx.x) * T * K + tid; c0 < plan.vectors;
       c0 += G * K)
    gray_vec_chunks<L, P, K, H, F>(a, plan, c0, T);
  for (long long e = g; e < plan.head; e += G) a.out[e] = gray_pixel<L>(a, e);
  for (long long e = g; e < plan.tail; e += G) {
    const long long i = a.n - plan.tail + e;
    a.out[i] = gray_pixel<L>(a, i);
  }
}

template <GrayLayout L, class Ctx>
BS_HD void gray_grid_stride_thread(const Ctx& t, const GrayArgs& a) {
  gray_grid_stride_loop<L, kGridStrideChunks, CacheHint::Default>(t, a);
}

}  // namespace bs::gray
