// A Window that forwards every call to another one: the base for windows that change one thing
// of a real one (the soak's drops, tests' key presses or a minimised framebuffer) and override
// only that.
#pragma once
#include "platform/window.hpp"

namespace bs {

class ForwardingWindow : public Window {
 public:
  explicit ForwardingWindow(Window& inner) : inner_(inner) {}

  bool should_close() override { return inner_.should_close(); }
  void request_close() override { inner_.request_close(); }
  void poll_events() override { inner_.poll_events(); }
  void wait_events(double timeout_s) override { inner_.wait_events(timeout_s); }
  void wake() override { inner_.wake(); }
  bool focused() override { return inner_.focused(); }
  void swap_buffers() override { inner_.swap_buffers(); }
  std::pair<int, int> framebuffer_size() override { return inner_.framebuffer_size(); }
  void resize(int width, int height) override { inner_.resize(width, height); }
  float content_scale() override { return inner_.content_scale(); }
  void set_fullscreen(bool on) override { inner_.set_fullscreen(on); }
  bool fullscreen() override { return inner_.fullscreen(); }
  std::vector<KeyPress> take_key_presses() override { return inner_.take_key_presses(); }
  std::vector<InputEvent> take_input_events() override { return inner_.take_input_events(); }
  std::vector<std::string> take_dropped_paths() override { return inner_.take_dropped_paths(); }
  std::vector<std::string> take_platform_warnings() override { return inner_.take_platform_warnings(); }
  GLFWwindow* glfw_handle() override { return inner_.glfw_handle(); }
  void make_current() override { inner_.make_current(); }
  void bind_default_framebuffer() override { inner_.bind_default_framebuffer(); }
  std::vector<uint8_t> read_pixels_rgba() override { return inner_.read_pixels_rgba(); }
  std::string platform_description() override { return inner_.platform_description(); }
  int egl_cuda_device() override { return inner_.egl_cuda_device(); }

 protected:
  Window& inner_;
};

}  // namespace bs
