// blockscope's CPU prelude: what a CUDA kernel needs to compile with the host C++ compiler and run
// on the grid simulator, one simulated thread per call of the generated bs_cpu_thread().
//
// Sections
//   1. CUDA's keywords and built-in variables
//   2. __shared__ and __syncthreads()
//   3. Bounds-checked views of the kernel's pointer arguments (and the owner record)
//   4. Device functions the lecture's kernels use: math, min/max, cdiv, atomics
//   5. CUDA's bit and arithmetic intrinsics (__float_as_uint, __popc, __fmaf_rn, ...)
//
// Sections that follow only when the kernel needs them (cpu_headers.cpp decides, codegen.cpp
// appends): cpu_warp.h (warp-synchronous operations: when the kernel names one, or includes
// <mma.h> or <cooperative_groups.h>), and for CUDA's headers, whose #include line becomes a blank
// one: cpu_cuda_fp16.h (<cuda_fp16.h>), cpu_cuda_bf16.h (<cuda_bf16.h>), cpu_mma.h (<mma.h>),
// cpu_cooperative_groups.h (<cooperative_groups.h>).
//
// It follows custom_abi.h in the generated unit and includes nothing but <math.h>, so a kernel
// compiles in well under a second. Everything here is read by the user when a diagnostic points
// into it, so it stays short and plain.

#include <math.h>
extern "C" int printf(const char*, ...);

// ---------------------------------------------------------------------------------------------
// 1. CUDA's keywords and built-in variables
// ---------------------------------------------------------------------------------------------
// Execution spaces mean nothing on the CPU: every function is an ordinary host function.
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __constant__
#define __managed__
#define __align__(n) __attribute__((aligned(n)))
#define __grid_constant__

typedef bs_u3 uint3;
// CUDA's vector types (vector_types.h) and their make_ functions, aligned as on the GPU.
#define BS_VEC2(T, N, A) struct __attribute__((aligned(A))) N##2 { T x, y; }; \
  inline N##2 make_##N##2(T x, T y) { N##2 v; v.x = x; v.y = y; return v; }
#define BS_VEC4(T, N, A) struct __attribute__((aligned(A))) N##4 { T x, y, z, w; }; \
  inline N##4 make_##N##4(T x, T y, T z, T w) { N##4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }
#define BS_VEC3(T, N) struct N##3 { T x, y, z; }; \
  inline N##3 make_##N##3(T x, T y, T z) { N##3 v; v.x = x; v.y = y; v.z = z; return v; }
BS_VEC2(float, float, 8) BS_VEC4(float, float, 16) BS_VEC3(float, float)
BS_VEC2(int, int, 8) BS_VEC4(int, int, 16) BS_VEC3(int, int)
BS_VEC2(unsigned, uint, 8) BS_VEC4(unsigned, uint, 16)
BS_VEC2(double, double, 16) BS_VEC4(double, double, 16)
BS_VEC2(unsigned char, uchar, 2) BS_VEC4(unsigned char, uchar, 4) BS_VEC3(unsigned char, uchar)
BS_VEC2(short, short, 4) BS_VEC4(short, short, 8)
BS_VEC2(unsigned short, ushort, 4) BS_VEC4(unsigned short, ushort, 8)
#undef BS_VEC2
#undef BS_VEC3
#undef BS_VEC4
inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) { uint3 v; v.x = x; v.y = y; v.z = z; return v; }
struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
  constexpr dim3(bs_u3 v) : x(v.x), y(v.y), z(v.z) {}
};

// The simulated thread now running on this OS thread. Each call of bs_cpu_thread sets it; a
// barrier switches fibers, so __syncthreads restores it afterwards (see section 2).
static thread_local const bs_thread_ctx* bs_tls_ctx;

#define threadIdx (bs_tls_ctx->threadIdx)
#define blockIdx (bs_tls_ctx->blockIdx)
#define blockDim (bs_tls_ctx->blockDim)
#define gridDim (bs_tls_ctx->gridDim)
#define warpSize 32

// ---------------------------------------------------------------------------------------------
// 2. __shared__ and __syncthreads()
// ---------------------------------------------------------------------------------------------
// A block runs on one simulator worker (one OS thread), its threads one after another or, when
// the kernel calls __syncthreads, as fibers on that same OS thread. So a thread_local variable is
// exactly one variable per block: every thread of the block sees it, blocks on other workers have
// their own. The runner refills this unit's whole TLS block with 0xFF bytes before each block's
// first thread runs, so a block starts from fresh storage (floats read as NaN, ints as -1) and a
// kernel that reads shared memory before writing it shows wrong results instead of stale ones.
#define __shared__ static thread_local

