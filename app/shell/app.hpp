// The running app: one object that owns the compute session, the loaded image, the GL
// resources that show it, and the UI state, and draws one frame at a time. Window mode and
// headless mode drive the same App; only the Window differs (platform/window.hpp).
//
// Section index of app.cpp:
//   1. creation and shutdown (ImGui context, theme, GL resources, the sample image)
//   2. images in (drops, command line, file browser) and the loader's outcomes
//   3. launching the grayscale kernel into GL (zero-copy interop, host-copy fallback, CPU)
//   4. the frame: layout of the panels
//   5. outputs for headless runs (screenshot, kernel output, schedule JSON)
//   6. the status file (--status-file, for scripts and tests)
#pragma once
#include <imgui.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "core/launch_record.hpp"
#include "gfx/gl_objects.hpp"
#include "gfx/image_view.hpp"
#include "gfx/interop.hpp"
#include "image/async_image_loader.hpp"
#include "mapping/thread_map.hpp"
#include "platform/window.hpp"
#include "shell/compute_session.hpp"
#include "shell/status_report.hpp"
#include "shell/timing_history.hpp"
#include "state/app_state.hpp"
#include "state/recent_files.hpp"
#include "ui/file_browser.hpp"
#include "ui/messages.hpp"

namespace bs::app {

class MatmulSession;  // shell/matmul_session.hpp: the matmul lab, created when first opened

// The image being shown, and the GL textures holding it and the kernel's result.
struct LoadedImage {
  Rgba8Image image;
  GlTexture original;  // RGBA8
  GlTexture result;    // R8, written by the kernel (through the PBO or from the host)
  std::optional<InteropPixelBuffer> pixel_buffer;  // CUDA backend only
  std::vector<std::uint8_t> host_result;           // CPU backend and host-copy fallback
};

class App {
 public:
  // The window's GL context must be current. Loads the images named on the command line (or
  // the built-in sample) synchronously so the first frame shows them.
  static Result<std::unique_ptr<App>> create(Window& window, CliOptions options,
                                             ComputeSession compute);
  ~App();
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  // Draws one frame into the window's framebuffer; present() shows it (windowed) or keeps it for
  // a screenshot (headless: read it before presenting).
  void frame();
  void present();
  bool should_close() { return window_.should_close(); }
  bool loading() const { return loader_.busy(); }

  // Headless outputs.
  Status write_screenshot(const std::filesystem::path& path);
  Status write_gray_output(const std::filesystem::path& path);
  Status write_schedule_json(const std::filesystem::path& path);
  const LaunchRecord& last_launch() const { return last_launch_; }
  const MessageLog& messages() const { return messages_; }
  // Whether any image failed to load during this run (headless exit code 1).
  bool had_load_failure() const { return had_load_failure_; }
  std::string interop_mode() const;
  bool device_faulted() const { return device_faulted_; }
  const std::string& backend_label() const { return compute_.label; }
  // The matmul lab when it is the open lab (headless prints its summary), else nullptr.
  const MatmulSession* matmul_session() const;

  // For the soak run (shell/soak_mode.cpp) and tests, which drive the app the way the UI does:
  // change the state, then request_relaunch() as the lab panel does after a change (so a
  // refused launch is reported again); install an image as a finished drop does.
  AppState& state() { return state_; }
  void request_relaunch() { dirty_ = true; }
  Status install_image_for_test(Rgba8Image image) { return install_image(std::move(image)); }
  std::pair<int, int> image_size() const {
    return image_ ? std::pair{image_->image.width, image_->image.height} : std::pair{0, 0};
  }

 private:
  App(Window& window, CliOptions options, ComputeSession compute);
  Status init_gl_and_imgui();

  // 2. images in
  void enqueue_files(std::vector<std::filesystem::path> paths);
  void take_loaded_images();
  Status install_image(Rgba8Image image);

  // 3. launching
  void relaunch();
  void handle_device_fault(const Status& fault);
  void switch_compute(ComputeSession next);
  void draw_compute_menu();
  LaunchRecord launch_into_gl(LoadedImage& img, double* pipeline_ms);

  // 4. the frame
  void draw_ui();
  void draw_menu_bar();
  void draw_controls(float width);
  void draw_view(float width, float height);
  void draw_side_panel(float width);
  void draw_status_bar();
  void draw_loading_modal();
  MatmulSession* open_matmul();  // creates the matmul lab on first use; nullptr if it cannot start
  void handle_view_input(const ImVec2& origin, const ImVec2& size, ImageViewParams& params);
  ImageViewParams view_params(int output_w, int output_h) const;
  OverlayParams overlay_params() const;
  std::optional<PixelPos> inspected_pixel() const;
  static mapping::IndexScheme scheme_of(const LaunchRecord& rec);

  // 6. the status file
  void write_status_file();

  Window& window_;
  CliOptions options_;
  AppState& state_;
  ComputeSession compute_;
  LoadLimits limits_;
  AsyncImageLoader loader_;
  RecentFiles recent_;
  std::filesystem::path recent_path_;
  std::string imgui_ini_path_;
  bool imgui_ready_ = false;

  std::optional<LoadedImage> image_;
  std::optional<ImageViewRenderer> view_renderer_;
  std::optional<ImageViewRenderer> second_view_renderer_;  // the result pane in side-by-side mode
  GlTexture sm_of_block_;
  LaunchRecord last_launch_;        // the latest attempt, refused or not
  LaunchRecord last_good_launch_;   // the launch that produced what is on screen
  std::vector<BlockTrace> last_schedule_;
  bool last_schedule_simulated_ = false;
  double frame_ms_ = 0;
  bool show_messages_ = false;
  bool device_faulted_ = false;
  TimingHistory history_;
  double last_pipeline_ms_ = 0;
  bool dirty_ = true;
  bool run_continuously_ = true;
  bool had_load_failure_ = false;
  std::optional<PixelPos> mouse_pixel_;  // the pixel under the mouse this frame
  float ui_scale_ = 1.0f;
  int frame_index_ = 0;

  std::unique_ptr<MatmulSession> matmul_;
  Status matmul_failure_;  // why the matmul lab could not start (reported once)

  ui::FileBrowser file_browser_;
  MessageLog messages_;
  std::chrono::steady_clock::time_point last_frame_time_;

  std::optional<StatusFileWriter> status_writer_;  // --status-file
  bool status_write_failed_ = false;               // said once, not every frame
};

}  // namespace bs::app
