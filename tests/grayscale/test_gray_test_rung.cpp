// A rung is one file and one line: the test-only rung of gray_2d_columns.hpp joins a lab through
// the ONE line below (gray_ladder_with), and the lab's kernel list, its simulator runs, its
// verification, bench's records and the views' questions (owner, warp accesses) all take it
// from its traits, with no product code naming it. What it must do is written here from the
// kernel's own index expressions (x picks the row, y the column), never from the product's.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gray_2d_columns.hpp"
#include "gray_test_support.hpp"
#include "lab/bench.hpp"
#include "labs/grayscale/gray_ladder.hpp"
#include "measured/profile_launch.hpp"

namespace {

using namespace bs::gray;
using namespace bs::gray::test;
using bs::Dim3;
using bs::LaunchRecord;

constexpr std::string_view kId = "test_gray_2d_columns";

std::unique_ptr<GrayLab> lab_with_test_rung() {
  auto lab = GrayLab::create(cpu_backend(2), gray_ladder_with<Gray2dColumns>());  // the one line
  return lab ? std::move(lab.value()) : nullptr;
}

// A fresh random image of w x h, installed; its pixels returned.
std::vector<std::uint8_t> install_random(GrayLab& lab, int w, int h, std::uint32_t seed) {
  std::vector<std::uint8_t> rgba = random_rgba(w, h, seed);
  EXPECT_TRUE(lab.set_image(rgba.data(), w, h, "random").ok());
  return rgba;
}

// The thread that stores pixel (x, y), from the kernel's index expressions: row y is the global
// x index, column x the global y index.
struct Expected {
  Dim3 block, thread;
  unsigned long long global = 0;
};
Expected expected_owner(const bs::LaunchConfig& c, long long x, long long y) {
  Expected e;
  e.block = Dim3{static_cast<unsigned>(y / c.block.x), static_cast<unsigned>(x / c.block.y), 0};
  e.thread = Dim3{static_cast<unsigned>(y % c.block.x), static_cast<unsigned>(x % c.block.y), 0};
  const unsigned long long linear_block = e.block.x + 1ull * c.grid.x * e.block.y;
  e.global = linear_block * c.block.volume() + e.thread.x + 1ull * c.block.x * e.thread.y;
  return e;
}

TEST(TestRung, JoinsTheKernelListWithItsTraitsAndLeavesTheProductLadderAlone) {
  auto lab = lab_with_test_rung();
  ASSERT_TRUE(lab);
  const bs::lab::KernelInfo* k = lab->find_kernel(kId);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->block_rank, 2u);
  EXPECT_EQ(k->file, "tests/grayscale/gray_2d_columns.hpp");
  EXPECT_FALSE(k->fixed_grid_allowed);
  EXPECT_EQ(lab->kernels().size(), gray_rungs().size());  // CUB leaves the CPU list, the test rung joins
  EXPECT_EQ(find_gray_rung(gray_rungs(), kId), nullptr);
  auto product = GrayLab::create(cpu_backend(1));
  ASSERT_TRUE(product.ok());
  EXPECT_EQ(product.value()->find_kernel(kId), nullptr);
}