inline void bs_syncthreads(const bs_launch_args* a) {
  const bs_thread_ctx* me = bs_tls_ctx;
  a->barrier(me->host);  // other fibers of the block run here and set bs_tls_ctx to themselves
  bs_tls_ctx = me;
}
// The launch arguments of the running kernel (set by bs_cpu_thread with the context).
static thread_local const bs_launch_args* bs_tls_launch;
#define __syncthreads() bs_syncthreads(bs_tls_launch)
#define __threadfence() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define __threadfence_block() __atomic_thread_fence(__ATOMIC_SEQ_CST)

// ---------------------------------------------------------------------------------------------
// 3. Bounds-checked views of the kernel's pointer arguments
// ---------------------------------------------------------------------------------------------
// blockscope rewrites the types in the kernel's parameter list (only there): `unsigned char* x`
// becomes `bs_in<unsigned char> x`, the output `float* out` becomes `bs_out<float> out`. A view
// behaves like the pointer (indexing, arithmetic, *, comparisons, passing it on as a plain T*)
// and checks every x[i] against the buffer's size; an index outside it is reported with the
// block, the thread, the index and the size, and stops the launch. Stores through an output view
// also record which thread stored each element (the overlay's "who really wrote this pixel").
// Converting a view to a raw pointer (to call a helper taking `float*`) gives up the checks from
// there on, as on the GPU.
template <bool B, class T = void> struct bs_enable_if {};
template <class T> struct bs_enable_if<true, T> { typedef T type; };
template <class T> struct bs_is_index { static const bool value = false; };
#define BS_INDEX_TYPE(T) template <> struct bs_is_index<T> { static const bool value = true; };
BS_INDEX_TYPE(bool) BS_INDEX_TYPE(char) BS_INDEX_TYPE(signed char) BS_INDEX_TYPE(unsigned char)
BS_INDEX_TYPE(short) BS_INDEX_TYPE(unsigned short) BS_INDEX_TYPE(int) BS_INDEX_TYPE(unsigned)
BS_INDEX_TYPE(long) BS_INDEX_TYPE(unsigned long) BS_INDEX_TYPE(long long)
BS_INDEX_TYPE(unsigned long long)
#undef BS_INDEX_TYPE
#define BS_IF_INDEX(I) class I, class = typename bs_enable_if<bs_is_index<I>::value>::type

struct bs_arg {  // the generated entry's handle on argument `buffer`
  const bs_launch_args* a;
  int buffer;
};

template <class T>
struct bs_span {
  T* base;
  long long count;
  unsigned* owners;
  int buffer;
  const bs_launch_args* a;

  long long checked(long long i, int access) const {
    if (i < 0 || i >= count) {
      a->out_of_bounds(bs_tls_ctx, buffer, i, count, access);
      __builtin_unreachable();
    }
    return i;
  }
};

template <class T, class Derived>
class bs_pointer_ops {  // what a pointer does: arithmetic, comparison, decay to T*
 public:
  bs_pointer_ops(bs_arg g)
      : s_{static_cast<T*>(g.a->buffers[g.buffer].data), g.a->buffers[g.buffer].count,
           g.a->buffers[g.buffer].owners, g.buffer, g.a},
        off_(0) {}
  bs_pointer_ops(const bs_span<T>& s, long long off) : s_(s), off_(off) {}

  operator T*() const { return s_.base + off_; }  // unchecked from here on
  template <class U> explicit operator U*() const { return (U*)(s_.base + off_); }
  explicit operator bool() const { return s_.base + off_ != 0; }

  template <BS_IF_INDEX(I)> Derived operator+(I i) const { return Derived(s_, off_ + (long long)i); }
  template <BS_IF_INDEX(I)> Derived operator-(I i) const { return Derived(s_, off_ - (long long)i); }
  template <BS_IF_INDEX(I)> friend Derived operator+(I i, const Derived& p) { return p + i; }
  long long operator-(const Derived& o) const { return off_ - o.off_; }
  template <BS_IF_INDEX(I)> Derived& operator+=(I i) { off_ += (long long)i; return self(); }
  template <BS_IF_INDEX(I)> Derived& operator-=(I i) { off_ -= (long long)i; return self(); }
  Derived& operator++() { ++off_; return self(); }
  Derived& operator--() { --off_; return self(); }
  Derived operator++(int) { Derived old = self(); ++off_; return old; }
  Derived operator--(int) { Derived old = self(); --off_; return old; }
  bool operator==(const Derived& o) const { return off_ == o.off_; }
  bool operator!=(const Derived& o) const { return off_ != o.off_; }
  bool operator<(const Derived& o) const { return off_ < o.off_; }
  bool operator<=(const Derived& o) const { return off_ <= o.off_; }
  bool operator>(const Derived& o) const { return off_ > o.off_; }
  bool operator>=(const Derived& o) const { return off_ >= o.off_; }

