// An in-app file browser for opening images (no native dialog dependency): lists folders and
// supported image files of one directory, navigates up and into folders, and returns the
// chosen file. Unreadable folders give a message in the window, never a crash.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace bs::ui {

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
    for (const Entry& e : entries_) f(e.label);
  }
  // Draws the window when open; returns the chosen file once.
  std::optional<std::filesystem::path> draw();

 private:
  void refresh();
  struct Entry {
    std::filesystem::path path;
    std::string label;
    bool is_dir = false;
    std::uintmax_t bytes = 0;
  };
  bool open_ = false;
  std::filesystem::path dir_;
  std::vector<Entry> entries_;
  std::string error_;
  char path_input_[1024] = {};
  bool show_all_files_ = false;
};

}  // namespace bs::ui
