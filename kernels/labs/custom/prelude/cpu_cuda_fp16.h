// blockscope's <cuda_fp16.h> for the CPU simulator: __half and __half2 as in CUDA's
// cuda_fp16.hpp, 2-byte IEEE binary16. Conversions from float round to nearest even (NaN gives
// CUDA's canonical 0x7FFF); to float they are exact. Arithmetic is done in float and rounded
// once, which for +, -, * and fma gives exactly the binary16 result the GPU computes (float
// holds every such product and sum of two halves exactly or rounds it harmlessly: 24 >= 2 * 11 + 2).
// Included in place of `#include <cuda_fp16.h>` (the line stays, blank) and self-contained: it
// needs only the prelude's __host__/__device__ macros, which it defines away itself if alone.
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

struct __half_raw { unsigned short x; };
struct __half2_raw { unsigned short x, y; };

struct __half {
  unsigned short __x;
  __half() = default;
  __half(const __half_raw& r) : __x(r.x) {}
  __half(float f) : __x(bs_f32_to_f16_rn(f)) {}
  __half(double f) : __x(bs_f32_to_f16_rn((float)f)) {}
  __half(int v) : __x(bs_f32_to_f16_rn((float)v)) {}
  __half(unsigned v) : __x(bs_f32_to_f16_rn((float)v)) {}
  __half(long long v) : __x(bs_f32_to_f16_rn((float)v)) {}
  __half(unsigned long long v) : __x(bs_f32_to_f16_rn((float)v)) {}
  __half(short v) : __x(bs_f32_to_f16_rn((float)v)) {}
  __half(unsigned short v) : __x(bs_f32_to_f16_rn((float)v)) {}
  operator float() const { return bs_f16_to_f32(__x); }
  operator __half_raw() const { return __half_raw{__x}; }
  __half& operator=(const __half_raw& r) { __x = r.x; return *this; }
};
typedef __half half;

inline __half bs_half_bits(unsigned short b) { __half h; h.__x = b; return h; }
inline float __half2float(__half h) { return bs_f16_to_f32(h.__x); }
inline __half __float2half(float f) { return bs_half_bits(bs_f32_to_f16_rn(f)); }
inline __half __float2half_rn(float f) { return __float2half(f); }
inline __half __double2half(double d) { return __float2half((float)d); }
inline __half __int2half_rn(int i) { return __float2half((float)i); }
inline int __half2int_rn(__half h) { return (int)nearbyintf(__half2float(h)); }
inline int __half2int_rz(__half h) { return (int)__half2float(h); }
inline unsigned short __half_as_ushort(__half h) { return h.__x; }
inline short __half_as_short(__half h) { return (short)h.__x; }
inline __half __ushort_as_half(unsigned short b) { return bs_half_bits(b); }
inline __half __short_as_half(short b) { return bs_half_bits((unsigned short)b); }

inline __half __hadd(__half a, __half b) { return __float2half(__half2float(a) + __half2float(b)); }
inline __half __hsub(__half a, __half b) { return __float2half(__half2float(a) - __half2float(b)); }
inline __half __hmul(__half a, __half b) { return __float2half(__half2float(a) * __half2float(b)); }
inline __half __hdiv(__half a, __half b) { return __float2half(__half2float(a) / __half2float(b)); }
inline __half __hfma(__half a, __half b, __half c) { return __float2half(fmaf(__half2float(a), __half2float(b), __half2float(c))); }
inline __half __hneg(__half a) { return bs_half_bits((unsigned short)(a.__x ^ 0x8000u)); }
inline __half __habs(__half a) { return bs_half_bits((unsigned short)(a.__x & 0x7fffu)); }
inline bool __hisnan(__half a) { return (a.__x & 0x7fffu) > 0x7c00u; }
inline int __hisinf(__half a) { return (a.__x & 0x7fffu) == 0x7c00u ? ((a.__x & 0x8000u) ? -1 : 1) : 0; }
inline __half __hmax(__half a, __half b) {  // as CUDA: a NaN operand gives the other
  if (__hisnan(a)) return __hisnan(b) ? bs_half_bits(0x7fffu) : b;
  if (__hisnan(b)) return a;
  return __half2float(a) < __half2float(b) ? b : a;
}
inline __half __hmin(__half a, __half b) {
  if (__hisnan(a)) return __hisnan(b) ? bs_half_bits(0x7fffu) : b;
  if (__hisnan(b)) return a;
  return __half2float(b) < __half2float(a) ? b : a;
}
inline bool __heq(__half a, __half b) { return __half2float(a) == __half2float(b); }
inline bool __hne(__half a, __half b) { return !__hisnan(a) && !__hisnan(b) && __half2float(a) != __half2float(b); }
inline bool __hlt(__half a, __half b) { return __half2float(a) < __half2float(b); }
inline bool __hle(__half a, __half b) { return __half2float(a) <= __half2float(b); }
inline bool __hgt(__half a, __half b) { return __half2float(a) > __half2float(b); }
inline bool __hge(__half a, __half b) { return __half2float(a) >= __half2float(b); }
inline __half hsqrt(__half a) { return __float2half(sqrtf(__half2float(a))); }
inline __half hrsqrt(__half a) { return __float2half(1.0f / sqrtf(__half2float(a))); }
inline __half hexp(__half a) { return __float2half(expf(__half2float(a))); }
inline __half hlog(__half a) { return __float2half(logf(__half2float(a))); }
inline __half hfloor(__half a) { return __float2half(floorf(__half2float(a))); }
inline __half hceil(__half a) { return __float2half(ceilf(__half2float(a))); }

