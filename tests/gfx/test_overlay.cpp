// The launch overlay, checked against the mapping computed here on the CPU:
//  - colour by block (2D): same block <=> same colour, for every pair of neighbouring pixels;
//  - colour by warp: linear thread / 32 decides the colour, across blocks;
//  - colour by SM: the per-block SM texture (wrapping past 4096 blocks) decides the colour;
//  - highlight (1D): exactly the pixels whose flattened index is in [b*T, (b+1)*T) change;
//  - a grid too small for the image leaves the pixels it does not reach marked.
#include <epoxy/gl.h>

#include <map>
#include <set>

#include "core/dim.hpp"
#include "gfx/gl_objects.hpp"
#include "gfx/image_view.hpp"
#include "gl_test_support.hpp"
#include "mapping/thread_map.hpp"
#include "state/app_state.hpp"

namespace {

using bs::GlTexture;
using bs::ImageViewParams;
using bs::ImageViewRenderer;
using bs::OverlayParams;
using bs::test::GlTest;
using bs::test::random_bytes;

using Rgb = std::array<uint8_t, 3>;

struct Scene {
  int w, h;
  std::vector<uint8_t> pixels;
  GlTexture texture;
};

Scene random_scene(int w, int h, std::mt19937& rng) {
  Scene s{w, h, random_bytes(static_cast<size_t>(w) * h * 4, rng), {}};
  auto texture = GlTexture::create_rgba8(w, h, s.pixels.data());
  EXPECT_TRUE(texture.ok());
  if (texture) s.texture = std::move(texture).value();
  return s;
}

// Zoom 1, centred, output = image: output pixel (x, y) is image pixel (x, y).
std::vector<uint8_t> render(ImageViewRenderer& renderer, const Scene& scene, const OverlayParams& overlay) {
  ImageViewParams view;
  view.texture_a = scene.texture.id();
  view.image_width = scene.w;
  view.image_height = scene.h;
  view.centre_x = scene.w / 2.0f;
  view.centre_y = scene.h / 2.0f;
  view.output_width = scene.w;
  view.output_height = scene.h;
  bs::Status s = renderer.render(view, overlay);
  EXPECT_TRUE(s.ok()) << s.describe();
  return bs::read_texture_rgba8(renderer.output());
}

Rgb rgb_at(const std::vector<uint8_t>& rgba, int w, int x, int y) {
  const size_t i = (static_cast<size_t>(y) * w + x) * 4;
  return {rgba[i], rgba[i + 1], rgba[i + 2]};
}

OverlayParams launch_2d(unsigned bdx, unsigned bdy, int w, int h) {
  OverlayParams o;
  o.mapping = 1;
  o.block[0] = bdx;
  o.block[1] = bdy;
  o.grid[0] = static_cast<unsigned>(bs::ceil_div(static_cast<unsigned>(w), bdx));
  o.grid[1] = static_cast<unsigned>(bs::ceil_div(static_cast<unsigned>(h), bdy));
  o.image_w = w;
  o.image_h = h;
  o.opacity = 1.0f;  // fills replace the image, so colours depend on the overlay alone
  return o;
}

// For every pair of horizontally or vertically adjacent pixels: key(a) == key(b) <=> colour(a)
// == colour(b). Returns how many pairs had different keys (so the test knows it saw boundaries).
template <class Key>
int expect_colour_partition_matches(const std::vector<uint8_t>& out, int w, int h, Key key) {
  int boundaries = 0;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      for (auto [dx, dy] : {std::pair{1, 0}, std::pair{0, 1}}) {
        const int nx = x + dx, ny = y + dy;
        if (nx >= w || ny >= h) continue;
        const bool same_key = key(x, y) == key(nx, ny);
        const bool same_colour = rgb_at(out, w, x, y) == rgb_at(out, w, nx, ny);
        boundaries += same_key ? 0 : 1;
        EXPECT_EQ(same_key, same_colour) << "(" << x << "," << y << ") vs (" << nx << "," << ny << ")";
        if (same_key != same_colour) return boundaries;
      }
    }
  }
  return boundaries;
}

