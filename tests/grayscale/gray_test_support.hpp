// Shared by the grayscale tests: fresh random images, a reference computed another way (double
// precision straight from RGBA, written here, not the library's), labs on either backend, and a
// census of what really ran.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "core/launch_record.hpp"
#include "labs/grayscale/gray_lab.hpp"
#include "simulator/grid_simulator.hpp"

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

// The lecture's formula in double precision, truncated as a uint8 store truncates.
inline std::vector<std::uint8_t> independent_reference(const std::vector<std::uint8_t>& rgba, int w, int h) {
  std::vector<std::uint8_t> out(static_cast<std::size_t>(w) * h);
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<std::uint8_t>(
        std::floor(0.2989 * rgba[4 * i] + 0.5870 * rgba[4 * i + 1] + 0.1140 * rgba[4 * i + 2]));
  return out;
}

// The kernels round in float, the reference in double: they may differ by one grey level where
// a value lands next to an integer, never more, and only rarely.
inline void expect_matches_reference(const std::vector<std::uint8_t>& rgba, int w, int h,
                                     const std::vector<std::uint8_t>& got, const std::string& what,
                                     std::uint32_t seed) {
  const std::vector<std::uint8_t> ref = independent_reference(rgba, w, h);
  ASSERT_EQ(got.size(), ref.size());
  std::size_t off_by_one = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const int d = int(got[i]) - int(ref[i]);
    ASSERT_LE(std::abs(d), 1) << what << ": pixel (" << i % w << ", " << i / w << ") got " << int(got[i]) << " want "
                              << int(ref[i]) << " (seed " << seed << ")";
    off_by_one += d != 0;
  }
  EXPECT_LE(off_by_one, ref.size() / 100 + 1) << what << " (seed " << seed << ")";
}

inline lab::Backend cpu_backend(unsigned workers = 2) {
  lab::Backend b;
  b.kind = BackendKind::CpuSimulation;
  b.sim_workers = workers;
  b.limits = sim::simulator_limits(workers);
  b.label = "CPU simulation (test)";
  return b;
}

inline std::unique_ptr<GrayLab> cpu_lab(unsigned workers = 2) {
  auto lab = GrayLab::create(cpu_backend(workers));
  return lab ? std::move(lab.value()) : nullptr;
}

// What the trace says really ran: blocks recorded (each once) and the threads they counted.
struct Census {
  unsigned long long blocks = 0, threads = 0;
  bool each_block_once = true;
};
inline Census census(const LaunchRecord& r) {
  Census c;
  std::vector<int> seen(r.config.grid.volume(), 0);
  for (const BlockTrace& b : r.schedule) {
    ++c.blocks;
    c.threads += b.threads;
    const unsigned long long id =
        b.block.x + static_cast<unsigned long long>(r.config.grid.x) *
                        (b.block.y + static_cast<unsigned long long>(r.config.grid.y) * b.block.z);
    if (id >= seen.size() || seen[id]++ != 0) c.each_block_once = false;
  }
  return c;
}

}  // namespace bs::gray::test
