// Rung 4: wide loads and stores: 16-byte accesses, with scalar heads and tails for any width and
// any alignment.
//
//   planar: thread g converts pixels [head + 16g, head + 16g + 16): one 16-byte load from each of
//           the R, G and B planes (3 x LDG.128) and one 16-byte store (STG.128)
//   RGBA:   thread g converts pixels [head + 4g, head + 4g + 4): one 16-byte load of four RGBA
//           words (LDG.128) and one 4-byte store (STG.32)
//   the first `head` and last `tail` pixels (fewer than 2 chunks each): one per thread, byte loads
//
// What it changes from rung 3: the access width. Rung 3 moves 1 byte per lane per instruction, so
// a warp's load instruction carries 32 bytes; here each carries 512 bytes (16 per lane), and a
// thread's 16 or 4 pixels come from one access per stream instead of one per pixel and channel.
// A chunk is P consecutive pixels (P = 16 planar, 4 RGBA); thread g owns chunk g.
//
// Why it should help: the memory system serves requests, not bytes. With one byte per lane the
// load/store unit and L1 handle 16x more instructions per byte than with 16 per lane, and a warp
// needs 16x as many in flight for the same bytes in flight. At 16 bytes per lane, 3 loads per
// thread already hold 48 bytes in flight (RGBA: 16), so full occupancy keeps ~100 KB per SM in
// flight, more than Little's law asks for.
//
// Why RGBA uses 4-pixel chunks: 16 pixels of RGBA are 64 bytes, four 16-byte loads per lane
// spaced 64 bytes apart, so each warp instruction would touch every other half-sector and rely on
// L1 to merge them. With 4-pixel chunks a warp's LDG.128 reads 512 contiguous bytes and its
// STG.32 writes 128 contiguous bytes: both perfectly coalesced (the tuning run measured both;
// NOTES.md).
//
// Alignment (GrayVecPlan in gray_common.hpp): a 16-byte access must be 16-byte aligned. The body
// is aligned on the output (every store aligned); each source stream then sits at its own fixed
// misalignment s, because the planes of an n-pixel image start at 0, n, 2n. An aligned stream is
// read with one aligned load per 16 bytes; a misaligned one with one more aligned load per chunk
// and a funnel shift that moves its bytes into place, so every access stays 16 bytes wide. The
// pixels before the first aligned output byte (head) and after the last whole chunk that keeps
// every load inside its stream (tail) are done one per thread with byte loads.
//
// Index scheme: Flat, vector P, per_thread 1, head and tail from GrayVecPlan.
// Measured (H200, 8192 x 8192): see NOTES.md ("Measured").
#pragma once
#include "core/exec.hpp"
#include "labs/grayscale/gray_common.hpp"

namespace bs::gray {

// Pixels per chunk (one vector access of the output) for each layout.
template <GrayLayout L>
inline constexpr int kVecPixels = L == GrayLayout::Planar ? 16 : 4;

// Converts K chunks of P pixels, chunks c0, c0 + stride, ..., those below plan.vectors: every
// load of every chunk and stream first (so they are all in flight together), then re-alignment,
// arithmetic and one aligned store per chunk. Shared by the vector rungs.
template <GrayLayout L, int P, int K, CacheHint H, class F = GrayFormula>
BS_HD void gray_vec_chunks(const GrayArgs& a, const GrayVecPlan& plan, long long c0,
                           long long stride) {
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
    std::uint32_t out[P / 4] = {};
    BS_UNROLL
    for (int p = 0; p < P; ++p) {
      std::uint32_t v;
      if constexpr (L == GrayLayout::Planar) {
        v = F::apply(byte_of(words[0][p / 4], p % 4), byte_of(words[1][p / 4], p % 4),
                     byte_of(words[2][p / 4], p % 4));
      } else {
        v = F::apply(byte_of(words[0][p], 0), byte_of(words[0][p], 1), byte_of(words[0][p], 2));
      }
      out[p / 4] |= v << (8 * (p % 4));
    }
    if constexpr (P == 16)
      store16<H>(a.out + px, Vec16{{out[0], out[1], out[2], out[3]}});
    else
      store4<H>(a.out + px, out[0]);
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

}  // namespace bs::gray
