// The kernel list and the configuration editor, for any lab: free-blockDim kernels get sliders,
// typed fields (applied on Enter or when the field loses focus) and presets; compiled kernels
// get their list of compiled configurations. Refusals are the lab's (LaunchRecord::status).
#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "ui/panels.hpp"
#include "core/units.hpp"
#include "ui/widgets.hpp"

namespace bs::ui {
namespace {

bool choose_button(const char* label, bool current, float width) {
  if (current) ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.30f, 0.50f, 0.30f, 1));
  const bool pressed = ImGui::Button(label, ImVec2(width, 0));
  if (current) ImGui::PopStyleColor();
  return pressed;
}

std::string preset_label(const Dim3& p) {
  char label[32];
  if (p.y == 1 && p.z == 1) std::snprintf(label, sizeof label, "%u", p.x);
  else if (p.z == 1) std::snprintf(label, sizeof label, "%ux%u", p.x, p.y);
  else std::snprintf(label, sizeof label, "%ux%ux%u", p.x, p.y, p.z);
  return label;
}

// Three typed fields staged in *st: each applies when it is left after an edit (Enter or focus
// moving away), never per keystroke.
bool typed_block(Dim3* block, PickerState* st, float em) {
  if (!st->staging) {
    st->staged[0] = static_cast<int>(block->x);
    st->staged[1] = static_cast<int>(block->y);
    st->staged[2] = static_cast<int>(block->z);
  }
  bool apply = false, active = false;
  const char* names[3] = {"##tx", "##ty", "##tz"};
  const float w = std::max(em * 3.0f, (ImGui::GetContentRegionAvail().x - em * 4.0f) / 3.0f);
  for (int i = 0; i < 3; ++i) {
    if (i) ImGui::SameLine(0, em * 0.3f);
    ImGui::SetNextItemWidth(w);
    ImGui::InputInt(names[i], &st->staged[i], 0, 0);
    active |= ImGui::IsItemActive();
    apply |= ImGui::IsItemDeactivatedAfterEdit();
  }
  ImGui::SameLine(0, em * 0.3f);
  ImGui::TextUnformatted("typed");
  item_tooltip(
      "Type any blockDim, even one the kernel cannot run, and press Enter (or click "
      "elsewhere): the lab says why it refuses it. Nothing launches while you type.");
  st->staging = active;
  if (!st->typed_note.empty()) ImGui::TextColored(kWarnColour, "%s", st->typed_note.c_str());
  if (!apply) return false;
  st->staging = false;
  // A negative count is not a shape to launch (it used to become 0 without a word): said, and
  // the shape stays as it was. Zero and shapes too large go to the lab, which says why.
  for (int i = 0; i < 3; ++i)
    if (st->staged[i] < 0) {
      st->typed_note = "blockDim." + std::string(1, "xyz"[i]) + " = " + std::to_string(st->staged[i]) +
                       ": a block has a whole number of threads in each dimension, at least 1. Not applied.";
      return false;
    }
  st->typed_note.clear();
  const Dim3 b{static_cast<unsigned>(st->staged[0]), static_cast<unsigned>(st->staged[1]),
               static_cast<unsigned>(st->staged[2])};
  if (b == *block) return false;
  *block = b;
  return true;
}

// The slider's text: its value, or the typed value when that is beyond the slider's range (the
// slider and the typed field show the same shape: 2048 typed is "2048", not a slider at 1024).
std::string slider_text(unsigned value, unsigned max) {
  return value > max ? std::to_string(value) + " (beyond the slider)" : std::to_string(value);
}

// A kernel's label cut to `room`: at a natural break first, with an ellipsis so a cut name reads
// as one.
std::string fit_label(std::string label, float room) {
  for (const char* cut : {" (", ", "})
    if (ImGui::CalcTextSize(label.c_str()).x > room && label.find(cut) != std::string::npos)
      label = label.substr(0, label.find(cut)) + "...";
  // Still too long for a narrow panel: cut on a character boundary with an ellipsis (the
  // tooltip has the whole label).
  if (ImGui::CalcTextSize(label.c_str()).x > room) {
    const std::string ellipsis = "...";
    if (label.ends_with(ellipsis)) label.resize(label.size() - ellipsis.size());
    while (label.size() > 1 && ImGui::CalcTextSize((label + ellipsis).c_str()).x > room) {
      label.pop_back();
      while (!label.empty() && (static_cast<unsigned char>(label.back()) & 0xC0) == 0x80) label.pop_back();
    }
    label += ellipsis;
  }
  return label;
}

// What a kernel starts from when it is picked: its default compiled configuration or blockDim.
KernelConfig starting_config(const lab::KernelInfo& k) {
  KernelConfig c;
  if (k.style == lab::ConfigStyle::Compiled && !k.configs.empty()) {
    c.compiled = std::clamp(k.default_config, 0, static_cast<int>(k.configs.size()) - 1);
    c.block = k.configs[static_cast<std::size_t>(c.compiled)].block;
  } else {
    c.block = k.default_block;
  }
  return c;
}

