// Shared by the grayscale tests: fresh random images and the comparison with the reference.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "labs/grayscale/gray_kernels.hpp"

namespace bs::gray::test {

struct ImageSize {
  int w, h;
};

inline std::uint32_t fresh_seed() {
  static std::random_device rd;
  return rd();
}

inline std::vector<std::uint8_t> random_rgba(int w, int h, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> rgba(static_cast<std::size_t>(w) * h * 4);
  for (auto& v : rgba) v = static_cast<std::uint8_t>(rng());
  return rgba;
}

// The kernels round in float, the reference in double: they may differ by one grey level where
// a value lands next to an integer, never more, and only rarely.
inline void expect_matches_reference(const std::vector<std::uint8_t>& rgba, int w, int h,
                                     const std::vector<std::uint8_t>& got, const char* what,
                                     std::uint32_t seed) {
  std::vector<std::uint8_t> ref(static_cast<std::size_t>(w) * h);
  gray_reference(rgba.data(), w, h, ref.data());
  std::size_t off_by_one = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const int d = int(got[i]) - int(ref[i]);
    ASSERT_LE(std::abs(d), 1) << what << ": pixel (" << i % w << ", " << i / w << ") got "
                              << int(got[i]) << " want " << int(ref[i]) << " (seed " << seed << ")";
    off_by_one += d != 0;
  }
  EXPECT_LE(off_by_one, ref.size() / 100 + 1) << what << " (seed " << seed << ")";
}

}  // namespace bs::gray::test
