// CUDA's launch rules, checked before launch with a reason a learner can act on.
#include <gtest/gtest.h>

#include "core/launch.hpp"

namespace {

using bs::Dim3;
using bs::LaunchConfig;

bs::Status check(Dim3 grid, Dim3 block, const bs::KernelAttributes* k = nullptr, std::size_t dyn = 0) {
  return bs::validate_launch(LaunchConfig{grid, block, dyn}, bs::DeviceLimits::cuda_defaults(), k);
}

TEST(LaunchValidation, AcceptsTheLimitsThemselves) {
  EXPECT_TRUE(check({1, 1, 1}, {1024, 1, 1}).ok());
  EXPECT_TRUE(check({1, 1, 1}, {16, 1, 64}).ok());
  EXPECT_TRUE(check({2147483647u, 65535, 65535}, {1, 1, 1}).ok());
  EXPECT_TRUE(check({1, 1, 1}, {32, 32, 1}).ok());
}

TEST(LaunchValidation, ZeroDimensionsAreRefusedWithTheDimensionNamed) {
  auto s = check({1, 1, 1}, {16, 0, 1});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message.find("zero"), std::string::npos);
  EXPECT_EQ(s.code, "cudaErrorInvalidConfiguration");
  EXPECT_FALSE(check({0, 1, 1}, {16, 1, 1}).ok());
}

// A grid computed from an impossible block can round to zero (n / 2^31 threads); the learner
// chose the block, so the block's rule is the one reported (found by the soak).
TEST(LaunchValidation, AnImpossibleBlockIsNamedBeforeTheZeroGridItCaused) {
  auto s = check({0, 1, 1}, {2147483648u, 4096, 1});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message.find("per-dimension limit"), std::string::npos) << s.message;
  auto t = check({0, 1, 1}, {64, 32, 1});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.message.find("2048 threads"), std::string::npos) << t.message;
}

TEST(LaunchValidation, TooManyThreadsNamesTheCount) {
  auto s = check({1, 1, 1}, {32, 33, 1});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message.find("1056"), std::string::npos) << s.message;
  EXPECT_NE(s.message.find("1024"), std::string::npos) << s.message;
}

TEST(LaunchValidation, ZOver64AndXOver1024AreRefused) {
  EXPECT_FALSE(check({1, 1, 1}, {1, 1, 65}).ok());
  EXPECT_FALSE(check({1, 1, 1}, {1025, 1, 1}).ok());
  EXPECT_FALSE(check({1, 1, 1}, {1, 1025, 1}).ok());
}

TEST(LaunchValidation, GridOverItsLimitNamesTheAxis) {
  auto s = check({1, 65536, 1}, {32, 1, 1});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message.find("in y"), std::string::npos) << s.message;
  EXPECT_FALSE(check({1, 1, 65536}, {32, 1, 1}).ok());
}

TEST(LaunchValidation, KernelRegisterLimitAndSharedMemory) {
  bs::KernelAttributes heavy;
  heavy.max_threads_per_block = 512;
  heavy.registers_per_thread = 128;
  auto s = check({1, 1, 1}, {1024, 1, 1}, &heavy);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message.find("512"), std::string::npos);
  EXPECT_TRUE(check({1, 1, 1}, {512, 1, 1}, &heavy).ok());

  bs::KernelAttributes smem;
  smem.static_shared_bytes = 40 * 1024;
  EXPECT_FALSE(check({1, 1, 1}, {128, 1, 1}, &smem, 16 * 1024).ok());
  EXPECT_TRUE(check({1, 1, 1}, {128, 1, 1}, &smem, 8 * 1024).ok());
}

TEST(LaunchValidation, CeilDivCoversEveryItem) {
  for (unsigned long long n = 0; n < 200; ++n)
    for (unsigned long long b = 1; b < 40; ++b) {
      const auto blocks = bs::ceil_div(n, b);
      EXPECT_GE(blocks * b, n);
      if (n > 0) { EXPECT_LT((blocks - 1) * b, n); }
    }
}

}  // namespace