TEST(TestRung, RunsOnTheSimulatorOverTheGridItsRuleGivesAndMatchesTheIndependentReference) {
  auto lab = lab_with_test_rung();
  ASSERT_TRUE(lab);
  const struct {
    int w, h;
    Dim3 block;
  } cases[] = {{37, 23, {8, 4, 1}}, {1, 61, {32, 1, 1}}, {100, 3, {7, 13, 1}}, {5, 5, {16, 16, 1}}};
  for (const auto& c : cases)
    for (const char* layout : {"planar", "rgba"}) {
      const std::uint32_t seed = fresh_seed();
      const std::vector<std::uint8_t> rgba = install_random(*lab, c.w, c.h, seed);
      ASSERT_TRUE(lab->set_setting("layout", layout).ok());
      const std::string what = std::to_string(c.w) + "x" + std::to_string(c.h) + " " + layout + " block " +
                               bs::to_string(c.block) + " (seed " + std::to_string(seed) + ")";
      bs::lab::RunOptions o;
      o.trace_schedule = true;
      const LaunchRecord r = lab->run(kId, bs::KernelConfig{c.block}, o);
      ASSERT_TRUE(r.ok()) << what << ": " << r.status.describe();
      EXPECT_TRUE(r.check.passed()) << what;
      // The grid by hand: x over rows, y over columns.
      EXPECT_EQ(r.config.grid, (Dim3{static_cast<unsigned>((c.h + c.block.x - 1) / c.block.x),
                                     static_cast<unsigned>((c.w + c.block.y - 1) / c.block.y), 1}))
          << what;
      EXPECT_EQ(r.scheme.kind, bs::IndexScheme::Kind::Grid2DTransposed) << what;
      const Census seen = census(r);
      EXPECT_TRUE(seen.each_block_once) << what;
      EXPECT_EQ(seen.blocks, r.config.grid.volume()) << what;
      std::vector<std::uint8_t> out(lab->output_bytes());
      ASSERT_TRUE(lab->download_output(out.data()).ok());
      expect_matches_reference(rgba, c.w, c.h, out, what, seed);
    }
  // Its own refusals: blockDim.z, as the lecture's 2D kernel.
  install_random(*lab, 9, 9, fresh_seed());
  const LaunchRecord z = lab->run(kId, bs::KernelConfig{Dim3{4, 4, 2}}, {});
  EXPECT_FALSE(z.ok());
  EXPECT_NE(z.status.message.find("blockDim.z"), std::string::npos) << z.status.message;
}

TEST(TestRung, BenchRecordsItLikeEveryRung) {
  auto lab = lab_with_test_rung();
  ASSERT_TRUE(lab);
  ASSERT_TRUE(lab->set_random_problem("53x31").ok());
  bs::lab::BenchSpec spec;
  spec.kernels = {std::string(kId), "gray_2d"};
  spec.blocks = {Dim3{8, 8, 1}, Dim3{32, 4, 1}};
  spec.timing = bs::TimingPolicy::fixed(2, 1);
  const std::vector<LaunchRecord> records = bs::lab::run_bench(*lab, spec);
  int ours = 0;
  for (const LaunchRecord& r : records) {
    ASSERT_TRUE(r.ok()) << r.kernel << ": " << r.status.describe();
    EXPECT_TRUE(r.check.passed()) << r.kernel;
    EXPECT_EQ(r.timing.samples_ms.size(), 2u) << r.kernel;
    if (r.kernel != kId) continue;
    ++ours;
    EXPECT_DOUBLE_EQ(r.bytes_moved, (3.0 + 1.0) * 53 * 31);  // planar: 3 read + 1 written a pixel
    EXPECT_DOUBLE_EQ(r.flops, 5.0 * 53 * 31);
  }
  EXPECT_EQ(ours, 2);
}

