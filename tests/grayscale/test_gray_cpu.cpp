// Both lecture kernels through the grayscale lab on the CPU backend, against a reference written
// in the test, on odd sizes and many block shapes, with fresh random images. Every pixel must be
// written: each run starts from two different poison values and must give the same image. What
// ran is counted as it ran (the simulator's census of blocks and threads) and compared with the
// grid computed here by hand, never with the lab's own grid arithmetic.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "gray_test_support.hpp"
#include "labs/grayscale/gray_engine.hpp"

namespace {

using namespace bs::gray;
using namespace bs::gray::test;
using bs::Dim3;

struct Case {
  std::string kernel;
  ImageSize size;
  Dim3 block;
};

std::string name_of(const ::testing::TestParamInfo<Case>& p) {
  const Case& c = p.param;
  return c.kernel + "_" + std::to_string(c.size.w) + "x" + std::to_string(c.size.h) + "_b" + std::to_string(c.block.x) +
         "x" + std::to_string(c.block.y) + "x" + std::to_string(c.block.z);
}

std::vector<Case> all_cases() {
  const std::vector<ImageSize> sizes{{1, 1}, {1, 5000}, {1023, 767}, {4000, 3}, {5000, 1}};
  const std::vector<Dim3> flat_blocks{{1, 1, 1},    {32, 1, 1}, {100, 1, 1}, {256, 1, 1},
                                      {1024, 1, 1}, {16, 4, 2}, {7, 3, 5}};
  const std::vector<Dim3> grid_blocks{{1, 1, 1},  {16, 16, 1}, {32, 8, 1}, {32, 32, 1},
                                      {7, 13, 1}, {256, 1, 1}, {1, 256, 1}};
  std::vector<Case> cases;
  for (auto s : sizes) {
    for (auto b : flat_blocks) cases.push_back({"gray_1d_flat", s, b});
    for (auto b : grid_blocks) cases.push_back({"gray_2d", s, b});
  }
  return cases;
}

// The grids the lecture's launches use, computed here by hand.
unsigned long long expected_blocks(const Case& c) {
  const unsigned long long n = 1ull * c.size.w * c.size.h, T = c.block.volume();
  if (c.kernel == "gray_1d_flat") return (n + T - 1) / T;
  return ((c.size.w + c.block.x - 1ull) / c.block.x) * ((c.size.h + c.block.y - 1ull) / c.block.y);
}

class GrayOnSimulator : public ::testing::TestWithParam<Case> {};

TEST_P(GrayOnSimulator, MatchesReferenceWritesEveryPixelAndRunsTheGridComputedByHand) {
  const Case c = GetParam();
  const std::uint32_t seed = fresh_seed();
  const auto rgba = random_rgba(c.size.w, c.size.h, seed);
  auto lab = cpu_lab();
  ASSERT_TRUE(lab);
  ASSERT_TRUE(lab->set_image(rgba.data(), c.size.w, c.size.h, "test").ok());

  const std::size_t n = static_cast<std::size_t>(c.size.w) * c.size.h;
  std::vector<std::uint8_t> out_a(n, 0x00), out_b(n, 0xff);
  for (auto* out : {&out_a, &out_b}) {
    bs::lab::RunOptions opt;
    opt.output = out->data();
    opt.trace_schedule = true;
    auto rec = lab->run(c.kernel, bs::KernelConfig{c.block}, opt);
    ASSERT_TRUE(rec.ok()) << rec.status.describe();
    EXPECT_EQ(rec.backend, bs::BackendKind::CpuSimulation);
    EXPECT_TRUE(rec.timing.simulated);
    EXPECT_DOUBLE_EQ(rec.bytes_moved, 4.0 * n);
    EXPECT_TRUE(rec.check.passed()) << rec.check.summary();
    const Census k = census(rec);
    EXPECT_TRUE(k.each_block_once);
    EXPECT_EQ(k.blocks, expected_blocks(c));
    EXPECT_EQ(k.threads, expected_blocks(c) * c.block.volume());
  }
  ASSERT_EQ(out_a, out_b) << "some pixel was never written (seed " << seed << ")";
  expect_matches_reference(rgba, c.size.w, c.size.h, out_a, "simulated " + c.kernel, seed);
}

INSTANTIATE_TEST_SUITE_P(OddSizesManyBlocks, GrayOnSimulator, ::testing::ValuesIn(all_cases()), name_of);

TEST(GrayLab, ScheduleTraceOnTheSimulatorIsLabelledSimulated) {
  auto lab = cpu_lab(2);
  const auto rgba = random_rgba(37, 29, fresh_seed());
  ASSERT_TRUE(lab->set_image(rgba.data(), 37, 29, "t").ok());
  bs::lab::RunOptions opt;
  opt.trace_schedule = true;
  auto rec = lab->run("gray_2d", bs::KernelConfig{Dim3{8, 8, 1}}, opt);
  ASSERT_TRUE(rec.ok());
  EXPECT_TRUE(rec.schedule_simulated);
  EXPECT_EQ(rec.schedule.size(), 5u * 4u);  // ceil(37 / 8) x ceil(29 / 8)
  for (const auto& b : rec.schedule) EXPECT_LT(b.unit, 2u);
}

TEST(GrayLab, AFailedImageKeepsThePreviousOne) {
  auto lab = cpu_lab(1);
  const auto rgba = random_rgba(9, 7, fresh_seed());
  ASSERT_TRUE(lab->set_image(rgba.data(), 9, 7, "keep").ok());
  EXPECT_FALSE(lab->set_image(nullptr, 0, 0, "bad").ok());
  EXPECT_EQ(lab->width(), 9);
  EXPECT_EQ(lab->height(), 7);
  EXPECT_EQ(lab->image_name(), "keep");
  EXPECT_TRUE(lab->run("gray_1d_flat", bs::KernelConfig{Dim3{32, 1, 1}}, {}).ok());
}

TEST(GrayLab, AWrongOutputIsCaughtAndNamesItsPixels) {
  // The lab's check against its reference must fail for an output that is not the kernel's:
  // run into a buffer, then corrupt two pixels and verify through a second lab's comparison.
  auto lab = cpu_lab(1);
  const int w = 31, h = 17;
  const auto rgba = random_rgba(w, h, fresh_seed());
  ASSERT_TRUE(lab->set_image(rgba.data(), w, h, "t").ok());
  std::vector<std::uint8_t> out(static_cast<std::size_t>(w) * h);
  bs::lab::RunOptions opt;
  opt.output = out.data();
  ASSERT_TRUE(lab->run("gray_2d", bs::KernelConfig{Dim3{8, 4, 1}}, opt).check.passed());
  out[5 * w + 3] = static_cast<std::uint8_t>(out[5 * w + 3] + 7);
  out[16 * w + 30] = static_cast<std::uint8_t>(out[16 * w + 30] ^ 0x80);
  const auto ref = independent_reference(rgba, w, h);
  std::vector<std::uint8_t> planar(3ull * w * h);
  lab->copy_planar(planar.data());
  for (const bs::Check& c : {compare_with_reference(out.data(), ref.data(), 1ll * w * h, w),
                             compare_with_planar_reference(out.data(), planar.data(), 1ll * w * h, w)}) {
    EXPECT_TRUE(c.failed());
    EXPECT_EQ(c.mismatches, 2u);
    ASSERT_EQ(c.first_bad.size(), 2u);
    EXPECT_EQ(c.first_bad[0].x, 3);
    EXPECT_EQ(c.first_bad[0].y, 5);
    EXPECT_EQ(c.first_bad[1].x, 30);
    EXPECT_EQ(c.first_bad[1].y, 16);
  }
}

// Issue 34: the simulation checks against a reference made from planar RGB as it compares, in
// parallel chunks (2^18 pixels) merged in order: on an image of several chunks with wrong
// pixels scattered over them, the count, the worst error and the first wrong pixels in row-major
// order are those a plain loop over an independent reference finds.
TEST(GrayLab, TheCheckMadeFromPlanarRgbFindsWhatAPlainLoopFinds) {
  const int w = 1237, h = 911;  // 4.3 chunks
  const std::size_t n = static_cast<std::size_t>(w) * h;
  const std::uint32_t seed = fresh_seed();
  const auto rgba = random_rgba(w, h, seed);
  auto out = independent_reference(rgba, w, h);
  std::mt19937 rng(seed);
  std::vector<std::size_t> bad;
  for (int k = 0; k < 40; ++k) {
    const std::size_t i = std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
    out[i] = static_cast<std::uint8_t>(out[i] + (k % 2 ? 2 : 250));  // 2 or -6 (mod 256)
  }
  const auto ref = independent_reference(rgba, w, h);
  unsigned long long mismatches = 0;
  int worst = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const int d = std::abs(int(out[i]) - int(ref[i]));
    worst = std::max(worst, d);
    if (d > 1) {
      ++mismatches;
      bad.push_back(i);
    }
  }
  std::vector<std::uint8_t> planar(3 * n);
  for (std::size_t i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c) planar[c * n + i] = rgba[4 * i + c];
  const bs::Check c = compare_with_planar_reference(out.data(), planar.data(), static_cast<long long>(n), w);
  EXPECT_EQ(c.mismatches, mismatches) << "seed " << seed;
  EXPECT_EQ(c.worst, worst);
  ASSERT_EQ(c.first_bad.size(), std::min<std::size_t>(bad.size(), bs::Check::kMaxBad));
  for (std::size_t k = 0; k < c.first_bad.size(); ++k) {
    EXPECT_EQ(c.first_bad[k].x, static_cast<long long>(bad[k] % w));
    EXPECT_EQ(c.first_bad[k].y, static_cast<long long>(bad[k] / w));
    EXPECT_EQ(c.first_bad[k].want, ref[bad[k]]);
  }
  out = ref;
  EXPECT_TRUE(compare_with_planar_reference(out.data(), planar.data(), static_cast<long long>(n), w).passed());
}

