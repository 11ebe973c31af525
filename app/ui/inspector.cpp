// The common lines of every lab's inspector: the thread that stores an element, in CUDA's own
// terms, and what else it stores (its several pixels, its vector access, its loop iteration).
#include <imgui.h>

#include "mapping/explain.hpp"
#include "ui/panels.hpp"
#include "ui/widgets.hpp"

namespace bs::ui {

void draw_owner(const mapping::ElementOwner& o, const LaunchRecord& launch) {
  using mapping::Concept;
  const mapping::ThreadCoord& t = o.thread;
  auto d3 = [](const Dim3& d) {
    return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
  };
  stat_row("blockIdx", d3(t.block), mapping::explain(Concept::BlockIdx));
  stat_row("threadIdx", d3(t.thread), mapping::explain(Concept::ThreadIdx));
  stat_row("warp / lane", std::to_string(t.warp_in_block) + " / " + std::to_string(t.lane),
           mapping::explain(Concept::Warp));
  stat_row("block #", std::to_string(t.linear_block) + (t.block_is_partial ? "  (partial edge block)" : ""),
           mapping::explain(Concept::PartialBlock));
  // Who ran the block, from the launch's own trace: an SM on the GPU, a worker thread on the CPU
  // simulation (the colour-by-SM overlay's colour). Traces are kept in linear block order, so the
  // block is looked up there first: a 16384^2 image's trace has a million blocks, and searching
  // it cost every hovered frame tens of milliseconds.
  const std::vector<BlockTrace>& trace = launch.schedule;
  const BlockTrace* ran = nullptr;
  if (t.linear_block < trace.size() && trace[t.linear_block].block == t.block) ran = &trace[t.linear_block];
  for (std::size_t i = 0; !ran && i < trace.size(); ++i)
    if (trace[i].block == t.block) ran = &trace[i];
  if (ran)
    stat_row(launch.schedule_simulated ? "ran on worker" : "ran on SM", std::to_string(ran->unit),
             launch.schedule_simulated ? "The CPU worker thread that simulated this block (its colour in "
                                         "'colour by SM'), from this launch's trace."
                                       : "The SM that ran this block (%smid, read by the block itself), from "
                                         "this launch's trace: its colour in 'colour by SM'.");
  const IndexScheme& s = launch.scheme;
  if (s.kind == IndexScheme::Kind::Flat) {
    if (o.scalar_edge) {
      ImGui::TextColored(kDimColour, "a scalar %s element, done one per thread",
                         t.global_linear_thread < static_cast<unsigned long long>(s.head) ? "head" : "tail");
    } else {
      if (s.vector > 1)
        ImGui::TextColored(kDimColour, "element %u of a %u-wide vector access", o.vector_lane, s.vector);
      if (s.per_thread > 1)
        ImGui::TextColored(kDimColour, "the thread's access %u of %u in each pass", o.slot + 1, s.per_thread);
      if (s.grid_stride) ImGui::TextColored(kDimColour, "pass %lld of the grid-stride loop", o.pass);
    }
  }
  long long owned = 0;
  for (const auto& r : o.owns) owned += r.w * r.h;
  if (owned > 1) ImGui::TextColored(kDimColour, "this thread stores %lld elements (outlined)", owned);
}

}  // namespace bs::ui
