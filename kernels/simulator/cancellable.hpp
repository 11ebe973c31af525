// A CPU engine whose simulated launches can stop between blocks (the simulator reads
// SimOptions::cancel before each block): the lab hands it the run's cancel flag for the run's
// span, so a cancelled slow simulation ends within a block's time, not at the end of the launch
// (k3 at 512^3 on two cores: 11.6 s). GPU engines have nothing to stop mid-launch and are not one.
#pragma once
#include <atomic>

namespace bs::sim {

class Cancellable {
 public:
  virtual ~Cancellable() = default;
  // The flag the next launches read before each block; null: none. The caller keeps it alive.
  virtual void set_cancel(const std::atomic<bool>* cancel) = 0;
};

// The flag on `engine` (when it is Cancellable) for a scope, taken off after. A run already
// cancelled when it starts keeps lab::measure's contract (one repeat, so there is a record, then
// it stops: kernels/lab/measure.hpp), as the user kernels' runner does; a cancel that arrives
// while it runs stops the simulation between blocks.
template <class Engine>
class CancelScope {
 public:
  CancelScope(Engine* engine, const std::atomic<bool>* cancel) : target_(dynamic_cast<Cancellable*>(engine)) {
    if (cancel && cancel->load(std::memory_order_relaxed)) target_ = nullptr;
    if (target_) target_->set_cancel(cancel);
  }
  ~CancelScope() {
    if (target_) target_->set_cancel(nullptr);
  }
  CancelScope(const CancelScope&) = delete;
  CancelScope& operator=(const CancelScope&) = delete;

 private:
  Cancellable* target_;
};

}  // namespace bs::sim
