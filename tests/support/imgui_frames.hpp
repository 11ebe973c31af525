// One ImGui harness for drawing a panel in a test without a window: a context of its own, the
// app's theme, the font atlas built on the CPU (no GL: the frame's draw data is made and not
// rendered, so the test runs on any machine, never skips), and the text each frame drew, as
// ImGui's own log captures it, so a test reads what the learner would read.
//
//   bs::test::ImGuiFrames ui({420, 900});
//   const std::string text = ui.frame([&] { ui::draw_result_card(in); });
//
// Two frames per call (ImGui sizes tables and wrapped text in the first), the second's text kept;
// a test that steps the mouse frame by frame (a click: the button down in one frame, up in the
// next) asks for one. The context is current while the harness lives: a test sets ImGui::GetIO()'s
// mouse and reads ImGui's windows between calls.
#pragma once
#include <imgui.h>

#include <string>
#include <utility>

#include "ui/theme.hpp"

namespace bs::test {

// Whether a panel's captured text contains `part`.
inline bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class ImGuiFrames {
 public:
  explicit ImGuiFrames(ImVec2 size = ImVec2(420, 900)) : size_(size) {
    previous_ = ImGui::GetCurrentContext();
    ctx_ = ImGui::CreateContext();
    ImGui::SetCurrentContext(ctx_);
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = size_;
    io.DeltaTime = 1.0f / 60.0f;
    ui::apply_theme(1.0f);
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);  // builds the atlas; nothing uploads it
    io.ClipboardUserData = this;
    io.SetClipboardTextFn = [](void* self, const char* text) { static_cast<ImGuiFrames*>(self)->text_ += text; };
  }
  ~ImGuiFrames() {
    ImGui::DestroyContext(ctx_);
    ImGui::SetCurrentContext(previous_);
  }
  ImGuiFrames(const ImGuiFrames&) = delete;
  ImGuiFrames& operator=(const ImGuiFrames&) = delete;

  // Draws `draw` inside one window the size of the display, `count` times; the text of the last.
  template <class Draw>
  std::string frame(Draw&& draw, int count = 2) {
    for (int f = 0; f < count; ++f) {
      ImGui::NewFrame();
      ImGui::SetNextWindowPos(ImVec2(0, 0));
      ImGui::SetNextWindowSize(size_);
      ImGui::Begin("panel", nullptr, ImGuiWindowFlags_NoDecoration);
      text_.clear();
      ImGui::LogToClipboard(0);
      draw();
      ImGui::LogFinish();
      ImGui::End();
      ImGui::Render();
    }
    return text_;
  }

 private:
  ImVec2 size_;
  ImGuiContext* ctx_ = nullptr;
  ImGuiContext* previous_ = nullptr;
  std::string text_;
};

}  // namespace bs::test
