#include "shell/app.hpp"

#include <epoxy/gl.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>
#include <imgui_internal.h>  // the popup stack, for the status file

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "device/cuda_device.hpp"
#include "device/nvtx_range.hpp"
#include "lab/report.hpp"
#include "mapping/schedule.hpp"
#include "platform/png.hpp"
#include "shell/sample_image.hpp"
#include "ui/help_overlay.hpp"
#include "ui/layout.hpp"
#include "ui/widgets.hpp"

namespace bs::app {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// A simulated launch slower than this stops continuous runs: the window would stutter.
constexpr double kSlowSimulatedMs = 150;
// After a configuration's first (verified) run, its repeats are re-verified this often.
constexpr double kVerifyPeriodS = 1.0;

std::string check_key(const std::string& kernel, const KernelConfig& c, const std::string& problem) {
  return kernel + "|" + block_text(c.block) + "|" + std::to_string(c.compiled) + "|" + problem;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// 1. creation and shutdown
// ---------------------------------------------------------------------------------------------

App::App(Window& window, CliOptions options, ComputeSession compute, LabCatalog catalog)
    : window_(window),
      options_(std::move(options)),
      state_(options_.state),
      compute_(std::move(compute)),
      catalog_(std::move(catalog)),
      loader_(LoadLimits{}, 1),
      measured_(options_.cupti_library, options_.profile) {
  if (!options_.status_file_path.empty()) status_writer_.emplace(options_.status_file_path);
  experiments_ = std::make_unique<Experiments>(state_.sweep, messages_, options_.cupti_library);
  sweep_on_start_ = options_.sweep;
  slots_.resize(catalog_.size());
  for (std::size_t i = 0; i < catalog_.size(); ++i) slots_[i].entry = &catalog_[i];
}

Result<std::unique_ptr<App>> App::create(Window& window, CliOptions options, ComputeSession compute,
                                         LabCatalog catalog) {
  if (catalog.empty()) return Status::failure("no labs to open", "", "App::create");
  std::unique_ptr<App> app(new App(window, std::move(options), std::move(compute), std::move(catalog)));
  app->load_settings();  // under the command line: flags win (state/user_settings.hpp)
  app->register_shortcuts();
  if (Status s = app->init_gl_and_imgui(); !s) return s;
  if (!app->slot(app->state_.lab))
    return Status::failure("there is no lab '" + app->state_.lab + "'", "", "--lab");

  // Images named on the command line load before the first frame, so headless runs and
  // screenshots show them; later drops go through the background loader. They go to the first
  // lab that takes images, which is opened for them.
  bool wants_images = false;
  for (const auto& e : app->catalog_)
    if (e.id == app->state_.lab) wants_images = true;
  Slot* image_slot = nullptr;
  for (Slot& s : app->slots_) {
    if (s.entry->id != app->state_.lab && !app->options_.images.empty()) continue;
    if (Status st = app->ensure_view(s); !st) continue;
    if (s.view->accepts_images()) {
      image_slot = &s;
      break;
    }
  }
  if (image_slot) {
    bool any = false;
    for (const auto& path : app->options_.images) {
      auto img = load_image_file(fs::path(path), app->limits_);
      if (!img) {
        app->messages_.error(img.status());
        app->had_load_failure_ = true;
        continue;
      }
      ViewContext ctx = app->context();
      if (Status s = image_slot->view->install_image(std::move(img.value()), ctx); !s) {
        app->messages_.error(s);
        app->had_load_failure_ = true;
        continue;
      }
      remember_file(app->recent_, fs::path(path));
      any = true;
    }
    if (!any) {
      auto sample = load_image_memory(sample_image_png(), kSampleImageName, app->limits_);
      if (!sample) return sample.status();
      ViewContext ctx = app->context();
      if (Status s = image_slot->view->install_image(std::move(sample.value()), ctx); !s) return s;
    }
  } else if (!app->options_.images.empty()) {
    app->messages_.warn("The images named are not loaded: no lab takes images");
    app->had_load_failure_ = true;
  }
  (void)wants_images;
  if (Status s = app->open_lab(app->state_.lab); !s) app->messages_.error(s);
  // --kernel-file: opened in the editor on the lab its kernel belongs to, compiled and run off
  // the UI thread; the frames that follow show it once it ran (headless runs wait for it).
  app->editor_->set_time_limit_s(app->options_.kernel_time_limit_s);
  if (!app->options_.kernel_file.empty()) {
    if (Status s = app->editor_->open_kernel_file(app->options_.kernel_file, app->state_.lab, app->messages_,
                                                  app->state_.selection.block);
        s)
      app->show_editor_lab();
  }
  return app;
}

Status App::init_gl_and_imgui() {
  GLint max_texture = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_texture);
  if (max_texture > 0 && max_texture < limits_.max_side) {
    limits_.max_side = max_texture;
    limits_.side_limit_reason = "GL_MAX_TEXTURE_SIZE of this OpenGL context";
  }
  loader_.set_limits(limits_);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  const bool windowed = window_.glfw_handle() != nullptr;
  io.IniFilename = nullptr;  // headless runs are reproducible: no saved layout
  if (windowed && !settings_folder_.empty()) {
    // Per-user layout and recent files, in the settings' folder, never in the working directory.
    std::error_code ec;
    fs::create_directories(settings_folder_, ec);
    imgui_ini_path_ = (settings_folder_ / "imgui.ini").string();
    io.IniFilename = imgui_ini_path_.c_str();
    recent_path_ = settings_folder_ / "recent.txt";
    recent_ = load_recent_files(recent_path_);
  }
  // Recent kernel files persist beside recent images in window mode; headless runs keep none.
  editor_ = std::make_unique<editor::KernelEditor>(windowed ? editor::default_recent_kernels_path() : fs::path());
  ui_scale_ = std::clamp(window_.content_scale(), 1.0f, 3.0f);
  update_fonts();  // the theme and fonts for the content scale times the saved text size
  if (windowed && !ImGui_ImplGlfw_InitForOpenGL(window_.glfw_handle(), true))
    return Status::failure("ImGui could not attach to the GLFW window", "", "ImGui_ImplGlfw_InitForOpenGL");
  if (!ImGui_ImplOpenGL3_Init("#version 330 core"))
    return Status::failure("ImGui's OpenGL 3 renderer failed to start", "the GL context must be 3.3 core",
                           "ImGui_ImplOpenGL3_Init");
  imgui_ready_ = true;
  last_frame_time_ = Clock::now();
  if (compute_.backend.kind == BackendKind::CpuSimulation && options_.backend != BackendChoice::Cpu)
    messages_.warn("Running the CPU simulation", compute_.why_cpu);
  return Status::success();
}

App::~App() {
  experiments_.reset();  // a sweep's worker stops (and stops reading the labs) first
  if (!recent_path_.empty()) save_recent_files(recent_, recent_path_);
  save_settings_if_changed(true);
  // GL objects (the views') die before the ImGui renderer and the context.
  slots_.clear();
  if (imgui_ready_) {
    ImGui_ImplOpenGL3_Shutdown();
    if (window_.glfw_handle()) ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
  }
}

ViewContext App::context() {
  return ViewContext{messages_, compute_.backend, window_.glfw_handle() == nullptr, frame_index_};
}

// ---------------------------------------------------------------------------------------------
// 2. labs
// ---------------------------------------------------------------------------------------------

App::Slot* App::slot(const std::string& id) {
  for (Slot& s : slots_)
    if (s.entry->id == id) return &s;
  return nullptr;
}

App::Slot& App::current() {
  Slot* s = slot(state_.lab);
  return s ? *s : slots_.front();
}

LabView* App::current_view() { return current().view.get(); }

const LaunchRecord& App::last_launch() const {
  for (const Slot& s : slots_)
    if (s.entry->id == state_.lab) return s.last;
  return slots_.front().last;
}

const LaunchRecord& App::shown_launch() const {
  for (const Slot& s : slots_)
    if (s.entry->id == state_.lab) return s.shown;
  return slots_.front().shown;
}

// Makes the lab and its view the first time they are needed. A failure is kept (and said once).
Status App::ensure_view(Slot& s) {
  if (s.view) return Status::success();
  if (!s.failure.ok()) return s.failure;
  auto lab = s.entry->make_lab(compute_.backend);
  if (!lab) {
    s.failure = lab.status();
    messages_.error(s.failure);
    return s.failure;
  }
  // What the command line names wins; the rest comes from the settings kept (state/user_settings.hpp).
  const LabMemory* memory = nullptr;
  if (auto it = state_.remembered.find(s.entry->id); it != state_.remembered.end()) memory = &it->second;
  const bool opened = s.entry->id == state_.lab;
  LabViewSetup setup;
  if (memory && memory->view) {
    setup.view.compare = memory->view->compare;
    setup.view.split = memory->view->split;
    setup.view.overlay = memory->view->overlay;
    setup.view.overlay_opacity = memory->view->overlay_opacity;
  }
  if (opened && state_.view_given) setup.view = state_.view;
  for (const LabOption& o : s.entry->options) {
    if (auto it = state_.lab_options.find(o.flag); it != state_.lab_options.end()) {
      setup.options[o.flag] = it->second;
    } else if (memory) {
      auto kept = memory->options.find(o.flag);
      if (kept == memory->options.end()) continue;
      if (Status st = o.check(kept->second); !st) messages_.warn("Settings: " + o.flag + ": " + st.message, "kept the default");
      else setup.options[o.flag] = kept->second;
    }
  }
  ViewContext ctx = context();
  auto view = s.entry->make_view(std::move(lab.value()), setup, ctx);
  if (!view) {
    s.failure = view.status();
    messages_.error(s.failure);
    return s.failure;
  }
  s.view = std::move(view.value());
  apply_settings(s);
  const auto& kernels = s.view->lab().kernels();
  if (!kernels.empty()) {
    s.kernel = kernels.front().id;
    s.config = s.view->lab().default_config(kernels.front());
  }
  const SelectionRequest& asked = state_.selection;
  const bool selection_given = !asked.kernel.empty() || asked.block || asked.compiled;
  if (opened && selection_given) apply_selection_request(s, asked);
  else if (memory) apply_selection_request(s, memory->selection);
  s.dirty = true;
  return Status::success();
}

// The settings asked for this lab (the command line, the settings file, a combo) onto its lab;
// a refused one is said and dropped.
void App::apply_settings(Slot& s) {
  auto it = state_.lab_settings.find(s.entry->id);
  if (it == state_.lab_settings.end()) return;
  for (auto kv = it->second.begin(); kv != it->second.end();) {
    if (Status st = s.view->lab().set_setting(kv->first, kv->second); !st) {
      messages_.error(st);
      kv = it->second.erase(kv);
    } else {
      ++kv;
    }
  }
}

// The command line's kernel and configuration, whatever order its flags came in: a kernel's
// default first, then the block or configuration asked for.
void App::apply_selection_request(Slot& s, const SelectionRequest& r) {
  const lab::Lab& lab = s.view->lab();
  if (!r.kernel.empty()) {
    const lab::KernelInfo* k = lab.find_kernel(r.kernel);
    if (!k) {
      messages_.warn("The " + std::string(lab.title()) + " lab has no kernel '" + r.kernel + "'",
                     "see the kernel list");
    } else {
      s.kernel = k->id;
      s.config = lab.default_config(*k);
    }
  }
  const lab::KernelInfo* k = lab.find_kernel(s.kernel);
  if (r.block) s.config.block = *r.block;
  if (r.compiled && k) {
    s.config.compiled = *r.compiled;
    if (*r.compiled >= 0 && *r.compiled < static_cast<int>(k->configs.size()))
      s.config.block = k->configs[static_cast<std::size_t>(*r.compiled)].block;
  }
  s.dirty = true;
}

Status App::open_lab(const std::string& id) {
  Slot* s = slot(id);
  if (!s) return Status::failure("there is no lab '" + id + "'", "", "open_lab");
  state_.lab = id;
  return ensure_view(*s);
}

Status App::select(const std::string& kernel, const KernelConfig& config) {
  Slot& s = current();
  if (Status st = ensure_view(s); !st) return st;
  if (!s.view->lab().find_kernel(kernel))
    return Status::failure("no kernel '" + kernel + "' in this lab", "", "select");
  s.kernel = kernel;
  s.config = config;
  s.dirty = true;
  return Status::success();
}

void App::request_relaunch() { current().dirty = true; }

// A sticky fault (illegal address, launch failure, timeout) leaves the CUDA context unusable
// until the process ends. Every lab moves to the CPU simulation, keeping its problem (views keep
// host copies), and the user is told what happened.
void App::handle_device_fault(const Status& fault) {
  messages_.error(fault);
  auto cpu = open_compute_session(BackendChoice::Cpu, -1, false);
  if (!cpu) {
    messages_.error(cpu.status());
    return;
  }
  cpu->why_cpu = "the GPU faulted (" + fault.code + "); blockscope moved to the CPU simulation. "
                 "Restart it to use the GPU again.";
  device_faulted_ = true;
  messages_.warn("The GPU faulted: switched to the CPU simulation, your data is kept", cpu->why_cpu);
  switch_compute(std::move(cpu.value()));
}

// Moves every open lab to another compute session (another GPU, or the CPU simulation); each
// view re-installs its problem there, so nothing the user loaded is lost.
void App::switch_compute(ComputeSession next) {
  compute_ = std::move(next);
  timings_.clear();
  async_.drop_fork();
  for (Slot& s : slots_) {
    ++s.problem_gen;
    s.in_flight = false;
    s.no_async = false;
    s.last = LaunchRecord{};
    s.shown = LaunchRecord{};
    s.check = Check{};
    s.check_for.clear();
    s.dirty = true;
    s.paused_slow = false;
    if (!s.view) {
      s.failure = Status::success();  // a lab that failed on the old backend may work here
      continue;
    }
    auto lab = s.entry->make_lab(compute_.backend);
    if (!lab) {
      messages_.error(lab.status());
      s.view.reset();
      s.failure = lab.status();
      continue;
    }
    ViewContext ctx = context();
    if (Status st = s.view->set_lab(std::move(lab.value()), ctx); !st) messages_.error(st);
    apply_settings(s);
    // The selection stays if the new backend's lab has the kernel (cuBLAS exists on the GPU only).
    if (!s.view->lab().find_kernel(s.kernel) && !s.view->lab().kernels().empty()) {
      s.kernel = s.view->lab().kernels().front().id;
      s.config = s.view->lab().default_config(s.view->lab().kernels().front());
    }
  }
}

void App::draw_compute_menu() {
  // Not while a profile runs, nor while a sweep runs (its worker measures on a copy of a lab of
  // this session).
  if (!ImGui::BeginMenu("Compute", !measured_.busy() && !experiments_->sweeping())) return;
  const bool on_cpu = compute_.backend.kind == BackendKind::CpuSimulation;
  auto devices = list_cuda_devices();
  if (devices && !device_faulted_) {
    for (const auto& d : devices.value()) {
      const std::string label = "GPU " + std::to_string(d.index) + ": " + d.name + " (sm_" +
                                std::to_string(d.compute_major) + std::to_string(d.compute_minor) + ")";
      const bool now = !on_cpu && compute_.backend.cuda_device == d.index;
      if (ImGui::MenuItem(label.c_str(), nullptr, now, d.has_code_for_it) && !now) {
        auto next = open_compute_session(BackendChoice::Cuda, d.index, true);
        if (!next) messages_.error(next.status());
        else {
          messages_.info("Switched to " + next->backend.label);
          switch_compute(std::move(next.value()));
        }
      }
    }
  } else {
    ImGui::TextDisabled("no usable CUDA device");
    if (!devices) ui::item_tooltip(devices.status().describe().c_str());
  }
  if (ImGui::MenuItem("CPU simulation", nullptr, on_cpu) && !on_cpu) {
    auto next = open_compute_session(BackendChoice::Cpu, -1, false);
    if (next) {
      messages_.info("Switched to the CPU simulation");
      switch_compute(std::move(next.value()));
    }
  }
  ImGui::EndMenu();
}

// ---------------------------------------------------------------------------------------------
// 2b. the kernel editor
// ---------------------------------------------------------------------------------------------

// What the editor needs of a lab: the lab (opened if it was not) and its selection.
editor::LabContext App::lab_context(const std::string& id) {
  editor::LabContext c;
  c.id = id;
  Slot* s = slot(id);
  if (!s) return c;
  c.title = s->entry->title;
  if (!ensure_view(*s).ok()) return c;
  c.lab = &s->view->lab();
  c.kernel = s->kernel;
  c.config = s->config;
  return c;
}

void App::apply_editor_requests(const editor::EditorRequests& r) {
  if (r.select) {
    Slot* s = slot(r.select->lab);
    if (s && ensure_view(*s).ok()) {
      state_.lab = r.select->lab;
      s->kernel = r.select->kernel;
      s->config = r.select->config;
      s->dirty = true;
      s->paused_slow = false;
      s->check_for.clear();
      // Its older source's timings measured something else.
      timings_.forget_kernel(r.select->lab, r.select->kernel);
    }
  }
  if (r.relaunch) {
    current().dirty = true;
    current().check_for.clear();
  }
}

void App::edit_kernel() { editor_->edit(lab_context(state_.lab), messages_); }

// A .cu dropped or opened: the editor opens it on its lab, which the window then shows.
void App::open_kernel_file(const fs::path& path) {
  if (editor_->open_file(path, state_.lab, messages_)) show_editor_lab();
}

// The lab of the editor's kernel, if the window shows another.
void App::show_editor_lab() {
  const std::string lab = editor_->active_lab();
  if (!lab.empty() && lab != state_.lab)
    if (Status s = open_lab(lab); !s) messages_.error(s);
}

// ---------------------------------------------------------------------------------------------
// 3. images in
// ---------------------------------------------------------------------------------------------

void App::enqueue_files(std::vector<fs::path> paths) {
  if (paths.empty()) return;
  if (paths.size() > 1)
    messages_.info("Loading " + std::to_string(paths.size()) + " files; the last one that loads is shown");
  loader_.enqueue(std::move(paths));
}

void App::take_loaded_images() {
  for (auto& outcome : loader_.take_finished()) {
    if (outcome.superseded()) continue;
    if (!outcome.image) {
      messages_.error(outcome.image.status());
      had_load_failure_ = true;
      continue;
    }
    if (Status s = install_image(std::move(outcome.image.value())); !s) {
      messages_.error(s);
      had_load_failure_ = true;
      continue;
    }
    remember_file(recent_, outcome.path);
  }
}

// An image goes to the open lab if it takes images, else to the first lab that does, which is
// then opened. On failure the lab keeps its previous image.
Status App::install_image(Rgba8Image image) {
  Slot* target = nullptr;
  if (ensure_view(current()).ok() && current().view->accepts_images()) target = &current();
  for (Slot& s : slots_) {
    if (target) break;
    if (ensure_view(s).ok() && s.view->accepts_images()) target = &s;
  }
  if (!target) return Status::failure("no lab takes images", "", "install_image");
  ViewContext ctx = context();
  if (Status s = target->view->install_image(std::move(image), ctx); !s) return s;
  state_.lab = target->entry->id;
  problem_changed(*target);
  return Status::success();
}

Status App::install_image_for_test(Rgba8Image image) { return install_image(std::move(image)); }

// ---------------------------------------------------------------------------------------------
// 4. launching
// ---------------------------------------------------------------------------------------------

// The options of an interactive launch: once, traced when the selection is new, verified when
// new and then once a second.
lab::RunOptions App::run_options(Slot& s, bool changed) {
  lab::RunOptions options;
  options.timing = TimingPolicy::once();
  options.trace_schedule = changed && state_.trace_schedule;
  const std::string key = check_key(s.kernel, s.config, s.view->lab().problem().summary);
  const double since = std::chrono::duration<double>(Clock::now() - s.verified_at).count();
  options.verify = changed || key != s.check_for || since >= kVerifyPeriodS;
  return options;
}

void App::relaunch(Slot& s) {
  const bool changed = s.dirty;
  if (s.in_flight && !changed) return;  // continuous runs wait for the launch in flight
  s.dirty = false;
  if (launch_async(s, changed)) return;
  const lab::RunOptions options = run_options(s, changed);
  const std::string key = check_key(s.kernel, s.config, s.view->lab().problem().summary);
  ViewContext ctx = context();
  const auto t0 = Clock::now();
  LaunchRecord rec = s.view->launch(s.kernel, s.config, options, ctx);
  glFinish();  // the pipeline time includes getting the result on screen, not just its submission
  const double pipeline_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  keep_record(s, std::move(rec), pipeline_ms, changed, options.verify, key);
}

// What the views, the timings and the status bar keep of a launch, run here or on the worker.
void App::keep_record(Slot& s, LaunchRecord rec, double pipeline_ms, bool changed, bool verified,
                      const std::string& key) {
  if (!rec.ok()) {
    // Said once per configuration, not once per frame.
    if (changed || s.last.ok()) {
      if (rec.refused) messages_.warn("Launch refused: " + rec.status.message, rec.status.hint);
      else messages_.error(rec.status);
    }
    s.last = std::move(rec);
    if (compute_.backend.kind == BackendKind::Cuda && is_sticky_cuda_error(s.last.status.code))
      handle_device_fault(s.last.status);
    return;
  }
  if (verified) {
    s.check = rec.check;
    s.check_for = key;
    s.verified_at = Clock::now();
    if (rec.check.failed() && changed) messages_.warn(rec.kernel + " gave a WRONG result", rec.check.summary());
  } else {
    rec.check = s.check;  // the verdict of this configuration's last check, on the same data
  }
  timings_.add(rec, pipeline_ms);
  // A slow simulated launch relaunched every frame would keep both cores busy for nothing the
  // user reads: continuous runs pause and say why (the window itself stays live: the launch
  // runs on the worker thread).
  if (s.continuous && rec.timing.simulated && pipeline_ms > kSlowSimulatedMs) {
    s.paused_slow = true;
    s.slow_ms = pipeline_ms;
  }
  if (rec.schedule.empty() && !changed && s.shown.kernel == rec.kernel &&
      s.shown.config_label == rec.config_label && s.shown.problem == rec.problem) {
    rec.schedule = std::move(s.shown.schedule);  // keep the trace of this configuration
    rec.schedule_simulated = s.shown.schedule_simulated;
  }
  s.shown = rec;
  s.last = std::move(rec);
  s.last.schedule.clear();
}

// The lab's data changed (an image installed, a setting, the matrices rebuilt): everything
// measured and shown was on the old data. The records go too, so nothing (the views, the status
// file) pairs the new data with a launch that never saw it while the next one runs.
void App::problem_changed(Slot& s) {
  timings_.forget_lab(s.entry->id);
  ++s.problem_gen;
  s.dirty = true;
  s.paused_slow = false;
  s.check_for.clear();
  s.last = LaunchRecord{};
  s.shown = LaunchRecord{};
}

// What the problem is now, for the worker's fork: the lab, its problem and settings, a counter
// bumped wherever the problem may have changed (an image installed, a setting, the matrices
// rebuilt, another compute session), and the version of the lab's kernels (user kernels).
std::string App::problem_key(Slot& s) {
  std::string key = s.entry->id + "|" + std::to_string(s.problem_gen) + "|" + s.view->lab().problem().summary;
  for (const auto& [k, v] : s.view->lab().setting_values()) key += "|" + k + "=" + v;
  // A user kernel installed or rebuilt since the fork was made: the fork lacks it.
  key += "|kernels " + std::to_string(s.view->lab().kernels_version());
  return key;
}

// In the window, the CPU simulation launches on the worker thread (shell/async_launch.hpp), so
// frames keep coming while a slow rung runs. Headless runs launch on the frame loop: each frame
// then shows its own launch, which screenshots and tests rely on. GPU launches stay here too:
// they take microseconds, and interop maps GL buffers on this thread.
bool App::launch_async(Slot& s, bool changed) {
  if (!window_.glfw_handle() || s.no_async || compute_.backend.kind != BackendKind::CpuSimulation) return false;
  AsyncLaunch::Request r;
  r.slot = s.entry->id;
  r.problem_key = problem_key(s);
  r.kernel = s.kernel;
  r.config = s.config;
  r.options = run_options(s, changed);
  r.changed = changed;
  if (auto failed = async_.start(s.view->lab(), r)) {
    s.no_async = true;  // the lab cannot fork: launch here from now on
    messages_.warn("Launching on the frame loop: " + failed->status.message, failed->status.hint);
    s.dirty = true;
    return true;
  }
  s.in_flight = true;
  return true;
}

// A launch the worker finished: shown if it is still what the slot asks for, dropped otherwise
// (a newer selection or problem is on its way).
void App::take_async_result() {
  auto f = async_.take();
  if (!async_.busy())
    for (Slot& t : slots_) t.in_flight = false;
  if (!f) return;
  Slot* s = slot(f->request.slot);
  if (!s || !s->view || f->cancelled) return;
  if (f->request.problem_key != problem_key(*s) || f->request.kernel != s->kernel || !(f->request.config == s->config)) {
    s->dirty = s->dirty || !async_.busy();
    return;
  }
  double pipeline_ms = f->wall_ms;
  if (f->record.ok()) {
    ViewContext ctx = context();
    const auto t0 = Clock::now();
    if (!s->view->show_result(f->record, f->output, ctx)) {
      s->no_async = true;  // this view draws only what it launched itself
      s->dirty = true;
      return;
    }
    glFinish();
    pipeline_ms += std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  }
  const std::string key = check_key(f->request.kernel, f->request.config, s->view->lab().problem().summary);
  keep_record(*s, std::move(f->record), pipeline_ms, f->request.changed, f->request.options.verify, key);
}

// ---------------------------------------------------------------------------------------------
// 5. the frame
// ---------------------------------------------------------------------------------------------

void App::frame() {
  window_.poll_events();
  // Problems the platform survived (an X error from a drag source that vanished mid-drag).
  for (auto& line : window_.take_platform_warnings()) messages_.warn(std::move(line));
  std::vector<fs::path> dropped;
  for (auto& p : window_.take_dropped_paths()) {
    if (editor::is_kernel_file(p)) open_kernel_file(p);  // a kernel's source, not an image
    else dropped.emplace_back(p);
  }
  enqueue_files(std::move(dropped));
  // While a profile runs, its passes must be the only work on the GPU (shell/measured_tab.hpp):
  // no launches, uploads or new labs until it is done; the window keeps drawing. A sweep that is
  // copying a lab's data needs the lab left as it is: new images wait.
  if (!measured_.busy() && !experiments_->forking()) take_loaded_images();
  take_async_result();
  if (auto fault = experiments_->poll()) handle_device_fault(*fault);
  apply_editor_requests(editor_->update([this](const std::string& id) { return lab_context(id); }, messages_));

  Slot& s = current();
  if (s.view) measured_.update(s.view->lab(), s.shown, messages_);
  if (!measured_.busy() && ensure_view(s).ok()) {
    ViewContext ctx = context();
    if (!experiments_->forking() && s.view->update(ctx)) problem_changed(s);
    const lab::ProblemInfo problem = s.view->lab().problem();
    const bool continuous = s.continuous && !s.paused_slow && s.last.ok();
    if (experiments_->sweeping()) {
      // The GPU (or the CPU) is the sweep's while it measures: the window's launches wait.
    } else if (problem.ready && (s.dirty || continuous)) {
      relaunch(s);
    } else if (!problem.ready && s.dirty) {
      // Nothing to run on: the selection's record says why (the problem's own reason).
      s.last = s.view->lab().plan(s.kernel, s.config);
      if (s.last.ok()) s.last.status = problem.status;
      s.last.refused = true;
      s.dirty = false;
    }
    if (sweep_on_start_ && (problem.ready || frame_index_ > 0)) {
      sweep_on_start_ = false;
      if (Status st = start_sweep(); !st) messages_.error(st);
    }
  } else if (sweep_on_start_) {
    sweep_on_start_ = false;
    messages_.error(Status::failure("no sweep: the lab did not open", "", "--sweep"));
  }

  ImGuiIO& io = ImGui::GetIO();
  const auto [fb_w, fb_h] = window_.framebuffer_size();
  update_fonts();  // a new text size or characters never drawn before: the atlas between frames
  ImGui_ImplOpenGL3_NewFrame();
  if (window_.glfw_handle()) {
    ImGui_ImplGlfw_NewFrame();
  } else {
    io.DisplaySize = ImVec2(static_cast<float>(fb_w), static_cast<float>(fb_h));
    io.DisplayFramebufferScale = ImVec2(1, 1);
    io.DeltaTime = 1.0f / 60.0f;
  }
  const auto now = Clock::now();
  frame_ms_ = std::chrono::duration<double, std::milli>(now - last_frame_time_).count();
  last_frame_time_ = now;

  const bool capture_png = pending_png_.has_value();  // asked for in an earlier frame
  {
    NvtxRange range("draw");
    ImGui::NewFrame();
    // Shortcuts from the window's own key presses (none are lost between slow frames); Escape is
    // one of them.
    shortcuts_.handle(window_.take_key_presses(), ImGui::GetIO().WantTextInput);
    draw_ui();
    ImGui::Render();

    window_.bind_default_framebuffer();
    glViewport(0, 0, fb_w, fb_h);
    glClearColor(0.08f, 0.09f, 0.11f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  }
  if (screenshot_requested_) take_screenshot_now();  // the frame just drawn, before it is shown
  // A PNG export asked for in the previous frame: cut from this one, which no longer shows the
  // export dialog.
  if (capture_png && pending_png_) {
    const auto [what, path] = *pending_png_;
    pending_png_.reset();
    if (Status st = write_png_export(what, path); !st) messages_.error(st);
    else messages_.info("Wrote " + path);
  }
  ++frame_index_;
  if (status_writer_) write_status_file();
  save_settings_if_changed(false);
}

void App::present() { window_.swap_buffers(); }

void App::draw_ui() {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowRounding, 0);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_MenuBar |
                                 ImGuiWindowFlags_NoBringToFrontOnFocus;
  ImGui::Begin("blockscope", nullptr, flags);
  ImGui::PopStyleVar(2);
  draw_menu_bar();
  Slot& s = current();

  // Three columns fitted to the window (ui/layout.hpp): the panels keep the user's widths where
  // there is room, shrink (and fold, side tabs first) where there is not; splitters between
  // them resize, strips give folded panels back.
  const float em = ImGui::GetFontSize();
  const float status_h = ImGui::GetFrameHeightWithSpacing() + 4;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float body_h = std::max(em * 4, avail.y - status_h);
  const float gap = std::max(6.0f, em * 0.45f);
  const AppState defaults;
  const ui::Columns cols = ui::plan_columns(avail.x, em, gap, state_.layout);
  auto strip = [&](const char* id, float w, const char* arrow, const char* tip, auto unfold) {
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(2, 4));
    ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(1, 4));
    ImGui::BeginChild(id, ImVec2(w, body_h), true, ImGuiWindowFlags_NoScrollbar);
    if (ImGui::Button(arrow, ImVec2(-1, em * 3))) unfold();
    ui::item_tooltip(tip);
    ImGui::EndChild();
    ImGui::PopStyleVar(2);
  };
  if (cols.left_open) {
    ImGui::BeginChild("controls", ImVec2(cols.left, body_h), true);
    draw_left_panel(s);
    ImGui::EndChild();
    ImGui::SameLine(0, 0);
    ui::splitter("##split_left", gap, body_h, em, &state_.layout.left_em, false, defaults.layout.left_em);
    ImGui::SameLine(0, 0);
  } else {
    strip("controls_strip", cols.left, ">", cols.left_folded_for_room ? "The controls (no room: the window is too narrow)"
                                                                       : "Show the controls (Ctrl+[)",
          [&] { state_.layout.left_open = true; });
    ImGui::SameLine(0, gap);
  }
  ImGui::BeginChild("view", ImVec2(cols.view, body_h), true, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  draw_centre(s);
  ImGui::EndChild();
  if (cols.side_open) {
    ImGui::SameLine(0, 0);
    ui::splitter("##split_side", gap, body_h, em, &state_.layout.side_em, true, defaults.layout.side_em);
    ImGui::SameLine(0, 0);
    ImGui::BeginChild("side", ImVec2(cols.side, body_h), true);
    draw_side_panel(s);
    ImGui::EndChild();
  } else {
    ImGui::SameLine(0, gap);
    strip("side_strip", cols.side, "<",
          cols.side_folded_for_room ? "The side tabs: no room beside the data. Click to fold the controls and show them."
                                    : "Show the side tabs (Ctrl+])",
          [&] {
            state_.layout.side_open = true;
            if (cols.side_folded_for_room) state_.layout.left_open = false;
          });
  }
  draw_status_bar(s);
  ImGui::End();

  editor::EditorRequests editor_requests;
  editor_->draw([this](const std::string& id) { return lab_context(id); }, state_.lab, messages_, editor_requests);
  apply_editor_requests(editor_requests);
  if (auto chosen = file_browser_.draw()) enqueue_files({*chosen});
  ui::draw_messages_window(messages_, &show_messages_);
  if (show_messages_) messages_seen_ = messages_.all().size();
  draw_loading_modal();
  std::vector<ui::HelpLine> help;
  for (const Shortcut& k : shortcuts_.all()) help.push_back({k.group, k.keys, k.what});
  ui::draw_help_overlay(help, "Wheel: zoom about the cursor. Drag: pan. Click: pin an element (click again to unpin). "
                              "Drop image files anywhere on the window.", &show_help_);
  if (auto png = experiments_->draw_export_dialog(host(s))) pending_png_ = png;
  if (state_.show_demo) ImGui::ShowDemoWindow(&state_.show_demo);
}

