// The recording half of the fragment tags (fragment_record.hpp is the API the lab and the views
// use): what a tensor-core rung's TAGGED variant does in its epilogue, on the GPU and in the CPU
// simulator alike. Plain data and BS_HD functions, included by the rung files.
//
// How a tag is recorded from the hardware's result, not from the layout formulas: the tagged
// launch multiplies PROBE operands (make_fragment_probe, fragment_record.hpp) whose product
// encodes each element's place in its block tile,
//   A[i][0] = (i mod 128) + 1,  A[i][1] = 1,  Bt[j][0] = 256,  Bt[j][1] = j mod 256,  other k 0,
// so C[i][j] = 256 ((i mod 128) + 1) + (j mod 256) exactly (BF16 holds the integers up to 256
// exactly, and FP32 accumulation of two products is exact). In the epilogue each thread, for each
// accumulator register it holds, decodes the VALUE in that register back into (row, col) and
// writes tag(thread in block, register index) there. A register the hardware filled differently
// than the model says lands on a different element, and the comparison sees it. Rows and columns
// outside M x N multiply zeros: their registers hold 0, which names no element (the "+ 1").
//
// The operand side (T2 only, fragment_operand_probe): A and Bt carry a 16-bit code in each BF16
// element, 0x4000 | (row mod 128) << 4 | (k mod 16) (Bt: column instead of row), moved bit for bit
// by ldmatrix; at the first k-step each lane decodes the registers it received.
#pragma once
#include <cstdint>

#include "core/hd.hpp"

#if !BS_ON_DEVICE
#include <atomic>
#endif

