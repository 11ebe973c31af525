// blockscope's CPU prelude: what a CUDA kernel needs to compile with the host C++ compiler and run
// on the grid simulator, one simulated thread per call of the generated bs_cpu_thread().
//
// Sections
//   1. CUDA's keywords and built-in variables
//   2. __shared__ and __syncthreads()
//   3. Bounds-checked views of the kernel's pointer arguments (and the owner record)
//   4. Device functions the lecture's kernels use: math, min/max, cdiv, atomics
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
template <class T> inline T bs_atomic_add(T* p, T v) {
  T old, want;
  __atomic_load(p, &old, __ATOMIC_RELAXED);
  do { want = old + v; } while (!__atomic_compare_exchange(p, &old, &want, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
  return old;
}
inline int atomicAdd(int* p, int v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
inline unsigned atomicAdd(unsigned* p, unsigned v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
  return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}
inline float atomicAdd(float* p, float v) { return bs_atomic_add(p, v); }
inline double atomicAdd(double* p, double v) { return bs_atomic_add(p, v); }
inline int atomicMax(int* p, int v) {
  int old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (old < v && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
  return old;
}
inline int atomicMin(int* p, int v) {
  int old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (old > v && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
  return old;
}
template <class T> inline T atomicExch(T* p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_RELAXED); }
template <class T> inline T atomicCAS(T* p, T expected, T desired) {
  __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return expected;
}
// atomicAdd(&out[i], v) and atomicAdd(out + i, v) on an output argument: checked and recorded.
template <class T, class V> inline T atomicAdd(bs_out<T> p, V v) { return atomicAdd(p[0].bs_store_address(), (T)v); }
template <class T, class V> inline T atomicMax(bs_out<T> p, V v) { return atomicMax(p[0].bs_store_address(), (T)v); }
template <class T, class V> inline T atomicMin(bs_out<T> p, V v) { return atomicMin(p[0].bs_store_address(), (T)v); }
