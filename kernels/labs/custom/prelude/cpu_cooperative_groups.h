// blockscope's <cooperative_groups.h> (and <cooperative_groups/reduce.h>) for the CPU simulator:
// the thread block and its tiles of 1..32 lanes. Appended when the kernel includes either (the
// line stays, blank). A tile's operations are the warp-synchronous ones of cpu_prelude.h section 6
// over the tile's lanes (mask and width = the tile's), so they meet at the simulator's warp
// barrier. Grid, cluster and multi-grid groups are refused before compiling (they need a
// cooperative launch or clusters, which the simulator does not have).
#ifndef BS_CPU_COOPERATIVE_GROUPS_H
#define BS_CPU_COOPERATIVE_GROUPS_H

namespace cooperative_groups {

class thread_block {
 public:
  void sync() const { __syncthreads(); }
  unsigned long long thread_rank() const { return bs_linear_tid(); }
  unsigned long long size() const { return (unsigned long long)blockDim.x * blockDim.y * blockDim.z; }
  unsigned long long num_threads() const { return size(); }
  dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  dim3 dim_threads() const { return dim3(blockDim.x, blockDim.y, blockDim.z); }
  dim3 group_dim() const { return dim_threads(); }
  unsigned long long block_rank() const { return 0; }
};
inline thread_block this_thread_block() { return thread_block(); }

// A tile of `n` consecutive threads of the block (n a power of two, at most 32: inside a warp).
class bs_tile {
 public:
  explicit bs_tile(unsigned n) : n_(n) {
    if (n == 0 || n > 32 || (n & (n - 1)) != 0)
      bs_fail("cooperative_groups::tiled_partition: the CPU simulator has tiles of 1, 2, 4, 8, 16 or 32 threads");
    const unsigned lane = bs_lane();
    mask_ = (n == 32 ? 0xffffffffu : ((1u << n) - 1u) << (lane / n * n)) & bs_warp_lanes();
  }
  void sync() const { __syncwarp(mask_); }
  unsigned long long thread_rank() const { return bs_linear_tid() % n_; }
  unsigned long long size() const { return n_; }
  unsigned long long num_threads() const { return n_; }
  unsigned long long meta_group_rank() const { return bs_linear_tid() / n_; }
  unsigned long long meta_group_size() const {
    return ((unsigned long long)blockDim.x * blockDim.y * blockDim.z + n_ - 1) / n_;
  }
  template <class T> T shfl(T v, int src) const { return __shfl_sync(mask_, v, src, (int)n_); }
  template <class T> T shfl_down(T v, unsigned d) const { return __shfl_down_sync(mask_, v, d, (int)n_); }
  template <class T> T shfl_up(T v, unsigned d) const { return __shfl_up_sync(mask_, v, d, (int)n_); }
  template <class T> T shfl_xor(T v, int m) const { return __shfl_xor_sync(mask_, v, m, (int)n_); }
  int any(int p) const { return __any_sync(mask_, p); }
  int all(int p) const { return __all_sync(mask_, p); }
  unsigned ballot(int p) const { return __ballot_sync(mask_, p) >> (bs_lane() / n_ * n_ % 32); }
  template <class T> unsigned match_any(T v) const { return __match_any_sync(mask_, v) >> (bs_lane() / n_ * n_ % 32); }

 private:
  unsigned n_, mask_;
};
typedef bs_tile thread_group;  // what tiled_partition(block, n) returns

template <unsigned N> class thread_block_tile : public bs_tile {
  static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0,
                "the CPU simulator has tiles of 1, 2, 4, 8, 16 or 32 threads");

 public:
  thread_block_tile() : bs_tile(N) {}
  enum { bs_size = N };
};
template <unsigned N, class Parent> inline thread_block_tile<N> tiled_partition(const Parent&) { return thread_block_tile<N>(); }
inline thread_group tiled_partition(const thread_block&, unsigned n) { return thread_group(n); }
inline thread_group tiled_partition(const thread_group&, unsigned n) { return thread_group(n); }

template <class G> inline void sync(const G& g) { g.sync(); }
template <class G> inline unsigned long long thread_rank(const G& g) { return g.thread_rank(); }
template <class G> inline unsigned long long group_size(const G& g) { return g.size(); }

// <cooperative_groups/reduce.h>: the operators and reduce() over a tile (a butterfly of shfl_xor,
// so every lane gets the result, as CUDA's does).
template <class T> struct plus { T operator()(const T& a, const T& b) const { return a + b; } };
template <class T> struct less { T operator()(const T& a, const T& b) const { return b < a ? b : a; } };
template <class T> struct greater { T operator()(const T& a, const T& b) const { return a < b ? b : a; } };
template <class T> struct bit_and { T operator()(const T& a, const T& b) const { return a & b; } };
template <class T> struct bit_or { T operator()(const T& a, const T& b) const { return a | b; } };
template <class T> struct bit_xor { T operator()(const T& a, const T& b) const { return a ^ b; } };
template <class T, class Op> inline T reduce(const bs_tile& g, T v, Op op) {
  for (unsigned m = (unsigned)g.size() / 2; m > 0; m /= 2) v = op(v, g.shfl_xor(v, (int)m));
  return v;
}
template <class T, class Op> inline T inclusive_scan(const bs_tile& g, T v, Op op) {
  for (unsigned d = 1; d < g.size(); d *= 2) {
    const T o = g.shfl_up(v, d);
    if (g.thread_rank() >= d) v = op(o, v);
  }
  return v;
}
template <class T> inline T inclusive_scan(const bs_tile& g, T v) { return inclusive_scan(g, v, plus<T>()); }

}  // namespace cooperative_groups
#endif
