// Rung 3: several pixels per thread (instruction-level parallelism, fewer blocks).
//
//   T = threads per block; thread t of block b owns pixels  b*T*K + j*T + t,  j = 0..K-1  (K = 4)
//   load all K pixels' channels first, then compute and store them
//
// What it changes from the lecture's 1D kernel: each thread owns K pixels, T apart, so one warp
// instruction still touches 32 consecutive bytes (coalesced, as before), and the grid has K times
// fewer blocks. All 3K byte loads (three channels per pixel, in either layout) are issued before
// the first is used.
//
// Why it should help: a memory-bound kernel runs at (bytes in flight) / (memory latency) (Little's
// law). The lecture's thread has 3 one-byte loads in flight and then waits about a microsecond:
// with 2048 threads per SM that is ~6 KB per SM in flight, where the H200 needs ~30 KB per SM to
// keep 4.8 TB/s busy. K independent pixels put K times as many loads in flight per thread, without
// more threads. Fewer blocks also means less block launch and retirement work per byte.
//
// What it does not change: every access is still one byte per lane, so a warp moves 32 bytes per
// load instruction; the next rung widens that to 16 bytes per lane.
//
// Index scheme: Flat, vector 1, per_thread K (IndexScheme's slot j is the thread's j-th pixel).
// Measured (H200, 8192 x 8192, share of a same-bytes copy in the same run): planar 2.80 TB/s =
// 69%, RGBA 3.30 TB/s = 81% (from 34% / 44%). K = 4 is the measured sweet spot: K = 2 reached
// 53%, K = 8 61% planar (more registers, fewer resident threads, the same bytes in flight).
#pragma once
#include "core/exec.hpp"
#include "labs/grayscale/gray_common.hpp"
#include "labs/grayscale/gray_rung.hpp"

namespace bs::gray {

inline constexpr int kIlpPixels = 4;

template <GrayLayout L, int K = kIlpPixels, class Ctx>
BS_HD void gray_ilp_thread(const Ctx& t, const GrayArgs& a) {
  const long long T = static_cast<long long>(t.blockDim.x) * t.blockDim.y * t.blockDim.z;
  const long long first = static_cast<long long>(t.blockIdx.x) * T * K + linear_thread_in_block(t);
  std::uint8_t r[K] = {}, g[K] = {}, b[K] = {};
  BS_UNROLL
  for (int j = 0; j < K; ++j) {
    const long long i = first + j * T;
    if (i < a.n) {
      if constexpr (L == GrayLayout::Planar) {
        r[j] = a.planar_rgb[i];
        g[j] = a.planar_rgb[i + a.n];
        b[j] = a.planar_rgb[i + 2ll * a.n];
      } else {
        r[j] = a.rgba[4 * i];
        g[j] = a.rgba[4 * i + 1];
        b[j] = a.rgba[4 * i + 2];
      }
    }
  }
  BS_UNROLL
  for (int j = 0; j < K; ++j) {
    const long long i = first + j * T;
    if (i < a.n) a.out[i] = gray_value(r[j], g[j], b[j]);
  }
}

template <GrayLayout L, class Ctx>
BS_HD void gray_ilp4_thread(const Ctx& t, const GrayArgs& a) {
  gray_ilp_thread<L, kIlpPixels>(t, a);
}

// The rung: flat, K = 4 pixels a thread (IndexScheme::per_thread), grid ceil(n / (4T)).
struct GrayIlp4 : GrayRungBase<GrayIlp4> {
  static constexpr unsigned kPerThread = kIlpPixels;
  static lab::KernelInfo info() {
    lab::KernelInfo i;
    i.id = "gray_ilp4";
    i.label = "3. 4 pixels per thread";
    i.teaches =
        "Each thread loads 4 pixels (T apart, still coalesced) before using any: 4x the bytes in flight "
        "per thread and 4x fewer blocks.";
    i.file = "kernels/labs/grayscale/gray_ilp4.hpp";
    i.block_rank = 1;
    i.presets = gray_flat_presets();
    i.grid_rule = "ceil(n / (4 * blockDim.x*y*z))";
    return i;
  }
  template <GrayLayout L, class Ctx>
  static BS_HD void body(const Ctx& t, const GrayArgs& a) {
    gray_ilp4_thread<L>(t, a);
  }
};

}  // namespace bs::gray
