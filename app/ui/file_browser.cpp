#include "ui/file_browser.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstring>

#include "image/image_loader.hpp"
#include "ui/widgets.hpp"

namespace bs::ui {
namespace fs = std::filesystem;

namespace {
bool has_supported_extension(const fs::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  for (auto e : supported_extensions())
    if (e == ext) return true;
  return false;
}
}  // namespace

void FileBrowser::open(fs::path start) {
  std::error_code ec;
  if (start.empty() || !fs::is_directory(start, ec)) start = fs::current_path(ec);
  dir_ = start;
  open_ = true;
  refresh();
}

std::vector<FolderEntry> list_folder(const fs::path& dir, const std::function<bool(const fs::path&)>& keep_file,
                                     std::string* error) {
  std::vector<FolderEntry> entries;
  std::error_code ec;
  fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  if (ec) {
    *error = "cannot list " + display_name(dir) + ": " + ec.message();
    return entries;
  }
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const auto& e = *it;
    std::error_code ec2;
    const bool dir_entry = e.is_directory(ec2);
    if (!dir_entry && !keep_file(e.path())) continue;
    FolderEntry entry{e.path(), display_name(e.path().filename()), dir_entry, 0};
    if (!dir_entry) entry.bytes = e.file_size(ec2);
    if (entry.label.empty() || entry.label[0] == '.') continue;  // hidden files
    entries.push_back(std::move(entry));
  }
  std::sort(entries.begin(), entries.end(), [](const FolderEntry& x, const FolderEntry& y) {
    if (x.is_dir != y.is_dir) return x.is_dir;
    return x.label < y.label;
  });
  return entries;
}

const FolderEntry* draw_folder_entries(const std::vector<FolderEntry>& entries, bool sizes) {
  const FolderEntry* activated = nullptr;
  ImGui::BeginChild("entries", ImVec2(0, 0), true);
  for (const FolderEntry& e : entries) {
    std::string label = (e.is_dir ? "[dir]  " : "       ") + e.label;
    if (sizes && !e.is_dir) {
      char size[32];
      std::snprintf(size, sizeof size, "   %.1f KiB", e.bytes / 1024.0);
      label += size;
    }
    if (ImGui::Selectable(label.c_str(), false, ImGuiSelectableFlags_AllowDoubleClick) &&
        (ImGui::IsMouseDoubleClicked(0) || !e.is_dir))
      activated = &e;
  }
  ImGui::EndChild();
  return activated;
}

void FileBrowser::refresh() {
  error_.clear();
  entries_ = list_folder(
      dir_, [this](const fs::path& p) { return show_all_files_ || has_supported_extension(p); }, &error_);
  if (!error_.empty()) return;
  const std::string s = dir_.string();
  std::strncpy(path_input_, s.c_str(), sizeof path_input_ - 1);
}

std::optional<fs::path> FileBrowser::draw() {
  if (!open_) return std::nullopt;
  std::optional<fs::path> chosen;
  const float em = ImGui::GetFontSize();
  ImGui::SetNextWindowSize(ImVec2(em * 40, em * 28), ImGuiCond_FirstUseEver);
  if (ImGui::Begin("Open image", &open_)) {
    if (ImGui::Button("Up")) {
      dir_ = dir_.parent_path();
      refresh();
    }
    ImGui::SameLine();
    ImGui::SetNextItemWidth(-em * 8);
    if (ImGui::InputText("##path", path_input_, sizeof path_input_, ImGuiInputTextFlags_EnterReturnsTrue)) {
      fs::path p = path_input_;
      std::error_code ec;
      if (fs::is_directory(p, ec)) {
        dir_ = p;
        refresh();
      } else {
        chosen = p;  // the loader reports anything wrong with it
      }
    }
    ImGui::SameLine();
    if (ImGui::Checkbox("all files", &show_all_files_)) refresh();
    ImGui::PushTextWrapPos(0.0f);  // the formats line and errors wrap: never cut at the edge
    ImGui::TextColored(kDimColour, "Formats: %s", std::string(supported_formats()).c_str());
    if (!error_.empty()) ImGui::TextColored(kErrorColour, "%s", error_.c_str());
    ImGui::PopTextWrapPos();
    if (const FolderEntry* e = draw_folder_entries(entries_, true)) {
      if (e->is_dir) {
        dir_ = e->path;
        refresh();
      } else {
        chosen = e->path;
      }
    }
  }
  ImGui::End();
  if (chosen) open_ = false;
  return chosen;
}

}  // namespace bs::ui
