// The shell's UI, part 2: the menu bar (File, Compute, View, Help).
#include <cmath>

#include "device/cuda_device.hpp"
#include "shell/shell_ui.hpp"
#include "ui/widgets.hpp"

namespace bs::app {

void ShellUi::draw_menu_bar() {
  if (!ImGui::BeginMenuBar()) return;
  if (ImGui::BeginMenu("File")) {
    if (ImGui::MenuItem("Open image...", "Ctrl+O")) open_file_browser();
    if (ImGui::BeginMenu("Open recent", !intake_.recent().paths.empty())) {
      for (const auto& p : intake_.recent().paths)
        if (ImGui::MenuItem(display_name(p).c_str())) intake_.enqueue({p});
      ImGui::EndMenu();
    }
    if (ImGui::MenuItem("Built-in sample"))
      if (Status st = intake_.install_sample(); !st) messages_.error(st);
    ImGui::Separator();
    experiments_.draw_export_menu(experiments_host(host_.current()));
    editor_.draw_file_menu();
    if (ImGui::MenuItem("Save a screenshot", "F12")) screenshot_requested_ = true;
    ImGui::Separator();
    if (ImGui::MenuItem("Quit", "Ctrl+Q")) window_.request_close();
    ImGui::EndMenu();
  }
  draw_compute_menu();
  if (ImGui::BeginMenu("View")) {
    ImGui::MenuItem("Messages", "Ctrl+M", &show_messages_);
    ImGui::MenuItem("Controls panel", "Ctrl+[", &state_.layout.left_open);
    ImGui::MenuItem("Side tabs", "Ctrl+]", &state_.layout.side_open);
    if (ImGui::BeginMenu("Text size")) {
      for (float t : kTextScales) {
        const std::string label = std::to_string(static_cast<int>(t * 100 + 0.5f)) + "%";
        if (ImGui::MenuItem(label.c_str(), t == 1.0f ? "Ctrl+0" : nullptr,
                            std::abs(state_.layout.text_scale - t) < 0.01f))
          set_text_scale(t);
      }
      ImGui::Separator();
      ImGui::TextDisabled("Ctrl+= larger, Ctrl+- smaller; remembered");
      ImGui::EndMenu();
    }
    if (ImGui::MenuItem("Fullscreen", "F11", window_.fullscreen())) window_.set_fullscreen(!window_.fullscreen());
    ImGui::MenuItem("Record the block schedule", nullptr, &state_.trace_schedule);
    ImGui::Separator();
    if (ImGui::MenuItem("Reset to defaults")) actions_.reset_to_defaults();
    ui::item_tooltip(("Every lab's kernel, configuration, view and options, the layout and the text size, as "
                      "on a first launch. Settings are kept in " +
                      (settings_.file().empty() ? std::string("no file this run") : settings_.file().string()) + ".")
                         .c_str());
    ImGui::MenuItem("ImGui demo (for developers)", nullptr, &state_.show_demo);
    ImGui::EndMenu();
  }
  draw_help_menu();
  // A hint where there is room for it.
  const char* hint = "   drop images on the window  |  wheel: zoom  |  drag: pan  |  click: pin  |  F1: shortcuts";
  const char* short_hint = "   F1: shortcuts";
  const float room = ImGui::GetContentRegionAvail().x;
  if (ImGui::CalcTextSize(hint).x <= room) ImGui::TextColored(ui::kDimColour, "%s", hint);
  else if (ImGui::CalcTextSize(short_hint).x <= room) ImGui::TextColored(ui::kDimColour, "%s", short_hint);
  ImGui::EndMenuBar();
}

void ShellUi::draw_compute_menu() {
  // Not while a profile runs, nor while a sweep runs (its worker measures on a copy of a lab of
  // this session).
  if (!ImGui::BeginMenu("Compute", !measured_.busy() && !source_.busy() && !experiments_.sweeping())) return;
  const lab::Backend& backend = host_.backend();
  const bool on_cpu = backend.kind == BackendKind::CpuSimulation;
  auto devices = list_cuda_devices();
  if (devices && !host_.device_faulted()) {
    for (const auto& d : devices.value()) {
      const std::string label = "GPU " + std::to_string(d.index) + ": " + d.name + " (sm_" +
                                std::to_string(d.compute_major) + std::to_string(d.compute_minor) + ")";
      const bool now = !on_cpu && backend.cuda_device == d.index;
      if (ImGui::MenuItem(label.c_str(), nullptr, now, d.has_code_for_it) && !now) {
        auto next = open_compute_session(BackendChoice::Cuda, d.index, true);
        if (!next) {
          messages_.error(next.status());
        } else {
          messages_.info("Switched to " + next->backend.label);
          host_.switch_compute(std::move(next.value()));
        }
      }
    }
  } else {
    ImGui::TextDisabled("no usable CUDA device");
    if (!devices) ui::item_tooltip(devices.status().describe().c_str());
  }
  if (ImGui::MenuItem("CPU simulation", nullptr, on_cpu) && !on_cpu) {
    auto next = open_compute_session(BackendChoice::Cpu, -1, false);
    if (next) {
      messages_.info("Switched to the CPU simulation");
      host_.switch_compute(std::move(next.value()));
    }
  }
  ImGui::EndMenu();
}

void ShellUi::draw_help_menu() {
  if (!ImGui::BeginMenu("Help")) return;
  if (ImGui::MenuItem("Keyboard shortcuts", "F1")) show_help_ = true;
  ImGui::Separator();
  // Every shortcut, runnable from here too.
  std::string group;
  for (const Shortcut* s : shortcuts_.by_group()) {
    if (s->id == "help.escape" || s->id == "help.keys") continue;
    if (s->group != group) {
      if (!group.empty()) ImGui::Separator();
      group = s->group;
      ImGui::TextDisabled("%s", group.c_str());
    }
    // The editor's keys are listed, not run from here (they act on the editor's tab).
    if (ImGui::MenuItem(s->what.c_str(), s->keys.c_str(), false, static_cast<bool>(s->action)) && s->action)
      s->action();
  }
  ImGui::Separator();
  ImGui::TextDisabled("blockscope %s", BLOCKSCOPE_VERSION);
  ImGui::TextDisabled("settings: %s",
                      settings_.file().empty() ? "not kept this run" : settings_.file().string().c_str());
  ImGui::TextDisabled("fonts: %s", fonts_.description().c_str());
  ImGui::EndMenu();
}

}  // namespace bs::app
