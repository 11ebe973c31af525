#include <imgui.h>

#include "ui/panels.hpp"
#include "ui/widgets.hpp"

namespace bs::ui {

void draw_side_panel(const SidePanelInput& in, app::AppState* state) {
  if (!ImGui::BeginTabBar("side_tabs")) return;
  struct Tab {
    const char* name;
    app::Panel panel;
    void (*draw)(const SidePanelInput&);
  };
  const Tab tabs[] = {{"Timings", app::Panel::Timings, draw_timings_panel},
                      {"Launch", app::Panel::Stats, draw_launch_stats_panel},
                      {"Schedule", app::Panel::Schedule, draw_schedule_panel},
                      {"Memory", app::Panel::Memory, draw_memory_panel}};
  static_assert(sizeof(tabs) / sizeof(tabs[0]) == 4);
  for (const Tab& t : tabs) {
    // The command line picks the first tab; after that, the user's clicks decide.
    const bool select = ImGui::GetFrameCount() <= 2 && state->panel == t.panel;
    if (ImGui::BeginTabItem(t.name, nullptr, select ? ImGuiTabItemFlags_SetSelected : 0)) {
      if (ImGui::GetFrameCount() > 2) state->panel = t.panel;
      if (!in.last_good_launch || !in.last_good_launch->ok())
        ImGui::TextColored(kDimColour, "No launch has run yet.");
      else
        t.draw(in);
      ImGui::EndTabItem();
    }
  }
  ImGui::EndTabBar();
}

}  // namespace bs::ui