// Issue 34: the simulation keeps the image once, as planar RGB (3 bytes a pixel), with its alpha
// bytes only where some pixel is not opaque, and RGBA only while that layout is chosen. What it
// gives back (whole copies, single pixels, a view's samples, each pixel's reference) is the image
// it was given, byte for byte, whichever way it is kept.
TEST(GrayLab, TheSimulationKeepsTheImageOnceAndGivesItBackExactly) {
  const int w = 53, h = 29;
  const std::size_t n = static_cast<std::size_t>(w) * h;
  const std::uint32_t seed = fresh_seed();
  auto translucent = random_rgba(w, h, seed);
  auto opaque = translucent;
  for (std::size_t i = 0; i < n; ++i) opaque[4 * i + 3] = 255;
  for (const auto* image : {&translucent, &opaque}) {
    SCOPED_TRACE(image == &opaque ? "opaque" : "translucent");
    auto lab = cpu_lab(1);
    ASSERT_TRUE(lab->set_image(image->data(), w, h, "kept").ok());
    const auto ref = independent_reference(*image, w, h);
    for (const char* layout : {"planar", "rgba", "planar"}) {
      SCOPED_TRACE(layout);
      ASSERT_TRUE(lab->set_setting("layout", layout).ok());
      std::vector<std::uint8_t> back(4 * n), planar(3 * n);
      lab->copy_rgba(back.data());
      lab->copy_planar(planar.data());
      EXPECT_EQ(back, *image);
      for (std::size_t i = 0; i < n; ++i)
        for (int c = 0; c < 3; ++c) ASSERT_EQ(planar[c * n + i], (*image)[4 * i + c]);
      for (int k = 0; k < 50; ++k) {
        const int x = static_cast<int>((seed + 7u * k) % w), y = static_cast<int>((seed / 3 + 13u * k) % h);
        const auto p = lab->pixel(x, y);
        const std::size_t i = static_cast<std::size_t>(y) * w + x;
        EXPECT_TRUE(std::equal(p.begin(), p.end(), image->begin() + 4 * i));
        EXPECT_EQ(lab->reference_at(x, y), ref[i]);
      }
      // A view's samples: every third pixel from (-2, 5), clamped at the image's edges.
      const int sw = 25, sh = 9, step = 3;
      std::vector<std::uint8_t> samples(4 * sw * sh);
      lab->sample_rgba(-2, 5, step, sw, sh, samples.data());
      for (int j = 0; j < sh; ++j)
        for (int i = 0; i < sw; ++i) {
          const int x = std::clamp(-2 + i * step, 0, w - 1), y = std::clamp(5 + j * step, 0, h - 1);
          ASSERT_TRUE(std::equal(samples.begin() + 4 * (j * sw + i), samples.begin() + 4 * (j * sw + i) + 4,
                                 image->begin() + 4 * (static_cast<std::size_t>(y) * w + x)))
              << i << ", " << j;
        }
      // Both layouts run and check against the image's own reference.
      std::vector<std::uint8_t> out(n);
      bs::lab::RunOptions o;
      o.output = out.data();
      const auto rec = lab->run("gray_1d_flat", bs::KernelConfig{Dim3{64, 1, 1}}, o);
      ASSERT_TRUE(rec.ok()) << rec.status.describe();
      EXPECT_TRUE(rec.check.passed());
      for (std::size_t i = 0; i < n; ++i) ASSERT_LE(std::abs(int(out[i]) - int(ref[i])), 1) << i;
    }
  }
}