namespace bs::matmul {

// Who held an element: the thread in its block (warpgroup = thread / 128, warp = thread / 32,
// lane = thread % 32) and the index of the register (accumulator, or operand element) holding it.
// -1: nobody recorded it.
struct FragmentTag {
  std::int16_t thread = -1, reg = -1;
  friend bool operator==(const FragmentTag&, const FragmentTag&) = default;
};
static_assert(sizeof(FragmentTag) == 4);

inline constexpr int kProbeRowPeriod = 128;  // rows encoded mod 128 (no block tile is taller)
inline constexpr int kProbeColPeriod = 256;  // columns mod 256 (no block tile is wider)
inline constexpr int kOperandK = 16;         // the operand record covers one mma k-step

// Where a tagged launch writes; every pointer is device memory on the GPU, host memory in the
// simulator. Null pointers are not written (a launch records C, or the operands, or both).
struct FragmentSink {
  FragmentTag* c = nullptr;      // M x N, row-major
  unsigned* hits = nullptr;      // M x N: how many registers named each element (1 is right)
  int* tile_block = nullptr;     // per block tile (tile_rows x tile_cols), the linear block index
  unsigned* counters = nullptr;  // [0] undecodable values, [1] tiles claimed by two blocks
  int M = 0, N = 0;
  int tile_rows = 0, tile_cols = 0, tiles_n = 0;
  // T2's operands at the first k-step, from block (0, 0): [warp][row in its tile][k] and
  // [warp][k][column in its tile], `tag.reg` the BF16 element index (register reg / 2, half reg % 2).
  FragmentTag* a_fed = nullptr;
  FragmentTag* b_fed = nullptr;
  int warp_rows = 0, warp_cols = 0;
};

// The untagged rungs pass this: no code, no registers.
struct NoFragmentSink {
  static constexpr bool kOn = false;
};
struct TagFragments {
  static constexpr bool kOn = true;
  FragmentSink s;
};

namespace frag_detail {
BS_HD unsigned add(unsigned* p, unsigned v) {
#if BS_ON_DEVICE
  return atomicAdd(p, v);
#else
  return std::atomic_ref<unsigned>(*p).fetch_add(v);
#endif
}
BS_HD int claim(int* p, int v) {  // the old value; v stored where it was -1
#if BS_ON_DEVICE
  return atomicCAS(p, -1, v);
#else
  int expected = -1;
  std::atomic_ref<int>(*p).compare_exchange_strong(expected, v);
  return expected;
#endif
}
BS_HD int wrap(int v, int period) { return ((v % period) + period) % period; }
}  // namespace frag_detail

// Decodes one accumulator value of a thread whose block tile starts at (row_base, col_base) and
// records (thread, reg) at the element it names. `block`: the linear block index.
BS_HD void tag_accumulator(const FragmentSink& s, float v, int row_base, int col_base, int thread, int reg, int block) {
  if (!s.c) return;
  if (!(v >= 0.0f && v < 65536.0f)) {  // NaN, negative or too large: no probe value
    if (s.counters) frag_detail::add(&s.counters[0], 1);
    return;
  }
  const int iv = static_cast<int>(v);
  const int r1 = iv >> 8;
  if (static_cast<float>(iv) != v || r1 < 1 || r1 > kProbeRowPeriod) {
    if (v != 0.0f && s.counters) frag_detail::add(&s.counters[0], 1);  // 0: a row or column past the edge
    return;
  }
  const int row = row_base + frag_detail::wrap(r1 - 1 - row_base, kProbeRowPeriod);
  const int col = col_base + frag_detail::wrap((iv & 255) - col_base, kProbeColPeriod);
  if (row >= s.M || col >= s.N) {
    if (s.counters) frag_detail::add(&s.counters[0], 1);
    return;
  }
  const long long e = static_cast<long long>(row) * s.N + col;
  s.c[e] = FragmentTag{static_cast<std::int16_t>(thread), static_cast<std::int16_t>(reg)};
  if (s.hits) frag_detail::add(&s.hits[e], 1);
  if (s.tile_block && s.tile_rows > 0 && s.tile_cols > 0) {
    const int t = (row / s.tile_rows) * s.tiles_n + col / s.tile_cols;
    const int old = frag_detail::claim(&s.tile_block[t], block);
    if (old != -1 && old != block && s.counters) frag_detail::add(&s.counters[1], 1);
  }
}

// The probe's operand code of element (i, k) (i: a row of A or of Bt) and its inverse.
BS_HD std::uint16_t operand_code(int i, int k) {
  return static_cast<std::uint16_t>(0x4000 | (frag_detail::wrap(i, kProbeRowPeriod) << 4) | (k & 15));
}
// True where `bits` is a code: *i = row (mod 128), *k = k (mod 16).
BS_HD bool decode_operand(std::uint16_t bits, int* i, int* k) {
  if ((bits & 0xf800u) != 0x4000u) return false;
  *i = (bits >> 4) & 127;
  *k = bits & 15;
  return true;
}

// One received operand element of warp `warp`: A (a_side) row i / Bt row (column of C) i, k;
// `first`: the warp tile's first row (column) in the block tile.
BS_HD void tag_operand(const FragmentSink& s, bool a_side, std::uint16_t bits, int first, int warp, int thread,
                       int reg) {
  FragmentTag* out = a_side ? s.a_fed : s.b_fed;
  if (!out || bits == 0) return;  // 0: past the matrix's edge
  int i = 0, k = 0;
  const int extent = a_side ? s.warp_rows : s.warp_cols;
  if (!decode_operand(bits, &i, &k) || frag_detail::wrap(i - first, kProbeRowPeriod) >= extent) {
    if (s.counters) frag_detail::add(&s.counters[0], 1);
    return;
  }
  const int local = frag_detail::wrap(i - first, kProbeRowPeriod);
  const long long e = a_side ? (static_cast<long long>(warp) * extent + local) * kOperandK + k
                             : (static_cast<long long>(warp) * kOperandK + k) * extent + local;
  out[e] = FragmentTag{static_cast<std::int16_t>(thread), static_cast<std::int16_t>(reg)};
}

}  // namespace bs::matmul
