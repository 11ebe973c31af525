// blockscope's GPU prelude: compiled by NVRTC in front of the user's kernel.
//
// NVRTC cannot include the project's headers (they pull in the C++ standard library), so the few
// lines of the block recorder (kernels/trace/block_trace.cuh) are restated here. They must stay
// equal: the record layout is checked by the static_assert below and by tests/custom (field
// names and order against kernels/trace/trace_record.hpp), and the host reads the records with
// bs::trace::records_to_trace, the same function every built-in traced kernel uses.

// One per block, at index = linear block id (x fastest); zeroed before the launch.
struct bs_block_record {
  unsigned long long start_ns;  // %globaltimer when thread (0,0,0) entered the block
  unsigned long long end_ns;    // %globaltimer after the block's final barrier
  unsigned int smid;            // %smid: the SM the block ran on
  unsigned int writes;          // 1 after a correct run
  unsigned int threads;         // threads that reached the block's end (each warp adds its lanes)
  // The block's thread block cluster (kernels/trace/trace_record.hpp): user kernels launch
  // without clusters, so this recorder leaves them zero (flags 0: not read).
  unsigned int cluster_flags;
  unsigned int cluster_id[3];
  unsigned int cluster_rank;
  unsigned int cluster_count[3];
  unsigned int cluster_blocks;
};
static_assert(sizeof(bs_block_record) == 64, "the device and host layouts must agree");

__device__ __forceinline__ unsigned int bs_sm_id() {
  unsigned int id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

__device__ __forceinline__ unsigned long long bs_global_timer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Lives for the whole traced entry: start time on entry; on exit every thread passes a barrier
// (the block's work is done), the first live lane of each warp adds its warp's live lanes to the
// thread census, then thread (0,0,0) writes {start, end, smid} and counts the write.
class bs_block_recorder {
 public:
  __device__ explicit bs_block_recorder(bs_block_record* records) : records_(records) {
    if (first()) start_ = bs_global_timer_ns();
  }
  __device__ ~bs_block_recorder() {
    __syncthreads();
    if (records_) {
      const unsigned int live = __activemask();
      unsigned int lane;
      asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
      if (lane == (unsigned int)(__ffs(live) - 1)) atomicAdd(&records_[linear_block()].threads, (unsigned int)__popc(live));
    }
    if (records_ && first()) {
      const unsigned long long end = bs_global_timer_ns();
      bs_block_record& r = records_[linear_block()];
      r.start_ns = start_;
      r.end_ns = end;
      r.smid = bs_sm_id();
      atomicAdd(&r.writes, 1u);
    }
  }

 private:
  __device__ static bool first() { return threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0; }
  __device__ static unsigned long long linear_block() {
    return blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
  }
  bs_block_record* records_;
  unsigned long long start_ = 0;
};

// The lecture's notebook defines `cdiv` in its C++ prelude and its tiled kernels call it; given
// here (and in the CPU prelude) so those kernels paste unchanged.
template <class A, class B>
__host__ __device__ inline auto cdiv(A a, B b) -> decltype((a + b - 1) / b) {
  return (a + b - 1) / b;
}
