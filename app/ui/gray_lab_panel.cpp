#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "labs/grayscale/gray_kernels.hpp"
#include "ui/panels.hpp"
#include "ui/widgets.hpp"

namespace bs::ui {

namespace {

std::string dims(const Dim3& d) {
  return std::to_string(d.x) + " x " + std::to_string(d.y) + " x " + std::to_string(d.z);
}

}  // namespace

GrayLabPanelActions draw_gray_lab_panel(const GrayLabPanelInput& in, app::AppState* state,
                                        bool* run_continuously) {
  GrayLabPanelActions act;
  auto& gray = state->gray;
  ImGui::TextUnformatted("GRAYSCALE LAB");
  ImGui::TextColored(kDimColour, "out = 0.2989 R + 0.5870 G + 0.1140 B");
  ImGui::Separator();

  // Image.
  if (in.image) {
    ImGui::TextWrapped("%s", in.image->name.c_str());
    ImGui::TextColored(kDimColour, "%d x %d px, %s, %d channel%s, %d bit", in.image->width,
                       in.image->height, in.image->format.c_str(), in.image->source_channels,
                       in.image->source_channels == 1 ? "" : "s", in.image->source_bits_per_channel);
  }
  if (ImGui::Button("Open image...")) act.open_file = true;
  ImGui::SameLine();
  ImGui::TextColored(kDimColour, "or drop files here");
  ImGui::Spacing();

  // Kernel.
  ImGui::TextUnformatted("Kernel");
  for (const auto& k : gray::gray_kernels()) {
    if (ImGui::RadioButton(std::string(k.label).c_str(), gray.kernel == k.id)) {
      if (gray.kernel != k.id) {
        gray.kernel = k.id;
        gray.block = k.default_block;
        act.relaunch = true;
      }
    }
    item_tooltip(std::string(k.teaches).c_str());
  }
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextColored(kDimColour, "%s", std::string(gray::info(gray.kernel).teaches).c_str());
  ImGui::PopTextWrapPos();
  ImGui::Spacing();

  // blockDim: sliders and typed values edit the same numbers; the launcher validates them.
  ImGui::TextUnformatted("blockDim");
  help_marker("Threads per block in x, y and z. A block may have at most 1024 threads in all, "
              "x and y up to 1024 and z up to 64. Shapes CUDA would refuse are refused here, "
              "before launch, with the reason.");
  int b[3] = {static_cast<int>(gray.block.x), static_cast<int>(gray.block.y), static_cast<int>(gray.block.z)};
  bool changed = false;
  ImGui::PushItemWidth(-ImGui::GetFontSize() * 1.5f);
  changed |= ImGui::SliderInt("x", &b[0], 1, 1024, "%d", ImGuiSliderFlags_Logarithmic);
  changed |= ImGui::SliderInt("y", &b[1], 1, 1024, "%d", ImGuiSliderFlags_Logarithmic);
  changed |= ImGui::SliderInt("z", &b[2], 1, 64, "%d", ImGuiSliderFlags_Logarithmic);
  changed |= ImGui::InputInt3("typed", b);
  ImGui::PopItemWidth();
  item_tooltip("Type any values (even invalid ones: the launcher will say why it refuses them).");
  if (changed) {
    gray.block = Dim3{static_cast<unsigned>(std::max(0, b[0])), static_cast<unsigned>(std::max(0, b[1])),
                      static_cast<unsigned>(std::max(0, b[2]))};
    act.relaunch = true;
  }
  ImGui::TextColored(kDimColour, "presets");
  int col = 0;
  for (const Dim3& p : gray::gray_block_presets(gray.kernel)) {
    char label[32];
    if (p.y == 1 && p.z == 1) std::snprintf(label, sizeof label, "%u", p.x);
    else std::snprintf(label, sizeof label, "%ux%u", p.x, p.y);
    if (col++ % 4 != 0) ImGui::SameLine();
    const bool current = p == gray.block;
    if (current) ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.30f, 0.50f, 0.30f, 1));
    if (ImGui::Button(label, ImVec2(ImGui::GetFontSize() * 4.2f, 0))) {
      gray.block = p;
      act.relaunch = true;
    }
    if (current) ImGui::PopStyleColor();
  }
  ImGui::Spacing();

  // What ran, or why nothing did.
  if (in.last_launch && !in.last_launch->ok() && !in.last_launch->kernel.empty()) {
    ImGui::TextColored(kErrorColour, "Launch refused");
    status_text(in.last_launch->status);
    if (in.last_good_launch && in.last_good_launch->ok())
      ImGui::TextColored(kDimColour, "Showing the last launch that ran.");
  }
  if (in.last_good_launch && in.last_good_launch->ok()) {
    const auto& c = in.last_good_launch->config;
    stat_row("gridDim", dims(c.grid), "Blocks in x, y and z, as the launcher really launched them: ceil(data / blockDim).");
    stat_row("blockDim", dims(c.block));
    stat_row("threads", std::to_string(c.total_threads()));
  }
  ImGui::Checkbox("Run continuously", run_continuously);
  item_tooltip("Relaunch the kernel every frame so the timings fill up. Off: relaunch only when "
               "something changes.");
  ImGui::SameLine();
  if (ImGui::Button("Run once")) act.relaunch = true;
  ImGui::Checkbox("Record the block schedule", &gray.trace_schedule);
  item_tooltip("On each new configuration, record which SM (or simulator worker) ran every block "
               "and when: the Schedule tab and the 'by SM' overlay use it.");

  ImGui::Separator();
  ImGui::TextUnformatted("VIEW");
  const char* compare[] = {"Split", "Side by side", "Result only", "Original only"};
  int cm = static_cast<int>(state->view.compare);
  if (ImGui::Combo("compare", &cm, compare, 4)) state->view.compare = static_cast<app::CompareMode>(cm);
  if (state->view.compare == app::CompareMode::Split)
    ImGui::SliderFloat("split", &state->view.split, 0.0f, 1.0f, "%.2f");
  const char* overlays[] = {"Off", "Block lines", "Colour by block", "Colour by warp", "Colour by SM"};
  int om = static_cast<int>(state->view.overlay);
  if (ImGui::Combo("overlay", &om, overlays, 5)) state->view.overlay = static_cast<app::OverlayMode>(om);
  ImGui::SliderFloat("opacity", &state->view.overlay_opacity, 0.0f, 1.0f, "%.2f");
  if (ImGui::Button("Fit")) act.fit_view = true;
  ImGui::SameLine();
  if (ImGui::Button("1:1")) act.actual_size = true;
  ImGui::SameLine();
  if (state->view.zoom > 0) ImGui::TextColored(kDimColour, "zoom %.2fx", state->view.zoom);
  else ImGui::TextColored(kDimColour, "zoom: fit");
  if (state->view.pinned) {
    ImGui::Text("pinned pixel (%d, %d)", state->view.pinned->x, state->view.pinned->y);
    ImGui::SameLine();
    if (ImGui::SmallButton("unpin")) state->view.pinned.reset();
  }
  return act;
}

}  // namespace bs::ui
