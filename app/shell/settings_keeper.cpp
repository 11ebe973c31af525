#include "shell/settings_keeper.hpp"

#include "labs/custom/user_kernels.hpp"
#include "state/user_settings.hpp"

namespace bs::app {

void SettingsKeeper::load(const std::string& config_dir, bool windowed, const std::vector<std::string>& lab_ids) {
  folder_ = settings_folder(config_dir, windowed);
  file_ = settings_path(folder_);
  if (file_.empty()) return;
  LoadedSettings loaded = load_user_settings(file_, lab_ids);
  if (!loaded.problems.empty()) {
    std::string detail;
    for (const auto& p : loaded.problems) detail += (detail.empty() ? "" : "; ") + p;
    messages_.warn("Settings: some of " + file_.string() + " could not be used", detail);
  }
  // What the file says now (before the flags), so an unchanged session does not rewrite it.
  written_ = loaded.found && loaded.problems.empty() ? user_settings_text(loaded.state, lab_ids, loaded.unbound) : "";
  merge_saved_under(state_, loaded.state);
  keep_ = std::move(loaded.unbound);
}

void remember_slots(const LabHost& host, AppState& state) {
  for (const LabSlot& s : host.slots()) {
    if (!s.view) continue;
    LabMemory& m = state.remembered[s.id()];
    m.view = s.view->view_state();
    m.options = s.view->option_values();
    // A user kernel exists only in this session (its source is the editor's, kept apart): the
    // selection kept is the last built-in one, which the next start can restore.
    if (custom::is_user_kernel_id(s.kernel)) continue;
    m.selection = SelectionRequest{};
    m.selection.kernel = s.kernel;
    if (const lab::KernelInfo* k = s.view->lab().find_kernel(s.kernel)) {
      if (k->style == lab::ConfigStyle::Compiled) m.selection.compiled = s.config.compiled;
      else if (!k->timed_only) m.selection.block = s.config.block;
    }
  }
}

void SettingsKeeper::save_if_changed(const LabHost& host, bool force) {
  if (file_.empty()) return;
  const auto now = std::chrono::steady_clock::now();
  if (!force && std::chrono::duration<double>(now - checked_).count() < kCheckPeriodS) return;
  checked_ = now;
  remember_slots(host, state_);
  const std::string text = user_settings_text(state_, host.lab_ids(), keep_);
  if (text == written_) return;
  if (Status st = write_settings_file(file_, text); !st) {
    if (!failed_) messages_.error(st);  // said once; the session goes on
    failed_ = true;
    return;
  }
  failed_ = false;
  written_ = text;
}

void SettingsKeeper::reset_state() {
  const AppState d;
  state_.panel = d.panel;
  state_.trace_schedule = d.trace_schedule;
  state_.layout = d.layout;
  state_.remembered.clear();
  state_.selection = SelectionRequest{};
  state_.view_given = false;
  keep_.clear();
}

}  // namespace bs::app
