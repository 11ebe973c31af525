// The image view's coordinates: at zoom 1, centred, the output is the input pixel for pixel
// (proves the y convention, the odd-width upload and the sampling); zoom, pan, split and the
// output<->image helpers agree with what is drawn.
#include <epoxy/gl.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "gfx/gl_objects.hpp"
#include "gfx/image_view.hpp"
#include "gl_test_support.hpp"

namespace {

using bs::GlTexture;
using bs::ImageViewParams;
using bs::ImageViewRenderer;
using bs::test::GlTest;
using bs::test::random_bytes;

// The RGBA of output pixel (x, y), y from the top.
const uint8_t* at(const std::vector<uint8_t>& rgba, int width, int x, int y) {
  return &rgba[(static_cast<size_t>(y) * width + x) * 4];
}

ImageViewParams centred(GLuint texture, int w, int h, float zoom, int out_w, int out_h) {
  ImageViewParams view;
  view.texture_a = texture;
  view.image_width = w;
  view.image_height = h;
  view.centre_x = w / 2.0f;
  view.centre_y = h / 2.0f;
  view.zoom = zoom;
  view.output_width = out_w;
  view.output_height = out_h;
  return view;
}

std::vector<uint8_t> render(ImageViewRenderer& renderer, const ImageViewParams& view,
                            const bs::OverlayParams& overlay = {}) {
  bs::Status s = renderer.render(view, overlay);
  EXPECT_TRUE(s.ok()) << s.describe();
  return bs::read_texture_rgba8(renderer.output());
}

bool is_background(const uint8_t* p) { return p[0] == p[1] && p[1] == p[2] && p[0] < 48 && p[3] == 255; }

TEST_F(GlTest, ZoomOneCentredIsPixelExactForOddSizes) {
  std::mt19937 rng(21);
  auto renderer = ImageViewRenderer::create();
  ASSERT_TRUE(renderer.ok()) << renderer.status().describe();
  for (auto [w, h] : {std::pair{61, 37}, std::pair{1, 1}, std::pair{64, 33}, std::pair{17, 90}}) {
    const auto pixels = random_bytes(static_cast<size_t>(w) * h * 4, rng);
    auto texture = GlTexture::create_rgba8(w, h, pixels.data());
    ASSERT_TRUE(texture.ok());
    const auto out = render(renderer.value(), centred(texture->id(), w, h, 1.0f, w, h));
    EXPECT_EQ(out, pixels) << w << "x" << h;
  }
}

TEST_F(GlTest, GrayTexturesShowAsGray) {
  std::mt19937 rng(22);
  const int w = 43, h = 19;
  const auto gray = random_bytes(static_cast<size_t>(w) * h, rng);
  auto texture = GlTexture::create_r8(w, h, gray.data());
  ASSERT_TRUE(texture.ok());
  auto renderer = ImageViewRenderer::create();
  ASSERT_TRUE(renderer.ok());

  ImageViewParams view = centred(texture->id(), w, h, 1.0f, w, h);
  view.a_is_gray = true;
  const auto by_flag = render(renderer.value(), view);
  // Without the flag the texture's own R->RGB swizzle (create_r8 sets it) still shows gray.
  view.a_is_gray = false;
  const auto by_swizzle = render(renderer.value(), view);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const uint8_t g = gray[static_cast<size_t>(y) * w + x];
      for (const auto* out : {&by_flag, &by_swizzle}) {
        const uint8_t* p = at(*out, w, x, y);
        ASSERT_EQ(p[0], g);
        ASSERT_EQ(p[1], g);
        ASSERT_EQ(p[2], g);
        ASSERT_EQ(p[3], 255);
      }
    }
  }
}