void App::draw_menu_bar() {
  if (!ImGui::BeginMenuBar()) return;
  if (ImGui::BeginMenu("File")) {
    if (ImGui::MenuItem("Open image..."))
      file_browser_.open(recent_.paths.empty() ? fs::path() : recent_.paths.front().parent_path());
    if (ImGui::BeginMenu("Open recent", !recent_.paths.empty())) {
      for (const auto& p : recent_.paths)
        if (ImGui::MenuItem(display_name(p).c_str())) enqueue_files({p});
      ImGui::EndMenu();
    }
    if (ImGui::MenuItem("Built-in sample")) {
      auto sample = load_image_memory(sample_image_png(), kSampleImageName, limits_);
      if (!sample) messages_.error(sample.status());
      else if (Status st = install_image(std::move(sample.value())); !st) messages_.error(st);
    }
    ImGui::Separator();
    experiments_->draw_export_menu(host(current()));
    editor_->draw_file_menu([this](const std::string& id) { return lab_context(id); }, state_.lab, messages_);
    ImGui::Separator();
    if (ImGui::MenuItem("Quit")) window_.request_close();
    ImGui::EndMenu();
  }
  draw_compute_menu();
  if (ImGui::BeginMenu("View")) {
    ImGui::MenuItem("Messages", "Ctrl+M", &show_messages_);
    ImGui::MenuItem("Controls panel", "Ctrl+[", &state_.layout.left_open);
    ImGui::MenuItem("Side tabs", "Ctrl+]", &state_.layout.side_open);
    if (ImGui::BeginMenu("Text size")) {
      for (float t : kTextScales) {
        const std::string label = std::to_string(static_cast<int>(t * 100 + 0.5f)) + "%";
        if (ImGui::MenuItem(label.c_str(), t == 1.0f ? "Ctrl+0" : nullptr, std::abs(state_.layout.text_scale - t) < 0.01f))
          set_text_scale(t);
      }
      ImGui::Separator();
      ImGui::TextDisabled("Ctrl+= larger, Ctrl+- smaller; remembered");
      ImGui::EndMenu();
    }
    if (ImGui::MenuItem("Fullscreen", "F11", window_.fullscreen())) window_.set_fullscreen(!window_.fullscreen());
    ImGui::MenuItem("Record the block schedule", nullptr, &state_.trace_schedule);
    ImGui::Separator();
    if (ImGui::MenuItem("Reset to defaults")) reset_to_defaults();
    ui::item_tooltip(("Every lab's kernel, configuration, view and options, the layout and the text size, as "
                      "on a first launch. Settings are kept in " +
                      (settings_file_.empty() ? std::string("no file this run") : settings_file_.string()) + ".")
                         .c_str());
    ImGui::MenuItem("ImGui demo (for developers)", nullptr, &state_.show_demo);
    ImGui::EndMenu();
  }
  draw_help_menu();
  // A hint where there is room for it.
  const char* hint = "   drop images on the window  |  wheel: zoom  |  drag: pan  |  click: pin  |  F1: shortcuts";
  const char* short_hint = "   F1: shortcuts";
  const float room = ImGui::GetContentRegionAvail().x;
  if (ImGui::CalcTextSize(hint).x <= room) ImGui::TextColored(ui::kDimColour, "%s", hint);
  else if (ImGui::CalcTextSize(short_hint).x <= room) ImGui::TextColored(ui::kDimColour, "%s", short_hint);
  ImGui::EndMenuBar();
}

