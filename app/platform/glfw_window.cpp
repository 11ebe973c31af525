// Windowed mode: a GLFW window with an OpenGL 3.3 core context.
//
// Errors: GLFW keeps the last error of the calling thread for glfwGetError(), so failures here
// read it into the returned Status (code name + GLFW's description) instead of relying on an
// error callback that prints. The caller may still install its own callback; this does not
// replace it.
//
// X protocol errors: another client can cause them at will (a drag source that quits mid-drag
// leaves GLFW replying to a window that is gone), and Xlib's default handler exits the process.
// The window installs platform/x11_errors.hpp's reporter before glfwInit, keeps it installed
// while it polls events, and hands what it survived to the app (take_platform_warnings).
#include <epoxy/gl.h>  // before glfw3.h so GLFW does not pull in the system GL header
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <cstdlib>
#include <cstring>

#include "platform/window.hpp"
#include "platform/x11_errors.hpp"

namespace bs {

namespace {

const char* glfw_error_name(int code) {
  switch (code) {
    case GLFW_NO_ERROR: return "GLFW_NO_ERROR";
    case GLFW_NOT_INITIALIZED: return "GLFW_NOT_INITIALIZED";
    case GLFW_NO_CURRENT_CONTEXT: return "GLFW_NO_CURRENT_CONTEXT";
    case GLFW_INVALID_ENUM: return "GLFW_INVALID_ENUM";
    case GLFW_INVALID_VALUE: return "GLFW_INVALID_VALUE";
    case GLFW_OUT_OF_MEMORY: return "GLFW_OUT_OF_MEMORY";
    case GLFW_API_UNAVAILABLE: return "GLFW_API_UNAVAILABLE";
    case GLFW_VERSION_UNAVAILABLE: return "GLFW_VERSION_UNAVAILABLE";
    case GLFW_PLATFORM_ERROR: return "GLFW_PLATFORM_ERROR";
    case GLFW_FORMAT_UNAVAILABLE: return "GLFW_FORMAT_UNAVAILABLE";
    case GLFW_NO_WINDOW_CONTEXT: return "GLFW_NO_WINDOW_CONTEXT";
    default: return "GLFW error";
  }
}

// A Status for a failed GLFW call, carrying the error GLFW recorded for this thread.
Status glfw_failure(std::string message, std::string call, std::string hint) {
  const char* description = nullptr;
  const int code = glfwGetError(&description);
  if (description && *description) message += ": " + std::string(description);
  return Status::failure(std::move(message), std::move(hint), std::move(call),
                         code == GLFW_NO_ERROR ? std::string() : glfw_error_name(code));
}

bool env_set(const char* name) {
  const char* value = std::getenv(name);
  return value && *value;
}

constexpr const char* kHeadlessHint =
    "run with --headless to render offscreen through EGL, or start blockscope inside a desktop "
    "session (X11 or Wayland)";

class GlfwWindow final : public Window {
 public:
  GlfwWindow(GLFWwindow* window, std::unique_ptr<x11::ProtocolErrorReporter> x11_errors)
      : window_(window), x11_errors_(std::move(x11_errors)) {
    // The callback finds this object through the window's user pointer: no globals, and the
    // queue dies with the window.
    glfwSetWindowUserPointer(window_, this);
    glfwSetDropCallback(window_, &GlfwWindow::on_drop);
    // Input is queued here, in order, and handed to the app (take_input_events): ImGui's GLFW
    // backend is attached without its own callbacks, so nothing reaches ImGui behind the queue.
    glfwSetKeyCallback(window_, &GlfwWindow::on_key);
    glfwSetCharCallback(window_, [](GLFWwindow* w, unsigned int c) {
      push(w, {InputEvent::Kind::Char, static_cast<int>(c), InputEvent::Press, 0, 0, 0});
    });
    glfwSetMouseButtonCallback(window_, [](GLFWwindow* w, int button, int action, int mods) {
      push(w, {InputEvent::Kind::MouseButton, button, action, mods, 0, 0});
    });
    glfwSetScrollCallback(window_, [](GLFWwindow* w, double dx, double dy) {
      push(w, {InputEvent::Kind::Scroll, 0, InputEvent::Press, 0, dx, dy});
    });
    glfwSetWindowFocusCallback(window_, [](GLFWwindow* w, int focused) {
      push(w, {InputEvent::Kind::Focus, 0, focused, 0, 0, 0});
    });
    glfwSetCursorEnterCallback(window_, [](GLFWwindow* w, int entered) {
      push(w, {InputEvent::Kind::CursorEnter, 0, entered, 0, 0, 0});
    });
    glfwSetCursorPosCallback(window_, [](GLFWwindow* w, double, double) {
      push(w, {InputEvent::Kind::CursorMove, 0, InputEvent::Press, 0, 0, 0});
    });
    glfwSetWindowRefreshCallback(window_, [](GLFWwindow* w) {
      push(w, {InputEvent::Kind::Redraw, 0, InputEvent::Press, 0, 0, 0});
    });
    glfwSetFramebufferSizeCallback(window_, [](GLFWwindow* w, int, int) {
      push(w, {InputEvent::Kind::Redraw, 0, InputEvent::Press, 0, 0, 0});
    });
  }