TEST_F(GlTest, ColourByBlock2dGivesEachBlockOneColour) {
  std::mt19937 rng(31);
  Scene scene = random_scene(53, 41, rng);
  auto renderer = ImageViewRenderer::create();
  ASSERT_TRUE(renderer.ok()) << renderer.status().describe();
  OverlayParams o = launch_2d(8, 4, scene.w, scene.h);
  o.mode = OverlayParams::ColourByBlock;
  const auto out = render(renderer.value(), scene, o);
  const int boundaries = expect_colour_partition_matches(out, scene.w, scene.h, [](int x, int y) {
    return std::pair{x / 8, y / 4};
  });
  EXPECT_GT(boundaries, 100);
  // Every block (not only neighbours) has one colour: count distinct colours per block.
  std::map<std::pair<int, int>, std::set<Rgb>> colours;
  for (int y = 0; y < scene.h; ++y)
    for (int x = 0; x < scene.w; ++x) colours[{x / 8, y / 4}].insert(rgb_at(out, scene.w, x, y));
  for (const auto& [block, set] : colours) EXPECT_EQ(set.size(), 1u) << block.first << "," << block.second;
  EXPECT_EQ(colours.size(), 7u * 11u);
}

// Mapping 2 (x down the rows, IndexScheme::Grid2DTransposed): a block of 8 x 4 threads covers 8
// rows and 4 columns, and a warp of it is 4 columns of 8 rows.
TEST_F(GlTest, ColourByBlockAndWarpWithXDownTheRows) {
  std::mt19937 rng(39);
  Scene scene = random_scene(37, 29, rng);
  auto renderer = ImageViewRenderer::create();
  ASSERT_TRUE(renderer.ok());
  OverlayParams o = launch_2d(8, 4, scene.h, scene.w);  // the grid covers rows with x, columns with y
  o.mapping = 2;
  o.image_w = scene.w;
  o.image_h = scene.h;
  o.mode = OverlayParams::ColourByBlock;
  auto out = render(renderer.value(), scene, o);
  EXPECT_GT(expect_colour_partition_matches(out, scene.w, scene.h,
                                            [](int x, int y) {
                                              return std::pair{y / 8, x / 4};
                                            }),
            50);
  o = launch_2d(8, 8, scene.h, scene.w);
  o.mapping = 2;
  o.image_w = scene.w;
  o.image_h = scene.h;
  o.mode = OverlayParams::ColourByWarp;
  out = render(renderer.value(), scene, o);
  // Linear thread (y % 8) + 8 (x % 8): warp 0 is columns 0-3 of a block, warp 1 columns 4-7.
  expect_colour_partition_matches(out, scene.w, scene.h, [](int x, int y) { return ((y % 8) + 8 * (x % 8)) / 32; });
}

TEST_F(GlTest, ColourByWarpFollowsTheLinearThreadIndex) {
  std::mt19937 rng(32);
  Scene scene = random_scene(45, 29, rng);
  auto renderer = ImageViewRenderer::create();
  ASSERT_TRUE(renderer.ok());
  // 16 x 8 blocks: linear thread tx + 16 ty, warp = that / 32, so each warp is two rows of a
  // block, and warp w of every block looks the same.
  OverlayParams o = launch_2d(16, 8, scene.w, scene.h);
  o.mode = OverlayParams::ColourByWarp;
  const auto out = render(renderer.value(), scene, o);
  auto warp = [](int x, int y) { return ((x % 16) + (y % 8) * 16) / 32; };
  std::map<int, std::set<Rgb>> colours_of_warp;
  for (int y = 0; y < scene.h; ++y)
    for (int x = 0; x < scene.w; ++x) colours_of_warp[warp(x, y)].insert(rgb_at(out, scene.w, x, y));
  ASSERT_EQ(colours_of_warp.size(), 4u);
  std::set<Rgb> all;
  for (const auto& [w, set] : colours_of_warp) {
    EXPECT_EQ(set.size(), 1u) << "warp " << w;
    all.insert(*set.begin());
  }
  EXPECT_EQ(all.size(), 4u) << "different warps share a colour";
}

