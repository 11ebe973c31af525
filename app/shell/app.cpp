#include "shell/app.hpp"

#include <epoxy/gl.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "device/cuda_device.hpp"
#include "mapping/schedule.hpp"
#include "platform/png.hpp"
#include "shell/matmul_session.hpp"
#include "shell/sample_image.hpp"
#include "ui/matmul_panels.hpp"
#include "ui/panels.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace bs::app {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// ---------------------------------------------------------------------------------------------
// 1. creation and shutdown
// ---------------------------------------------------------------------------------------------

App::App(Window& window, CliOptions options, ComputeSession compute)
    : window_(window),
      options_(std::move(options)),
      state_(options_.state),
      compute_(std::move(compute)),
      loader_(LoadLimits{}, 1) {
  if (!options_.status_file_path.empty()) status_writer_.emplace(options_.status_file_path);
}

Result<std::unique_ptr<App>> App::create(Window& window, CliOptions options,
                                         ComputeSession compute) {
  std::unique_ptr<App> app(new App(window, std::move(options), std::move(compute)));
  if (Status s = app->init_gl_and_imgui(); !s) return s;

  // Images named on the command line load before the first frame, so headless runs and
  // screenshots show them; later drops go through the background loader.
  bool any = false;
  for (const auto& path : app->options_.images) {
    auto img = load_image_file(fs::path(path), app->limits_);
    if (!img) {
      app->messages_.error(img.status());
      app->had_load_failure_ = true;
      continue;
    }
    if (Status s = app->install_image(std::move(img.value())); !s) {
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
    if (Status s = app->install_image(std::move(sample.value())); !s) return s;
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

  for (auto* slot : {&view_renderer_, &second_view_renderer_}) {
    auto renderer = ImageViewRenderer::create();
    if (!renderer) return renderer.status();
    slot->emplace(std::move(renderer.value()));
  }

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
  ui_scale_ = std::clamp(window_.content_scale(), 1.0f, 3.0f);
  ui::apply_theme(ui_scale_);
  if (windowed && !ImGui_ImplGlfw_InitForOpenGL(window_.glfw_handle(), true))
    return Status::failure("ImGui could not attach to the GLFW window", "", "ImGui_ImplGlfw_InitForOpenGL");
  if (!ImGui_ImplOpenGL3_Init("#version 330 core"))
    return Status::failure("ImGui's OpenGL 3 renderer failed to start", "the GL context must be 3.3 core",
                           "ImGui_ImplOpenGL3_Init");
  imgui_ready_ = true;
  last_frame_time_ = Clock::now();
  if (compute_.kind == BackendKind::CpuSimulation && options_.backend != BackendChoice::Cpu)
    messages_.warn("Running the CPU simulation", compute_.why_cpu);
  return Status::success();
}

App::~App() {
  if (!recent_path_.empty()) save_recent_files(recent_, recent_path_);
  // GL objects die before the ImGui renderer and the context.
  matmul_.reset();
  image_.reset();
  view_renderer_.reset();
  second_view_renderer_.reset();
  sm_of_block_ = GlTexture();
  if (imgui_ready_) {
    ImGui_ImplOpenGL3_Shutdown();
    if (window_.glfw_handle()) ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
  }
}

std::string App::interop_mode() const {
  if (const MatmulSession* m = matmul_session()) return m->interop_mode();
  if (compute_.kind == BackendKind::CpuSimulation) return "CPU simulation: host upload to GL";
  if (image_ && image_->pixel_buffer) return image_->pixel_buffer->mode_description();
  return "no image";
}

// ---------------------------------------------------------------------------------------------
// 2. images in
// ---------------------------------------------------------------------------------------------

void App::enqueue_files(std::vector<fs::path> paths) {
  if (paths.empty()) return;
  if (paths.size() > 1)
    messages_.info("Loading " + std::to_string(paths.size()) +
                   " files; the last one that loads is shown");
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

// Makes `image` current. Everything that can fail happens before the old image is released,
// so a failure leaves the previous image loaded and on screen.
Status App::install_image(Rgba8Image image) {
  LoadedImage next;
  auto original = GlTexture::create_rgba8(image.width, image.height, image.rgba.data());
  if (!original) return original.status();
  auto result = GlTexture::create_r8(image.width, image.height);
  if (!result) return result.status();
  next.original = std::move(original.value());
  next.result = std::move(result.value());
  next.result.set_gray_swizzle(true);
  if (compute_.kind == BackendKind::Cuda) {
    auto pbo = InteropPixelBuffer::create(image.width, image.height, 1);
    if (!pbo) return pbo.status();
    if (!pbo->interop_active())
      messages_.warn("CUDA-GL interop is off: results go through host memory",
                     pbo->registration_status().describe());
    next.pixel_buffer.emplace(std::move(pbo.value()));
  }
  if (compute_.kind == BackendKind::CpuSimulation ||
      (next.pixel_buffer && !next.pixel_buffer->interop_active()))
    next.host_result.assign(image.pixel_count(), 0);
  if (Status s = compute_.gray->set_image(image.rgba.data(), image.width, image.height); !s) {
    // The lab keeps its previous image on failure, so the old one is still consistent.
    s.message = "could not load " + image.name + " into the compute backend: " + s.message;
    return s;
  }
  messages_.info("Loaded " + image.name + " (" + std::to_string(image.width) + " x " +
                 std::to_string(image.height) + ", " + image.format + ")");
  next.image = std::move(image);
  image_ = std::move(next);
  state_.view.zoom = options_.state.view.zoom;  // fit unless the command line said otherwise
  if (state_.view.center_x < 0 || frame_index_ > 0) {
    state_.view.center_x = image_->image.width / 2.0f;
    state_.view.center_y = image_->image.height / 2.0f;
  }
  if (frame_index_ > 0) state_.view.pinned.reset();  // a pin from the command line stays
  history_.clear();
  dirty_ = true;
  return Status::success();
}

// ---------------------------------------------------------------------------------------------
// 3. launching
// ---------------------------------------------------------------------------------------------

LaunchRecord App::launch_into_gl(LoadedImage& img, double* pipeline_ms) {
  gray::GrayRunOptions run;
  run.trace_schedule = dirty_ && state_.gray.trace_schedule;
  const auto t0 = Clock::now();
  LaunchRecord rec;
  gray::GrayLab& lab = *compute_.gray;
  if (img.pixel_buffer && img.pixel_buffer->interop_active()) {
    // Zero-copy: the kernel writes into the GL buffer CUDA mapped for it.
    auto ptr = img.pixel_buffer->map();
    if (!ptr) {
      rec.status = ptr.status();
      return rec;
    }
    rec = lab.run(state_.gray.kernel, state_.gray.block, static_cast<std::uint8_t*>(ptr.value()), run);
    if (Status s = img.pixel_buffer->unmap(); !s && rec.ok()) rec.status = s;
    if (rec.ok())
      if (Status s = img.pixel_buffer->upload_to(img.result); !s) rec.status = s;
  } else if (compute_.kind == BackendKind::Cuda) {
    rec = lab.run(state_.gray.kernel, state_.gray.block, nullptr, run);
    if (rec.ok())
      if (Status s = lab.download_result(img.host_result.data()); !s) rec.status = s;
    if (rec.ok())
      if (Status s = img.result.upload(img.host_result.data()); !s) rec.status = s;
  } else {
    rec = lab.run(state_.gray.kernel, state_.gray.block, img.host_result.data(), run);
    if (rec.ok())
      if (Status s = img.result.upload(img.host_result.data()); !s) rec.status = s;
  }
  glFinish();  // the pipeline time includes the GL upload, not just its submission
  *pipeline_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  return rec;
}

void App::relaunch() {
  if (!image_) return;
  double pipeline_ms = 0;
  const bool config_changed = dirty_;
  LaunchRecord rec = launch_into_gl(*image_, &pipeline_ms);
  dirty_ = false;
  if (!rec.ok() && compute_.kind == BackendKind::Cuda && is_sticky_cuda_error(rec.status.code)) {
    handle_device_fault(rec.status);
    return;
  }
  if (!rec.ok()) {
    // Report a failure once per configuration, not once per frame.
    if (config_changed || last_launch_.ok()) {
      if (rec.status.call == "validate_launch" || rec.status.call == "check_gray_launch")
        messages_.warn("Launch refused: " + rec.status.message, rec.status.hint);
      else
        messages_.error(rec.status);
    }
    last_launch_ = std::move(rec);
    return;
  }
  history_.add(rec.kernel_ms(), pipeline_ms);
  // A simulated launch of a large image can take a second; relaunching it every frame would
  // freeze the window, so continuous mode pauses itself and says why.
  if (run_continuously_ && rec.backend == BackendKind::CpuSimulation && pipeline_ms > 150) {
    run_continuously_ = false;
    char ms[32];
    std::snprintf(ms, sizeof ms, "%.0f ms", pipeline_ms);
    messages_.info(std::string("Paused continuous relaunch: one simulated launch takes ") + ms +
                   " on the CPU (press Run once, or tick Run continuously)");
  }
  last_pipeline_ms_ = pipeline_ms;
  if (!rec.schedule.empty()) {
    auto units = mapping::unit_per_block(rec.schedule, rec.config.grid);
    if (auto tex = make_sm_of_block_texture(units); tex) sm_of_block_ = std::move(tex.value());
    last_schedule_ = rec.schedule;
    last_schedule_simulated_ = rec.schedule_simulated;
  } else if (config_changed) {
    sm_of_block_ = GlTexture();
    last_schedule_.clear();
  }
  last_good_launch_ = rec;
  last_good_launch_.schedule.clear();  // kept once, in last_schedule_
  last_launch_ = std::move(rec);
  last_launch_.schedule.clear();
}

// A sticky fault (illegal address, launch failure, timeout) leaves the CUDA context unusable
// until the process ends. The image stays on screen: its host copy is reinstalled on the CPU
// simulation, which keeps every view working, and the user is told what happened.
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
  messages_.warn("The GPU faulted: switched to the CPU simulation, the image is kept", cpu->why_cpu);
  switch_compute(std::move(cpu.value()));
}

// Moves the loaded image to another compute session (another GPU, or the CPU simulation); the
// image's host copy is reinstalled there, so nothing the user loaded is lost.
void App::switch_compute(ComputeSession next) {
  std::optional<Rgba8Image> keep;
  if (image_) keep = std::move(image_->image);
  image_.reset();  // its CUDA-registered buffer belongs to the old session
  matmul_.reset();  // so does the matmul lab; it reopens on the new session when shown
  matmul_failure_ = Status::success();
  sm_of_block_ = GlTexture();
  last_schedule_.clear();
  compute_ = std::move(next);
  if (keep)
    if (Status s = install_image(std::move(*keep)); !s) messages_.error(s);
  last_good_launch_ = LaunchRecord{};
  last_launch_ = LaunchRecord{};
  history_.clear();
  dirty_ = true;
}

void App::draw_compute_menu() {
  if (!ImGui::BeginMenu("Compute")) return;
  const bool on_cpu = compute_.kind == BackendKind::CpuSimulation;
  auto devices = list_cuda_devices();
  if (devices && !device_faulted_) {
    for (const auto& d : devices.value()) {
      const std::string label = "GPU " + std::to_string(d.index) + ": " + d.name + " (sm_" +
                                std::to_string(d.compute_major) + std::to_string(d.compute_minor) + ")";
      const bool current = !on_cpu && compute_.cuda_device == d.index;
      if (ImGui::MenuItem(label.c_str(), nullptr, current, d.has_code_for_it) && !current) {
        auto next = open_compute_session(BackendChoice::Cuda, d.index, true);
        if (!next) messages_.error(next.status());
        else {
          messages_.info("Switched to " + next->label);
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
// 4. the frame
// ---------------------------------------------------------------------------------------------

void App::frame() {
  window_.poll_events();
  for (auto& line : window_.take_platform_warnings()) messages_.warn(std::move(line));
  std::vector<fs::path> dropped;
  for (auto& p : window_.take_dropped_paths()) dropped.emplace_back(p);
  enqueue_files(std::move(dropped));
  take_loaded_images();

  if (frame_index_ == options_.inject_fault_at_frame && compute_.kind == BackendKind::Cuda) {
    Status s = inject_illegal_address(compute_.cuda_device);
    messages_.warn("Injected a GPU fault (--inject-fault)", s.describe());
    dirty_ = true;
  }
  if (state_.lab == Lab::Matmul) {
    if (MatmulSession* m = open_matmul()) {
      m->update();
      if (auto fault = m->take_device_fault()) handle_device_fault(*fault);
    }
  } else if (dirty_ || run_continuously_) {
    relaunch();
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

  const float em = ImGui::GetFontSize();
  const float status_h = ImGui::GetFrameHeightWithSpacing() + 4;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float body_h = avail.y - status_h;
  const float left_w = std::min(em * 21.0f, avail.x * 0.3f);
  const float right_w = std::min(em * 31.0f, avail.x * 0.36f);
  const float view_w = std::max(em * 10, avail.x - left_w - right_w - 2 * ImGui::GetStyle().ItemSpacing.x);

  ImGui::BeginChild("controls", ImVec2(left_w, body_h), true);
  draw_controls(left_w);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("view", ImVec2(view_w, body_h), true,
                    ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  draw_view(view_w, body_h);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("side", ImVec2(0, body_h), true);
  draw_side_panel(right_w);
  ImGui::EndChild();
  draw_status_bar();
  ImGui::End();

  if (auto chosen = file_browser_.draw()) enqueue_files({*chosen});
  ui::draw_messages_window(messages_, &show_messages_);
  draw_loading_modal();
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
      else if (Status s = install_image(std::move(sample.value())); !s) messages_.error(s);
    }
    ImGui::Separator();
    if (ImGui::MenuItem("Quit")) window_.request_close();
    ImGui::EndMenu();
  }
  draw_compute_menu();
  if (ImGui::BeginMenu("View")) {
    ImGui::MenuItem("Messages", nullptr, &show_messages_);
    ImGui::MenuItem("ImGui demo (for developers)", nullptr, &state_.show_demo);
    ImGui::EndMenu();
  }
  ImGui::TextColored(ui::kDimColour, "   drop images on the window  |  wheel: zoom  |  drag: pan  |  click: pin a block");
  ImGui::EndMenuBar();
  if (state_.show_demo) ImGui::ShowDemoWindow(&state_.show_demo);
}

const MatmulSession* App::matmul_session() const {
  return state_.lab == Lab::Matmul ? matmul_.get() : nullptr;
}

MatmulSession* App::open_matmul() {
  if (matmul_ || !matmul_failure_.ok()) return matmul_.get();
  auto session = MatmulSession::create(compute_, state_, messages_);
  if (!session) {
    matmul_failure_ = session.status();
    messages_.error(matmul_failure_);
    return nullptr;
  }
  matmul_ = std::move(session.value());
  return matmul_.get();
}

void App::draw_controls(float) {
  ui::draw_lab_tabs(&state_.lab);
  if (state_.lab == Lab::Matmul) {
    if (MatmulSession* m = open_matmul()) m->draw_controls();
    else ui::status_text(matmul_failure_);
    return;
  }
  ui::GrayLabPanelInput in;
  in.image = image_ ? &image_->image : nullptr;
  in.last_launch = &last_launch_;
  in.last_good_launch = &last_good_launch_;
  in.limits = &compute_.limits;
  in.backend = compute_.kind;
  in.attributes = compute_.gray->attributes(state_.gray.kernel);
  ui::GrayLabPanelActions act = ui::draw_gray_lab_panel(in, &state_, &run_continuously_);
  if (act.relaunch) dirty_ = true;
  if (act.open_file) file_browser_.open(recent_.paths.empty() ? fs::path() : recent_.paths.front().parent_path());
  if (act.fit_view) state_.view.zoom = 0;
  if (act.actual_size) state_.view.zoom = 1;
}

ImageViewParams App::view_params(int output_w, int output_h) const {
  ImageViewParams p;
  const auto& img = image_->image;
  p.texture_a = image_->original.id();
  p.a_is_gray = false;
  p.texture_b = image_->result.id();
  p.b_is_gray = true;
  p.image_width = img.width;
  p.image_height = img.height;
  p.output_width = output_w;
  p.output_height = output_h;
  p.zoom = state_.view.zoom > 0 ? state_.view.zoom : zoom_to_fit(img.width, img.height, output_w, output_h);
  p.centre_x = state_.view.zoom > 0 && state_.view.center_x >= 0 ? state_.view.center_x : img.width / 2.0f;
  p.centre_y = state_.view.zoom > 0 && state_.view.center_y >= 0 ? state_.view.center_y : img.height / 2.0f;
  switch (state_.view.compare) {
    case CompareMode::Split: p.split_fraction = state_.view.split; break;
    case CompareMode::ResultOnly: p.split_fraction = 0.0f; p.draw_split_line = false; break;
    case CompareMode::OriginalOnly: p.split_fraction = 1.0f; p.draw_split_line = false; break;
    case CompareMode::SideBySide: p.split_fraction = 0.5f; break;  // drawn as two views
  }
  return p;
}

OverlayParams App::overlay_params() const {
  OverlayParams o;
  const LaunchRecord& rec = last_good_launch_;
  if (!rec.ok() || rec.kernel.empty() || !image_) return o;
  switch (state_.view.overlay) {
    case OverlayMode::Off: o.mode = OverlayParams::Off; break;
    case OverlayMode::BlockLines: o.mode = OverlayParams::BlockLines; break;
    case OverlayMode::ColourByBlock: o.mode = OverlayParams::ColourByBlock; break;
    case OverlayMode::ColourByWarp: o.mode = OverlayParams::ColourByWarp; break;
    case OverlayMode::ColourBySm: o.mode = OverlayParams::ColourBySm; break;
  }
  o.mapping = rec.kernel == gray::info(gray::GrayKernel::Flat1D).name ? 0 : 1;
  o.block[0] = rec.config.block.x; o.block[1] = rec.config.block.y; o.block[2] = rec.config.block.z;
  o.grid[0] = rec.config.grid.x; o.grid[1] = rec.config.grid.y; o.grid[2] = rec.config.grid.z;
  o.image_w = image_->image.width;
  o.image_h = image_->image.height;
  o.opacity = state_.view.overlay_opacity;
  o.sm_of_block_texture = sm_of_block_.id();
  if (auto px = inspected_pixel()) {
    auto coord = mapping::thread_for_pixel(scheme_of(rec), rec.config, o.image_w, o.image_h, px->x, px->y);
    if (coord) o.highlight_block_linear = static_cast<int>(coord->linear_block);
  }
  return o;
}

std::optional<PixelPos> App::inspected_pixel() const {
  if (mouse_pixel_) return mouse_pixel_;
  if (state_.view.pinned) return state_.view.pinned;
  return state_.view.hover;
}

mapping::IndexScheme App::scheme_of(const LaunchRecord& rec) {
  return rec.kernel == gray::info(gray::GrayKernel::Flat1D).name ? mapping::IndexScheme::Flat1D
                                                                 : mapping::IndexScheme::Grid2D;
}

void App::draw_view(float, float) {
  if (state_.lab == Lab::Matmul) {
    if (matmul_) matmul_->draw_view();
    return;
  }
  if (!image_) {
    ImGui::TextColored(ui::kDimColour, "Drop an image here, or use File > Open image.");
    return;
  }
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 size = ImGui::GetContentRegionAvail();
  const ImVec2 fb_scale = ImGui::GetIO().DisplayFramebufferScale;
  const OverlayParams overlay = overlay_params();
  mouse_pixel_.reset();
  // Side by side: two views of half the width sharing one centre and zoom (original left,
  // result right); otherwise one view, split or single.
  const bool side_by_side = state_.view.compare == CompareMode::SideBySide;
  const int panes = side_by_side ? 2 : 1;
  const float gap = side_by_side ? 4.0f : 0.0f;
  const ImVec2 pane_size((size.x - gap * (panes - 1)) / panes, size.y);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (int pane = 0; pane < panes; ++pane) {
    ImageViewRenderer& renderer = pane == 0 ? *view_renderer_ : *second_view_renderer_;
    const ImVec2 pane_origin(origin.x + pane * (pane_size.x + gap), origin.y);
    const int out_w = std::max(1, static_cast<int>(pane_size.x * fb_scale.x));
    const int out_h = std::max(1, static_cast<int>(pane_size.y * fb_scale.y));
    ImageViewParams params = view_params(out_w, out_h);
    if (side_by_side) {
      params.split_fraction = pane == 0 ? 1.0f : 0.0f;
      params.draw_split_line = false;
    }
    ImGui::SetCursorScreenPos(pane_origin);
    handle_view_input(pane_origin, pane_size, params);
    if (Status s = renderer.render(params, overlay); !s) {
      ui::status_text(s);
      return;
    }
    ImGui::SetCursorScreenPos(pane_origin);
    ImGui::Image(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(renderer.texture())), pane_size);
  }
  const ImU32 label = IM_COL32(230, 230, 235, 220);
  if (state_.view.compare == CompareMode::Split) {
    const float sx = origin.x + size.x * state_.view.split;
    dl->AddText(ImVec2(origin.x + 8, origin.y + 6), label, "original");
    dl->AddText(ImVec2(sx + 8, origin.y + 6), label, "kernel result");
  } else if (side_by_side) {
    dl->AddText(ImVec2(origin.x + 8, origin.y + 6), label, "original");
    dl->AddText(ImVec2(origin.x + pane_size.x + gap + 8, origin.y + 6), label, "kernel result");
  }
  if (auto px = inspected_pixel(); px && last_good_launch_.ok()) {
    ui::InspectorInput in{&last_good_launch_, scheme_of(last_good_launch_), image_->image.width,
                          image_->image.height, *px, state_.view.pinned.has_value() && !mouse_pixel_};
    if (mouse_pixel_) {
      ImGui::BeginTooltip();
      ui::draw_pixel_inspector(in);
      ImGui::EndTooltip();
    } else {
      // Forced hover or pinned pixel: a fixed card in the view's corner, for screenshots too.
      ImGui::SetCursorScreenPos(ImVec2(origin.x + 10, origin.y + size.y - ImGui::GetFontSize() * 13.0f));
      ImGui::PushStyleColor(ImGuiCol_ChildBg, ImVec4(0.06f, 0.07f, 0.09f, 0.88f));
      ImGui::BeginChild("inspector_card", ImVec2(ImGui::GetFontSize() * 21, ImGui::GetFontSize() * 12.5f), true,
                        ImGuiWindowFlags_NoScrollbar);
      ui::draw_pixel_inspector(in);
      ImGui::EndChild();
      ImGui::PopStyleColor();
    }
  }
}

void App::handle_view_input(const ImVec2& origin, const ImVec2& size, ImageViewParams& params) {
  ImGuiIO& io = ImGui::GetIO();
  const bool hovered = ImGui::IsWindowHovered() && io.MousePos.x >= origin.x &&
                       io.MousePos.y >= origin.y && io.MousePos.x < origin.x + size.x &&
                       io.MousePos.y < origin.y + size.y;
  if (!hovered) return;
  const ImVec2 fb = io.DisplayFramebufferScale;
  const double mx = (io.MousePos.x - origin.x) * fb.x, my = (io.MousePos.y - origin.y) * fb.y;
  auto [ix, iy] = output_to_image(params, mx, my);
  if (io.MouseWheel != 0) {
    // Zoom about the cursor: the image point under it stays under it.
    const float factor = std::pow(1.2f, io.MouseWheel);
    const float zoom = std::clamp(params.zoom * factor, 0.02f, 256.0f);
    params.centre_x = static_cast<float>(ix - (ix - params.centre_x) * params.zoom / zoom);
    params.centre_y = static_cast<float>(iy - (iy - params.centre_y) * params.zoom / zoom);
    params.zoom = zoom;
  }
  if (ImGui::IsMouseDragging(ImGuiMouseButton_Left) || ImGui::IsMouseDragging(ImGuiMouseButton_Right)) {
    params.centre_x -= io.MouseDelta.x * fb.x / params.zoom;
    params.centre_y -= io.MouseDelta.y * fb.y / params.zoom;
  }
  state_.view.zoom = params.zoom;
  state_.view.center_x = params.centre_x;
  state_.view.center_y = params.centre_y;
  std::tie(ix, iy) = output_to_image(params, mx, my);
  const int px = static_cast<int>(std::floor(ix)), py = static_cast<int>(std::floor(iy));
  if (px >= 0 && py >= 0 && px < image_->image.width && py < image_->image.height) {
    mouse_pixel_ = PixelPos{px, py};
    if (ImGui::IsMouseReleased(ImGuiMouseButton_Left) && ImGui::GetMouseDragDelta(ImGuiMouseButton_Left).x == 0 &&
        ImGui::GetMouseDragDelta(ImGuiMouseButton_Left).y == 0) {
      if (state_.view.pinned && *state_.view.pinned == *mouse_pixel_) state_.view.pinned.reset();
      else state_.view.pinned = mouse_pixel_;
    }
  }
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) state_.view.pinned.reset();
}

void App::draw_side_panel(float) {
  if (state_.lab == Lab::Matmul) {
    if (matmul_) matmul_->draw_side_panel();
    return;
  }
  ui::SidePanelInput in;
  in.last_good_launch = &last_good_launch_;
  in.history = &history_;
  in.copy_gbs = compute_.copy_gbs;
  in.copy_note = &compute_.copy_note;
  in.backend = compute_.kind;
  in.limits = &compute_.limits;
  in.attributes = compute_.gray->attributes(state_.gray.kernel);
  in.schedule = &last_schedule_;
  in.schedule_simulated = last_schedule_simulated_;
  in.scheme = scheme_of(last_good_launch_);
  in.image_w = image_ ? image_->image.width : 0;
  in.image_h = image_ ? image_->image.height : 0;
  in.inspected = inspected_pixel();
  ui::draw_side_panel(in, &state_);
}

void App::draw_status_bar() {
  ImGui::Separator();
  const float em = ImGui::GetFontSize();
  const ImVec4 backend_colour = compute_.kind == BackendKind::Cuda ? ui::kOkColour : ui::kWarnColour;
  ImGui::TextColored(backend_colour, "%s %s", compute_.kind == BackendKind::Cuda ? "GPU:" : "", compute_.label.c_str());
  if (!compute_.why_cpu.empty()) ui::item_tooltip(("Why the CPU: " + compute_.why_cpu).c_str());
  else ui::item_tooltip(compute_.versions.c_str());
  ImGui::SameLine(0, em);
  ImGui::TextColored(ui::kDimColour, "GL: %s", window_.gl_renderer().c_str());
  ui::item_tooltip((window_.gl_version() + "\n" + window_.platform_description()).c_str());
  ImGui::SameLine(0, em);
  const std::string mode = interop_mode();
  const bool zero_copy = mode.find("zero-copy") != std::string::npos;
  ImGui::TextColored(zero_copy ? ui::kOkColour : ui::kDimColour, "%s", mode.c_str());
  ImGui::SameLine(0, em);
  ImGui::TextColored(ui::kDimColour, "%.0f fps", frame_ms_ > 0 ? 1000.0 / frame_ms_ : 0.0);
  if (const Message* m = messages_.latest()) {
    ImGui::SameLine(0, em);
    const ImVec4 c = m->level == Message::Error ? ui::kErrorColour : m->level == Message::Warning ? ui::kWarnColour : ui::kDimColour;
    ImGui::TextColored(c, "%s", m->text.c_str());
    if (!m->detail.empty()) ui::item_tooltip(m->detail.c_str());
    if (ImGui::IsItemClicked()) show_messages_ = true;
  }
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

// ---------------------------------------------------------------------------------------------
// 5. outputs for headless runs
// ---------------------------------------------------------------------------------------------

Status App::write_screenshot(const fs::path& path) {
  window_.bind_default_framebuffer();
  const auto [w, h] = window_.framebuffer_size();
  std::vector<std::uint8_t> pixels = window_.read_pixels_rgba();
  return write_png(path, w, h, 4, pixels.data());
}

Status App::write_gray_output(const fs::path& path) {
  if (!image_) return Status::failure("no image loaded", "", "--gray-out");
  if (!last_launch_.ok())
    return Status::failure("the last launch failed, so there is no output to write: " + last_launch_.status.message,
                           last_launch_.status.hint, "--gray-out");
  // Read back from the GL texture the view shows: this is what the kernel really delivered to
  // GL, through interop or the fallback.
  std::vector<std::uint8_t> gray = read_texture_r8(image_->result);
  if (gray.size() != image_->image.pixel_count())
    return Status::failure("could not read the result texture back", "", "glGetTexImage");
  return write_png(path, image_->image.width, image_->image.height, 1, gray.data());
}

Status App::write_schedule_json(const fs::path& path) {
  if (last_schedule_.empty())
    return Status::failure("no schedule was recorded for the last launch", "", "--schedule-json");
  const std::string json = mapping::schedule_to_json(last_schedule_, last_schedule_simulated_,
                                                     last_good_launch_.config, last_good_launch_.kernel,
                                                     compute_.label);
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return Status::failure("cannot write " + path.string(), "check the folder exists and is writable", "fopen");
  const bool ok = std::fwrite(json.data(), 1, json.size(), f) == json.size();
  std::fclose(f);
  if (!ok) return Status::failure("could not write all of " + path.string(), "", "fwrite");
  return Status::success();
}

// ---------------------------------------------------------------------------------------------
// 6. the status file
// ---------------------------------------------------------------------------------------------

// What the window shows, for scripts and tests (shell/status_report.hpp); written only when it
// changed. The output hash reads the result texture back, as --gray-out does: what the kernel
// really delivered to GL.
void App::write_status_file() {
  StatusReport r;
  r.frame = frame_index_;
  r.lab = state_.lab == Lab::Matmul ? "matmul" : "gray";
  r.loading = loader_.busy();
  if (image_) r.image = StatusReport::Image{image_->image.name, image_->image.width, image_->image.height};
  if (!last_launch_.kernel.empty()) {
    r.launch = StatusReport::Launch{last_launch_.kernel, last_launch_.config.grid, last_launch_.config.block,
                                    last_launch_.ok(), last_launch_.status.message};
    if (image_ && last_launch_.ok()) {
      const std::vector<std::uint8_t> gray = read_texture_r8(image_->result);
      if (gray.size() == image_->image.pixel_count())
        r.output = StatusReport::Output{fnv1a64(gray.data(), gray.size()), image_->image.width, image_->image.height};
    }
  }
  if (const Message* m = messages_.latest()) r.status_message = m->text;
  r.errors = messages_.errors();
  const auto& all = messages_.all();
  const std::size_t first = all.size() > StatusReport::kLastMessages ? all.size() - StatusReport::kLastMessages : 0;
  for (std::size_t i = first; i < all.size(); ++i)
    r.messages.push_back({all[i].level == Message::Error ? "error" : all[i].level == Message::Warning ? "warning" : "info",
                          all[i].text});
  if (Status s = status_writer_->update(r); !s && !status_write_failed_) {
    status_write_failed_ = true;
    messages_.error(s);
  } else if (s) {
    status_write_failed_ = false;
  }
}

}  // namespace bs::app
