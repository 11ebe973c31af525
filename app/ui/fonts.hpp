// The window's fonts. Text is DejaVu Sans (Debian: fonts-dejavu-core), scalable to any text
// size, with Droid Sans Fallback (fonts-droid-fallback) merged in for the Chinese, Japanese and
// Korean characters users' file names have. Without DejaVu the app keeps ImGui's built-in
// 13 px font and says so.
//
// Why characters are added as they turn up: ImGui 1.86 bakes every glyph it can draw into one
// texture up front, and all of CJK at a large text size would be tens of MiB. So the atlas
// always holds Latin, Greek, Cyrillic and punctuation, plus each other character that text the
// window must show has used (FontSet::need: file names, messages, the image's name); a new one
// rebuilds the atlas between two frames. A character no font found covers draws as U+FFFD (a
// visible replacement mark, never a '?' that reads like part of the name), and missing() names
// them so the app can say which package would show them.
#pragma once
#include <imgui.h>

#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace bs::ui {

struct FontFiles {
  std::filesystem::path text;      // the main font; empty: ImGui's built-in one
  std::filesystem::path fallback;  // merged in for characters the main font lacks; may be empty
};
// The Debian paths of the fonts above, where they exist. BLOCKSCOPE_FONT and
// BLOCKSCOPE_FALLBACK_FONT (file paths) override them; an empty value turns one off.
FontFiles find_font_files();

class FontSet {
 public:
  explicit FontSet(FontFiles files = find_font_files()) : files_(std::move(files)) {}

  // Notes the characters of `utf8` the atlas lacks. Cheap for text already seen.
  void need(std::string_view utf8);
  bool rebuild_due() const { return rebuild_due_; }
  // Rebuilds io.Fonts for text of `pixel_size` (13 at 100%): call between frames, then have the
  // renderer upload the atlas again (ImGui_ImplOpenGL3_CreateFontsTexture).
  void build(float pixel_size);

  // Characters asked for that no font file has (after the last build).
  const std::set<ImWchar>& missing() const { return missing_; }
  // "DejaVu Sans, Droid Sans Fallback for CJK" or why the built-in font is used.
  std::string description() const;
  bool scalable() const { return !files_.text.empty(); }

 private:
  FontFiles files_;
  std::set<ImWchar> extra_;  // characters beyond the base ranges, asked for so far
  std::set<ImWchar> built_;  // extra_ at the last build
  std::set<ImWchar> missing_;
  std::vector<ImWchar> ranges_;  // must outlive the atlas (ImFontConfig::GlyphRanges)
  std::vector<ImWchar> fallback_ranges_;
  bool rebuild_due_ = true;
  bool text_font_failed_ = false;
};

// Text clipped to `max_width` with an ellipsis, the whole text in a tooltip when it was cut:
// for one-line places (the status bar) where wrapping would push the layout around.
void text_clipped(const char* text, float max_width, const ImVec4& colour);

}  // namespace bs::ui
