// The grayscale lab on the CPU grid simulator: the same per-thread bodies the GPU runs, called
// for every (blockIdx, threadIdx) of the launch.
#include <algorithm>
#include <vector>

#include "core/median.hpp"
#include "labs/grayscale/gray_1d_flat.hpp"
#include "labs/grayscale/gray_2d.hpp"
#include "labs/grayscale/gray_lab.hpp"
#include "simulator/grid_simulator.hpp"

namespace bs::gray {
namespace {

class CpuGrayLab final : public GrayLab {
 public:
  explicit CpuGrayLab(sim::GridSimulator& simulator)
      : simulator_(simulator), limits_(sim::simulator_limits(simulator.workers())) {}

  BackendKind backend() const override { return BackendKind::CpuSimulation; }
  const DeviceLimits& limits() const override { return limits_; }
  KernelAttributes attributes(GrayKernel) const override {
    return KernelAttributes{};  // the simulator has no registers to run out of
  }

  Status set_image(const std::uint8_t* rgba, int width, int height) override {
    if (!rgba || width <= 0 || height <= 0)
      return Status::failure("empty image", "", "set_image");
    const std::size_t n = static_cast<std::size_t>(width) * height;
    std::vector<std::uint8_t> planar, result;
    try {
      planar.resize(3 * n);
      result.assign(n, 0);
    } catch (const std::bad_alloc&) {
      return Status::failure("not enough host memory for a " + std::to_string(width) + " x " +
                                 std::to_string(height) + " image",
                             "choose a smaller image", "set_image");
    }
    rgba_to_planar_rgb(rgba, width, height, planar.data());
    planar_ = std::move(planar);
    result_ = std::move(result);
    width_ = width;
    height_ = height;
    return Status::success();
  }
  int width() const override { return width_; }
  int height() const override { return height_; }

  LaunchRecord run(GrayKernel k, Dim3 block, std::uint8_t* out,
                   const GrayRunOptions& options) override {
    LaunchRecord rec = begin_gray_launch(k, block, width_, height_, limits_, nullptr);
    rec.backend = BackendKind::CpuSimulation;
    rec.timing.clock = "steady_clock (CPU simulation, " + std::to_string(simulator_.workers()) +
                " workers)";
    if (!rec.ok()) return rec;
    const int n = width_ * height_;
    GrayArgs args{planar_.data(), out ? out : result_.data(), width_, height_, n};

    std::vector<double> times;
    const int repeats = std::max(1, options.repeats);
    for (int r = 0; r < repeats; ++r) {
      sim::SimOptions so;
      so.record_schedule = options.trace_schedule && r == repeats - 1;
      sim::SimResult sr =
          k == GrayKernel::Flat1D
              ? simulator_.run(rec.config, [&](const sim::HostCtx& t) { gray_1d_flat_thread(t, args); }, so)
              : simulator_.run(rec.config, [&](const sim::HostCtx& t) { gray_2d_thread(t, args); }, so);
      if (!sr.status) {
        rec.status = sr.status;
        return rec;
      }
      times.push_back(sr.elapsed_ms);
      if (so.record_schedule) {
        rec.schedule = std::move(sr.schedule);
        rec.schedule_simulated = true;
      }
    }
    rec.timing.samples_ms = std::move(times);
    summarize(rec.timing);
    return rec;
  }

  Status download_result(std::uint8_t* host) override {
    std::copy(result_.begin(), result_.end(), host);
    return Status::success();
  }

 private:
  sim::GridSimulator& simulator_;
  DeviceLimits limits_;
  std::vector<std::uint8_t> planar_, result_;
  int width_ = 0, height_ = 0;
};

}  // namespace

std::unique_ptr<GrayLab> make_cpu_gray_lab(sim::GridSimulator& simulator) {
  return std::make_unique<CpuGrayLab>(simulator);
}

#if !defined(BLOCKSCOPE_HAS_CUDA)
Result<std::unique_ptr<GrayLab>> make_cuda_gray_lab(int, const DeviceLimits&) {
  return Status::failure("blockscope was built without CUDA", "use --backend cpu",
                         "make_cuda_gray_lab");
}
#endif

}  // namespace bs::gray
