// Both lecture kernels on the CPU grid simulator against the plain reference, on odd sizes and
// many block shapes, with fresh random images. Every pixel must be written: each run starts from
// two different poison values and must give the same image.
#include <gtest/gtest.h>

#include "gray_test_support.hpp"
#include "labs/grayscale/gray_lab.hpp"
#include "simulator/grid_simulator.hpp"

namespace {

using namespace bs::gray;
using namespace bs::gray::test;
using bs::Dim3;

struct Case {
  GrayKernel kernel;
  ImageSize size;
  Dim3 block;
};

std::string name_of(const ::testing::TestParamInfo<Case>& p) {
  const Case& c = p.param;
  return std::string(info(c.kernel).key == "1d" ? "Flat1D" : "Grid2D") + "_" +
         std::to_string(c.size.w) + "x" + std::to_string(c.size.h) + "_b" +
         std::to_string(c.block.x) + "x" + std::to_string(c.block.y) + "x" +
         std::to_string(c.block.z);
}

std::vector<Case> all_cases() {
  const std::vector<ImageSize> sizes{{1, 1}, {1, 5000}, {1023, 767}, {4000, 3}, {5000, 1}};
  const std::vector<Dim3> flat_blocks{{1, 1, 1},   {32, 1, 1}, {100, 1, 1}, {256, 1, 1},
                                      {1024, 1, 1}, {16, 4, 2}, {7, 3, 5}};
  const std::vector<Dim3> grid_blocks{{1, 1, 1},  {16, 16, 1}, {32, 8, 1}, {32, 32, 1},
                                      {7, 13, 1}, {256, 1, 1}, {1, 256, 1}};
  std::vector<Case> cases;
  for (auto s : sizes) {
    for (auto b : flat_blocks) cases.push_back({GrayKernel::Flat1D, s, b});
    for (auto b : grid_blocks) cases.push_back({GrayKernel::Grid2D, s, b});
  }
  return cases;
}

class GrayOnSimulator : public ::testing::TestWithParam<Case> {
 protected:
  static bs::sim::GridSimulator& simulator() {
    static bs::sim::GridSimulator sim;
    return sim;
  }
};

TEST_P(GrayOnSimulator, MatchesReferenceAndWritesEveryPixel) {
  const Case c = GetParam();
  const std::uint32_t seed = fresh_seed();
  const auto rgba = random_rgba(c.size.w, c.size.h, seed);
  auto lab = make_cpu_gray_lab(simulator());
  ASSERT_TRUE(lab->set_image(rgba.data(), c.size.w, c.size.h).ok());

  const std::size_t n = static_cast<std::size_t>(c.size.w) * c.size.h;
  std::vector<std::uint8_t> out_a(n, 0x00), out_b(n, 0xff);
  for (auto* out : {&out_a, &out_b}) {
    auto rec = lab->run(c.kernel, c.block, out->data());
    ASSERT_TRUE(rec.ok()) << rec.status.describe();
    EXPECT_EQ(rec.config, gray_launch_config(c.kernel, c.block, c.size.w, c.size.h));
    EXPECT_EQ(rec.backend, bs::BackendKind::CpuSimulation);
    EXPECT_DOUBLE_EQ(rec.bytes_moved, 4.0 * n);
  }
  ASSERT_EQ(out_a, out_b) << "some pixel was never written (seed " << seed << ")";
  expect_matches_reference(rgba, c.size.w, c.size.h, out_a, "simulated kernel", seed);
}

INSTANTIATE_TEST_SUITE_P(OddSizesManyBlocks, GrayOnSimulator, ::testing::ValuesIn(all_cases()),
                         name_of);

TEST(GrayLaunchShape, GridCoversTheImageWithNoSpareBlock) {
  for (int w : {1, 3, 17, 1023})
    for (int h : {1, 2, 767}) {
      auto flat = gray_launch_config(GrayKernel::Flat1D, {128, 1, 1}, w, h);
      EXPECT_GE(flat.total_threads(), 1ull * w * h);
      EXPECT_LT((flat.grid.x - 1ull) * 128, 1ull * w * h);
      auto grid = gray_launch_config(GrayKernel::Grid2D, {16, 8, 1}, w, h);
      EXPECT_GE(grid.grid.x * 16ull, 1ull * w);
      EXPECT_LT((grid.grid.x - 1ull) * 16, 1ull * w);
      EXPECT_GE(grid.grid.y * 8ull, 1ull * h);
      EXPECT_LT((grid.grid.y - 1ull) * 8, 1ull * h);
    }
}

TEST(GrayLab, ScheduleTraceOnTheSimulatorIsLabelledSimulated) {
  bs::sim::GridSimulator sim(2);
  auto lab = make_cpu_gray_lab(sim);
  const auto rgba = random_rgba(37, 29, fresh_seed());
  ASSERT_TRUE(lab->set_image(rgba.data(), 37, 29).ok());
  GrayRunOptions opt;
  opt.trace_schedule = true;
  auto rec = lab->run(GrayKernel::Grid2D, {8, 8, 1}, nullptr, opt);
  ASSERT_TRUE(rec.ok());
  EXPECT_TRUE(rec.schedule_simulated);
  EXPECT_EQ(rec.schedule.size(), rec.config.total_blocks());
}

TEST(GrayLab, AFailedImageKeepsThePreviousOne) {
  bs::sim::GridSimulator sim(1);
  auto lab = make_cpu_gray_lab(sim);
  const auto rgba = random_rgba(9, 7, fresh_seed());
  ASSERT_TRUE(lab->set_image(rgba.data(), 9, 7).ok());
  EXPECT_FALSE(lab->set_image(nullptr, 0, 0).ok());
  EXPECT_EQ(lab->width(), 9);
  EXPECT_EQ(lab->height(), 7);
  EXPECT_TRUE(lab->run(GrayKernel::Flat1D, {32, 1, 1}, nullptr).ok());
}

}  // namespace