 protected:
  Derived& self() { return static_cast<Derived&>(*this); }
  bs_span<T> s_;
  long long off_;
};

// An input argument: x[i] is the element itself (a read or a write, the view cannot tell which).
template <class T>
class bs_in : public bs_pointer_ops<T, bs_in<T> > {
  typedef bs_pointer_ops<T, bs_in<T> > base;

 public:
  bs_in(bs_arg g) : base(g) {}
  bs_in(const bs_span<T>& s, long long off) : base(s, off) {}
  template <BS_IF_INDEX(I)> T& operator[](I i) const {
    return this->s_.base[this->s_.checked(this->off_ + (long long)i, BS_ACCESS_UNKNOWN)];
  }
  T& operator*() const { return (*this)[0]; }
  T* operator->() const { return &(*this)[0]; }
};

template <class T> class bs_out;

// out[i] on an output argument: checks and records on use, so it knows reads from writes.
template <class T>
class bs_ref {
 public:
  bs_ref(const bs_span<T>& s, long long i) : s_(s), i_(i) {}
  operator T() const { return s_.base[s_.checked(i_, BS_ACCESS_READ)]; }
  bs_ref& operator=(const T& v) {
    s_.base[s_.checked(i_, BS_ACCESS_WRITE)] = v;
    own();
    return *this;
  }
  bs_ref& operator=(const bs_ref& o) { return *this = static_cast<T>(o); }
#define BS_COMPOUND(op)                                  \
  template <class U> bs_ref& operator op(const U& v) {   \
    s_.base[s_.checked(i_, BS_ACCESS_WRITE)] op v;       \
    own();                                               \
    return *this;                                        \
  }
  BS_COMPOUND(+=) BS_COMPOUND(-=) BS_COMPOUND(*=) BS_COMPOUND(/=) BS_COMPOUND(%=)
  BS_COMPOUND(&=) BS_COMPOUND(|=) BS_COMPOUND(^=) BS_COMPOUND(<<=) BS_COMPOUND(>>=)
#undef BS_COMPOUND
  bs_ref& operator++() { return *this += 1; }
  bs_ref& operator--() { return *this -= 1; }
  T operator++(int) { T old = *this; *this += 1; return old; }
  T operator--(int) { T old = *this; *this -= 1; return old; }
  bs_out<T> operator&() const { return bs_out<T>(s_, i_); }
  // For atomics: the checked address of the element, recorded as written by this thread.
  T* bs_store_address() const {
    T* p = &s_.base[s_.checked(i_, BS_ACCESS_WRITE)];
    own();
    return p;
  }

 private:
  void own() const {
    if (s_.owners)
      __atomic_store_n(&s_.owners[i_], (unsigned)bs_tls_ctx->global_thread, __ATOMIC_RELAXED);
  }
  bs_span<T> s_;
  long long i_;
};

// An output argument: out[i] = v stores and records that this thread stored element i.
template <class T>
class bs_out : public bs_pointer_ops<T, bs_out<T> > {
  typedef bs_pointer_ops<T, bs_out<T> > base;

 public:
  bs_out(bs_arg g) : base(g) {}
  bs_out(const bs_span<T>& s, long long off) : base(s, off) {}
  template <BS_IF_INDEX(I)> bs_ref<T> operator[](I i) const {
    return bs_ref<T>(this->s_, this->off_ + (long long)i);
  }
  bs_ref<T> operator*() const { return (*this)[0]; }
};

// ---------------------------------------------------------------------------------------------
// 4. Device functions
// ---------------------------------------------------------------------------------------------
// The lecture's notebook defines `cdiv` in its C++ prelude and the tiled kernels call it; it is
// provided here (and in the GPU prelude) so those kernels paste unchanged. A kernel that defines
// its own cdiv still compiles (a plain function beside a template).
template <class A, class B> inline auto cdiv(A a, B b) -> decltype((a + b - 1) / b) {
  return (a + b - 1) / b;
}

#define BS_MINMAX(T)                                     \
  inline T min(T a, T b) { return b < a ? b : a; }       \
  inline T max(T a, T b) { return a < b ? b : a; }
