// blockscope's <cuda_fp16.h> for the CPU simulator: __half and __half2 as in CUDA's
// cuda_fp16.hpp, 2-byte IEEE binary16. Conversions from float round to nearest even (NaN gives
// CUDA's canonical 0x7FFF); to float they are exact. Arithmetic is done in float and rounded
// once, which for +, - and * gives exactly the binary16 result the GPU computes (float holds every
// such product and sum of two halves exactly or rounds it harmlessly: 24 >= 2 * 11 + 2). That bound
// does not cover a fused a * b + c, nor a double: those go through bs_half16_round_odd.
// Included in place of `#include <cuda_fp16.h>` (the line stays, blank), after cpu_half16.h (the
// body both 16-bit types share); it defines the prelude's __host__/__device__ away itself if alone.
#ifndef BS_CPU_CUDA_FP16_H
#define BS_CPU_CUDA_FP16_H
#ifndef __device__
#define __device__
#define __host__
#endif

inline unsigned bs_f32_bits(float f) { unsigned u; __builtin_memcpy(&u, &f, 4); return u; }
inline float bs_f32_from(unsigned u) { float f; __builtin_memcpy(&f, &u, 4); return f; }

inline unsigned short bs_f32_to_f16_rn(float f) {
  const unsigned x = bs_f32_bits(f), sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return 0x7fffu;                  // NaN
  if (ax >= 0x477ff000u) return (unsigned short)(sign | 0x7c00u);  // past 65504 + half an ulp: inf
  if (ax >= 0x38800000u) {                                // a normal half
    const unsigned r = ((ax >> 23) - 112u) << 10 | ((ax >> 13) & 0x3ffu), rem = ax & 0x1fffu;
    return (unsigned short)(sign | (r + (rem > 0x1000u || (rem == 0x1000u && (r & 1u)))));
  }
  const unsigned e = ax >> 23;
  if (e < 102u) return (unsigned short)sign;              // below 2^-25: zero (2^-25 itself ties to 0)
  const unsigned mant = (ax & 0x7fffffu) | 0x800000u, shift = 126u - e;  // subnormal: mant * 2^(e-126) ulps
  const unsigned r = mant >> shift, rem = mant & ((1u << shift) - 1u), half = 1u << (shift - 1u);
  return (unsigned short)(sign | (r + (rem > half || (rem == half && (r & 1u)))));
}
inline float bs_f16_to_f32(unsigned short h) {
  const unsigned s = (unsigned)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1fu) return bs_f32_from(s | 0x7f800000u | (m << 13));
  if (e == 0) {
    const float v = (float)m * 5.9604644775390625e-8f;  // m * 2^-24, exact
    return s ? -v : v;
  }
  return bs_f32_from(s | ((e + 112u) << 23) | (m << 13));
}

BS_HALF16_TYPE(__half, half, bs_f32_to_f16_rn, bs_f16_to_f32, bs_half_bits, 0x7c00u)
typedef __half half;
typedef __half2 half2;

// What CUDA's cuda_fp16.h has beyond what the two 16-bit types share.
inline int __half2int_rz(__half h) { return (int)__half2float(h); }
inline __half hrsqrt(__half a) { return __float2half(1.0f / sqrtf(__half2float(a))); }
inline __half hlog(__half a) { return __float2half(logf(__half2float(a))); }
inline __half hfloor(__half a) { return __float2half(floorf(__half2float(a))); }
inline __half hceil(__half a) { return __float2half(ceilf(__half2float(a))); }
inline __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
inline __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
inline __half2 __lowhigh2highlow(__half2 a) { return __half2(a.y, a.x); }
inline __half2 __hsub2(__half2 a, __half2 b) { return __half2(__hsub(a.x, b.x), __hsub(a.y, b.y)); }
inline __half2 __h2div(__half2 a, __half2 b) { return __half2(__hdiv(a.x, b.x), __hdiv(a.y, b.y)); }
inline __half2 __habs2(__half2 a) { return __half2(__habs(a.x), __habs(a.y)); }
inline __half2 __hneg2(__half2 a) { return __half2(__hneg(a.x), __hneg(a.y)); }
inline __half2 __hmax2(__half2 a, __half2 b) { return __half2(__hmax(a.x, b.x), __hmax(a.y, b.y)); }
inline __half2 __hmin2(__half2 a, __half2 b) { return __half2(__hmin(a.x, b.x), __hmin(a.y, b.y)); }
inline __half2 operator-(const __half2& a, const __half2& b) { return __hsub2(a, b); }
inline __half2 operator/(const __half2& a, const __half2& b) { return __h2div(a, b); }
inline __half2& operator+=(__half2& a, const __half2& b) { return a = __hadd2(a, b); }
inline __half2& operator*=(__half2& a, const __half2& b) { return a = __hmul2(a, b); }
inline bool operator==(const __half2& a, const __half2& b) { return a.x == b.x && a.y == b.y; }
#endif