TEST_F(GlTest, ColourBySmReadsThePerBlockTextureAcrossRows) {
  std::mt19937 rng(33);
  // 1D mapping with one thread per block: 97 x 61 = 5917 blocks, more than one 4096-wide row.
  Scene scene = random_scene(97, 61, rng);
  const unsigned blocks = 97u * 61u;
  std::vector<uint32_t> sm(blocks);
  std::uniform_int_distribution<uint32_t> sms(0, 7);
  for (auto& s : sm) s = sms(rng);
  auto sm_texture = bs::make_sm_of_block_texture(sm);
  ASSERT_TRUE(sm_texture.ok()) << sm_texture.status().describe();
  EXPECT_EQ(sm_texture->width(), 4096);
  EXPECT_EQ(sm_texture->height(), 2);

  auto renderer = ImageViewRenderer::create();
  ASSERT_TRUE(renderer.ok());
  OverlayParams o;
  o.mode = OverlayParams::ColourBySm;
  o.mapping = 0;
  o.block[0] = 1;  // blockDim (1, 1, 1)
  o.block[1] = 1;
  o.grid[0] = blocks;
  o.opacity = 1.0f;
  o.sm_of_block_texture = sm_texture->id();
  const auto out = render(renderer.value(), scene, o);

  std::map<uint32_t, std::set<Rgb>> colours_of_sm;
  for (int y = 0; y < scene.h; ++y)
    for (int x = 0; x < scene.w; ++x)
      colours_of_sm[sm[static_cast<size_t>(y) * scene.w + x]].insert(rgb_at(out, scene.w, x, y));
  ASSERT_EQ(colours_of_sm.size(), 8u);
  std::set<Rgb> all;
  for (const auto& [s, set] : colours_of_sm) {
    EXPECT_EQ(set.size(), 1u) << "SM " << s;
    all.insert(*set.begin());
  }
  EXPECT_EQ(all.size(), 8u);
}

TEST_F(GlTest, HighlightIn1dCoversExactlyOneBlocksRunOfIndices) {
  std::mt19937 rng(34);
  Scene scene = random_scene(37, 23, rng);  // rows of 37, blocks of 50: runs wrap across rows
  auto renderer = ImageViewRenderer::create();
  ASSERT_TRUE(renderer.ok());
  const unsigned T = 50;
  const unsigned n = static_cast<unsigned>(scene.w * scene.h);
  OverlayParams o;
  o.mode = OverlayParams::BlockLines;
  o.mapping = 0;
  o.block[0] = T;  // blockDim (T, 1, 1)
  o.block[1] = 1;
  o.grid[0] = static_cast<unsigned>(bs::ceil_div(n, T));
  o.opacity = 0.7f;
  const auto plain = render(renderer.value(), scene, o);
  for (int trial = 0; trial < 3; ++trial) {
    const int b = std::uniform_int_distribution<int>(0, static_cast<int>(o.grid[0]) - 1)(rng);
    o.highlight_block_linear = b;
    const auto highlighted = render(renderer.value(), scene, o);
    int changed = 0;
    for (int y = 0; y < scene.h; ++y) {
      for (int x = 0; x < scene.w; ++x) {
        const unsigned i = static_cast<unsigned>(y * scene.w + x);
        const bool in_block = i >= b * T && i < (b + 1) * T;
        const bool differs = rgb_at(plain, scene.w, x, y) != rgb_at(highlighted, scene.w, x, y);
        changed += differs;
        ASSERT_EQ(differs, in_block) << "block " << b << " pixel (" << x << "," << y << ") index " << i;
      }
    }
    EXPECT_EQ(changed, static_cast<int>(std::min(T, n - b * T)));
  }
}

