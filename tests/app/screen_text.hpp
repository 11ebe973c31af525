// The text the App drew in its last frame, as ImGui's own log captures it: every label, Text and
// TextColored rendered in the main window (its panels, cards and the tooltips opened inside it),
// in drawing order. Tests read what the learner reads with it, never the App's state behind it.
// ImGui 1.86 ends a log at the end of the first top-level window (End calls LogFinish), so what
// is drawn in a window of its own after the main window (the kernel editor) is not captured.
// The log goes "to the clipboard", whose setter the capture stands in for while it lives; trees
// are not opened by it (auto-open depth 0), so the frames drawn are the App's own.
#pragma once
#include <imgui.h>
#include <imgui_internal.h>

#include <string>

namespace bs::app::test {

class ScreenText {
 public:
  // Installs the hooks on the current ImGui context (the App's, once it was made).
  ScreenText() : ctx_(ImGui::GetCurrentContext()) {
    ImGuiIO& io = ImGui::GetIO();
    saved_set_ = io.SetClipboardTextFn;
    saved_user_ = io.ClipboardUserData;
    io.ClipboardUserData = this;
    io.SetClipboardTextFn = [](void* self, const char* text) { static_cast<ScreenText*>(self)->frame_ += text; };
    ImGuiContextHook start;
    start.Type = ImGuiContextHookType_NewFramePost;
    start.UserData = this;
    start.Callback = [](ImGuiContext*, ImGuiContextHook* h) {
      static_cast<ScreenText*>(h->UserData)->frame_.clear();
      ImGui::LogToClipboard(0);
    };
    ImGuiContextHook end;
    end.Type = ImGuiContextHookType_EndFramePost;
    end.UserData = this;
    end.Callback = [](ImGuiContext*, ImGuiContextHook* h) {
      auto* self = static_cast<ScreenText*>(h->UserData);
      self->last_ = self->frame_;
    };
    ids_[0] = ImGui::AddContextHook(ctx_, &start);
    ids_[1] = ImGui::AddContextHook(ctx_, &end);
  }
  ~ScreenText() {
    if (ImGui::GetCurrentContext() != ctx_) return;  // the App (and its context) went first
    ImGui::RemoveContextHook(ctx_, ids_[0]);
    ImGui::RemoveContextHook(ctx_, ids_[1]);
    ImGuiIO& io = ImGui::GetIO();
    io.SetClipboardTextFn = saved_set_;
    io.ClipboardUserData = saved_user_;
  }
  ScreenText(const ScreenText&) = delete;
  ScreenText& operator=(const ScreenText&) = delete;

  const std::string& last() const { return last_; }
  bool shows(const std::string& s) const { return last_.find(s) != std::string::npos; }

 private:
  ImGuiContext* ctx_ = nullptr;
  ImGuiID ids_[2] = {0, 0};
  void (*saved_set_)(void*, const char*) = nullptr;
  void* saved_user_ = nullptr;
  std::string frame_, last_;
};

}  // namespace bs::app::test
