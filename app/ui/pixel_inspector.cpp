#include <imgui.h>

#include <algorithm>

#include "mapping/explain.hpp"
#include "ui/panels.hpp"
#include "ui/widgets.hpp"

namespace bs::ui {

void draw_pixel_inspector(const InspectorInput& in) {
  using mapping::Concept;
  auto coord = mapping::thread_for_pixel(in.scheme, in.launch->config, in.image_w, in.image_h,
                                         in.pixel.x, in.pixel.y);
  ImGui::Text("pixel (%d, %d)%s", in.pixel.x, in.pixel.y, in.pinned ? "  [pinned]" : "");
  if (!coord) {
    ImGui::TextColored(kWarnColour, "no thread of this launch computes it");
    return;
  }
  auto d3 = [](const Dim3& d) {
    return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
  };
  stat_row("flat index i", std::to_string(coord->flat_index), mapping::explain(Concept::FlatIndex));
  stat_row("blockIdx", d3(coord->block), mapping::explain(Concept::BlockIdx));
  stat_row("threadIdx", d3(coord->thread), mapping::explain(Concept::ThreadIdx));
  stat_row("warp / lane",
           std::to_string(coord->warp_in_block) + " / " + std::to_string(coord->lane),
           mapping::explain(Concept::Warp));
  stat_row("block #", std::to_string(coord->linear_block) + (coord->block_is_partial ? "  (partial edge block)" : ""),
           mapping::explain(Concept::PartialBlock));
  if (in.scheme == mapping::IndexScheme::Flat1D) {
    const unsigned long long t = in.launch->config.block.volume();
    const unsigned long long first = coord->linear_block * t;
    const unsigned long long n = static_cast<unsigned long long>(in.image_w) * in.image_h;
    const unsigned long long last = std::min(first + t, n) - 1;
    ImGui::TextColored(kDimColour, "block covers i = %llu .. %llu", first, last);
    const unsigned long long row0 = first / in.image_w, row1 = last / in.image_w;
    if (row0 == row1)
      ImGui::TextColored(kDimColour, "(part of row %llu)", row0);
    else
      ImGui::TextColored(kDimColour, "(rows %llu to %llu: it wraps across rows)", row0, row1);
  }
}

}  // namespace bs::ui