void App::draw_left_panel(Slot& s) {
  // The lab tabs (wrapping, never clipped): the state picks the tab; a click changes the state.
  {
    std::vector<std::string> titles;
    int open_now = 0;
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      titles.push_back(slots_[i].entry->title);
      if (slots_[i].entry->id == state_.lab) open_now = static_cast<int>(i);
    }
    const int chosen = ui::wrapping_tabs("labs", titles, open_now);
    if (chosen != open_now) state_.lab = slots_[static_cast<std::size_t>(chosen)].entry->id;
  }
  // The fold button, at the right end of the lab's heading.
  const float heading_y = ImGui::GetCursorPosY();
  ImGui::SetCursorPos(ImVec2(ImGui::GetWindowContentRegionMax().x - ImGui::GetFrameHeight(), heading_y));
  if (ImGui::SmallButton("<##fold_left")) state_.layout.left_open = false;
  ui::item_tooltip("Fold the controls panel (Ctrl+[); drag the edge beside it to resize it");
  ImGui::SetCursorPosY(heading_y);
  if (!s.view) {
    ui::status_text(s.failure.ok() ? Status::failure("opening the lab...") : s.failure);
    return;
  }
  ViewContext ctx = context();
  ViewRequests requests;
  ImGui::PushTextWrapPos(0.0f);  // no line of the controls runs under the panel's edge
  ImGui::TextUnformatted((std::string(s.view->lab().title()) + " lab").c_str());
  ImGui::BeginDisabled(experiments_->forking());  // a sweep is copying this data
  s.view->draw_problem(ctx, requests);
  draw_settings(s);
  ImGui::EndDisabled();
  ImGui::Separator();
  const std::map<std::string, std::string> figures = kernel_figures(s);
  ui::PickerInput in{&s.view->lab().kernels(), &compute_.backend.limits, &s.last, &figures};
  if (ui::draw_kernel_picker(in, &s.kernel, &s.config, &s.picker)) {
    s.dirty = true;
    s.paused_slow = false;
  }
  if (ImGui::Button("Edit kernel")) edit_kernel();
  ui::item_tooltip("Open this kernel's CUDA source in the kernel editor (a built-in kernel opens as the lecture's "
                   "template of it), change it, and compile it into this lab (Ctrl+Enter or F5 in the editor).");
  ImGui::Spacing();
  const TimingEntry* entry = s.last.ok() ? timings_.find(key_of(s.last)) : nullptr;
  const lab::ProblemInfo problem = s.view->lab().problem();
  ui::ResultInput r{&s.last, &s.shown, entry, &problem, s.paused_slow && s.continuous, s.slow_ms};
  if (const lab::KernelInfo* k = s.view->lab().find_kernel(s.last.kernel)) r.uses_barriers = k->uses_barriers;
  ui::draw_result_card(r);
  if (ImGui::Checkbox("Run continuously", &s.continuous)) s.paused_slow = false;
  ui::item_tooltip("Relaunch every frame so the timings fill up. Off: relaunch only when something "
                   "changes. Every new configuration is verified at once, its repeats every second.");
  ImGui::SameLine();
  if (ImGui::Button("Run once")) s.dirty = true;
  ui::item_tooltip("Ctrl+R or F5");
  experiments_->draw_controls(host(s));
  ImGui::Separator();
  ImGui::TextUnformatted("VIEW");
  s.view->draw_view_options(ctx, requests);
  if (requests.relaunch) s.dirty = true;
  if (requests.open_image)
    file_browser_.open(recent_.paths.empty() ? fs::path() : recent_.paths.front().parent_path());
  ImGui::PopTextWrapPos();
}

