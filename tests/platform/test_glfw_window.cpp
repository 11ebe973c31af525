// Windowed mode: without a display it must fail with a Status that points at --headless (never
// exit); with a display (e.g. under xvfb-run) it must give a GL 3.3 core context.
#include <epoxy/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <gtest/gtest.h>

#include <cstring>

#include <cstdlib>
#include <optional>
#include <string>

#include "platform/window.hpp"
#include "skips.hpp"

namespace {

// Sets or unsets an environment variable for a scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) setenv(name, value, 1);
    else unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) setenv(name_.c_str(), old_->c_str(), 1);
    else unsetenv(name_.c_str());
  }

 private:
  std::string name_;
  std::optional<std::string> old_;
};

TEST(GlfwWindow, WithoutADisplayFailsWithAHeadlessHint) {
  ScopedEnv no_x("DISPLAY", nullptr);
  ScopedEnv no_wayland("WAYLAND_DISPLAY", nullptr);
  auto window = bs::make_glfw_window(640, 480, "blockscope test");
  ASSERT_FALSE(window.ok());
  EXPECT_NE(window.status().message.find("no display"), std::string::npos) << window.status().describe();
  EXPECT_NE(window.status().hint.find("--headless"), std::string::npos) << window.status().describe();
}

TEST(GlfwWindow, RejectsNonPositiveSize) {
  auto window = bs::make_glfw_window(-3, 480, "blockscope test");
  ASSERT_FALSE(window.ok());
  EXPECT_NE(window.status().message.find("positive"), std::string::npos);
}

TEST(GlfwWindow, OpensAGl33CoreWindowWhenThereIsADisplay) {
  const char* display = std::getenv("DISPLAY");
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  if (!(display && *display) && !(wayland && *wayland)) {
    BS_SKIP_NO_GL() << "no DISPLAY or WAYLAND_DISPLAY (run under xvfb-run to test windowed mode)";
  }
  auto window = bs::make_glfw_window(321, 203, "blockscope test");
  ASSERT_TRUE(window.ok()) << window.status().describe();
  auto& w = *window.value();
  EXPECT_GE(epoxy_gl_version(), 33);
  EXPECT_NE(w.glfw_handle(), nullptr);
  EXPECT_EQ(w.platform_description().rfind("GLFW window", 0), 0u);
  EXPECT_GT(w.content_scale(), 0.0f);
  auto [fw, fh] = w.framebuffer_size();
  EXPECT_GT(fw, 0);
  EXPECT_GT(fh, 0);
  w.poll_events();
  EXPECT_FALSE(w.should_close());
  EXPECT_TRUE(w.take_dropped_paths().empty());

  // The back buffer reads back top row first, like the headless FBO.
  w.bind_default_framebuffer();
  glViewport(0, 0, fw, fh);
  glClearColor(0.2f, 0.4f, 0.6f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  glEnable(GL_SCISSOR_TEST);
  glScissor(0, fh - 1, fw, 1);  // GL's top row
  glClearColor(1.0f, 0.0f, 0.0f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  glDisable(GL_SCISSOR_TEST);
  auto pixels = w.read_pixels_rgba();
  ASSERT_EQ(pixels.size(), static_cast<size_t>(fw) * fh * 4);
  EXPECT_EQ(pixels[0], 255);
  EXPECT_EQ(pixels[static_cast<size_t>(fw) * 4 + 0], 51);  // row 1: 0.2 * 255
  w.swap_buffers();

  // Drops: the callback the window installed copies GLFW's strings into its own queue (GLFW
  // frees them when the callback returns). glfwSetDropCallback hands back the installed one.
  GLFWdropfun installed = glfwSetDropCallback(w.glfw_handle(), nullptr);
  glfwSetDropCallback(w.glfw_handle(), installed);
  ASSERT_NE(installed, nullptr);
  char first[] = "/tmp/dropped one.png";
  char second[] = "/tmp/two.jpg";
  const char* paths[] = {first, second};
  installed(w.glfw_handle(), 2, paths);
  std::memset(first, 'x', sizeof first - 1);  // GLFW's buffers are gone after the callback
  std::memset(second, 'x', sizeof second - 1);
  EXPECT_EQ(w.take_dropped_paths(), (std::vector<std::string>{"/tmp/dropped one.png", "/tmp/two.jpg"}));
  EXPECT_TRUE(w.take_dropped_paths().empty());

  w.request_close();
  EXPECT_TRUE(w.should_close());
}

}  // namespace
