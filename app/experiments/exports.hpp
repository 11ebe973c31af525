// Exports: a sweep or the current launch as JSON or CSV through the one writer
// (kernels/lab/report.hpp; schema in docs/results-schema.md), and PNGs of the heatmap, the data
// view or the whole window cut from the rendered frame. A path that cannot be written is a
// Status naming it; nothing measured is touched by a failed export.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/launch_record.hpp"
#include "core/status.hpp"
#include "lab/lab.hpp"
#include "lab/sweep.hpp"

namespace bs::app {

enum class ExportWhat { SweepJson, SweepCsv, LaunchJson, LaunchCsv, HeatmapPng, DataViewPng, WindowPng };

const char* export_label(ExportWhat w);  // "the sweep as JSON", ...
bool export_needs_frame(ExportWhat w);   // a PNG: cut from the rendered frame
// "blockscope-gray-sweep-20261123-101500.json" in the working folder.
std::string default_export_path(ExportWhat w, const std::string& lab_id);

std::string sweep_json(const lab::SweepResult& r);
std::string sweep_csv(const lab::SweepResult& r);
// One launch (kind "launch") with the lab's backend, ceilings and the device's limits.
std::string launch_json(const lab::Lab& lab, const LaunchRecord& r);
std::string launch_csv(const lab::Lab& lab, const LaunchRecord& r);

// A rectangle of an RGBA framebuffer read back top row first (fb_w x fb_h), in framebuffer
// pixels, written as a PNG. The rectangle is clipped to the framebuffer; an empty one is a Status.
Status write_region_png(const std::vector<std::uint8_t>& rgba, int fb_w, int fb_h, int x0, int y0, int x1, int y1,
                        const std::string& path);

}  // namespace bs::app