// The lab's problem settings, one combo each; a change relaunches (and is remembered).
void App::draw_settings(Slot& s) {
  lab::Lab& lab = s.view->lab();
  for (const lab::Setting& set : lab.settings()) {
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.45f);
    if (ImGui::BeginCombo(set.label.c_str(), set.value.c_str())) {
      for (const std::string& c : set.choices) {
        if (ImGui::Selectable(c.c_str(), c == set.value) && c != set.value) {
          if (Status st = lab.set_setting(set.key, c); !st) {
            messages_.error(st);
          } else {
            state_.lab_settings[s.entry->id][set.key] = c;
            problem_changed(s);
          }
        }
      }
      ImGui::EndCombo();
    }
    ui::item_tooltip(set.help.c_str());
  }
}

// Beside each kernel in the list: the best median throughput its configurations reached on the
// problem shown (this session, this device) and its share of the lab's first ceiling.
std::map<std::string, std::string> App::kernel_figures(Slot& s) const {
  std::map<std::string, std::string> out;
  const lab::ProblemInfo p = s.view->lab().problem();
  const ThroughputUnit unit = p.throughput_unit;
  const lab::Ceiling* ceiling = nullptr;
  for (const lab::Ceiling& c : p.ceilings)
    if (!ceiling && c.value > 0 && c.unit == p.throughput_unit) ceiling = &c;
  std::map<std::string, double> best;
  for (const TimingEntry& e : timings_.entries()) {
    if (e.key.lab != s.entry->id || e.key.problem != s.shown.problem || e.last.check.failed()) continue;
    const double ms = e.history.kernel_summary().median;
    if (ms <= 0) continue;
    const double t = e.last.counted(unit) / (ms * 1e6);
    double& b = best[e.key.kernel];
    b = std::max(b, t);
  }
  for (const auto& [kernel, t] : best) {
    std::string text = t >= 1000 ? ui::sig(t / 1000, 3) + " " + unit_text_thousand(unit)
                                 : ui::sig(t, 3) + " " + unit_text(unit);
    if (ceiling) text += "  " + ui::sig(100 * t / ceiling->value, 3) + "%";
    out[kernel] = text;
  }
  return out;
}

