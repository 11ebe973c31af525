#include "labs/grayscale/gray_bench.hpp"

#include <algorithm>
#include <cstdio>
#include <random>

#include "core/json_writer.hpp"
#include "labs/grayscale/gray_common.hpp"

namespace bs::gray {

GrayBenchReport run_gray_bench(GrayLab& lab, const GrayBenchSpec& spec,
                               const GrayBenchContext& context) {
  GrayBenchReport report;
  auto sizes = spec.sizes.empty() ? std::vector<std::pair<int, int>>{{8192, 8192}, {1023, 767}}
                                  : spec.sizes;
  std::vector<GrayKernel> kernels = spec.kernels;
  if (kernels.empty())
    for (auto& k : gray_kernels()) kernels.push_back(k.id);

  std::mt19937 rng(std::random_device{}());
  for (auto [w, h] : sizes) {
    // Fresh random pixels: never time on zeros.
    std::vector<std::uint8_t> rgba(static_cast<std::size_t>(w) * h * 4);
    for (auto& v : rgba) v = static_cast<std::uint8_t>(rng());
    Status loaded = lab.set_image(rgba.data(), w, h);
    for (GrayKernel k : kernels) {
      const auto& blocks = spec.blocks.empty() ? gray_block_presets(k) : spec.blocks;
      for (Dim3 b : blocks) {
        GrayBenchRow row;
        row.kernel = std::string(info(k).name);
        row.block = b;
        row.width = w;
        row.height = h;
        row.grid = gray_launch_config(k, b, w, h).grid;
        if (!loaded) {
          row.error = loaded.describe();
          report.rows.push_back(row);
          continue;
        }
        for (int i = 0; i < spec.warmup; ++i) lab.run(k, b, nullptr);
        std::vector<double> times;
        for (int r = 0; r < std::max(1, spec.repeats) && row.error.empty(); ++r) {
          LaunchRecord rec = lab.run(k, b, nullptr);
          if (!rec.ok()) row.error = rec.status.describe();
          else times.push_back(rec.kernel_ms());
        }
        if (!times.empty()) {
          std::sort(times.begin(), times.end());
          row.median_ms = times[times.size() / 2];
          row.min_ms = times.front();
          row.max_ms = times.back();
          row.gbs = kBytesPerPixel * w * h / (row.median_ms * 1e6);
          row.copy_fraction = context.copy_gbs > 0 ? row.gbs / context.copy_gbs : 0;
        }
        report.rows.push_back(row);
      }
    }
  }

  // The table.
  char line[256];
  std::string t = "device: " + context.device + "  (" + context.versions + ")\n";
  if (context.copy_gbs > 0) {
    std::snprintf(line, sizeof line, "measured device-to-device copy: %.1f GB/s (read + write)\n",
                  context.copy_gbs);
    t += line;
  }
  t += "bytes counted per pixel: 3 read (planar R, G, B) + 1 written\n";
  std::snprintf(line, sizeof line, "%-14s %-11s %-11s %-16s %10s %9s %7s\n", "kernel", "size",
                "block", "grid", "median ms", "GB/s", "% copy");
  t += line;
  for (const auto& r : report.rows) {
    const std::string size = std::to_string(r.width) + "x" + std::to_string(r.height);
    const std::string blk = std::to_string(r.block.x) + "x" + std::to_string(r.block.y) + "x" +
                            std::to_string(r.block.z);
    const std::string grid = std::to_string(r.grid.x) + "x" + std::to_string(r.grid.y) + "x" +
                             std::to_string(r.grid.z);
    if (!r.error.empty()) {
      std::snprintf(line, sizeof line, "%-14s %-11s %-11s %-16s refused: ", r.kernel.c_str(),
                    size.c_str(), blk.c_str(), grid.c_str());
      t += line + r.error + "\n";
      continue;
    }
    std::snprintf(line, sizeof line, "%-14s %-11s %-11s %-16s %10.4f %9.1f %6.1f%%\n",
                  r.kernel.c_str(), size.c_str(), blk.c_str(), grid.c_str(), r.median_ms, r.gbs,
                  100 * r.copy_fraction);
    t += line;
  }
  report.table = t;

  JsonWriter j;
  j.begin_object();
  j.field("benchmark", "gray");
  j.field("device", context.device);
  j.field("versions", context.versions);
  j.field("backend", to_string(lab.backend()));
  j.field("copy_bandwidth_gbs", context.copy_gbs);
  j.field("bytes_per_pixel", kBytesPerPixel);
  j.field("repeats", spec.repeats).field("warmup", spec.warmup);
  j.key("results").begin_array();
  for (const auto& r : report.rows) {
    j.begin_object();
    j.field("kernel", r.kernel);
    j.key("size").begin_array().value(r.width).value(r.height).end_array();
    j.key("block").begin_array().value(r.block.x).value(r.block.y).value(r.block.z).end_array();
    j.key("grid").begin_array().value(r.grid.x).value(r.grid.y).value(r.grid.z).end_array();
    if (r.error.empty()) {
      j.field("median_ms", r.median_ms).field("min_ms", r.min_ms).field("max_ms", r.max_ms);
      j.field("gbs", r.gbs).field("fraction_of_copy_bandwidth", r.copy_fraction);
    } else {
      j.field("error", r.error);
    }
    j.end_object();
  }
  j.end_array();
  j.end_object();
  report.json = j.str() + "\n";
  return report;
}

}  // namespace bs::gray
