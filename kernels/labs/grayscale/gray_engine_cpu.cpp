// The grayscale lab on the CPU grid simulator: the same per-thread bodies the GPU runs, called
// for every (blockIdx, threadIdx) of the launch, timed by steady_clock around each launch.
#include <chrono>
#include <cstring>
#include <vector>

#include "labs/grayscale/gray_1d_flat.hpp"
#include "labs/grayscale/gray_2d.hpp"
#include "labs/grayscale/gray_engine.hpp"
#include "simulator/grid_simulator.hpp"

namespace bs::gray {
namespace {

class CpuEngine final : public GrayEngine {
 public:
  explicit CpuEngine(const lab::Backend& backend)
      : backend_(backend), simulator_(backend.sim_workers) {}

  KernelAttributes attributes(GrayKernel, bool* measured) override {
    *measured = false;
    return KernelAttributes{};  // the simulator has no registers to run out of
  }

  Status upload(const std::vector<std::uint8_t>& planar, const std::vector<std::uint8_t>& reference,
                int width, int height) override {
    std::vector<std::uint8_t> p, r, out;
    try {
      p = planar;
      r = reference;
      out.assign(static_cast<std::size_t>(width) * height, 0);
    } catch (const std::bad_alloc&) {
      return Status::failure("not enough host memory for the simulator's copy of the image",
                             "choose a smaller image", "GrayEngine::upload");
    }
    planar_ = std::move(p);
    reference_ = std::move(r);
    result_ = std::move(out);
    width_ = width;
    height_ = height;
    return Status::success();
  }

  std::uint8_t* own_output() override { return result_.data(); }
  Status download(std::uint8_t* host) override {
    std::memcpy(host, result_.data(), result_.size());
    return Status::success();
  }

  Result<double> launch_timed(GrayKernel k, const LaunchConfig& config, std::uint8_t* out) override {
    sim::SimResult r = simulate(k, config, out, false);
    if (!r.status) return r.status;
    return r.elapsed_ms;
  }

  Result<std::vector<BlockTrace>> launch_traced(GrayKernel k, const LaunchConfig& config,
                                                std::uint8_t* out) override {
    sim::SimResult r = simulate(k, config, out, true);
    if (!r.status) return r.status;
    return std::move(r.schedule);
  }

  Status flush_l2() override { return Status::success(); }  // no GPU cache to flush
  std::string clock() const override {
    return "steady_clock, CPU simulation (" + std::to_string(simulator_.workers()) + " workers)";
  }
  bool simulated() const override { return true; }

  Check verify(const std::uint8_t* out) override {
    return compare_with_reference(out, reference_.data(),
                                  static_cast<long long>(width_) * height_, width_);
  }

  Result<std::unique_ptr<GrayEngine>> clone() const override {
    return std::unique_ptr<GrayEngine>(std::make_unique<CpuEngine>(backend_));
  }

 private:
  sim::SimResult simulate(GrayKernel k, const LaunchConfig& config, std::uint8_t* out, bool trace) {
    const int n = width_ * height_;
    const GrayArgs args{planar_.data(), out, width_, height_, n};
    sim::SimOptions so;
    so.record_schedule = trace;
    return k == GrayKernel::Flat1D
               ? simulator_.run(config, [&](const sim::HostCtx& t) { gray_1d_flat_thread(t, args); }, so)
               : simulator_.run(config, [&](const sim::HostCtx& t) { gray_2d_thread(t, args); }, so);
  }

  lab::Backend backend_;
  sim::GridSimulator simulator_;
  std::vector<std::uint8_t> planar_, reference_, result_;
  int width_ = 0, height_ = 0;
};

}  // namespace

std::unique_ptr<GrayEngine> make_cpu_engine(const lab::Backend& backend) {
  return std::make_unique<CpuEngine>(backend);
}

#if !defined(BLOCKSCOPE_HAS_CUDA)
Result<std::unique_ptr<GrayEngine>> make_cuda_engine(const lab::Backend&) {
  return Status::failure("blockscope was built without CUDA", "use --backend cpu",
                         "make_cuda_engine");
}
#endif

}  // namespace bs::gray