void App::draw_centre(Slot& s) {
  data_visible_ = false;
  if (!s.view) return;
  // Data, Sweep and Compare tabs; a configuration clicked in a sweep or a pin is loaded.
  if (auto load = experiments_->draw_centre(host(s), [&] { draw_data_tab(s); })) {
    if (s.view->lab().find_kernel(load->kernel)) {
      s.kernel = load->kernel;
      s.config = load->config;
      s.dirty = true;
      s.paused_slow = false;
      messages_.info("Loaded " + load->kernel + " " + block_text(load->config.block) + " into the lab");
    }
  }
}

// The data with the overlay of the last launch, or, while this lab is being swept, of the point
// being measured (the window's own launches wait for the sweep).
void App::draw_data_tab(Slot& s) {
  ViewContext ctx = context();
  ViewRequests requests;
  data_visible_ = true;
  data_min_ = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  data_max_ = ImVec2(data_min_.x + avail.x, data_min_.y + avail.y);
  if (auto plan = experiments_->measuring_plan(s.view->lab())) {
    s.view->draw_data(*plan, true, ctx, requests);
    const std::string note = experiments_->measuring_text() + "  (the overlay shows the point being measured)";
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 ts = ImGui::CalcTextSize(note.c_str());
    const ImVec2 at(data_min_.x + 8, data_max_.y - ts.y - 8);
    dl->AddRectFilled({at.x - 4, at.y - 2}, {at.x + ts.x + 4, at.y + ts.y + 2}, IM_COL32(60, 50, 10, 230), 3);
    dl->AddText(at, IM_COL32(255, 220, 90, 255), note.c_str());
  } else {
    const bool selection_ran = s.last.ok() || s.last.kernel.empty();
    s.view->draw_data(s.shown, selection_ran, ctx, requests);
  }
  if (requests.relaunch) s.dirty = true;
}