// Issue 34: the window's worker launches on a fork of the lab, which held a second copy of the
// image in every layout (14 bytes a pixel: 3.6 GB at 16384^2). On the CPU simulation the fork
// shares the lab's read-only inputs and owns only its output; its results are still its own
// (the contract test checks its bytes), and a new image in the lab leaves the fork's alone.
TEST(GrayLab, AForkOnTheSimulationSharesTheImageAndOwnsItsOutput) {
  auto lab = cpu_lab(1);
  const int w = 37, h = 11;
  const auto rgba = random_rgba(w, h, fresh_seed());
  ASSERT_TRUE(lab->set_image(rgba.data(), w, h, "shared").ok());
  auto forked = lab->fork();
  ASSERT_TRUE(forked.ok()) << forked.status().describe();
  auto* fork = dynamic_cast<GrayLab*>(forked.value().get());
  ASSERT_NE(fork, nullptr);
  const std::size_t n = static_cast<std::size_t>(w) * h;
  std::vector<std::uint8_t> lab_image(4 * n), fork_image(4 * n);
  lab->copy_rgba(lab_image.data());
  fork->copy_rgba(fork_image.data());
  EXPECT_EQ(fork_image, lab_image);
  EXPECT_EQ(fork->image_name(), "shared");
  std::vector<std::uint8_t> a(static_cast<std::size_t>(w) * h), b(a.size());
  bs::lab::RunOptions oa, ob;
  oa.output = a.data();
  ob.output = b.data();
  ASSERT_TRUE(lab->run("gray_2d", bs::KernelConfig{Dim3{8, 4, 1}}, oa).check.passed());
  ASSERT_TRUE(fork->run("gray_2d", bs::KernelConfig{Dim3{8, 4, 1}}, ob).check.passed());
  EXPECT_EQ(a, b);
  // A new image in the lab: the fork keeps the one it was made with, and still checks against it.
  const auto other = random_rgba(w, h, fresh_seed() + 1);
  ASSERT_TRUE(lab->set_image(other.data(), w, h, "other").ok());
  fork->copy_rgba(fork_image.data());
  EXPECT_EQ(fork_image, rgba);
  EXPECT_TRUE(fork->run("gray_1d_flat", bs::KernelConfig{Dim3{64, 1, 1}}, {}).check.passed());
}

