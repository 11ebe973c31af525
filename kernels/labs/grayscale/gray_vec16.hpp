// Rung 4: wide loads and stores: 16-byte accesses, with scalar heads and tails for any width and
// any alignment.
//
//   thread g converts the 16 pixels [head + 16g, head + 16g + 16):
//     planar: one 16-byte load from each of the R, G and B planes (3 x LDG.128)
//     RGBA:   four 16-byte loads of its 16 RGBA words (4 x LDG.128, 64 contiguous bytes)
//     and one 16-byte store of its 16 gray bytes (STG.128)
//   the first `head` and last `tail` pixels (fewer than 32 each): one per thread, byte loads
//
// What it changes from rung 3: the access width. Rung 3 moves 1 byte per lane per instruction, so
// a warp's load instruction carries 32 bytes; here each carries 512 bytes (16 per lane), and a
// thread's 16 pixels come from 3 (planar) or 4 (RGBA) loads and 1 store instead of 64 or 80 byte
// accesses. A chunk is 16 consecutive pixels; thread g owns chunk g.
//
// Why it should help: the memory system serves requests, not bytes. With one byte per lane the
// load/store unit and L1 handle 16x more instructions per byte than with 16 per lane, and a warp
// needs 16x as many of them in flight for the same bytes in flight. At 16 bytes per lane a thread
// holds 48 (planar) or 64 (RGBA) bytes in flight, so full occupancy keeps ~100 KB per SM in flight,
// more than Little's law asks for (NOTES.md).
//
// RGBA with 4-pixel chunks (one LDG.128 and one STG.32 per thread, every warp access perfectly
// contiguous) was tried first and measured 85% of copy against 103% for 16-pixel chunks: the
// four loads of a 16-pixel chunk land 64 bytes apart per lane, but L1 merges the half-sectors,
// while 4-pixel chunks pay each thread's fixed work (index and alignment arithmetic, guards) for
// only 20 bytes moved. Work per thread, not coalescing, decided it (NOTES.md, run 1).
//
// Alignment (GrayVecPlan in gray_common.hpp): a 16-byte access must be 16-byte aligned. The body
// is aligned on the output (every store aligned); each source stream then sits at its own fixed
// misalignment s, because the planes of an n-pixel image start at 0, n, 2n. An aligned stream is
// read with one aligned load per 16 bytes; a misaligned one with one more aligned load per chunk
// and a funnel shift that moves its bytes into place, so every access stays 16 bytes wide (8191^2,
// whose G and B planes sit 1 and 2 bytes off, measured 98-99.5% of copy). The pixels before the first
// aligned output byte (head) and after the last whole chunk that keeps every load inside its
// stream (tail) are done one per thread with byte loads.
//
// Index scheme: Flat, vector 16, per_thread 1, head and tail from GrayVecPlan.
// Measured (H200, 8192 x 8192, share of a same-bytes device-to-device copy in the same run):
// planar 4.15 TB/s = 101.7%, RGBA 4.13 TB/s = 101.4%; 1.32x and 1.12x CUB's DeviceTransform. The
// fastest rung in both layouts (NOTES.md, run 2).
#pragma once
#include "core/exec.hpp"
#include "labs/grayscale/gray_common.hpp"
#include "labs/grayscale/gray_rung.hpp"

