// The shell's side of the kernel editor (app/editor): which lab the editor compiles a kernel into
// (opened for it if it was not), what it asks of the shell once a kernel compiled and ran (show
// it, forget the timings of its older source), and the .cu files dropped or named on the command
// line. The editor itself draws its pane; this bridge gives it the labs.
#pragma once
#include <filesystem>
#include <memory>
#include <string>

#include "editor/kernel_editor.hpp"
#include "shell/lab_host.hpp"
#include "shell/launch_scheduler.hpp"

namespace bs::app {

class EditorBridge {
 public:
  // `windowed`: recent kernel files persist beside recent images; headless runs keep none.
  EditorBridge(LabHost& host, LaunchScheduler& launches, MessageLog& messages, bool windowed);

  editor::KernelEditor& editor() { return *editor_; }
  const editor::KernelEditor& editor() const { return *editor_; }
  // What the editor needs of a lab: the lab (opened if it was not) and its selection.
  editor::LabContext lab_context(const std::string& id);

  // --kernel-file: opened in the editor on the lab its kernel belongs to, compiled and run off
  // the UI thread; the lab it belongs to is opened.
  // A notebook or .py file: `kernel` (--kernel) picks one of its kernels, else all open.
  void open_at_start(const std::filesystem::path& file, double time_limit_s, const std::optional<Dim3>& block,
                     const std::string& kernel = {});
  // Every frame: the editor's finished compiles and launches.
  void update();
  // The editor's pane, and its items of the File menu.
  void draw();
  void draw_file_menu();
  // "Edit kernel": the editor on the open lab's selected kernel.
  void edit_kernel();
  // The editor's window closed (its kernel stays compiled and installed): --source with
  // --kernel-file asks for the Source tab, which the window would cover.
  void close_window() { editor_->close(); }
  // A .cu dropped or opened: the editor opens it on its lab, which the window then shows.
  void open_kernel_file(const std::filesystem::path& path);
  // A compile or its first launch is in flight, or a lab is still finding a shown GPU launch's
  // owners and stray accesses on the CPU simulator (the run modes wait for both).
  bool busy() const { return editor_->busy() || cpu_findings_pending(); }
  // Quitting keeps the editor's unsaved tabs in `folder`/unsaved (the settings folder); the next
  // start gives them back (and says so) and removes the kept copies.
  void keep_unsaved(const std::filesystem::path& folder);
  void restore_unsaved(const std::filesystem::path& folder);

 private:
  void apply(const editor::EditorRequests& r);
  // The CUDA backend's CPU findings (labs/custom/cpu_findings.hpp): every lab's user kernels find
  // them on a worker, so an edit's GPU result shows without waiting for g++ and a replay; when
  // they arrive, the lab's user kernel relaunches and its record gets the mapping, or fails with
  // the replay's out-of-bounds report.
  void take_cpu_findings();
  bool cpu_findings_pending() const;
  void show_editor_lab();                 // open the lab of the editor's kernel where the window shows another
  void show_lab(const std::string& lab);  // open `lab` unless it is the one shown

  LabHost& host_;
  LaunchScheduler& launches_;
  MessageLog& messages_;
  std::unique_ptr<editor::KernelEditor> editor_;
};

}  // namespace bs::app
