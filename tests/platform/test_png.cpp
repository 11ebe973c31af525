// write_png: every channel count round-trips exactly through stb_image at odd sizes, and a path
// that cannot be written gives a Status instead of a silent 0.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "platform/png.hpp"
#include "png_decode.hpp"

namespace {

std::vector<uint8_t> random_bytes(size_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(byte(rng));
  return v;
}

TEST(WritePng, RoundTripsEveryChannelCountAtOddSizes) {
  std::mt19937 rng(7);
  const int sizes[][2] = {{1, 1}, {37, 23}, {101, 3}, {5, 77}};
  for (int channels = 1; channels <= 4; ++channels) {
    for (const auto& size : sizes) {
      const int w = size[0], h = size[1];
      const auto pixels = random_bytes(static_cast<size_t>(w) * h * channels, rng);
      const auto path = std::filesystem::temp_directory_path() /
                        ("bs_test_png_" + std::to_string(channels) + "_" + std::to_string(w) + ".png");
      bs::Status s = bs::write_png(path, w, h, channels, pixels.data());
      ASSERT_TRUE(s.ok()) << s.describe();

      const bs::test::DecodedImage decoded = bs::test::decode_png(path);
      std::filesystem::remove(path);
      ASSERT_TRUE(decoded.error.empty()) << decoded.error;
      EXPECT_EQ(decoded.width, w);
      EXPECT_EQ(decoded.height, h);
      EXPECT_EQ(decoded.channels, channels);
      EXPECT_EQ(decoded.pixels, pixels) << channels << " channels, " << w << "x" << h;
    }
  }
}

TEST(WritePng, UnwritablePathIsAStatusNamingThePath) {
  std::mt19937 rng(8);
  const auto pixels = random_bytes(9 * 7 * 3, rng);
  const std::filesystem::path missing_dir = "/nonexistent-blockscope-dir/sub/shot.png";
  bs::Status s = bs::write_png(missing_dir, 9, 7, 3, pixels.data());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message.find(missing_dir.string()), std::string::npos) << s.describe();
  EXPECT_FALSE(s.hint.empty());

  // A directory is not a file either.
  bs::Status dir = bs::write_png(std::filesystem::temp_directory_path(), 9, 7, 3, pixels.data());
  EXPECT_FALSE(dir.ok());
}

TEST(WritePng, InvalidImagesAreRejected) {
  std::mt19937 rng(9);
  const auto pixels = random_bytes(16, rng);
  const auto path = std::filesystem::temp_directory_path() / "bs_test_png_invalid.png";
  EXPECT_FALSE(bs::write_png(path, 0, 4, 1, pixels.data()).ok());
  EXPECT_FALSE(bs::write_png(path, 4, 4, 5, pixels.data()).ok());
  EXPECT_FALSE(bs::write_png(path, 4, 4, 1, nullptr).ok());
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
