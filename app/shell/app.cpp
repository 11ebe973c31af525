#include "shell/app.hpp"

#include <epoxy/gl.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "device/cuda_device.hpp"
#include "lab/report.hpp"
#include "mapping/schedule.hpp"
#include "platform/png.hpp"
#include "shell/sample_image.hpp"
#include "ui/theme.hpp"
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
      loader_(LoadLimits{}, 1) {
  if (!options_.status_file_path.empty()) status_writer_.emplace(options_.status_file_path);
  slots_.resize(catalog_.size());
  for (std::size_t i = 0; i < catalog_.size(); ++i) slots_[i].entry = &catalog_[i];
}

Result<std::unique_ptr<App>> App::create(Window& window, CliOptions options, ComputeSession compute,
                                         LabCatalog catalog) {
  if (catalog.empty()) return Status::failure("no labs to open", "", "App::create");
  std::unique_ptr<App> app(new App(window, std::move(options), std::move(compute), std::move(catalog)));
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
        s) {
      const std::string lab = app->editor_->active_lab();
      if (!lab.empty() && lab != app->state_.lab)
        if (Status o = app->open_lab(lab); !o) app->messages_.error(o);
    }
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
  if (windowed) {
    // Per-user layout, never in the working directory.
    std::error_code ec;
    fs::create_directories(config_dir(), ec);
    imgui_ini_path_ = (config_dir() / "imgui.ini").string();
    io.IniFilename = imgui_ini_path_.c_str();
    recent_path_ = default_recent_files_path();
    recent_ = load_recent_files(recent_path_);
  } else {
    io.IniFilename = nullptr;  // headless runs are reproducible: no saved layout
  }
  // Recent kernel files persist beside recent images in window mode; headless runs keep none.
  editor_ = std::make_unique<editor::KernelEditor>(windowed ? editor::default_recent_kernels_path() : fs::path());
  ui_scale_ = std::clamp(window_.content_scale(), 1.0f, 3.0f);
  ui::apply_theme(ui_scale_);
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
  if (!recent_path_.empty()) save_recent_files(recent_, recent_path_);
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
  LabViewSetup setup;
  if (s.entry->id == state_.lab && state_.view_given) setup.view = state_.view;
  for (const LabOption& o : s.entry->options)
    if (auto it = state_.lab_options.find(o.flag); it != state_.lab_options.end()) setup.options[o.flag] = it->second;
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
  if (s.entry->id == state_.lab) apply_selection_request(s, state_.selection);
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
  for (Slot& s : slots_) {
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
  if (!ImGui::BeginMenu("Compute")) return;
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

void App::compile_kernel() { editor_->compile(); }

// A .cu dropped or opened: the editor opens it on its lab, which the window then shows.
void App::open_kernel_file(const fs::path& path) {
  if (!editor_->open_file(path, state_.lab, messages_)) return;
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
  timings_.forget_lab(target->entry->id);
  target->dirty = true;
  return Status::success();
}

Status App::install_image_for_test(Rgba8Image image) { return install_image(std::move(image)); }

// ---------------------------------------------------------------------------------------------
// 4. launching
// ---------------------------------------------------------------------------------------------

void App::relaunch(Slot& s) {
  const bool changed = s.dirty;
  s.dirty = false;
  const std::string problem = s.view->lab().problem().summary;
  const std::string key = check_key(s.kernel, s.config, problem);
  lab::RunOptions options;
  options.timing = TimingPolicy::once();
  options.trace_schedule = changed && state_.trace_schedule;
  // Every new configuration is verified at once; its repeats every second.
  const double since = std::chrono::duration<double>(Clock::now() - s.verified_at).count();
  options.verify = changed || key != s.check_for || since >= kVerifyPeriodS;
  ViewContext ctx = context();
  const auto t0 = Clock::now();
  LaunchRecord rec = s.view->launch(s.kernel, s.config, options, ctx);
  glFinish();  // the pipeline time includes getting the result on screen, not just its submission
  const double pipeline_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();

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
  if (options.verify) {
    s.check = rec.check;
    s.check_for = key;
    s.verified_at = Clock::now();
    if (rec.check.failed() && changed) messages_.warn(rec.kernel + " gave a WRONG result", rec.check.summary());
  } else {
    rec.check = s.check;  // the verdict of this configuration's last check, on the same data
  }
  timings_.add(rec, pipeline_ms);
  // A slow simulated launch relaunched every frame would freeze the window: continuous runs
  // pause and say why.
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
  take_loaded_images();
  apply_editor_requests(editor_->update([this](const std::string& id) { return lab_context(id); }, messages_));

  Slot& s = current();
  if (ensure_view(s).ok()) {
    ViewContext ctx = context();
    if (s.view->update(ctx)) {
      timings_.forget_lab(s.entry->id);
      s.dirty = true;
      s.paused_slow = false;
      s.check_for.clear();
    }
    const lab::ProblemInfo problem = s.view->lab().problem();
    const bool continuous = s.continuous && !s.paused_slow && s.last.ok();
    if (problem.ready && (s.dirty || continuous)) {
      relaunch(s);
    } else if (!problem.ready && s.dirty) {
      // Nothing to run on: the selection's record says why (the problem's own reason).
      s.last = s.view->lab().plan(s.kernel, s.config);
      if (s.last.ok()) s.last.status = problem.status;
      s.last.refused = true;
      s.dirty = false;
    }
  }

  ImGuiIO& io = ImGui::GetIO();
  const auto [fb_w, fb_h] = window_.framebuffer_size();
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

  ImGui::NewFrame();
  draw_ui();
  ImGui::Render();

  window_.bind_default_framebuffer();
  glViewport(0, 0, fb_w, fb_h);
  glClearColor(0.08f, 0.09f, 0.11f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  ++frame_index_;
  if (status_writer_) write_status_file();
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

  const float em = ImGui::GetFontSize();
  const float status_h = ImGui::GetFrameHeightWithSpacing() + 4;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float body_h = avail.y - status_h;
  const float left_w = std::min(em * 21.0f, avail.x * 0.3f);
  const float right_w = std::min(em * 31.0f, avail.x * 0.36f);
  const float view_w = std::max(em * 10, avail.x - left_w - right_w - 2 * ImGui::GetStyle().ItemSpacing.x);

  ImGui::BeginChild("controls", ImVec2(left_w, body_h), true);
  draw_left_panel(s);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("view", ImVec2(view_w, body_h), true, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  draw_centre(s);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("side", ImVec2(0, body_h), true);
  draw_side_panel(s);
  ImGui::EndChild();
  draw_status_bar(s);
  ImGui::End();

  editor::EditorRequests editor_requests;
  editor_->draw([this](const std::string& id) { return lab_context(id); }, state_.lab, messages_, editor_requests);
  apply_editor_requests(editor_requests);
  if (auto chosen = file_browser_.draw()) enqueue_files({*chosen});
  ui::draw_messages_window(messages_, &show_messages_);
  if (show_messages_) messages_seen_ = messages_.all().size();
  draw_loading_modal();
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
    editor_->draw_file_menu([this](const std::string& id) { return lab_context(id); }, state_.lab, messages_);
    ImGui::Separator();
    if (ImGui::MenuItem("Quit")) window_.request_close();
    ImGui::EndMenu();
  }
  draw_compute_menu();
  if (ImGui::BeginMenu("View")) {
    ImGui::MenuItem("Messages", nullptr, &show_messages_);
    ImGui::MenuItem("Record the block schedule", nullptr, &state_.trace_schedule);
    ImGui::MenuItem("ImGui demo (for developers)", nullptr, &state_.show_demo);
    ImGui::EndMenu();
  }
  ImGui::TextColored(ui::kDimColour, "   drop images on the window  |  wheel: zoom  |  drag: pan  |  click: pin");
  ImGui::EndMenuBar();
}

void App::draw_left_panel(Slot& s) {
  // The lab tabs: the state picks the tab (the command line, a click last frame); a click
  // changes the state.
  if (ImGui::BeginTabBar("labs")) {
    for (const Slot& t : slots_) {
      const bool open_now = t.entry->id == state_.lab;
      const bool open = ImGui::BeginTabItem(t.entry->title.c_str(), nullptr, open_now ? ImGuiTabItemFlags_SetSelected : 0);
      if (ImGui::IsItemClicked() && !open_now) state_.lab = t.entry->id;
      if (open) ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }
  if (!s.view) {
    ui::status_text(s.failure.ok() ? Status::failure("opening the lab...") : s.failure);
    return;
  }
  ViewContext ctx = context();
  ViewRequests requests;
  ImGui::TextUnformatted((std::string(s.view->lab().title()) + " lab").c_str());
  s.view->draw_problem(ctx, requests);
  draw_settings(s);
  ImGui::Separator();
  ui::PickerInput in{&s.view->lab().kernels(), &compute_.backend.limits, &s.last};
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
  ui::draw_result_card(r);
  if (ImGui::Checkbox("Run continuously", &s.continuous)) s.paused_slow = false;
  ui::item_tooltip("Relaunch every frame so the timings fill up. Off: relaunch only when something "
                   "changes. Every new configuration is verified at once, its repeats every second.");
  ImGui::SameLine();
  if (ImGui::Button("Run once")) s.dirty = true;
  ImGui::Separator();
  ImGui::TextUnformatted("VIEW");
  s.view->draw_view_options(ctx, requests);
  if (requests.relaunch) s.dirty = true;
  if (requests.open_image)
    file_browser_.open(recent_.paths.empty() ? fs::path() : recent_.paths.front().parent_path());
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
            s.dirty = true;
          }
        }
      }
      ImGui::EndCombo();
    }
    ui::item_tooltip(set.help.c_str());
  }
}

