// What the user chose, as plain data that names no lab: the window, the headless runner and the
// command line all read and write these structs, so any state reachable in the window can be
// reproduced from the command line (see cli/options.hpp). Lab-specific choices (an image, the
// matrices' sizes) belong to each lab's view; from the command line they arrive as `lab_options`,
// which the lab's catalog entry defines and checks.
#pragma once
#include <cstddef>
#include <iterator>
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
// The window's tabs (ui/tab.hpp): the centre's beside the data, the side panel's beside it.
enum class Dock { Centre, Side };
enum class Panel { Data, Sweep, Compare, Source, Timings, Launch, Schedule, Memory, Runs, Measured, Pipeline };

// Every tab, in its dock's order: the word the command line (--panel), the settings file and the
// status file use for it, its title and where it docks. The one table of tab names: the shell's
// tabs and those a lab adds (Memory, Pipeline) are named here, so a tab the table lacks cannot be
// asked for.
struct PanelName {
  Panel panel;
  const char* word;
  const char* title;
  Dock dock;
};
inline constexpr PanelName kPanelNames[] = {{Panel::Data, "data", "Data", Dock::Centre},
                                            {Panel::Sweep, "sweep", "Sweep", Dock::Centre},
                                            {Panel::Compare, "compare", "Compare", Dock::Centre},
                                            {Panel::Source, "source", "Source", Dock::Centre},
                                            {Panel::Timings, "timings", "Timings", Dock::Side},
                                            {Panel::Launch, "launch", "Launch", Dock::Side},
                                            {Panel::Schedule, "schedule", "Schedule", Dock::Side},
                                            {Panel::Memory, "memory", "Memory", Dock::Side},
                                            {Panel::Runs, "runs", "Runs", Dock::Side},
                                            {Panel::Measured, "measured", "Measured", Dock::Side},
                                            {Panel::Pipeline, "pipeline", "Pipeline", Dock::Side}};
// The table lists the tabs in Panel's order: a tab's entry is at its value, and tabs sort by it.
constexpr bool panel_table_in_order() {
  for (std::size_t i = 0; i < std::size(kPanelNames); ++i)
    if (static_cast<std::size_t>(kPanelNames[i].panel) != i) return false;
  return true;
}
static_assert(panel_table_in_order(), "kPanelNames lists the tabs in Panel's order");
inline const PanelName& panel_name(Panel p) { return kPanelNames[static_cast<std::size_t>(p)]; }
inline const char* panel_word(Panel p) { return panel_name(p).word; }
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
  float zoom = 0;                      // screen pixels per data element; 0 = fit to the view
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
  std::string kernel;           // registry id; empty: the lab's default
  std::optional<Dim3> block;    // free-blockDim kernels
  std::optional<int> compiled;  // compiled kernels: the configuration's index
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
  std::string lab = "gray";                        // the lab that is open (a catalog id)
  SelectionRequest selection;                      // for `lab`, applied when it opens
  ViewState view;                                  // for `lab`'s view
  bool view_given = false;                         // the command line set some of `view`
  Panel panel = Panel::Launch;                     // the side tab shown (kept between launches)
  Panel centre = Panel::Data;                      // the centre tab shown (--panel data|sweep|compare|source, --source)
  std::map<std::string, std::string> lab_options;  // "--matmul-size" -> "512x512x512", ...
  // Per lab id: the problem's settings (lab::Setting) asked for, e.g. gray: layout -> rgba.
  std::map<std::string, std::map<std::string, std::string>> lab_settings;
  bool trace_schedule = true;  // record the block schedule on each new configuration
  bool show_demo = false;
  // Kept between launches (state/user_settings.hpp lists every persisted field, one line each).
  bool lab_given = false;    // the command line named --lab (so the saved lab does not win)
  bool panel_given = false;  // ... --panel
  bool sweep_given = false;  // ... --blocks (the window's sweep shapes)
  LayoutPrefs layout;
  std::map<std::string, LabMemory> remembered;  // per lab id
  SweepSettings sweep;                          // sweeps and their result view (state/sweep_settings.hpp)
};

}  // namespace bs::app
