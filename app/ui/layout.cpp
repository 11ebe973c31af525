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
  // The controls come first (they are what runs anything): they get their width, the side tabs
  // what is left if that is at least their minimum, else the side tabs fold. When even the
  // controls do not fit they shrink to their minimum, then fold too.
  const float want_left = c.left_open ? prefs.left_em * em : strip;
  const float want_side = c.side_open ? prefs.side_em * em : strip;
  const float min_side = std::max(min_panel, kMinSideEm * em);
  const float side_floor = c.side_open ? min_side : strip;
  c.left = c.left_open ? std::min(want_left, std::max(min_panel, room - side_floor)) : strip;
  c.side = std::min(want_side, room - c.left);
  if (c.side_open && c.side < min_side - 0.5f) {
    c.side_open = false;
    c.side_folded_for_room = true;
    c.side = strip;
    if (c.left_open) c.left = std::min(want_left, std::max(min_panel, room - strip));
  }
  if (c.left_open && c.left + c.side > room + 0.5f) {
    c.left_open = false;
    c.left_folded_for_room = true;
    c.left = strip;
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
    ImGui::GetWindowDrawList()->AddLine(
        ImVec2(x, a.y + em), ImVec2(x, b.y - em),
        ImGui::GetColorU32(active ? ImGuiCol_SeparatorActive : ImGuiCol_SeparatorHovered), 2.0f);
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

void same_line_if_fits(float width) {
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  if (ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + width <= right) ImGui::SameLine();
}

float radio_width(const char* label) {
  return ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label, nullptr, true).x;
}

}  // namespace bs::ui
