#include "ui/widgets.hpp"

#include <algorithm>
#include <cstdio>

namespace bs::ui {

void help_marker(const char* text) {
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  item_tooltip(text);
}

void item_tooltip(const char* text) {
  if (!ImGui::IsItemHovered()) return;
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28.0f);
  ImGui::TextUnformatted(text);
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

void stat_row(const char* label, const std::string& value, const char* explanation) {
  ImGui::TextColored(kDimColour, "%s", label);
  if (explanation) item_tooltip(explanation);
  ImGui::SameLine(ImGui::GetFontSize() * 12.0f);
  ImGui::TextUnformatted(value.c_str());
  if (explanation) item_tooltip(explanation);
}

void status_text(const Status& s) {
  if (s.ok()) return;
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextColored(kErrorColour, "%s", s.message.c_str());
  if (!s.call.empty() || !s.code.empty())
    ImGui::TextColored(kDimColour, "%s%s%s", s.call.c_str(), s.call.empty() || s.code.empty() ? "" : ": ",
                       s.code.c_str());
  if (!s.hint.empty()) ImGui::TextColored(kWarnColour, "%s", s.hint.c_str());
  ImGui::PopTextWrapPos();
}

void line_plot(const char* id, const PlotSeries* series, int count, ImVec2 size,
               const char* unit) {
  ImGui::PushID(id);
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  if (size.x <= 0) size.x = ImGui::GetContentRegionAvail().x;
  ImGui::InvisibleButton("plot", size);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p1{p0.x + size.x, p0.y + size.y};
  dl->AddRectFilled(p0, p1, IM_COL32(24, 26, 32, 255), 3.0f);
  dl->AddRect(p0, p1, IM_COL32(70, 74, 86, 255), 3.0f);

  double top = 0;
  std::size_t longest = 0;
  for (int s = 0; s < count; ++s) {
    for (double v : *series[s].values) top = std::max(top, v);
    longest = std::max(longest, series[s].values->size());
  }
  if (top <= 0) top = 1;
  top *= 1.1;
  const float pad = 4.0f;
  // Horizontal guide lines at quarters of the range.
  for (int g = 1; g < 4; ++g) {
    const float y = p1.y - pad - (size.y - 2 * pad) * g / 4.0f;
    dl->AddLine({p0.x + 1, y}, {p1.x - 1, y}, IM_COL32(50, 54, 64, 255));
  }
  for (int s = 0; s < count; ++s) {
    const auto& v = *series[s].values;
    if (v.size() < 2) continue;
    const std::size_t n = v.size();
    ImVec2 prev{};
    for (std::size_t i = 0; i < n; ++i) {
      const float x = p0.x + pad + (size.x - 2 * pad) * (longest <= 1 ? 0.0f : float(i + (longest - n)) / float(longest - 1));
      const float y = p1.y - pad - (size.y - 2 * pad) * float(v[i] / top);
      const ImVec2 cur{x, y};
      if (i > 0) dl->AddLine(prev, cur, series[s].colour, 1.5f);
      prev = cur;
    }
  }
  char label[64];
  std::snprintf(label, sizeof label, "%.4g %s", top, unit);
  dl->AddText({p0.x + 6, p0.y + 3}, IM_COL32(170, 174, 186, 255), label);
  float lx = p1.x - 6;
  for (int s = count - 1; s >= 0; --s) {
    const ImVec2 ts = ImGui::CalcTextSize(series[s].label);
    lx -= ts.x;
    dl->AddText({lx, p0.y + 3}, series[s].colour, series[s].label);
    lx -= 12;
  }
  if (ImGui::IsItemHovered() && longest > 0) {
    const float fx = (ImGui::GetIO().MousePos.x - p0.x - pad) / (size.x - 2 * pad);
    const std::size_t idx = std::min<std::size_t>(longest - 1, std::size_t(std::max(0.0f, fx) * (longest - 1) + 0.5f));
    ImGui::BeginTooltip();
    for (int s = 0; s < count; ++s) {
      const auto& v = *series[s].values;
      const std::size_t off = longest - v.size();
      if (idx >= off) ImGui::Text("%s: %.4f %s", series[s].label, v[idx - off], unit);
    }
    ImGui::EndTooltip();
  }
  ImGui::PopID();
}

}  // namespace bs::ui
