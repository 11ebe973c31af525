// The lab view interface: what each lab draws in the window. The shell (shell/app.hpp) owns the
// frame, the menus, the kernel list and configuration editor, the timings, launch statistics,
// schedule and runs tabs, the status bar, compute switching and the headless outputs, and it
// reaches a lab only through this interface and lab::Lab. A view draws the lab's own things: the
// problem's controls (an image, matrices), its data with the launch overlay and the inspector,
// and the tabs it adds (its memory view); it also gets the lab's results onto the screen (GL
// textures, through CUDA-GL interop where it can).
//
// A lab joins the app through a catalog entry (LabEntry): how to make its lab::Lab for a backend,
// its view for that lab, and the command-line options only it reads. main() passes the built-in
// catalog (labs/catalog.hpp); tests pass one with a lab of their own.
#pragma once
#include <imgui.h>

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "core/launch_record.hpp"
#include "image/image.hpp"
#include "lab/lab.hpp"
#include "state/app_state.hpp"
#include "ui/messages.hpp"
#include "ui/tab.hpp"

namespace bs::app {

// What the shell gives a view while it works or draws.
struct ViewContext {
  MessageLog& messages;
  const lab::Backend& backend;
  bool headless = false;
  int frame = 0;
};

// What a view asks of the shell.
struct ViewRequests {
  bool relaunch = false;    // the problem changed: run the selection again
  bool open_image = false;  // show the file browser
};

class LabView {
 public:
  virtual ~LabView() = default;

  virtual lab::Lab& lab() = 0;
  virtual const lab::Lab& lab() const = 0;

  // Moves the view onto a new lab object (compute switched to another device or the CPU): the
  // view re-installs its problem from its host copy and rebuilds its GL and interop resources.
  // On failure the view keeps the problem's description and says why.
  virtual Status set_lab(std::unique_ptr<lab::Lab> lab, ViewContext& ctx) = 0;

  // Before the frame's launch: (re)build the problem when its settings changed. Returns true
  // when it did (everything measured before was on other data).
  virtual bool update(ViewContext& ctx) = 0;

  // Runs `kernel` with `config` into the view's display resources (zero-copy interop where the
  // backend allows) and returns the record; the shell decides when and with which options.
  virtual LaunchRecord launch(const std::string& kernel, const KernelConfig& config, const lab::RunOptions& options,
                              ViewContext& ctx) = 0;

  // Shows a run made elsewhere: a worker thread ran a fork of this view's lab (the same problem)
  // with its result in host memory, `output` (lab().output_bytes() long), so the window kept
  // drawing (shell/async_launch.hpp). The view uploads it as launch() would have. False when the
  // view cannot; the shell then launches through launch() instead.
  virtual bool show_result(const LaunchRecord& record, const std::vector<std::uint8_t>& output, ViewContext& ctx) {
    (void)record, (void)output, (void)ctx;
    return false;
  }

  // Left panel, above the kernel list: the problem (image, matrices).
  virtual void draw_problem(ViewContext& ctx, ViewRequests& requests) = 0;
  // Left panel, below the run controls: how the data is looked at (compare mode, overlay, ...).
  virtual void draw_view_options(ViewContext& ctx, ViewRequests& requests) = 0;
  // The centre: the data with the overlay of `shown` (the last launch that ran; its kernel may
  // differ from the selection while a refused configuration is selected) and the inspector.
  // `selection_ran` is false while the selection itself was refused: the view then says the
  // overlay shows the last launch that ran.
  virtual void draw_data(const LaunchRecord& shown, bool selection_ran, ViewContext& ctx, ViewRequests& requests) = 0;
  // Whether the data view waits on work of its own on another thread (a recording it draws): the
  // shell's Data tab then wakes the window a few times a second, to show the result once it is there.
  virtual bool data_pending() const { return false; }
  // The tabs this lab adds to the shell's (ui/tab.hpp): the Memory view of its data, matmul's
  // Pipeline; asked each frame, drawn while the lab is open. Their lambdas may hold `this`.
  virtual std::vector<Tab> tabs() { return {}; }
  // The Compare tab: `record`'s data with its own launch overlay in a `size` rectangle at the
  // cursor; `slot` (0 = A, 1 = B) keeps each pane's resources apart; the thread that stores
  // `inspect` is highlighted. Returns the element under the mouse.
  virtual std::optional<PixelPos> draw_record(const LaunchRecord& record, int slot, ImVec2 size,
                                              std::optional<PixelPos> inspect, ViewContext& ctx) {
    (void)record, (void)slot, (void)inspect, (void)ctx;
    ImGui::Dummy(size);
    return std::nullopt;
  }

  // The element under the mouse, else the pinned one, else the forced hover; nullopt outside
  // the data.
  virtual std::optional<PixelPos> inspected() const = 0;
  virtual ViewState& view_state() = 0;
  // Keyboard zoom about the view's centre (from "fit" too: the view knows its fitted zoom), and
  // back to fit.
  virtual void zoom_by(float factor) {
    if (view_state().zoom > 0) view_state().zoom *= factor;
  }
  virtual void reset_view() {
    view_state().zoom = 0;
    view_state().center_x = view_state().center_y = -1;
  }

  // The lab's own options (LabEntry::options) as their flags would give them now, e.g.
  // {"--matmul-size", "128x128x128"}: kept in the settings, so the lab reopens as it was.
  virtual std::map<std::string, std::string> option_values() const { return {}; }
  // Puts those options back to their defaults (View > Reset to defaults).
  virtual void reset_options() {}

  // Images dropped or opened: a view that takes images installs it (its lab keeps the previous
  // one on failure).
  virtual bool accepts_images() const { return false; }
  virtual Status install_image(Rgba8Image image, ViewContext& ctx) {
    (void)image, (void)ctx;
    return Status::failure("this lab does not take images", "", "install_image");
  }

  // The result as the view shows it (read back from GL), as a PNG: headless --output.
  virtual Status write_output_png(const std::filesystem::path& path) = 0;
  // The same bytes (one channel per element for images, the C heatmap's RGBA for matmul), for
  // the status file's digest; empty when there is no result yet.
  virtual std::vector<std::uint8_t> read_output(int* width, int* height) = 0;
  // Changes whenever what read_output() returns may have changed (a digest made of it is good
  // while this stays); nothing where the view does not count (then it is read every time).
  virtual std::optional<std::uint64_t> output_generation() const { return std::nullopt; }
  // How results reach the screen: "CUDA-GL interop (zero-copy: CUDA copies into the texture)", the fallback and why,
  // ...
  virtual std::string interop_mode() const = 0;
};

// A command-line option only one lab reads, e.g. --matmul-size MxNxK (cli/options.hpp).
using LabOption = ExtraOption;

struct LabViewSetup {
  ViewState view;                              // initial view state (command line)
  std::map<std::string, std::string> options;  // this lab's LabOption values
};

struct LabEntry {
  std::string id;     // "gray": --lab, settings, JSON
  std::string title;  // "Grayscale": the tab
  std::function<Result<std::unique_ptr<lab::Lab>>(const lab::Backend&)> make_lab;
  // The GL context is current. The view takes the lab.
  std::function<Result<std::unique_ptr<LabView>>(std::unique_ptr<lab::Lab>, const LabViewSetup&, ViewContext&)>
      make_view;
  std::vector<LabOption> options;
};

using LabCatalog = std::vector<LabEntry>;

}  // namespace bs::app