// The flat mapping's vector chunks, several chunks a thread, scalar head and tail, and grid-stride
// passes, against the owners kernels/mapping computes on the CPU: colour by block and by warp
// partition the pixels as the owners' blocks and warps do; the pixels no thread reaches are the
// ones whose colour still follows the image under an opaque fill; and a highlighted thread
// changes exactly the pixels it stores.
TEST_F(GlTest, FlatColoursAndHighlightsFollowTheOwnersWithVectorsHeadTailAndGridStride) {
  std::mt19937 rng(35);
  const int w = 53, h = 29;  // 1537 pixels: odd, and not a multiple of any vector
  Scene a = random_scene(w, h, rng);
  Scene b = random_scene(w, h, rng);
  auto renderer = ImageViewRenderer::create();
  ASSERT_TRUE(renderer.ok());
  struct Case {
    unsigned vector, per_thread, head, tail;
    bool stride;
    unsigned threads, blocks;
  };
  const Case cases[] = {
      {4, 2, 3, 5, false, 32, 6},   // enough blocks: every pixel covered
      {4, 2, 3, 5, true, 32, 2},    // two blocks loop over the data
      {16, 1, 7, 9, false, 64, 1},  // one block, one pass: most of the body unreached
      {1, 3, 0, 0, true, 96, 3},    // scalar chunks, three a thread, 96 threads (three warps)
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(testing::Message() << "vector " << k.vector << " per_thread " << k.per_thread << " head " << k.head
                                    << " tail " << k.tail << " stride " << k.stride);
    bs::IndexScheme scheme;
    scheme.vector = k.vector, scheme.per_thread = k.per_thread, scheme.grid_stride = k.stride;
    scheme.head = k.head, scheme.tail = k.tail;
    bs::LaunchConfig config;
    config.block = bs::Dim3{k.threads, 1, 1};
    config.grid = bs::Dim3{k.blocks, 1, 1};
    std::vector<std::optional<bs::mapping::ElementOwner>> owners;
    int covered = 0;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        owners.push_back(bs::mapping::owner_of(scheme, config, w, h, x, y, false));
        covered += owners.back().has_value();
      }
    EXPECT_GT(covered, 0);
    OverlayParams o;
    o.mapping = 0;
    o.vector = k.vector, o.per_thread = k.per_thread, o.head = k.head, o.tail = k.tail, o.grid_stride = k.stride;
    o.block[0] = k.threads, o.block[1] = 1, o.block[2] = 1;
    o.grid[0] = k.blocks, o.grid[1] = 1, o.grid[2] = 1;
    o.opacity = 1.0f;
    auto at = [&](int x, int y) -> const std::optional<bs::mapping::ElementOwner>& {
      return owners[static_cast<size_t>(y) * w + x];
    };
    for (auto mode : {OverlayParams::ColourByBlock, OverlayParams::ColourByWarp}) {
      o.mode = mode;
      const auto on_a = render(renderer.value(), a, o);
      const auto on_b = render(renderer.value(), b, o);
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
          ASSERT_EQ(rgb_at(on_a, w, x, y) == rgb_at(on_b, w, x, y), at(x, y).has_value())
              << "pixel (" << x << "," << y << "): an opaque fill hides the image exactly where a thread stores";
      const int boundaries = expect_colour_partition_matches(on_a, w, h, [&](int x, int y) {
        const auto& owner = at(x, y);
        if (!owner) return -2 - (y * w + x);  // unreached pixels are their own keys (hatched, not filled)
        return static_cast<int>(mode == OverlayParams::ColourByBlock ? owner->thread.linear_block
                                                                     : owner->thread.warp_in_block);
      });
      if (mode == OverlayParams::ColourByBlock || k.threads > 32) {  // one warp a block: one colour
        EXPECT_GT(boundaries, 0);
      }
    }
    o.mode = OverlayParams::BlockLines;
    o.opacity = 0.6f;
    const auto plain = render(renderer.value(), a, o);
    const unsigned long long threads = static_cast<unsigned long long>(k.threads) * k.blocks;
    for (int trial = 0; trial < 3; ++trial) {
      const long long t = std::uniform_int_distribution<long long>(0, static_cast<long long>(threads) - 1)(rng);
      o.highlight_thread = t;
      const auto lit = render(renderer.value(), a, o);
      int stored = 0;
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          const bool mine = at(x, y) && at(x, y)->thread.global_linear_thread == static_cast<unsigned long long>(t);
          stored += mine;
          ASSERT_EQ(rgb_at(plain, w, x, y) != rgb_at(lit, w, x, y), mine)
              << "thread " << t << " pixel (" << x << "," << y << ")";
        }
      if (!k.stride && k.blocks == 1 && k.vector == 16) continue;  // a thread may store nothing there
      EXPECT_GT(stored, 0) << "thread " << t;
    }
    o.highlight_thread = -1;
  }
}