// One kernel of the list: its radio button, its best figure on the right edge (`right_edge`)
// and its tooltip. True when it was clicked.
bool kernel_row(const PickerInput& in, const lab::KernelInfo& k, bool is_current, float label_room, float right_edge) {
  const float em = ImGui::GetFontSize();
  std::string figure, load_note;
  if (in.figures)
    if (auto f = in.figures->find(k.id); f != in.figures->end())
      figure = f->second.text, load_note = f->second.load_note;
  if (!k.unavailable.empty()) figure = "not here", load_note.clear();  // the tooltip and the note below say why
  const char* load_mark = " load";  // after the figure, in the warning colour, as in the Runs tab
  const float mark_w = load_note.empty() ? 0.0f : ImGui::CalcTextSize(load_mark).x;
  const float figure_w = figure.empty() ? 0.0f : ImGui::CalcTextSize(figure.c_str()).x + 0.5f * em + mark_w;
  const std::string label = fit_label(k.label, label_room - figure_w);
  if (!k.unavailable.empty()) ImGui::PushStyleColor(ImGuiCol_Text, kDimColour);
  const bool picked = ImGui::RadioButton((label + "##" + k.id).c_str(), is_current);
  if (!k.unavailable.empty()) ImGui::PopStyleColor();
  const bool hovered_button = ImGui::IsItemHovered();
  bool hovered_figure = false;
  if (!figure.empty()) {
    ImGui::SameLine(right_edge - ImGui::CalcTextSize(figure.c_str()).x - mark_w);
    ImGui::TextColored(kDimColour, "%s", figure.c_str());
    hovered_figure = ImGui::IsItemHovered();
    if (!load_note.empty()) {
      ImGui::SameLine(0, 0);
      ImGui::TextColored(kWarnColour, "%s", load_mark);
      hovered_figure = hovered_figure || ImGui::IsItemHovered();
    }
  }
  if (hovered_button || hovered_figure)
    tooltip((k.label + "\n\n" + k.teaches + "\n\n" + k.file + (k.grid_rule.empty() ? "" : "\n" + k.grid_rule) +
             (k.unavailable.empty() ? "" : "\n\nNot on this backend: " + k.unavailable) +
             (figure.empty() ? ""
                             : "\n\nBest on this problem here (the fastest median of its "
                               "configurations, and its share of the ceiling): " +
                                   figure) +
             (load_note.empty() ? "" : "\n\nAgainst the fastest kernel's best: " + load_note + "."))
                .c_str());
  return picked;
}

// A compiled kernel's configurations, one combo. True when another was chosen.
bool compiled_configs(const lab::KernelInfo& current, KernelConfig* config) {
  ImGui::TextUnformatted("Compiled configurations");
  help_marker(
      "Tile sizes are template parameters: each entry is a kernel that exists as "
      "machine code, with the launch shape it implies.");
  bool changed = false;
  const int count = static_cast<int>(current.configs.size());
  const int index = std::clamp(config->compiled, 0, std::max(0, count - 1));
  ImGui::SetNextItemWidth(-1);
  if (ImGui::BeginCombo("##config", count ? current.configs[static_cast<std::size_t>(index)].label.c_str() : "")) {
    for (int i = 0; i < count; ++i) {
      const auto& c = current.configs[static_cast<std::size_t>(i)];
      if (ImGui::Selectable(c.label.c_str(), i == config->compiled) && i != config->compiled) {
        config->compiled = i;
        config->block = c.block;
        changed = true;
      }
    }
    ImGui::EndCombo();
  }
  return changed;
}

