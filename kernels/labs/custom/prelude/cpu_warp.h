// blockscope's warp-synchronous operations for the CPU simulator: __syncwarp, the shuffles, votes
// and warp reductions, __syncthreads_count/_and/_or. Appended after cpu_prelude.h when the kernel
// names one of them or includes <mma.h> or <cooperative_groups.h> (which are built on them), so a
// kernel without them does not pay their compile time.
#ifndef BS_CPU_WARP_H
#define BS_CPU_WARP_H
// ---------------------------------------------------------------------------------------------
// Warp-synchronous operations
// ---------------------------------------------------------------------------------------------
// A kernel that uses any of these runs its block as fibers (like __syncthreads), and the lanes
// of a warp meet at the simulator's warp barrier: a group of lanes waiting with mask M goes on
// when every lane M names that exists and has not exited waits with M. Each collective is: write
// my value to my lane's slot of the warp's exchange area, warp barrier, read, warp barrier. The
// shuffles follow the PTX ISA's shfl.sync (segments of `width` lanes; a source outside the
// segment gives the lane's own value). Reading a lane the mask does not name, or one the block
// does not have, is undefined on a GPU: here it reads all-ones bits (NaN, -1), as fresh shared
// memory does. __activemask() gives the lanes of the warp that exist: the simulator runs lanes
// one after another, so it cannot know which lanes "are active together".
inline unsigned bs_linear_tid() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
inline unsigned bs_lane() { return bs_linear_tid() % 32; }
inline unsigned bs_warp_lanes() {  // the lanes of the calling thread's warp that the block has
  const unsigned n = blockDim.x * blockDim.y * blockDim.z, first = bs_linear_tid() / 32 * 32;
  return n - first >= 32 ? 0xffffffffu : (1u << (n - first)) - 1u;
}
inline unsigned char* bs_warp_area(unsigned warp) { return bs_tls_launch->warp_exchange(bs_tls_ctx->host, warp); }
inline unsigned char* bs_warp_area() { return bs_warp_area(bs_linear_tid() / 32); }
inline void __syncwarp(unsigned mask = 0xffffffffu) {
  const bs_thread_ctx* me = bs_tls_ctx;
  bs_tls_launch->warp_sync(me->host, mask);
  bs_tls_ctx = me;
}
[[noreturn]] inline void bs_fail(const char* message) {
  bs_tls_launch->fail(bs_tls_ctx, message);
  __builtin_unreachable();
}
inline unsigned __activemask() { return bs_warp_lanes(); }
inline unsigned __lanemask_lt() { return (1u << bs_lane()) - 1u; }

// Every lane publishes `v` (8 bytes a slot), the lanes meet, `read(slots)` runs, they meet again.
template <class T, class Read> inline auto bs_warp_exchange(unsigned mask, T v, Read read) -> decltype(read((const unsigned char*)0)) {
  static_assert(sizeof(T) <= 8, "a warp exchange moves at most 8 bytes a lane");
  unsigned char* area = bs_warp_area();
  __builtin_memcpy(area + 8 * bs_lane(), &v, sizeof v);
  __syncwarp(mask);
  auto r = read(area);
  __syncwarp(mask);
  return r;
}
template <class T> inline T bs_slot(const unsigned char* area, unsigned lane) {
  T v;
  __builtin_memcpy(&v, area + 8 * lane, sizeof v);
  return v;
}
// shfl.sync: mode 0 idx, 1 up, 2 down, 3 bfly; c = CUDA's ((32 - width) << 8) | clamp.
template <class T> inline T bs_shfl(unsigned mask, T v, int mode, unsigned b, int width) {
  const unsigned lane = bs_lane();
  const unsigned seg = (unsigned)(32 - width) & 31u, clamp = mode == 1 ? 0u : 31u;
  const unsigned max_lane = (lane & seg) | (clamp & ~seg), min_lane = lane & seg;
  b &= 31u;
  int j = (int)lane;
  bool in = false;
  switch (mode) {
    case 0: j = (int)(min_lane | (b & ~seg)); in = j <= (int)max_lane; break;
    case 1: j = (int)lane - (int)b; in = j >= (int)max_lane; break;
    case 2: j = (int)(lane + b); in = j <= (int)max_lane; break;
    default: j = (int)(lane ^ b); in = j <= (int)max_lane; break;
  }
  if (!in) j = (int)lane;
  const unsigned src = (unsigned)j, valid = (mask | (1u << lane)) & bs_warp_lanes();
  return bs_warp_exchange(mask, v, [&](const unsigned char* area) {
    if (!(valid >> src & 1u)) {
      T bad;
      __builtin_memset(&bad, 0xFF, sizeof bad);
      return bad;
    }
    return bs_slot<T>(area, src);
  });
}
template <class T> inline T __shfl_sync(unsigned mask, T v, int src, int width = 32) { return bs_shfl(mask, v, 0, (unsigned)src, width); }
template <class T> inline T __shfl_up_sync(unsigned mask, T v, unsigned d, int width = 32) { return bs_shfl(mask, v, 1, d, width); }
template <class T> inline T __shfl_down_sync(unsigned mask, T v, unsigned d, int width = 32) { return bs_shfl(mask, v, 2, d, width); }
template <class T> inline T __shfl_xor_sync(unsigned mask, T v, int m, int width = 32) { return bs_shfl(mask, v, 3, (unsigned)m, width); }