BS_MINMAX(int) BS_MINMAX(unsigned) BS_MINMAX(long long) BS_MINMAX(unsigned long long)
BS_MINMAX(float) BS_MINMAX(double)
#undef BS_MINMAX

inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __powf(float a, float b) { return powf(a, b); }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
template <class T> inline T __ldg(const T* p) { return *p; }

// Atomics: blocks run concurrently on the simulator's workers, so these are real atomics.
template <class T, class F> inline T bs_atomic_update(T* p, F f) {
  T old, want;
  __atomic_load(p, &old, __ATOMIC_RELAXED);
  do { want = f(old); } while (!__atomic_compare_exchange(p, &old, &want, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
  return old;
}
template <class T> inline T bs_atomic_add(T* p, T v) { return bs_atomic_update(p, [v](T o) { return (T)(o + v); }); }
#define BS_ATOMIC_INT(T)                                                                          \
  inline T atomicAdd(T* p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }            \
  inline T atomicSub(T* p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED); }            \
  inline T atomicAnd(T* p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_RELAXED); }            \
  inline T atomicOr(T* p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_RELAXED); }              \
  inline T atomicXor(T* p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_RELAXED); }            \
  inline T atomicMax(T* p, T v) { return bs_atomic_update(p, [v](T o) { return o < v ? v : o; }); } \
  inline T atomicMin(T* p, T v) { return bs_atomic_update(p, [v](T o) { return v < o ? v : o; }); }