TEST_F(GlTest, HighlightIn2dIsTheBlocksRectangle) {
  std::mt19937 rng(35);
  Scene scene = random_scene(50, 31, rng);
  auto renderer = ImageViewRenderer::create();
  ASSERT_TRUE(renderer.ok());
  OverlayParams o = launch_2d(16, 16, scene.w, scene.h);  // grid 4 x 2, last column partial
  o.mode = OverlayParams::ColourByBlock;
  o.opacity = 0.5f;
  const auto plain = render(renderer.value(), scene, o);
  o.highlight_block_linear = 3 + 1 * 4;  // block (3, 1): x 48..49, y 16..30 (clipped by the image)
  const auto highlighted = render(renderer.value(), scene, o);
  for (int y = 0; y < scene.h; ++y)
    for (int x = 0; x < scene.w; ++x) {
      const bool in_block = x / 16 == 3 && y / 16 == 1;
      ASSERT_EQ(rgb_at(plain, scene.w, x, y) != rgb_at(highlighted, scene.w, x, y), in_block) << x << "," << y;
    }
}

TEST_F(GlTest, PixelsTheGridDoesNotReachAreMarked) {
  std::mt19937 rng(36);
  Scene first = random_scene(41, 27, rng);
  Scene second = random_scene(41, 27, rng);
  auto renderer = ImageViewRenderer::create();
  ASSERT_TRUE(renderer.ok());
  // A 3 x 2 grid of 8 x 8 blocks reaches x < 24, y < 16 only.
  OverlayParams o = launch_2d(8, 8, 41, 27);
  o.grid[0] = 3;
  o.grid[1] = 2;
  o.mode = OverlayParams::ColourByBlock;
  const auto a = render(renderer.value(), first, o);
  const auto b = render(renderer.value(), second, o);
  const auto a_off = render(renderer.value(), first, OverlayParams{});
  int marked = 0;
  for (int y = 0; y < 27; ++y)
    for (int x = 0; x < 41; ++x) {
      if (x < 24 && y < 16) {
        // Reached: opaque block colour, whatever the image.
        ASSERT_EQ(rgb_at(a, 41, x, y), rgb_at(b, 41, x, y)) << x << "," << y;
      } else {
        // Not reached: no block colour (the image shows through) but a red hatch over it.
        ASSERT_NE(rgb_at(a, 41, x, y), rgb_at(b, 41, x, y)) << x << "," << y;
        marked += rgb_at(a, 41, x, y) != rgb_at(a_off, 41, x, y);
      }
    }
  EXPECT_EQ(marked, 41 * 27 - 24 * 16);
}

