#include "ui/help_overlay.hpp"

#include <imgui.h>

#include <algorithm>

#include "ui/widgets.hpp"

namespace bs::ui {

void draw_help_overlay(const std::vector<HelpLine>& lines, const std::string& footer, bool* open) {
  if (!*open) return;
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float em = ImGui::GetFontSize();
  // Centred, as wide as it needs up to the window, scrolling when the window is short.
  ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x * 0.5f, vp->WorkPos.y + vp->WorkSize.y * 0.5f),
                          ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowSizeConstraints(ImVec2(std::min(em * 24, vp->WorkSize.x), 0),
                                      ImVec2(vp->WorkSize.x * 0.95f, vp->WorkSize.y * 0.9f));
  ImGui::SetNextWindowFocus();
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove;
  if (ImGui::Begin("Keyboard shortcuts", open, flags)) {
    std::vector<std::string> groups;
    for (const HelpLine& l : lines)
      if (std::find(groups.begin(), groups.end(), l.group) == groups.end()) groups.push_back(l.group);
    if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_SizingFixedFit)) {
      for (const std::string& g : groups) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Spacing();
        ImGui::TextColored(ImVec4(0.56f, 0.80f, 1.0f, 1.0f), "%s", g.c_str());
        ImGui::TableNextColumn();
        for (const HelpLine& l : lines) {
          if (l.group != g) continue;
          ImGui::TableNextRow();
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(l.keys.c_str());
          ImGui::TableNextColumn();
          ImGui::TextColored(kDimColour, "%s", l.what.c_str());
        }
      }
      ImGui::EndTable();
    }
    ImGui::Separator();
    ImGui::PushTextWrapPos(em * 30);
    ImGui::TextColored(kDimColour, "%s", footer.c_str());
    ImGui::PopTextWrapPos();
    // A click outside the overlay closes it, as Escape does.
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Left) &&
        !ImGui::IsWindowHovered(ImGuiHoveredFlags_AllowWhenBlockedByPopup))
      *open = false;
  }
  ImGui::End();
}

}  // namespace bs::ui
