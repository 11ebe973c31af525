// Headless windows: a real GL 3.3 core context from EGL, an FBO of the requested (odd) size,
// read-backs top row first, resizing, and a screenshot that survives a PNG round trip.
#include <epoxy/gl.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "platform/png.hpp"
#include "platform/window.hpp"
#include "png_decode.hpp"

namespace {

struct Rgba {
  uint8_t r, g, b, a;
};

Rgba random_colour(std::mt19937& rng) {
  std::uniform_int_distribution<int> byte(0, 255);
  return {static_cast<uint8_t>(byte(rng)), static_cast<uint8_t>(byte(rng)), static_cast<uint8_t>(byte(rng)),
          static_cast<uint8_t>(byte(rng))};
}

// Fills GL rows [y0, y1) (GL's bottom-up numbering) of the bound framebuffer with a colour.
void fill_gl_rows(int width, int y0, int y1, Rgba c) {
  glEnable(GL_SCISSOR_TEST);
  glScissor(0, y0, width, y1 - y0);
  glClearColor(c.r / 255.0f, c.g / 255.0f, c.b / 255.0f, c.a / 255.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  glDisable(GL_SCISSOR_TEST);
}

std::unique_ptr<bs::Window> headless(int w, int h) {
  auto window = bs::make_headless_window(w, h);
  EXPECT_TRUE(window.ok()) << window.status().describe();
  if (!window) return nullptr;
  return std::move(window).value();
}

TEST(HeadlessWindow, GivesAnOpenGl33CoreContextOnEgl) {
  auto window = headless(97, 61);
  ASSERT_TRUE(window);
  EXPECT_GE(epoxy_gl_version(), 33);
  GLint profile = 0;
  glGetIntegerv(GL_CONTEXT_PROFILE_MASK, &profile);
  EXPECT_TRUE(profile & GL_CONTEXT_CORE_PROFILE_BIT) << "profile mask " << profile;
  EXPECT_EQ(window->framebuffer_size(), std::make_pair(97, 61));
  EXPECT_EQ(window->glfw_handle(), nullptr);
  EXPECT_FLOAT_EQ(window->content_scale(), 1.0f);
  EXPECT_EQ(window->platform_description().rfind("EGL", 0), 0u) << window->platform_description();
  EXPECT_FALSE(window->gl_renderer().empty());
  EXPECT_FALSE(window->gl_version().empty());
  EXPECT_TRUE(window->take_dropped_paths().empty());
  std::printf("headless: %s | %s | %s\n", window->platform_description().c_str(), window->gl_renderer().c_str(),
              window->gl_version().c_str());
}

TEST(HeadlessWindow, CloseIsOnlyWhenRequested) {
  auto window = headless(8, 8);
  ASSERT_TRUE(window);
  window->poll_events();
  EXPECT_FALSE(window->should_close());
  window->request_close();
  EXPECT_TRUE(window->should_close());
}

TEST(HeadlessWindow, ReadPixelsIsTopRowFirst) {
  std::mt19937 rng(1234);
  const int w = 45, h = 31;  // odd: no row is a multiple of 8 bytes... or of anything convenient
  auto window = headless(w, h);
  ASSERT_TRUE(window);
  window->bind_default_framebuffer();
  glViewport(0, 0, w, h);
  // Three bands of random colours; the band at GL rows [h-7, h) is the TOP of the frame.
  const Rgba top = random_colour(rng), middle = random_colour(rng), bottom = random_colour(rng);
  fill_gl_rows(w, 0, 10, bottom);
  fill_gl_rows(w, 10, h - 7, middle);
  fill_gl_rows(w, h - 7, h, top);

  const std::vector<uint8_t> pixels = window->read_pixels_rgba();
  ASSERT_EQ(pixels.size(), static_cast<size_t>(w * h * 4));
  for (int y = 0; y < h; ++y) {
    const Rgba expected = y < 7 ? top : (y >= h - 10 ? bottom : middle);
    for (int x = 0; x < w; ++x) {
      const uint8_t* p = &pixels[(static_cast<size_t>(y) * w + x) * 4];
      ASSERT_EQ(p[0], expected.r) << "x=" << x << " y=" << y;
      ASSERT_EQ(p[1], expected.g) << "x=" << x << " y=" << y;
      ASSERT_EQ(p[2], expected.b) << "x=" << x << " y=" << y;
      ASSERT_EQ(p[3], expected.a) << "x=" << x << " y=" << y;
    }
  }
}

TEST(HeadlessWindow, ResizeReallocatesTheFramebuffer) {
  std::mt19937 rng(99);
  auto window = headless(64, 48);
  ASSERT_TRUE(window);
  window->resize(33, 17);
  EXPECT_EQ(window->framebuffer_size(), std::make_pair(33, 17));
  window->bind_default_framebuffer();
  EXPECT_EQ(glCheckFramebufferStatus(GL_FRAMEBUFFER), static_cast<GLenum>(GL_FRAMEBUFFER_COMPLETE));
  glViewport(0, 0, 33, 17);
  const Rgba c = random_colour(rng);
  fill_gl_rows(33, 0, 17, c);
  const auto pixels = window->read_pixels_rgba();
  ASSERT_EQ(pixels.size(), static_cast<size_t>(33 * 17 * 4));
  EXPECT_EQ(pixels[pixels.size() - 4], c.r);
  EXPECT_EQ(pixels[pixels.size() - 1], c.a);
}

TEST(HeadlessWindow, RejectsNonPositiveSizeWithStatus) {
  auto window = bs::make_headless_window(0, 10);
  ASSERT_FALSE(window.ok());
  EXPECT_NE(window.status().message.find("positive"), std::string::npos) << window.status().describe();
}

TEST(HeadlessWindow, ScreenshotPngIsNonEmptyNonUniformAndExact) {
  std::mt19937 rng(2024);
  const int w = 73, h = 41;
  auto window = headless(w, h);
  ASSERT_TRUE(window);
  window->bind_default_framebuffer();
  glViewport(0, 0, w, h);
  // A random mosaic of scissored rectangles.
  std::uniform_int_distribution<int> xs(0, w - 1), ys(0, h - 1);
  fill_gl_rows(w, 0, h, random_colour(rng));
  glEnable(GL_SCISSOR_TEST);
  for (int i = 0; i < 12; ++i) {
    const int x = xs(rng), y = ys(rng);
    const Rgba c = random_colour(rng);
    glScissor(x, y, 1 + xs(rng) / 2, 1 + ys(rng) / 2);
    glClearColor(c.r / 255.0f, c.g / 255.0f, c.b / 255.0f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
  }
  glDisable(GL_SCISSOR_TEST);
  const auto pixels = window->read_pixels_rgba();

  const auto path = std::filesystem::temp_directory_path() / "bs_test_headless_screenshot.png";
  bs::Status written = bs::write_png(path, w, h, 4, pixels.data());
  ASSERT_TRUE(written.ok()) << written.describe();
  EXPECT_GT(std::filesystem::file_size(path), 0u);

  const bs::test::DecodedImage decoded = bs::test::decode_png(path, 4);
  std::filesystem::remove(path);
  ASSERT_TRUE(decoded.error.empty()) << decoded.error;
  ASSERT_EQ(decoded.width, w);
  ASSERT_EQ(decoded.height, h);
  EXPECT_EQ(decoded.pixels, pixels);

  bool uniform = true;
  for (size_t i = 4; i < pixels.size() && uniform; i += 4) {
    uniform = std::equal(&pixels[i], &pixels[i] + 4, &pixels[0]);
  }
  EXPECT_FALSE(uniform) << "the screenshot is one flat colour";
}

}  // namespace
