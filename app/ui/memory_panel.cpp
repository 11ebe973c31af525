#include <imgui.h>

#include <cstdio>

#include "mapping/explain.hpp"
#include "mapping/memory_access.hpp"
#include "ui/panels.hpp"
#include "ui/widgets.hpp"

namespace bs::ui {

namespace {

// One request: 32 lane cells coloured by the sector they touch, and sectors against the ideal.
void draw_request(const mapping::WarpAccess& a) {
  const float em = ImGui::GetFontSize();
  const bool wasteful = a.sectors > a.ideal_sectors;
  ImGui::TextColored(a.is_write ? ImVec4(1, 0.75f, 0.5f, 1) : ImVec4(0.7f, 0.85f, 1, 1), "%s",
                     a.label.c_str());
  ImGui::SameLine();
  ImGui::TextColored(wasteful ? kWarnColour : kOkColour, "%u sector%s (ideal %u)", a.sectors,
                     a.sectors == 1 ? "" : "s", a.ideal_sectors);
  const float cell = std::min(em * 0.7f, (ImGui::GetContentRegionAvail().x - 4) / 32.0f);
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(a.label.c_str(), ImVec2(cell * 32, cell));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  int hovered_lane = -1;
  for (int lane = 0; lane < 32; ++lane) {
    const long long addr = lane < static_cast<int>(a.lane_address.size()) ? a.lane_address[lane] : mapping::kNoAccess;
    const ImVec2 c0(p0.x + lane * cell, p0.y), c1(c0.x + cell - 1, c0.y + cell - 1);
    ImU32 colour = IM_COL32(50, 52, 58, 255);
    if (addr != mapping::kNoAccess) {
      const long long sector = addr / mapping::kSectorBytes;
      float r, g, b;
      ImGui::ColorConvertHSVtoRGB(static_cast<float>((sector * 0.61803398875) - static_cast<long long>(sector * 0.61803398875)), 0.6f, 0.9f, r, g, b);
      colour = ImGui::ColorConvertFloat4ToU32(ImVec4(r, g, b, 1));
    }
    dl->AddRectFilled(c0, c1, colour);
    if (ImGui::IsItemHovered() && ImGui::GetIO().MousePos.x >= c0.x && ImGui::GetIO().MousePos.x < c0.x + cell) hovered_lane = lane;
  }
  if (hovered_lane >= 0) {
    const long long addr = a.lane_address[hovered_lane];
    ImGui::BeginTooltip();
    if (addr == mapping::kNoAccess) ImGui::Text("lane %d: no access (idle)", hovered_lane);
    else ImGui::Text("lane %d: %s + %lld bytes, sector %lld", hovered_lane, a.buffer.c_str(), addr, addr / mapping::kSectorBytes);
    ImGui::EndTooltip();
  }
}

}  // namespace

void draw_memory_panel(const SidePanelInput& in) {
  using mapping::Concept;
  const LaunchRecord& rec = *in.last_good_launch;
  if (!in.inspected) {
    ImGui::TextColored(kDimColour, "Hover a pixel (or pin one) to see its warp's requests.");
    return;
  }
  auto coord = mapping::thread_for_pixel(in.scheme, rec.config, in.image_w, in.image_h, in.inspected->x, in.inspected->y);
  if (!coord) return;
  ImGui::Text("warp %u of block (%u, %u, %u)", coord->warp_in_block, coord->block.x, coord->block.y, coord->block.z);
  help_marker(mapping::explain(Concept::Coalescing));
  ImGui::TextColored(kDimColour, "each cell is a lane; colour = the 32-byte sector it touches");
  for (const auto& a : mapping::gray_warp_accesses(in.scheme, rec.config, in.image_w, in.image_h, coord->block, coord->warp_in_block))
    draw_request(a);

  ImGui::Separator();
  ImGui::TextUnformatted("Row-major vs column-major thread mapping");
  help_marker("The naive matmul with a 16 x 16 block on 1024 x 1024 matrices, warp 0 of block "
              "(0, 0), k = 0. With the row taken from threadIdx.y, a warp's 32 lanes read 32 "
              "consecutive floats of B (4 sectors). With the row taken from threadIdx.x, they "
              "walk down a column of A: every lane needs its own sector.");
  const LaunchConfig cfg{{64, 64, 1}, {16, 16, 1}};
  for (auto m : {mapping::MatmulMapping::RowFromY, mapping::MatmulMapping::RowFromX}) {
    ImGui::TextColored(kDimColour, "%s", mapping::to_string(m));
    unsigned total = 0, ideal = 0;
    for (const auto& a : mapping::matmul_warp_accesses(m, cfg, 1024, 1024, 1024, {0, 0, 0}, 0, 0)) {
      draw_request(a);
      total += a.sectors;
      ideal += a.ideal_sectors;
    }
    ImGui::TextColored(total > ideal ? kWarnColour : kOkColour, "  %u sectors for the step (ideal %u)", total, ideal);
  }
}

}  // namespace bs::ui
