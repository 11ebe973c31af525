// Fonts (ui/fonts.hpp): a file named "café_ñ_日本.png" is drawn with real glyphs, loaded
// when the name is first seen; without the CJK font its two ideographs draw visibly as U+FFFD.
// The atlas is built on the CPU in the tests' one ImGui harness (imgui_frames.hpp), no window.
#include <gtest/gtest.h>

#include <string>

#include "imgui_frames.hpp"
#include "skips.hpp"
#include "ui/fonts.hpp"

namespace {

using namespace bs;

TEST(Fonts, NonLatinNamesGetRealGlyphsOrAVisibleFallback) {
  const ui::FontFiles files = ui::find_font_files();
  if (files.text.empty() || files.fallback.empty())
    BS_SKIP() << "fonts-dejavu-core and fonts-droid-fallback are not installed (.ci/install-deps.sh installs them)";
  // The context the font sets build into.
  bs::test::ImGuiFrames imgui;
  const std::string name = "caf\xc3\xa9_\xc3\xb1_\xe6\x97\xa5\xe6\x9c\xac.png";  // café_ñ_日本.png
  ui::FontSet fonts(files);
  fonts.need(name);
  EXPECT_TRUE(fonts.rebuild_due());
  fonts.build(14);
  EXPECT_TRUE(fonts.missing().empty());
  ImFont* font = ImGui::GetIO().Fonts->Fonts[0];
  for (ImWchar c : {ImWchar(0xE9), ImWchar(0xF1), ImWchar(0x65E5), ImWchar(0x672C)})
    EXPECT_NE(font->FindGlyphNoFallback(c), nullptr) << "U+" << std::hex << c;
  // Seen once, it needs no rebuild again.
  fonts.need(name);
  EXPECT_FALSE(fonts.rebuild_due());

  // Without the CJK font: the two ideographs are missing, and draw as U+FFFD, not '?'.
  ui::FontSet latin_only(ui::FontFiles{files.text, {}});
  latin_only.need(name);
  latin_only.build(14);
  EXPECT_EQ(latin_only.missing().size(), 2u);
  EXPECT_EQ(ImGui::GetIO().Fonts->Fonts[0]->FallbackChar, ImWchar(0xFFFD));
}

}  // namespace
