#include "editor/code_editor.hpp"

#include <imgui_internal.h>  // ClearActiveID, GetInputTextState: dropping the field's copy of replaced text
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace bs::editor {

namespace {

ImU32 mark_colour(CodeMark::Kind k, int alpha) {
  switch (k) {
    case CodeMark::Kind::Error: return IM_COL32(240, 80, 70, alpha);
    case CodeMark::Kind::Warning: return IM_COL32(240, 190, 60, alpha);
    case CodeMark::Kind::Note: return IM_COL32(120, 170, 240, alpha);
  }
  return IM_COL32(200, 200, 200, alpha);
}

// Line starts (byte offsets) of `text`.
std::vector<int> line_starts(const std::string& text) {
  std::vector<int> starts{0};
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') starts.push_back(static_cast<int>(i + 1));
  return starts;
}

int on_input(ImGuiInputTextCallbackData* data) {
  CodeEditorState& s = *static_cast<CodeEditorState*>(data->UserData);
  if (data->EventFlag != ImGuiInputTextFlags_CallbackAlways) return 0;
  if (s.goto_line > 0) {
    // Byte offset of goto_line:goto_column in the field's current text.
    int line = 1, offset = 0;
    while (offset < data->BufTextLen && line < s.goto_line) {
      if (data->Buf[offset] == '\n') ++line;
      ++offset;
    }
    int end = offset;
    while (end < data->BufTextLen && data->Buf[end] != '\n') ++end;
    offset = std::min(end, offset + std::max(0, s.goto_column - 1));
    data->CursorPos = data->SelectionStart = data->SelectionEnd = offset;
    s.goto_line = s.goto_column = 0;
  }
  // Where the cursor is now, 1-based.
  int line = 1, col = 1;
  for (int i = 0; i < data->CursorPos && i < data->BufTextLen; ++i) {
    if (data->Buf[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  s.cursor_line = line;
  s.cursor_column = col;
  s.last_cursor_offset = data->CursorPos;
  return 0;
}

}  // namespace

void replace_text(CodeEditorState& state, std::string text) {
  state.text = std::move(text);
  state.text_replaced = true;
  state.cursor_line = state.cursor_column = 1;
  state.last_cursor_offset = -1;
}

bool draw_code_editor(const char* id, CodeEditorState& s, const std::vector<CodeMark>& marks, ImVec2 size) {
  ImGui::PushID(id);
  const ImGuiStyle& style = ImGui::GetStyle();
  const float line_h = ImGui::GetFontSize();  // the field advances one font height per line
  const float char_w = ImGui::CalcTextSize("M").x;
  const std::vector<int> starts = line_starts(s.text);
  const int lines = static_cast<int>(starts.size());
  // The widest line, in pixels (tabs are 4 spaces wide in ImGui's font).
  float widest = 0;
  for (int l = 0; l < lines; ++l) {
    const int b = starts[l], e = l + 1 < lines ? starts[l + 1] - 1 : static_cast<int>(s.text.size());
    int cols = 0;
    for (int i = b; i < e; ++i)
      cols += s.text[i] == '\t' ? 4 : ((static_cast<unsigned char>(s.text[i]) & 0xC0) != 0x80);
    widest = std::max(widest, cols * char_w);
  }
  char digits[16];
  std::snprintf(digits, sizeof digits, "%d", std::max(lines, 99));
  const float mark_w = line_h * 0.9f;
  const float gutter_w = mark_w + ImGui::CalcTextSize(digits).x + char_w * 1.5f;

  // Two children side by side: the gutter (fixed) and the code (scrolls both ways). The code is
  // drawn first so the gutter knows where its lines are this frame.
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImVec2 area = size;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  if (area.x <= 0) area.x = avail.x;
  if (area.y <= 0) area.y = avail.y;
  ImGui::SetCursorScreenPos({origin.x + gutter_w, origin.y});
  ImGui::BeginChild("##code_scroll", ImVec2(area.x - gutter_w, area.y), true, ImGuiWindowFlags_HorizontalScrollbar);
  const ImGuiID text_id = ImGui::GetID("##text");
  if (s.text_replaced) {
    // The field keeps its own copy of the text and its undo history while active, and recycles
    // them when it is activated again: both belong to the old text.
    if (ImGui::GetActiveID() == text_id) ImGui::ClearActiveID();
    if (ImGuiInputTextState* st = ImGui::GetInputTextState(text_id)) st->ID = 0;
    s.text_replaced = false;
  }
  const ImVec2 text_pos = ImGui::GetCursorScreenPos();
  const ImVec2 inner = ImGui::GetContentRegionAvail();
  const float text_w = std::max(inner.x, widest + char_w * 4 + style.FramePadding.x * 2);
  const float text_h = std::max(inner.y, (lines + 1) * line_h + style.FramePadding.y * 2);
  const float text_x = text_pos.x;
  const float line1_y = text_pos.y + style.FramePadding.y;  // top of line 1, on screen
  ImDrawList* dl = ImGui::GetWindowDrawList();

  // Behind the (transparent) field: the cursor's line, marked lines and squiggles under marked
  // columns.
  if (s.active)
    dl->AddRectFilled({text_x, line1_y + (s.cursor_line - 1) * line_h},
                      {text_x + text_w, line1_y + s.cursor_line * line_h}, IM_COL32(255, 255, 255, 14));
  for (const CodeMark& m : marks) {
    if (m.line < 1 || m.line > lines) continue;
    const float y = line1_y + (m.line - 1) * line_h;
    dl->AddRectFilled({text_x, y}, {text_x + text_w, y + line_h}, mark_colour(m.kind, 34));
    if (m.column > 0) {
      const int b = starts[m.line - 1];
      const int e = m.line < lines ? starts[m.line] - 1 : static_cast<int>(s.text.size());
      const int at = std::min(e, b + m.column - 1);
      const float x0 = text_x + style.FramePadding.x + ImGui::CalcTextSize(s.text.data() + b, s.text.data() + at).x;
      // A squiggle under the reported column, three characters wide.
      const float yb = y + line_h - 1.5f;
      ImVec2 pts[13];
      for (int i = 0; i < 13; ++i) pts[i] = ImVec2(x0 + i * char_w * 0.25f, yb + ((i & 1) ? 1.5f : -1.0f));
      dl->AddPolyline(pts, 13, mark_colour(m.kind, 255), 0, 1.3f);
    }
  }

  // The field.
  ImGui::PushStyleColor(ImGuiCol_FrameBg, IM_COL32(0, 0, 0, 0));
  ImGui::PushStyleVar(ImGuiStyleVar_FrameBorderSize, 0.0f);
  if (s.take_focus || s.goto_line > 0) {
    ImGui::SetKeyboardFocusHere();
    s.take_focus = false;
  }
  const int cursor_before = s.last_cursor_offset;
  const bool changed = ImGui::InputTextMultiline(
      "##text", &s.text, ImVec2(text_w, text_h),
      ImGuiInputTextFlags_AllowTabInput | ImGuiInputTextFlags_CallbackAlways | ImGuiInputTextFlags_NoHorizontalScroll,
      on_input, &s);
  s.active = ImGui::IsItemActive();
  ImGui::PopStyleVar();
  ImGui::PopStyleColor();

  // Keep the cursor in view when it moved (typing, arrows, a jump to an error): the field does
  // not scroll itself, this child does.
  if (s.active && s.last_cursor_offset != cursor_before) {
    const float y = (s.cursor_line - 1) * line_h + style.FramePadding.y;
    const float h = ImGui::GetWindowHeight() - style.ScrollbarSize - style.WindowPadding.y * 2;
    if (y < ImGui::GetScrollY()) ImGui::SetScrollY(y);
    else if (y + line_h * 2 > ImGui::GetScrollY() + h) ImGui::SetScrollY(y + line_h * 2 - h);
    const int b = starts[std::min(lines, s.cursor_line) - 1];
    const int at = std::min(static_cast<int>(s.text.size()), b + s.cursor_column - 1);
    const float x = style.FramePadding.x + ImGui::CalcTextSize(s.text.data() + b, s.text.data() + at).x;
    const float w = ImGui::GetWindowWidth() - style.ScrollbarSize - style.WindowPadding.x * 2;
    if (x < ImGui::GetScrollX() + char_w) ImGui::SetScrollX(std::max(0.0f, x - char_w * 8));
    else if (x + char_w * 2 > ImGui::GetScrollX() + w) ImGui::SetScrollX(x + char_w * 8 - w);
  }
  const float code_top = ImGui::GetWindowPos().y;
  const float code_bottom = code_top + ImGui::GetWindowHeight();
  ImGui::EndChild();

  // The gutter: line numbers and marks beside the visible lines.
  ImGui::SetCursorScreenPos(origin);
  ImGui::BeginChild("##gutter", ImVec2(gutter_w, area.y), false,
                    ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  ImDrawList* gl = ImGui::GetWindowDrawList();
  const float gx = origin.x;
  gl->AddRectFilled({gx, code_top}, {gx + gutter_w - char_w * 0.5f, code_bottom}, IM_COL32(0, 0, 0, 40));
  const int first = std::max(1, static_cast<int>((code_top - line1_y) / line_h));
  const int last = std::min(lines, first + static_cast<int>((code_bottom - code_top) / line_h) + 2);
  for (int l = first; l <= last; ++l) {
    const float y = line1_y + (l - 1) * line_h;
    char num[16];
    std::snprintf(num, sizeof num, "%d", l);
    const float nw = ImGui::CalcTextSize(num).x;
    const bool current = s.active && l == s.cursor_line;
    gl->AddText({gx + gutter_w - char_w - nw, y}, current ? IM_COL32(230, 230, 235, 255) : IM_COL32(120, 125, 135, 255),
                num);
  }
  // One mark per line (the worst), with every message on it as the tooltip.
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (int l = first; l <= last; ++l) {
    const CodeMark* worst = nullptr;
    std::string tip;
    for (const CodeMark& m : marks) {
      if (m.line != l) continue;
      if (!worst || static_cast<int>(m.kind) < static_cast<int>(worst->kind)) worst = &m;
      tip += (tip.empty() ? "" : "\n") + m.message;
    }
    if (!worst) continue;
    const ImVec2 c(gx + mark_w * 0.55f, line1_y + (l - 1) * line_h + line_h * 0.5f);
    gl->AddCircleFilled(c, line_h * 0.32f, mark_colour(worst->kind, 255));
    if (ImGui::IsWindowHovered() && std::fabs(mouse.x - c.x) < line_h * 0.5f &&
        std::fabs(mouse.y - c.y) < line_h * 0.5f) {
      ImGui::BeginTooltip();
      ImGui::PushTextWrapPos(ImGui::GetFontSize() * 40);
      ImGui::TextUnformatted(tip.c_str());
      ImGui::PopTextWrapPos();
      ImGui::EndTooltip();
    }
  }
  ImGui::EndChild();
  ImGui::SetCursorScreenPos({origin.x, origin.y + area.y});
  ImGui::Dummy({0, 0});
  ImGui::PopID();
  return changed;
}

}  // namespace bs::editor