// A free-blockDim kernel's shape: sliders, typed fields and presets. True when it changed.
bool block_editor(const lab::KernelInfo& current, KernelConfig* config, PickerState* st) {
  const float em = ImGui::GetFontSize();
  bool changed = false;
  ImGui::TextUnformatted("blockDim");
  help_marker(
      "Threads per block in x, y and z. A block may have at most 1024 threads in all, "
      "x and y up to 1024 and z up to 64. Shapes CUDA (or this kernel) would refuse are "
      "refused before launch, with the reason.");
  if (current.block_rank == 1) ImGui::TextColored(kDimColour, "this kernel flattens x*y*z into one index");
  int b[3] = {static_cast<int>(std::min(config->block.x, 1024u)), static_cast<int>(std::min(config->block.y, 1024u)),
              static_cast<int>(std::min(config->block.z, 64u))};
  ImGui::PushItemWidth(-em * 1.5f);
  bool slid = false;
  // The values beside the sliders, not under their knobs (issue 36 item 15).
  slid |= slider_int_beside("x", &b[0], 1, 1024, slider_text(config->block.x, 1024), ImGuiSliderFlags_Logarithmic);
  if (current.block_rank >= 2 || config->block.y != 1)
    slid |= slider_int_beside("y", &b[1], 1, 1024, slider_text(config->block.y, 1024), ImGuiSliderFlags_Logarithmic);
  if (current.block_rank >= 3 || config->block.z != 1)
    slid |= slider_int_beside("z", &b[2], 1, 64, slider_text(config->block.z, 64), ImGuiSliderFlags_Logarithmic);
  ImGui::PopItemWidth();
  if (slid) {
    st->typed_note.clear();  // a shape chosen another way: the typed one's refusal is old news
    config->block = Dim3{static_cast<unsigned>(std::max(1, b[0])), static_cast<unsigned>(std::max(1, b[1])),
                         static_cast<unsigned>(std::max(1, b[2]))};
    st->staging = false;
    changed = true;
  }
  changed |= typed_block(&config->block, st, em);
  ImGui::TextColored(kDimColour, "presets");
  const float bw = em * 4.2f;
  const int per_row = std::max(1, static_cast<int>((ImGui::GetContentRegionAvail().x + em * 0.5f) / (bw + em * 0.5f)));
  int col = 0;
  for (const Dim3& p : current.presets) {
    if (col++ % per_row != 0) ImGui::SameLine();
    if (choose_button((preset_label(p) + "##preset").c_str(), p == config->block, bw) && p != config->block) {
      config->block = p;
      st->staging = false;
      st->typed_note.clear();
      changed = true;
    }
  }
  return changed;
}

}  // namespace

std::map<std::string, KernelFigure> kernel_figures(const app::TimingBook& book, const std::string& lab,
                                                   const std::string& problem, const lab::ProblemInfo& info) {
  const ThroughputUnit unit = info.throughput_unit;
  const lab::Ceiling* ceiling = nullptr;
  for (const lab::Ceiling& c : info.ceilings)
    if (!ceiling && c.value > 0 && c.unit == unit) ceiling = &c;
  struct Best {
    double throughput = 0;
    const Timing* timing = nullptr;
  };
  std::map<std::string, Best> best;
  const Best* fastest = nullptr;
  for (const app::TimingEntry& e : book.entries()) {
    if (e.key.lab != lab || e.key.problem != problem || e.last.check.failed()) continue;
    const double ms = e.history.kernel_summary().median;
    if (ms <= 0) continue;
    Best& b = best[e.key.kernel];
    if (const double t = e.last.counted(unit) / (ms * 1e6); t > b.throughput) b = {t, &e.last.timing};
  }
  for (const auto& [kernel, b] : best)
    if (!fastest || b.throughput > fastest->throughput) fastest = &b;
  std::map<std::string, KernelFigure> out;
  for (const auto& [kernel, b] : best) {
    const double t = b.throughput;
    KernelFigure& f = out[kernel];
    f.text = t >= 1000 ? sig(t / 1000, 3) + " " + unit_text_thousand(unit) : sig(t, 3) + " " + unit_text(unit);
    if (ceiling) f.text += "  " + sig(100 * t / ceiling->value, 3) + "%";
    if (&b != fastest) f.load_note = load_changed(*b.timing, *fastest->timing);
  }
  return out;
}

bool draw_kernel_picker(const PickerInput& in, std::string* kernel, KernelConfig* config, PickerState* st) {
  bool changed = false;
  const lab::KernelInfo* current = nullptr;
  for (const auto& k : *in.kernels)
    if (k.id == *kernel) current = &k;

  ImGui::TextUnformatted("Kernel");
  const float label_room = ImGui::GetContentRegionAvail().x - ImGui::GetFrameHeight();
  const float right_edge = ImGui::GetCursorPosX() + ImGui::GetContentRegionAvail().x;
  std::optional<KernelGroup> group;
  for (const auto& k : *in.kernels) {
    if (k.group != group && k.group == KernelGroup::Library) ImGui::Separator();
    group = k.group;
    if (kernel_row(in, k, current == &k, label_room, right_edge) && current != &k) {
      *kernel = k.id;
      *config = starting_config(k);
      st->staging = false;
      current = &k;
      changed = true;
    }
  }
  if (!current) return changed;
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextColored(kDimColour, "%s", current->teaches.c_str());
  if (!current->unavailable.empty())
    ImGui::TextColored(kWarnColour, "Not on this backend: %s", current->unavailable.c_str());
  ImGui::PopTextWrapPos();
  ImGui::Spacing();

  if (current->timed_only) {
    wrapped_text(kDimColour,
                 "A library kernel: timed and checked like the others; its "
                 "launch configuration is its own, so there is nothing to set.");
    return changed;
  }
  if (current->style == lab::ConfigStyle::Compiled) return compiled_configs(*current, config) || changed;
  return block_editor(*current, config, st) || changed;
}

}  // namespace bs::ui