  ~GlfwWindow() override {
    glfwSetDropCallback(window_, nullptr);
    glfwSetKeyCallback(window_, nullptr);
    glfwSetCharCallback(window_, nullptr);
    glfwSetMouseButtonCallback(window_, nullptr);
    glfwSetScrollCallback(window_, nullptr);
    glfwSetWindowFocusCallback(window_, nullptr);
    glfwSetCursorEnterCallback(window_, nullptr);
    glfwSetCursorPosCallback(window_, nullptr);
    glfwSetWindowRefreshCallback(window_, nullptr);
    glfwSetFramebufferSizeCallback(window_, nullptr);
    glfwSetWindowUserPointer(window_, nullptr);
    glfwDestroyWindow(window_);
    // blockscope has one window per process; glfwInit in make_glfw_window pairs with this.
    glfwTerminate();
    // x11_errors_ goes after this body: errors while the window closes are survived too.
  }

  bool should_close() override { return glfwWindowShouldClose(window_); }
  void request_close() override { glfwSetWindowShouldClose(window_, GLFW_TRUE); }

  void poll_events() override {
    // Events from other clients are where their errors come from: make sure the reporter, not
    // something that replaced it since, sees them.
    if (x11_errors_) x11_errors_->ensure_installed();
    glfwPollEvents();
    // Minimised (or squashed to nothing): sleep in the event loop until there is something to
    // draw again, so an iconified app costs no CPU or GPU. The timeout only bounds how long a
    // close request from outside the event queue could go unnoticed.
    while (!glfwWindowShouldClose(window_) && nothing_to_draw()) {
      if (x11_errors_) x11_errors_->ensure_installed();
      glfwWaitEventsTimeout(0.5);
    }
  }

  void wait_events(double timeout_s) override {
    if (x11_errors_) x11_errors_->ensure_installed();
    if (timeout_s > 0) glfwWaitEventsTimeout(timeout_s);
    poll_events();
  }

  bool focused() override { return glfwGetWindowAttrib(window_, GLFW_FOCUSED) != 0; }

  // glfwPostEmptyEvent may be called from any thread (GLFW's thread-safety notes).
  void wake() override { glfwPostEmptyEvent(); }

  void swap_buffers() override { glfwSwapBuffers(window_); }

