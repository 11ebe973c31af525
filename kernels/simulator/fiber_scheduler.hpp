// Private to the simulator: runs the threads of one block as fibers (ucontext) so that a
// barrier can stop each thread until all of the block's threads have reached it.
#pragma once
#include <ucontext.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "simulator/grid_simulator.hpp"

namespace bs::sim {

class FiberScheduler {
 public:
  FiberScheduler() = default;
  FiberScheduler(const FiberScheduler&) = delete;
  FiberScheduler& operator=(const FiberScheduler&) = delete;

  // Runs every thread of the block described by `block_ctx` (threadIdx ignored) to completion,
  // phase by phase. Returns an error message on barrier divergence, empty on success;
  // *finished counts the threads whose body returned.
  std::string run_block(const GridSimulator::ErasedKernel& kernel, const HostCtx& block_ctx,
                        void* shared, unsigned* finished);

  // Called from inside a fiber by HostCtx::sync().
  void arrive_at_barrier();
  // HostCtx::warp_scratch(): warp `warp`'s part of this block's exchange area.
  unsigned char* warp_scratch(unsigned warp);

 private:
  struct Fiber {
    ucontext_t context{};
    std::unique_ptr<unsigned char[]> stack;
    HostCtx ctx;
    bool done = false;
  };
  static void entry(unsigned self_lo, unsigned self_hi);
  void switch_to_fiber(Fiber& f);
  void switch_to_scheduler();

  static constexpr std::size_t kStackBytes = 128 * 1024;
  std::vector<Fiber> fibers_;
  ucontext_t scheduler_{};
  Fiber* current_ = nullptr;
  const GridSimulator::ErasedKernel* kernel_ = nullptr;
  void* shared_ = nullptr;
  std::vector<unsigned char> warp_scratch_;  // one HostCtx::kWarpScratchBytes per warp of the block
  // AddressSanitizer must be told about stack switches, or it reports false positives.
  void* asan_fake_stack_ = nullptr;
  const void* asan_scheduler_stack_bottom_ = nullptr;
  std::size_t asan_scheduler_stack_size_ = 0;
};

}  // namespace bs::sim
