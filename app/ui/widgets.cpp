#include "ui/widgets.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>

#include "mapping/memory_access.hpp"
#include "ui/layout.hpp"

namespace bs::ui {

void help_marker(const char* text) {
  // Whole, never wrapped into "(?" and ")" on two lines: beside the item where it fits, else at
  // the start of the next line.
  same_line_if_fits(ImGui::CalcTextSize("(?)").x);
  ImGui::PushTextWrapPos(-1.0f);
  ImGui::TextDisabled("(?)");
  ImGui::PopTextWrapPos();
  item_tooltip(text);
}

bool slider_int_beside(const char* label, int* v, int lo, int hi, const std::string& value, int flags) {
  const float em = ImGui::GetFontSize();
  const char* hidden = std::strstr(label, "##");
  const char* end = hidden ? hidden : label + std::strlen(label);
  const float label_w = end > label ? ImGui::CalcTextSize(label, end).x + ImGui::GetStyle().ItemInnerSpacing.x : 0.0f;
  // Room for the value as it is and as wide as the range's largest, so the slider does not jump.
  const float value_w =
      std::max(ImGui::CalcTextSize(value.c_str()).x, ImGui::CalcTextSize(std::to_string(hi).c_str()).x) + em * 0.5f;
  const float full = ImGui::CalcItemWidth();
  ImGui::SetNextItemWidth(std::max(em * 3.0f, full - value_w));
  ImGui::PushID(label);
  const bool changed = ImGui::SliderInt("##slider", v, lo, hi, "", static_cast<ImGuiSliderFlags>(flags));
  ImGui::PopID();
  ImGui::SameLine(0, em * 0.4f);
  ImGui::TextUnformatted(value.c_str());
  if (label_w > 0) {
    ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
    ImGui::TextUnformatted(label, end);
  }
  return changed;
}

void item_tooltip(const char* text) {
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) tooltip(text);
}

void tooltip(const char* text) {
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28.0f);
  ImGui::TextUnformatted(text);
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

void wrapped_text(const ImVec4& colour, const char* fmt, ...) {
  ImGui::PushTextWrapPos(0.0f);
  va_list args;
  va_start(args, fmt);
  ImGui::TextColoredV(colour, fmt, args);
  va_end(args);
  ImGui::PopTextWrapPos();
}

