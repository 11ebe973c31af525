// blockscope's CPU simulator: what __half (cpu_cuda_fp16.h) and __nv_bfloat16 (cpu_cuda_bf16.h)
// have in common, written once. BS_HALF16_TYPE(T, N, TO_BITS, TO_FLOAT, BITS, INF) declares the
// 16-bit type T and its pair T##2 as CUDA's headers do: T holds the bits; TO_BITS(float) and
// TO_FLOAT(bits) convert (each header its own rounding); CUDA's names for them are spelled with
// N (half: __half2float, __float2half_rn, __halves2half2; bfloat16: __bfloat162float, ...);
// BITS(bits) is a T from its bits; INF the exponent bits (inf, and NaN above). Arithmetic is
// done in float and rounded once. Put in front of every CPU unit (it defines the macro and one
// helper).
#ifndef BS_CPU_HALF16_H
#define BS_CPU_HALF16_H
// s + e (exact) as a float rounded to odd: toward zero, then the last bit set when anything was
// lost. A value rounded so keeps what a later rounding to 16 bits needs (24 bits against 11 or 8
// plus two), so that rounding is the only one that counts. Rounding to nearest here instead was
// a double rounding: __hfma(1.00098 / 16, 0.99902, 145.125) gave 145.25, not 145.125 (an exact
// 145.1875 - 2^-24 became the midpoint 145.1875, then went to the even neighbour).
static inline float bs_half16_round_odd(double s, double e) {
  float f = (float)s;
  if (!__builtin_isfinite(f)) return f;  // overflow: infinity at 16 bits too
  const double d = (double)f - s;        // exact: f is s rounded
  if (d == e) return f;                  // f is s + e exactly
  if (s >= 0 ? d > e : d < e) f = __builtin_nextafterf(f, 0.0f);  // f lay beyond s + e: step back
  unsigned bits;
  __builtin_memcpy(&bits, &f, sizeof bits);
  bits |= 1u;
  __builtin_memcpy(&f, &bits, sizeof bits);
  return f;
}
// a * b + c rounded once: the product of two 16-bit values is exact in double, and TwoSum gives
// what the double sum lost.
static inline float bs_half16_fma(float a, float b, float c) {
  const double p = (double)a * (double)b, s = p + (double)c, bp = s - p;
  return bs_half16_round_odd(s, (p - (s - bp)) + ((double)c - bp));
}
#define BS_HALF16_TYPE(T, N, TO_BITS, TO_FLOAT, BITS, INF) \
struct T##_raw { unsigned short x; }; \
struct T##2_raw { unsigned short x, y; }; \
struct T { \
  unsigned short __x; \
  T() = default; \
  T(const T##_raw& r) : __x(r.x) {} \
  T(float f) : __x(TO_BITS(f)) {} \
  T(double f) : __x(TO_BITS(bs_half16_round_odd(f, 0.0))) {} \
  T(int v) : __x(TO_BITS((float)v)) {} \
  T(unsigned v) : __x(TO_BITS((float)v)) {} \
  T(long long v) : __x(TO_BITS((float)v)) {} \
  T(unsigned long long v) : __x(TO_BITS((float)v)) {} \
  T(short v) : __x(TO_BITS((float)v)) {} \
  T(unsigned short v) : __x(TO_BITS((float)v)) {} \
  operator float() const { return TO_FLOAT(__x); } \
  operator T##_raw() const { return T##_raw{__x}; } \
  T& operator=(const T##_raw& r) { __x = r.x; return *this; } \
}; \
inline T BITS(unsigned short b) { T h; h.__x = b; return h; } \
inline float __##N##2float(T h) { return TO_FLOAT(h.__x); } \
inline T __float2##N(float f) { return BITS(TO_BITS(f)); } \
inline T __float2##N##_rn(float f) { return __float2##N(f); } \
inline T __double2##N(double d) { return __float2##N(bs_half16_round_odd(d, 0.0)); } \
inline T __int2##N##_rn(int i) { return __float2##N((float)i); } \
inline int __##N##2int_rn(T h) { return (int)nearbyintf(__##N##2float(h)); } \
inline unsigned short __##N##_as_ushort(T h) { return h.__x; } \
inline short __##N##_as_short(T h) { return (short)h.__x; } \
inline T __ushort_as_##N(unsigned short b) { return BITS(b); } \
inline T __short_as_##N(short b) { return BITS((unsigned short)b); } \
\
inline T __hadd(T a, T b) { return __float2##N(__##N##2float(a) + __##N##2float(b)); } \
inline T __hsub(T a, T b) { return __float2##N(__##N##2float(a) - __##N##2float(b)); } \
inline T __hmul(T a, T b) { return __float2##N(__##N##2float(a) * __##N##2float(b)); } \
inline T __hdiv(T a, T b) { return __float2##N(__##N##2float(a) / __##N##2float(b)); } \
inline T __hfma(T a, T b, T c) { return __float2##N(bs_half16_fma(__##N##2float(a), __##N##2float(b), __##N##2float(c))); } \
inline T __hneg(T a) { return BITS((unsigned short)(a.__x ^ 0x8000u)); } \
inline T __habs(T a) { return BITS((unsigned short)(a.__x & 0x7fffu)); } \
inline bool __hisnan(T a) { return (a.__x & 0x7fffu) > INF; } \
inline int __hisinf(T a) { return (a.__x & 0x7fffu) == INF ? ((a.__x & 0x8000u) ? -1 : 1) : 0; } \
inline T __hmax(T a, T b) { /* as CUDA: a NaN operand gives the other */ \
  if (__hisnan(a)) return __hisnan(b) ? BITS(0x7fffu) : b; \
  if (__hisnan(b)) return a; \
  return __##N##2float(a) < __##N##2float(b) ? b : a; \
} \
inline T __hmin(T a, T b) { \
  if (__hisnan(a)) return __hisnan(b) ? BITS(0x7fffu) : b; \
  if (__hisnan(b)) return a; \
  return __##N##2float(b) < __##N##2float(a) ? b : a; \
} \
inline bool __heq(T a, T b) { return __##N##2float(a) == __##N##2float(b); } \
inline bool __hne(T a, T b) { return !__hisnan(a) && !__hisnan(b) && __##N##2float(a) != __##N##2float(b); } \
inline bool __hlt(T a, T b) { return __##N##2float(a) < __##N##2float(b); } \
inline bool __hle(T a, T b) { return __##N##2float(a) <= __##N##2float(b); } \
inline bool __hgt(T a, T b) { return __##N##2float(a) > __##N##2float(b); } \
inline bool __hge(T a, T b) { return __##N##2float(a) >= __##N##2float(b); } \
inline T hsqrt(T a) { return __float2##N(sqrtf(__##N##2float(a))); } \
inline T hexp(T a) { return __float2##N(expf(__##N##2float(a))); } \
\
inline T operator+(const T& a, const T& b) { return __hadd(a, b); } \
inline T operator-(const T& a, const T& b) { return __hsub(a, b); } \
inline T operator*(const T& a, const T& b) { return __hmul(a, b); } \
inline T operator/(const T& a, const T& b) { return __hdiv(a, b); } \
inline T operator-(const T& a) { return __hneg(a); } \
inline T operator+(const T& a) { return a; } \
inline T& operator+=(T& a, const T& b) { return a = __hadd(a, b); } \
inline T& operator-=(T& a, const T& b) { return a = __hsub(a, b); } \
inline T& operator*=(T& a, const T& b) { return a = __hmul(a, b); } \
inline T& operator/=(T& a, const T& b) { return a = __hdiv(a, b); } \
inline bool operator==(const T& a, const T& b) { return __heq(a, b); } \
inline bool operator!=(const T& a, const T& b) { return __hne(a, b); } \
inline bool operator<(const T& a, const T& b) { return __hlt(a, b); } \
inline bool operator<=(const T& a, const T& b) { return __hle(a, b); } \
inline bool operator>(const T& a, const T& b) { return __hgt(a, b); } \
inline bool operator>=(const T& a, const T& b) { return __hge(a, b); } \
\
struct T##2 { \
  T x, y; \
  T##2() = default; \
  T##2(const T& a, const T& b) : x(a), y(b) {} \
  T##2(const T##2_raw& r) : x(BITS(r.x)), y(BITS(r.y)) {} \
}; \
inline T##2 __halves2##N##2(T a, T b) { return T##2(a, b); } \
inline T##2 __floats2##N##2_rn(float a, float b) { return T##2(__float2##N(a), __float2##N(b)); } \
inline T##2 __float2##N##2_rn(float a) { return T##2(__float2##N(a), __float2##N(a)); } \
inline T##2 __##N##2##N##2(T a) { return T##2(a, a); } \
inline float __low2float(T##2 a) { return __##N##2float(a.x); } \
inline float __high2float(T##2 a) { return __##N##2float(a.y); } \
inline T __low2##N(T##2 a) { return a.x; } \
inline T __high2##N(T##2 a) { return a.y; } \
inline T##2 __hadd2(T##2 a, T##2 b) { return T##2(__hadd(a.x, b.x), __hadd(a.y, b.y)); } \
inline T##2 __hmul2(T##2 a, T##2 b) { return T##2(__hmul(a.x, b.x), __hmul(a.y, b.y)); } \
inline T##2 __hfma2(T##2 a, T##2 b, T##2 c) { return T##2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); } \
inline T##2 operator+(const T##2& a, const T##2& b) { return __hadd2(a, b); } \
inline T##2 operator*(const T##2& a, const T##2& b) { return __hmul2(a, b); }
#endif
