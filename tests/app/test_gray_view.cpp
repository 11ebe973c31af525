// The grayscale view of a huge image on the simulation (issue 34): its textures hold only the
// window of the image the view shows, at its zoom's resolution, made again from the lab's image
// and the result as the view moves or a result arrives. With the limit lowered so that an odd
// 733 x 411 image counts as huge, the view draws exactly what whole textures draw, fitted (the
// result arriving after the window was made) and at zoom 1 and 2 (pans included), for a second
// image too, and the status file's result digest is the same. The App in-process (app_in_process.hpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <random>
#include <string>

#include "app_in_process.hpp"
#include "image/image_loader.hpp"
#include "labs/grayscale/gray_view.hpp"
#include "platform/png.hpp"

namespace {

namespace fs = std::filesystem;
using namespace bs;
using namespace bs::app;

class GrayViewOfAHugeImage : public bs::app::test::AppInProcess {
 protected:
  fs::path png(const std::string& name, int w, int h, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<std::uint8_t> rgba(static_cast<std::size_t>(w) * h * 4);
    for (auto& v : rgba) v = static_cast<std::uint8_t>(rng());
    for (std::size_t i = 3; i < rgba.size(); i += 4) rgba[i] = 255;
    const fs::path p = dir_ / name;
    EXPECT_TRUE(write_png(p, w, h, 4, rgba.data()).ok());
    return p;
  }
  void open(const fs::path& image) {
    window_->drops.push_back(image.string());
    ASSERT_TRUE(frames_until([&] {
      return !app_->loading() && app_->current_view()->lab().problem().name == image.filename().string() && ran();
    })) << app_->summary();
  }
  // The data view's pixels, at `zoom` and centre (cx, cy), from a screenshot of the window.
  std::vector<std::uint8_t> view_pixels(float zoom, float cx, float cy, const std::string& name) {
    ViewState& v = app_->current_view()->view_state();
    v.zoom = zoom, v.center_x = cx, v.center_y = cy;
    steps(2);
    ImGuiWindow* view = bs::app::test::child_window("view");
    EXPECT_NE(view, nullptr);
    if (!view) return {};
    const fs::path shot = dir_ / (name + ".png");
    EXPECT_TRUE(app_->write_screenshot(shot).ok());
    auto img = load_image_file(shot, LoadLimits{});
    EXPECT_TRUE(img.ok());
    if (!img.ok()) return {};
    std::vector<std::uint8_t> out;
    const int x0 = static_cast<int>(view->Pos.x) + 2, y0 = static_cast<int>(view->Pos.y) + 30;
    const int x1 = static_cast<int>(view->Pos.x + view->Size.x) - 2,
              y1 = static_cast<int>(view->Pos.y + view->Size.y) - 2;
    for (int y = y0; y < y1; ++y)
      out.insert(out.end(), img->rgba.begin() + (static_cast<std::size_t>(y) * img->width + x0) * 4,
                 img->rgba.begin() + (static_cast<std::size_t>(y) * img->width + x1) * 4);
    return out;
  }
  std::string digest() { return status().at("output").at("fnv1a64").str; }
};

TEST_F(GrayViewOfAHugeImage, IsDrawnThroughAWindowExactlyAsWholeTexturesDrawIt) {
  const std::uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const fs::path first = png("first.png", 733, 411, seed), second = png("second.png", 733, 411, seed + 1);
  struct Seen {
    std::vector<std::vector<std::uint8_t>> views;
    std::vector<std::string> digests;
  } seen[2];
  for (int windowed = 0; windowed < 2; ++windowed) {
    start("gray");
    auto* view = dynamic_cast<GrayView*>(app_->current_view());
    ASSERT_NE(view, nullptr);
    if (windowed) view->set_full_texture_limit(100 * 100);
    for (const fs::path& image : {first, second}) {
      open(image);
      // Fit first, as the image opened: the result arrived after the window was made for it.
      for (const auto& [zoom, cx, cy] :
           {std::tuple{0.0f, -1.0f, -1.0f}, std::tuple{1.0f, 366.5f, 205.5f}, std::tuple{2.0f, 101.0f, 57.0f},
            std::tuple{1.0f, 700.0f, 400.0f}, std::tuple{2.0f, 640.25f, 300.75f}})
        seen[windowed].views.push_back(view_pixels(zoom, cx, cy, "view" + std::to_string(seen[windowed].views.size())));
      seen[windowed].digests.push_back(digest());
      EXPECT_FALSE(seen[windowed].digests.back().empty());
    }
    stop();
  }
  ASSERT_EQ(seen[0].views.size(), seen[1].views.size());
  for (std::size_t i = 0; i < seen[0].views.size(); ++i) {
    ASSERT_FALSE(seen[0].views[i].empty());
    EXPECT_TRUE(seen[0].views[i] == seen[1].views[i]) << "view " << i << " differs when windowed";
  }
  EXPECT_EQ(seen[0].digests, seen[1].digests) << "the status file's result digest";
  EXPECT_NE(seen[0].views[1], seen[0].views[6]) << "the second image is shown";
}

}  // namespace