void App::draw_centre(Slot& s) {
  if (!s.view) return;
  ViewContext ctx = context();
  ViewRequests requests;
  const bool selection_ran = s.last.ok() || s.last.kernel.empty();
  s.view->draw_data(s.shown, selection_ran, ctx, requests);
  if (requests.relaunch) s.dirty = true;
}

void App::draw_side_panel(Slot& s) {
  if (!s.view) return;
  if (!ImGui::BeginTabBar("side_tabs")) return;
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
  struct Tab {
    const char* name;
    Panel panel;
  };
  const Tab tabs[] = {{"Timings", Panel::Timings}, {"Launch", Panel::Launch}, {"Schedule", Panel::Schedule},
                      {"Memory", Panel::Memory},   {"Runs", Panel::Runs}};
  for (const Tab& t : tabs) {
    // The command line picks the first tab; after that, the user's clicks decide.
    const bool select = ImGui::GetFrameCount() <= 2 && state_.panel == t.panel;
    if (!ImGui::BeginTabItem(t.name, nullptr, select ? ImGuiTabItemFlags_SetSelected : 0)) continue;
    if (ImGui::GetFrameCount() > 2) state_.panel = t.panel;
    if (!s.shown.ok() || s.shown.kernel.empty()) {
      ImGui::TextColored(ui::kDimColour, "No launch has run yet.");
    } else {
      ViewContext ctx = context();
      switch (t.panel) {
        case Panel::Timings: ui::draw_timings_panel(in); break;
        case Panel::Launch: ui::draw_launch_stats_panel(in); break;
        case Panel::Schedule: ui::draw_schedule_panel(in); break;
        case Panel::Memory: s.view->draw_memory(s.shown, ctx); break;
        case Panel::Runs:
          if (auto chosen = ui::draw_runs_panel(in)) {
            s.kernel = chosen->first;
            s.config = chosen->second;
            s.dirty = true;
          }
          break;
      }
    }
    ImGui::EndTabItem();
  }
  ImGui::EndTabBar();
}