namespace bs::gray {

// Pixels per chunk (one 16-byte store of the output), in both layouts. The harness also tries 4
// (one STG.32 per chunk) for RGBA.
template <GrayLayout L>
inline constexpr int kVecPixels = 16;

// The P gray bytes of one chunk, packed little-endian into P/4 words, from each source stream's
// 4*NW words of it (already in place: aligned loads, or re-aligned ones). Shared by the vector
// rungs.
template <GrayLayout L, int P, class F, int NW>
BS_HD void gray_convert_chunk(const std::uint32_t (&words)[GrayStreams<L>::kCount][4 * NW],
                              std::uint32_t (&out)[P / 4]) {
  BS_UNROLL
  for (int q = 0; q < P / 4; ++q) out[q] = 0;
  BS_UNROLL
  for (int p = 0; p < P; ++p) {
    std::uint32_t v;
    if constexpr (L == GrayLayout::Planar) {
      v = F::apply(byte_of(words[0][p / 4], p % 4), byte_of(words[1][p / 4], p % 4), byte_of(words[2][p / 4], p % 4));
    } else {
      v = F::apply(byte_of(words[0][p], 0), byte_of(words[0][p], 1), byte_of(words[0][p], 2));
    }
    out[p / 4] |= v << (8 * (p % 4));
  }
}

// Converts K chunks of P pixels, chunks c0, c0 + stride, ..., those below plan.vectors: every
// load of every chunk and stream first (so they are all in flight together), then re-alignment,
// arithmetic and one aligned store per chunk. Shared by the vector rungs.
template <GrayLayout L, int P, int K, CacheHint H, class F = GrayFormula>
BS_HD void gray_vec_chunks(const GrayArgs& a, const GrayVecPlan& plan, long long c0, long long stride) {
  using S = GrayStreams<L>;
  constexpr int k = S::kBytesPerPixel;
  constexpr int NW = k * P / 16;  // aligned 16-byte words per chunk and stream
  static_assert(P == 4 || P == 16, "an output chunk is one STG.32 or one STG.128");
  std::uint32_t raw[S::kCount][K][4 * NW + 4];
  BS_UNROLL
  for (int j = 0; j < K; ++j) {
    const long long c = c0 + j * stride;
    if (c < plan.vectors) {
      const long long px = plan.head + c * P;
      BS_UNROLL
      for (int s = 0; s < S::kCount; ++s)
        load_raw<NW, H>(S::base(a, s) + k * px - plan.shift[s], plan.shift[s], raw[s][j]);
    }
  }
  BS_UNROLL
  for (int j = 0; j < K; ++j) {
    const long long c = c0 + j * stride;
    if (c >= plan.vectors) continue;
    const long long px = plan.head + c * P;
    std::uint32_t words[S::kCount][4 * NW];
    BS_UNROLL
    for (int s = 0; s < S::kCount; ++s) realign<NW>(raw[s][j], plan.shift[s], words[s]);
    std::uint32_t out[P / 4];
    gray_convert_chunk<L, P, F, NW>(words, out);
    if constexpr (P == 16) store16<H>(a.out + px, Vec16{{out[0], out[1], out[2], out[3]}});
    else store4<H>(a.out + px, out[0]);
  }
}

template <GrayLayout L, class Ctx>
BS_HD void gray_vec16_thread(const Ctx& t, const GrayArgs& a) {
  constexpr int P = kVecPixels<L>;
  const GrayVecPlan plan = gray_vec_plan<L, P>(a);
  const long long T = static_cast<long long>(t.blockDim.x) * t.blockDim.y * t.blockDim.z;
  const long long g = static_cast<long long>(t.blockIdx.x) * T + linear_thread_in_block(t);
  gray_vec_chunks<L, P, 1, CacheHint::Default>(a, plan, g, T);
  if (g < plan.head) a.out[g] = gray_pixel<L>(a, g);
  if (g < plan.tail) {
    const long long e = a.n - plan.tail + g;
    a.out[e] = gray_pixel<L>(a, e);
  }
}

// What the two 16-byte rungs (this one and gray_grid_stride.hpp) share in their traits: P pixels
// per access and the plan's scalar head and tail, which follow where the buffers start.
template <class R>
struct GrayVec16Base : GrayRungBase<R> {
  static unsigned vector(GrayLayout l) {
    return l == GrayLayout::Planar ? kVecPixels<GrayLayout::Planar> : kVecPixels<GrayLayout::Rgba>;
  }
  static GrayVecPlan plan(GrayLayout l, const GrayArgs& a) {
    return l == GrayLayout::Planar ? gray_vec_plan<GrayLayout::Planar, kVecPixels<GrayLayout::Planar>>(a)
                                   : gray_vec_plan<GrayLayout::Rgba, kVecPixels<GrayLayout::Rgba>>(a);
  }
};

// The rung: flat, 16 pixels per access, head and tail from the plan, grid ceil(n / (16T)).
struct GrayVec16 : GrayVec16Base<GrayVec16> {
  static lab::KernelInfo info() {
    lab::KernelInfo i;
    i.id = "gray_vec16";
    i.label = "4. 16-byte loads and stores";
    i.teaches =
        "Each thread converts 16 pixels with 16-byte accesses (aligned on the output, misaligned planes "
        "funnel-shifted), with a scalar head and tail for any width and alignment.";
    i.file = "kernels/labs/grayscale/gray_vec16.hpp";
    i.block_rank = 1;
    i.presets = gray_flat_presets();
    i.grid_rule = "ceil(n / (16 * blockDim.x*y*z))";
    return i;
  }
  template <GrayLayout L, class Ctx>
  static BS_HD void body(const Ctx& t, const GrayArgs& a) {
    gray_vec16_thread<L>(t, a);
  }
};

}  // namespace bs::gray
