#include "editor/kernel_editor.hpp"

#include <GLFW/glfw3.h>  // key codes: ImGui 1.86 indexes io.KeysDown by the backend's codes (F5, S)
#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "editor/kernel_files.hpp"
#include "labs/custom/source_import.hpp"
#include "labs/custom/user_kernel_lab.hpp"
#include "source/listing_parse.hpp"
#include "ui/widgets.hpp"

namespace bs::editor {
namespace fs = std::filesystem;
using custom::Diagnostic;

namespace {

custom::UserKernelLab* user_lab(const LabContext& ctx) {
  return ctx.lab ? lab::layer<custom::UserKernelLab>(*ctx.lab) : nullptr;
}

CodeMark::Kind mark_kind(Diagnostic::Severity s) {
  switch (s) {
    case Diagnostic::Severity::Error: return CodeMark::Kind::Error;
    case Diagnostic::Severity::Warning: return CodeMark::Kind::Warning;
    case Diagnostic::Severity::Note: return CodeMark::Kind::Note;
  }
  return CodeMark::Kind::Note;
}

std::string fixed(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// What the compile produced, for the line under the editor: the compiler, the times, and for
// the GPU build what the register allocator and the shared memory say.
std::string describe_build(const custom::TrialResult& r) {
  if (!r.compile.kernel) return "compile took " + fixed(r.compile_ms, 0) + " ms";
  const custom::CompiledInfo& i = r.compile.kernel->info();
  std::string s = i.compiler + "\ncompile " + fixed(i.compile_ms, 0) + " ms" + (i.cache_hit ? " (cached build)" : "") +
                  ", load " + fixed(i.load_ms, 1) + " ms";
  if (r.run) s += ", first launch and check " + fixed(r.run->wall_ms, 0) + " ms";
  // "Verified" only when a verdict came back (correct or wrong): a refused launch, an
  // out-of-bounds access or a stopped loop verified nothing.
  const bool verdict = r.run && r.run->record.ok() && (r.run->record.check.passed() || r.run->record.check.failed());
  if (verdict) s += "; from the source to the verified result " + fixed(r.total_ms, 0) + " ms";
  else if (r.run)
    s += "; nothing was verified: " +
         std::string(r.run->record.ok() ? "the result was not checked" : "the launch did not finish");
  if (i.target == custom::Target::Gpu) {
    const KernelAttributes& a = i.attributes;
    if (i.attributes_measured)
      s += "\n" + std::to_string(a.registers_per_thread) + " registers per thread, " +
           std::to_string(a.static_shared_bytes) + " B static shared memory, " +
           std::to_string(a.local_bytes_per_thread) + " B local memory per thread (spills and stack" +
           (a.local_bytes_per_thread > 0 ? ": check for spills" : ": none") + ")" + "; traced entry " +
           std::to_string(i.traced_attributes.registers_per_thread) + " registers";
  } else {
    s += i.uses_shared ? "\n__shared__ per block: " + std::to_string(i.attributes.static_shared_bytes) +
                             " B, as CUDA allocates it (the simulator keeps each block's copy in " +
                             std::to_string(i.cpu_shared_bytes) +
                             " B of thread-local storage); registers and spills: compile on the GPU"
                       : std::string("\nno __shared__ memory; registers and spills: compile on the GPU");
  }
  return s;
}

constexpr int kWaitForDataFrames = 30;

}  // namespace

std::string KernelEditor::lab_title(const std::string& lab) const {
  const custom::UserLab* l = user_labs_ ? user_labs_->find(lab) : nullptr;
  return l ? l->title : lab;
}

KernelEditor::KernelEditor(fs::path recent_path) : recent_path_(std::move(recent_path)) {
  if (!recent_path_.empty()) recent_ = load_recent_files(recent_path_);
}

KernelEditor::~KernelEditor() {
  if (!recent_path_.empty()) save_recent_files(recent_, recent_path_);
}

void KernelEditor::set_time_limit_s(double s) { time_limit_s_ = std::clamp(s, 0.05, 600.0); }

bool KernelEditor::busy() const {
  if (worker_.busy() || listings_.busy()) return true;
  return std::any_of(tabs_.begin(), tabs_.end(), [](const Tab& t) { return t.compile_requested; });
}

// ---------------------------------------------------------------------------------------------
// 1. tabs
// ---------------------------------------------------------------------------------------------

KernelEditor::Tab& KernelEditor::new_tab(std::string lab, std::string title) {
  Tab t;
  t.uid = next_uid_++;
  t.lab = std::move(lab);
  t.title = std::move(title);
  tabs_.push_back(std::move(t));
  active_uid_ = select_uid_ = tabs_.back().uid;
  open_ = true;
  return tabs_.back();
}

std::vector<KernelEditor::Unsaved> KernelEditor::unsaved() const {
  std::vector<Unsaved> out;
  for (const Tab& t : tabs_)
    if (t.dirty()) out.push_back({t.lab, t.title, t.template_id, t.code.text, t.path});
  return out;
}

void KernelEditor::restore_unsaved(const Unsaved& u) {
  Tab& t = new_tab(u.lab, u.title);
  replace_text(t.code, u.text);
  t.template_id = u.template_id;
  t.path = u.path;
  t.saved_text.clear();  // still unsaved: Ctrl+S writes it
  t.status = "kept from the last session, not saved to a file";
}

KernelEditor::Tab* KernelEditor::tab(int uid) {
  for (Tab& t : tabs_)
    if (t.uid == uid) return &t;
  return nullptr;
}

KernelEditor::Tab* KernelEditor::active() { return tab(active_uid_); }

void KernelEditor::open_template(const std::string& lab, const lab::UserTemplate& tp) {
  Tab& t = new_tab(lab, "untitled (" + tp.id + ")");
  replace_text(t.code, tp.source);
  t.saved_text = t.code.text;
  t.template_id = tp.id;
  if (tp.fixed_blocks_per_sm > 0) {
    t.grid_mode = 1;
    t.per_sm = static_cast<int>(tp.fixed_blocks_per_sm);
  }
  t.code.take_focus = true;
}

void KernelEditor::edit(const LabContext& ctx, app::MessageLog& log) {
  open_ = true;
  custom::UserKernelLab* user = user_lab(ctx);
  if (!user) {
    log.warn("The " + ctx.title + " lab takes no kernels of your own");
    return;
  }
  if (!user_labs_) user_labs_ = user->book().shared_labs();
  if (custom::is_user_kernel_id(ctx.kernel)) {
    for (Tab& t : tabs_)
      if (t.lab == ctx.id && t.installed_id == ctx.kernel) {
        active_uid_ = select_uid_ = t.uid;
        return;
      }
    const auto k = user->book().find(ctx.kernel);
    if (!k) return;
    Tab& t = new_tab(ctx.id, k->origin.empty() ? k->name : fs::path(k->origin).filename().string());
    replace_text(t.code, k->source);
    t.saved_text = k->source;
    t.path = k->origin;
    t.installed_id = k->id;
    if (k->fixed_blocks_per_sm > 0) {
      t.grid_mode = 1;
      t.per_sm = static_cast<int>(k->fixed_blocks_per_sm);
    } else if (k->grid.kind == custom::GridRule::Kind::Fixed) {
      t.grid_mode = 2;
      t.fixed_grid[0] = static_cast<int>(k->grid.fixed.x);
      t.fixed_grid[1] = static_cast<int>(k->grid.fixed.y);
    }
    t.state = Tab::State::Ok;
    t.status = "the kernel the lab runs now";
    return;
  }
  const std::string tid = user->template_for(ctx.kernel);
  // The tab of that template (not saved to a file) is shown again, edited or not: Ctrl+E
  // pressed twice is one tab, and its edits are kept (a fresh template: close the tab first).
  for (Tab& t : tabs_)
    if (t.lab == ctx.id && t.template_id == tid && t.path.empty()) {
      active_uid_ = select_uid_ = t.uid;
      return;
    }
  if (const lab::UserTemplate* tp = user->spec().find_template(tid)) open_template(ctx.id, *tp);
}

Status KernelEditor::open_file(const fs::path& path, const std::string& fallback_lab, app::MessageLog& log) {
  if (custom::is_python_source_file(path)) return open_imported(path, fallback_lab, log, {}, nullptr);
  auto text = read_kernel_file(path);
  if (!text) {
    Status s = text.status();
    s.message = "Cannot open the kernel: " + s.message;
    log.error(s);
    return s;
  }
  // The lab whose forms its kernel takes; until the labs are known (the first frame), the
  // fallback, and update() settles it before compiling.
  std::string lab = fallback_lab;
  const custom::UserLab* belongs = user_labs_ ? user_labs_->lab_of_source(*text, fallback_lab) : nullptr;
  if (belongs) lab = belongs->id;
  std::error_code ec;
  const fs::path normal = fs::absolute(path, ec).lexically_normal();
  Tab* t = nullptr;
  for (Tab& existing : tabs_)
    if (!existing.path.empty() && fs::absolute(existing.path, ec).lexically_normal() == normal) t = &existing;
  if (t && t->dirty() && t->code.text != *text) {
    log.warn(path.filename().string() +
             " is open with unsaved changes: kept them (save or close the tab to reload it)");
  } else {
    if (!t) t = &new_tab(lab, path.filename().string());
    t->lab = lab;
    t->path = path;
    replace_text(t->code, *text);
    t->saved_text = *text;
  }
  active_uid_ = select_uid_ = t->uid;
  open_ = true;
  t->compile_requested = true;
  t->lab_from_source = !user_labs_;
  remember(path);
  if (user_labs_) log.info("Opened " + path.filename().string() + " (" + lab_title(t->lab) + " lab): compiling");
  return Status::success();
}

Status KernelEditor::open_imported(const fs::path& path, const std::string& fallback_lab, app::MessageLog& log,
                                   const std::string& only, std::vector<int>* opened) {
  const std::string file = path.filename().string();
  auto found = custom::import_kernel_file(path);
  if (!found) {
    Status s = found.status();
    s.message = "Cannot open the kernels of " + file + ": " + s.message;
    log.error(s);
    return s;
  }
  const std::string wanted = custom::is_user_kernel_id(only) ? only.substr(custom::kUserKernelPrefix.size()) : only;
  std::string names;
  for (const custom::ImportedKernel& k : found->kernels) names += (names.empty() ? "" : ", ") + k.name;
  if (!wanted.empty() && std::none_of(found->kernels.begin(), found->kernels.end(),
                                      [&](const custom::ImportedKernel& k) { return k.name == wanted; })) {
    Status s = Status::failure(file + " has no kernel named " + wanted, "it has: " + names, "--kernel");
    log.error(s);
    return s;
  }
  for (const std::string& n : found->notes) log.warn(file + ", " + n);
  for (const custom::ImportedKernel& k : found->kernels) {
    if (!wanted.empty() && k.name != wanted) continue;
    std::string lab = fallback_lab;
    if (user_labs_)
      if (const custom::UserLab* belongs = user_labs_->lab_of_source(k.source, fallback_lab)) lab = belongs->id;
    const std::string title = k.name + " (" + file + ")";
    // Opened again: the same tab, unless its edits would be lost.
    Tab* t = nullptr;
    for (Tab& existing : tabs_)
      if (existing.title == title && existing.path.empty()) t = &existing;
    if (t && t->dirty() && t->code.text != k.source) {
      log.warn(title + " is open with unsaved changes: kept them (close the tab to reload it)");
      continue;
    }
    if (!t) t = &new_tab(lab, title);
    t->lab = lab;
    replace_text(t->code, k.source);
    t->saved_text = k.source;  // as the file has it: not an unsaved edit (Ctrl+S saves it as a .cu)
    t->imported = true;
    t->import_notes = k.notes;
    t->lab_from_source = !user_labs_;
    active_uid_ = select_uid_ = t->uid;
    if (opened) opened->push_back(t->uid);
    if (!k.error.empty()) {
      t->state = Tab::State::Failed;
      t->status = k.error;
      log.error(Status::failure(k.error, "edit the kernel in its tab, then Compile", "import"));
      continue;
    }
    t->compile_requested = true;
    if (user_labs_)
      log.info("Opened " + k.name + " from " + file + ", " + k.origin + " (" + lab_title(t->lab) +
               " lab): compiling; " + std::to_string(k.notes.size()) + " note" + (k.notes.size() == 1 ? "" : "s") +
               " on what was left out");
  }
  open_ = true;
  remember(path);
  return Status::success();
}

Status KernelEditor::open_kernel_file(const fs::path& path, const std::string& fallback_lab, app::MessageLog& log,
                                      std::optional<Dim3> block, const std::string& kernel) {
  std::vector<int> opened;
  const bool imported = custom::is_python_source_file(path);
  Status s = imported ? open_imported(path, fallback_lab, log, kernel, &opened) : open_file(path, fallback_lab, log);
  kernel_file_outcome_ = {};
  kernel_file_pending_ = 0;
  if (!s) {
    kernel_file_outcome_ = {true, false, s.message, {}};
    return s;
  }
  if (!imported) opened.push_back(active_uid_);
  kernel_file_pending_ = static_cast<int>(opened.size());
  for (int uid : opened)
    if (Tab* t = tab(uid)) {
      t->block = block;
      if (t->compile_requested) t->from_kernel_file = true;
      else settle_kernel_file(false, t->status, {});  // refused before compiling (torch in device code)
    }
  return s;
}

void KernelEditor::settle_kernel_file(bool ok, const std::string& message, const std::string& build) {
  if (kernel_file_pending_ <= 0) return;
  KernelFileOutcome& o = kernel_file_outcome_;
  const bool first = o.message.empty();
  // Several kernels: ok when all are; the first failure's message leads, the others follow.
  o.ok = first ? ok : o.ok && ok;
  // One line per kernel (the run modes print the message indented under the file's name).
  if (first) o.message = message;
  else if (!ok) o.message = message + "\n  " + o.message;
  else o.message += "\n  " + message;
  if (!build.empty()) o.build += (o.build.empty() ? "" : "\n") + build;
  o.done = --kernel_file_pending_ == 0;
}

std::string KernelEditor::active_lab() const {
  for (const Tab& t : tabs_)
    if (t.uid == active_uid_) return t.lab;
  return {};
}

void KernelEditor::remember(const fs::path& path) {
  remember_file(recent_, path);
  if (!recent_path_.empty()) save_recent_files(recent_, recent_path_);
}

void KernelEditor::save(app::MessageLog& log) {
  Tab* t = active();
  if (!t) return;
  if (t->path.empty()) {
    save_as_uid_ = t->uid;
    const std::string name =
        (t->installed_id.empty() ? std::string("kernel") : t->installed_id.substr(custom::kUserKernelPrefix.size())) +
        ".cu";
    dialog_.open(KernelFileDialog::Mode::SaveAs,
                 recent_.paths.empty() ? fs::path() : recent_.paths.front().parent_path(), name);
    return;
  }
  if (Status s = write_kernel_file(t->path, t->code.text); !s) {
    log.error(s);
    return;
  }
  t->saved_text = t->code.text;
  t->title = t->path.filename().string();
  remember(t->path);
  log.info("Saved " + t->path.string());
}

// ---------------------------------------------------------------------------------------------
// 2. compiling
// ---------------------------------------------------------------------------------------------

void KernelEditor::compile() {
  if (Tab* t = active()) t->compile_requested = true;
}

custom::GridRule KernelEditor::grid_rule(const Tab& t) const {
  if (t.grid_mode == 2)
    return custom::GridRule::fixed_grid(
        {static_cast<unsigned>(std::max(1, t.fixed_grid[0])), static_cast<unsigned>(std::max(1, t.fixed_grid[1])), 1});
  return custom::GridRule::form_rule();
}

// A file opened before the editor knew the labs: its lab is the one whose forms its kernel takes.
void KernelEditor::resolve_lab(Tab& t, const LabLookup& labs, app::MessageLog& log) {
  t.lab_from_source = false;
  if (!user_labs_)
    if (custom::UserKernelLab* user = user_lab(labs(t.lab))) user_labs_ = user->book().shared_labs();
  if (user_labs_)
    if (const custom::UserLab* belongs = user_labs_->lab_of_source(t.code.text, t.lab)) t.lab = belongs->id;
  log.info("Opened " + t.title + " (" + lab_title(t.lab) + " lab): compiling");
}

void KernelEditor::start_compile(Tab& t, const LabContext& ctx, app::MessageLog& log) {
  custom::UserKernelLab* user = user_lab(ctx);
  if (!user) {
    t.state = Tab::State::Failed;
    t.status = "the " + lab_title(t.lab) + " lab is not open, or takes no kernels of your own";
    log.warn(t.status);
    if (t.from_kernel_file) settle_kernel_file(false, t.status, {});
    t.from_kernel_file = false;
    return;
  }
  if (!user_labs_) user_labs_ = user->book().shared_labs();
  user->book().set_time_limit_s(time_limit_s_);
  CompileJob job;
  job.tab = t.uid;
  job.book = user->shared_book();
  custom::TrialRequest& r = job.request;
  r.source = t.code.text;
  r.forms = user->spec().forms();
  r.origin = t.path.string();
  r.target = user->target();
  r.time_limit_s = time_limit_s_;
  r.grid = grid_rule(t);
  r.fixed_blocks_per_sm = t.grid_mode == 1 ? static_cast<unsigned>(std::max(1, t.per_sm)) : 0;
  if (const auto block = launch_block(t, ctx)) r.block = *block;
  // The lab's data, packed on this thread for the form the source's kernel takes (the worker
  // must not touch the lab). No form: the compile says why.
  if (const lab::UserForm* form = user->form_of(t.code.text)) {
    const lab::ProblemInfo info = ctx.lab->problem();
    if (!info.ready && t.waited_for_data < kWaitForDataFrames) {
      // The lab builds its data in the frame (the matmul view makes its matrices on first use):
      // ask again next frame before settling for a compile without a run.
      ++t.waited_for_data;
      t.compile_requested = true;
      return;
    }
    if (auto p = user->user_problem(*form)) r.problem = *p;
    else log.warn("Compiling only: " + p.status().message, p.status().hint);
  }
  t.waited_for_data = 0;
  t.block.reset();  // the command line's block is for the first compile only
  t.state = Tab::State::Compiling;
  t.status = std::string("compiling for the ") + custom::to_string(r.target) + "...";
  worker_.submit(std::move(job));
}

void KernelEditor::apply(const CompileDone& done, const LabLookup& labs, app::MessageLog& log,
                         EditorRequests& requests) {
  Tab* t = tab(done.tab);
  if (!t) return;  // closed meanwhile
  const custom::TrialResult& r = done.result;
  const std::string file = !t->path.empty() ? t->path.filename().string()
                           : t->imported    ? t->title  // from a notebook: "NAME (FILE)"
                                            : std::string("kernel.cu");
  // The lower pane's PTX and SASS: listed for every source that compiles (its launch may still
  // fail: the code is what it is); a compile error keeps the last listing, marked stale.
  t->last_compile_failed = !r.compile.ok();
  if (r.compile.ok()) {
    source::ListingRequest lr;
    lr.kind = source::ListingRequest::Kind::User;
    lr.kernel = r.kernel.id;
    lr.user_source = r.kernel.source;
    lr.user_name = r.kernel.name;
    lr.forms = {r.kernel.form};
    const LabContext ctx = labs(t->lab);
    if (ctx.lab && ctx.lab->backend().kind == BackendKind::Cuda) {
      const DeviceLimits& d = ctx.lab->backend().limits;
      lr.cc = d.compute_major * 10 + d.compute_minor;
      lr.ran_on_gpu = true;
    }
    t->listing_request = std::move(lr);
    t->allocated_registers = 0;
    if (r.compile.kernel) {
      const custom::CompiledInfo& i = r.compile.kernel->info();
      if (i.target == custom::Target::Gpu && i.attributes_measured)
        t->allocated_registers = i.attributes.registers_per_thread;
    }
  }
  t->diagnostics = r.compile.diagnostics;
  t->compiled_info = describe_build(r);
  t->status = r.summary(file);
  // What the compile said (and the run, verified) is the news: the lower pane shows Results, not
  // the PTX or SASS it was left on.
  t->lower = Lower::Results;
  t->select_lower = true;
  const bool first_of_file = t->from_kernel_file;
  t->from_kernel_file = false;
  // Compiled, and its launch finished (or there was no data to launch it on): it can join.
  const bool installable = r.compile.ok() && (!r.run || r.run->record.ok());
  if (!installable) {
    t->state = Tab::State::Failed;
    Status s = Status::failure(t->title + ": " + t->status,
                               r.compile.ok() ? "the kernel the lab ran before is still the one it runs"
                                              : "fix it and compile again; the last working kernel keeps running",
                               r.compile.ok() ? "launch" : "compile",
                               r.compile.ok() ? r.run->record.status.code : r.compile.status.code);
    log.error(s);
    if (first_of_file) settle_kernel_file(false, t->status, t->compiled_info);
    return;
  }
  // It compiled and its launch finished: it joins the lab (replacing its older version) and is
  // selected. A renamed kernel's old entry goes, unless another tab installed it.
  done.book->install(r.kernel, r.compile.kernel);
  if (!t->installed_id.empty() && t->installed_id != r.kernel.id) {
    const bool shared = std::any_of(tabs_.begin(), tabs_.end(),
                                    [&](const Tab& o) { return o.uid != t->uid && o.installed_id == t->installed_id; });
    if (!shared) done.book->remove(t->installed_id);
  }
  t->installed_id = r.kernel.id;
  const bool wrong = r.run && r.run->record.check.failed();
  t->state = wrong ? Tab::State::Wrong : Tab::State::Ok;
  if (wrong) log.warn(t->title + ": " + t->status);
  else log.info(t->title + ": " + t->status);
  EditorRequests::Select sel;
  sel.lab = t->lab;
  sel.kernel = r.kernel.id;
  sel.config.block = r.run ? r.run->record.config.block : r.kernel.block;
  requests.select = sel;
  if (first_of_file) settle_kernel_file(!wrong, t->status, t->compiled_info);
}

EditorRequests KernelEditor::update(const LabLookup& labs, app::MessageLog& log) {
  EditorRequests requests;
  for (const CompileDone& d : worker_.take()) apply(d, labs, log, requests);
  for (Tab& t : tabs_) {
    if (!t.compile_requested) continue;
    t.compile_requested = false;
    if (t.lab_from_source) {
      resolve_lab(t, labs, log);
      // The lab the source belongs to opens now, so its view makes its data (the matmul view its
      // matrices) while the compile waits for it: else a kernel file for another lab than the
      // open one compiled without a run, verified nothing, and said so.
      if (t.uid == active_uid_) requests.show_lab = t.lab;
    }
    start_compile(t, labs(t.lab), log);
  }
  return requests;
}

// ---------------------------------------------------------------------------------------------
// 3. the pane
// ---------------------------------------------------------------------------------------------

void KernelEditor::draw_file_menu(const LabLookup& labs, const std::string& current_lab, app::MessageLog& log) {
  if (ImGui::MenuItem("Edit kernel")) edit(labs(current_lab), log);
  if (ImGui::MenuItem("Open kernel file (.cu)..."))
    dialog_.open(KernelFileDialog::Mode::Open,
                 recent_.paths.empty() ? fs::path() : recent_.paths.front().parent_path());
  if (ImGui::BeginMenu("Recent kernel files", !recent_.paths.empty())) {
    std::optional<fs::path> chosen;
    for (const fs::path& p : recent_.paths)
      if (ImGui::MenuItem(p.filename().string().c_str())) chosen = p;
    ImGui::EndMenu();
    if (chosen && !open_file(*chosen, current_lab, log)) forget_file(recent_, *chosen);
  }
  if (ImGui::MenuItem("Save kernel", "Ctrl+S", false, active() != nullptr)) save(log);
  if (ImGui::MenuItem("Save kernel as...", nullptr, false, active() != nullptr)) {
    save_as_uid_ = active_uid_;
    dialog_.open(KernelFileDialog::Mode::SaveAs,
                 recent_.paths.empty() ? fs::path() : recent_.paths.front().parent_path(),
                 active()->path.empty() ? "kernel.cu" : active()->path.filename().string());
  }
}

void KernelEditor::draw_toolbar(Tab& t, const LabContext& ctx, app::MessageLog& log, EditorRequests& requests) {
  const float em = ImGui::GetFontSize();
  const bool compiling = t.state == Tab::State::Compiling;
  if (compiling) ImGui::BeginDisabled();
  if (ImGui::Button("Compile")) t.compile_requested = true;
  if (compiling) ImGui::EndDisabled();
  ui::item_tooltip(
      "Compile for this backend and run once on the lab's data, verified (Ctrl+Enter or F5). "
      "Only a kernel that compiles and finishes joins the lab; until then the last working one runs.");
  ImGui::SameLine();
  if (ImGui::Button("Save")) save(log);
  ImGui::SameLine();
  custom::UserKernelLab* user = user_lab(ctx);
  ImGui::TextColored(ui::kDimColour, "%s lab, for the %s", lab_title(t.lab).c_str(),
                     user ? custom::to_string(user->target()) : "(lab not open)");
  // The grid rule.
  ImGui::TextUnformatted("grid");
  ImGui::SameLine();
  const char* modes[] = {"form's grid", "per SM", "fixed grid"};
  ImGui::SetNextItemWidth(em * 9.5f);
  bool launch_changed = ImGui::Combo("##grid_mode", &t.grid_mode, modes, 3);
  ui::item_tooltip(
      "How the grid follows from the data: the form's rule (the lecture's ceil-divisions), a fixed "
      "number of blocks per SM, or a fixed grid. A fixed grid needs a kernel that loops "
      "(a grid-stride loop); otherwise elements stay unwritten and the check says so.");
  if (t.grid_mode == 1) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(em * 5);
    launch_changed |= ImGui::InputInt("##per_sm", &t.per_sm, 1, 1);
    t.per_sm = std::clamp(t.per_sm, 1, 64);
  } else if (t.grid_mode == 2) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(em * 8);
    launch_changed |= ImGui::InputInt2("##fixed_grid", t.fixed_grid);
    t.fixed_grid[0] = std::clamp(t.fixed_grid[0], 1, 1 << 30);
    t.fixed_grid[1] = std::clamp(t.fixed_grid[1], 1, 65535);
  }
  if (launch_changed && user && !t.installed_id.empty()) {
    if (const auto k = user->book().find(t.installed_id)) {
      user->book().set_launch(k->id, k->block, grid_rule(t), t.grid_mode == 1 ? static_cast<unsigned>(t.per_sm) : 0);
      requests.relaunch = true;
    }
  }
  draw_launch_shape(t, ctx, requests);
  ImGui::SameLine(0, em);
  float limit = static_cast<float>(time_limit_s_);
  ImGui::SetNextItemWidth(em * 7);
  if (ImGui::DragFloat("time limit", &limit, 0.05f, 0.1f, 60.0f, "%.1f s")) {
    set_time_limit_s(limit);
    if (user) user->book().set_time_limit_s(time_limit_s_);
  }
  ui::item_tooltip(
      "A launch of your kernel running longer than this is stopped (its process is killed) and "
      "reported; blockscope and its data are unaffected.");
}

