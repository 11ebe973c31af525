// What a run writes besides the window: the screenshot, the open lab's result as a PNG, the block
// schedule as JSON, the one-line summary headless runs print, and the --status-file snapshot of
// what the app shows (shell/status_report.hpp has its JSON and its writer). Free functions over
// the lab host: nothing here draws.
#pragma once
#include <filesystem>
#include <optional>
#include <string>

#include "platform/window.hpp"
#include "shell/image_intake.hpp"
#include "shell/lab_host.hpp"
#include "shell/status_report.hpp"
#include "ui/messages.hpp"

namespace bs::app {

// The window's framebuffer as a PNG; with `region` (framebuffer pixels x0, y0, x1, y1) only that.
struct PixelRegion {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};
Status write_window_png(Window& window, const std::filesystem::path& path,
                        std::optional<PixelRegion> region = std::nullopt);
// The open lab's result as its view shows it (read back from GL), as a PNG (--output).
Status write_lab_output(LabSlot& s, const std::filesystem::path& path);
// The block schedule of the launch the views show (--schedule-json).
Status write_schedule_json(const LaunchRecord& shown, const std::string& device, const std::filesystem::path& path);
// One line per fact of the open lab's last attempt: what ran, where, how fast, its share of each
// ceiling, and the check (headless runs print it).
std::string launch_summary(const LabHost& host);

// What the window shows, for --status-file: the open lab, its data, its latest attempt and the
// result's digest, the messages; `ui` is the shell UI's own part.
// The result's digest, kept while the view's output_generation() stays: a 16384^2 result is not
// read back and hashed every frame.
struct OutputDigestCache {
  std::string lab;
  std::uint64_t generation = 0;
  std::optional<StatusReport::Output> output;
};
StatusReport status_snapshot(LabHost& host, const ImageIntake& intake, const MessageLog& messages, StatusReport::Ui ui,
                             OutputDigestCache* cache = nullptr);

}  // namespace bs::app
