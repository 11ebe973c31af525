// The heatmap codes the matmul view shows (kernels/labs/matmul/matmul_heatmap.hpp), on the host:
// value codes against a double-precision reference, the downsampling's partition of the matrix,
// one wrong element of a large C lighting exactly its texel, NaN and exact-zero codes, the
// colour range ignoring outliers, and refused specs.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "labs/matmul/matmul.hpp"
#include "labs/matmul/matmul_heatmap.hpp"
#include "matmul_test_support.hpp"

namespace {

using namespace bs::matmul;

// The value code computed another way: in double, rounding to nearest.
int expected_value_code(float v, float lo, float hi) {
  if (!std::isfinite(v)) return 0;
  const double t = std::clamp((static_cast<double>(v) - lo) / (static_cast<double>(hi) - lo), 0.0, 1.0);
  return 1 + static_cast<int>(std::lround(t * 254.0));
}

std::vector<float> random_matrix(int rows, int cols, std::uint64_t seed) {
  return generate_matrix(rows, cols, Pattern::Normal, seed);
}

TEST(MatmulHeatmap, SizeShrinksEachSideOnItsOwn) {
  EXPECT_EQ(heatmap_size(10000, 10), (std::pair{10, 1024}));
  EXPECT_EQ(heatmap_size(7, 9), (std::pair{9, 7}));
  EXPECT_EQ(heatmap_size(4096, 4096, 512), (std::pair{512, 512}));
  EXPECT_EQ(heatmap_size(1, 1), (std::pair{1, 1}));
}

TEST(MatmulHeatmap, ValueCodesMatchAReferenceWithoutDownsampling) {
  const int rows = 37, cols = 53;
  std::vector<float> m = random_matrix(rows, cols, bs::matmul::testing::test_seed());
  m[5] = std::numeric_limits<float>::quiet_NaN();
  m[6] = std::numeric_limits<float>::infinity();
  const float r = symmetric_range(m.data(), m.size());
  const HeatmapSpec spec{rows, cols, cols, rows, HeatmapEncoding::Values, -r, r};
  std::vector<std::uint8_t> out(static_cast<std::size_t>(rows) * cols, 77);
  ASSERT_TRUE(fill_heatmap_host(m.data(), nullptr, spec, out.data()).ok());
  int clamped = 0;
  for (std::size_t i = 0; i < m.size(); ++i) {
    const int want = expected_value_code(m[i], -r, r);
    if (want == 0) {
      EXPECT_EQ(out[i], 0) << "NaN and Inf have the code 0, element " << i;
      continue;
    }
    // Float arithmetic may round a value sitting on a code boundary the other way.
    EXPECT_LE(std::abs(out[i] - want), 1) << "element " << i << " value " << m[i];
    clamped += want == 1 || want == 255;
  }
  EXPECT_GT(clamped, 0) << "the 99th-percentile range should clamp the largest values";
  EXPECT_EQ(out[5], 0);
  EXPECT_EQ(out[6], 0);
}

TEST(MatmulHeatmap, DownsampledTexelsPartitionTheMatrixAndShowAnElementOfTheirCell) {
  const int rows = 1013, cols = 777, out_w = 100, out_h = 333;
  const std::vector<float> m = random_matrix(rows, cols, bs::matmul::testing::test_seed() + 1);
  const HeatmapSpec spec{rows, cols, out_w, out_h, HeatmapEncoding::Values, -3, 3};
  std::vector<std::uint8_t> out(static_cast<std::size_t>(out_w) * out_h);
  ASSERT_TRUE(fill_heatmap_host(m.data(), nullptr, spec, out.data()).ok());
  // Cells from the documented formula; every row and column falls in exactly one.
  auto cell = [](int i, int n, int extent) { return std::pair{i * extent / n, (i + 1) * extent / n}; };
  std::vector<int> row_hits(rows), col_hits(cols);
  for (int y = 0; y < out_h; ++y)
    for (int r = cell(y, out_h, rows).first; r < cell(y, out_h, rows).second; ++r) ++row_hits[r];
  for (int x = 0; x < out_w; ++x)
    for (int c = cell(x, out_w, cols).first; c < cell(x, out_w, cols).second; ++c) ++col_hits[c];
  for (int h : row_hits) ASSERT_EQ(h, 1);
  for (int h : col_hits) ASSERT_EQ(h, 1);
  // Each texel is the code of one element of its own cell.
  for (int y = 0; y < out_h; ++y)
    for (int x = 0; x < out_w; ++x) {
      const auto [r0, r1] = cell(y, out_h, rows);
      const auto [c0, c1] = cell(x, out_w, cols);
      bool found = false;
      for (int r = r0; r < r1 && !found; ++r)
        for (int c = c0; c < c1 && !found; ++c)
          found = std::abs(expected_value_code(m[static_cast<std::size_t>(r) * cols + c], -3, 3) -
                           out[static_cast<std::size_t>(y) * out_w + x]) <= 1;
      ASSERT_TRUE(found) << "texel " << x << "," << y;
    }
}

TEST(MatmulHeatmap, OneWrongElementLightsExactlyItsTexel) {
  const int rows = 1000, cols = 997, out_w = 100, out_h = 100;
  std::mt19937_64 rng(bs::matmul::testing::test_seed());
  const std::vector<float> ref = random_matrix(rows, cols, bs::matmul::testing::test_seed() + 2);
  std::vector<float> got = ref;
  // Small errors well inside the range everywhere, one element far off.
  for (std::size_t i = 0; i < got.size(); i += 3) got[i] += 1e-6f * (1.0f + static_cast<float>(i % 7));
  const int bad_r = static_cast<int>(rng() % rows), bad_c = static_cast<int>(rng() % cols);
  got[static_cast<std::size_t>(bad_r) * cols + bad_c] += 0.5f;
  const HeatmapSpec spec{rows, cols, out_w, out_h, HeatmapEncoding::AbsError, 1e-8f, 1e-3f};
  std::vector<std::uint8_t> out(static_cast<std::size_t>(out_w) * out_h);
  ASSERT_TRUE(fill_heatmap_host(got.data(), ref.data(), spec, out.data()).ok());
  // The texel whose cell holds it: [i * extent / n, (i + 1) * extent / n) contains the index.
  auto texel_of = [](int index, int n, int extent) {
    for (int i = 0; i < n; ++i)
      if (i * extent / n <= index && index < (i + 1) * extent / n) return i;
    return -1;
  };
  const int tx = texel_of(bad_c, out_w, cols), ty = texel_of(bad_r, out_h, rows);
  for (int y = 0; y < out_h; ++y)
    for (int x = 0; x < out_w; ++x) {
      const int code = out[static_cast<std::size_t>(y) * out_w + x];
      if (x == tx && y == ty) {
        EXPECT_EQ(code, kHeatmapOverRange);
      } else {
        EXPECT_LT(code, kHeatmapOverRange) << x << "," << y;
        EXPECT_GT(code, kHeatmapExact) << "every cell has a small error " << x << "," << y;
      }
    }
}

TEST(MatmulHeatmap, ErrorCodesForExactNanAndTheLogScale) {
  // One row: exact, NaN where the reference is finite, NaN in the reference (not compared),
  // errors at the bottom, middle and top of the log range.
  const std::vector<float> ref = {1, 1, std::numeric_limits<float>::quiet_NaN(), 1, 1, 1};
  const std::vector<float> got = {1, std::numeric_limits<float>::quiet_NaN(), 5, 1 + 1e-6f, 1 + 1e-4f, 1 + 1e-2f};
  const HeatmapSpec spec{1, 6, 6, 1, HeatmapEncoding::AbsError, 1e-6f, 1e-2f};
  std::vector<std::uint8_t> out(6);
  ASSERT_TRUE(fill_heatmap_host(got.data(), ref.data(), spec, out.data()).ok());
  EXPECT_EQ(out[0], kHeatmapExact);
  EXPECT_EQ(out[1], kHeatmapOverRange);
  EXPECT_EQ(out[2], kHeatmapExact) << "nothing to compare against a NaN reference";
  // log10 of the error places it: 1e-6 at the bottom, 1e-4 half way, 1e-2 at the top (the
  // float representation of 1 + e is only near 1 + e, hence the tolerance).
  EXPECT_NEAR(out[3], 1, 3);
  EXPECT_NEAR(out[4], 1 + 253 / 2, 3);
  EXPECT_NEAR(out[5], 254, 3);
  EXPECT_LT(out[3], out[4]);
  EXPECT_LT(out[4], out[5]);
}

TEST(MatmulHeatmap, RangeIgnoresOutliersButNotAnIdentity) {
  std::vector<float> m = generate_matrix(200, 300, Pattern::Uniform, bs::matmul::testing::test_seed());
  m[1234] = 1000.0f;
  const float r = symmetric_range(m.data(), m.size());
  EXPECT_GT(r, 0.9f);
  EXPECT_LE(r, 1.0f);
  const std::vector<float> eye = generate_matrix(300, 300, Pattern::Identity, 0);
  EXPECT_EQ(symmetric_range(eye.data(), eye.size()), 1.0f);
  const std::vector<float> zeros(100, 0.0f);
  EXPECT_EQ(symmetric_range(zeros.data(), zeros.size()), 1.0f);
  const std::vector<float> scaled = {-8, 2, 4, std::numeric_limits<float>::quiet_NaN()};
  EXPECT_EQ(symmetric_range(scaled.data(), scaled.size()), 8.0f);
}

TEST(MatmulHeatmap, BadSpecsAreRefused) {
  const std::vector<float> m(12, 1.0f);
  std::vector<std::uint8_t> out(64);
  const HeatmapSpec bad[] = {
      {3, 4, 5, 3, HeatmapEncoding::Values, -1, 1},   // wider than the matrix
      {3, 4, 4, 0, HeatmapEncoding::Values, -1, 1},   // empty
      {3, 4, 4, 3, HeatmapEncoding::Values, 1, 1},    // lo == hi
      {3, 4, 4, 3, HeatmapEncoding::AbsError, 0, 1},  // log of 0
      {0, 4, 4, 3, HeatmapEncoding::Values, -1, 1},   // no rows
  };
  for (const HeatmapSpec& s : bad) EXPECT_FALSE(fill_heatmap_host(m.data(), m.data(), s, out.data()).ok());
  const HeatmapSpec ok{3, 4, 4, 3, HeatmapEncoding::AbsError, 1e-3f, 1};
  EXPECT_FALSE(fill_heatmap_host(m.data(), nullptr, ok, out.data()).ok()) << "errors need the reference";
  EXPECT_TRUE(fill_heatmap_host(m.data(), m.data(), ok, out.data()).ok());
}

}  // namespace
