#include <imgui.h>

#include <cstdio>

#include "ui/panels.hpp"
#include "ui/widgets.hpp"

namespace bs::ui {

void draw_timings_panel(const SidePanelInput& in) {
  const LaunchRecord& rec = *in.last_good_launch;
  const app::TimingSummary k = in.history->kernel_summary();
  const app::TimingSummary p = in.history->pipeline_summary();
  char buf[128];
  ImGui::TextColored(kDimColour, "kernel time, %s", rec.timing.clock.c_str());
  if (ImGui::BeginTable("kt", 4, ImGuiTableFlags_SizingStretchSame)) {
    for (const char* h : {"last", "median", "min", "max"}) {
      ImGui::TableNextColumn();
      ImGui::TextColored(kDimColour, "%s", h);
    }
    for (double v : {k.last, k.median, k.min, k.max}) {
      ImGui::TableNextColumn();
      ImGui::Text("%.4f ms", v);
    }
    ImGui::EndTable();
  }
  ImGui::TextColored(kDimColour, "over the last %zu launches", k.count);

  // Bandwidth from the median, against the measured device-to-device copy.
  const double gbs = k.median > 0 ? rec.bytes_moved / (k.median * 1e6) : 0;
  std::snprintf(buf, sizeof buf, "%.1f GB/s", gbs);
  stat_row("bandwidth", buf,
           "Bytes the kernel must move over its median time. Counted per pixel: 3 bytes read "
           "(planar R, G and B) + 1 byte written.");
  if (in.copy_gbs > 0) {
    std::snprintf(buf, sizeof buf, "%.1f GB/s (measured at start-up)", in.copy_gbs);
    stat_row("copy ceiling", buf,
             "A large device-to-device cudaMemcpy, counting bytes read plus written: about as fast "
             "as any memory-bound kernel can go on this GPU.");
    const float frac = static_cast<float>(gbs / in.copy_gbs);
    std::snprintf(buf, sizeof buf, "%.0f%% of copy bandwidth", 100 * frac);
    ImGui::ProgressBar(std::min(frac, 1.0f), ImVec2(-1, 0), buf);
  } else if (in.copy_note) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(kDimColour, "%s", in.copy_note->c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::Spacing();
  std::snprintf(buf, sizeof buf, "%.3f ms (median %.3f)", p.last, p.median);
  stat_row("frame pipeline", buf,
           "Map the GL buffer for CUDA, launch, unmap, and copy into the texture (CPU wall clock "
           "to glFinish). The kernel time above is only the kernel.");
  const PlotSeries series[] = {{&in.history->kernel(), IM_COL32(110, 190, 255, 255), "kernel"},
                               {&in.history->pipeline(), IM_COL32(255, 170, 90, 255), "pipeline"}};
  line_plot("history", series, 2, ImVec2(0, ImGui::GetFontSize() * 9), "ms");
  if (rec.backend == BackendKind::CpuSimulation)
    ImGui::TextColored(kWarnColour, "CPU simulation: times are the simulator's, not a GPU's.");
}

}  // namespace bs::ui