// Folds the slots of the lanes in `mask` (that the block has) with `f`, starting from `init`.
template <class T, class F> inline T bs_warp_fold(unsigned mask, T v, T init, F f) {
  const unsigned valid = (mask | (1u << bs_lane())) & bs_warp_lanes();
  return bs_warp_exchange(mask, v, [&](const unsigned char* area) {
    T acc = init;
    for (unsigned l = 0; l < 32; ++l)
      if (valid >> l & 1u) acc = f(acc, bs_slot<T>(area, l), l);
    return acc;
  });
}
inline unsigned __ballot_sync(unsigned mask, int p) {
  return bs_warp_fold(mask, (unsigned)(p != 0), 0u, [](unsigned a, unsigned x, unsigned l) { return a | (x << l); });
}
inline int __any_sync(unsigned mask, int p) { return __ballot_sync(mask, p) != 0; }
inline int __all_sync(unsigned mask, int p) {
  const unsigned valid = (mask | (1u << bs_lane())) & bs_warp_lanes();
  return (__ballot_sync(mask, p) & valid) == valid;
}
inline int __uni_sync(unsigned mask, int p) { const unsigned b = __ballot_sync(mask, p); return b == 0 || b == ((mask | (1u << bs_lane())) & bs_warp_lanes()); }
inline unsigned __reduce_add_sync(unsigned mask, unsigned v) { return bs_warp_fold(mask, v, 0u, [](unsigned a, unsigned x, unsigned) { return a + x; }); }
inline int __reduce_add_sync(unsigned mask, int v) { return bs_warp_fold(mask, v, 0, [](int a, int x, unsigned) { return (int)((unsigned)a + (unsigned)x); }); }
inline unsigned __reduce_min_sync(unsigned mask, unsigned v) { return bs_warp_fold(mask, v, 0xffffffffu, [](unsigned a, unsigned x, unsigned) { return x < a ? x : a; }); }
inline int __reduce_min_sync(unsigned mask, int v) { return bs_warp_fold(mask, v, 0x7fffffff, [](int a, int x, unsigned) { return x < a ? x : a; }); }
inline unsigned __reduce_max_sync(unsigned mask, unsigned v) { return bs_warp_fold(mask, v, 0u, [](unsigned a, unsigned x, unsigned) { return x > a ? x : a; }); }
inline int __reduce_max_sync(unsigned mask, int v) { return bs_warp_fold(mask, v, (int)0x80000000, [](int a, int x, unsigned) { return x > a ? x : a; }); }
inline unsigned __reduce_and_sync(unsigned mask, unsigned v) { return bs_warp_fold(mask, v, 0xffffffffu, [](unsigned a, unsigned x, unsigned) { return a & x; }); }
inline unsigned __reduce_or_sync(unsigned mask, unsigned v) { return bs_warp_fold(mask, v, 0u, [](unsigned a, unsigned x, unsigned) { return a | x; }); }
inline unsigned __reduce_xor_sync(unsigned mask, unsigned v) { return bs_warp_fold(mask, v, 0u, [](unsigned a, unsigned x, unsigned) { return a ^ x; }); }
template <class T> inline unsigned __match_any_sync(unsigned mask, T v) {
  const unsigned valid = (mask | (1u << bs_lane())) & bs_warp_lanes();
  return bs_warp_exchange(mask, v, [&](const unsigned char* area) {
    unsigned m = 0;
    for (unsigned l = 0; l < 32; ++l)
      if (valid >> l & 1u && bs_slot<T>(area, l) == v) m |= 1u << l;
    return m;
  });
}
template <class T> inline unsigned __match_all_sync(unsigned mask, T v, int* pred) {
  const unsigned valid = (mask | (1u << bs_lane())) & bs_warp_lanes();
  const unsigned m = __match_any_sync(mask, v);
  *pred = m == valid;
  return m == valid ? valid : 0u;
}

// __syncthreads_count/_and/_or: each thread's predicate goes to its warp's slot, the block meets,
// every thread counts all slots, the block meets again.
inline int bs_syncthreads_count(int p) {
  const unsigned n = blockDim.x * blockDim.y * blockDim.z;
  int v = p != 0;
  __builtin_memcpy(bs_warp_area() + 8 * bs_lane(), &v, sizeof v);
  __syncthreads();
  int count = 0;
  for (unsigned t = 0; t < n; ++t) {
    int x;
    __builtin_memcpy(&x, bs_warp_area(t / 32) + 8 * (t % 32), sizeof x);
    count += x;
  }
  __syncthreads();
  return count;
}
inline int __syncthreads_count(int p) { return bs_syncthreads_count(p); }
inline int __syncthreads_and(int p) { return bs_syncthreads_count(p) == (int)(blockDim.x * blockDim.y * blockDim.z); }
inline int __syncthreads_or(int p) { return bs_syncthreads_count(p) != 0; }
#endif
