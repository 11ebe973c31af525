// The CPU backend: runs a kernel's own per-thread body for every thread of every block, as the
// lecture's Python `blk_kernel` simulator does, with blockIdx, threadIdx, blockDim and gridDim set.
//
// Blocks are spread over worker threads in any order (as on the GPU, blocks are independent).
// Within a block, kernels that never call sync() run thread after thread in a plain loop. Kernels
// that use __syncthreads (shared-memory tiling) must say so with `uses_barriers`: each of the
// block's threads then runs as a fiber, and a barrier lets no thread pass until every thread of
// the block has reached it, exactly the guarantee the CUDA code relies on. A thread that finishes
// while others wait at a barrier is reported as barrier divergence (undefined behaviour in CUDA).
#pragma once
#include <atomic>
#include <cstddef>
#include <memory>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "core/launch.hpp"
#include "core/launch_record.hpp"
#include "core/shared_access.hpp"
#include "core/status.hpp"

namespace bs::sim {

class FiberScheduler;  // private to the simulator
class SharedRecorder;  // shared_recorder.hpp
struct SharedLog;

// Thrown by sync() when a kernel that calls __syncthreads is run without `uses_barriers`: a bug in
// the launcher, reported as a Status, not a crash.
struct MissingBarrierSupport : std::logic_error {
  MissingBarrierSupport() : std::logic_error("kernel called sync() but was simulated without barrier support") {}
};

// The context a kernel body sees on the CPU; same fields as bs::DeviceCtx.
struct HostCtx {
  Dim3 blockIdx, threadIdx, blockDim, gridDim;
  FiberScheduler* barrier = nullptr;
  void sync() const;
  // __syncwarp(mask): waits for the lanes of this thread's warp named in `mask` (fibers only,
  // as sync(); FiberScheduler::arrive_at_warp_barrier says when a group is released).
  void sync_warp(unsigned mask) const;
  // 2 KB shared by the 32 lanes of this thread's warp, where warp-collective operations (mma,
  // ldmatrix: labs/matmul/tc_warp_ops.hpp) swap registers between two sync()s. Needs
  // `uses_barriers` (the lanes must all reach the exchange): MissingBarrierSupport otherwise.
  unsigned char* warp_scratch() const;
  unsigned char* warp_scratch_of(unsigned warp) const;  // another warp's (block-wide exchanges)
  static constexpr std::size_t kWarpScratchBytes = 32 * 64;
  // The block's shared-memory log when SimOptions::shared_recorder records this block, else
  // null: shared_access (core/shared_access.hpp) then costs one test.
  SharedLog* shared_log = nullptr;
  void shared_access(const void* p, unsigned bytes, SharedOp op, const SharedSite& site) const {
    if (shared_log) record_shared(p, bytes, op, site);
  }
  void record_shared(const void* p, unsigned bytes, SharedOp op, const SharedSite& site) const;
};

struct SimOptions {
  unsigned workers = 0;          // 0: one per hardware thread
  bool uses_barriers = false;    // run threads of a block as fibers so sync() is honoured
  bool record_schedule = false;  // fill SimResult::schedule (worker and times per block)
  // Record the shared-memory accesses of the blocks it names (shared_recorder.hpp); null for
  // every timed run.
  SharedRecorder* shared_recorder = nullptr;
  const std::atomic<bool>* cancel = nullptr;
};

struct SimResult {
  Status status;
  std::vector<BlockTrace> schedule;  // index = linear block id (x fastest) when recorded
  double elapsed_ms = 0;
  unsigned workers_used = 0;
};

class GridSimulator {
 public:
  explicit GridSimulator(unsigned workers = 0);
  ~GridSimulator();
  GridSimulator(const GridSimulator&) = delete;
  GridSimulator& operator=(const GridSimulator&) = delete;

  unsigned workers() const { return workers_; }

  // body(const HostCtx&) for every thread.
  template <class Body>
  SimResult run(const LaunchConfig& config, Body&& body, SimOptions options = {}) {
    struct NoShared {};
    return run_with_shared<NoShared>(
        config, [&body](const HostCtx& t, NoShared&) { body(t); }, options);
  }

  // body(const HostCtx&, Shared&) for every thread; one Shared per block plays the role of the
  // kernel's __shared__ struct. Shared must be default-constructible.
  template <class Shared, class Body>
  SimResult run_with_shared(const LaunchConfig& config, Body&& body, SimOptions options = {}) {
    using B = std::remove_reference_t<Body>;
    ErasedKernel k;
    k.user = const_cast<void*>(static_cast<const void*>(&body));
    k.shared_size = sizeof(Shared);
    k.shared_align = alignof(Shared);
    k.construct_shared = [](void* p) { ::new (p) Shared(); };
    k.destroy_shared = [](void* p) { static_cast<Shared*>(p)->~Shared(); };
    k.run_thread = [](void* user, const HostCtx& t, void* shared) {
      (*static_cast<B*>(user))(t, *static_cast<Shared*>(shared));
    };
    // The loop version keeps the per-thread call inlined: no indirect call per thread.
    k.run_block_loop = [](void* user, HostCtx t, void* shared) -> unsigned {
      B& f = *static_cast<B*>(user);
      Shared& s = *static_cast<Shared*>(shared);
      unsigned ran = 0;  // the census: body calls made, counted as they are made
      for (unsigned z = 0; z < t.blockDim.z; ++z)
        for (unsigned y = 0; y < t.blockDim.y; ++y)
          for (unsigned x = 0; x < t.blockDim.x; ++x) {
            t.threadIdx = Dim3{x, y, z};
            f(t, s);
            ++ran;
          }
      return ran;
    };
    return run_erased(config, k, options);
  }

  struct ErasedKernel {
    void* user = nullptr;
    std::size_t shared_size = 0, shared_align = 1;
    void (*construct_shared)(void*) = nullptr;
    void (*destroy_shared)(void*) = nullptr;
    void (*run_thread)(void*, const HostCtx&, void*) = nullptr;
    unsigned (*run_block_loop)(void*, HostCtx, void*) = nullptr;  // returns the calls made
  };

 private:
  SimResult run_erased(const LaunchConfig& config, const ErasedKernel& kernel, const SimOptions& options);

  unsigned workers_;
  std::vector<std::unique_ptr<FiberScheduler>> fiber_pools_;  // one per worker, reused
};

// The limits the simulator enforces: CUDA's, so a shape refused here is refused on the GPU.
inline DeviceLimits simulator_limits(unsigned workers) {
  DeviceLimits l = DeviceLimits::cuda_defaults();
  l.name = "CPU simulation";
  l.sm_count = workers;  // each worker plays one SM in the schedule view
  return l;
}

}  // namespace bs::sim
