#include "editor/kernel_file_dialog.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstring>

#include "editor/kernel_files.hpp"
#include "ui/widgets.hpp"

namespace bs::editor {
namespace fs = std::filesystem;

void KernelFileDialog::open(Mode mode, fs::path folder, std::string suggested) {
  std::error_code ec;
  if (folder.empty() || !fs::is_directory(folder, ec)) folder = fs::current_path(ec);
  mode_ = mode;
  dir_ = folder;
  open_ = true;
  std::strncpy(name_input_, suggested.c_str(), sizeof name_input_ - 1);
  name_input_[sizeof name_input_ - 1] = 0;
  refresh();
}

void KernelFileDialog::refresh() {
  error_.clear();
  entries_ = ui::list_folder(dir_, is_kernel_file, &error_);
  const std::string s = dir_.string();
  std::strncpy(folder_input_, s.c_str(), sizeof folder_input_ - 1);
  folder_input_[sizeof folder_input_ - 1] = 0;
}

std::optional<fs::path> KernelFileDialog::draw() {
  if (!open_) return std::nullopt;
  std::optional<fs::path> chosen;
  const float em = ImGui::GetFontSize();
  ImGui::SetNextWindowSize(ImVec2(em * 40, em * 26), ImGuiCond_FirstUseEver);
  const char* title =
      mode_ == Mode::Open ? "Open kernel file###kernel_file_dialog" : "Save kernel as###kernel_file_dialog";
  if (ImGui::Begin(title, &open_)) {
    if (ImGui::Button("Up")) {
      dir_ = dir_.parent_path();
      refresh();
    }
    ImGui::SameLine();
    ImGui::SetNextItemWidth(-1);
    if (ImGui::InputText("##folder", folder_input_, sizeof folder_input_, ImGuiInputTextFlags_EnterReturnsTrue)) {
      const fs::path p = folder_input_;
      std::error_code ec;
      if (fs::is_directory(p, ec)) {
        dir_ = p;
        refresh();
      } else if (mode_ == Mode::Open) {
        chosen = p;  // opening reports anything wrong with it
      }
    }
    if (mode_ == Mode::SaveAs) {
      ImGui::SetNextItemWidth(-em * 6);
      const bool enter =
          ImGui::InputText("##name", name_input_, sizeof name_input_, ImGuiInputTextFlags_EnterReturnsTrue);
      ImGui::SameLine();
      if ((ImGui::Button("Save") || enter) && name_input_[0]) {
        fs::path p = dir_ / name_input_;
        if (p.extension().empty()) p += ".cu";
        chosen = p;
      }
    }
    if (!error_.empty()) ImGui::TextColored(ui::kErrorColour, "%s", error_.c_str());
    if (const ui::FolderEntry* e = ui::draw_folder_entries(entries_, false)) {
      if (e->is_dir) {
        dir_ = e->path;
        refresh();
      } else if (mode_ == Mode::Open) {
        chosen = e->path;
      } else {
        std::strncpy(name_input_, e->label.c_str(), sizeof name_input_ - 1);
      }
    }
  }
  ImGui::End();
  if (chosen) open_ = false;
  return chosen;
}

}  // namespace bs::editor