TEST_F(GlTest, BlockLinesSitOnBlockEdgesAndFadeWhenBlocksAreTiny) {
  std::mt19937 rng(37);
  Scene scene = random_scene(64, 48, rng);
  auto renderer = ImageViewRenderer::create();
  ASSERT_TRUE(renderer.ok());
  ImageViewParams view;
  view.texture_a = scene.texture.id();
  view.image_width = scene.w;
  view.image_height = scene.h;
  view.centre_x = 32.0f;
  view.centre_y = 24.0f;
  view.zoom = 4.0f;  // blocks of 8 image pixels are 32 output pixels wide: lines fully visible
  view.output_width = 128;
  view.output_height = 96;  // shows image x 16..48, y 12..36
  OverlayParams o = launch_2d(8, 8, 64, 48);
  o.mode = OverlayParams::BlockLines;
  o.opacity = 1.0f;
  ASSERT_TRUE(renderer->render(view, OverlayParams{}).ok());
  const auto off = bs::read_texture_rgba8(renderer->output());
  ASSERT_TRUE(renderer->render(view, o).ok());
  const auto on = bs::read_texture_rgba8(renderer->output());
  // Output column c shows image x = 16 + (c + 0.5) / 4; the block edge x = 24 is between
  // columns 31 and 32. Mid-block columns (x = 20, 28: columns 16, 48) carry no block line.
  auto column_changed = [&](const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, int c) {
    int n = 0;
    for (int y = 0; y < 96; ++y) n += rgb_at(a, 128, c, y) != rgb_at(b, 128, c, y);
    return n;
  };
  EXPECT_EQ(column_changed(off, on, 31), 96);
  EXPECT_EQ(column_changed(off, on, 32), 96);
  EXPECT_LT(column_changed(off, on, 16), 96 / 3);  // only where a horizontal edge crosses it
  EXPECT_LT(column_changed(off, on, 48), 96 / 3);

  // Zoomed out so far that a block is 2 output pixels: the lines fade out entirely.
  view.zoom = 0.25f;
  view.output_width = 16;
  view.output_height = 12;
  ASSERT_TRUE(renderer->render(view, OverlayParams{}).ok());
  const auto far_off = bs::read_texture_rgba8(renderer->output());
  ASSERT_TRUE(renderer->render(view, o).ok());
  EXPECT_EQ(bs::read_texture_rgba8(renderer->output()), far_off);
}

// The lecture's 1D kernel at fit zoom: blocks of 32 threads on rows of 64 pixels are one row tall,
// so the lines between rows fade out; every other block is tinted instead, and nothing else is.
// Zoomed in until a row is tall on screen, the lines show the blocks and the tint is gone.
TEST_F(GlTest, ThinFlatBlocksAreToldApartByATintWhenTheirLinesFade) {
  std::mt19937 rng(39);
  Scene scene = random_scene(64, 48, rng);
  auto renderer = ImageViewRenderer::create();
  ASSERT_TRUE(renderer.ok());
  const unsigned T = 32;
  OverlayParams o;
  o.mode = OverlayParams::BlockLines;
  o.mapping = 0;
  o.block[0] = T;
  o.block[1] = 1;
  o.grid[0] = static_cast<unsigned>(bs::ceil_div(64 * 48, T));
  o.opacity = 0.6f;
  const auto off = render(renderer.value(), scene, OverlayParams{});
  const auto on = render(renderer.value(), scene, o);
  int odd_tinted = 0, even_changed = 0, odd_pixels = 0;
  for (int y = 0; y < 48; ++y)
    for (int x = 0; x < 64; ++x) {
      if (x == 31 || x == 32) continue;  // the vertical edge between the row's two blocks
      const unsigned block = static_cast<unsigned>(y * 64 + x) / T;
      const bool changed = rgb_at(off, 64, x, y) != rgb_at(on, 64, x, y);
      if (block % 2 == 1) {
        ++odd_pixels;
        odd_tinted += changed;
      } else {
        even_changed += changed;
      }
    }
  EXPECT_EQ(odd_tinted, odd_pixels);
  EXPECT_EQ(even_changed, 0);

  // Zoom 8: a row is 8 output pixels tall, the lines between rows are drawn and the tint is gone:
  // the middle of a pixel of an odd block is the image's own colour.
  ImageViewParams view;
  view.texture_a = scene.texture.id();
  view.image_width = 64;
  view.image_height = 48;
  view.centre_x = 40.0f;  // shows image x 36..44, y 20..28: block 2 * 20 + 1 and its neighbours
  view.centre_y = 24.0f;
  view.zoom = 8.0f;
  view.output_width = 64;
  view.output_height = 64;
  ASSERT_TRUE(renderer->render(view, OverlayParams{}).ok());
  const auto near_off = bs::read_texture_rgba8(renderer->output());
  ASSERT_TRUE(renderer->render(view, o).ok());
  const auto near_on = bs::read_texture_rgba8(renderer->output());
  for (int py = 0; py < 8; ++py)
    for (int px = 0; px < 8; ++px) {
      const int c = px * 8 + 4, r = py * 8 + 4;  // the centre of each image pixel on screen
      EXPECT_EQ(rgb_at(near_off, 64, c, r), rgb_at(near_on, 64, c, r)) << px << "," << py;
    }
}

