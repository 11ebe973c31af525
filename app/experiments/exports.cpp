#include "experiments/exports.hpp"

#include <algorithm>
#include <ctime>

#include "lab/report.hpp"
#include "platform/png.hpp"

namespace bs::app {
namespace {

lab::ResultsHeader launch_header(const lab::Lab& lab, const LaunchRecord& r) {
  lab::ResultsHeader h;
  h.kind = "launch";
  h.lab = std::string(lab.id());
  h.backend = to_string(lab.backend().kind);
  h.device = lab.backend().label;
  h.versions = lab.backend().versions;
  h.policy.warmup = r.timing.warmup;
  h.policy.min_repeats = h.policy.max_repeats = std::max(1, r.timing.repeats());
  h.policy.flush_l2 = r.timing.l2_flushed;
  h.ceilings = lab.problem().ceilings;
  h.limits = lab.backend().limits;
  return h;
}

}  // namespace

const char* export_label(ExportWhat w) {
  switch (w) {
    case ExportWhat::SweepJson: return "the sweep as JSON";
    case ExportWhat::SweepCsv: return "the sweep as CSV";
    case ExportWhat::LaunchJson: return "the current launch as JSON";
    case ExportWhat::LaunchCsv: return "the current launch as CSV";
    case ExportWhat::HeatmapPng: return "the sweep's chart as PNG";
    case ExportWhat::DataViewPng: return "the data view as PNG";
    case ExportWhat::WindowPng: return "the whole window as PNG";
  }
  return "";
}

bool export_needs_frame(ExportWhat w) {
  return w == ExportWhat::HeatmapPng || w == ExportWhat::DataViewPng || w == ExportWhat::WindowPng;
}

std::string default_export_path(ExportWhat w, const std::string& lab_id) {
  const char* what = "";
  const char* ext = "";
  switch (w) {
    case ExportWhat::SweepJson: what = "sweep", ext = "json"; break;
    case ExportWhat::SweepCsv: what = "sweep", ext = "csv"; break;
    case ExportWhat::LaunchJson: what = "launch", ext = "json"; break;
    case ExportWhat::LaunchCsv: what = "launch", ext = "csv"; break;
    case ExportWhat::HeatmapPng: what = "sweep-chart", ext = "png"; break;
    case ExportWhat::DataViewPng: what = "data", ext = "png"; break;
    case ExportWhat::WindowPng: what = "window", ext = "png"; break;
  }
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  return "blockscope-" + lab_id + "-" + what + "-" + stamp + "." + ext;
}

std::string sweep_json(const lab::SweepResult& r) {
  return lab::results_json(lab::sweep_header(r), r.records, r.unit, r.kernels);
}

std::string sweep_csv(const lab::SweepResult& r) {
  return lab::results_csv(r.records, r.ceilings, r.unit, r.kernels, &r.limits);
}

std::string launch_json(const lab::Lab& lab, const LaunchRecord& r) {
  return lab::results_json(launch_header(lab, r), {r}, lab.problem().throughput_unit, lab.kernels());
}

std::string launch_csv(const lab::Lab& lab, const LaunchRecord& r) {
  const lab::ResultsHeader h = launch_header(lab, r);
  return lab::results_csv({r}, h.ceilings, lab.problem().throughput_unit, lab.kernels(), &*h.limits);
}

Status write_region_png(const std::vector<std::uint8_t>& rgba, int fb_w, int fb_h, int x0, int y0, int x1, int y1,
                        const std::string& path) {
  x0 = std::clamp(x0, 0, fb_w), x1 = std::clamp(x1, 0, fb_w);
  y0 = std::clamp(y0, 0, fb_h), y1 = std::clamp(y1, 0, fb_h);
  if (x1 <= x0 || y1 <= y0 || rgba.size() < static_cast<std::size_t>(fb_w) * fb_h * 4)
    return Status::failure("nothing to write: the region is not on screen", "show it first, then export", "export");
  const int w = x1 - x0, h = y1 - y0;
  std::vector<std::uint8_t> out(static_cast<std::size_t>(w) * h * 4);
  for (int y = 0; y < h; ++y)
    std::copy_n(rgba.begin() + (static_cast<std::ptrdiff_t>(y0 + y) * fb_w + x0) * 4, w * 4,
                out.begin() + static_cast<std::ptrdiff_t>(y) * w * 4);
  return write_png(path, w, h, 4, out.data());
}

}  // namespace bs::app
