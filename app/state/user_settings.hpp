// The settings blockscope keeps between launches: which fields of AppState persist (listed once,
// in bind_user_settings), where the file lives, and how saved settings meet the command line.
//
// Where: settings.txt in the config folder: --config-dir DIR, else $BLOCKSCOPE_CONFIG_DIR, else
// the XDG folder (state/recent_files.hpp, config_dir()). Headless runs and tests read and write
// none unless given --config-dir or BLOCKSCOPE_CONFIG_DIR, so they start from the defaults plus
// their flags and never touch the user's file.
//
// Precedence: defaults, then the file, then the flags. A flag decides its whole group: a
// --kernel, --block or --config decides the opened lab's selection; any view flag its view;
// --set KEY its setting; a lab option flag that option.
#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "state/app_state.hpp"
#include "state/settings_file.hpp"

namespace bs::app {

// THE list of persisted fields. Persisting a new field is one line here (in the .cpp):
//     b.field("sweep.repeats", s.sweep.repeats, 1, 10000);
// `labs`: the catalog's lab ids (per-lab keys are "<id>.kernel", ...).
void bind_user_settings(SettingsBinder& b, AppState& s, const std::vector<std::string>& labs);

struct LoadedSettings {
  AppState state;                              // defaults where the file said nothing
  std::vector<std::string> problems;           // for one message to the user
  std::map<std::string, std::string> unbound;  // keys this version does not know: kept on save
  bool found = false;                          // the file existed
};
LoadedSettings load_user_settings(const std::filesystem::path& file, const std::vector<std::string>& labs);

// The text of the settings file for `s` (the persisted fields, then `keep`).
std::string user_settings_text(const AppState& s, const std::vector<std::string>& labs,
                               const std::map<std::string, std::string>& keep);

// Fills in `cli` (the command line's state) what its flags did not name, from `saved`.
void merge_saved_under(AppState& cli, const AppState& saved);

// The folder settings live in for this run (empty: none). `asked`: --config-dir (may be empty);
// `windowed`: the window uses the user's folder by default, headless runs only when asked.
std::filesystem::path settings_folder(const std::string& asked, bool windowed);
inline std::filesystem::path settings_path(const std::filesystem::path& folder) {
  return folder.empty() ? folder : folder / "settings.txt";
}

}  // namespace bs::app
