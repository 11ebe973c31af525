// Small ImGui helpers shared by the panels: explanatory tooltips, coloured status lines, a
// hand-drawn line plot (no ImPlot: ImDrawList directly) and a warp's memory request.
#pragma once
#include <imgui.h>

#include <cstdint>
#include <deque>
#include <string>

#include "core/status.hpp"

namespace bs::mapping {
struct WarpAccess;
}

namespace bs::ui {

inline const ImVec4 kErrorColour{1.0f, 0.45f, 0.4f, 1.0f};
inline const ImVec4 kWarnColour{1.0f, 0.8f, 0.35f, 1.0f};
inline const ImVec4 kOkColour{0.5f, 0.9f, 0.55f, 1.0f};
inline const ImVec4 kDimColour{0.6f, 0.62f, 0.68f, 1.0f};

// A "(?)" marker whose tooltip explains a concept in plain words.
void help_marker(const char* text);
// A tooltip on the previous item, when hovered (disabled items too).
void item_tooltip(const char* text);
// A tooltip now: the text wrapped at 28 em (item_tooltip's look, for a caller's own hover test).
void tooltip(const char* text);
// Coloured text wrapped at the panel's edge, never cut there (printf-style, as TextColored).
void wrapped_text(const ImVec4& colour, const char* fmt, ...) IM_FMTARGS(2);
// A label: value row with an optional explanation tooltip on both.
void stat_row(const char* label, const std::string& value, const char* explanation = nullptr);

// A slider with its value written beside it, never under its knob (ImGui writes the value in
// the middle of the frame, where the knob passes over it): [----o----] value label. Takes the
// item width as SliderInt would; returns true when the value changed.
bool slider_int_beside(const char* label, int* v, int lo, int hi, const std::string& value, int flags = 0);
// A number with `digits` significant digits, small ones included (0.0031, not 0.0), large ones
// without a useless fraction: what every figure on screen uses.
std::string sig(double v, int digits = 3);
// The same without trailing zeros: 1 rather than 1.00, 2.5 rather than 2.50.
std::string sig_trim(double v, int digits = 3);
// One number through a printf format: fmt("%.0f MHz", 1410.0) is "1410 MHz".
std::string fmt(const char* format, double v);
// "0.3178 ms": a time with four significant digits.
std::string ms_text(double ms);
// A Status as coloured wrapped text: message, then call/code, then hint.
void status_text(const Status& s);
// A GL texture name as ImGui's texture id (the OpenGL 3 backend's convention).
inline ImTextureID gl_texture(unsigned id) { return reinterpret_cast<ImTextureID>(static_cast<intptr_t>(id)); }

struct PlotSeries {
  const std::deque<double>* values;
  ImU32 colour;
  const char* label;
};
// Line plot of one or two series sharing a y axis from 0 to the max, with a labelled top value.
void line_plot(const char* id, const PlotSeries* series, int count, ImVec2 size, const char* unit);

// One warp's memory request: its label, sectors against the ideal, then a cell per lane coloured
// by the 32-byte sector it touches, with the lane's offset in a tooltip. Used by the grayscale
// memory panel and the matmul lab's memory tab.
void draw_warp_request(const mapping::WarpAccess& access);

}  // namespace bs::ui