void App::draw_side_panel(Slot& s) {
  if (ImGui::SmallButton(">##fold_side")) state_.layout.side_open = false;
  ui::item_tooltip("Fold the side tabs (Ctrl+]); drag the edge beside them to resize them");
  ImGui::SameLine();
  if (!s.view) return;
  // Tabs that wrap in a narrow panel instead of clipping their names; the state picks the tab
  // (the command line, the settings, a click).
  std::vector<std::string> names;
  int current_tab = 0;
  for (const PanelName& t : kPanelNames) {
    if (t.panel == state_.panel) current_tab = static_cast<int>(names.size());
    names.emplace_back(t.title);
  }
  const int chosen = ui::wrapping_tabs("side_tabs", names, current_tab);
  state_.panel = kPanelNames[chosen].panel;
  const lab::ProblemInfo problem = s.view->lab().problem();
  ui::SideInput in;
  in.shown = &s.shown;
  in.book = &timings_;
  in.entry = s.shown.ok() ? timings_.find(key_of(s.shown)) : nullptr;
  in.problem = &problem;
  in.kernels = &s.view->lab().kernels();
  in.limits = &compute_.backend.limits;
  in.backend = compute_.backend.kind;
  in.copy_note = compute_.backend.copy_note;
  if (!s.shown.ok() || s.shown.kernel.empty()) {
    ImGui::TextColored(ui::kDimColour, "No launch has run yet.");
    return;
  }
  ViewContext ctx = context();
  // Every line of the panels wraps at the panel's edge rather than running under it.
  ImGui::PushTextWrapPos(0.0f);
  switch (state_.panel) {
    case Panel::Timings: ui::draw_timings_panel(in); break;
    case Panel::Launch: ui::draw_launch_stats_panel(in); break;
    case Panel::Schedule: ui::draw_schedule_panel(in); break;
    case Panel::Memory: s.view->draw_memory(s.shown, ctx); break;
    case Panel::Measured: measured_.draw(s.view->lab(), s.shown, messages_); break;
    case Panel::Runs:
      if (auto chosen_run = ui::draw_runs_panel(in)) {
        s.kernel = chosen_run->first;
        s.config = chosen_run->second;
        s.dirty = true;
      }
      break;
  }
  ImGui::PopTextWrapPos();
}

