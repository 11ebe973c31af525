// blockscope's <cuda_bf16.h> for the CPU simulator: __nv_bfloat16 and __nv_bfloat162 as in
// CUDA's cuda_bf16.hpp, the top 16 bits of an IEEE float. From float: round to nearest even
// (NaN gives CUDA's canonical 0x7FFF); to float: exact (the bits shifted up). Arithmetic is done
// in float and rounded once, as CUDA's host path and sm_80's bf16 instructions do.
// Included in place of `#include <cuda_bf16.h>` (the line stays, blank); self-contained.
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

struct __nv_bfloat16_raw { unsigned short x; };
struct __nv_bfloat162_raw { unsigned short x, y; };

struct __nv_bfloat16 {
  unsigned short __x;
  __nv_bfloat16() = default;
  __nv_bfloat16(const __nv_bfloat16_raw& r) : __x(r.x) {}
  __nv_bfloat16(float f) : __x(bs_f32_to_bf16_rn(f)) {}
  __nv_bfloat16(double f) : __x(bs_f32_to_bf16_rn((float)f)) {}
  __nv_bfloat16(int v) : __x(bs_f32_to_bf16_rn((float)v)) {}
  __nv_bfloat16(unsigned v) : __x(bs_f32_to_bf16_rn((float)v)) {}
  __nv_bfloat16(long long v) : __x(bs_f32_to_bf16_rn((float)v)) {}
  __nv_bfloat16(unsigned long long v) : __x(bs_f32_to_bf16_rn((float)v)) {}
  __nv_bfloat16(short v) : __x(bs_f32_to_bf16_rn((float)v)) {}
  __nv_bfloat16(unsigned short v) : __x(bs_f32_to_bf16_rn((float)v)) {}
  operator float() const { return bs_bf16_to_f32(__x); }
  operator __nv_bfloat16_raw() const { return __nv_bfloat16_raw{__x}; }
  __nv_bfloat16& operator=(const __nv_bfloat16_raw& r) { __x = r.x; return *this; }
};
typedef __nv_bfloat16 nv_bfloat16;

inline __nv_bfloat16 bs_bf16_bits(unsigned short b) { __nv_bfloat16 h; h.__x = b; return h; }
inline float __bfloat162float(__nv_bfloat16 h) { return bs_bf16_to_f32(h.__x); }
inline __nv_bfloat16 __float2bfloat16(float f) { return bs_bf16_bits(bs_f32_to_bf16_rn(f)); }
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __float2bfloat16(f); }
inline __nv_bfloat16 __double2bfloat16(double d) { return __float2bfloat16((float)d); }
inline __nv_bfloat16 __int2bfloat16_rn(int i) { return __float2bfloat16((float)i); }
inline int __bfloat162int_rn(__nv_bfloat16 h) { return (int)nearbyintf(__bfloat162float(h)); }
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return h.__x; }
inline short __bfloat16_as_short(__nv_bfloat16 h) { return (short)h.__x; }
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short b) { return bs_bf16_bits(b); }
inline __nv_bfloat16 __short_as_bfloat16(short b) { return bs_bf16_bits((unsigned short)b); }

#define BS_BF(a) __bfloat162float(a)
inline __nv_bfloat16 __hadd(__nv_bfloat16 a, __nv_bfloat16 b) { return __float2bfloat16(BS_BF(a) + BS_BF(b)); }
inline __nv_bfloat16 __hsub(__nv_bfloat16 a, __nv_bfloat16 b) { return __float2bfloat16(BS_BF(a) - BS_BF(b)); }
inline __nv_bfloat16 __hmul(__nv_bfloat16 a, __nv_bfloat16 b) { return __float2bfloat16(BS_BF(a) * BS_BF(b)); }
inline __nv_bfloat16 __hdiv(__nv_bfloat16 a, __nv_bfloat16 b) { return __float2bfloat16(BS_BF(a) / BS_BF(b)); }
inline __nv_bfloat16 __hfma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c) { return __float2bfloat16(fmaf(BS_BF(a), BS_BF(b), BS_BF(c))); }
inline __nv_bfloat16 __hneg(__nv_bfloat16 a) { return bs_bf16_bits((unsigned short)(a.__x ^ 0x8000u)); }
inline __nv_bfloat16 __habs(__nv_bfloat16 a) { return bs_bf16_bits((unsigned short)(a.__x & 0x7fffu)); }
inline bool __hisnan(__nv_bfloat16 a) { return (a.__x & 0x7fffu) > 0x7f80u; }
inline int __hisinf(__nv_bfloat16 a) { return (a.__x & 0x7fffu) == 0x7f80u ? ((a.__x & 0x8000u) ? -1 : 1) : 0; }
inline __nv_bfloat16 __hmax(__nv_bfloat16 a, __nv_bfloat16 b) {  // as CUDA: a NaN operand gives the other
  if (__hisnan(a)) return __hisnan(b) ? bs_bf16_bits(0x7fffu) : b;
  if (__hisnan(b)) return a;
  return BS_BF(a) < BS_BF(b) ? b : a;
}
inline __nv_bfloat16 __hmin(__nv_bfloat16 a, __nv_bfloat16 b) {
  if (__hisnan(a)) return __hisnan(b) ? bs_bf16_bits(0x7fffu) : b;
  if (__hisnan(b)) return a;
  return BS_BF(b) < BS_BF(a) ? b : a;
}
inline bool __heq(__nv_bfloat16 a, __nv_bfloat16 b) { return BS_BF(a) == BS_BF(b); }
inline bool __hne(__nv_bfloat16 a, __nv_bfloat16 b) { return !__hisnan(a) && !__hisnan(b) && BS_BF(a) != BS_BF(b); }
inline bool __hlt(__nv_bfloat16 a, __nv_bfloat16 b) { return BS_BF(a) < BS_BF(b); }
inline bool __hle(__nv_bfloat16 a, __nv_bfloat16 b) { return BS_BF(a) <= BS_BF(b); }
inline bool __hgt(__nv_bfloat16 a, __nv_bfloat16 b) { return BS_BF(a) > BS_BF(b); }
inline bool __hge(__nv_bfloat16 a, __nv_bfloat16 b) { return BS_BF(a) >= BS_BF(b); }
inline __nv_bfloat16 hsqrt(__nv_bfloat16 a) { return __float2bfloat16(sqrtf(BS_BF(a))); }
inline __nv_bfloat16 hexp(__nv_bfloat16 a) { return __float2bfloat16(expf(BS_BF(a))); }