TEST_F(GlTest, ZoomInIsNearestAndPanMovesByWholePixels) {
  std::mt19937 rng(23);
  const int w = 23, h = 15;
  const auto pixels = random_bytes(static_cast<size_t>(w) * h * 4, rng);
  auto texture = GlTexture::create_rgba8(w, h, pixels.data());
  ASSERT_TRUE(texture.ok());
  auto renderer = ImageViewRenderer::create();
  ASSERT_TRUE(renderer.ok());

  // Zoom 3, centre moved by (4, -2) image pixels, output with odd and even sides.
  const int zoom = 3, out_w = 50, out_h = 39;
  ImageViewParams view = centred(texture->id(), w, h, static_cast<float>(zoom), out_w, out_h);
  view.centre_x += 4.0f;
  view.centre_y -= 2.0f;
  const auto out = render(renderer.value(), view);
  int inside = 0, outside = 0;
  for (int y = 0; y < out_h; ++y) {
    for (int x = 0; x < out_w; ++x) {
      // Expected source pixel computed with the public helper at the output pixel's centre.
      auto [ix, iy] = bs::output_to_image(view, x + 0.5, y + 0.5);
      const int px = static_cast<int>(std::floor(ix)), py = static_cast<int>(std::floor(iy));
      const uint8_t* p = at(out, out_w, x, y);
      if (px >= 0 && py >= 0 && px < w && py < h) {
        ++inside;
        const uint8_t* e = &pixels[(static_cast<size_t>(py) * w + px) * 4];
        ASSERT_TRUE(std::equal(p, p + 4, e)) << "output " << x << "," << y << " image " << px << "," << py;
      } else {
        ++outside;
        ASSERT_TRUE(is_background(p)) << "output " << x << "," << y;
      }
    }
  }
  EXPECT_GT(inside, 0);
  EXPECT_GT(outside, 0);
  // And the helpers are inverses.
  auto [ox, oy] = bs::image_to_output(view, 7.25, 3.5);
  auto [bx, by] = bs::output_to_image(view, ox, oy);
  EXPECT_NEAR(bx, 7.25, 1e-9);
  EXPECT_NEAR(by, 3.5, 1e-9);
}

TEST_F(GlTest, ZoomOutIsBilinear) {
  std::mt19937 rng(24);
  const int w = 40, h = 26;  // even, so at zoom 1/2 every output pixel centre is on a texel corner
  const auto pixels = random_bytes(static_cast<size_t>(w) * h * 4, rng);
  auto texture = GlTexture::create_rgba8(w, h, pixels.data());
  ASSERT_TRUE(texture.ok());
  auto renderer = ImageViewRenderer::create();
  ASSERT_TRUE(renderer.ok());
  const auto out = render(renderer.value(), centred(texture->id(), w, h, 0.5f, w / 2, h / 2));
  for (int y = 0; y < h / 2; ++y) {
    for (int x = 0; x < w / 2; ++x) {
      for (int c = 0; c < 4; ++c) {
        int sum = 0;
        for (int dy = 0; dy < 2; ++dy)
          for (int dx = 0; dx < 2; ++dx) sum += pixels[((static_cast<size_t>(2 * y + dy)) * w + 2 * x + dx) * 4 + c];
        ASSERT_NEAR(at(out, w / 2, x, y)[c], sum / 4.0, 1.01) << x << "," << y << " channel " << c;
      }
    }
  }
}

TEST_F(GlTest, SplitShowsOriginalLeftAndResultRight) {
  std::mt19937 rng(25);
  const int w = 57, h = 21;
  const auto original = random_bytes(static_cast<size_t>(w) * h * 4, rng);
  const auto result = random_bytes(static_cast<size_t>(w) * h, rng);
  auto a = GlTexture::create_rgba8(w, h, original.data());
  auto b = GlTexture::create_r8(w, h, result.data());
  ASSERT_TRUE(a.ok() && b.ok());
  auto renderer = ImageViewRenderer::create();
  ASSERT_TRUE(renderer.ok());

  ImageViewParams view = centred(a->id(), w, h, 1.0f, w, h);
  view.texture_b = b->id();
  view.b_is_gray = true;
  view.split_fraction = 0.4f;
  view.draw_split_line = false;
  const auto out = render(renderer.value(), view);
  const float split_x = 0.4f * w;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const uint8_t* p = at(out, w, x, y);
      const size_t i = static_cast<size_t>(y) * w + x;
      if (x + 0.5f < split_x) {
        ASSERT_TRUE(std::equal(p, p + 4, &original[i * 4])) << x << "," << y;
      } else {
        ASSERT_EQ(p[0], result[i]) << x << "," << y;
        ASSERT_EQ(p[2], result[i]) << x << "," << y;
      }
    }
  }

  view.draw_split_line = true;
  const auto with_line = render(renderer.value(), view);
  const int line_x = static_cast<int>(split_x);  // the column whose centre is within 1 px
  EXPECT_EQ(at(with_line, w, line_x, h / 2)[0], 255);
  EXPECT_EQ(at(with_line, w, line_x, h / 2)[1], 255);
  EXPECT_EQ(at(with_line, w, line_x, h / 2)[2], 255);
}