void KernelEditor::set_launch_block(Dim3 block) {
  if (Tab* t = active()) {
    t->block = block;
    t->block_changed = true;
  }
}

std::optional<Dim3> KernelEditor::launch_block(const Tab& t, const LabContext& ctx) const {
  if (!t.installed_id.empty() && ctx.kernel == t.installed_id) return ctx.config.block;  // as the user set it
  if (t.block) return t.block;
  if (custom::UserKernelLab* user = user_lab(ctx))
    if (const auto* tp = user->spec().find_template(t.template_id)) return tp->block;
  return std::nullopt;
}

// The block and grid the next launch of this tab's kernel uses, the block editable: a kernel
// that ran at 16 x 16 while the controls showed 32 x 8 for the built-in one read as a mystery
// until the learner knew which block it had (an out-of-bounds thread (0, 15, 0), say).
void KernelEditor::draw_launch_shape(Tab& t, const LabContext& ctx, EditorRequests& requests) {
  const float em = ImGui::GetFontSize();
  const std::optional<Dim3> block = launch_block(t, ctx);
  ImGui::TextUnformatted("blockDim");
  ImGui::SameLine();
  if (!t.block_editing) {
    const Dim3 b = block.value_or(Dim3{256, 1, 1});
    t.block_field[0] = static_cast<int>(b.x), t.block_field[1] = static_cast<int>(b.y),
    t.block_field[2] = static_cast<int>(b.z);
  }
  ImGui::SetNextItemWidth(em * 9);
  const bool enter = ImGui::InputInt3("##launch_block", t.block_field, ImGuiInputTextFlags_EnterReturnsTrue);
  t.block_editing = ImGui::IsItemActive();
  const bool apply = enter || ImGui::IsItemDeactivatedAfterEdit();
  ui::item_tooltip(
      "The block your kernel launches with (x, y, z): the one selected in the lab for a kernel that "
      "ran, else the template's. Change it here (Enter): it relaunches, or the next compile uses it. "
      "Shapes CUDA refuses are refused before launch with the reason.");
  if (apply) {
    t.block =
        Dim3{static_cast<unsigned>(std::max(1, t.block_field[0])), static_cast<unsigned>(std::max(1, t.block_field[1])),
             static_cast<unsigned>(std::max(1, t.block_field[2]))};
    t.block_changed = true;
    t.block_editing = false;
  }
  // A new block: the kernel that ran relaunches with it; one not compiled yet takes it at its
  // next compile.
  if (t.block_changed && t.block) {
    t.block_changed = false;
    if (!t.installed_id.empty() && ctx.kernel == t.installed_id) {
      EditorRequests::Select sel;
      sel.lab = t.lab;
      sel.kernel = t.installed_id;
      sel.config = ctx.config;
      sel.config.block = *t.block;
      requests.select = sel;
    }
  }
  ImGui::SameLine(0, em);
  const bool selected = !t.installed_id.empty() && ctx.kernel == t.installed_id;
  if (selected && ctx.shown_grid)
    ImGui::Text("gridDim = (%u, %u, %u)", ctx.shown_grid->x, ctx.shown_grid->y, ctx.shown_grid->z);
  else if (t.grid_mode == 1) ImGui::TextColored(ui::kDimColour, "gridDim: %d blocks per SM", t.per_sm);
  else if (t.grid_mode == 2) ImGui::Text("gridDim = (%d, %d, 1)", t.fixed_grid[0], t.fixed_grid[1]);
  else ImGui::TextColored(ui::kDimColour, "gridDim: the form's rule, from the data");
  ui::item_tooltip(selected
                       ? "The grid of the launch shown (as it really launched)."
                       : "Known once the kernel compiles and runs: the grid rule above applied to the lab's data.");
}

