// What the user chose, as plain data that names no lab: the window, the headless runner and the
// command line all read and write these structs, so any state reachable in the window can be
// reproduced from the command line (see cli/options.hpp). Lab-specific choices (an image, the
// matrices' sizes) belong to each lab's view; from the command line they arrive as `lab_options`,
// which the lab's catalog entry defines and checks.
#pragma once
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/dim.hpp"
#include "state/sweep_settings.hpp"

namespace bs::app {

enum class CompareMode { Split, SideBySide, ResultOnly, OriginalOnly };
enum class OverlayMode { Off, BlockLines, ColourByBlock, ColourByWarp, ColourBySm };

// The words the command line (--view, --overlay) and the settings file use for these: one table
// each, read by both.
template <class E>
struct Word {
  const char* word;
  E value;
};
inline constexpr Word<CompareMode> kCompareWords[] = {{"split", CompareMode::Split},
                                                      {"side", CompareMode::SideBySide},
                                                      {"result", CompareMode::ResultOnly},
                                                      {"original", CompareMode::OriginalOnly}};
inline constexpr Word<OverlayMode> kOverlayWords[] = {{"off", OverlayMode::Off},
                                                      {"lines", OverlayMode::BlockLines},
                                                      {"block", OverlayMode::ColourByBlock},
                                                      {"warp", OverlayMode::ColourByWarp},
                                                      {"sm", OverlayMode::ColourBySm}};
template <class E, std::size_t N>
std::optional<E> value_of_word(const Word<E> (&words)[N], std::string_view word) {
  for (const Word<E>& w : words)
    if (word == w.word) return w.value;
  return std::nullopt;
}
enum class Panel { Timings, Launch, Schedule, Memory, Runs, Measured, Pipeline };

// The side tabs, in their order: the word the command line, the settings file and the status
// file use for each, and its tab's title. The one table of panel names.
struct PanelName {
  Panel panel;
  const char* word;
  const char* title;
};
inline constexpr PanelName kPanelNames[] = {
    {Panel::Timings, "timings", "Timings"}, {Panel::Launch, "launch", "Launch"},
    {Panel::Schedule, "schedule", "Schedule"}, {Panel::Memory, "memory", "Memory"},
    {Panel::Runs, "runs", "Runs"}, {Panel::Measured, "measured", "Measured"},
    {Panel::Pipeline, "pipeline", "Pipeline"}};
inline const char* panel_word(Panel p) {
  for (const PanelName& n : kPanelNames)
    if (n.panel == p) return n.word;
  return "";
}
inline std::optional<Panel> panel_of_word(std::string_view word) {
  for (const PanelName& n : kPanelNames)
    if (word == n.word) return n.panel;
  return std::nullopt;
}

// An element of a lab's data: (column, row). For images the pixel (x, y); for matmul's C the
// element C[y][x].
struct PixelPos {
  long long x = 0, y = 0;
  friend bool operator==(const PixelPos&, const PixelPos&) = default;
};

// How a lab's data view is looked at: kept per lab, so a pin or a zoom in one lab never shows
// up in another.
struct ViewState {
  CompareMode compare = CompareMode::Split;
  // Fraction of the view showing the original (Split mode). Not 0.5: on the common image widths
  // (512, 1024, ...) the middle is exactly where the 1D kernel's blocks meet (x = 256 for 256
  // threads on 512 pixels), and the split line hid the one block edge of each row.
  float split = 0.38f;
  float zoom = 0;               // screen pixels per data element; 0 = fit to the view
  float center_x = -1, center_y = -1;  // data position at the view's centre; <0 = the centre
  OverlayMode overlay = OverlayMode::ColourByBlock;
  // A quarter: the block colours read at once and the photo under them stays the picture (at
  // 0.45 the default colour-by-block stripes hid it until the learner found the slider; issue 36
  // item 15). A saved choice keeps its own value.
  float overlay_opacity = 0.25f;
  std::optional<PixelPos> hover;   // forced hover (command line); the mouse overrides it
  std::optional<PixelPos> pinned;  // a clicked (pinned) element
};

// A kernel and a configuration asked for by name (the command line, saved settings); the lab
// checks it when it opens.
struct SelectionRequest {
  std::string kernel;             // registry id; empty: the lab's default
  std::optional<Dim3> block;      // free-blockDim kernels
  std::optional<int> compiled;    // compiled kernels: the configuration's index
};

// How the window is laid out and how large its text is (View menu, the panels' splitters).
// The text sizes View > Text size offers and Ctrl+= / Ctrl+- step through (times the monitor's
// content scale).
inline constexpr float kTextScales[] = {0.85f, 1.0f, 1.15f, 1.3f, 1.5f, 1.75f, 2.0f};

struct LayoutPrefs {
  float text_scale = 1.0f;           // View > Text size, times the monitor's content scale
  float left_em = 21, side_em = 31;  // panel widths in font heights, so they follow the text size
  bool left_open = true, side_open = true;
};

// What one lab had when blockscope last quit (state/user_settings.hpp): applied when the lab
// opens, except what the command line names.
struct LabMemory {
  SelectionRequest selection;
  std::optional<ViewState> view;               // compare, split, overlay and opacity only
  std::map<std::string, std::string> options;  // the lab's own options ("--matmul-size" -> ...)
};

struct AppState {
  std::string lab = "gray";       // the lab that is open (a catalog id)
  SelectionRequest selection;     // for `lab`, applied when it opens
  ViewState view;                 // for `lab`'s view
  bool view_given = false;        // the command line set some of `view`
  Panel panel = Panel::Launch;
  std::map<std::string, std::string> lab_options;  // "--matmul-size" -> "512x512x512", ...
  // Per lab id: the problem's settings (lab::Setting) asked for, e.g. gray: layout -> rgba.
  std::map<std::string, std::map<std::string, std::string>> lab_settings;
  bool trace_schedule = true;     // record the block schedule on each new configuration
  bool show_demo = false;
  // Kept between launches (state/user_settings.hpp lists every persisted field, one line each).
  bool lab_given = false;         // the command line named --lab (so the saved lab does not win)
  bool panel_given = false;       // ... --panel
  bool sweep_given = false;       // ... --blocks (the window's sweep shapes)
  LayoutPrefs layout;
  std::map<std::string, LabMemory> remembered;  // per lab id
  SweepSettings sweep;            // sweeps and their result view (state/sweep_settings.hpp)
};

}  // namespace bs::app