BS_ATOMIC_INT(int) BS_ATOMIC_INT(unsigned) BS_ATOMIC_INT(unsigned long long) BS_ATOMIC_INT(long long)
#undef BS_ATOMIC_INT
inline float atomicAdd(float* p, float v) { return bs_atomic_add(p, v); }
inline double atomicAdd(double* p, double v) { return bs_atomic_add(p, v); }
inline float atomicSub(float* p, float v) { return bs_atomic_add(p, -v); }
// atomicInc/atomicDec as CUDA defines them: wrap to 0 past `limit`, to `limit` below 0 or past it.
inline unsigned atomicInc(unsigned* p, unsigned limit) {
  return bs_atomic_update(p, [limit](unsigned o) { return o >= limit ? 0u : o + 1u; });
}
inline unsigned atomicDec(unsigned* p, unsigned limit) {
  return bs_atomic_update(p, [limit](unsigned o) { return (o == 0u || o > limit) ? limit : o - 1u; });
}
template <class T> inline T atomicExch(T* p, T v) {
  T old;
  __atomic_exchange(p, &v, &old, __ATOMIC_RELAXED);
  return old;
}
template <class T> inline T atomicCAS(T* p, T expected, T desired) {
  __atomic_compare_exchange(p, &expected, &desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return expected;
}
// atomicAdd(&out[i], v) and atomicAdd(out + i, v) on an output argument: checked and recorded.
#define BS_ATOMIC_VIEW(name)                                                               \
  template <class T, class V> inline T name(bs_out<T> p, V v) { return name(p[0].bs_store_address(), (T)v); } \
  template <class T, class V> inline T name(bs_in<T> p, V v) { return name(&p[0], (T)v); }
BS_ATOMIC_VIEW(atomicAdd) BS_ATOMIC_VIEW(atomicSub) BS_ATOMIC_VIEW(atomicMax) BS_ATOMIC_VIEW(atomicMin)
BS_ATOMIC_VIEW(atomicAnd) BS_ATOMIC_VIEW(atomicOr) BS_ATOMIC_VIEW(atomicXor) BS_ATOMIC_VIEW(atomicExch)
BS_ATOMIC_VIEW(atomicInc) BS_ATOMIC_VIEW(atomicDec)
#undef BS_ATOMIC_VIEW
template <class T, class V, class W> inline T atomicCAS(bs_out<T> p, V e, W d) {
  return atomicCAS(p[0].bs_store_address(), (T)e, (T)d);
}
#define atomicAdd_block atomicAdd
#define atomicAdd_system atomicAdd

// ---------------------------------------------------------------------------------------------
// 5. CUDA's bit and arithmetic intrinsics
// ---------------------------------------------------------------------------------------------
// Reinterpretations copy the bits (no conversion); the _rn/_rz forms are the CPU's IEEE
// arithmetic, which rounds to nearest even as the GPU's _rn does (the _rz/_ru/_rd roundings are
// computed to nearest too: the simulator says so here rather than pretend).
template <class To, class From> inline To bs_bits(From f) {
  static_assert(sizeof(To) == sizeof(From), "same size");
  To t;
  __builtin_memcpy(&t, &f, sizeof t);
  return t;
}
inline unsigned __float_as_uint(float x) { return bs_bits<unsigned>(x); }
inline float __uint_as_float(unsigned x) { return bs_bits<float>(x); }
inline int __float_as_int(float x) { return bs_bits<int>(x); }
inline float __int_as_float(int x) { return bs_bits<float>(x); }
inline long long __double_as_longlong(double x) { return bs_bits<long long>(x); }
inline double __longlong_as_double(long long x) { return bs_bits<double>(x); }
inline int __double2hiint(double x) { return (int)(bs_bits<unsigned long long>(x) >> 32); }
inline int __double2loint(double x) { return (int)bs_bits<unsigned long long>(x); }
inline double __hiloint2double(int hi, int lo) {
  return bs_bits<double>(((unsigned long long)(unsigned)hi << 32) | (unsigned)lo);
}
inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
inline float __fmaf_rz(float a, float b, float c) { return fmaf(a, b, c); }
inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __dadd_rn(double a, double b) { return a + b; }
inline float __frcp_rn(float a) { return 1.0f / a; }
inline float __fsqrt_rn(float a) { return sqrtf(a); }
inline float __frsqrt_rn(float a) { return 1.0f / sqrtf(a); }
inline float __exp10f(float x) { return powf(10.0f, x); }
inline float __log2f(float x) { return log2f(x); }
inline float __log10f(float x) { return log10f(x); }
inline float __tanf(float x) { return tanf(x); }
inline void __sincosf(float x, float* s, float* c) { *s = sinf(x); *c = cosf(x); }
inline void sincosf(float x, float* s, float* c) { *s = sinf(x); *c = cosf(x); }
inline float exp10f(float x) { return powf(10.0f, x); }
inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
inline float normcdff(float x) { return 0.5f * erfcf(-x * 0.70710678118654752f); }
inline double __saturate(double x) { return x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x); }
inline int __float2int_rn(float x) { return (int)nearbyintf(x); }
inline int __float2int_rz(float x) { return (int)x; }
inline int __float2int_rd(float x) { return (int)floorf(x); }
inline int __float2int_ru(float x) { return (int)ceilf(x); }
inline unsigned __float2uint_rn(float x) { return (unsigned)nearbyintf(x); }
inline float __int2float_rn(int x) { return (float)x; }
inline float __uint2float_rn(unsigned x) { return (float)x; }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
inline unsigned long long __brevll(unsigned long long x) {
  return ((unsigned long long)__brev((unsigned)x) << 32) | __brev((unsigned)(x >> 32));
}
inline int __mul24(int a, int b) {  // the low 32 bits of the product of a's and b's low 24 bits
  return (int)((unsigned)((long long)((a << 8) >> 8) * (long long)((b << 8) >> 8)));
}
inline unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffffu) * (b & 0xffffffu); }
inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  const unsigned long long v = ((unsigned long long)y << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) r |= (unsigned)((v >> (8 * ((s >> (4 * i)) & 7u))) & 0xffu) << (8 * i);
  return r;
}
inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned s) {
  return (unsigned)((((unsigned long long)hi << 32 | lo) << (s & 31u)) >> 32);
}
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s) {
  return (unsigned)(((unsigned long long)hi << 32 | lo) >> (s & 31u));
}
inline int __sad(int a, int b, unsigned c) { return (int)((a > b ? (unsigned)(a - b) : (unsigned)(b - a)) + c); }
inline unsigned __usad(unsigned a, unsigned b, unsigned c) { return (a > b ? a - b : b - a) + c; }
inline int __hadd(int a, int b) { return (int)(((long long)a + b) >> 1); }
inline int __rhadd(int a, int b) { return (int)(((long long)a + b + 1) >> 1); }
template <class T> inline T __ldcg(const T* p) { return *p; }
template <class T> inline T __ldca(const T* p) { return *p; }
template <class T> inline T __ldcs(const T* p) { return *p; }
template <class T> inline T __ldlu(const T* p) { return *p; }
template <class T> inline T __ldcv(const T* p) { return *p; }
template <class T> inline void __stcg(T* p, T v) { *p = v; }
template <class T> inline void __stcs(T* p, T v) { *p = v; }
template <class T> inline void __stwb(T* p, T v) { *p = v; }
inline void __nanosleep(unsigned) {}
template <class T> inline T __ldg(bs_in<T> p) { return p[0]; }
template <class T> inline T __ldg(bs_in<const T> p) { return p[0]; }
#define __builtin_assume(x) ((void)0)
#define __assume(x) ((void)0)