void KernelEditor::draw_results(Tab& t, const LabContext& ctx) {
  const ImVec4 colour = t.state == Tab::State::Ok       ? ui::kOkColour
                        : t.state == Tab::State::Wrong  ? ui::kWarnColour
                        : t.state == Tab::State::Failed ? ui::kErrorColour
                                                        : ui::kDimColour;
  ImGui::PushTextWrapPos(0);
  ImGui::TextColored(colour, "%s",
                     t.status.empty() ? "not compiled yet: Compile (Ctrl+Enter or F5)" : t.status.c_str());
  if (!t.compiled_info.empty()) ImGui::TextColored(ui::kDimColour, "%s", t.compiled_info.c_str());
  if (!t.import_notes.empty() &&
      ImGui::TreeNodeEx("import_notes", ImGuiTreeNodeFlags_DefaultOpen,
                        "From the notebook: %d note%s on what was left out", static_cast<int>(t.import_notes.size()),
                        t.import_notes.size() == 1 ? "" : "s")) {
    for (const std::string& n : t.import_notes) ImGui::TextColored(ui::kDimColour, "%s", n.c_str());
    ImGui::TreePop();
  }
  if (custom::UserKernelLab* user = user_lab(ctx);
      user && !t.installed_id.empty() && ctx.kernel == t.installed_id && !user->owners_note().empty())
    ImGui::TextColored(ui::kDimColour, "who stores what: %s", user->owners_note().c_str());
  ImGui::PopTextWrapPos();
  // Diagnostics: a click puts the cursor there.
  for (std::size_t i = 0; i < t.diagnostics.size(); ++i) {
    const Diagnostic& d = t.diagnostics[i];
    const ImVec4 c = d.severity == Diagnostic::Severity::Error     ? ui::kErrorColour
                     : d.severity == Diagnostic::Severity::Warning ? ui::kWarnColour
                                                                   : ui::kDimColour;
    const std::string text =
        (d.line > 0 ? std::to_string(d.line) + ":" + std::to_string(d.column) + "  " : std::string()) +
        custom::to_string(d.severity) + ": " + d.message + (d.origin.empty() ? "" : "  (" + d.origin + ")");
    ImGui::PushID(static_cast<int>(i));
    ImGui::PushStyleColor(ImGuiCol_Text, c);
    if (ImGui::Selectable(text.c_str(), false) && d.line > 0) {
      t.code.goto_line = d.line;
      t.code.goto_column = std::max(1, d.column);
    }
    ImGui::PopStyleColor();
    ImGui::PopID();
  }
}

