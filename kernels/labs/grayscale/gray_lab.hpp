// The grayscale lab: an RGB image, the lecture's kernels and the ladder after them that turn it
// into gray (gray_ladder.hpp; CUB's DeviceTransform as the library anchor on the GPU), in either
// layout the source can have (the lecture's planar R, G, B planes, or RGBA as images load), and
// the double-precision reference that checks every run. One class for both backends: the CUDA
// device and the CPU grid simulator are engines behind it (gray_engine.hpp), so the app, bench
// and sweeps see one lab::Lab.
//
//   auto lab = bs::gray::GrayLab::create(backend);          // lab::Backend: CUDA or CPU
//   (GrayLab::create(backend, gray_ladder_with<MyRung>())  // the ladder and a rung of a test's)
//   lab->set_image(rgba, w, h, "photo.png");                 // kept only if everything succeeds
//   LaunchRecord r = lab->run("gray_2d", {Dim3{32, 8, 1}}, {});
//   r.config.grid, r.timing.median_ms, r.check.passed(), r.scheme ...
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "lab/lab.hpp"
#include "labs/grayscale/gray_ladder.hpp"
#include "labs/grayscale/gray_reference.hpp"

namespace bs::gray {

class GrayEngine;  // gray_engine.hpp: the backend half

class GrayLab final : public lab::Lab {
 public:
  // `ladder`: the rungs it offers (gray_ladder.hpp); the copy ceiling joins them on a GPU.
  static Result<std::unique_ptr<GrayLab>> create(const lab::Backend& backend,
                                                 std::vector<GrayRung> ladder = gray_rungs());
  ~GrayLab() override;

  // lab::Lab
  std::string_view id() const override { return "gray"; }
  std::string_view title() const override { return "Grayscale"; }
  const lab::Backend& backend() const override { return backend_; }
  const std::vector<lab::KernelInfo>& kernels() const override { return kernels_; }
  lab::ProblemInfo problem() const override;
  LaunchRecord plan(std::string_view kernel, const KernelConfig& config) override;
  LaunchRecord run(std::string_view kernel, const KernelConfig& config,
                   const lab::RunOptions& options) override;
  std::size_t output_bytes() const override { return static_cast<std::size_t>(width_) * height_; }
  Status download_output(void* host) override;
  std::optional<mapping::ElementOwner> owner(const LaunchRecord& launch, long long x,
                                             long long y) const override;
  std::vector<mapping::WarpAccess> warp_accesses(const LaunchRecord& launch, Dim3 block,
                                                 unsigned warp, int step) const override;
  Result<std::unique_ptr<lab::Lab>> fork() const override;
  std::optional<lab::BlockSuggestion> suggested_block(std::string_view kernel) override;
  Status set_random_problem(std::string_view size) override;
  std::string size_syntax() const override { return "WxH (pixels)"; }
  // The GPU: the 8192^2 and 4K frame, and an odd size; the simulator: the odd size.
  std::vector<std::string> default_sizes() const override {
    if (backend_.kind == BackendKind::Cuda) return {"8192x8192", "3840x2160", "1023x767"};
    return {"1023x767"};
  }
  std::vector<lab::Setting> settings() const override;  // layout: planar or rgba
  Status set_setting(std::string_view key, std::string_view value) override;
  const lab::UserKernelSpec* user_kernel_spec() const override;  // gray_user_spec.hpp

  // The problem. Converts RGBA8 to the layouts the kernels read, computes the reference and
  // uploads both; on any failure the previous image stays loaded.
  Status set_image(const std::uint8_t* rgba, int width, int height, std::string name);
  // Which source the kernels read: planar (3 bytes read + 1 written per pixel) or RGBA (4 + 1).
  void set_layout(GrayLayout layout) { layout_ = layout; }
  GrayLayout layout() const { return layout_; }
  int width() const { return width_; }
  int height() const { return height_; }
  const std::string& image_name() const { return name_; }
  std::span<const std::uint8_t> rgba() const { return *rgba_; }
  // The double-precision reference of the loaded image (width * height bytes).
  std::span<const std::uint8_t> reference() const { return *reference_; }
  // Changes whenever set_image installs an image (labs that copy the data, e.g. the user's own
  // kernels, know when to copy it again).
  std::uint64_t generation() const { return generation_; }

 private:
  // The image from `source`, or fresh random pixels from `seed` where it is null, made with its
  // planar copy and reference in one pass (make_gray_problem) and handed to the engine.
  Status install_image(const std::uint8_t* source, std::uint64_t seed, int width, int height, std::string name);

  GrayLab(lab::Backend backend, std::unique_ptr<GrayEngine> engine, std::vector<GrayRung> ladder);
  // The rung `kernel` names, where this backend lists it (nullptr: the copy, or unknown).
  const GrayRung* rung_of(std::string_view kernel) const;

  lab::Backend backend_;
  std::unique_ptr<GrayEngine> engine_;
  std::vector<GrayRung> ladder_;
  std::vector<lab::KernelInfo> kernels_;
  // The image and its reference: read-only once set, shared with forks (never null).
  SharedBytes rgba_ = std::make_shared<const HostVector<std::uint8_t>>(), reference_ = rgba_;
  StepTimes made_;  // how the image was made (ProblemInfo::made)
  std::string name_;
  int width_ = 0, height_ = 0;
  GrayLayout layout_ = GrayLayout::Planar;
  std::uint64_t generation_ = 0;
};

}  // namespace bs::gray
