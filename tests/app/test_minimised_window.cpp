// A minimised window (0 x 0 framebuffer) crashes nothing and loses nothing: the App keeps
// drawing frames into nothing, takes an image installed meanwhile, and shows the right result
// when the window comes back.
//
// Why a stand-in window: the headless EGL window never reports 0 x 0 (resize(0, 0) clamps its
// FBO to 1 x 1, tested below too), and a GLFW window does not return from poll_events() while
// it is iconified or 0 x 0 (app/platform/glfw_window.cpp, GlfwWindow::poll_events and
// nothing_to_draw: it waits in glfwWaitEventsTimeout, so a minimised app costs no CPU or GPU).
// The one 0 x 0 frame the App can still meet is the one after a close request ends that wait
// while the window is minimised; MinimisableWindow makes such frames on demand.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <random>
#include <set>

#include "cpu_app.hpp"
#include "labs/grayscale/gray_reference.hpp"
#include "image/image_loader.hpp"
#include "platform/forwarding_window.hpp"
#include "shell/app.hpp"
#include "skips.hpp"

namespace {

namespace fs = std::filesystem;
using namespace bs;
using namespace bs::app;

// The headless window, except that while `minimised` it reports a 0 x 0 framebuffer, as GLFW
// does for an iconified window.
class MinimisableWindow final : public ForwardingWindow {
 public:
  using ForwardingWindow::ForwardingWindow;
  bool minimised = false;
  std::pair<int, int> framebuffer_size() override { return minimised ? std::pair{0, 0} : inner_.framebuffer_size(); }
};

Rgba8Image random_image(int w, int h, std::uint32_t seed) {
  std::mt19937 rng(seed);
  Rgba8Image img;
  img.width = w;
  img.height = h;
  img.rgba.resize(static_cast<std::size_t>(w) * h * 4);
  for (auto& v : img.rgba) v = static_cast<std::uint8_t>(rng());
  img.name = "random_" + std::to_string(w) + "x" + std::to_string(h);
  img.format = "random";
  return img;
}

class MinimisedWindow : public ::testing::Test {
 protected:
  void SetUp() override {
    seed_ = std::random_device{}();
    dir_ = fs::temp_directory_path() / ("bs_minimised_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    auto headless = make_headless_window(640, 400);
    if (!headless) BS_SKIP_NO_GL() << "no headless OpenGL context: " << headless.status().describe();
    headless_ = std::move(headless.value());
    window_ = std::make_unique<MinimisableWindow>(*headless_);
    CliOptions options;
    options.state.selection.kernel = "gray_2d";
    options.state.selection.block = Dim3{16, 8, 1};
    auto app = bs::app::test::open_cpu_app(*window_, options);
    ASSERT_TRUE(app.ok()) << app.status().describe();
    app_ = std::move(app.value());
  }
  void TearDown() override {
    app_.reset();  // GL objects before the context
    window_.reset();
    headless_.reset();
    if (!HasFailure()) fs::remove_all(dir_);
  }

  // The output the view shows (read back from its GL texture) against the CPU reference.
  void expect_output_matches(const Rgba8Image& img) {
    const fs::path out = dir_ / "out.png";
    ASSERT_TRUE(app_->write_output(out).ok());
    auto got = load_image_file(out, LoadLimits{});
    ASSERT_TRUE(got.ok()) << got.status().describe();
    ASSERT_EQ(got->width, img.width);
    ASSERT_EQ(got->height, img.height);
    for (std::size_t i = 0; i < img.pixel_count(); ++i) {
      const std::uint8_t* p = &img.rgba[4 * i];
      const double ref = std::floor(0.2989 * p[0] + 0.5870 * p[1] + 0.1140 * p[2]);
      ASSERT_LE(std::abs(got->rgba[4 * i] - ref), 1.0) << "pixel " << i << " (seed " << seed_ << ")";
    }
  }

  // The screenshot shows something: more than a handful of distinct colours (UI, image, text).
  std::size_t distinct_colours() {
    const std::vector<std::uint8_t> px = headless_->read_pixels_rgba();
    std::set<std::uint32_t> colours;
    for (std::size_t i = 0; i + 3 < px.size(); i += 4) colours.insert(px[i] | px[i + 1] << 8 | px[i + 2] << 16);
    return colours.size();
  }

  std::uint32_t seed_ = 0;
  fs::path dir_;
  std::unique_ptr<Window> headless_;
  std::unique_ptr<MinimisableWindow> window_;
  std::unique_ptr<App> app_;
};

TEST_F(MinimisedWindow, ZeroByZeroFramesCrashNothingAndTheImageAndResultSurvive) {
  const Rgba8Image first = random_image(97, 61, seed_);
  ASSERT_TRUE(app_->install_image_for_test(first).ok());
  app_->frame();
  app_->present();
  expect_output_matches(first);

  window_->minimised = true;
  for (int i = 0; i < 5; ++i) {
    app_->frame();
    app_->present();
  }
  EXPECT_TRUE(app_->last_launch().ok()) << app_->last_launch().status.describe();
  // A screenshot of nothing is a message, not a crash.
  EXPECT_FALSE(app_->write_screenshot(dir_ / "nothing.png").ok());
  // An image arriving while minimised (a drop finished in the background) is taken.
  const Rgba8Image second = random_image(131, 3, seed_ + 1);
  ASSERT_TRUE(app_->install_image_for_test(second).ok());
  app_->frame();
  app_->present();

  window_->minimised = false;
  app_->frame();
  expect_output_matches(second);
  EXPECT_GT(distinct_colours(), 20u);
  EXPECT_TRUE(app_->write_screenshot(dir_ / "back.png").ok());
  app_->present();
}

TEST_F(MinimisedWindow, HeadlessResizeToZeroKeepsOnePixelAndComesBack) {
  const Rgba8Image img = random_image(65, 33, seed_);
  ASSERT_TRUE(app_->install_image_for_test(img).ok());
  headless_->resize(0, 0);
  EXPECT_EQ(headless_->framebuffer_size(), (std::pair{1, 1}));
  for (int i = 0; i < 3; ++i) {
    app_->frame();
    app_->present();
  }
  EXPECT_TRUE(app_->last_launch().ok());
  headless_->resize(640, 400);
  EXPECT_EQ(headless_->framebuffer_size(), (std::pair{640, 400}));
  app_->frame();
  expect_output_matches(img);
  EXPECT_GT(distinct_colours(), 20u);
  app_->present();
}

}  // namespace
