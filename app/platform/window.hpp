// The Window interface: one OpenGL 3.3 core context plus somewhere to draw, either a GLFW window
// on a desktop or an offscreen framebuffer object on an EGL context (headless mode, CI, the GPU
// machine). The rest of the app draws the same frames into either; only this room knows which.
//
//   auto window = bs::make_glfw_window(1280, 800, "blockscope");        // or
//   auto window = bs::make_headless_window(1280, 800, cuda_device);     // EGL, no display needed
//   if (!window) show(window.status());
//   while (!(*window)->should_close()) {
//     (*window)->wait_events(idle ? 5.0 : 0.0);  // a desktop app sleeps while nothing changes
//     (*window)->poll_events();
//     for (auto& path : (*window)->take_dropped_paths()) load(path);
//     for (auto& line : (*window)->take_platform_warnings()) log.warn(line);
//     (*window)->bind_default_framebuffer();   // headless: its FBO; windowed: framebuffer 0
//     ... draw ...
//     (*window)->swap_buffers();
//   }
//
// Both kinds make their context current when created. GL resources created by the caller must
// be destroyed before the window (the window's destructor tears the context down).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/status.hpp"

struct GLFWwindow;

namespace bs {

// The smallest window blockscope is laid out for (the GLFW window refuses to shrink below it):
// every control still fits its panel there, wrapping where a row would not.
inline constexpr int kMinWindowWidth = 800;
inline constexpr int kMinWindowHeight = 600;

class Window {
 public:
  virtual ~Window() = default;
  Window() = default;
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  // True once the user closed the window (or request_close() was called).
  virtual bool should_close() = 0;
  virtual void request_close() = 0;

  // Windowed: processes pending events; while the window is minimised (or 0x0) it waits for
  // events instead of returning, so a minimised app uses no CPU or GPU. Headless: no-op.
  virtual void poll_events() = 0;

  // Windowed: sleeps in the event loop until an event arrives (input, a drop, the window needing
  // a redraw), wake() is called, or `timeout_s` passes; the events are then processed as by
  // poll_events(). This is how an idle window costs nothing. Headless: returns at once (the run
  // modes pace their own frames).
  virtual void wait_events(double timeout_s) { (void)timeout_s; }
  // Whether the window has the keyboard focus (another window has not taken it). Headless
  // windows always have it. The GPU's continuous runs pause while the window has not.
  virtual bool focused() { return true; }

  // Any thread: ends a wait_events() in progress, or makes the next one return at once (a worker
  // finished something the window should show). Headless: no-op.
  virtual void wake() {}

  // Windowed: presents the frame (vsync on). Headless: glFlush, the FBO keeps the frame.
  virtual void swap_buffers() = 0;

  // Size in framebuffer pixels (what glViewport wants), which on HiDPI differs from the window
  // size in screen coordinates.
  virtual std::pair<int, int> framebuffer_size() = 0;

  // Headless: reallocates the FBO. Windowed: asks the window manager for a new size (in screen
  // coordinates); framebuffer_size() reports what it really became.
  virtual void resize(int width, int height) = 0;

  // UI scale factor for HiDPI monitors (1.0 on a normal monitor and always 1.0 headless).
  virtual float content_scale() = 0;

  // Fullscreen on the monitor the window is on, and back to the window it was (F11). Headless:
  // there is no screen to fill, so it stays as it is.
  virtual void set_fullscreen(bool on) { (void)on; }
  virtual bool fullscreen() { return false; }

  // Key presses a window gives apart from take_input_events (test windows), oldest first (GLFW
  // key codes and GLFW_MOD_* bits): the shortcuts see them. The GLFW window gives none here; the
  // app takes the presses of the input events it hands to ImGui instead.
  struct KeyPress {
    int key = 0;
    int mods = 0;
  };
  virtual std::vector<KeyPress> take_key_presses() { return {}; }

  // Every input event since the last call, oldest first, as the platform delivered it. ImGui 1.86
  // has no input queue of its own (it reads whether a key is down once a frame), so the app hands
  // these to it a few at a time (shell/input_queue.hpp): at low frame rates "32 Tab 8 Enter"
  // must still reach the field as typed. Keys use GLFW key codes and GLFW_MOD_* bits. Any event
  // also means the window has something new to draw. Headless: none.
  struct InputEvent {
    enum class Kind {
      Key,          // code: the key; action: press, release or repeat; mods
      Char,         // code: a Unicode code point typed
      MouseButton,  // code: the button; action: press or release; mods
      Scroll,       // dx, dy: the wheel
      Focus,        // action: 1 the window gained the focus, 0 lost it
      CursorEnter,  // action: 1 the pointer entered the window, 0 left it
      CursorMove,   // the pointer moved (ImGui reads where it is at each frame)
      Redraw,       // the window was resized or uncovered and must be drawn again
    };
    enum Action { Release = 0, Press = 1, Repeat = 2 };
    Kind kind = Kind::Key;
    int code = 0;
    int action = Press;
    int mods = 0;
    double dx = 0, dy = 0;
  };
  virtual std::vector<InputEvent> take_input_events() { return {}; }

  // Paths dropped onto the window since the last call, oldest first. The GLFW drop callback
  // copies them (GLFW's strings die when the callback returns); the app handles them next frame.
  virtual std::vector<std::string> take_dropped_paths() = 0;

  // Problems the platform met and survived since the last call, one line each, for the message
  // log: e.g. X protocol errors caused by another client (a drag source that quit mid-drag),
  // which Xlib's default handler would have turned into exit(1). Headless: none.
  virtual std::vector<std::string> take_platform_warnings() { return {}; }

  // The GLFW window for ImGui_ImplGlfw_InitForOpenGL; nullptr when headless.
  virtual GLFWwindow* glfw_handle() = 0;

  // Makes this window's context current on the calling thread.
  virtual void make_current() = 0;

  // Binds the framebuffer that ends up on screen (windowed: 0) or in screenshots (headless: the
  // window's own FBO). Call before drawing the frame; ImGui's renderer draws into whatever is bound.
  virtual void bind_default_framebuffer() = 0;

  // The current frame's pixels as RGBA8, top row first (rows flipped from GL's bottom-up order).
  // Windowed: reads the back buffer, so call it before swap_buffers().
  virtual std::vector<uint8_t> read_pixels_rgba();

  std::string gl_renderer() const;  // GL_RENDERER, e.g. "NVIDIA H200/PCIe/SSE2", "llvmpipe (...)"
  std::string gl_version() const;   // GL_VERSION string

  // Where the context came from, for the status bar and bug reports, e.g. "GLFW window (X11)",
  // "EGL device platform, NVIDIA EGL device 0 (CUDA device 0)", "EGL Mesa surfaceless".
  virtual std::string platform_description() = 0;

  // The CUDA device the GL context runs on, when EGL told us (EGL_NV_device_cuda); -1 unknown.
  virtual int egl_cuda_device() { return -1; }
};

// A desktop window with a GL 3.3 core context, vsync on. Fails with a Status (never exits) when
// there is no display; the hint then says to use --headless.
Result<std::unique_ptr<Window>> make_glfw_window(int width, int height, const std::string& title);

// An offscreen GL 3.3 core context through EGL, drawing into a width x height RGBA8 FBO.
// Tries, in order: the EGL device platform (preferring the NVIDIA device whose CUDA ordinal is
// preferred_cuda_device, else the first NVIDIA device, else the first device), Mesa's surfaceless
// platform, the default display. One headless window per EGL display at a time: the destructor
// terminates the display.
Result<std::unique_ptr<Window>> make_headless_window(int width, int height, int preferred_cuda_device = -1);

}  // namespace bs