TEST(GrayLab, RandomProblemsAreFreshAndOfTheSizeAsked) {
  auto lab = cpu_lab(1);
  ASSERT_TRUE(lab->set_random_problem("33x7").ok());
  EXPECT_EQ(lab->width(), 33);
  EXPECT_EQ(lab->height(), 7);
  std::vector<std::uint8_t> first(4 * 33 * 7), rgba(first.size());
  lab->copy_rgba(first.data());
  EXPECT_NE(std::count(first.begin(), first.end(), 0), static_cast<long>(first.size()));
  ASSERT_TRUE(lab->set_random_problem("33x7").ok());
  lab->copy_rgba(rgba.data());
  EXPECT_NE(first, rgba);  // fresh random data each time
  // Its reference is the formula's, and how it was made is itemised (the sweep prints it).
  const auto ref = independent_reference(rgba, 33, 7);
  for (int y = 0; y < 7; ++y)
    for (int x = 0; x < 33; ++x) EXPECT_EQ(lab->reference_at(x, y), ref[y * 33 + x]);
  const bs::StepTimes made = lab->problem().made;
  ASSERT_EQ(made.steps.size(), 2u);
  EXPECT_EQ(made.steps[0].first, "generate + convert on the host");
  EXPECT_EQ(made.steps[1].first, "upload");
  for (const char* bad : {"33", "0x7", "axb", "33x7x2", ""}) EXPECT_FALSE(lab->set_random_problem(bad).ok()) << bad;
  EXPECT_EQ(lab->width(), 33);  // a bad size keeps the problem
}

