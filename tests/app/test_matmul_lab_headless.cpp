// The matmul lab, run headless the way a user or CI runs it: `blockscope --headless --lab matmul
// ... --screenshot`. The summary line reports a verified run with the grid the registry says the
// kernel launches with; the screenshot shows the heatmaps (both halves of the diverging colour map,
// many colours) and the hovered element's block tile; refusals (a tile that is not compiled, a
// size above the simulator's cap) exit 1 with the reason; and (label gpu) the CUDA backend fills
// the heatmaps through zero-copy interop and verifies against cuBLAS.
#include <gtest/gtest.h>

#include <unistd.h>  // getpid

#include <algorithm>
#include <filesystem>
#include <random>
#include <set>
#include <string>

#include "image/image_loader.hpp"
#include "labs/matmul/matmul.hpp"

#include "app_runner.hpp"
#include "skips.hpp"

namespace {

using namespace bs::app::test;  // RunResult, quote, executable, run

namespace fs = std::filesystem;

// A line of the headless summary: "launch: ..." or "check: ...".
std::string line_of(const std::string& output, const std::string& head) {
  const std::size_t at = output.find("\n" + head);
  if (at == std::string::npos) return {};
  return output.substr(at + 1, output.find('\n', at + 1) - at - 1);
}
std::string summary_line(const std::string& output) { return line_of(output, "launch: "); }
std::string check_line(const std::string& output) { return line_of(output, "check: "); }

// What the screenshot's centre view (between the side panels) holds.
struct ViewPixels {
  std::size_t blue = 0, orange = 0, amber = 0;  // diverging map's halves; the hovered tile's outline
  std::set<std::uint32_t> colours;
};

ViewPixels view_pixels(const bs::Rgba8Image& s) {
  ViewPixels v;
  // The view sits between the controls (about a fifth of the width) and the side panel.
  for (int y = s.height / 20; y < s.height * 19 / 20; ++y)
    for (int x = s.width * 22 / 100; x < s.width * 72 / 100; ++x) {
      const std::uint8_t* p = &s.rgba[(static_cast<std::size_t>(y) * s.width + x) * 4];
      const int r = p[0], g = p[1], b = p[2];
      v.colours.insert(static_cast<std::uint32_t>(r | g << 8 | b << 16));
      v.blue += b > r + 60 && b > 120;
      v.orange += r > b + 80 && r > 150 && g < r;
      v.amber += r > 230 && g > 170 && g < 215 && b < 90;
    }
  return v;
}

class MatmulLabHeadless : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("bs_matmul_headless_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    seed_ = std::random_device{}() % 1000000;
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  bs::Rgba8Image load(const fs::path& p) {
    auto img = bs::load_image_file(p, bs::LoadLimits{});
    EXPECT_TRUE(img.ok()) << img.status().describe();
    return img.ok() ? std::move(img.value()) : bs::Rgba8Image{};
  }
  fs::path dir_;
  unsigned seed_ = 0;
};

TEST_F(MatmulLabHeadless, ScreenshotShowsTheHeatmapsAndTheRunIsVerified) {
  using namespace bs::matmul;
  // Odd sizes (edge tiles), fresh data; rung 5 with its second compiled configuration.
  const int M = 97, N = 83, K = 71;
  const MatmulKernelInfo& info = matmul_kernel_info(MatmulKernel::Blocktile2D);
  const fs::path shot = dir_ / "matmul.png";
  auto r = run("--headless --backend cpu --lab matmul --frames 3 --matmul-size " + std::to_string(M) + "x" +
               std::to_string(N) + "x" + std::to_string(K) + " --kernel " + info.id + " --config 1 --matmul-seed " +
               std::to_string(seed_) + " --hover 40,50 --screenshot " + quote(shot.string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string line = summary_line(r.output);
  ASSERT_FALSE(line.empty()) << r.output;
  EXPECT_NE(line.find("launch: " + info.id), std::string::npos) << line;
  EXPECT_NE(line.find(info.configs[1].label), std::string::npos) << line;
  // The grid computed here by hand: rung 5 tiles C in BM x BN.
  const TileParams p = info.configs[1].tile;
  const std::string grid =
      "grid (" + std::to_string((N + p.BN - 1) / p.BN) + ", " + std::to_string((M + p.BM - 1) / p.BM) + ", 1)";
  EXPECT_NE(line.find(grid), std::string::npos) << line;
  EXPECT_NE(line.find("GFLOP/s"), std::string::npos) << line;
  const std::string check = check_line(r.output);
  EXPECT_NE(check.find("correct vs the multi-threaded CPU product"), std::string::npos) << check;
  EXPECT_NE(check.find("over " + std::to_string(M * N) + " elements"), std::string::npos) << check;
  EXPECT_NE(r.output.find("interop: CPU simulation"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("lab: matmul"), std::string::npos) << r.output;

  bs::Rgba8Image s = load(shot);
  ASSERT_EQ(s.width, 1600);
  ASSERT_EQ(s.height, 1000);
  const ViewPixels v = view_pixels(s);
  // Uniform [-1, 1) data: both halves of the diverging map, over large areas; many colours.
  EXPECT_GT(v.blue, 20000u) << "negative values should show blue";
  EXPECT_GT(v.orange, 20000u) << "positive values should show orange";
  EXPECT_GT(v.colours.size(), 2000u);
  // The hovered element's block tile and the panels it reads are outlined in amber.
  EXPECT_GT(v.amber, 400u) << "the hovered block's tile outline should be visible";
}

// Colour C by lane (and, for a wgmma rung the CPU cannot run, by warp, from the model): the
// overlay covers C's elements, so the screenshot's view differs from the same run without it
// over much of C.
std::size_t differing_pixels(const bs::Rgba8Image& a, const bs::Rgba8Image& b) {
  std::size_t n = 0;
  if (a.width != b.width || a.height != b.height) return 0;
  for (int y = a.height / 20; y < a.height * 19 / 20; ++y)
    for (int x = a.width * 22 / 100; x < a.width * 72 / 100; ++x) {
      const std::size_t i = (static_cast<std::size_t>(y) * a.width + x) * 4;
      int d = 0;
      for (int c = 0; c < 3; ++c) d = std::max(d, std::abs(int{a.rgba[i + c]} - int{b.rgba[i + c]}));
      n += d > 30;
    }
  return n;
}

TEST_F(MatmulLabHeadless, ColourByLaneAndByWarpCoverCsElements) {
  struct Case {
    const char* kernel;
    const char* colour;
    int exit_code;  // T3 is refused on the CPU (exit 1) but still drawn by the model
  };
  for (const Case& c : {Case{"tc2_mma_sync", "lane", 0}, Case{"tc3_wgmma", "warp", 1}}) {
    bs::Rgba8Image shots[2];
    for (int i = 0; i < 2; ++i) {
      const fs::path shot = dir_ / (std::string(c.kernel) + std::to_string(i) + ".png");
      auto r = run(
          std::string("--headless --backend cpu --lab matmul --set precision=bf16 --frames 4 --matmul-size 99x75x61") +
          " --kernel " + c.kernel + " --matmul-seed " + std::to_string(seed_) + " --pin 37,21 --matmul-colour " +
          (i == 0 ? "none" : c.colour) + " --screenshot " + quote(shot.string()));
      ASSERT_EQ(r.exit_code, c.exit_code) << r.output;
      shots[i] = load(shot);
    }
    // C is drawn about 190 x 250 pixels or more at this size: most of it changes colour.
    EXPECT_GT(differing_pixels(shots[0], shots[1]), 20000u) << c.kernel << " coloured by " << c.colour;
  }
}

// The Memory tab's bank view: a warp's shared request drawn as 32 banks x wavefronts, each cell
// filled with its lane's colour (HSV lane / 32, 0.55, 0.85: max channel ~217, min ~98, unlike the
// global sectors' cells and the swizzle maps). It appears for a rung that stages tiles in shared
// memory (k5, its Bs load 4-way conflicted at request 16; k3) and not for the naive rung.
std::size_t bank_cells(const bs::Rgba8Image& s) {
  std::size_t n = 0;
  for (int y = 0; y < s.height; ++y)
    for (int x = s.width * 60 / 100; x < s.width; ++x) {
      const std::uint8_t* p = &s.rgba[(static_cast<std::size_t>(y) * s.width + x) * 4];
      const int hi = std::max({p[0], p[1], p[2]}), lo = std::min({p[0], p[1], p[2]});
      n += hi >= 214 && hi <= 220 && lo >= 94 && lo <= 102;
    }
  return n;
}

TEST_F(MatmulLabHeadless, TheMemoryTabShowsSharedMemoryBanksForTiledRungs) {
  auto shot_of = [&](const std::string& kernel, const std::string& extra) {
    const fs::path shot = dir_ / (kernel + ".png");
    auto r = run("--headless --backend cpu --lab matmul --frames 3 --matmul-size 67x61x29 --kernel " + kernel +
                 " --matmul-seed " + std::to_string(seed_) + " --pin 20,9 --panel memory " + extra + " --screenshot " +
                 quote(shot.string()));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return load(shot);
  };
  const std::size_t k5 = bank_cells(shot_of("k5_blocktile_2d", "--config 0 --matmul-bank-request 16"));
  const std::size_t k3 = bank_cells(shot_of("k3_smem_tiled", "--config 1 --matmul-bank-request 3"));
  const std::size_t k1 = bank_cells(shot_of("k1_naive", "--block 16x16"));
  EXPECT_GT(k5, 300u) << "k5's bank grid should be drawn";
  EXPECT_GT(k3, 300u) << "k3's bank grid should be drawn";
  EXPECT_LT(k1, 50u) << "k1 uses no shared memory: no bank grid";
}

TEST_F(MatmulLabHeadless, AnUncompiledTileIsRefusedWithTheReason) {
  // Rung 1 takes any blockDim CUDA allows: 33 x 33 is 1089 threads, refused with the reason and
  // nothing launched; rung 3's compiled tiles are a list, and an index past it is refused too.
  auto r =
      run("--headless --backend cpu --lab matmul --frames 2 --matmul-size 64x64x64 --kernel k1_naive "
          "--block 33x33");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  const std::string line = summary_line(r.output);
  EXPECT_NE(line.find("refused"), std::string::npos) << r.output;
  EXPECT_NE(line.find("1089 threads"), std::string::npos) << r.output;
  EXPECT_EQ(line.find("GFLOP/s"), std::string::npos) << "a refused run has no speed: " << line;
  auto t =
      run("--headless --backend cpu --lab matmul --frames 2 --matmul-size 64x64x64 --kernel k3_smem_tiled "
          "--config 7");
  EXPECT_EQ(t.exit_code, 1) << t.output;
  EXPECT_NE(summary_line(t.output).find("no configuration 7"), std::string::npos) << t.output;
}

TEST_F(MatmulLabHeadless, SizesAboveTheSimulatorsCapAreRefusedBeforeAllocating) {
  auto r = run("--headless --backend cpu --lab matmul --frames 1 --matmul-size 1024x1024x1024");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(summary_line(r.output).find("2^27"), std::string::npos) << r.output;
}

// On the GPU machine: the heatmaps go through zero-copy interop, every rung of both ladders runs
// verified against cuBLAS (SGEMM, or BF16 with --set precision=bf16), and the summary carries the
// percentage of that cuBLAS and of the FP32 or tensor-core peak. (The GPU machine is a Hopper:
// the sm_90a rungs run there.)
TEST_F(MatmulLabHeadless, GpuHeatmapsThroughInteropAndVerifiedAgainstCublas) {
  using namespace bs::matmul;
  const int M = 1000, N = 1023, K = 1025;
  for (const MatmulKernelInfo& info : matmul_kernels()) {
    const bool bf16 = info.precision == Precision::Bf16;
    const fs::path shot = dir_ / (info.id + ".png");
    auto r = run("--headless --backend cuda --lab matmul --frames 4 --matmul-size " + std::to_string(M) + "x" +
                 std::to_string(N) + "x" + std::to_string(K) + " --kernel " + info.id +
                 (bf16 ? " --set precision=bf16" : "") + " --matmul-seed " + std::to_string(seed_) +
                 " --hover 500,400 --screenshot " + quote(shot.string()));
    if (r.exit_code == 4) BS_SKIP_NO_GPU() << "no usable CUDA device: " << r.output;
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("interop: CUDA-GL interop (zero-copy: CUDA copies into the texture)"), std::string::npos)
        << r.output;
    const std::string line = summary_line(r.output);
    EXPECT_NE(line.find("launch: " + info.id), std::string::npos) << line;
    EXPECT_NE(line.find("CUDA events"), std::string::npos) << line;
    EXPECT_NE(check_line(r.output).find("correct vs cuBLAS"), std::string::npos) << r.output;
    EXPECT_NE(line.find(bf16 ? "% of cuBLAS BF16" : "% of cuBLAS SGEMM"), std::string::npos) << line;
    EXPECT_NE(line.find(bf16 ? "% of BF16 tensor-core peak" : "% of FP32 peak"), std::string::npos) << line;
    // Larger matrices are drawn shrunk (bilinear), which softens random data: a lower bar than
    // the CPU test's, still far above the grayscale lab's ~1000 blue pixels.
    const ViewPixels v = view_pixels(load(shot));
    EXPECT_GT(v.blue, 10000u) << info.id;
    EXPECT_GT(v.orange, 10000u) << info.id;
  }
}

}  // namespace
