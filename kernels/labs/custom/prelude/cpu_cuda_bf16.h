// blockscope's <cuda_bf16.h> for the CPU simulator: __nv_bfloat16 and __nv_bfloat162 as in
// CUDA's cuda_bf16.hpp, the top 16 bits of an IEEE float. From float: round to nearest even
// (NaN gives CUDA's canonical 0x7FFF); to float: exact (the bits shifted up). Arithmetic is done
// in float and rounded once, as CUDA's host path and sm_80's bf16 instructions do.
// Included in place of `#include <cuda_bf16.h>` (the line stays, blank), after cpu_half16.h (the
// body both 16-bit types share).
#ifndef BS_CPU_CUDA_BF16_H
#define BS_CPU_CUDA_BF16_H
#ifndef __device__
#define __device__
#define __host__
#endif

inline unsigned short bs_f32_to_bf16_rn(float f) {
  unsigned u;
  __builtin_memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fffu;  // NaN
  const unsigned r = u >> 16, rem = u & 0xffffu;
  return (unsigned short)(r + (rem > 0x8000u || (rem == 0x8000u && (r & 1u))));  // carries into the exponent, up to inf
}
inline float bs_bf16_to_f32(unsigned short b) {
  const unsigned u = (unsigned)b << 16;
  float f;
  __builtin_memcpy(&f, &u, 4);
  return f;
}

BS_HALF16_TYPE(__nv_bfloat16, bfloat16, bs_f32_to_bf16_rn, bs_bf16_to_f32, bs_bf16_bits, 0x7f80u)
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;
#endif
