// Launch configurations the grayscale kernels refuse before launch, with the reason.
#include <gtest/gtest.h>

#include "labs/grayscale/gray_lab.hpp"
#include "simulator/grid_simulator.hpp"

namespace {

using namespace bs::gray;

TEST(GrayLaunchRules, TwoDKernelRefusesZExtent) {
  auto cfg = gray_launch_config(GrayKernel::Grid2D, {8, 8, 2}, 64, 64);
  auto s = check_gray_launch(GrayKernel::Grid2D, cfg, 64, 64, bs::DeviceLimits{}, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message.find("blockDim.z"), std::string::npos) << s.message;
  // The 1D kernel flattens x*y*z, so the same block is fine there.
  auto flat = gray_launch_config(GrayKernel::Flat1D, {8, 8, 2}, 64, 64);
  EXPECT_TRUE(check_gray_launch(GrayKernel::Flat1D, flat, 64, 64, bs::DeviceLimits{}, nullptr).ok());
}

TEST(GrayLaunchRules, TallImageWithFlatBlocksExceedsGridYAndSaysHowToFixIt) {
  // A 1 x 70000 image: 70000 blocks of one row each is over gridDim.y's 65535.
  auto cfg = gray_launch_config(GrayKernel::Grid2D, {256, 1, 1}, 1, 70000);
  EXPECT_EQ(cfg.grid.y, 70000u);
  auto s = check_gray_launch(GrayKernel::Grid2D, cfg, 1, 70000, bs::DeviceLimits{}, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message.find("65535"), std::string::npos) << s.message;
  EXPECT_NE(s.hint.find("blockDim.y >= 2"), std::string::npos) << s.hint;
  // And the suggested fix works, on the simulator, with a correct result.
  bs::sim::GridSimulator sim;
  auto lab = make_cpu_gray_lab(sim);
  std::vector<std::uint8_t> rgba(70000 * 4);
  for (std::size_t i = 0; i < rgba.size(); ++i) rgba[i] = static_cast<std::uint8_t>(i * 31 + 7);
  ASSERT_TRUE(lab->set_image(rgba.data(), 1, 70000).ok());
  EXPECT_FALSE(lab->run(GrayKernel::Grid2D, {256, 1, 1}, nullptr).ok());
  auto rec = lab->run(GrayKernel::Grid2D, {1, 2, 1}, nullptr);
  ASSERT_TRUE(rec.ok()) << rec.status.describe();
  std::vector<std::uint8_t> got(70000), ref(70000);
  ASSERT_TRUE(lab->download_result(got.data()).ok());
  gray_reference(rgba.data(), 1, 70000, ref.data());
  for (int i = 0; i < 70000; ++i) ASSERT_LE(std::abs(int(got[i]) - int(ref[i])), 1) << i;
}

TEST(GrayLaunchRules, ImpossibleBlocksAreRefusedAndNothingRuns) {
  bs::sim::GridSimulator sim(1);
  auto lab = make_cpu_gray_lab(sim);
  std::vector<std::uint8_t> rgba(5 * 5 * 4, 77);
  ASSERT_TRUE(lab->set_image(rgba.data(), 5, 5).ok());
  for (bs::Dim3 b : {bs::Dim3{0, 1, 1}, bs::Dim3{2048, 1, 1}, bs::Dim3{1, 1, 65},
                     bs::Dim3{33, 32, 1}}) {
    std::vector<std::uint8_t> out(25, 3);
    auto rec = lab->run(GrayKernel::Flat1D, b, out.data());
    EXPECT_FALSE(rec.ok()) << bs::to_string(b);
    EXPECT_FALSE(rec.status.message.empty());
    EXPECT_EQ(out, std::vector<std::uint8_t>(25, 3)) << "a refused launch must not write";
  }
}

TEST(GrayLaunchRules, KernelKeysRoundTrip) {
  EXPECT_EQ(gray_kernel_from_key("1d"), GrayKernel::Flat1D);
  EXPECT_EQ(gray_kernel_from_key("2d"), GrayKernel::Grid2D);
  EXPECT_EQ(gray_kernel_from_key("gray_2d"), GrayKernel::Grid2D);
  EXPECT_FALSE(gray_kernel_from_key("3d").has_value());
}

}  // namespace
