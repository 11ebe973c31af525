// Shared by the image tests: a fresh seed per run (printed, and overridable to reproduce a
// failure), a temporary folder that cleans itself up, and pixel comparison with useful messages.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <span>
#include <sstream>
#include <string>

namespace bs::test {

// BS_TEST_SEED=<n> reproduces a failing run; otherwise every run draws fresh data.
inline std::uint32_t test_seed() {
  if (const char* fixed = std::getenv("BS_TEST_SEED"))
    return static_cast<std::uint32_t>(std::strtoul(fixed, nullptr, 10));
  return std::random_device{}();
}

inline std::string seed_note(std::uint32_t seed) {
  return "random seed " + std::to_string(seed) + " (rerun with BS_TEST_SEED=" + std::to_string(seed) + ")";
}

class TempDir {
 public:
  TempDir() {
    std::random_device random;
    path_ = std::filesystem::temp_directory_path() /
            ("blockscope-image-test-" + std::to_string(random()) + std::to_string(random()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::filesystem::path& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// Compares RGBA8 pixels; every channel may differ by at most `tolerance`. Names the first few
// mismatching pixels with coordinates.
inline ::testing::AssertionResult same_pixels(std::span<const std::uint8_t> expected,
                                              std::span<const std::uint8_t> actual, int width, int tolerance = 0) {
  if (expected.size() != actual.size())
    return ::testing::AssertionFailure() << "pixel buffer sizes differ: expected " << expected.size() << " bytes, got "
                                         << actual.size();
  std::ostringstream report;
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const int diff = std::abs(int(expected[i]) - int(actual[i]));
    if (diff <= tolerance) continue;
    if (++mismatches <= 5) {
      const std::size_t pixel = i / 4;
      report << "\n  pixel (" << pixel % width << ", " << pixel / width << ") channel " << i % 4 << ": expected "
             << int(expected[i]) << ", got " << int(actual[i]);
    }
  }
  if (mismatches == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << mismatches << " channel values differ by more than " << tolerance << ":"
                                       << report.str();
}

}  // namespace bs::test