TEST_F(GlTest, OutputFollowsTheRequestedSize) {
  std::mt19937 rng(26);
  const auto pixels = random_bytes(9 * 9 * 4, rng);
  auto texture = GlTexture::create_rgba8(9, 9, pixels.data());
  ASSERT_TRUE(texture.ok());
  auto renderer = ImageViewRenderer::create();
  ASSERT_TRUE(renderer.ok());
  EXPECT_EQ(renderer->texture(), 0u);
  ASSERT_TRUE(renderer->render(centred(texture->id(), 9, 9, 1.0f, 31, 12)).ok());
  EXPECT_NE(renderer->texture(), 0u);
  EXPECT_EQ(renderer->output().width(), 31);
  EXPECT_EQ(renderer->output().height(), 12);
  ASSERT_TRUE(renderer->render(centred(texture->id(), 9, 9, 1.0f, 7, 40)).ok());
  EXPECT_EQ(renderer->output().width(), 7);
  EXPECT_EQ(renderer->output().height(), 40);
}

TEST_F(GlTest, InvalidViewsAreAStatus) {
  std::mt19937 rng(27);
  const auto pixels = random_bytes(4 * 4 * 4, rng);
  auto texture = GlTexture::create_rgba8(4, 4, pixels.data());
  ASSERT_TRUE(texture.ok());
  auto renderer = ImageViewRenderer::create();
  ASSERT_TRUE(renderer.ok());
  ImageViewParams good = centred(texture->id(), 4, 4, 1.0f, 4, 4);
  EXPECT_TRUE(renderer->render(good).ok());
  auto bad = good;
  bad.texture_a = 0;
  EXPECT_FALSE(renderer->render(bad).ok());
  bad = good;
  bad.zoom = 0.0f;
  EXPECT_FALSE(renderer->render(bad).ok());
  bad = good;
  bad.zoom = NAN;
  EXPECT_FALSE(renderer->render(bad).ok());
  bad = good;
  bad.output_width = 0;
  EXPECT_FALSE(renderer->render(bad).ok());
  ImageViewRenderer never_created;
  EXPECT_FALSE(never_created.render(good).ok());
}

// Issue 34: a huge image's view holds only a window of it (TextureWindow). The window's texels,
// sampled here pixel by pixel from the image, drawn at zoom 1 and above with the window's origin,
// give exactly what the whole texture gives, at odd sizes, random centres and with the overlay.
std::vector<uint8_t> sample_window(const std::vector<uint8_t>& rgba, int w, int h, const bs::TextureWindow& win) {
  std::vector<uint8_t> out(static_cast<size_t>(win.width) * win.height * 4);
  for (int j = 0; j < win.height; ++j)
    for (int i = 0; i < win.width; ++i) {
      const long long x = std::min<long long>(w - 1, win.x0 + 1LL * i * win.step);
      const long long y = std::min<long long>(h - 1, win.y0 + 1LL * j * win.step);
      std::copy_n(&rgba[(y * w + x) * 4], 4, &out[(static_cast<size_t>(j) * win.width + i) * 4]);
    }
  return out;
}