// Issue 34: a problem is made in one pass over the host's cores (make_gray_problem). Its three
// outputs against ones computed here another way: the RGBA copied or generated, the planar
// layout by index arithmetic, the reference by the double formula. Sizes whose chunks split
// unevenly and whose last 8-byte word of random bits is cut short; every byte written (two
// poison values give the same result); random bits fresh per seed, never all zeros, every byte
// value present in every channel.
TEST(GrayProblem, OnePassMakesRgbaPlanarAndReferenceAsTheyAreComputedAnotherWay) {
  for (const ImageSize size : {ImageSize{1023, 767}, ImageSize{1, 1}, ImageSize{3, 1}, ImageSize{16385, 3}}) {
    const int w = size.w, h = size.h;
    const std::size_t n = static_cast<std::size_t>(w) * h;
    const std::uint32_t seed = fresh_seed();
    const auto source = random_rgba(w, h, seed);
    for (const bool random : {false, true}) {
      SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + (random ? " random" : " copied") + ", seed " +
                   std::to_string(seed));
      std::vector<std::uint8_t> rgba[2], planar[2], ref[2];
      for (int poison : {0, 1}) {
        rgba[poison].assign(4 * n, poison ? 0xff : 0);
        planar[poison].assign(3 * n, poison ? 0xff : 0);
        ref[poison].assign(n, poison ? 0xff : 0);
        make_gray_problem(random ? nullptr : source.data(), seed, n,
                          GrayBuffers{rgba[poison].data(), planar[poison].data(), nullptr, ref[poison].data()});
      }
      ASSERT_EQ(rgba[0], rgba[1]) << "a byte of RGBA was never written";
      ASSERT_EQ(planar[0], planar[1]) << "a planar byte was never written";
      ASSERT_EQ(ref[0], ref[1]) << "a reference byte was never written";
      if (!random) { EXPECT_EQ(rgba[0], source); }
      for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t c = 0; c < 3; ++c)
          ASSERT_EQ(planar[0][c * n + i], rgba[0][4 * i + c]) << "pixel " << i << " channel " << c;
      }
      EXPECT_EQ(ref[0], independent_reference(rgba[0], w, h));
      // Without planar (the GPU makes it on the device): the same RGBA and reference.
      std::vector<std::uint8_t> rgba_only(4 * n), ref_only(n);
      make_gray_problem(random ? nullptr : source.data(), seed, n,
                        GrayBuffers{rgba_only.data(), nullptr, nullptr, ref_only.data()});
      EXPECT_EQ(rgba_only, rgba[0]);
      EXPECT_EQ(ref_only, ref[0]);
      // Without RGBA (the simulation keeps planar RGB and the alpha bytes): the same planes.
      std::vector<std::uint8_t> planar_only(3 * n, 0x5a), alpha_only(n, 0x5a);
      make_gray_problem(random ? nullptr : source.data(), seed, n,
                        GrayBuffers{nullptr, planar_only.data(), alpha_only.data(), nullptr});
      EXPECT_EQ(planar_only, planar[0]);
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(alpha_only[i], rgba[0][4 * i + 3]) << i;
    }
  }
  // Random bits: the same seed gives the same image, another seed another; the bytes spread.
  const std::size_t n = 1023 * 767;
  std::vector<std::uint8_t> a(4 * n), b(4 * n), c(4 * n), planar(3 * n), ref(n);
  const std::uint32_t seed = fresh_seed();
  make_gray_problem(nullptr, seed, n, GrayBuffers{a.data(), planar.data(), nullptr, ref.data()});
  make_gray_problem(nullptr, seed, n, GrayBuffers{b.data(), planar.data(), nullptr, ref.data()});
  make_gray_problem(nullptr, seed + 1ull, n, GrayBuffers{c.data(), planar.data(), nullptr, ref.data()});
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  for (int channel = 0; channel < 4; ++channel) {
    std::vector<int> seen(256, 0);
    for (std::size_t i = 0; i < n; ++i) ++seen[a[4 * i + channel]];
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 0), 0) << "channel " << channel << ", seed " << seed;
  }
}

