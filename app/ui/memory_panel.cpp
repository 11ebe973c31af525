#include <imgui.h>

#include <cstdio>

#include "mapping/explain.hpp"
#include "mapping/memory_access.hpp"
#include "ui/panels.hpp"
#include "ui/widgets.hpp"

namespace bs::ui {

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
    draw_warp_request(a);

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
      draw_warp_request(a);
      total += a.sectors;
      ideal += a.ideal_sectors;
    }
    ImGui::TextColored(total > ideal ? kWarnColour : kOkColour, "  %u sectors for the step (ideal %u)", total, ideal);
  }
}

}  // namespace bs::ui
