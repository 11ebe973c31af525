#include "simulator/fiber_scheduler.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>

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

void HostCtx::sync_warp(unsigned mask) const {
  if (!barrier) throw MissingBarrierSupport();
  barrier->arrive_at_warp_barrier(mask);
}

unsigned char* HostCtx::warp_scratch_of(unsigned warp) const {
  if (!barrier) throw MissingBarrierSupport();
  return barrier->warp_scratch(warp);
}

unsigned char* FiberScheduler::warp_scratch(unsigned warp) {
  return warp_scratch_.data() + static_cast<std::size_t>(warp) * HostCtx::kWarpScratchBytes;
}

void FiberScheduler::entry(unsigned self_lo, unsigned self_hi) {
  auto* self = reinterpret_cast<FiberScheduler*>(static_cast<std::uintptr_t>(self_lo) |
                                                 (static_cast<std::uintptr_t>(self_hi) << 32));
#if defined(BS_ASAN)
  __sanitizer_finish_switch_fiber(nullptr, &self->asan_scheduler_stack_bottom_, &self->asan_scheduler_stack_size_);
#endif
  Fiber& f = *self->current_;
  self->kernel_->run_thread(self->kernel_->user, f.ctx, self->shared_);
  f.done = true;
  // Leave for good: ASan is told this fiber's stack is gone (nullptr fake stack save).
#if defined(BS_ASAN)
  __sanitizer_start_switch_fiber(nullptr, self->asan_scheduler_stack_bottom_, self->asan_scheduler_stack_size_);
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

void FiberScheduler::arrive_at_barrier() {
  current_->wait = Wait::Block;
  switch_to_scheduler();
}

unsigned FiberScheduler::lanes_of(std::size_t warp, std::size_t n) {
  const std::size_t first = warp * 32;
  const std::size_t count = n > first ? std::min<std::size_t>(32, n - first) : 0;
  return count >= 32 ? 0xffffffffu : (1u << count) - 1u;
}

void FiberScheduler::arrive_at_warp_barrier(unsigned mask) {
  Fiber& f = *current_;
  const std::size_t index = static_cast<std::size_t>(&f - fibers_.data());
  f.wait = Wait::Warp;
  f.mask = (mask | (1u << (index % 32))) & lanes_of(index / 32, threads_);
  switch_to_scheduler();
}

bool FiberScheduler::release_warp_groups() {
  bool released = false;
  for (std::size_t w = 0; w * 32 < threads_; ++w) {
    Fiber* lane = fibers_.data() + w * 32;
    const unsigned lanes = lanes_of(w, threads_);
    for (unsigned l = 0; l < 32; ++l) {
      if (!(lanes >> l & 1u) || lane[l].wait != Wait::Warp) continue;
      const unsigned m = lane[l].mask;
      bool complete = true;
      for (unsigned j = 0; j < 32 && complete; ++j)
        if (m >> j & 1u) complete = lane[j].done || (lane[j].wait == Wait::Warp && lane[j].mask == m);
      if (!complete) continue;
      for (unsigned j = 0; j < 32; ++j)
        if (m >> j & 1u && !lane[j].done) lane[j].wait = Wait::None;
      released = true;
    }
  }
  return released;
}

// Called when no fiber can run and some wait at a warp barrier: names the first lane that waits
// and the lane of its mask that keeps it waiting.
std::string FiberScheduler::warp_deadlock(const HostCtx& block_ctx) const {
  for (std::size_t i = 0; i < threads_; ++i) {
    const Fiber& f = fibers_[i];
    if (f.done || f.wait != Wait::Warp) continue;
    const std::size_t w = i / 32;
    for (unsigned j = 0; j < 32; ++j) {
      if (!(f.mask >> j & 1u)) continue;
      const Fiber& o = fibers_[w * 32 + j];
      if (o.done || (o.wait == Wait::Warp && o.mask == f.mask)) continue;
      char masks[64];
      std::snprintf(masks, sizeof masks, "0x%08x", f.mask);
      std::string other = o.wait == Wait::Block ? "waits at __syncthreads()" : "waits at one with mask ";
      if (o.wait == Wait::Warp) {
        char om[16];
        std::snprintf(om, sizeof om, "0x%08x", o.mask);
        other += om;
      }
      return "warp-synchronous deadlock in block " + to_string(block_ctx.blockIdx) + ", warp " + std::to_string(w) +
             ": lane " + std::to_string(i % 32) +
             " waits at a warp operation (__syncwarp, a __shfl/__ballot/__any/__all *_sync, wmma, a "
             "cooperative_groups tile) with mask " +
             masks + ", but lane " + std::to_string(j) + ", named in that mask, " + other +
             ". Every lane a mask names must reach the same warp operation (on a GPU this hangs or is "
             "undefined behaviour)";
    }
  }
  return "warp-synchronous deadlock in block " + to_string(block_ctx.blockIdx);
}

std::string FiberScheduler::run_block(const GridSimulator::ErasedKernel& kernel, const HostCtx& block_ctx, void* shared,
                                      unsigned* finished_out) {
  *finished_out = 0;
  const Dim3 bd = block_ctx.blockDim;
  const std::size_t n = static_cast<std::size_t>(bd.volume());
  if (fibers_.size() < n) fibers_.resize(n);
  kernel_ = &kernel;
  shared_ = shared;
  threads_ = n;
  const std::size_t warps = (n + 31) / 32;
  if (warp_scratch_.size() < warps * HostCtx::kWarpScratchBytes)
    warp_scratch_.resize(warps * HostCtx::kWarpScratchBytes);
  const auto self = reinterpret_cast<std::uintptr_t>(this);

  for (std::size_t i = 0; i < n; ++i) {
    Fiber& f = fibers_[i];
    if (!f.stack) f.stack = std::make_unique<unsigned char[]>(kStackBytes);
    f.ctx = block_ctx;
    f.ctx.barrier = this;
    f.ctx.threadIdx = Dim3{static_cast<unsigned>(i % bd.x), static_cast<unsigned>((i / bd.x) % bd.y),
                           static_cast<unsigned>(i / (static_cast<std::size_t>(bd.x) * bd.y))};
    f.done = false;
    f.wait = Wait::None;
    f.mask = 0;
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = f.stack.get();
    f.context.uc_stack.ss_size = kStackBytes;
    f.context.uc_link = nullptr;  // entry() leaves with setcontext, never by returning
    makecontext(&f.context, reinterpret_cast<void (*)()>(&FiberScheduler::entry), 2,
                static_cast<unsigned>(self & 0xffffffffu), static_cast<unsigned>(self >> 32));
  }

  // One phase = every live thread runs until it reaches the next barrier or finishes. A barrier
  // is passed only when the phase is over, so no thread reads what others have not yet written.
  // Within a phase, lanes that wait at a warp barrier are released as soon as every lane their
  // mask names waits there too (or has finished), and run on.
  for (unsigned phase = 0;;) {
    for (std::size_t i = 0; i < n; ++i) {
      Fiber& f = fibers_[i];
      if (f.done || f.wait != Wait::None) continue;
      switch_to_fiber(f);
      if (f.done) ++*finished_out;
    }
    if (release_warp_groups()) continue;
    std::size_t finished = 0, at_block = 0, at_warp = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const Fiber& f = fibers_[i];
      if (f.done) ++finished;
      else if (f.wait == Wait::Block) ++at_block;
      else if (f.wait == Wait::Warp) ++at_warp;
    }
    if (at_warp > 0) return warp_deadlock(block_ctx);
    if (at_block == 0) return {};
    if (finished > 0)
      return "barrier divergence in block " + to_string(block_ctx.blockIdx) + ": " + std::to_string(at_block) + " of " +
             std::to_string(n) + " threads wait at __syncthreads() #" + std::to_string(phase + 1) +
             " while the others have exited (undefined behaviour on a GPU)";
    for (std::size_t i = 0; i < n; ++i) fibers_[i].wait = Wait::None;
    ++phase;
  }
}

}  // namespace bs::sim
