#include "simulator/fiber_scheduler.hpp"

#include <cstdint>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BS_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define BS_ASAN 1
#endif
#if defined(BS_ASAN)
#include <sanitizer/common_interface_defs.h>
#endif

namespace bs::sim {

void HostCtx::sync() const {
  if (!barrier) throw MissingBarrierSupport();
  barrier->arrive_at_barrier();
}

unsigned char* HostCtx::warp_scratch() const {
  if (!barrier) throw MissingBarrierSupport();
  const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  return barrier->warp_scratch(tid / 32);
}

unsigned char* FiberScheduler::warp_scratch(unsigned warp) {
  return warp_scratch_.data() + static_cast<std::size_t>(warp) * HostCtx::kWarpScratchBytes;
}

void FiberScheduler::entry(unsigned self_lo, unsigned self_hi) {
  auto* self = reinterpret_cast<FiberScheduler*>(static_cast<std::uintptr_t>(self_lo) |
                                                 (static_cast<std::uintptr_t>(self_hi) << 32));
#if defined(BS_ASAN)
  __sanitizer_finish_switch_fiber(nullptr, &self->asan_scheduler_stack_bottom_,
                                  &self->asan_scheduler_stack_size_);
#endif
  Fiber& f = *self->current_;
  self->kernel_->run_thread(self->kernel_->user, f.ctx, self->shared_);
  f.done = true;
  // Leave for good: ASan is told this fiber's stack is gone (nullptr fake stack save).
#if defined(BS_ASAN)
  __sanitizer_start_switch_fiber(nullptr, self->asan_scheduler_stack_bottom_,
                                 self->asan_scheduler_stack_size_);
#endif
  setcontext(&self->scheduler_);
}

void FiberScheduler::switch_to_fiber(Fiber& f) {
  current_ = &f;
#if defined(BS_ASAN)
  __sanitizer_start_switch_fiber(&asan_fake_stack_, f.stack.get(), kStackBytes);
#endif
  swapcontext(&scheduler_, &f.context);
#if defined(BS_ASAN)
  __sanitizer_finish_switch_fiber(asan_fake_stack_, nullptr, nullptr);
#endif
}

void FiberScheduler::switch_to_scheduler() {
  Fiber& f = *current_;
#if defined(BS_ASAN)
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(&fake, asan_scheduler_stack_bottom_, asan_scheduler_stack_size_);
#endif
  swapcontext(&f.context, &scheduler_);
#if defined(BS_ASAN)
  __sanitizer_finish_switch_fiber(fake, &asan_scheduler_stack_bottom_, &asan_scheduler_stack_size_);
#endif
}

void FiberScheduler::arrive_at_barrier() { switch_to_scheduler(); }

std::string FiberScheduler::run_block(const GridSimulator::ErasedKernel& kernel,
                                      const HostCtx& block_ctx, void* shared, unsigned* finished_out) {
  *finished_out = 0;
  const Dim3 bd = block_ctx.blockDim;
  const std::size_t n = static_cast<std::size_t>(bd.volume());
  if (fibers_.size() < n) fibers_.resize(n);
  kernel_ = &kernel;
  shared_ = shared;
  const std::size_t warps = (n + 31) / 32;
  if (warp_scratch_.size() < warps * HostCtx::kWarpScratchBytes) warp_scratch_.resize(warps * HostCtx::kWarpScratchBytes);
  const auto self = reinterpret_cast<std::uintptr_t>(this);

  for (std::size_t i = 0; i < n; ++i) {
    Fiber& f = fibers_[i];
    if (!f.stack) f.stack = std::make_unique<unsigned char[]>(kStackBytes);
    f.ctx = block_ctx;
    f.ctx.barrier = this;
    f.ctx.threadIdx = Dim3{static_cast<unsigned>(i % bd.x),
                           static_cast<unsigned>((i / bd.x) % bd.y),
                           static_cast<unsigned>(i / (static_cast<std::size_t>(bd.x) * bd.y))};
    f.done = false;
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = f.stack.get();
    f.context.uc_stack.ss_size = kStackBytes;
    f.context.uc_link = nullptr;  // entry() leaves with setcontext, never by returning
    makecontext(&f.context, reinterpret_cast<void (*)()>(&FiberScheduler::entry), 2,
                static_cast<unsigned>(self & 0xffffffffu), static_cast<unsigned>(self >> 32));
  }

  // One phase = every live thread runs until it reaches the next barrier or finishes. A barrier
  // is passed only when the phase is over, so no thread reads what others have not yet written.
  for (unsigned phase = 0;; ++phase) {
    std::size_t finished = 0, waiting = 0;
    for (std::size_t i = 0; i < n; ++i) {
      Fiber& f = fibers_[i];
      if (f.done) continue;
      switch_to_fiber(f);
      (f.done ? finished : waiting) += 1;
      if (f.done) ++*finished_out;
    }
    if (waiting == 0) return {};
    if (finished > 0 || waiting != n)
      return "barrier divergence in block " + to_string(block_ctx.blockIdx) + ": " +
             std::to_string(waiting) + " of " + std::to_string(n) +
             " threads wait at __syncthreads() #" + std::to_string(phase + 1) +
             " while the others have exited (undefined behaviour on a GPU)";
  }
}

}  // namespace bs::sim