inline __nv_bfloat16 operator+(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hadd(a, b); }
inline __nv_bfloat16 operator-(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hsub(a, b); }
inline __nv_bfloat16 operator*(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hmul(a, b); }
inline __nv_bfloat16 operator/(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hdiv(a, b); }
inline __nv_bfloat16 operator-(const __nv_bfloat16& a) { return __hneg(a); }
inline __nv_bfloat16 operator+(const __nv_bfloat16& a) { return a; }
inline __nv_bfloat16& operator+=(__nv_bfloat16& a, const __nv_bfloat16& b) { return a = __hadd(a, b); }
inline __nv_bfloat16& operator-=(__nv_bfloat16& a, const __nv_bfloat16& b) { return a = __hsub(a, b); }
inline __nv_bfloat16& operator*=(__nv_bfloat16& a, const __nv_bfloat16& b) { return a = __hmul(a, b); }
inline __nv_bfloat16& operator/=(__nv_bfloat16& a, const __nv_bfloat16& b) { return a = __hdiv(a, b); }
inline bool operator==(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __heq(a, b); }
inline bool operator!=(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hne(a, b); }
inline bool operator<(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hlt(a, b); }
inline bool operator<=(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hle(a, b); }
inline bool operator>(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hgt(a, b); }
inline bool operator>=(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hge(a, b); }

struct __nv_bfloat162 {
  __nv_bfloat16 x, y;
  __nv_bfloat162() = default;
  __nv_bfloat162(const __nv_bfloat16& a, const __nv_bfloat16& b) : x(a), y(b) {}
  __nv_bfloat162(const __nv_bfloat162_raw& r) : x(bs_bf16_bits(r.x)), y(bs_bf16_bits(r.y)) {}
};
typedef __nv_bfloat162 nv_bfloat162;
inline __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat162(a, b); }
inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b) { return __nv_bfloat162(__float2bfloat16(a), __float2bfloat16(b)); }
inline __nv_bfloat162 __float2bfloat162_rn(float a) { return __floats2bfloat162_rn(a, a); }
inline __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 a) { return __nv_bfloat162(a, a); }
inline float __low2float(__nv_bfloat162 a) { return BS_BF(a.x); }
inline float __high2float(__nv_bfloat162 a) { return BS_BF(a.y); }
inline __nv_bfloat16 __low2bfloat16(__nv_bfloat162 a) { return a.x; }
inline __nv_bfloat16 __high2bfloat16(__nv_bfloat162 a) { return a.y; }
inline __nv_bfloat162 __hadd2(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(__hadd(a.x, b.x), __hadd(a.y, b.y)); }
inline __nv_bfloat162 __hmul2(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(__hmul(a.x, b.x), __hmul(a.y, b.y)); }
inline __nv_bfloat162 __hfma2(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c) { return __nv_bfloat162(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); }
inline __nv_bfloat162 operator+(const __nv_bfloat162& a, const __nv_bfloat162& b) { return __hadd2(a, b); }
inline __nv_bfloat162 operator*(const __nv_bfloat162& a, const __nv_bfloat162& b) { return __hmul2(a, b); }
#undef BS_BF
#endif