std::string fmt(const char* format, double v) {
  char buf[96];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

void stat_row(const char* label, const std::string& value, const char* explanation) {
  // The value column sits at 12 em, or closer in a narrow panel; a value that does not fit
  // wraps under it instead of running into the next item.
  const float start = ImGui::GetCursorPosX();
  const float avail = ImGui::GetContentRegionAvail().x;
  const float column = std::min(ImGui::GetFontSize() * 12.0f, avail * 0.45f);
  ImGui::TextColored(kDimColour, "%s", label);
  if (explanation) item_tooltip(explanation);
  const float label_end = ImGui::GetItemRectMax().x - ImGui::GetWindowPos().x;
  const float value_x = std::max(start + column, label_end + ImGui::GetFontSize() * 0.5f);
  // A value that does not fit beside its label goes under it, indented, rather than being cut
  // mid-number by the wrap; one longer than the whole width still wraps at spaces.
  const float value_w = ImGui::CalcTextSize(value.c_str()).x;
  if (start + avail - value_x >= value_w || value_w > avail * 0.9f) {
    ImGui::SameLine(value_x);
  } else {
    ImGui::SetCursorPosX(start + ImGui::GetFontSize());
  }
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextUnformatted(value.c_str());
  ImGui::PopTextWrapPos();
  if (explanation) item_tooltip(explanation);
}

std::string sig(double v, int digits) {
  char buf[64];
  if (!std::isfinite(v)) return "--";
  const double a = std::fabs(v);
  if (a != 0 && (a < 0.001 || a >= 1e7)) std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  else if (a >= std::pow(10.0, digits)) std::snprintf(buf, sizeof buf, "%.0f", v);
  else {
    // Enough decimals for `digits` significant digits, never more than 6.
    const int before = a >= 1 ? static_cast<int>(std::floor(std::log10(a))) + 1 : 0;
    int decimals = std::clamp(digits - before, 0, 6);
    if (a > 0 && a < 1) decimals = std::clamp(digits - static_cast<int>(std::floor(std::log10(a))) - 1, 0, 6);
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  }
  return buf;
}

std::string sig_trim(double v, int digits) {
  std::string s = sig(v, digits);
  if (s.find('.') != std::string::npos && s.find('e') == std::string::npos) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  return s;
}

std::string ms_text(double ms) { return sig(ms, 4) + " ms"; }

void status_text(const Status& s) {
  if (s.ok()) return;
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextColored(kErrorColour, "%s", s.message.c_str());
  // The call beside a library's error name ("cudaMalloc: cudaErrorMemoryAllocation") is for the
  // learner to look up; without one it is blockscope's own function, not the learner's business.
  if (!s.code.empty())
    ImGui::TextColored(kDimColour, "%s%s%s", s.call.c_str(), s.call.empty() || s.code.empty() ? "" : ": ",
                       s.code.c_str());
  if (!s.hint.empty()) ImGui::TextColored(kWarnColour, "%s", s.hint.c_str());
  ImGui::PopTextWrapPos();
}

void line_plot(const char* id, const PlotSeries* series, int count, ImVec2 size, const char* unit) {
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
      const float x =
          p0.x + pad + (size.x - 2 * pad) * (longest <= 1 ? 0.0f : float(i + (longest - n)) / float(longest - 1));
      const float y = p1.y - pad - (size.y - 2 * pad) * float(v[i] / top);
      const ImVec2 cur{x, y};
      if (i > 0) dl->AddLine(prev, cur, series[s].colour, 1.5f);
      prev = cur;
    }
  }
  char label[64];
  std::snprintf(label, sizeof label, "%.4g %s", top, unit);
  dl->AddText({p0.x + 6, p0.y + 3}, IM_COL32(170, 174, 186, 255), label);
  const bool hovered = ImGui::IsItemHovered();
  // The legend under the plot, wrapping to the panel's width, so it never covers the top label.
  const float right = ImGui::GetCursorScreenPos().x + ImGui::GetContentRegionAvail().x;
  for (int s = 0; s < count; ++s) {
    if (!series[s].label) continue;
    const float w = ImGui::CalcTextSize(series[s].label).x;
    if (s > 0) {
      ImGui::SameLine(0, ImGui::GetFontSize());
      if (ImGui::GetCursorScreenPos().x + w > right) ImGui::NewLine();
    }
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(series[s].colour), "%s", series[s].label);
  }
  if (hovered && longest > 0) {
    const float fx = (ImGui::GetIO().MousePos.x - p0.x - pad) / (size.x - 2 * pad);
    const std::size_t idx = std::min<std::size_t>(longest - 1, std::size_t(std::max(0.0f, fx) * (longest - 1) + 0.5f));
    ImGui::BeginTooltip();
    for (int s = 0; s < count; ++s) {
      const auto& v = *series[s].values;
      const std::size_t off = longest - v.size();
      if (idx >= off)
        ImGui::Text("%s: %s %s", series[s].label ? series[s].label : "", sig(v[idx - off], 4).c_str(), unit);
    }
    ImGui::EndTooltip();
  }
  ImGui::PopID();
}

void draw_warp_request(const mapping::WarpAccess& a) {
  const float em = ImGui::GetFontSize();
  const bool wasteful = a.sectors > a.ideal_sectors;
  ImGui::TextColored(a.is_write ? ImVec4(1, 0.75f, 0.5f, 1) : ImVec4(0.7f, 0.85f, 1, 1), "%s", a.label.c_str());
  ImGui::SameLine();
  ImGui::TextColored(wasteful ? kWarnColour : kOkColour, "%u sector%s (ideal %u)", a.sectors, a.sectors == 1 ? "" : "s",
                     a.ideal_sectors);
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
      // Golden-ratio steps around the hue circle: neighbouring sectors never share a colour.
      const double golden = static_cast<double>(addr / mapping::kSectorBytes) * 0.61803398875;
      float r, g, b;
      ImGui::ColorConvertHSVtoRGB(static_cast<float>(golden - std::floor(golden)), 0.6f, 0.9f, r, g, b);
      colour = ImGui::ColorConvertFloat4ToU32(ImVec4(r, g, b, 1));
    }
    dl->AddRectFilled(c0, c1, colour);
    if (ImGui::IsItemHovered() && ImGui::GetIO().MousePos.x >= c0.x && ImGui::GetIO().MousePos.x < c0.x + cell)
      hovered_lane = lane;
  }
  if (hovered_lane >= 0) {
    const long long addr = a.lane_address[hovered_lane];
    ImGui::BeginTooltip();
    if (addr == mapping::kNoAccess) ImGui::Text("lane %d: no access (idle)", hovered_lane);
    else
      ImGui::Text("lane %d: %s + %lld bytes, sector %lld", hovered_lane, a.buffer.c_str(), addr,
                  addr / mapping::kSectorBytes);
    ImGui::EndTooltip();
  }
}

}  // namespace bs::ui
