#include "shell/editor_bridge.hpp"

#include <algorithm>
#include <fstream>
#include <utility>

#include "editor/kernel_files.hpp"
#include "labs/custom/user_kernel_lab.hpp"

namespace bs::app {
namespace fs = std::filesystem;

EditorBridge::EditorBridge(LabHost& host, LaunchScheduler& launches, MessageLog& messages, bool windowed)
    : host_(host),
      launches_(launches),
      messages_(messages),
      editor_(std::make_unique<editor::KernelEditor>(windowed ? editor::default_recent_kernels_path() : fs::path())) {}

editor::LabContext EditorBridge::lab_context(const std::string& id) {
  editor::LabContext c;
  c.id = id;
  LabSlot* s = host_.slot(id);
  if (!s) return c;
  c.title = s->entry->title;
  if (!host_.ensure_view(*s).ok()) return c;
  c.lab = &s->view->lab();
  c.kernel = s->kernel;
  c.config = s->config;
  const LaunchRecord& shown = s->launch.shown;
  if (shown.ok() && shown.kernel == s->kernel && shown.config.block == s->config.block)
    c.shown_grid = shown.config.grid;
  return c;
}

void EditorBridge::open_at_start(const fs::path& file, double time_limit_s, const std::optional<Dim3>& block,
                                 const std::string& kernel) {
  editor_->set_time_limit_s(time_limit_s);
  if (file.empty()) return;
  if (Status s = editor_->open_kernel_file(file, host_.current().id(), messages_, block, kernel); s) show_editor_lab();
}

void EditorBridge::update() {
  take_cpu_findings();
  apply(editor_->update([this](const std::string& id) { return lab_context(id); }, messages_));
}

void EditorBridge::take_cpu_findings() {
  for (LabSlot& s : host_.slots()) {
    if (!s.view) continue;
    auto* user = lab::layer<custom::UserKernelLab>(s.view->lab());
    if (!user) continue;
    user->set_findings_in_background(true);  // this lab runs on the UI thread
    if (user->take_findings() > 0 && custom::is_user_kernel_id(s.kernel)) {
      s.launch.dirty = true;  // the next launch uses them (its record says what they found)
      s.launch.check_for.clear();
    }
  }
}

bool EditorBridge::cpu_findings_pending() const {
  for (const LabSlot& s : host_.slots()) {
    if (!s.view) continue;
    if (const auto* user = lab::layer<custom::UserKernelLab>(std::as_const(*s.view).lab());
        user && user->findings_pending())
      return true;
  }
  return false;
}

void EditorBridge::draw() {
  editor::EditorRequests requests;
  editor_->draw([this](const std::string& id) { return lab_context(id); }, host_.current().id(), messages_, requests);
  apply(requests);
}

void EditorBridge::draw_file_menu() {
  editor_->draw_file_menu([this](const std::string& id) { return lab_context(id); }, host_.current().id(), messages_);
}

void EditorBridge::edit_kernel() { editor_->edit(lab_context(host_.current().id()), messages_); }

void EditorBridge::open_kernel_file(const fs::path& path) {
  if (editor_->open_file(path, host_.current().id(), messages_)) show_editor_lab();
}

void EditorBridge::apply(const editor::EditorRequests& r) {
  if (r.show_lab) show_lab(*r.show_lab);
  if (r.select) {
    LabSlot* s = host_.slot(r.select->lab);
    if (s && host_.ensure_view(*s).ok()) {
      host_.open_lab(r.select->lab);
      host_.choose(*s, r.select->kernel, r.select->config);
      s->launch.paused_slow = false;
      s->launch.check_for.clear();
      // Its older source's timings measured something else.
      launches_.timings().forget_kernel(r.select->lab, r.select->kernel);
    }
  }
  if (r.relaunch) {
    host_.current().launch.dirty = true;
    host_.current().launch.check_for.clear();
  }
}

// One kept tab per file: a first line that says whose it is, then the source as it was.
//   // blockscope unsaved kernel | lab=gray | template=gray_1d | path= | title=untitled (gray_1d)
namespace {
constexpr std::string_view kUnsavedHeader = "// blockscope unsaved kernel";
}  // namespace

void EditorBridge::keep_unsaved(const fs::path& folder) {
  if (folder.empty()) return;
  const fs::path dir = folder / "unsaved";
  std::error_code ec;
  fs::remove_all(dir, ec);
  const auto tabs = editor_->unsaved();
  if (tabs.empty()) return;
  fs::create_directories(dir, ec);
  int n = 0;
  for (const auto& t : tabs) {
    std::ofstream out(dir / ("kernel" + std::to_string(++n) + ".cu"), std::ios::binary);
    out << kUnsavedHeader << " | lab=" << t.lab << " | template=" << t.template_id << " | path=" << t.path.string()
        << " | title=" << t.title << "\n"
        << t.text;
  }
}

void EditorBridge::restore_unsaved(const fs::path& folder) {
  if (folder.empty()) return;
  const fs::path dir = folder / "unsaved";
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".cu") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  int restored = 0;
  for (const fs::path& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::string header;
    std::getline(in, header);
    if (!header.starts_with(kUnsavedHeader)) continue;
    auto field = [&](std::string_view key) {
      const std::string k = " | " + std::string(key) + "=";
      const auto at = header.find(k);
      if (at == std::string::npos) return std::string();
      const auto end = header.find(" | ", at + k.size());
      return header.substr(at + k.size(), end == std::string::npos ? std::string::npos : end - at - k.size());
    };
    editor::KernelEditor::Unsaved u;
    u.lab = field("lab");
    u.template_id = field("template");
    u.path = field("path");
    u.title = field("title");
    u.text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (u.lab.empty()) continue;
    editor_->restore_unsaved(u);
    ++restored;
  }
  fs::remove_all(dir, ec);
  if (restored > 0)
    messages_.info("The kernel editor kept " + std::to_string(restored) + " unsaved tab" + (restored == 1 ? "" : "s") +
                   " from the last session (Ctrl+S saves a tab to a file)");
}

void EditorBridge::show_editor_lab() { show_lab(editor_->active_lab()); }

void EditorBridge::show_lab(const std::string& lab) {
  if (!lab.empty() && lab != host_.current().id())
    if (Status s = host_.open_lab(lab); !s) messages_.error(s);
}

}  // namespace bs::app