TEST_F(GlTest, InvalidOverlaysAreAStatus) {
  std::mt19937 rng(38);
  Scene scene = random_scene(8, 8, rng);
  auto renderer = ImageViewRenderer::create();
  ASSERT_TRUE(renderer.ok());
  ImageViewParams view;
  view.texture_a = scene.texture.id();
  view.image_width = view.image_height = view.output_width = view.output_height = 8;
  OverlayParams o;
  o.mode = OverlayParams::ColourByBlock;
  o.block[1] = 0;
  EXPECT_FALSE(renderer->render(view, o).ok());
  o.block[1] = 1;
  o.mapping = 3;
  EXPECT_FALSE(renderer->render(view, o).ok());
  o.mapping = 1;
  auto rgba_texture = GlTexture::create_rgba8(4, 1);
  ASSERT_TRUE(rgba_texture.ok());
  o.sm_of_block_texture = rgba_texture->id();  // not R32UI / R32F
  EXPECT_FALSE(renderer->render(view, o).ok());
}

// The view a new user gets (the default overlay mode and opacity of app/state's ViewState) keeps
// the photo the picture: inside each block, pixels that differ in the image still differ on screen
// by at least two thirds of their difference (the colour fill is the same over the whole block, so
// what varies is the image's share). At 0.45, the default before, only 55% remained and the
// stripes hid the photo until the learner found the opacity slider.
TEST_F(GlTest, TheDefaultOverlayKeepsTwoThirdsOfThePhotosContrastInsideEachBlock) {
  std::mt19937 rng(std::random_device{}());
  const int w = 61 + static_cast<int>(rng() % 40), h = 37 + static_cast<int>(rng() % 30);
  Scene scene = random_scene(w, h, rng);
  auto renderer = ImageViewRenderer::create();
  ASSERT_TRUE(renderer.ok());
  const bs::app::ViewState defaults;
  ASSERT_EQ(defaults.overlay, bs::app::OverlayMode::ColourByBlock);
  OverlayParams o = launch_2d(16, 8, w, h);
  o.mode = OverlayParams::ColourByBlock;
  o.opacity = defaults.overlay_opacity;
  const auto out = render(*renderer, scene, o);
  // Pairs of horizontal neighbours in the same block, away from its edges (no block lines there).
  double kept_sum = 0;
  int pairs = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 1; x + 2 < w; ++x) {
      if (x % 16 == 0 || (x + 1) % 16 == 0 || (x + 2) % 16 == 0 || y % 8 == 0 || y % 8 == 7) continue;
      for (int c = 0; c < 3; ++c) {
        const int in_diff = scene.pixels[(static_cast<size_t>(y) * w + x) * 4 + c] -
                            scene.pixels[(static_cast<size_t>(y) * w + x + 1) * 4 + c];
        if (std::abs(in_diff) < 40) continue;  // rounding matters less on large differences
        const int out_diff = rgb_at(out, w, x, y)[c] - rgb_at(out, w, x + 1, y)[c];
        kept_sum += static_cast<double>(out_diff) / in_diff;
        ++pairs;
      }
    }
  ASSERT_GT(pairs, 100);
  EXPECT_GE(kept_sum / pairs, 2.0 / 3.0) << "the photo's contrast left under the default overlay";
}

}  // namespace
