// The grayscale lab on the CPU grid simulator: each rung's own body (the one the GPU runs)
// called for every (blockIdx, threadIdx) of the launch, timed by steady_clock around each
// launch. It reads the lab's own buffers, 256-byte aligned like cudaMalloc's, so the vector rungs
// take the same scalar heads and tails here as on the GPU.
#include <cstring>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "core/parallel.hpp"
#include "labs/grayscale/gray_engine.hpp"
#include "simulator/cancellable.hpp"
#include "simulator/grid_simulator.hpp"

namespace bs::gray {
namespace {

// An output of n zero bytes, its pages first touched by the host's cores, not one of them.
std::optional<HostVector<std::uint8_t>> zeroed_output(std::size_t n) try {
  HostVector<std::uint8_t> o(n);
  parallel_chunks(n, 1ull << 20, [&](std::size_t b, std::size_t e) { std::memset(o.data() + b, 0, e - b); });
  return o;
} catch (const std::bad_alloc&) { return std::nullopt; }

class CpuEngine final : public GrayEngine, public sim::Cancellable {
 public:
  explicit CpuEngine(const lab::Backend& backend) : backend_(backend), simulator_(backend.sim_workers) {}

  Result<KernelAttributes> attributes(const GrayRung& rung, GrayLayout, bool* measured) override {
    *measured = false;
    if (!rung.body) return Status::failure(rung.info.id + " runs on the GPU only", "", "attributes");
    return KernelAttributes{};  // the simulator has no registers to run out of
  }

  Status upload(SharedBytes planar, SharedBytes rgba, SharedBytes reference, int width, int height) override {
    if (static_cast<std::size_t>(width) * height != result_.size()) result_ = {};  // made when first asked for
    planar_ = std::move(planar);
    rgba_ = std::move(rgba);
    reference_ = std::move(reference);
    width_ = width;
    height_ = height;
    return Status::success();
  }

  GrayArgs args(std::uint8_t* out) const override {
    return GrayArgs{planar_ ? planar_->data() : nullptr, out, width_, height_, width_ * height_,
                    rgba_ ? rgba_->data() : nullptr};
  }
  std::uint8_t* own_output() override {
    const std::size_t n = static_cast<std::size_t>(width_) * height_;
    if (result_.size() != n)
      if (auto o = zeroed_output(n)) result_ = std::move(*o);
    return result_.size() == n && n > 0 ? result_.data() : nullptr;
  }
  Status download(std::uint8_t* host) override {
    if (!own_output()) return Status::failure("no output to download", "", "GrayEngine::download");
    std::memcpy(host, result_.data(), result_.size());
    return Status::success();
  }

  Result<double> launch_timed(const GrayRung& rung, GrayLayout l, const LaunchConfig& config,
                              const GrayArgs& a) override {
    sim::SimOptions o;
    o.cancel = cancel_;
    sim::SimResult s = rung.simulate(simulator_, l, config, a, o);
    if (!s.status) return s.status;
    return s.elapsed_ms;
  }

  Result<std::vector<BlockTrace>> launch_traced(const GrayRung& rung, GrayLayout l, const LaunchConfig& config,
                                                const GrayArgs& a) override {
    sim::SimOptions o;
    o.record_schedule = true;
    o.cancel = cancel_;
    sim::SimResult s = rung.simulate(simulator_, l, config, a, o);
    if (!s.status) return s.status;
    return std::move(s.schedule);
  }

  Status flush_l2() override { return Status::success(); }  // no GPU cache to flush
  Result<double> copy_timed(std::size_t) override {
    return Status::failure("the copy ceiling is measured on a GPU", "", "copy_timed");
  }
  Check verify_copy(std::size_t) override { return Check{}; }
  std::string clock() const override {
    return "steady_clock, CPU simulation (" + std::to_string(simulator_.workers()) + " workers)";
  }
  bool simulated() const override { return true; }
  void set_cancel(const std::atomic<bool>* cancel) override { cancel_ = cancel; }

  Check verify(const std::uint8_t* out) override {
    const long long n = static_cast<long long>(width_) * height_;
    if (reference_) return compare_with_reference(out, reference_->data(), n, width_);
    return compare_with_planar_reference(out, planar_->data(), n, width_);
  }

  Result<std::unique_ptr<GrayEngine>> clone() const override {
    return std::unique_ptr<GrayEngine>(std::make_unique<CpuEngine>(backend_));
  }

  // The fork on the worker thread reads the same image: it shares the inputs (nothing writes
  // them after upload) and owns only its output, made if it is asked for.
  Result<std::unique_ptr<GrayEngine>> fork_sharing_inputs() const override {
    auto e = std::make_unique<CpuEngine>(backend_);
    e->planar_ = planar_;
    e->rgba_ = rgba_;
    e->reference_ = reference_;
    e->width_ = width_;
    e->height_ = height_;
    return std::unique_ptr<GrayEngine>(std::move(e));
  }

 private:
  lab::Backend backend_;
  mutable sim::GridSimulator simulator_;
  const std::atomic<bool>* cancel_ = nullptr;  // the run's, while a run holds it (sim::CancelScope)
  SharedBytes planar_, rgba_, reference_;      // the lab's, shared with forks (read-only)
  HostVector<std::uint8_t> result_;            // own_output(), made when first asked for
  int width_ = 0, height_ = 0;
};

}  // namespace

std::unique_ptr<GrayEngine> make_cpu_engine(const lab::Backend& backend) {
  return std::make_unique<CpuEngine>(backend);
}

#if !defined(BLOCKSCOPE_HAS_CUDA)
Result<std::unique_ptr<GrayEngine>> make_cuda_engine(const lab::Backend&) {
  return Status::failure("blockscope was built without CUDA", "use --backend cpu", "make_cuda_engine");
}
#endif

}  // namespace bs::gray
