// The editor's Open and Save-as dialogs: one folder's .cu/.cuh files and subfolders, a path
// field (Enter: go there, or choose that file), Up. Unreadable folders are a line in the dialog,
// never a crash. No native dialog dependency, as the image browser (ui/file_browser.hpp).
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ui/file_browser.hpp"

namespace bs::editor {

class KernelFileDialog {
 public:
  enum class Mode { Open, SaveAs };
  // `suggested`: SaveAs's initial file name.
  void open(Mode mode, std::filesystem::path folder, std::string suggested = {});
  bool is_open() const { return open_; }
  Mode mode() const { return mode_; }
  // Draws the dialog when open; returns the chosen path once.
  std::optional<std::filesystem::path> draw();

 private:
  void refresh();
  bool open_ = false;
  Mode mode_ = Mode::Open;
  std::filesystem::path dir_;
  std::vector<ui::FolderEntry> entries_;
  std::string error_;
  char folder_input_[1024] = {};
  char name_input_[256] = {};
};

}  // namespace bs::editor