// The status bar shows the current state: the backend, how results reach the screen, and what
// the open lab's selection did. The history of messages is in View > Messages.
void App::draw_status_bar(Slot& s) {
  ImGui::Separator();
  const float em = ImGui::GetFontSize();
  const float gap = em;
  // The Messages button is always there, at the right end.
  const std::size_t unread = messages_.all().size() - std::min(messages_seen_, messages_.all().size());
  const std::string label = "Messages" + (unread ? " (" + std::to_string(unread) + " new)" : std::string()) + "##msgs";
  const float msgs_w = ImGui::CalcTextSize(label.c_str(), nullptr, true).x + ImGui::GetStyle().FramePadding.x * 2;
  const float right = ImGui::GetWindowContentRegionMax().x - msgs_w - gap;
  auto room = [&] { return right - ImGui::GetCursorPosX(); };

  // 1. The backend, short.
  const bool gpu = compute_.backend.kind == BackendKind::Cuda;
  const std::string backend = (gpu ? "GPU: " : "") + compute_.backend.label;
  ui::text_clipped(backend.c_str(), std::max(em * 4, std::min(room() * 0.3f, ImGui::CalcTextSize(backend.c_str()).x)),
                   gpu ? ui::kOkColour : ui::kWarnColour);
  if (!compute_.why_cpu.empty()) ui::item_tooltip(("Why the CPU: " + compute_.why_cpu).c_str());
  else ui::item_tooltip(compute_.backend.versions.c_str());

  // 2. What the open lab's selection did (the current state, never an old message).
  std::string state;
  ImVec4 colour = ui::kDimColour;
  std::string tip;
  const LaunchRecord& last = s.last;
  if (!s.view) {
    state = s.failure.message;
    colour = ui::kErrorColour;
  } else if (s.in_flight && async_.running_ms() > 150) {
    state = "simulating " + async_.running_kernel() + "... " + ui::sig(async_.running_ms() / 1000.0, 2) + " s";
    colour = ui::kWarnColour;
    tip = "The CPU simulation runs this launch on a worker thread; the window stays live. Changing the "
          "selection cancels it.";
  } else if (last.kernel.empty()) {
    state = s.view->lab().problem().ready ? "ready" : "no data yet";
  } else if (!last.ok()) {
    state = last.kernel + (last.refused ? " refused: " : " failed: ") + last.status.message;
    colour = last.refused ? ui::kWarnColour : ui::kErrorColour;
    tip = last.status.message + (last.status.hint.empty() ? "" : "\n\n" + last.status.hint);
  } else {
    state = last.kernel + ", " + last.config_label + ": " + ui::ms_text(last.timing.median_ms) + ", " +
            (last.check.passed() ? "correct" : last.check.failed() ? "WRONG" : "not checked");
    if (last.check.failed()) colour = ui::kErrorColour;
  }
  // 3. Facts worth a glance, where there is room after the state: frames per second, how
  // results reach the screen, the GL renderer. They go before the state is cut.
  const std::string fps = ui::sig(frame_ms_ > 0 ? 1000.0 / frame_ms_ : 0.0, 2) + " fps";
  const std::string mode = interop_mode();
  const std::string gl = "GL: " + window_.gl_renderer();
  ImGui::SameLine(0, gap);
  const float state_w = ImGui::CalcTextSize(state.c_str()).x;
  float extras = 0;
  const std::string* shown_extras[3] = {&fps, &mode, &gl};
  int n_extras = 0;
  for (const std::string* e : shown_extras) {
    const float w = ImGui::CalcTextSize(e->c_str()).x + gap;
    if (state_w + extras + w > room()) break;
    extras += w;
    ++n_extras;
  }
  ui::text_clipped(state.c_str(), std::max(em * 3, room() - extras), colour);
  if (!tip.empty()) ui::item_tooltip(tip.c_str());
  for (int i = 0; i < n_extras; ++i) {
    ImGui::SameLine(0, gap);
    const bool good = i == 1 && mode.find("zero-copy") != std::string::npos;
    ImGui::TextColored(good ? ui::kOkColour : ui::kDimColour, "%s", shown_extras[i]->c_str());
    if (i == 2) ui::item_tooltip((window_.gl_version() + "\n" + window_.platform_description()).c_str());
  }
  ImGui::SameLine(std::max(ImGui::GetCursorPosX() + gap * 0.5f, ImGui::GetWindowContentRegionMax().x - msgs_w));
  if (ImGui::SmallButton(label.c_str())) show_messages_ = !show_messages_;
  if (const Message* m = messages_.latest()) ui::item_tooltip(("latest: " + m->text + " (Ctrl+M: all messages)").c_str());
}

void App::draw_loading_modal() {
  if (!loader_.busy()) return;
  const AsyncLoadProgress p = loader_.progress();
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x * 0.5f, vp->WorkPos.y + vp->WorkSize.y * 0.5f),
                          ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowSize(ImVec2(ImGui::GetFontSize() * 26, 0));
  if (ImGui::Begin("Loading", nullptr, ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoSavedSettings)) {
    ImGui::Text("File %zu of %zu: %s", std::min(p.files_done + 1, p.files_total), p.files_total, p.current_file.c_str());
    ImGui::ProgressBar(p.fraction());
    if (ImGui::Button("Cancel")) loader_.cancel_all();
    ImGui::SameLine();
    ImGui::TextColored(ui::kDimColour, "the current image stays until a new one has loaded");
  }
  ImGui::End();
}

std::string App::interop_mode() const {
  for (const Slot& s : slots_)
    if (s.entry->id == state_.lab && s.view) return s.view->interop_mode();
  return "no lab open";
}

// ---------------------------------------------------------------------------------------------
// 6. outputs for headless runs
// ---------------------------------------------------------------------------------------------

