#include "ui/layout.hpp"

#include <algorithm>

namespace bs::ui {

Columns plan_columns(float avail, float em, float gap, const app::LayoutPrefs& prefs) {
  Columns c;
  c.left_open = prefs.left_open;
  c.side_open = prefs.side_open;
  const float strip = kStripEm * em;
  const float min_panel = kMinPanelEm * em;
  const float view_min = std::max(kMinViewEm * em, kMinViewShare * avail);
  const float room = std::max(0.0f, avail - 2 * gap - view_min);  // for the two panels
  auto fit = [&] {
    const float want_left = c.left_open ? prefs.left_em * em : strip;
    const float want_side = c.side_open ? prefs.side_em * em : strip;
    c.left = want_left;
    c.side = want_side;
    if (want_left + want_side <= room) return true;
    // Shrink the open panels in proportion, not below their minimum.
    const float fixed = (c.left_open ? 0 : strip) + (c.side_open ? 0 : strip);
    const float open_total = (c.left_open ? want_left : 0) + (c.side_open ? want_side : 0);
    const float scale = open_total > 0 ? std::max(0.0f, room - fixed) / open_total : 1;
    if (c.left_open) c.left = std::max(min_panel, want_left * scale);
    if (c.side_open) c.side = std::max(min_panel, want_side * scale);
    return c.left + c.side <= room + 0.5f;
  };
  if (!fit() && c.side_open) {
    c.side_open = false;  // the side tabs fold first: the controls are what runs anything
    c.side_folded_for_room = true;
    if (!fit() && c.left_open) {
      c.left_open = false;
      c.left_folded_for_room = true;
      fit();
    }
  }
  c.view = std::max(1.0f, avail - 2 * gap - c.left - c.side);
  return c;
}

bool splitter(const char* id, float width, float height, float em, float* width_em, bool panel_on_right,
              float default_em) {
  ImGui::InvisibleButton(id, ImVec2(width, height));
  const bool active = ImGui::IsItemActive();
  const bool hovered = ImGui::IsItemHovered();
  if (hovered || active) ImGui::SetMouseCursor(ImGuiMouseCursor_ResizeEW);
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  if (hovered || active) {
    const float x = (a.x + b.x) * 0.5f;
    ImGui::GetWindowDrawList()->AddLine(ImVec2(x, a.y + em), ImVec2(x, b.y - em),
                                        ImGui::GetColorU32(active ? ImGuiCol_SeparatorActive : ImGuiCol_SeparatorHovered),
                                        2.0f);
  }
  bool changed = false;
  if (hovered && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
    *width_em = default_em;
    changed = true;
  } else if (active) {
    const float dx = ImGui::GetIO().MouseDelta.x;
    if (dx != 0) {
      *width_em = std::clamp(*width_em + (panel_on_right ? -dx : dx) / em, kMinPanelEm, 80.0f);
      changed = true;
    }
  }
  return changed;
}

int wrapping_tabs(const char* id, const std::vector<std::string>& labels, int current, float width) {
  ImGui::PushID(id);
  const ImGuiStyle& style = ImGui::GetStyle();
  const float right = ImGui::GetCursorScreenPos().x + (width > 0 ? width : ImGui::GetContentRegionAvail().x);
  int chosen = current;
  for (int i = 0; i < static_cast<int>(labels.size()); ++i) {
    const float w = ImGui::CalcTextSize(labels[i].c_str()).x + style.FramePadding.x * 2;
    if (i > 0) {
      ImGui::SameLine(0, 2);
      if (ImGui::GetCursorScreenPos().x + w > right) ImGui::NewLine();
    }
    const bool on = i == current;
    ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(on ? ImGuiCol_TabActive : ImGuiCol_Tab));
    ImGui::PushStyleColor(ImGuiCol_ButtonHovered, ImGui::GetStyleColorVec4(ImGuiCol_TabHovered));
    ImGui::PushStyleColor(ImGuiCol_ButtonActive, ImGui::GetStyleColorVec4(ImGuiCol_TabActive));
    if (ImGui::Button((labels[i] + "##" + std::to_string(i)).c_str())) chosen = i;
    ImGui::PopStyleColor(3);
  }
  // The line under the strip, as a tab bar has.
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImGui::GetWindowDrawList()->AddLine(ImVec2(p.x, p.y - style.ItemSpacing.y * 0.5f),
                                      ImVec2(right, p.y - style.ItemSpacing.y * 0.5f),
                                      ImGui::GetColorU32(ImGuiCol_TabActive), 1.0f);
  ImGui::PopID();
  return chosen;
}

}  // namespace bs::ui
