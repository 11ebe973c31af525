// The shell's UI, part 5: text size, the theme and fonts (ui/fonts.hpp).
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <cstdio>

#include "shell/shell_ui.hpp"
#include "ui/theme.hpp"

namespace bs::app {

void ShellUi::set_text_scale(float scale) { state_.layout.text_scale = std::clamp(scale, 0.5f, 3.0f); }

// Before each frame: the theme and fonts follow the text size, and the font atlas gains the
// characters the window has to show (file names, messages, the data's name) the first time they
// turn up. Both rebuild the atlas, between frames only.
void ShellUi::update_fonts(bool renderer_ready) {
  const auto& all = messages_.all();
  for (std::size_t i = std::min(font_scanned_messages_, all.size()); i < all.size(); ++i) {
    fonts_.need(all[i].text);
    fonts_.need(all[i].detail);
  }
  font_scanned_messages_ = all.size();
  for (const auto& p : intake_.recent().paths) fonts_.need(p.string());
  file_browser_.each_label([this](const std::string& label) { fonts_.need(label); });
  if (LabSlot* s = host_.slot(state_.lab); s && s->view) fonts_.need(s->view->lab().problem().name);

  const float scale = ui_scale_ * state_.layout.text_scale;
  if (scale == fonts_scale_ && !fonts_.rebuild_due()) return;
  if (scale != fonts_scale_) ui::apply_theme(scale);
  fonts_.build(14.0f * scale);
  fonts_scale_ = scale;
  if (renderer_ready) {
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
  }
  if (!fonts_.missing().empty() && !fonts_missing_said_) {
    fonts_missing_said_ = true;
    char cp[16];
    std::snprintf(cp, sizeof cp, "U+%04X", static_cast<unsigned>(*fonts_.missing().begin()));
    messages_.warn("Some characters have no font here and show as \xef\xbf\xbd (first: " + std::string(cp) + ")",
                   "fonts used: " + fonts_.description() +
                       ". Install a font package that covers them (fonts-noto-cjk: Chinese, Japanese and Korean; "
                       "fonts-noto: most other scripts) and restart blockscope.");
  }
}

}  // namespace bs::app
