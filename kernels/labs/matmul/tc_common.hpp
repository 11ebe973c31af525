// What every tensor-core rung shares: BF16 numbers, the BF16 problem's buffers, and the fragment
// layouts of the PTX ISA (which lane holds which element of an mma tile). Host and device alike:
// the CPU simulator, the tests and the views use the same layout functions the kernels' index
// arithmetic follows.
//
// The BF16 problem (precision = bf16): C = A * B with A and B rounded to BF16 once, by the lab,
// when the matrices are generated, and C in FP32 (FP32 accumulation). Layouts, chosen for the
// tensor cores' K-major operands and for TMA, which needs 16-byte row pitches:
//   A   M x ld row-major BF16, ld = K rounded up to a multiple of 8, the pad columns zero
//   Bt  N x ld row-major BF16: B transposed (column j of B is row j of Bt, "B stored K-major")
//   C   M x N row-major FP32
// So any M, N, K runs: a 16-byte chunk of a row is either wholly inside the padded row or wholly
// past it, and the pad multiplies as zero.
#pragma once
#include <cstdint>
#include <cstring>

#include "core/hd.hpp"

namespace bs::matmul {

// ---------------------------------------------------------------------------------------------
// BF16: the top 16 bits of an FP32 number (8 exponent bits, 7 stored mantissa bits).
// ---------------------------------------------------------------------------------------------
struct Bf16 {
  std::uint16_t bits = 0;
};
static_assert(sizeof(Bf16) == 2);

BS_HD float bf16_to_float(Bf16 v) {
  const std::uint32_t u = static_cast<std::uint32_t>(v.bits) << 16;
  float f;
#if BS_ON_DEVICE
  f = __uint_as_float(u);
#else
  std::memcpy(&f, &u, sizeof f);
#endif
  return f;
}

// Round to nearest, ties to even, as __float2bfloat16_rn does; NaN stays NaN.
BS_HD Bf16 float_to_bf16(float f) {
  std::uint32_t u;
#if BS_ON_DEVICE
  u = __float_as_uint(f);
#else
  std::memcpy(&u, &f, sizeof u);
#endif
  if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu) != 0)
    return Bf16{static_cast<std::uint16_t>((u >> 16) | 0x0040u)};  // quiet NaN
  const std::uint32_t rounding = 0x7fffu + ((u >> 16) & 1u);
  return Bf16{static_cast<std::uint16_t>((u + rounding) >> 16)};
}

// Two BF16 values in one 32-bit register, the lower-indexed element in the low half: the form
// in which mma and ldmatrix move them.
BS_HD std::uint32_t pack_bf16x2(Bf16 lo, Bf16 hi) {
  return static_cast<std::uint32_t>(lo.bits) | (static_cast<std::uint32_t>(hi.bits) << 16);
}
BS_HD Bf16 bf16_lo(std::uint32_t r) { return Bf16{static_cast<std::uint16_t>(r & 0xffffu)}; }
BS_HD Bf16 bf16_hi(std::uint32_t r) { return Bf16{static_cast<std::uint16_t>(r >> 16)}; }

// The padded row length of the BF16 operands (see above).
BS_HD int bf16_row_pitch(int K) { return (K + 7) / 8 * 8; }

struct Bf16Args {
  const Bf16* A;   // M x ld, row-major
  const Bf16* Bt;  // N x ld, row-major (B transposed)
  float* C;        // M x N, row-major
  int M, N, K, ld;
  // T7 (tc7_tma_store.hpp) only, filled in by its launcher: the TMA descriptor of C (a
  // CUtensorMap in the kernel's parameters; null where C cannot be stored by TMA), and the
  // handshake of the tiles it splits across clusters (split: whether to; flags: one word per
  // split tile and consumer; epoch: this launch's value of a finished flag).
  const void* c_map = nullptr;
  unsigned* flags = nullptr;
  unsigned epoch = 0;
  int split = 0;
};

// ---------------------------------------------------------------------------------------------
// Fragment layouts (PTX ISA, "Matrix fragments for mma.m16n8k16" with .bf16, and "Register
// fragments" of wgmma.mma_async .m64nNk16 with an .f32 accumulator). In every one of them a warp's
// lane l is split into groupID g = l / 4 and threadID_in_group t = l % 4.
// ---------------------------------------------------------------------------------------------
struct FragCoord {
  int row, col;
};

// A (16 x 16, row-major): 4 registers of 2 BF16 each, 8 elements a lane; element e = 0..7 is
// register e / 2, half e % 2.
BS_HD FragCoord mma_a_coord(int lane, int e) {
  const int g = lane >> 2, t = lane & 3, reg = e >> 1, half = e & 1;
  return {g + 8 * (reg & 1), 2 * t + half + 8 * (reg >> 1)};
}
// B (16 x 8, K x N): 2 registers, 4 elements a lane, {row = k, col = n}.
BS_HD FragCoord mma_b_coord(int lane, int e) {
  const int g = lane >> 2, t = lane & 3, reg = e >> 1, half = e & 1;
  return {2 * t + half + 8 * reg, g};
}
// C and D (16 x 8, FP32): 4 registers a lane.
BS_HD FragCoord mma_c_coord(int lane, int e) {
  const int g = lane >> 2, t = lane & 3;
  return {g + 8 * (e >> 1), 2 * t + (e & 1)};
}
// wgmma m64nNk16 accumulator: thread `thread` (0..127) of the warpgroup holds N / 2 FP32
// registers; register r covers 8-column chunk r / 4 with the C layout of mma.m16n8 inside it,
// warp w of the group owning rows 16 w .. 16 w + 15.
BS_HD FragCoord wgmma_d_coord(int thread, int r) {
  const int warp = thread >> 5, lane = thread & 31;
  const FragCoord c = mma_c_coord(lane, r & 3);
  return {16 * warp + c.row, 8 * (r >> 2) + c.col};
}

// ldmatrix .m8n8 .x4 .b16 (no .trans): lane l gives the address of row l % 8 of matrix l / 8;
// afterwards register q of lane l holds row l / 4 of matrix q, elements 2 (l % 4) and 2 (l % 4) + 1.
BS_HD int ldmatrix_source_lane(int lane, int q) { return 8 * q + (lane >> 2); }
BS_HD int ldmatrix_first_element(int lane) { return 2 * (lane & 3); }

}  // namespace bs::matmul
