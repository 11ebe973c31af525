// Settings kept between launches (state/user_settings.hpp says which): read once at start under
// the command line's state (flags win), written when they changed (checked once a second, and at
// exit), and View > Reset to defaults' part of the state. A file that cannot be read or written is
// a message, never a stop.
#pragma once
#include <chrono>
#include <filesystem>
#include <map>
#include <string>

#include "shell/lab_host.hpp"
#include "state/app_state.hpp"
#include "ui/messages.hpp"

namespace bs::app {

class SettingsKeeper {
 public:
  // Settings are compared and written at most this often; and at exit.
  static constexpr double kCheckPeriodS = 1.0;

  SettingsKeeper(AppState& state, MessageLog& messages) : state_(state), messages_(messages) {}

  // Reads the settings file of this run (`config_dir`: --config-dir; window runs use the per-user
  // folder, headless ones none unless given) under the state the command line made.
  void load(const std::string& config_dir, bool windowed, const std::vector<std::string>& lab_ids);
  // Writes the settings if they changed: `force` now, else at most once a period.
  void save_if_changed(const LabHost& host, bool force);
  // Reset to defaults: the state's kept parts (panel, layout, each lab's memory) and the keys a
  // newer blockscope wrote go.
  void reset_state();

  // Where settings are kept this run (empty: nowhere).
  const std::filesystem::path& folder() const { return folder_; }
  const std::filesystem::path& file() const { return file_; }

 private:
  AppState& state_;
  MessageLog& messages_;
  std::filesystem::path folder_, file_;
  std::map<std::string, std::string> keep_;  // keys of a newer blockscope, kept
  std::string written_;                      // the file's text as last written or read
  std::chrono::steady_clock::time_point checked_{};
  bool failed_ = false;  // a write failed: said once
};

// The slots' live choices (selection, view, options) into the state the settings are written from.
void remember_slots(const LabHost& host, AppState& state);

}  // namespace bs::app