TEST_F(GlTest, AWindowedViewDrawsWhatTheWholeTextureDrawsAtZoomOneAndAbove) {
  const std::uint32_t seed = std::random_device{}();
  std::mt19937 rng(seed);
  const int w = 301, h = 187;
  const auto pixels = random_bytes(static_cast<size_t>(w) * h * 4, rng);
  auto whole = GlTexture::create_rgba8(w, h, pixels.data());
  ASSERT_TRUE(whole.ok());
  auto renderer = ImageViewRenderer::create();
  ASSERT_TRUE(renderer.ok());
  bs::OverlayParams overlay;
  overlay.mode = bs::OverlayParams::BlockLines;
  overlay.block[0] = 16, overlay.block[1] = 8;
  overlay.grid[0] = (w + 15) / 16, overlay.grid[1] = (h + 7) / 8;
  for (int k = 0; k < 12; ++k) {
    ImageViewParams view = centred(whole->id(), w, h, k % 3 == 0 ? 1.0f : 1.0f + 0.75f * (k % 5), 97, 61);
    view.centre_x = std::uniform_real_distribution<float>(-20, w + 20)(rng);
    view.centre_y = std::uniform_real_distribution<float>(-20, h + 20)(rng);
    SCOPED_TRACE("seed " + std::to_string(seed) + ", zoom " + std::to_string(view.zoom) + ", centre " +
                 std::to_string(view.centre_x) + ", " + std::to_string(view.centre_y));
    const auto expected = render(renderer.value(), view, overlay);
    const bs::TextureWindow visible = bs::visible_window(view);
    const bs::TextureWindow held = bs::padded_window(visible, w, h);
    if (visible.empty()) continue;  // the view shows none of the image
    ASSERT_EQ(held.step, 1);
    ASSERT_TRUE(held.holds(visible));
    const auto texels = sample_window(pixels, w, h, held);
    auto part = GlTexture::create_rgba8(held.width, held.height, texels.data());
    ASSERT_TRUE(part.ok());
    view.texture_a = part->id();
    view.texture_x0 = held.x0, view.texture_y0 = held.y0, view.texture_step = held.step;
    EXPECT_EQ(render(renderer.value(), view, overlay), expected);
  }
}

// Below zoom 1 the window holds one pixel in `step` along each axis: each output pixel of a
// smooth image then shows a colour of the pixels near the point it maps to (within a step and a
// pixel), and a window one step off would not.
TEST_F(GlTest, AWindowedViewBelowZoomOneShowsThePixelsWhereItLooks) {
  const int w = 1201, h = 733;
  std::vector<uint8_t> pixels(static_cast<size_t>(w) * h * 4);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint8_t* p = &pixels[(static_cast<size_t>(y) * w + x) * 4];
      p[0] = static_cast<uint8_t>(x * 255 / (w - 1)), p[1] = static_cast<uint8_t>(y * 255 / (h - 1));
      p[2] = static_cast<uint8_t>((x + y) / 8 % 256), p[3] = 255;
    }
  auto renderer = ImageViewRenderer::create();
  ASSERT_TRUE(renderer.ok());
  for (float zoom : {0.3f, 0.21f, 0.5f, 0.09f}) {
    ImageViewParams view = centred(0, w, h, zoom, 83, 57);
    view.centre_x = w * 0.4f, view.centre_y = h * 0.55f;
    const bs::TextureWindow visible = bs::visible_window(view);
    EXPECT_EQ(visible.step, std::max(1, static_cast<int>(std::floor(1.0 / zoom))));
    const bs::TextureWindow held = bs::padded_window(visible, w, h);
    ASSERT_TRUE(held.holds(visible));
    const auto texels = sample_window(pixels, w, h, held);
    auto part = GlTexture::create_rgba8(held.width, held.height, texels.data());
    ASSERT_TRUE(part.ok());
    view.texture_a = part->id();
    view.texture_x0 = held.x0, view.texture_y0 = held.y0, view.texture_step = held.step;
    const auto out = render(renderer.value(), view);
    int checked = 0;
    for (int oy = 0; oy < view.output_height; oy += 3)
      for (int ox = 0; ox < view.output_width; ox += 3) {
        const auto [ix, iy] = bs::output_to_image(view, ox + 0.5, oy + 0.5);
        if (ix < 0 || iy < 0 || ix >= w || iy >= h) continue;
        const int r = held.step + 1;
        int lo[3] = {255, 255, 255}, hi[3] = {0, 0, 0};
        for (long long y = std::max(0LL, static_cast<long long>(iy) - r); y <= std::min<long long>(h - 1, iy + r); ++y)
          for (long long x = std::max(0LL, static_cast<long long>(ix) - r); x <= std::min<long long>(w - 1, ix + r);
               ++x)
            for (int c = 0; c < 3; ++c) {
              lo[c] = std::min<int>(lo[c], pixels[(y * w + x) * 4 + c]);
              hi[c] = std::max<int>(hi[c], pixels[(y * w + x) * 4 + c]);
            }
        for (int c = 0; c < 3; ++c)
          ASSERT_TRUE(at(out, view.output_width, ox, oy)[c] + 1 >= lo[c] &&
                      at(out, view.output_width, ox, oy)[c] <= hi[c] + 1)
              << "zoom " << zoom << " output (" << ox << ", " << oy << ") channel " << c << ": "
              << int(at(out, view.output_width, ox, oy)[c]) << " outside " << lo[c] << ".." << hi[c];
        ++checked;
      }
    EXPECT_GT(checked, 100);
  }
}

