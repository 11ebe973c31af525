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

}  // namespace
