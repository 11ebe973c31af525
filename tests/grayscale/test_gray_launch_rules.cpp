// Launch configurations the grayscale kernels refuse before launch, with the reason; nothing of
// a refused configuration runs.
#include <gtest/gtest.h>

#include "gray_test_support.hpp"

namespace {

using namespace bs::gray;
using namespace bs::gray::test;
using bs::Dim3;
using bs::KernelConfig;

TEST(GrayLaunchRules, TwoDKernelRefusesZExtent) {
  auto lab = cpu_lab(1);
  const auto rgba = random_rgba(64, 64, fresh_seed());
  ASSERT_TRUE(lab->set_image(rgba.data(), 64, 64, "t").ok());
  auto r = lab->plan("gray_2d", KernelConfig{Dim3{8, 8, 2}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status.message.find("blockDim.z"), std::string::npos) << r.status.message;
  // The 1D kernel flattens x*y*z, so the same block is fine there.
  EXPECT_TRUE(lab->plan("gray_1d_flat", KernelConfig{Dim3{8, 8, 2}}).ok());
}

TEST(GrayLaunchRules, TallImageWithFlatBlocksExceedsGridYAndSaysHowToFixIt) {
  // A 1 x 70000 image: 70000 blocks of one row each is over gridDim.y's 65535.
  auto lab = cpu_lab(2);
  std::vector<std::uint8_t> rgba(70000 * 4);
  for (std::size_t i = 0; i < rgba.size(); ++i) rgba[i] = static_cast<std::uint8_t>(i * 31 + 7);
  ASSERT_TRUE(lab->set_image(rgba.data(), 1, 70000, "tall").ok());
  auto r = lab->run("gray_2d", KernelConfig{Dim3{256, 1, 1}}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.refused);
  EXPECT_NE(r.status.message.find("65535"), std::string::npos) << r.status.message;
  EXPECT_NE(r.status.hint.find("blockDim.y >= 2"), std::string::npos) << r.status.hint;
  // And the suggested fix works, with a correct result.
  auto ok = lab->run("gray_2d", KernelConfig{Dim3{1, 2, 1}}, {});
  ASSERT_TRUE(ok.ok()) << ok.status.describe();
  std::vector<std::uint8_t> got(70000);
  ASSERT_TRUE(lab->download_output(got.data()).ok());
  expect_matches_reference(rgba, 1, 70000, got, "tall image", 0);
}

TEST(GrayLaunchRules, ImpossibleBlocksAreRefusedAndNothingRuns) {
  auto lab = cpu_lab(1);
  std::vector<std::uint8_t> rgba(5 * 5 * 4, 77);
  ASSERT_TRUE(lab->set_image(rgba.data(), 5, 5, "t").ok());
  for (Dim3 b : {Dim3{0, 1, 1}, Dim3{2048, 1, 1}, Dim3{1, 1, 65}, Dim3{33, 32, 1}, Dim3{4194304, 4194304, 4194304}}) {
    std::vector<std::uint8_t> out(25, 3);
    bs::lab::RunOptions opt;
    opt.output = out.data();
    auto rec = lab->run("gray_1d_flat", KernelConfig{b}, opt);
    EXPECT_FALSE(rec.ok()) << bs::to_string(b);
    EXPECT_TRUE(rec.refused);
    EXPECT_FALSE(rec.status.message.empty());
    EXPECT_EQ(out, std::vector<std::uint8_t>(25, 3)) << "a refused launch must not write";
  }
}

TEST(GrayLaunchRules, KernelsAreFoundByTheirIdsAndUnknownOnesAreRefused) {
  auto lab = cpu_lab(1);
  EXPECT_NE(lab->find_kernel("gray_1d_flat"), nullptr);
  EXPECT_NE(lab->find_kernel("gray_2d"), nullptr);
  EXPECT_EQ(lab->find_kernel("gray_3d"), nullptr);
  std::vector<std::uint8_t> rgba(4 * 4 * 4, 1);
  ASSERT_TRUE(lab->set_image(rgba.data(), 4, 4, "t").ok());
  auto r = lab->run("gray_3d", KernelConfig{}, {});
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.status.message.find("gray_3d"), std::string::npos);
}

TEST(GrayLayoutSetting, RgbaIsSelectedThroughTheLabInterfaceAndEveryRecordSaysSo) {
  auto lab = cpu_lab(2);
  bs::lab::Lab& l = *lab;
  const int w = 37 + static_cast<int>(fresh_seed() % 23), h = 5 + static_cast<int>(fresh_seed() % 7);
  const auto rgba = random_rgba(w, h, fresh_seed());
  ASSERT_TRUE(lab->set_image(rgba.data(), w, h, "t").ok());
  ASSERT_EQ(l.settings().size(), 1u);
  EXPECT_EQ(l.settings()[0].key, "layout");
  EXPECT_EQ(l.settings()[0].value, "planar");
  // An unknown key or value is refused with the choices, and nothing changes.
  const bs::Status bad_value = l.set_setting("layout", "bgr");
  EXPECT_FALSE(bad_value.ok());
  EXPECT_NE(bad_value.hint.find("planar, rgba"), std::string::npos) << bad_value.describe();
  const bs::Status bad_key = l.set_setting("colour", "rgba");
  EXPECT_FALSE(bad_key.ok());
  EXPECT_NE(bad_key.hint.find("layout"), std::string::npos) << bad_key.describe();
  EXPECT_EQ(lab->layout(), GrayLayout::Planar);
  ASSERT_TRUE(l.set_setting("layout", "rgba").ok());
  EXPECT_EQ(lab->layout(), GrayLayout::Rgba);
  for (const char* k : {"gray_1d_flat", "gray_vec16", "gray_grid_stride"}) {
    auto rec = l.run(k, l.default_config(*l.find_kernel(k)), {});
    ASSERT_TRUE(rec.ok()) << k << ": " << rec.status.describe();
    ASSERT_EQ(rec.settings.size(), 1u);
    EXPECT_EQ(rec.settings[0].second, "rgba");
    // 4 bytes read and 1 written per pixel, counted by hand.
    EXPECT_EQ(rec.bytes_moved, 5.0 * w * h) << k;
    std::vector<std::uint8_t> got(static_cast<std::size_t>(w) * h);
    ASSERT_TRUE(l.download_output(got.data()).ok());
    expect_matches_reference(rgba, w, h, got, k, 0);
  }
  // A fork keeps the layout.
  auto forked = l.fork();
  ASSERT_TRUE(forked.ok());
  EXPECT_EQ(forked.value()->settings()[0].value, "rgba");
}

TEST(GrayLayoutSetting, WarpRequestsFollowTheLayoutTheLaunchRan) {
  // gray_1d_flat, block 32: lane l of warp 0 handles pixel l. Planar reads one byte per plane
  // (32 bytes: 1 sector each); RGBA reads 4 bytes at 4 * l (128 bytes: 4 sectors).
  auto lab = cpu_lab(1);
  const auto rgba = random_rgba(67, 3, fresh_seed());
  ASSERT_TRUE(lab->set_image(rgba.data(), 67, 3, "t").ok());
  auto planar = lab->run("gray_1d_flat", KernelConfig{Dim3{32, 1, 1}}, {});
  ASSERT_TRUE(planar.ok());
  const auto p = lab->warp_accesses(planar, Dim3{1, 0, 0}, 0, 0);  // pixels 32..63
  ASSERT_EQ(p.size(), 4u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(p[i].element_bytes, 1u);
    EXPECT_EQ(p[i].lane_address[5], 67LL * 3 * i + 37) << i;
    const long long first = 67LL * 3 * i + 32, last = first + 31;  // planes 201 bytes apart
    EXPECT_EQ(p[i].sectors, static_cast<unsigned>(last / 32 - first / 32 + 1)) << i;
  }
  ASSERT_TRUE(lab->set_setting("layout", "rgba").ok());
  // The old record still describes the planar launch.
  EXPECT_EQ(lab->warp_accesses(planar, Dim3{1, 0, 0}, 0, 0).size(), 4u);
  auto r = lab->run("gray_1d_flat", KernelConfig{Dim3{32, 1, 1}}, {});
  ASSERT_TRUE(r.ok());
  const auto a = lab->warp_accesses(r, Dim3{1, 0, 0}, 0, 0);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].element_bytes, 4u);
  EXPECT_EQ(a[0].lane_address[5], 4 * 37);
  EXPECT_EQ(a[0].sectors, 4u);  // bytes 128..255
  EXPECT_TRUE(a[1].is_write);
  EXPECT_EQ(a[1].sectors, 1u);  // bytes 32..63 of the output
}

}  // namespace