  void set_fullscreen(bool on) override {
    if (on == fullscreen()) return;
    if (on) {
      glfwGetWindowPos(window_, &windowed_[0], &windowed_[1]);
      glfwGetWindowSize(window_, &windowed_[2], &windowed_[3]);
      GLFWmonitor* monitor = glfwGetPrimaryMonitor();
      const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr;
      if (!mode) return;  // no monitor to fill (a virtual display without RandR): stay windowed
      glfwSetWindowMonitor(window_, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
    } else {
      glfwSetWindowMonitor(window_, nullptr, windowed_[0], windowed_[1], windowed_[2], windowed_[3], 0);
    }
  }
  bool fullscreen() override { return glfwGetWindowMonitor(window_) != nullptr; }

  std::pair<int, int> framebuffer_size() override {
    int width = 0, height = 0;
    glfwGetFramebufferSize(window_, &width, &height);
    return {width, height};
  }

  void resize(int width, int height) override { glfwSetWindowSize(window_, width, height); }

  float content_scale() override {
    float x = 1.0f, y = 1.0f;
    glfwGetWindowContentScale(window_, &x, &y);
    return x > y ? x : y;
  }

  std::vector<std::string> take_dropped_paths() override {
    std::vector<std::string> paths;
    paths.swap(dropped_paths_);
    return paths;
  }

  std::vector<InputEvent> take_input_events() override {
    std::vector<InputEvent> events;
    events.swap(input_);
    return events;
  }

  std::vector<std::string> take_platform_warnings() override {
    return x11_errors_ ? x11_errors_->take_reports() : std::vector<std::string>{};
  }

  GLFWwindow* glfw_handle() override { return window_; }
  void make_current() override { glfwMakeContextCurrent(window_); }
  void bind_default_framebuffer() override { glBindFramebuffer(GL_FRAMEBUFFER, 0); }

  std::string platform_description() override {
    // GLFW 3.3 has no glfwGetPlatform(); a build names its backend in the version string.
    const char* version = glfwGetVersionString();
    const bool wayland = version && std::strstr(version, "Wayland");
    return wayland ? "GLFW window (Wayland)" : "GLFW window (X11)";
  }

 private:
  bool nothing_to_draw() {
    if (glfwGetWindowAttrib(window_, GLFW_ICONIFIED)) return true;
    auto [width, height] = framebuffer_size();
    return width == 0 || height == 0;
  }

  static void on_key(GLFWwindow* window, int key, int /*scancode*/, int action, int mods) {
    if (key < 0) return;  // GLFW_KEY_UNKNOWN: a key GLFW has no name for
    push(window, {InputEvent::Kind::Key, key, action, mods, 0, 0});
  }

  // Bounded: nobody may read them (a hung frame loop). Pointer moves between two frames are one
  // event: ImGui reads where the pointer is when the frame starts.
  static void push(GLFWwindow* window, InputEvent e) {
    auto* self = static_cast<GlfwWindow*>(glfwGetWindowUserPointer(window));
    if (!self) return;
    std::vector<InputEvent>& q = self->input_;
    if (e.kind == InputEvent::Kind::CursorMove && !q.empty() && q.back().kind == InputEvent::Kind::CursorMove) return;
    if (q.size() < kMaxQueuedEvents) q.push_back(e);
  }
  static constexpr std::size_t kMaxQueuedEvents = 4096;

  static void on_drop(GLFWwindow* window, int count, const char** paths) {
    auto* self = static_cast<GlfwWindow*>(glfwGetWindowUserPointer(window));
    if (!self) return;
    // GLFW owns `paths` only for the duration of this callback: copy them.
    for (int i = 0; i < count; ++i) self->dropped_paths_.emplace_back(paths[i]);
  }

  int windowed_[4] = {0, 0, 1280, 800};  // position and size to return to from fullscreen
  GLFWwindow* window_;
  std::unique_ptr<x11::ProtocolErrorReporter> x11_errors_;  // null on Wayland or if another lives
  std::vector<std::string> dropped_paths_;
  std::vector<InputEvent> input_;
};

}  // namespace

Result<std::unique_ptr<Window>> make_glfw_window(int width, int height, const std::string& title) {
  if (width <= 0 || height <= 0) {
    return Status::failure("window size must be positive, got " + std::to_string(width) + "x" + std::to_string(height),
                           "pass a size such as 1280x800", "make_glfw_window");
  }
  // Without a display server glfwInit fails with a platform error; say what it means instead.
  if (!env_set("DISPLAY") && !env_set("WAYLAND_DISPLAY")) {
    return Status::failure("no display: neither DISPLAY nor WAYLAND_DISPLAY is set", kHeadlessHint, "make_glfw_window");
  }
  // Before glfwInit, so errors from the first request on are survived; GLFW's own temporary
  // handlers put it back when they are done. On Wayland it is installed too and never called.
  auto x11_errors = x11::ProtocolErrorReporter::install();
  glfwGetError(nullptr);  // start from a clean slate so the Status names this call's error
  if (!glfwInit()) { return glfw_failure("no display: GLFW could not initialise", "glfwInit", kHeadlessHint); }

  glfwDefaultWindowHints();
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);  // required on macOS, harmless elsewhere
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);       // HiDPI: size in logical pixels

  GLFWwindow* window = glfwCreateWindow(width, height, title.c_str(), nullptr, nullptr);
  if (!window) {
    Status status = glfw_failure("could not create a window with an OpenGL 3.3 core context", "glfwCreateWindow",
                                 "update the graphics driver, or run with --headless");
    glfwTerminate();
    return status;
  }
  glfwMakeContextCurrent(window);
  glfwSetWindowSizeLimits(window, kMinWindowWidth, kMinWindowHeight, GLFW_DONT_CARE, GLFW_DONT_CARE);
  // Owns the window, glfwTerminate and the error reporter from here.
  auto result = std::make_unique<GlfwWindow>(window, std::move(x11_errors));

  const int version = epoxy_gl_version();  // e.g. 33 for 3.3
  if (version < 33) {
    return Status::failure("the OpenGL context is version " + std::to_string(version / 10) + "." +
                               std::to_string(version % 10) + ", blockscope needs 3.3",
                           "update the graphics driver, or run with --headless", "epoxy_gl_version");
  }
  glfwSwapInterval(1);  // vsync: the UI redraws every frame, no need to outrun the monitor
  return std::unique_ptr<Window>(std::move(result));
}

}  // namespace bs
