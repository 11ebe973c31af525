// An in-app file browser for opening images (no native dialog dependency): lists folders and
// supported image files of one directory, navigates up and into folders, and returns the
// chosen file. Unreadable folders give a message in the window, never a crash.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace bs::ui {

// One folder's entries for a file picker (this browser, the kernel editor's dialog): folders,
// then the files `keep_file` accepts, each group sorted by name; hidden entries (a leading '.')
// left out. A folder that cannot be listed gives no entries and the reason in *error.
struct FolderEntry {
  std::filesystem::path path;
  std::string label;  // the name as shown (display_name: valid UTF-8)
  bool is_dir = false;
  std::uintmax_t bytes = 0;  // files only
};
std::vector<FolderEntry> list_folder(const std::filesystem::path& dir,
                                     const std::function<bool(const std::filesystem::path&)>& keep_file,
                                     std::string* error);
// The entries as rows in a child window ("[dir]  name", files with their size when `sizes`):
// the one activated (a folder double-clicked, a file clicked), or null.
const FolderEntry* draw_folder_entries(const std::vector<FolderEntry>& entries, bool sizes);

class FileBrowser {
 public:
  void open(std::filesystem::path start);
  bool is_open() const { return open_; }
  void close() { open_ = false; }
  // Each name the browser shows (while open), so the app's fonts can cover them (ui/fonts.hpp).
  template <class F>
  void each_label(F&& f) const {
    if (!open_) return;
    f(path_input_);
    for (const FolderEntry& e : entries_) f(e.label);
  }
  // Draws the window when open; returns the chosen file once.
  std::optional<std::filesystem::path> draw();

 private:
  void refresh();
  bool open_ = false;
  std::filesystem::path dir_;
  std::vector<FolderEntry> entries_;
  std::string error_;
  char path_input_[1024] = {};
  bool show_all_files_ = false;
};

}  // namespace bs::ui
