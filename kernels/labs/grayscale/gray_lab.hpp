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
//   lab->pixel(x, y), lab->reference_at(x, y)               // read where the image is kept
//   LaunchRecord r = lab->run("gray_2d", {Dim3{32, 8, 1}}, {});
//   r.config.grid, r.timing.median_ms, r.check.passed(), r.scheme ...
#pragma once
#include <array>
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
  LaunchRecord run(std::string_view kernel, const KernelConfig& config, const lab::RunOptions& options) override;
  std::size_t output_bytes() const override { return static_cast<std::size_t>(width_) * height_; }
  Status download_output(void* host) override;
  std::optional<mapping::ElementOwner> owner(const LaunchRecord& launch, long long x, long long y) const override;
  std::vector<mapping::WarpAccess> warp_accesses(const LaunchRecord& launch, Dim3 block, unsigned warp,
                                                 int step) const override;
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

  // The problem. Converts RGBA8 to the layouts the kernels read and hands it to the engine; on
  // any failure the previous image stays loaded.
  Status set_image(const std::uint8_t* rgba, int width, int height, std::string name);
  // Which source the kernels read: planar (3 bytes read + 1 written per pixel) or RGBA (4 + 1).
  // The simulation keeps the image once, as planar RGB: choosing RGBA makes its RGBA copy (which
  // can fail for want of memory; the layout then stays).
  Status set_layout(GrayLayout layout);
  GrayLayout layout() const { return layout_; }
  int width() const { return width_; }
  int height() const { return height_; }
  const std::string& image_name() const { return name_; }

  // The loaded image, read where it is kept (once per image: RGBA where the engine takes RGBA,
  // else planar RGB, with its alpha bytes only if some pixel is not opaque), so a 16384^2 image
  // costs its own bytes and not a copy per view. (x, y) must be inside the image.
  std::array<std::uint8_t, 4> pixel(long long x, long long y) const;
  // The reference of one pixel (gray_reference's formula).
  std::uint8_t reference_at(long long x, long long y) const;
  // The w x h pixels (x0 + i step, y0 + j step) as RGBA into `out` (4 w h bytes), clamped to the
  // image: a view's texture of what it shows, at its resolution.
  void sample_rgba(long long x0, long long y0, int step, int w, int h, std::uint8_t* out) const;
  // Whole copies, made when asked: RGBA (4 w h bytes) and planar RGB (3 w h) into `out`.
  void copy_rgba(std::uint8_t* out) const;
  void copy_planar(std::uint8_t* out) const;
  // Changes whenever set_image installs an image (labs that copy the data, e.g. the user's own
  // kernels, know when to copy it again).
  std::uint64_t generation() const { return generation_; }

 private:
  // The image from `source`, or fresh random pixels from `seed` where it is null, made in the
  // form the engine reads in one pass (make_gray_problem) and handed to it.
  Status install_image(const std::uint8_t* source, std::uint64_t seed, int width, int height, std::string name);

  GrayLab(lab::Backend backend, std::unique_ptr<GrayEngine> engine, std::vector<GrayRung> ladder);
  // The rung `kernel` names, where this backend lists it (nullptr: the copy, or unknown).
  const GrayRung* rung_of(std::string_view kernel) const;

  lab::Backend backend_;
  std::unique_ptr<GrayEngine> engine_;
  std::vector<GrayRung> ladder_;
  std::vector<lab::KernelInfo> kernels_;
  // The image, read-only once set and shared with forks: RGBA where the engine makes planar RGB
  // itself (the GPU); else planar RGB, its alpha (only if not opaque) and, while the RGBA layout
  // is chosen, its RGBA.
  SharedBytes planar_, alpha_, rgba_;
  StepTimes made_;  // how the image was made (ProblemInfo::made)
  std::string name_;
  int width_ = 0, height_ = 0;
  GrayLayout layout_ = GrayLayout::Planar;
  std::uint64_t generation_ = 0;
};

}  // namespace bs::gray