TEST(ImageViewHelpers, AWindowHoldsWhatTheViewShowsAtItsZoomsStepAndNoMore) {
  const std::uint32_t seed = std::random_device{}();
  std::mt19937 rng(seed);
  for (int k = 0; k < 2000; ++k) {
    ImageViewParams view;
    view.image_width = std::uniform_int_distribution<int>(1, 20000)(rng);
    view.image_height = std::uniform_int_distribution<int>(1, 20000)(rng);
    view.output_width = std::uniform_int_distribution<int>(1, 3000)(rng);
    view.output_height = std::uniform_int_distribution<int>(1, 2000)(rng);
    view.zoom = std::exp(std::uniform_real_distribution<float>(-5.0f, 3.0f)(rng));
    view.centre_x = std::uniform_real_distribution<float>(-0.2f, 1.2f)(rng) * view.image_width;
    view.centre_y = std::uniform_real_distribution<float>(-0.2f, 1.2f)(rng) * view.image_height;
    SCOPED_TRACE("seed " + std::to_string(seed) + " case " + std::to_string(k));
    const bs::TextureWindow v = bs::visible_window(view);
    const int step = std::max(1, static_cast<int>(std::floor(1.0 / view.zoom)));
    const auto [x0, y0] = bs::output_to_image(view, 0, 0);
    const auto [x1, y1] = bs::output_to_image(view, view.output_width, view.output_height);
    const bool shows_image = x1 > 0 && y1 > 0 && x0 < view.image_width && y0 < view.image_height;
    if (!shows_image) continue;
    ASSERT_FALSE(v.empty());
    EXPECT_EQ(v.step, step);
    EXPECT_EQ(v.x0 % step, 0);
    EXPECT_EQ(v.y0 % step, 0);
    // Every image pixel the view shows is held, and nothing outside the image.
    EXPECT_LE(v.x0, std::max(0.0, std::floor(x0)));
    EXPECT_LE(v.y0, std::max(0.0, std::floor(y0)));
    EXPECT_GE(v.x0 + 1LL * v.width * step, std::min<double>(view.image_width, std::ceil(x1)));
    EXPECT_GE(v.y0 + 1LL * v.height * step, std::min<double>(view.image_height, std::ceil(y1)));
    EXPECT_GE(v.x0, 0);
    EXPECT_LT(v.x0 + 1LL * (v.width - 1) * step, view.image_width);
    EXPECT_LT(v.y0 + 1LL * (v.height - 1) * step, view.image_height);
    // At most about twice the output's texels along each axis (a step of floor(1 / zoom)).
    EXPECT_LE(v.width, 2 * view.output_width + 4);
    EXPECT_LE(v.height, 2 * view.output_height + 4);
    const bs::TextureWindow p = bs::padded_window(v, view.image_width, view.image_height);
    EXPECT_TRUE(p.holds(v));
    EXPECT_LE(p.width, v.width * 3 / 2 + 3);
    EXPECT_LE(p.height, v.height * 3 / 2 + 3);
    bs::TextureWindow other_step = p;
    other_step.step = step + 1;
    EXPECT_FALSE(other_step.holds(v));
  }
}

TEST(ImageViewHelpers, ZoomToFitKeepsTheWholeImageVisible) {
  EXPECT_FLOAT_EQ(bs::zoom_to_fit(200, 100, 400, 400), 2.0f);
  EXPECT_FLOAT_EQ(bs::zoom_to_fit(1000, 300, 500, 500), 0.5f);
  EXPECT_FLOAT_EQ(bs::zoom_to_fit(0, 300, 500, 500), 1.0f);
}

}  // namespace
