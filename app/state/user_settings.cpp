#include "state/user_settings.hpp"

#include <cstdlib>

#include "state/recent_files.hpp"

namespace bs::app {
namespace {

// The words the file uses: the command line's own (cli/options.cpp), so a person reading the file
// recognises them.
template <class E, std::size_t N>
std::vector<std::pair<const char*, E>> words_of(const Word<E> (&words)[N]) {
  std::vector<std::pair<const char*, E>> out;
  for (const Word<E>& w : words) out.emplace_back(w.word, w.value);
  return out;
}
const std::vector<std::pair<const char*, CompareMode>> kCompare = words_of(kCompareWords);
const std::vector<std::pair<const char*, OverlayMode>> kOverlay = words_of(kOverlayWords);
const std::vector<std::pair<const char*, Panel>> kPanel = [] {
  std::vector<std::pair<const char*, Panel>> words;
  for (const PanelName& n : kPanelNames)
    if (n.dock == Dock::Side) words.emplace_back(n.word, n.panel);  // the side tab is kept; the centre starts at Data
  return words;
}();
const std::vector<std::pair<const char*, HeatmapMetric>> kMetric = {
    {"time", HeatmapMetric::Time},
    {"throughput", HeatmapMetric::Throughput},
    {"occupancy", HeatmapMetric::Occupancy},
    {"dram_measured", HeatmapMetric::MeasuredDram},
    {"l2_hit_measured", HeatmapMetric::MeasuredL2Hit},
    {"achieved_occupancy", HeatmapMetric::AchievedOccupancy},
    {"load_sectors_measured", HeatmapMetric::MeasuredLoadSectors}};

}  // namespace

void bind_user_settings(SettingsBinder& b, AppState& s, const std::vector<std::string>& labs) {
  b.field("lab", s.lab);
  b.field("panel", s.panel, kPanel);
  b.field("trace_schedule", s.trace_schedule);
  b.field("ui.text_scale", s.layout.text_scale, 0.5f, 3.0f);
  b.field("ui.left_em", s.layout.left_em, 8.0f, 80.0f);
  b.field("ui.side_em", s.layout.side_em, 8.0f, 120.0f);
  b.field("ui.left_open", s.layout.left_open);
  b.field("ui.side_open", s.layout.side_open);
  // The sweep's settings (state/sweep_settings.hpp): what it tries, its timing policy, the
  // heatmap's colours.
  SweepSettings& w = s.sweep;
  b.field("sweep.all_blocks", w.all_blocks);
  b.field("sweep.blocks", w.block_list);
  b.field("sweep.every_kernel", w.ladder);
  b.field("sweep.warmup", w.warmup, -1, 1000);
  b.field("sweep.min_repeats", w.min_repeats, 0, 100000);
  float ci = static_cast<float>(w.target_ci), budget = static_cast<float>(w.point_budget_ms);
  b.field("sweep.target_ci", ci, 0.0f, 0.5f);
  b.field("sweep.point_budget_ms", budget, 0.0f, 600000.0f);
  w.target_ci = ci;
  w.point_budget_ms = budget;
  b.field("sweep.flush_l2", w.flush_l2);
  b.field("sweep.counters", w.counters);
  b.field("sweep.colour_by", w.metric, kMetric);
  for (const std::string& id : labs) {
    LabMemory& m = s.remembered[id];
    b.field(id + ".kernel", m.selection.kernel);
    b.field(id + ".block", m.selection.block);
    b.field(id + ".config", m.selection.compiled, 0, 100000);
    ViewState v = m.view.value_or(ViewState{});
    b.field(id + ".view.compare", v.compare, kCompare);
    b.field(id + ".view.split", v.split, 0.0f, 1.0f);
    b.field(id + ".view.overlay", v.overlay, kOverlay);
    b.field(id + ".view.opacity", v.overlay_opacity, 0.0f, 1.0f);
    m.view = v;
    b.map(id + ".option.", m.options);
    b.map(id + ".set.", s.lab_settings[id]);
  }
}

LoadedSettings load_user_settings(const std::filesystem::path& file, const std::vector<std::string>& labs) {
  LoadedSettings out;
  std::error_code ec;
  out.found = !file.empty() && std::filesystem::exists(file, ec);
  if (!out.found) return out;
  const SettingsText text = read_settings_file(file);
  out.problems = text.problems;
  if (!text.problems.empty() && text.values.empty()) return out;  // not ours: defaults
  SettingsBinder b = SettingsBinder::reader(text);
  bind_user_settings(b, out.state, labs);
  for (const auto& p : b.problems()) out.problems.push_back(p);
  out.unbound = b.unbound();
  // The lab must be one of the catalog's.
  bool known = false;
  for (const auto& id : labs) known |= id == out.state.lab;
  if (!known) {
    if (!out.state.lab.empty()) out.problems.push_back("lab = '" + out.state.lab + "' is not a lab; kept the default");
    out.state.lab = AppState{}.lab;
  }
  return out;
}

std::string user_settings_text(const AppState& s, const std::vector<std::string>& labs,
                               const std::map<std::string, std::string>& keep) {
  AppState copy = s;  // the binder takes references; writing never changes them
  SettingsBinder b = SettingsBinder::writer();
  bind_user_settings(b, copy, labs);
  std::string text = b.text();
  for (const auto& [k, v] : keep) text += k + " = " + v + "\n";
  return text;
}

void merge_saved_under(AppState& cli, const AppState& saved) {
  if (!cli.lab_given) cli.lab = saved.lab;
  if (!cli.panel_given) cli.panel = saved.panel;
  cli.trace_schedule = saved.trace_schedule;
  // --blocks names the shapes a sweep tries and --flush-l2 turns the flush on; the other saved sweep
  // settings (counters, repeats, colours) stay.
  const SweepSettings given = cli.sweep;
  cli.sweep = saved.sweep;
  if (cli.sweep_given) {
    cli.sweep.all_blocks = given.all_blocks;
    if (!given.all_blocks) cli.sweep.block_list = given.block_list;
  }
  if (given.flush_l2) cli.sweep.flush_l2 = true;
  cli.layout = saved.layout;
  cli.remembered = saved.remembered;
  // The opened lab: what the flags named replaces the saved group.
  const bool selection_given = !cli.selection.kernel.empty() || cli.selection.block || cli.selection.compiled;
  LabMemory& opened = cli.remembered[cli.lab];
  if (selection_given) opened.selection = cli.selection;
  if (cli.view_given) opened.view = cli.view;
  // Settings and options: key by key, the flags' values over the saved ones.
  for (const auto& [lab, values] : saved.lab_settings)
    for (const auto& [key, value] : values) cli.lab_settings[lab].try_emplace(key, value);
  // Lab options (--matmul-size, ...) stay in cli.lab_options: a lab opening takes its own flags'
  // values over its remembered ones (shell/app.cpp, ensure_view).
}

std::filesystem::path settings_folder(const std::string& asked, bool windowed) {
  if (!asked.empty()) return asked;
  if (const char* env = std::getenv("BLOCKSCOPE_CONFIG_DIR"); env && env[0] == '/') return env;
  return windowed ? config_dir() : std::filesystem::path();
}

}  // namespace bs::app
