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
  std::string run_block(const GridSimulator::ErasedKernel& kernel, const HostCtx& block_ctx, void* shared,
                        unsigned* finished);

  // Called from inside a fiber by HostCtx::sync().
  void arrive_at_barrier();
  // Called from inside a fiber by HostCtx::sync_warp(mask): returns once every lane of the
  // caller's warp named in `mask` (those that exist in the block and have not finished) waits
  // with the same mask. The caller's own lane is always part of it.
  void arrive_at_warp_barrier(unsigned mask);
  // HostCtx::warp_scratch(): warp `warp`'s part of this block's exchange area.
  unsigned char* warp_scratch(unsigned warp);

 private:
  enum class Wait { None, Block, Warp };
  struct Fiber {
    ucontext_t context{};
    std::unique_ptr<unsigned char[]> stack;
    HostCtx ctx;
    bool done = false;
    Wait wait = Wait::None;
    unsigned mask = 0;  // Wait::Warp: the lanes it waits with (normalised: existing lanes, own bit)
  };
  // Lanes of warp `warp` that exist in a block of `n` threads, as a mask.
  static unsigned lanes_of(std::size_t warp, std::size_t n);
  // Releases every group of lanes waiting at a warp barrier whose mask is complete.
  bool release_warp_groups();
  std::string warp_deadlock(const HostCtx& block_ctx) const;
  static void entry(unsigned self_lo, unsigned self_hi);
  void switch_to_fiber(Fiber& f);
  void switch_to_scheduler();

  static constexpr std::size_t kStackBytes = 128 * 1024;
  std::vector<Fiber> fibers_;
  std::size_t threads_ = 0;  // of the block now running
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