inline __half operator+(const __half& a, const __half& b) { return __hadd(a, b); }
inline __half operator-(const __half& a, const __half& b) { return __hsub(a, b); }
inline __half operator*(const __half& a, const __half& b) { return __hmul(a, b); }
inline __half operator/(const __half& a, const __half& b) { return __hdiv(a, b); }
inline __half operator-(const __half& a) { return __hneg(a); }
inline __half operator+(const __half& a) { return a; }
inline __half& operator+=(__half& a, const __half& b) { return a = __hadd(a, b); }
inline __half& operator-=(__half& a, const __half& b) { return a = __hsub(a, b); }
inline __half& operator*=(__half& a, const __half& b) { return a = __hmul(a, b); }
inline __half& operator/=(__half& a, const __half& b) { return a = __hdiv(a, b); }
inline bool operator==(const __half& a, const __half& b) { return __heq(a, b); }
inline bool operator!=(const __half& a, const __half& b) { return __hne(a, b); }
inline bool operator<(const __half& a, const __half& b) { return __hlt(a, b); }
inline bool operator<=(const __half& a, const __half& b) { return __hle(a, b); }
inline bool operator>(const __half& a, const __half& b) { return __hgt(a, b); }
inline bool operator>=(const __half& a, const __half& b) { return __hge(a, b); }

struct __half2 {
  __half x, y;
  __half2() = default;
  __half2(const __half& a, const __half& b) : x(a), y(b) {}
  __half2(const __half2_raw& r) : x(bs_half_bits(r.x)), y(bs_half_bits(r.y)) {}
};
typedef __half2 half2;
inline __half2 __halves2half2(__half a, __half b) { return __half2(a, b); }
inline __half2 __floats2half2_rn(float a, float b) { return __half2(__float2half(a), __float2half(b)); }
inline __half2 __float2half2_rn(float a) { return __half2(__float2half(a), __float2half(a)); }
inline __half2 __half2half2(__half a) { return __half2(a, a); }
inline float __low2float(__half2 a) { return __half2float(a.x); }
inline float __high2float(__half2 a) { return __half2float(a.y); }
inline __half __low2half(__half2 a) { return a.x; }
inline __half __high2half(__half2 a) { return a.y; }
inline __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
inline __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
inline __half2 __lowhigh2highlow(__half2 a) { return __half2(a.y, a.x); }
inline __half2 __hadd2(__half2 a, __half2 b) { return __half2(__hadd(a.x, b.x), __hadd(a.y, b.y)); }
inline __half2 __hsub2(__half2 a, __half2 b) { return __half2(__hsub(a.x, b.x), __hsub(a.y, b.y)); }
inline __half2 __hmul2(__half2 a, __half2 b) { return __half2(__hmul(a.x, b.x), __hmul(a.y, b.y)); }
inline __half2 __h2div(__half2 a, __half2 b) { return __half2(__hdiv(a.x, b.x), __hdiv(a.y, b.y)); }
inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return __half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); }
inline __half2 __habs2(__half2 a) { return __half2(__habs(a.x), __habs(a.y)); }
inline __half2 __hneg2(__half2 a) { return __half2(__hneg(a.x), __hneg(a.y)); }
inline __half2 __hmax2(__half2 a, __half2 b) { return __half2(__hmax(a.x, b.x), __hmax(a.y, b.y)); }
inline __half2 __hmin2(__half2 a, __half2 b) { return __half2(__hmin(a.x, b.x), __hmin(a.y, b.y)); }
inline __half2 operator+(const __half2& a, const __half2& b) { return __hadd2(a, b); }
inline __half2 operator-(const __half2& a, const __half2& b) { return __hsub2(a, b); }
inline __half2 operator*(const __half2& a, const __half2& b) { return __hmul2(a, b); }
inline __half2 operator/(const __half2& a, const __half2& b) { return __h2div(a, b); }
inline __half2& operator+=(__half2& a, const __half2& b) { return a = __hadd2(a, b); }
inline __half2& operator*=(__half2& a, const __half2& b) { return a = __hmul2(a, b); }
inline bool operator==(const __half2& a, const __half2& b) { return a.x == b.x && a.y == b.y; }
#endif