void KernelEditor::show_lower(Lower which) {
  if (Tab* t = active()) {
    t->lower = which;
    t->select_lower = true;
  }
}

const KernelListing* KernelEditor::listing() const {
  for (const Tab& t : tabs_)
    if (t.uid == active_uid_) return t.listing.get();
  return nullptr;
}

bool KernelEditor::listing_stale() const {
  for (const Tab& t : tabs_)
    if (t.uid == active_uid_) return t.listing && (t.last_compile_failed || t.code.text != t.listing->source);
  return false;
}

bool KernelEditor::listing_pending() const {
  for (const Tab& t : tabs_)
    if (t.uid == active_uid_)
      return t.listing_request && (!t.listing || t.listing->source != t.listing_request->user_source);
  return false;
}

KernelEditor::Lower KernelEditor::lower() const {
  for (const Tab& t : tabs_)
    if (t.uid == active_uid_) return t.lower;
  return Lower::Results;
}

CodeEditorState* KernelEditor::active_code() {
  Tab* t = active();
  return t ? &t->code : nullptr;
}

void KernelEditor::draw_listing_level(Tab& t, bool sass) {
  const KernelListing* l = t.listing.get();
  if (!l) {
    ImGui::TextColored(ui::kDimColour, "%s",
                       !t.listing_request ? "no listing yet: compile the kernel (Ctrl+Enter or F5)"
                                          : "listing the compiled kernel (PTX, SASS)...");
    return;
  }
  if (t.last_compile_failed)
    ImGui::TextColored(ui::kWarnColour, "stale: the last compile failed; this is the kernel that compiled before");
  else if (t.code.text != l->source)
    ImGui::TextColored(ui::kWarnColour, "stale: the source was edited since; compile to list it again");
  else if (listing_pending()) ImGui::TextColored(ui::kDimColour, "listing the new compile...");
  const Status& status = sass ? l->sass_status : l->ptx_status;
  const std::string& origin = sass ? l->sass_origin : l->ptx_origin;
  if (!origin.empty()) ImGui::TextColored(ui::kDimColour, "%s", origin.c_str());
  if (!status.ok()) {
    ui::status_text(status);
    if ((sass ? l->sass : l->ptx).empty()) return;
  }
  if (sass) {
    const std::string live = ui::live_summary(*l, t.allocated_registers);
    if (!live.empty()) {
      if (l->live_status.ok()) ImGui::TextUnformatted(live.c_str());
      else ImGui::TextColored(ui::kDimColour, "%s", live.c_str());
    }
  }
  // A cursor that moved (a click or typing in the code) brings its line's instructions into view,
  // unless it moved there from a click on one of them.
  if (t.code.cursor_line != t.highlighted_line) {
    t.highlighted_line = t.code.cursor_line;
    if (t.highlighted_line != t.line_from_click) t.ptx_view.scroll = t.sass_view.scroll = true;
    t.line_from_click = 0;
  }
  const std::vector<ListedInstruction>& v = sass ? l->sass : l->ptx;
  ui::InstructionListState& view = sass ? t.sass_view : t.ptx_view;
  const int clicked =
      ui::draw_instruction_list(sass ? "editor_sass" : "editor_ptx", v, l->source_file, t.highlighted_line, sass,
                                ui::live_scale(*l, t.allocated_registers), &view);
  if (clicked >= 0) {
    const ListedInstruction& ins = v[static_cast<std::size_t>(clicked)];
    if (ins.line > 0 && source::same_source_file(ins.file, l->source_file)) {
      t.code.goto_line = ins.line;
      t.code.goto_column = 1;
      t.line_from_click = ins.line;
    }
  }
}

