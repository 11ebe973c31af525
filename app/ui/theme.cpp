#include "ui/theme.hpp"

#include <imgui.h>

namespace bs::ui {

void apply_theme(float scale) {
  ImGui::StyleColorsDark();
  ImGuiStyle& s = ImGui::GetStyle();
  s.WindowRounding = 4;
  s.ChildRounding = 4;
  s.FrameRounding = 3;
  s.GrabRounding = 3;
  s.TabRounding = 3;
  s.WindowPadding = ImVec2(10, 8);
  s.FramePadding = ImVec2(7, 4);
  s.ItemSpacing = ImVec2(8, 6);
  ImVec4* c = s.Colors;
  c[ImGuiCol_WindowBg] = ImVec4(0.10f, 0.11f, 0.13f, 1.0f);
  c[ImGuiCol_ChildBg] = ImVec4(0.12f, 0.13f, 0.15f, 1.0f);
  c[ImGuiCol_PopupBg] = ImVec4(0.09f, 0.10f, 0.12f, 0.97f);
  c[ImGuiCol_Border] = ImVec4(0.24f, 0.26f, 0.30f, 1.0f);
  c[ImGuiCol_FrameBg] = ImVec4(0.17f, 0.19f, 0.22f, 1.0f);
  c[ImGuiCol_FrameBgHovered] = ImVec4(0.22f, 0.25f, 0.30f, 1.0f);
  c[ImGuiCol_FrameBgActive] = ImVec4(0.26f, 0.30f, 0.36f, 1.0f);
  c[ImGuiCol_TitleBgActive] = ImVec4(0.13f, 0.15f, 0.19f, 1.0f);
  c[ImGuiCol_MenuBarBg] = ImVec4(0.13f, 0.14f, 0.17f, 1.0f);
  c[ImGuiCol_Button] = ImVec4(0.20f, 0.33f, 0.45f, 1.0f);
  c[ImGuiCol_ButtonHovered] = ImVec4(0.26f, 0.42f, 0.58f, 1.0f);
  c[ImGuiCol_ButtonActive] = ImVec4(0.30f, 0.48f, 0.66f, 1.0f);
  c[ImGuiCol_Header] = ImVec4(0.20f, 0.33f, 0.45f, 0.8f);
  c[ImGuiCol_HeaderHovered] = ImVec4(0.26f, 0.42f, 0.58f, 0.9f);
  c[ImGuiCol_Tab] = ImVec4(0.15f, 0.17f, 0.21f, 1.0f);
  c[ImGuiCol_TabHovered] = ImVec4(0.26f, 0.42f, 0.58f, 1.0f);
  c[ImGuiCol_TabActive] = ImVec4(0.20f, 0.33f, 0.45f, 1.0f);
  c[ImGuiCol_SliderGrab] = ImVec4(0.46f, 0.70f, 0.92f, 1.0f);
  c[ImGuiCol_CheckMark] = ImVec4(0.56f, 0.80f, 1.0f, 1.0f);
  c[ImGuiCol_PlotHistogram] = ImVec4(0.40f, 0.70f, 0.95f, 1.0f);
  s.ScaleAllSizes(scale);
  // The fonts are ui/fonts.hpp's (FontSet), built for the same scale.
}

}  // namespace bs::ui
