#include "simulator/grid_simulator.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "simulator/fiber_scheduler.hpp"
#include "simulator/shared_recorder.hpp"

namespace bs::sim {
namespace {

using Clock = std::chrono::steady_clock;

Dim3 block_of_linear(unsigned long long linear, const Dim3& grid) {
  return Dim3{static_cast<unsigned>(linear % grid.x), static_cast<unsigned>((linear / grid.x) % grid.y),
              static_cast<unsigned>(linear / (static_cast<unsigned long long>(grid.x) * grid.y))};
}

// Shared memory for one block, aligned for the kernel's Shared struct.
class SharedSlot {
 public:
  SharedSlot(std::size_t size, std::size_t align)
      : align_(std::max<std::size_t>(align, alignof(std::max_align_t))),
        size_(std::max<std::size_t>(size, 1)),
        storage_(static_cast<unsigned char*>(::operator new(size_, std::align_val_t(align_)))) {}
  ~SharedSlot() { ::operator delete(storage_, std::align_val_t(align_)); }
  SharedSlot(const SharedSlot&) = delete;
  SharedSlot& operator=(const SharedSlot&) = delete;
  void* get() const { return storage_; }

 private:
  std::size_t align_, size_;
  unsigned char* storage_;
};

}  // namespace

GridSimulator::GridSimulator(unsigned workers)
    : workers_(workers ? workers : std::max(1u, std::thread::hardware_concurrency())) {
  fiber_pools_.resize(workers_);
}

GridSimulator::~GridSimulator() = default;

SimResult GridSimulator::run_erased(const LaunchConfig& config, const ErasedKernel& kernel, const SimOptions& options) {
  SimResult result;
  if (Status s = validate_launch(config, simulator_limits(workers_)); !s) {
    result.status = s;
    return result;
  }
  const unsigned workers = std::min<unsigned>(options.workers ? options.workers : workers_, workers_);
  const unsigned long long blocks = config.grid.volume();
  const unsigned used = static_cast<unsigned>(std::min<unsigned long long>(workers, blocks));
  result.workers_used = used;
  if (options.record_schedule) result.schedule.resize(blocks);

  std::atomic<unsigned long long> next_block{0};
  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  std::string error;
  const auto t0 = Clock::now();

  auto worker_main = [&](unsigned worker) {
    SharedSlot shared(kernel.shared_size, kernel.shared_align);
    if (options.uses_barriers && !fiber_pools_[worker]) fiber_pools_[worker] = std::make_unique<FiberScheduler>();
    // Claim a few blocks at a time: fewer atomic round trips for tiny blocks, still balanced.
    const unsigned long long chunk = std::clamp<unsigned long long>(blocks / (used * 64ull), 1, 64);
    for (;;) {
      if (failed.load(std::memory_order_relaxed)) return;
      if (options.cancel && options.cancel->load(std::memory_order_relaxed)) return;
      const unsigned long long first = next_block.fetch_add(chunk, std::memory_order_relaxed);
      if (first >= blocks) return;
      const unsigned long long last = std::min(blocks, first + chunk);
      for (unsigned long long b = first; b < last; ++b) {
        SharedRecorder* rec = options.shared_recorder;
        SharedLog* log = rec ? rec->log_for(b) : nullptr;
        if (rec && rec->run_only_recorded && !log) continue;
        HostCtx ctx{block_of_linear(b, config.grid), Dim3{0, 0, 0}, config.block, config.grid, nullptr};
        if (log) {
          log->base = static_cast<const unsigned char*>(shared.get());
          log->block_dim = config.block;
          log->by_thread.assign(config.block.volume(), {});
          log->dropped = 0;
          ctx.shared_log = log;
        }
        const auto start = Clock::now();
        kernel.construct_shared(shared.get());
        std::string block_error;
        unsigned ran = 0;
        try {
          if (options.uses_barriers) block_error = fiber_pools_[worker]->run_block(kernel, ctx, shared.get(), &ran);
          else ran = kernel.run_block_loop(kernel.user, ctx, shared.get());
        } catch (const std::exception& e) { block_error = e.what(); }
        kernel.destroy_shared(shared.get());
        const auto end = Clock::now();
        if (!block_error.empty()) {
          std::lock_guard lock(error_mutex);
          if (error.empty()) error = block_error;
          failed = true;
          return;
        }
        if (options.record_schedule) {
          auto ns = [&](Clock::time_point t) {
            return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(t - t0).count());
          };
          result.schedule[b] = BlockTrace{ctx.blockIdx, worker, ns(start), ns(end), ran};
        }
      }
    }
  };

  std::vector<std::thread> threads;
  threads.reserve(used);
  for (unsigned w = 1; w < used; ++w) threads.emplace_back(worker_main, w);
  worker_main(0);  // the calling thread is worker 0
  for (auto& t : threads) t.join();

  result.elapsed_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  if (!error.empty()) result.status = Status::failure(error, "", "simulator");
  else if (options.cancel && options.cancel->load())
    result.status = Status::failure("simulation cancelled", "", "simulator");
  if (!result.status.ok()) result.schedule.clear();
  return result;
}

}  // namespace bs::sim
