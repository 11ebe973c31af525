#include "ui/fonts.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "ui/widgets.hpp"

namespace bs::ui {
namespace fs = std::filesystem;
namespace {

// Always in the atlas: Latin with its extensions, Greek, Cyrillic, general punctuation (the
// ellipsis, dashes), arrows, mathematical operators, geometric shapes, and U+FFFD (ImGui draws it
// for any character no font has: the visible fallback).
constexpr ImWchar kBaseRanges[] = {0x0020, 0x024F, 0x0370, 0x03FF, 0x0400, 0x052F, 0x2000, 0x206F,
                                   0x2190, 0x21FF, 0x2200, 0x22FF, 0x25A0, 0x25FF, 0xFFFD, 0xFFFD};

bool in_base(ImWchar c) {
  for (std::size_t i = 0; i < std::size(kBaseRanges); i += 2)
    if (c >= kBaseRanges[i] && c <= kBaseRanges[i + 1]) return true;
  return false;
}

// The next code point of UTF-8 text; malformed bytes come out as U+FFFD, one byte each.
unsigned next_code_point(std::string_view s, std::size_t* i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned c = b(*i);
  int extra = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : -1;
  if (extra < 0 || *i + static_cast<std::size_t>(extra) >= s.size()) {
    ++*i;
    return 0xFFFD;
  }
  unsigned cp = extra == 0 ? c : c & (0x3F >> extra);
  for (int k = 1; k <= extra; ++k) {
    if ((b(*i + k) & 0xC0) != 0x80) {
      ++*i;
      return 0xFFFD;
    }
    cp = (cp << 6) | (b(*i + k) & 0x3F);
  }
  *i += 1 + extra;
  return cp;
}

bool readable(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return in.good();
}

fs::path first_existing(std::initializer_list<const char*> paths) {
  for (const char* p : paths)
    if (readable(p)) return p;
  return {};
}

fs::path from_env(const char* name, fs::path otherwise) {
  const char* v = std::getenv(name);
  if (!v) return otherwise;
  return v[0] ? fs::path(v) : fs::path();
}

// A font file in memory for ImGui (which keeps a pointer, not a copy: the atlas must not own it).
std::vector<char> load(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return {};
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

// A TrueType file's bytes added to the atlas; the copy is in memory ImGui frees with the atlas
// (the atlas's own rule). Null when there are no bytes or ImGui refuses them.
ImFont* add_font(const std::vector<char>& bytes, float pixel_size, const ImFontConfig& cfg, const ImWchar* ranges) {
  if (bytes.empty()) return nullptr;
  void* owned = IM_ALLOC(bytes.size());
  std::copy(bytes.begin(), bytes.end(), static_cast<char*>(owned));
  return ImGui::GetIO().Fonts->AddFontFromMemoryTTF(owned, static_cast<int>(bytes.size()), pixel_size, &cfg, ranges);
}

}  // namespace

FontFiles find_font_files() {
  FontFiles f;
  f.text = from_env("BLOCKSCOPE_FONT", first_existing({"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"}));
  f.fallback =
      from_env("BLOCKSCOPE_FALLBACK_FONT",
               first_existing({"/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",  // fonts-noto-cjk: Hangul too
                               "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
                               "/usr/share/fonts-droid-fallback/truetype/DroidSansFallback.ttf"}));
  return f;
}

void FontSet::need(std::string_view utf8) {
  for (std::size_t i = 0; i < utf8.size();) {
    if (static_cast<unsigned char>(utf8[i]) < 0x80) {
      ++i;
      continue;
    }
    const unsigned cp = next_code_point(utf8, &i);
    if (cp > 0xFFFF) continue;  // ImWchar is 16 bits here: drawn as the fallback mark
    const auto c = static_cast<ImWchar>(cp);
    if (in_base(c) || extra_.count(c)) continue;
    extra_.insert(c);
    if (!built_.count(c)) rebuild_due_ = true;
  }
}

void FontSet::build(float pixel_size) {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  missing_.clear();
  ranges_.assign(std::begin(kBaseRanges), std::end(kBaseRanges));
  for (ImWchar c : extra_) ranges_.insert(ranges_.end(), {c, c});
  ranges_.push_back(0);
  ImFont* font = nullptr;
  if (!files_.text.empty() && !text_font_failed_) {
    ImFontConfig cfg;
    cfg.OversampleH = 2;
    cfg.OversampleV = 1;
    font = add_font(load(files_.text), pixel_size, cfg, ranges_.data());
    text_font_failed_ = font == nullptr;
  }
  if (!font) {
    ImFontConfig cfg;
    cfg.SizePixels = 13.0f * pixel_size / 14.0f;
    cfg.OversampleH = cfg.OversampleV = 1;
    cfg.PixelSnapH = true;
    font = io.Fonts->AddFontDefault(&cfg);
  }
  if (!files_.fallback.empty() && !extra_.empty()) {
    fallback_ranges_.clear();
    for (ImWchar c : extra_) fallback_ranges_.insert(fallback_ranges_.end(), {c, c});
    fallback_ranges_.push_back(0);
    ImFontConfig cfg;
    cfg.MergeMode = true;
    cfg.OversampleH = cfg.OversampleV = 1;
    add_font(load(files_.fallback), pixel_size, cfg, fallback_ranges_.data());
  }
  io.Fonts->Build();
  for (ImWchar c : extra_)
    if (!font->FindGlyphNoFallback(c)) missing_.insert(c);
  built_ = extra_;
  rebuild_due_ = false;
}

std::string FontSet::description() const {
  if (files_.text.empty() || text_font_failed_)
    return "ImGui's built-in 13 px font (install fonts-dejavu-core for a scalable one)";
  std::string s = files_.text.filename().string();
  if (!files_.fallback.empty()) s += ", " + files_.fallback.filename().string() + " for CJK";
  else s += " (install fonts-droid-fallback for Chinese, Japanese and Korean names)";
  return s;
}

void text_clipped(const char* text, float max_width, const ImVec4& colour) {
  const float full = ImGui::CalcTextSize(text).x;
  if (full <= max_width) {
    ImGui::TextColored(colour, "%s", text);
    return;
  }
  const char* ellipsis = "\xe2\x80\xa6";  // U+2026
  const float room = std::max(0.0f, max_width - ImGui::CalcTextSize(ellipsis).x);
  // The longest prefix (cut on a UTF-8 boundary) that fits.
  std::string_view s(text);
  std::size_t lo = 0, hi = s.size();
  while (lo < hi) {
    std::size_t mid = (lo + hi + 1) / 2;
    while (mid > 0 && mid < s.size() && (static_cast<unsigned char>(s[mid]) & 0xC0) == 0x80) --mid;
    if (mid <= lo) break;
    if (ImGui::CalcTextSize(text, text + mid).x <= room) lo = mid;
    else hi = mid - 1;
  }
  const std::string shown = std::string(s.substr(0, lo)) + ellipsis;
  ImGui::TextColored(colour, "%s", shown.c_str());
  item_tooltip(text);
}

}  // namespace bs::ui