// The status bar shows the current state: the backend, how results reach the screen, and what
// the open lab's selection did. The history of messages is in View > Messages.
void App::draw_status_bar(Slot& s) {
  ImGui::Separator();
  const float em = ImGui::GetFontSize();
  const bool gpu = compute_.backend.kind == BackendKind::Cuda;
  ImGui::TextColored(gpu ? ui::kOkColour : ui::kWarnColour, "%s%s", gpu ? "GPU: " : "", compute_.backend.label.c_str());
  if (!compute_.why_cpu.empty()) ui::item_tooltip(("Why the CPU: " + compute_.why_cpu).c_str());
  else ui::item_tooltip(compute_.backend.versions.c_str());
  ImGui::SameLine(0, em);
  ImGui::TextColored(ui::kDimColour, "GL: %s", window_.gl_renderer().c_str());
  ui::item_tooltip((window_.gl_version() + "\n" + window_.platform_description()).c_str());
  ImGui::SameLine(0, em);
  const std::string mode = interop_mode();
  ImGui::TextColored(mode.find("zero-copy") != std::string::npos ? ui::kOkColour : ui::kDimColour, "%s", mode.c_str());
  ImGui::SameLine(0, em);
  ImGui::TextColored(ui::kDimColour, "%.0f fps", frame_ms_ > 0 ? 1000.0 / frame_ms_ : 0.0);
  ImGui::SameLine(0, em);
  const LaunchRecord& last = s.last;
  if (!s.view) {
    ImGui::TextColored(ui::kErrorColour, "%s", s.failure.message.c_str());
  } else if (last.kernel.empty()) {
    ImGui::TextColored(ui::kDimColour, "%s", s.view->lab().problem().ready ? "ready" : "no data yet");
  } else if (!last.ok()) {
    ImGui::TextColored(last.refused ? ui::kWarnColour : ui::kErrorColour, "%s %s: %s", last.kernel.c_str(),
                       last.refused ? "refused" : "failed", last.status.message.c_str());
    ui::item_tooltip(last.status.describe().c_str());
  } else {
    ImGui::TextColored(last.check.failed() ? ui::kErrorColour : ui::kDimColour, "%s, %s: %s, %s", last.kernel.c_str(),
                       last.config_label.c_str(), ui::ms_text(last.timing.median_ms).c_str(),
                       last.check.passed() ? "correct" : last.check.failed() ? "WRONG" : "not checked");
  }
  const std::size_t unread = messages_.all().size() - std::min(messages_seen_, messages_.all().size());
  const std::string label = "Messages" + (unread ? " (" + std::to_string(unread) + " new)" : std::string()) + "##msgs";
  const float w = ImGui::CalcTextSize(label.c_str(), nullptr, true).x + ImGui::GetStyle().FramePadding.x * 2;
  ImGui::SameLine(std::max(ImGui::GetCursorPosX() + em, ImGui::GetWindowContentRegionMax().x - w));
  if (ImGui::SmallButton(label.c_str())) show_messages_ = !show_messages_;
  if (const Message* m = messages_.latest()) ui::item_tooltip(("latest: " + m->text).c_str());
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
  bool flops = false;
  std::string shares;
  for (const Slot& s : slots_) {
    if (s.entry->id != state_.lab || !s.view) continue;
    const lab::ProblemInfo p = s.view->lab().problem();
    flops = p.throughput_unit == "GFLOP/s";
    for (const lab::Ceiling& c : p.ceilings) {
      if (c.value <= 0 || c.unit != p.throughput_unit || r.check.failed()) continue;
      char share[160];
      std::snprintf(share, sizeof share, "%s%.1f%% of %s", shares.empty() ? ", " : ", ",
                    100.0 * (flops ? r.gflops() : r.gbytes_per_s()) / c.value, c.name.c_str());
      shares += share;
    }
  }
  std::snprintf(buf, sizeof buf,
                "launch: %s [%s] on %s grid (%u, %u, %u) block (%u, %u, %u) %.4f ms (%s) %.1f %s",
                r.kernel.c_str(), r.config_label.c_str(), r.problem.c_str(), r.config.grid.x, r.config.grid.y,
                r.config.grid.z, r.config.block.x, r.config.block.y, r.config.block.z, r.timing.median_ms,
                r.timing.clock.c_str(), flops ? r.gflops() : r.gbytes_per_s(), flops ? "GFLOP/s" : "GB/s");
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
  if (Status st = status_writer_->update(r); !st && !status_write_failed_) {
    status_write_failed_ = true;
    messages_.error(st);
  } else if (st) {
    status_write_failed_ = false;
  }
}

}  // namespace bs::app
