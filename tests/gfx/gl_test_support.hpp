// Shared by the gfx tests: a fixture that owns a headless GL context for each test, and
// seeded random data.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "platform/window.hpp"

namespace bs::test {

// Every TEST_F gets a fresh headless context; objects the test body creates are destroyed
// before TearDown releases the context.
class GlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto window = make_headless_window(64, 64);
    ASSERT_TRUE(window.ok()) << window.status().describe();
    window_ = std::move(window).value();
  }
  void TearDown() override { window_.reset(); }
  std::unique_ptr<Window> window_;
};

inline std::vector<uint8_t> random_bytes(size_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(byte(rng));
  return v;
}

}  // namespace bs::test
