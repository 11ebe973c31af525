// The grayscale lab's view: the loaded image and the kernel's result, split or side by side,
// with pan and zoom down to single pixels, the launch overlay drawn by a shader from the record's
// grid, block and index scheme (block lines, colour by block, warp or SM, the inspected block and
// the inspected thread's own pixels), the pixel inspector, and the Memory tab (the inspected
// warp's requests). Results reach GL through CUDA-GL interop (the kernel writes device memory that
// CUDA copies into the texture) or, on the CPU and where interop fails, through a host upload.
#pragma once
#include <imgui.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gfx/gl_objects.hpp"
#include "gfx/image_view.hpp"
#include "gfx/interop.hpp"
#include "labs/grayscale/gray_lab.hpp"
#include "labs/lab_view.hpp"

namespace bs::app {

class GrayView final : public LabView {
 public:
  static Result<std::unique_ptr<LabView>> create(std::unique_ptr<lab::Lab> lab, const LabViewSetup& setup,
                                                 ViewContext& ctx);
  ~GrayView() override;

  lab::Lab& lab() override { return *stack_; }
  const lab::Lab& lab() const override { return *stack_; }
  Status set_lab(std::unique_ptr<lab::Lab> lab, ViewContext& ctx) override;
  bool update(ViewContext& ctx) override;
  LaunchRecord launch(const std::string& kernel, const KernelConfig& config, const lab::RunOptions& options,
                      ViewContext& ctx) override;
  void draw_problem(ViewContext& ctx, ViewRequests& requests) override;
  void draw_view_options(ViewContext& ctx, ViewRequests& requests) override;
  void draw_data(const LaunchRecord& shown, bool selection_ran, ViewContext& ctx, ViewRequests& requests) override;
  std::vector<Tab> tabs() override;  // Memory: the inspected warp's requests
  void draw_memory(const LaunchRecord& shown);
  std::optional<PixelPos> draw_record(const LaunchRecord& record, int slot, ImVec2 size,
                                      std::optional<PixelPos> inspect, ViewContext& ctx) override;
  std::optional<PixelPos> inspected() const override;
  ViewState& view_state() override { return view_; }
  void zoom_by(float factor) override;
  bool show_result(const LaunchRecord& record, const std::vector<std::uint8_t>& output, ViewContext& ctx) override;
  bool accepts_images() const override { return true; }
  // Images of more pixels than this, on the simulation, are shown through windowed textures
  // (default 4096^2); tests lower it to check the windowed path on small images.
  void set_full_texture_limit(std::size_t pixels) { full_texture_limit_ = pixels; }
  Status install_image(Rgba8Image image, ViewContext& ctx) override;
  Status write_output_png(const std::filesystem::path& path) override;
  std::vector<std::uint8_t> read_output(int* width, int* height) override;
  std::optional<std::uint64_t> output_generation() const override { return output_generation_; }
  std::string interop_mode() const override;

 private:
  GrayView() = default;

  // The image on screen and the GL resources that show it. Its pixels live in the lab (once);
  // `image` keeps what the file was (size, name, format), not a copy of them.
  struct Shown {
    Rgba8Image image;    // rgba empty
    GlTexture original;  // RGBA8: the whole image, or the window of it the view shows
    GlTexture result;    // R8, written by the kernel (through the PBO or from the host), or its window
    std::optional<InteropPixelBuffer> pixel_buffer;  // CUDA backend only
    std::vector<std::uint8_t> host_result;           // CPU backend and the host-copy fallback
    // A huge image on the simulation: the textures hold only the window the view shows (at its
    // zoom's resolution), made again from the lab's image and host_result when the view leaves it.
    bool windowed = false;
    TextureWindow window;
    bool result_stale = false;  // host_result changed since the window's result was made
  };

  Status build_shown(Rgba8Image image, ViewContext& ctx, Shown* out);
  // Windowed textures: hold what `params` shows, and point params at the window.
  void hold_window(ImageViewParams& params, ViewContext* ctx);
  // The result's new pixels to GL: its whole texture, or its window.
  Status upload_result();
  OverlayParams overlay_params(const LaunchRecord& shown) const;
  void handle_input(const ImVec2& origin, const ImVec2& size, ImageViewParams& params);
  ImageViewParams view_params(int out_w, int out_h) const;
  void draw_inspector(const LaunchRecord& shown, PixelPos px, bool pinned);
  std::string gl_output_value(const LaunchRecord& shown, PixelPos px);
  void take_schedule(const LaunchRecord& rec);

  std::unique_ptr<lab::Lab> stack_;  // the lab as the shell sees it (possibly wrapped)
  gray::GrayLab* lab_ = nullptr;     // the grayscale lab inside it: its image and reference
  std::optional<Shown> shown_;
  // The inspector's output value where it lives only in GL (the GPU's interop): one texel read
  // per pixel and launch result, not one GPU round trip every frame.
  struct TexelRead {
    PixelPos px{-1, -1};
    std::string launch;  // what produced the texture: kernel, configuration, problem, settings
    std::string value;
  };
  TexelRead texel_;
  std::optional<ImageViewRenderer> renderer_, second_renderer_;
  std::optional<ImageViewRenderer> compare_renderers_[2];  // the Compare tab's A and B panes
  GlTexture sm_of_block_;
  std::string sm_texture_for_;  // the record (kernel + config) sm_of_block_ was made for
  ViewState view_;
  std::optional<PixelPos> mouse_pixel_;
  float drawn_zoom_ = 0;  // the zoom of the last frame drawn (fit resolved), for keyboard zoom
  std::size_t full_texture_limit_ = std::size_t{4096} * 4096;
  std::uint64_t output_generation_ = 0;  // counts results delivered and images shown
};

}  // namespace bs::app