TEST(TestRung, TheViewsOwnerAndWarpAccessesFollowWhatItsThreadsReallyWrite) {
  auto lab = lab_with_test_rung();
  ASSERT_TRUE(lab);
  const int w = 37, h = 13;
  const std::vector<std::uint8_t> rgba = install_random(*lab, w, h, fresh_seed());
  const Dim3 block{8, 4, 1};
  const LaunchRecord r = lab->run(kId, bs::KernelConfig{block}, {});
  ASSERT_TRUE(r.ok()) << r.status.describe();

  // Who really writes each pixel: every thread of the launch alone, on a poisoned output.
  const GrayRung rung = make_gray_rung<Gray2dColumns>();
  std::vector<std::uint8_t> planar(3 * w * h), out(w * h, 0xff);
  rgba_to_planar_rgb(rgba.data(), w, h, planar.data());
  const GrayArgs args{planar.data(), out.data(), w, h, w * h};
  std::vector<long long> writer(w * h, -1);
  const bs::LaunchConfig& c = r.config;
  for (unsigned by = 0; by < c.grid.y; ++by)
    for (unsigned bx = 0; bx < c.grid.x; ++bx)
      for (unsigned ty = 0; ty < c.block.y; ++ty)
        for (unsigned tx = 0; tx < c.block.x; ++tx) {
          bs::sim::HostCtx t;
          t.blockIdx = {bx, by, 0};
          t.threadIdx = {tx, ty, 0};
          t.blockDim = c.block;
          t.gridDim = c.grid;
          rung.thread(GrayLayout::Planar, t, args);
          const long long g = (bx + 1ll * c.grid.x * by) * c.block.volume() + tx + 1ll * c.block.x * ty;
          for (int e = 0; e < w * h; ++e)
            if (out[e] != 0xff) {
              EXPECT_EQ(writer[e], -1) << "pixel " << e << " written twice";
              writer[e] = g;
              out[e] = 0xff;
            }
        }
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const auto owner = lab->owner(r, x, y);
      ASSERT_TRUE(owner.has_value()) << x << "," << y;
      const Expected e = expected_owner(c, x, y);
      EXPECT_EQ(static_cast<long long>(owner->thread.global_linear_thread), writer[y * w + x]) << x << "," << y;
      EXPECT_EQ(owner->thread.global_linear_thread, e.global) << x << "," << y;
      EXPECT_EQ(owner->thread.block.x, e.block.x);
      EXPECT_EQ(owner->thread.block.y, e.block.y);
      EXPECT_EQ(owner->thread.thread.x, e.thread.x);
      EXPECT_EQ(owner->thread.thread.y, e.thread.y);
    }

  // The Memory tab's requests of block (0, 0)'s first warp: lane l = tx + 8 * ty stores pixel
  // (column ty, row tx), so its write lands tx rows down: 4 bytes on each of 8 rows of a
  // row-major image, a sector or two each.
  const auto accesses = lab->warp_accesses(r, Dim3{0, 0, 0}, 0, 0);
  ASSERT_EQ(accesses.size(), 4u);  // R, G, B reads and the write (planar)
  const bs::mapping::WarpAccess& write = accesses.back();
  EXPECT_TRUE(write.is_write);
  std::vector<long long> sectors;
  for (unsigned lane = 0; lane < 32; ++lane) {
    const unsigned tx = lane % block.x, ty = lane / block.x;
    const long long address = static_cast<long long>(tx) * w + ty;
    EXPECT_EQ(write.lane_address[lane], address) << "lane " << lane;
    sectors.push_back(address / 32);
  }
  std::sort(sectors.begin(), sectors.end());
  sectors.erase(std::unique(sectors.begin(), sectors.end()), sectors.end());
  EXPECT_EQ(write.sectors, sectors.size());
  EXPECT_GE(write.sectors, 8u);  // one sector at least per row: the lecture's 2D warp needs 1
}

// The Measured tab's prediction beside the GPU's counters (sectors per request) is read from the
// rung's access model too: a warp of the column walk touches a sector per lane, the lecture's 2D
// warp one sector per request (64-pixel rows: every warp's 32 bytes fill one sector).
TEST(TestRung, TheCountersPredictionComesFromItsAccessModel) {
  auto lab = lab_with_test_rung();
  ASSERT_TRUE(lab);
  ASSERT_TRUE(lab->set_random_problem("64x64").ok());
  const LaunchRecord cols = lab->run(kId, bs::KernelConfig{Dim3{32, 8, 1}}, {});
  const LaunchRecord rows = lab->run("gray_2d", bs::KernelConfig{Dim3{32, 8, 1}}, {});
  ASSERT_TRUE(cols.ok() && rows.ok());
  const auto c = bs::measured::model_sectors(*lab, cols), r = bs::measured::model_sectors(*lab, rows);
  EXPECT_DOUBLE_EQ(c.ld, 32.0) << c.sample;
  EXPECT_DOUBLE_EQ(c.st, 32.0) << c.sample;
  EXPECT_DOUBLE_EQ(r.ld, 1.0) << r.sample;
  EXPECT_DOUBLE_EQ(r.st, 1.0) << r.sample;
}

}  // namespace