Status App::write_screenshot(const fs::path& path) {
  window_.bind_default_framebuffer();
  const auto [w, h] = window_.framebuffer_size();
  std::vector<std::uint8_t> pixels = window_.read_pixels_rgba();
  return write_png(path, w, h, 4, pixels.data());
}

Status App::write_output(const fs::path& path) {
  Slot& s = current();
  if (!s.view) return s.failure.ok() ? Status::failure("the lab is not open", "", "--output") : s.failure;
  if (!s.last.ok())
    return Status::failure("the last launch did not run, so there is no output to write: " + s.last.status.message,
                           s.last.status.hint, "--output");
  return s.view->write_output_png(path);
}

Status App::write_schedule_json(const fs::path& path) {
  const LaunchRecord& r = current().shown;
  if (r.schedule.empty())
    return Status::failure("no schedule was recorded for the last launch", "", "--schedule-json");
  return lab::write_text_file(path.string(), mapping::schedule_to_json(r.schedule, r.schedule_simulated, r.config,
                                                                        r.kernel, compute_.backend.label));
}

std::string App::summary() const {
  const LaunchRecord& r = last_launch();
  if (r.kernel.empty()) return "launch: none";
  char buf[512];
  if (!r.ok()) {
    std::snprintf(buf, sizeof buf, "launch: %s %s %s: %s", r.kernel.c_str(), r.config_label.c_str(),
                  r.refused ? "refused" : "failed", r.status.describe().c_str());
    return buf;
  }
  ThroughputUnit unit = ThroughputUnit::GBPerS;
  std::string shares;
  for (const Slot& s : slots_) {
    if (s.entry->id != state_.lab || !s.view) continue;
    const lab::ProblemInfo p = s.view->lab().problem();
    unit = p.throughput_unit;
    for (const lab::Ceiling& c : p.ceilings) {
      if (c.value <= 0 || c.unit != p.throughput_unit || r.check.failed()) continue;
      char share[160];
      std::snprintf(share, sizeof share, "%s%.1f%% of %s", shares.empty() ? ", " : ", ",
                    100.0 * r.throughput(unit) / c.value, c.name.c_str());
      shares += share;
    }
  }
  std::snprintf(buf, sizeof buf,
                "launch: %s [%s] on %s grid (%u, %u, %u) block (%u, %u, %u) %.4f ms (%s) %.4g %s",
                r.kernel.c_str(), r.config_label.c_str(), r.problem.c_str(), r.config.grid.x, r.config.grid.y,
                r.config.grid.z, r.config.block.x, r.config.block.y, r.config.block.z, r.timing.median_ms,
                r.timing.clock.c_str(), r.throughput(unit), unit_text(unit));
  return buf + shares + "\ncheck: " + r.check.summary();
}

// ---------------------------------------------------------------------------------------------
// 7. the status file
// ---------------------------------------------------------------------------------------------

// What the window shows, for scripts and tests (shell/status_report.hpp); written only when it
// changed. The output digest reads the result back from GL, as --output does: what the kernel
// really delivered to the screen.
void App::write_status_file() {
  StatusReport r;
  r.frame = frame_index_;
  r.lab = state_.lab;
  r.loading = loader_.busy();
  Slot& s = current();
  if (s.view) {
    const lab::ProblemInfo p = s.view->lab().problem();
    if (p.ready) r.data = StatusReport::Data{p.name, static_cast<int>(p.width), static_cast<int>(p.height)};
  }
  if (!s.last.kernel.empty()) {
    r.launch = StatusReport::Launch{s.last.kernel, s.last.config.grid, s.last.config.block, s.last.ok(),
                                    s.last.status.message};
    if (s.view && s.last.ok()) {
      int w = 0, h = 0;
      const std::vector<std::uint8_t> out = s.view->read_output(&w, &h);
      if (!out.empty()) r.output = StatusReport::Output{fnv1a64(out.data(), out.size()), w, h};
    }
  }
  if (const Message* m = messages_.latest()) r.status_message = m->text;
  r.errors = messages_.errors();
  const auto& all = messages_.all();
  const std::size_t first = all.size() > StatusReport::kLastMessages ? all.size() - StatusReport::kLastMessages : 0;
  for (std::size_t i = first; i < all.size(); ++i)
    r.messages.push_back({all[i].level == Message::Error ? "error" : all[i].level == Message::Warning ? "warning" : "info",
                          all[i].text});
  {
    StatusReport::Ui ui;
    ui.help = show_help_;
    ui.file_browser = file_browser_.is_open();
    ui.messages_window = show_messages_;
    ui.fullscreen = window_.fullscreen();
    ui.text_scale = state_.layout.text_scale;
    ui.left_open = state_.layout.left_open;
    ui.side_open = state_.layout.side_open;
    ui.panel = panel_word(state_.panel);
    ui.launch_in_flight = s.in_flight;
    ui.popup_open = !ImGui::GetCurrentContext()->OpenPopupStack.empty();
    r.ui = ui;
  }
  if (Status st = status_writer_->update(r); !st && !status_write_failed_) {
    status_write_failed_ = true;
    messages_.error(st);
  } else if (st) {
    status_write_failed_ = false;
  }
}

// ---------------------------------------------------------------------------------------------
// 8. experiments
// ---------------------------------------------------------------------------------------------

ExperimentsHost App::host(Slot& s) {
  ExperimentsHost h;
  h.lab_id = s.entry->id;
  if (!s.view) return h;
  h.lab = &s.view->lab();
  h.kernel = s.kernel;
  h.config = s.config;
  h.shown = &s.shown;
  LabView* view = s.view.get();
  h.draw_record = [this, view](const LaunchRecord& r, int slot, ImVec2 size, std::optional<PixelPos> inspect) {
    ViewContext ctx = context();
    return view->draw_record(r, slot, size, inspect, ctx);
  };
  h.inspected = s.view->inspected();
  return h;
}

Status App::start_sweep() {
  Slot& s = current();
  if (Status st = ensure_view(s); !st) return st;
  return experiments_->start_sweep(s.view->lab(), s.kernel);
}

void App::cancel_sweep() {
  sweep_on_start_ = false;
  experiments_->cancel_sweep();
}

bool App::sweeping() const { return sweep_on_start_ || experiments_->sweeping(); }

const lab::SweepResult* App::sweep_result() const { return experiments_->result(state_.lab); }

Status App::export_to(ExportWhat what, const fs::path& path) {
  if (export_needs_frame(what)) return write_png_export(what, path);
  return experiments_->export_text(what, path.string(), host(current()));
}

Status App::write_png_export(ExportWhat what, const fs::path& path) {
  window_.bind_default_framebuffer();
  const auto [w, h] = window_.framebuffer_size();
  const std::vector<std::uint8_t> pixels = window_.read_pixels_rgba();
  if (what == ExportWhat::WindowPng) return write_png(path, w, h, 4, pixels.data());
  ImVec2 a = data_min_, b = data_max_;
  if (what == ExportWhat::HeatmapPng) {
    if (!experiments_->chart_visible())
      return Status::failure("the sweep's chart is not on screen", "show the Sweep tab, then export", "export");
    std::tie(a, b) = experiments_->chart_rect();
  } else if (!data_visible_) {
    return Status::failure("the data view is not on screen", "show the Data tab, then export", "export");
  }
  const ImVec2 scale = ImGui::GetIO().DisplayFramebufferScale;
  return write_region_png(pixels, w, h, static_cast<int>(a.x * scale.x), static_cast<int>(a.y * scale.y),
                          static_cast<int>(b.x * scale.x), static_cast<int>(b.y * scale.y), path.string());
}

}  // namespace bs::app
