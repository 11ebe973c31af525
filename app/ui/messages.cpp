#include "ui/messages.hpp"

#include <imgui.h>

#include <ctime>

#include "ui/widgets.hpp"

namespace bs::ui {

void draw_messages_window(const app::MessageLog& log, bool* open) {
  if (!*open) return;
  ImGui::SetNextWindowSize(ImVec2(ImGui::GetFontSize() * 40, ImGui::GetFontSize() * 20), ImGuiCond_FirstUseEver);
  if (ImGui::Begin("Messages", open)) {
    for (auto it = log.all().rbegin(); it != log.all().rend(); ++it) {
      const std::time_t t = std::chrono::system_clock::to_time_t(it->when);
      char stamp[16];
      std::strftime(stamp, sizeof stamp, "%H:%M:%S", std::localtime(&t));
      ImGui::TextColored(kDimColour, "%s", stamp);
      ImGui::SameLine();
      const ImVec4 colour = it->level == app::Message::Error     ? kErrorColour
                            : it->level == app::Message::Warning ? kWarnColour
                                                                 : ImVec4(0.85f, 0.87f, 0.9f, 1);
      ImGui::PushTextWrapPos(0.0f);
      ImGui::TextColored(colour, "%s", it->text.c_str());
      // What to do comes first; where it came from (a call and its code, such as
      // "stat: is_directory") is for bug reports: only in the message's tooltip.
      if (!it->where.empty()) item_tooltip(("Where it came from, for bug reports: " + it->where).c_str());
      if (!it->hint.empty() || !it->where.empty()) {
        if (!it->hint.empty()) ImGui::TextColored(kWarnColour, "    %s", it->hint.c_str());
      } else if (!it->detail.empty()) {
        ImGui::TextColored(kDimColour, "    %s", it->detail.c_str());
      }
      ImGui::PopTextWrapPos();
    }
  }
  ImGui::End();
}

}  // namespace bs::ui
