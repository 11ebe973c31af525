// Sweeps as a user runs them, on the CPU simulation at small odd sizes: `blockscope sweep` and
// `blockscope --headless --sweep`, their JSON and CSV read back (the tests' own JSON reader, an
// RFC 4180 reading of the CSV's rows), the screenshot showing the heatmap's colours, refusals
// with their reasons while the rest still run, and an unwritable path that loses nothing.
// (label gpu) The same on the CUDA backend, with the SM clock and the occupancy API.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>

#include "app_runner.hpp"
#include "json_reader.hpp"
#include "skips.hpp"

namespace {

using namespace bs::app::test;
namespace fs = std::filesystem;

class SweepApp : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("bs_sweep_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string image(int w, int h) {
    std::mt19937 rng(std::random_device{}());
    std::vector<unsigned char> rgb(static_cast<std::size_t>(w) * h * 3);
    for (auto& v : rgb) v = static_cast<unsigned char>(rng());
    const std::string p = path("img.png");
    EXPECT_TRUE(stbi_write_png(p.c_str(), w, h, 3, rgb.data(), w * 3));
    return p;
  }
  static std::string read(const std::string& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  std::optional<bs::test::JsonValue> json(const std::string& p) { return bs::test::parse_json(read(p)); }
  // Data rows of a CSV whose fields hold no line breaks (ours: none of the values written here).
  static std::size_t csv_rows(const std::string& text) {
    std::size_t n = 0;
    for (char c : text) n += c == '\n';
    return n - 1;
  }
  // Pixels of the PNG near viridis' top colour (the heatmap's best cells and its colour bar).
  static std::size_t yellow_pixels(const std::string& png, int* w = nullptr, int* h = nullptr) {
    int pw = 0, ph = 0, n = 0;
    unsigned char* px = stbi_load(png.c_str(), &pw, &ph, &n, 4);
    if (!px) return 0;
    std::size_t count = 0;
    for (int i = 0; i < pw * ph; ++i) {
      const unsigned char* p = px + 4 * i;
      count += p[0] > 200 && p[1] > 180 && p[2] < 90;
    }
    stbi_image_free(px);
    if (w) *w = pw;
    if (h) *h = ph;
    return count;
  }
  fs::path dir_;
};

TEST_F(SweepApp, CommandWritesJsonAndCsvAndRefusesBadShapesWithReasons) {
  const RunResult r =
      run("sweep gray --backend cpu --size 37x23 --kernel gray_2d --blocks 32x8,16x16,abc,2048,0x4 "
          "--json " +
          quote(path("s.json")) + " --csv " + quote(path("s.csv")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("refused 'abc'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("best: gray_2d"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("simulated timings"), std::string::npos) << r.output;
  auto doc = json(path("s.json"));
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->at("kind").str, "sweep");
  EXPECT_EQ(doc->at("version").number, 2);
  EXPECT_TRUE(doc->at("complete").boolean);
  EXPECT_EQ(doc->at("sweep").at("planned").number, 4);  // abc never became a point
  const auto& res = doc->at("results").items;
  ASSERT_EQ(res.size(), 4u);
  EXPECT_EQ(res[0].at("outcome").str, "ok");
  EXPECT_EQ(res[0].at("check").at("state").str, "passed");
  EXPECT_GE(res[0].at("repeats").number, 6);
  EXPECT_TRUE(res[0].at("simulated").boolean);
  EXPECT_EQ(res[0].at("grid").at(0).number, 2);  // ceil(37 / 32)
  EXPECT_EQ(res[2].at("outcome").str, "refused");
  EXPECT_EQ(res[2].at("repeats").number, 0) << "a refused point never ran";
  EXPECT_EQ(res[3].at("outcome").str, "refused");
  EXPECT_NE(res[3].at("error").str.find("zero dimension"), std::string::npos);
  int ranked = 0;
  for (const auto& x : res) ranked += x.at("rank").number > 0;
  EXPECT_EQ(ranked, 2);
  const auto& refused = doc->at("refused").items;
  ASSERT_EQ(refused.size(), 3u);
  EXPECT_NE(refused[0].str.find("abc"), std::string::npos);
  const std::string csv = read(path("s.csv"));
  EXPECT_EQ(csv_rows(csv), 4u);
  EXPECT_EQ(csv.rfind("lab,kernel,config,problem,settings,outcome", 0), 0u);
}

// A user's kernel swept like the lab's own: the lecture's 1D kernel pasted in a .cu file, on a
// size that leaves a partial last block, every point verified against the lab's reference and
// ranked; a shape CUDA refuses is refused, never launched. A wrong kernel is never ranked.
TEST_F(SweepApp, AUserKernelIsSweptAndVerifiedLikeTheLabsOwn) {
  {
    std::ofstream(path("k.cu")) << "__global__ void my_gray(unsigned char* x, unsigned char* out, int n) {\n"
                                   "    int i = blockIdx.x*blockDim.x + threadIdx.x;\n"
                                   "    if (i<n) out[i] = 0.2989*x[i] + 0.5870*x[i+n] + 0.1140*x[i+2*n];\n}\n";
    std::ofstream(path("bad.cu")) << "__global__ void off(unsigned char* x, unsigned char* out, int n) {\n"
                                     "    int i = blockIdx.x*blockDim.x + threadIdx.x;\n"
                                     "    if (i<n) out[i] = x[i];\n}\n";
  }
  RunResult r = run("sweep gray --backend cpu --size 53x29 --kernel-file " + quote(path("k.cu")) +
                    " --kernel custom:my_gray --blocks 32,64,256,2048 --json " + quote(path("u.json")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("compiled as custom:my_gray"), std::string::npos) << r.output;
  auto doc = json(path("u.json"));
  ASSERT_TRUE(doc);
  const auto& res = doc->at("results").items;
  ASSERT_EQ(res.size(), 4u);
  int ranked = 0;
  for (const auto& x : res) {
    EXPECT_EQ(x.at("kernel").str, "custom:my_gray");
    if (x.at("block").at(0).number == 2048) {
      EXPECT_EQ(x.at("outcome").str, "refused");
      continue;
    }
    EXPECT_EQ(x.at("outcome").str, "ok") << x.at("error").str;
    EXPECT_EQ(x.at("check").at("state").str, "passed");
    // 53 * 29 = 1537 pixels: the grid covers them with one partial block.
    const double b = x.at("block").at(0).number;
    EXPECT_EQ(x.at("grid").at(0).number, std::ceil(1537 / b));
    ranked += x.at("rank").number > 0;
  }
  EXPECT_EQ(ranked, 3);

  // A kernel that copies red instead of computing gray: every point wrong, none ranked.
  r = run("sweep gray --backend cpu --size 53x29 --kernel-file " + quote(path("bad.cu")) +
          " --kernel custom:off --blocks 64,128 --json " + quote(path("w.json")));
  auto wrong = json(path("w.json"));
  ASSERT_TRUE(wrong) << r.output;
  for (const auto& x : wrong->at("results").items) {
    EXPECT_EQ(x.at("outcome").str, "wrong") << r.output;
    EXPECT_EQ(x.at("rank").number, 0);
  }
}

// --counters on a sweep: every point that ran carries a "counters" object in the JSON and the
// counter columns in the CSV; on the CPU they say why there are none (a GPU feature), once on
// the console, and the sweep's timings and ranks are all still there.
TEST_F(SweepApp, CountersOnASweepSayWhyOnTheCpuAndKeepEveryResult) {
  const RunResult r =
      run("sweep gray --backend cpu --size 41x19 --kernel gray_2d --blocks 32x8,16x16,2048 --counters "
          "--json " +
          quote(path("c.json")) + " --csv " + quote(path("c.csv")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto said = r.output.find("GPU feature");
  ASSERT_NE(said, std::string::npos) << r.output;
  EXPECT_EQ(said, r.output.rfind("GPU feature")) << "said once: " << r.output;
  auto doc = json(path("c.json"));
  ASSERT_TRUE(doc);
  int ran = 0;
  for (const auto& x : doc->at("results").items) {
    if (x.at("outcome").str != "ok") {
      EXPECT_FALSE(x.has("counters")) << "a refused point is never profiled";
      continue;
    }
    ++ran;
    EXPECT_GT(x.at("rank").number, 0);
    ASSERT_TRUE(x.has("counters"));
    EXPECT_FALSE(x.at("counters").at("available").boolean);
  }
  EXPECT_EQ(ran, 2);
  // The CSV: the plain columns, then the counter columns; each row as wide as the header.
  std::istringstream csv(read(path("c.csv")));
  std::string header, line;
  std::getline(csv, header);
  EXPECT_NE(header.find(",counters,dram_read_bytes,dram_write_bytes"), std::string::npos) << header;
  const auto commas = [](const std::string& s) {
    int n = 0;
    bool quoted = false;
    for (char c : s) quoted ^= c == '"', n += !quoted && c == ',';
    return n;
  };
  int rows = 0;
  while (std::getline(csv, line)) {
    EXPECT_EQ(commas(line), commas(header)) << line;
    ++rows;
  }
  EXPECT_EQ(rows, 3);
  // Without --counters the columns are not there.
  ASSERT_EQ(run("sweep gray --backend cpu --size 41x19 --kernel gray_2d --blocks 32x8 --csv " + quote(path("p.csv")))
                .exit_code,
            0);
  EXPECT_EQ(read(path("p.csv")).find("dram_read_bytes"), std::string::npos);
}

TEST_F(SweepApp, UnwritablePathIsAMessageAndTheResultsStillCome) {
  const RunResult r =
      run("sweep gray --backend cpu --size 19x11 --kernel gray_2d --blocks 8x8,16x4 --json "
          "/nonexistent-blockscope-dir/s.json");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("cannot write /nonexistent-blockscope-dir/s.json"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\"schema\":\"blockscope-results\""), std::string::npos) << "the JSON went to stdout";
}

TEST_F(SweepApp, HeadlessSweepShowsTheHeatmapAndExports) {
  const std::string img = image(45, 29);
  const RunResult r =
      run("--headless --backend cpu " + quote(img) +
          " --kernel gray_2d --sweep --blocks 8x8,16x16,32x8,64x4,4x64,2048 --window-size 1280x800"
          " --screenshot " +
          quote(path("shot.png")) + " --json " + quote(path("h.json")) + " --csv " + quote(path("h.csv")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("sweep frames:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("sweep: 5 of 6 points measured, 1 refused"), std::string::npos) << r.output;
  auto doc = json(path("h.json"));
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->at("kind").str, "sweep");
  EXPECT_EQ(doc->at("results").items.size(), 6u);
  EXPECT_EQ(doc->at("results").at(0).at("problem").str, "45x29 planar");
  EXPECT_EQ(csv_rows(read(path("h.csv"))), 6u);
  int w = 0, h = 0;
  EXPECT_GT(yellow_pixels(path("shot.png"), &w, &h), 500u) << "the heatmap's colours are not on screen";
  EXPECT_EQ(w, 1280);
  EXPECT_EQ(h, 800);
}

TEST_F(SweepApp, HeadlessMatmulSweepOfCompiledConfigurations) {
  const RunResult r =
      run("--headless --backend cpu --lab matmul --matmul-size 33x17x9 --kernel k3_smem_tiled --sweep "
          "--window-size 1280x800 --screenshot " +
          quote(path("bars.png")) + " --json " + quote(path("m.json")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto doc = json(path("m.json"));
  ASSERT_TRUE(doc);
  const auto& res = doc->at("results").items;
  ASSERT_GE(res.size(), 2u);
  for (std::size_t i = 0; i < res.size(); ++i) {
    EXPECT_EQ(res[i].at("kernel").str, "k3_smem_tiled");
    EXPECT_EQ(res[i].at("compiled_index").number, static_cast<double>(i)) << "every compiled configuration";
  }
  EXPECT_GT(yellow_pixels(path("bars.png")), 50u);
}

TEST_F(SweepApp, HeadlessExportsTheCurrentLaunch) {
  const RunResult r = run("--headless --backend cpu " + quote(image(21, 13)) + " --kernel gray_2d --block 8x8 --json " +
                          quote(path("l.json")) + " --csv " + quote(path("l.csv")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto doc = json(path("l.json"));
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->at("kind").str, "launch");
  ASSERT_EQ(doc->at("results").items.size(), 1u);
  EXPECT_EQ(doc->at("results").at(0).at("config").str, "block 8x8");
  EXPECT_EQ(doc->at("results").at(0).at("launch").at("threads_launched").number, 3 * 2 * 64);
  EXPECT_EQ(csv_rows(read(path("l.csv"))), 1u);
}

TEST_F(SweepApp, GpuSweepCarriesTheClockAndTheOccupancySuggestion) {
  const RunResult probe =
      run("sweep gray --backend cuda --size 301x203 --kernel gray_2d --blocks 32x8,16x16,256x1 "
          "--json " +
          quote(path("g.json")));
  if (probe.exit_code == 4) BS_SKIP_NO_GPU() << "no CUDA device";
  ASSERT_EQ(probe.exit_code, 0) << probe.output;
  auto doc = json(path("g.json"));
  ASSERT_TRUE(doc);
  EXPECT_GT(doc->at("sm_clock_mhz_before").number, 100);
  EXPECT_GT(doc->at("sm_clock_mhz_after").number, 100);
  const auto& sg = doc->at("sweep").at("suggestions");
  ASSERT_EQ(sg.items.size(), 1u);
  EXPECT_GE(sg.at(0).at("threads").number, 32);
  EXPECT_LE(sg.at(0).at("threads").number, 1024);
  for (const auto& x : doc->at("results").items) {
    EXPECT_EQ(x.at("check").at("state").str, "passed");
    EXPECT_FALSE(x.at("simulated").boolean);
    EXPECT_GT(x.at("attributes").at("registers").number, 0);
  }
}

}  // namespace
