// The App: the rooms made and wired (see app.hpp), the GL/ImGui lifecycle, and the frame loop.
//
// Section index:
//   1. creation and shutdown (the rooms, ImGui's context and backends, the first lab and images)
//   2. the frame: input, the rooms' per-frame work in order, drawing, what follows a frame
//   3. the public actions that touch several rooms (reset, sweeps, exports)
#include "shell/app.hpp"

#include <epoxy/gl.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>  // key codes

#include <algorithm>
#include <chrono>
#include <ctime>

#include "device/nvtx_range.hpp"
#include "editor/kernel_files.hpp"
#include "labs/custom/source_import.hpp"
#include "labs/custom/user_kernels.hpp"

namespace bs::app {
namespace fs = std::filesystem;
namespace {

// ImGui's key map for GLFW key codes, as its GLFW backend sets it: headless Apps get the same
// codes from their windows (tests).
void map_glfw_keys(ImGuiIO& io) {
  io.KeyMap[ImGuiKey_Tab] = GLFW_KEY_TAB;
  io.KeyMap[ImGuiKey_LeftArrow] = GLFW_KEY_LEFT;
  io.KeyMap[ImGuiKey_RightArrow] = GLFW_KEY_RIGHT;
  io.KeyMap[ImGuiKey_UpArrow] = GLFW_KEY_UP;
  io.KeyMap[ImGuiKey_DownArrow] = GLFW_KEY_DOWN;
  io.KeyMap[ImGuiKey_PageUp] = GLFW_KEY_PAGE_UP;
  io.KeyMap[ImGuiKey_PageDown] = GLFW_KEY_PAGE_DOWN;
  io.KeyMap[ImGuiKey_Home] = GLFW_KEY_HOME;
  io.KeyMap[ImGuiKey_End] = GLFW_KEY_END;
  io.KeyMap[ImGuiKey_Insert] = GLFW_KEY_INSERT;
  io.KeyMap[ImGuiKey_Delete] = GLFW_KEY_DELETE;
  io.KeyMap[ImGuiKey_Backspace] = GLFW_KEY_BACKSPACE;
  io.KeyMap[ImGuiKey_Space] = GLFW_KEY_SPACE;
  io.KeyMap[ImGuiKey_Enter] = GLFW_KEY_ENTER;
  io.KeyMap[ImGuiKey_Escape] = GLFW_KEY_ESCAPE;
  io.KeyMap[ImGuiKey_KeyPadEnter] = GLFW_KEY_KP_ENTER;
  io.KeyMap[ImGuiKey_A] = GLFW_KEY_A;
  io.KeyMap[ImGuiKey_C] = GLFW_KEY_C;
  io.KeyMap[ImGuiKey_V] = GLFW_KEY_V;
  io.KeyMap[ImGuiKey_X] = GLFW_KEY_X;
  io.KeyMap[ImGuiKey_Y] = GLFW_KEY_Y;
  io.KeyMap[ImGuiKey_Z] = GLFW_KEY_Z;
}

// The CPU time this process has used, every thread included, in seconds.
double process_cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// 1. creation and shutdown
// ---------------------------------------------------------------------------------------------

App::App(Window& window, CliOptions options, ComputeSession compute, LabCatalog catalog)
    : window_(window),
      options_(std::move(options)),
      state_(options_.state),
      launches_(LaunchScheduler::Options{
          // In the window the CPU simulation launches on a worker thread; headless runs launch on
          // the frame loop, so each frame shows its own launch.
          .async_on_cpu = window.glfw_handle() != nullptr,
          // The pipeline time includes getting the result on screen, not just its submission.
          .finish = [] { glFinish(); },
          .now = {},
          .on_fault = [this](const Status& fault) { host_.handle_device_fault(fault); },
          // A launch the worker finished: the window, asleep in the event loop, draws it at once.
          .wake = [this] { window_.wake(); },
          // In the window continuous runs are paced and pause while nobody looks; headless runs
          // (--frames, the benchmarks) relaunch every frame.
          .paced = window.glfw_handle() != nullptr}),
      host_(state_, messages_, std::move(compute), std::move(catalog), launches_, window.glfw_handle() == nullptr),
      intake_(host_, messages_),
      editor_(host_, launches_, messages_, window.glfw_handle() != nullptr),
      measured_(options_.cupti_library, options_.profile),
      experiments_(std::make_unique<Experiments>(state_.sweep, messages_, options_.cupti_library)),
      settings_(state_, messages_),
      ui_(ShellRooms{window_, state_, messages_, host_, launches_, intake_, editor_, *experiments_, measured_,
                     settings_},
          ShellActions{[this] { reset_to_defaults(); }, [this] { return start_sweep(); }, [this] { cancel_sweep(); },
                       [this] { return sweeping(); }}),
      sweep_on_start_(options_.sweep) {
  if (!options_.status_file_path.empty()) status_writer_.emplace(options_.status_file_path);
  if (options_.source_tab) state_.centre = Panel::Source;
  if (options_.source_line > 0) ui_.source_tab().select_line(options_.source_line);
}

Result<std::unique_ptr<App>> App::create(Window& window, CliOptions options, ComputeSession compute, LabCatalog catalog,
                                         sampling::SamplerHandle sampling) {
  if (catalog.empty()) return Status::failure("no labs to open", "", "App::create");
  std::unique_ptr<App> app(new App(window, std::move(options), std::move(compute), std::move(catalog)));
  // With a notebook or .py file, --kernel NAME picks one of its kernels for the editor, which
  // selects it once it ran; the lab, opened before that, is asked for no kernel.
  const bool imported = custom::is_python_source_file(app->options_.kernel_file);
  const std::string pick = imported ? app->state_.selection.kernel : std::string();
  if (imported) app->state_.selection.kernel.clear();
  app->ui_.source_tab().set_sampler(std::move(sampling), app->options_.profile_lines);
  if (app->options_.profile_lines && !app->options_.kernel_file.empty()) app->ui_.source_tab().wait_for_user_kernel();
  if (app->options_.profile && !app->options_.kernel_file.empty()) app->measured_.wait_for_user_kernel();
  if (app->options_.compare_block) app->compare_script_ = CompareScript::WaitA;
  // Under the command line: flags win (state/user_settings.hpp).
  app->settings_.load(app->options_.config_dir, window.glfw_handle() != nullptr, app->host_.lab_ids());
  if (Status s = app->init_gl_and_imgui(); !s) return s;
  if (!app->host_.slot(app->state_.lab))
    return Status::failure("there is no lab '" + app->state_.lab + "'", "", "--lab");
  // Images named on the command line load before the first frame, so headless runs and
  // screenshots show them; later drops go through the background loader.
  if (Status s = app->intake_.load_at_start(app->options_.images); !s) return s;
  if (Status s = app->host_.open_lab(app->state_.lab); !s) app->messages_.error(s);
  // --kernel names a kernel the lab does not have: a bad command line, as for bench and sweep
  // (not a warning and another kernel).
  // A user kernel (custom:NAME) joins the lab once --kernel-file compiled, after this.
  const bool user_kernel =
      custom::is_user_kernel_id(app->state_.selection.kernel) && !app->options_.kernel_file.empty();
  if (Status s = app->host_.check_selection_request(); !s && !user_kernel) return s;
  // --kernel-file: opened in the editor on the lab its kernel belongs to, compiled and run off
  // the UI thread; the frames that follow show it once it ran (headless runs wait for it).
  app->editor_.open_at_start(app->options_.kernel_file, app->options_.kernel_time_limit_s, app->state_.selection.block,
                             pick);
  if (app->options_.source_tab) app->editor_.close_window();
  app->editor_.restore_unsaved(app->settings_.folder());
  return app;
}

Status App::init_gl_and_imgui() {
  GLint max_texture = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_texture);
  intake_.limit_side(max_texture, "GL_MAX_TEXTURE_SIZE of this OpenGL context");

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  const bool windowed = window_.glfw_handle() != nullptr;
  io.IniFilename = nullptr;  // headless runs are reproducible: no saved layout
  if (windowed && !settings_.folder().empty()) {
    // Per-user layout and recent files, in the settings' folder, never in the working directory.
    std::error_code ec;
    fs::create_directories(settings_.folder(), ec);
    imgui_ini_path_ = (settings_.folder() / "imgui.ini").string();
    io.IniFilename = imgui_ini_path_.c_str();
    intake_.keep_recent_in(settings_.folder() / "recent.txt");
  }
  ui_.set_content_scale(std::clamp(window_.content_scale(), 1.0f, 3.0f));
  ui_.update_fonts(false);  // the theme and fonts for the content scale times the saved text size
  // Without ImGui's own GLFW callbacks: the window queues every input event and feed_input()
  // hands them to ImGui a frame's worth at a time (shell/input_queue.hpp), so no key is lost.
  if (windowed && !ImGui_ImplGlfw_InitForOpenGL(window_.glfw_handle(), false))
    return Status::failure("ImGui could not attach to the GLFW window", "", "ImGui_ImplGlfw_InitForOpenGL");
  if (!windowed) map_glfw_keys(io);  // the same key codes reach a headless App (tests)
  // An idle window draws no frames, so a blinking text cursor would freeze half the time off.
  io.ConfigInputTextCursorBlink = false;
  if (!ImGui_ImplOpenGL3_Init("#version 330 core"))
    return Status::failure("ImGui's OpenGL 3 renderer failed to start", "the GL context must be 3.3 core",
                           "ImGui_ImplOpenGL3_Init");
  imgui_ready_ = true;
  const ComputeSession& compute = host_.compute();
  if (compute.backend.kind == BackendKind::CpuSimulation && options_.backend != BackendChoice::Cpu)
    messages_.warn("Running the CPU simulation", compute.why_cpu);
  return Status::success();
}

App::~App() {
  experiments_.reset();  // a sweep's worker stops (and stops reading the labs) first
  settings_.save_if_changed(host_, true);
  // Edits not saved to a file are kept for the next start, never lost by quitting.
  editor_.keep_unsaved(settings_.folder());  // where this run keeps settings (none: nowhere)
  // GL objects (the views') die before the ImGui renderer and the context.
  host_.close_views();
  if (imgui_ready_) {
    ImGui_ImplOpenGL3_Shutdown();
    if (window_.glfw_handle()) ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
  }
}

// ---------------------------------------------------------------------------------------------
// 2. the frame
// ---------------------------------------------------------------------------------------------

void App::frame() {
  const auto frame_start = std::chrono::steady_clock::now();
  phases_.begin_frame(frame_start);
  window_.poll_events();
  const std::vector<Window::KeyPress> presses = feed_input();
  launches_.attention(frame_had_input_, window_.focused());
  // Problems the platform survived (an X error from a drag source that vanished mid-drag).
  for (auto& line : window_.take_platform_warnings()) messages_.warn(std::move(line));
  std::vector<fs::path> dropped;
  for (auto& p : window_.take_dropped_paths()) {
    if (editor::is_kernel_file(p)) editor_.open_kernel_file(p);  // a kernel's source, not an image
    else dropped.emplace_back(p);
  }
  intake_.enqueue(std::move(dropped));
  phases_.end_phase(FramePhases::kInput);
  // While a profile runs, its passes must be the only work on the GPU (shell/measured_tab.hpp):
  // no launches, uploads or new labs until it is done; the window keeps drawing. A sweep that is
  // copying a lab's data needs the lab left as it is: new images wait.
  if (!ui_.device_held() && !experiments_->forking()) intake_.take_loaded();
  {
    ViewContext ctx = host_.context();
    launches_.take_async_result(host_.slots(), ctx);
  }
  if (auto fault = experiments_->poll()) host_.handle_device_fault(*fault);
  export_finished_sweep();
  editor_.update();
  phases_.end_phase(FramePhases::kResults);
  const std::size_t kept_before = launches_.records_kept();
  launch_step();
  if (launches_.records_kept() != kept_before) phases_.launch_steps(host_.current().launch.last.steps.steps);
  compare_script_step();
  phases_.end_phase(FramePhases::kLaunch);

  ImGuiIO& io = ImGui::GetIO();
  const auto [fb_w, fb_h] = window_.framebuffer_size();
  ui_.update_fonts(imgui_ready_);  // a new text size or characters never drawn before: the atlas between frames
  ImGui_ImplOpenGL3_NewFrame();
  if (window_.glfw_handle()) {
    ImGui_ImplGlfw_NewFrame();
  } else {
    io.DisplaySize = ImVec2(static_cast<float>(fb_w), static_cast<float>(fb_h));
    io.DisplayFramebufferScale = ImVec2(1, 1);
    io.DeltaTime = 1.0f / 60.0f;
  }
  {
    NvtxRange range("draw");
    ImGui::NewFrame();
    ui_.draw(presses);
    ImGui::Render();
    phases_.end_phase(FramePhases::kUi);
    window_.bind_default_framebuffer();
    glViewport(0, 0, fb_w, fb_h);
    glClearColor(0.08f, 0.09f, 0.11f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  }
  ui_.after_render();  // the screenshot and PNG exports, cut from the frame just drawn
  // A sweep started in this frame (a shortcut, the Sweep button, --sweep) measures once the GL
  // work asked for is done: a software renderer (Mesa's llvmpipe) rasterises a frame on every
  // core for about 0.1 s after its calls returned, which the sweep's first points on the CPU
  // timed as their own (up to 20x their later medians).
  if (experiments_->sweep_waits_for_go()) {
    glFinish();
    experiments_->sweep_go();
  }
  phases_.end_phase(FramePhases::kGl);
  host_.set_frame(host_.frame() + 1);
  if (status_writer_) write_status_file();
  settings_.save_if_changed(host_, false);
  // What changed in this frame (input, a message, a launch kept) starts the settling frames, but
  // not while a sweep measures: each input still draws its frame, and nothing else does (the
  // "Sweeping ..." message started a quarter second of frames back to back, which a software
  // renderer drew on every core while the sweep timed its first points on the CPU).
  // A continuous repeat is not news: the frame that took it showed it.
  const std::size_t activity = messages_.added() + launches_.news_kept();
  const auto now = std::chrono::steady_clock::now();
  pacer_.drew(now, !experiments_->sweeping() && (frame_had_input_ || activity != activity_seen_));
  activity_seen_ = activity;
  ui_.set_frame_cost_ms(std::chrono::duration<double, std::milli>(now - frame_start).count());
}

std::vector<Window::KeyPress> App::feed_input() {
  input_.push(window_.take_input_events());
  std::vector<Window::KeyPress> presses = window_.take_key_presses();  // windows that give presses alone
  const std::vector<Window::InputEvent> events = input_.next_frame();
  frame_had_input_ = !events.empty() || !presses.empty();
  ImGuiIO& io = ImGui::GetIO();
  GLFWwindow* glfw = window_.glfw_handle();
  using Kind = Window::InputEvent::Kind;
  for (const Window::InputEvent& e : events) {
    switch (e.kind) {
      case Kind::Key:
        // As ImGui's GLFW backend does with a key event (imgui_impl_glfw.cpp, 1.86).
        if (e.code >= 0 && e.code < IM_ARRAYSIZE(io.KeysDown))
          io.KeysDown[e.code] = e.action != Window::InputEvent::Release;
        {
          // The modifiers a key carries are the truth of its moment: they count with the keys
          // held, so Ctrl+Enter is Ctrl+Enter even where no event said Ctrl went down (a
          // modifier's own event carries the state before it, so it counts by the keys alone).
          const bool modifier = e.code >= GLFW_KEY_LEFT_SHIFT && e.code <= GLFW_KEY_RIGHT_SUPER;
          const int held = modifier ? 0 : e.mods;
          io.KeyCtrl =
              io.KeysDown[GLFW_KEY_LEFT_CONTROL] || io.KeysDown[GLFW_KEY_RIGHT_CONTROL] || (held & GLFW_MOD_CONTROL);
          io.KeyShift =
              io.KeysDown[GLFW_KEY_LEFT_SHIFT] || io.KeysDown[GLFW_KEY_RIGHT_SHIFT] || (held & GLFW_MOD_SHIFT);
          io.KeyAlt = io.KeysDown[GLFW_KEY_LEFT_ALT] || io.KeysDown[GLFW_KEY_RIGHT_ALT] || (held & GLFW_MOD_ALT);
          io.KeySuper =
              io.KeysDown[GLFW_KEY_LEFT_SUPER] || io.KeysDown[GLFW_KEY_RIGHT_SUPER] || (held & GLFW_MOD_SUPER);
        }
        if (e.action == Window::InputEvent::Press) presses.push_back({e.code, e.mods});
        break;
      case Kind::Char: io.AddInputCharacter(static_cast<unsigned>(e.code)); break;
      case Kind::MouseButton:
        if (glfw) ImGui_ImplGlfw_MouseButtonCallback(glfw, e.code, e.action, e.mods);
        break;
      case Kind::Scroll:
        io.MouseWheelH += static_cast<float>(e.dx);
        io.MouseWheel += static_cast<float>(e.dy);
        break;
      case Kind::Focus: io.AddFocusEvent(e.action != 0); break;
      case Kind::CursorEnter:
        if (glfw) ImGui_ImplGlfw_CursorEnterCallback(glfw, e.action);
        break;
      case Kind::CursorMove:
      case Kind::Redraw: break;  // a frame is all they need
    }
  }
  return presses;
}

double App::idle_wait_s() const {
  FramePacer::Needs n;
  n.input_pending = input_.pending();
  const LabSlot& s = host_.current();
  const LaunchState& st = s.launch;
  const bool sweeping = experiments_->sweeping();
  // A launch due, continuous runs between launches, a lab's view still to make, --sweep to start.
  // Continuous runs paced (the CPU simulation in the window): a frame when the next is due.
  using Mode = LaunchScheduler::ContinuousPlan::Mode;
  const LaunchScheduler::ContinuousPlan plan = launches_.continuous_plan(s, host_.backend().kind);
  const bool repeats = !sweeping && !st.in_flight && plan.mode == Mode::EveryFrame;
  n.every_frame = sweep_on_start_ || (!s.view && s.failure.ok()) || (!sweeping && st.dirty) || repeats;
  // Work elsewhere: its progress at a low rate (a sweep's lowest: it must not compete with it).
  double period = 0;
  auto every = [&](double p) { period = period > 0 ? std::min(period, p) : p; };
  auto by = [&](double d) { n.deadline_s = n.deadline_s >= 0 ? std::min(n.deadline_s, d) : d; };
  // A launch on the worker: its end wakes the window; one slower than kSlowLaunchMs is shown as
  // running (the status bar's "simulating ... s"), its progress twice a second.
  if (launches_.in_flight()) {
    const double ran_s = launches_.running_ms() / 1000, slow_s = LaunchScheduler::kSlowLaunchMs / 1000;
    if (ran_s >= slow_s) every(0.5);
    else by(slow_s - ran_s);
  }
  if (intake_.busy()) every(0.2);
  if (editor_.busy()) every(0.25);
  // The tabs with work on another thread (a sweep, a profile, a listing, a lab's recording) say
  // how often to show its progress (ui/tab.hpp).
  if (const double tabs = ui_.background_s(); tabs > 0) every(tabs);
  n.progress_period_s = period;
  // A notice in the status bar goes when its time is up.
  if (const double notice = ui_.notice_left_s(); notice > 0) by(notice);
  if (!sweeping && !st.in_flight && plan.mode == Mode::Every) by(plan.wait_s);
  return pacer_.wait_s(n, std::chrono::steady_clock::now());
}

void App::compare_script_step() {
  if (compare_script_ == CompareScript::Off || compare_script_ == CompareScript::Done) return;
  LabSlot& s = host_.current();
  if (!s.view) return;
  const LaunchRecord& shown = s.launch.shown;
  SourceTab& source = ui_.source_tab();
  auto pin_shown = [&](int side) {
    LaunchRecord r = shown;
    r.lines = source.profile_of(shown);
    experiments_->pin(s.id(), side, r, "controls");
  };
  switch (compare_script_) {
    case CompareScript::WaitA:
      if (!source.busy() && source.profile_of(shown)) {
        pin_shown(0);
        KernelConfig next = shown.request;
        next.block = *options_.compare_block;
        host_.choose(s, shown.kernel, next);
        compare_script_ = CompareScript::WaitBLaunch;
      } else if (!source.pending() && !source.busy() && shown.ok() && !source.profile_of(shown)) {
        messages_.warn("--compare-block: the first launch has no stall samples to compare (see the Source tab)");
        compare_script_ = CompareScript::Done;
      }
      break;
    case CompareScript::WaitBLaunch:
      if (shown.ok() && shown.request.block == *options_.compare_block && !s.launch.dirty) {
        source.profile_next_launch();
        compare_script_ = CompareScript::WaitB;
      } else if (!shown.ok() && !s.launch.dirty && !s.launch.in_flight) {
        messages_.warn("--compare-block: the second launch did not run: " + shown.status.message);
        compare_script_ = CompareScript::Done;
      }
      break;
    case CompareScript::WaitB:
      if (!source.busy() && source.profile_of(shown)) {
        pin_shown(1);
        compare_script_ = CompareScript::Done;
      } else if (!source.pending() && !source.busy()) {
        messages_.warn("--compare-block: the second launch has no stall samples to compare");
        compare_script_ = CompareScript::Done;
      }
      break;
    default: break;
  }
}

void App::wait_for_next_frame() {
  // A paced repeat whose result frame is drawn: what it cost the process (the launch on the
  // worker and the frame, which a software renderer draws on every core) sets the automatic period.
  if (repeat_cpu_start_ && !host_.current().launch.in_flight) {
    if (!frame_had_input_) launches_.repeat_cost(process_cpu_s() - *repeat_cpu_start_);
    repeat_cpu_start_.reset();
  }
  if (const double wait = idle_wait_s(); wait > 0) window_.wait_events(wait);
  // A paced repeat due, and nothing else: it starts without a frame of its own, and the window
  // sleeps again until the worker wakes it with the result (one frame per repeat, not two).
  if (start_due_repeat())
    if (const double wait = idle_wait_s(); wait > 0) window_.wait_events(wait);
}

bool App::start_due_repeat() {
  input_.push(window_.take_input_events());  // input that arrived meanwhile: it gets its frame
  LabSlot& s = host_.current();
  if (input_.pending() || sweeping() || ui_.device_held() || !s.view || s.launch.dirty || s.launch.in_flight)
    return false;
  const LaunchScheduler::ContinuousPlan plan = launches_.continuous_plan(s, host_.backend().kind);
  if (plan.mode != LaunchScheduler::ContinuousPlan::Mode::Every || plan.wait_s > 0) return false;
  ViewContext ctx = host_.context();
  const double cpu = process_cpu_s();
  launches_.step(s, s.view->lab().problem(), state_.trace_schedule, ctx);
  if (s.launch.in_flight) repeat_cpu_start_ = cpu;
  return s.launch.in_flight;
}

// The open lab: its view rebuilds its problem if a setting changed, then the launch scheduler
// launches if its policy says so. Not while a profile runs (it must be the only work on the GPU)
// nor while a sweep measures (the GPU, or the CPU, is the sweep's).
void App::launch_step() {
  LabSlot& s = host_.current();
  ui_.follow_launch();
  if (ui_.device_held() || !host_.ensure_view(s).ok()) {
    if (sweep_on_start_) {
      sweep_on_start_ = false;
      messages_.error(Status::failure("no sweep: the lab did not open", "", "--sweep"));
    }
    return;
  }
  ViewContext ctx = host_.context();
  if (!experiments_->forking() && s.view->update(ctx)) host_.problem_changed(s);
  const lab::ProblemInfo problem = s.view->lab().problem();
  // --sweep starts once two frames are drawn (the first compiles the GL shaders) and before the
  // window's first launch of its own (it would still be simulating, checking and tracing): both
  // competed with the sweep's first points on the CPU.
  if (sweep_on_start_ && host_.frame() >= 2 && (problem.ready || host_.frame() > 2)) {
    sweep_on_start_ = false;
    if (Status st = start_sweep(); !st) messages_.error(st);
  }
  if (!experiments_->sweeping()) launches_.step(s, problem, state_.trace_schedule, ctx);
}

void App::present() {
  window_.swap_buffers();
  phases_.end_phase(FramePhases::kPresent);
}

// The window with --sweep and --json/--csv: the sweep's results are written once it ends (headless
// runs write them on exit, run_modes.cpp), so a script can compare it with `blockscope sweep`.
void App::export_finished_sweep() {
  if (!window_.glfw_handle() || !options_.sweep || sweep_exported_ || sweeping()) return;
  if (options_.json_path.empty() && options_.csv_path.empty()) return;
  if (!sweep_result()) return;
  sweep_exported_ = true;
  for (const auto& [path, what] :
       {std::pair{options_.json_path, ExportWhat::SweepJson}, std::pair{options_.csv_path, ExportWhat::SweepCsv}}) {
    if (path.empty()) continue;
    if (Status st = export_to(what, path); !st) messages_.error(st);
    else messages_.info("Wrote " + path);
  }
}

// What the window shows, for scripts and tests (shell/status_report.hpp); written only when it
// changed.
void App::write_status_file() {
  const StatusReport r = status_snapshot(host_, intake_, messages_, ui_.status_ui(), &status_digest_);
  if (Status st = status_writer_->update(r); !st && !status_write_failed_) {
    status_write_failed_ = true;
    messages_.error(st);
  } else if (st) {
    status_write_failed_ = false;
  }
}

// ---------------------------------------------------------------------------------------------
// 3. actions across rooms
// ---------------------------------------------------------------------------------------------

Status App::write_screenshot(const fs::path& path) { return write_window_png(window_, path); }

Status App::write_output(const fs::path& path) { return write_lab_output(host_.current(), path); }

Status App::write_schedule_json(const fs::path& path) {
  return bs::app::write_schedule_json(host_.current().launch.shown, host_.backend().label, path);
}

std::string App::interop_mode() const {
  const LabSlot& s = host_.current();
  return s.id() == state_.lab && s.view ? s.view->interop_mode() : "no lab open";
}

// Back to a first launch's choices: every lab's kernel, configuration, view and options, the
// layout and the text size. The images and matrices loaded stay.
void App::reset_to_defaults() {
  settings_.reset_state();
  host_.reset_to_defaults();
  ui_.reset_to_defaults();
  messages_.info("Settings reset to defaults" + (settings_.file().empty() ? std::string(" (this run keeps no settings)")
                                                                          : " (" + settings_.file().string() + ")"));
  settings_.save_if_changed(host_, true);
}

Status App::start_sweep() {
  LabSlot& s = host_.current();
  if (Status st = host_.ensure_view(s); !st) return st;
  // The frames that would settle the last input are not drawn; the sweep measures once this
  // frame's GL work is done (frame(): glFinish, then go).
  pacer_.calm();
  if (Status st = experiments_->start_sweep(s.view->lab(), s.kernel); !st) return st;
  // The sweep has the CPU (or the GPU) to itself: a launch of the window's own on the worker
  // stops, and runs again once the sweep is done.
  if (s.launch.in_flight) {
    launches_.stop_worker();
    s.launch.dirty = true;
  }
  return Status::success();
}

void App::cancel_sweep() {
  sweep_on_start_ = false;
  experiments_->cancel_sweep();
}

bool App::sweeping() const { return sweep_on_start_ || experiments_->sweeping(); }

const lab::SweepResult* App::sweep_result() const { return experiments_->result(state_.lab); }

Status App::export_to(ExportWhat what, const fs::path& path) {
  if (export_needs_frame(what)) return ui_.write_png_export(what, path);
  return experiments_->export_text(what, path.string(), ui_.experiments_host(host_.current()));
}

}  // namespace bs::app