void KernelEditor::draw_lower(Tab& t, const LabContext& ctx) {
  if (t.listing_request)
    if (auto l = listings_.get(*t.listing_request)) t.listing = std::move(l);
  if (!ImGui::BeginTabBar("lower_pane", ImGuiTabBarFlags_FittingPolicyScroll)) return;
  const Lower tabs[] = {Lower::Results, Lower::Ptx, Lower::Sass};
  const char* names[] = {"Results", "PTX", "SASS"};
  for (int i = 0; i < 3; ++i) {
    const ImGuiTabItemFlags flags = t.select_lower && t.lower == tabs[i] ? ImGuiTabItemFlags_SetSelected : 0;
    std::string label = names[i];
    if (i > 0 && listing_stale()) label += " (stale)";
    label += std::string("###lower") + names[i];
    if (ImGui::BeginTabItem(label.c_str(), nullptr, flags)) {
      if (!t.select_lower) t.lower = tabs[i];
      ImGui::BeginChild("results", ImVec2(0, 0), false);
      if (i == 0) draw_results(t, ctx);
      else draw_listing_level(t, i == 2);
      ImGui::EndChild();
      ImGui::EndTabItem();
    }
  }
  t.select_lower = false;
  ImGui::EndTabBar();
}

void KernelEditor::draw(const LabLookup& labs, const std::string& current_lab, app::MessageLog& log,
                        EditorRequests& requests) {
  if (auto chosen = dialog_.draw()) {
    if (dialog_.mode() == KernelFileDialog::Mode::Open) {
      open_file(*chosen, current_lab, log);
    } else if (Tab* t = tab(save_as_uid_)) {
      t->path = *chosen;
      active_uid_ = t->uid;
      save(log);
    }
  }
  if (!open_) return;
  const float em = ImGui::GetFontSize();
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  // Over the left part of the data view, so the result stays in sight beside it.
  ImGui::SetNextWindowPos(
      ImVec2(vp->WorkPos.x + std::min(em * 21.0f, vp->WorkSize.x * 0.3f) + em, vp->WorkPos.y + em * 2.5f),
      ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(std::min(em * 46, vp->WorkSize.x * 0.42f), vp->WorkSize.y * 0.72f),
                           ImGuiCond_FirstUseEver);
  if (!ImGui::Begin("Kernel editor", &open_)) {
    focused_ = false;
    ImGui::End();
    return;
  }
  // Only the code scrolls sideways, never the pane (a focus request on the wide text field
  // would otherwise drag the whole pane along).
  if (ImGui::GetScrollX() > 0) ImGui::SetScrollX(0);
  // The pane's own keys while it has the keyboard.
  const ImGuiIO& io = ImGui::GetIO();
  focused_ = ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows);
  if (focused_) {
    const bool enter = ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Enter), false) ||
                       ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_KeyPadEnter), false);
    if ((io.KeyCtrl && enter) || ImGui::IsKeyPressed(GLFW_KEY_F5, false)) {
      compile();
      // Ctrl+Enter also ends the text field's editing (ImGui's multi-line rule): take the
      // keyboard back, the cursor stays where it was.
      if (Tab* t = active()) t->code.take_focus = true;
    }
    if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_S, false)) save(log);
  }
  const LabContext ctx = labs(current_lab);
  if (!user_labs_)
    if (custom::UserKernelLab* user = user_lab(ctx)) user_labs_ = user->book().shared_labs();
  // Every lab's templates, as its spec offers them.
  auto template_items = [&](bool buttons) {
    if (!user_labs_) return;
    for (const custom::UserLab& l : user_labs_->labs)
      for (const lab::UserTemplate& tp : l.spec->templates()) {
        const std::string label = tp.title + "##" + l.id + "/" + tp.id;
        if (buttons ? ImGui::Button(label.c_str()) : ImGui::MenuItem(label.c_str())) open_template(l.id, tp);
      }
  };
  if (tabs_.empty()) {
    ImGui::TextWrapped(
        "No kernel open. Press Edit kernel in a lab, open or drop a .cu file, or start from a template:");
    template_items(true);
    ImGui::End();
    return;
  }
  std::vector<int> closing;
  // The tab asked to come to the front in an earlier frame; a template opened from the "+" menu
  // below asks for the next frame, so only this request is cleared.
  const int selecting = select_uid_;
  if (ImGui::BeginTabBar("kernel_tabs", ImGuiTabBarFlags_Reorderable | ImGuiTabBarFlags_FittingPolicyScroll)) {
    for (Tab& t : tabs_) {
      bool keep = true;
      ImGuiTabItemFlags flags = t.dirty() ? ImGuiTabItemFlags_UnsavedDocument : 0;
      if (select_uid_ == t.uid) flags |= ImGuiTabItemFlags_SetSelected;
      const std::string label = t.title + "###tab" + std::to_string(t.uid);
      if (ImGui::BeginTabItem(label.c_str(), &keep, flags)) {
        active_uid_ = t.uid;
        const LabContext tctx = t.lab == current_lab ? ctx : labs(t.lab);
        draw_toolbar(t, tctx, log, requests);
        if (t.lab != current_lab)
          ImGui::TextColored(ui::kWarnColour, "A %s kernel: compiling it switches to the %s lab.",
                             lab_title(t.lab).c_str(), lab_title(t.lab).c_str());
        std::vector<CodeMark> marks;
        for (const Diagnostic& d : t.diagnostics)
          marks.push_back({d.line, d.column, mark_kind(d.severity), custom::describe_at(d, t.title)});
        // The lower pane (results, PTX, SASS) takes at least 45% of the height: instructions need rows.
        const float results_h = std::max(em * (13.5f + 1.2f * std::min<std::size_t>(t.diagnostics.size(), 6)),
                                         ImGui::GetContentRegionAvail().y * 0.45f);
        draw_code_editor(("code" + std::to_string(t.uid)).c_str(), t.code, marks,
                         ImVec2(0, std::max(em * 6, ImGui::GetContentRegionAvail().y - results_h)));
        ImGui::TextColored(ui::kDimColour, "line %d, column %d", t.code.cursor_line, t.code.cursor_column);
        draw_lower(t, tctx);
        ImGui::EndTabItem();
      }
      if (!keep) closing.push_back(t.uid);
    }
    if (ImGui::TabItemButton("+", ImGuiTabItemFlags_Trailing | ImGuiTabItemFlags_NoTooltip))
      ImGui::OpenPopup("templates");
    if (ImGui::BeginPopup("templates")) {
      ImGui::TextColored(ui::kDimColour, "new kernel from a template");
      template_items(false);
      ImGui::EndPopup();
    }
    ImGui::EndTabBar();
  }
  if (select_uid_ == selecting) select_uid_ = 0;
  for (int uid : closing) std::erase_if(tabs_, [&](const Tab& t) { return t.uid == uid; });
  ImGui::End();
}

}  // namespace bs::editor