// The reference reads three tables instead of the formula: prove that it gives the formula's
// bytes exactly, for all 2^24 colours, through the lab (a 4096^2 image of every colour once).
TEST(GrayProblem, TheReferenceIsTheDoubleFormulaExactlyForAll2To24Colours) {
  constexpr int kSide = 4096;
  std::vector<std::uint8_t> rgba(4ull * kSide * kSide);
  const std::uint32_t seed = fresh_seed();
  for (std::uint32_t i = 0; i < kSide * kSide; ++i) {
    rgba[4ull * i + 0] = static_cast<std::uint8_t>(i), rgba[4ull * i + 1] = static_cast<std::uint8_t>(i >> 8);
    rgba[4ull * i + 2] = static_cast<std::uint8_t>(i >> 16), rgba[4ull * i + 3] = static_cast<std::uint8_t>(i ^ seed);
  }
  auto lab = cpu_lab(1);
  ASSERT_TRUE(lab->set_image(rgba.data(), kSide, kSide, "every colour").ok());
  // The three ways the lab makes a reference: in one pass with the problem (the GPU's), per pixel
  // (the inspector's) and while checking (the simulation's, from planar RGB).
  std::vector<std::uint8_t> ref(static_cast<std::size_t>(kSide) * kSide), planar(3 * ref.size());
  make_gray_problem(rgba.data(), 0, ref.size(), GrayBuffers{nullptr, planar.data(), nullptr, ref.data()});
  std::size_t wrong = 0;
  std::vector<std::uint8_t> formula(ref.size());
  for (std::uint32_t i = 0; i < kSide * kSide; ++i) {
    const double v = 0.2989 * (i & 0xff) + 0.5870 * ((i >> 8) & 0xff) + 0.1140 * (i >> 16);
    formula[i] = static_cast<std::uint8_t>(std::floor(v));
    if (ref[i] != formula[i] && wrong++ < 5) {
      ADD_FAILURE() << "r " << (i & 0xff) << " g " << ((i >> 8) & 0xff) << " b " << (i >> 16) << ": " << int(ref[i])
                    << ", the formula says " << std::floor(v);
    }
    if (i % 4099 == 0) { EXPECT_EQ(lab->reference_at(i % kSide, i / kSide), formula[i]) << i; }
  }
  EXPECT_EQ(wrong, 0u);
  // Off by one where the formula is exact: the check from planar RGB must see every such pixel.
  for (auto& v : formula) v = static_cast<std::uint8_t>(v ^ 2);
  EXPECT_EQ(compare_with_planar_reference(formula.data(), planar.data(), 1ll * kSide * kSide, kSide).mismatches,
            static_cast<unsigned long long>(kSide) * kSide);
  std::vector<std::uint8_t> back(rgba.size());
  lab->copy_rgba(back.data());
  EXPECT_EQ(back, rgba);
  EXPECT_EQ(lab->problem().made.steps.front().first, "copy + convert on the host");
}

}  // namespace
