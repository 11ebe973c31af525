#include "shell/headless_outputs.hpp"

#include <cstdio>

#include "experiments/exports.hpp"
#include "lab/report.hpp"
#include "mapping/schedule.hpp"
#include "platform/png.hpp"

namespace bs::app {
namespace fs = std::filesystem;

Status write_window_png(Window& window, const fs::path& path, std::optional<PixelRegion> region) {
  window.bind_default_framebuffer();
  const auto [w, h] = window.framebuffer_size();
  const std::vector<std::uint8_t> pixels = window.read_pixels_rgba();
  if (!region) return write_png(path, w, h, 4, pixels.data());
  return write_region_png(pixels, w, h, region->x0, region->y0, region->x1, region->y1, path.string());
}

Status write_lab_output(LabSlot& s, const fs::path& path) {
  if (!s.view) return s.failure.ok() ? Status::failure("the lab is not open", "", "--output") : s.failure;
  const LaunchRecord& last = s.launch.last;
  if (!last.ok())
    return Status::failure("the last launch did not run, so there is no output to write: " + last.status.message,
                           last.status.hint, "--output");
  return s.view->write_output_png(path);
}

Status write_schedule_json(const LaunchRecord& r, const std::string& device, const fs::path& path) {
  if (r.schedule.empty()) return Status::failure("no schedule was recorded for the last launch", "", "--schedule-json");
  return lab::write_text_file(path.string(),
                              mapping::schedule_to_json(r.schedule, r.schedule_simulated, r.config, r.kernel, device));
}

std::string launch_summary(const LabHost& host) {
  const LabSlot& s = host.current();
  const LaunchRecord& r = s.launch.last;
  if (r.kernel.empty()) return "launch: none";
  char buf[512];
  if (!r.ok()) {
    std::snprintf(buf, sizeof buf, "launch: %s %s %s: %s", r.kernel.c_str(), r.config_label.c_str(),
                  r.refused ? "refused" : "failed", r.status.describe().c_str());
    return buf;
  }
  ThroughputUnit unit = ThroughputUnit::GBPerS;
  std::string shares;
  if (s.view) {
    const lab::ProblemInfo p = s.view->lab().problem();
    unit = p.throughput_unit;
    for (const lab::Ceiling& c : p.ceilings) {
      if (c.value <= 0 || c.unit != unit || r.check.failed()) continue;
      char share[160];
      std::snprintf(share, sizeof share, ", %.1f%% of %s", 100.0 * r.throughput(unit) / c.value, c.name.c_str());
      shares += share;
    }
  }
  std::snprintf(buf, sizeof buf, "launch: %s [%s] on %s grid (%u, %u, %u) block (%u, %u, %u) %.4f ms (%s) %.4g %s",
                r.kernel.c_str(), r.config_label.c_str(), r.problem.c_str(), r.config.grid.x, r.config.grid.y,
                r.config.grid.z, r.config.block.x, r.config.block.y, r.config.block.z, r.timing.median_ms,
                r.timing.clock.c_str(), r.throughput(unit), unit_text(unit));
  return buf + shares + "\ncheck: " + r.check.summary();
}

StatusReport status_snapshot(LabHost& host, const ImageIntake& intake, const MessageLog& messages, StatusReport::Ui ui,
                             OutputDigestCache* cache) {
  StatusReport r;
  r.frame = host.frame();
  LabSlot& s = host.current();
  r.lab = s.id();
  r.loading = intake.busy();
  if (s.view) {
    const lab::ProblemInfo p = s.view->lab().problem();
    if (p.ready) r.data = StatusReport::Data{p.name, static_cast<int>(p.width), static_cast<int>(p.height)};
  }
  const LaunchRecord& last = s.launch.last;
  if (!last.kernel.empty()) {
    r.launch = StatusReport::Launch{last.kernel, last.config.grid, last.config.block, last.ok(), last.status.message};
    // The result read back from GL, as --output does: what the kernel really delivered to the screen.
    if (s.view && last.ok()) {
      const std::optional<std::uint64_t> gen = s.view->output_generation();
      if (cache && gen && cache->lab == r.lab && cache->generation == *gen) {
        r.output = cache->output;
      } else {
        int w = 0, h = 0;
        const std::vector<std::uint8_t> out = s.view->read_output(&w, &h);
        if (!out.empty()) r.output = StatusReport::Output{fnv1a64(out.data(), out.size()), w, h};
        if (cache && gen) *cache = OutputDigestCache{r.lab, *gen, r.output};
      }
    }
  }
  if (const Message* m = messages.current()) r.status_message = m->text;
  r.errors = messages.errors();
  const auto& all = messages.all();
  const std::size_t first = all.size() > StatusReport::kLastMessages ? all.size() - StatusReport::kLastMessages : 0;
  for (std::size_t i = first; i < all.size(); ++i)
    r.messages.push_back({all[i].level == Message::Error     ? "error"
                          : all[i].level == Message::Warning ? "warning"
                                                             : "info",
                          all[i].text});
  ui.launch_in_flight = s.launch.in_flight;
  r.ui = std::move(ui);
  return r;
}

}  // namespace bs::app
