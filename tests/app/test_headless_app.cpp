// The whole app, run headless (EGL) the way a user or CI runs it: the screenshot really shows
// the UI and the grayscale result, the kernel output read back from the GL texture equals the
// reference, bad input gets its message while the app keeps what it has, an unknown kernel is a
// usage error naming the lab's kernels, `sweep` and `bench` keep stdout to the JSON alone, and
// (label gpu) the CUDA backend writes through zero-copy interop.
#include <gtest/gtest.h>

#include <unistd.h>  // getpid

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>

#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>

#include "image/image_loader.hpp"
#include "labs/grayscale/gray_common.hpp"

#include "app_runner.hpp"
#include "json_reader.hpp"
#include "skips.hpp"

namespace {

using namespace bs::app::test;  // RunResult, quote, executable, run

namespace fs = std::filesystem;

class HeadlessApp : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("bs_headless_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    seed_ = std::random_device{}();
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  // A fresh random image of odd size, written as PNG.
  fs::path make_image(int w, int h, std::vector<std::uint8_t>* rgba_out) {
    std::mt19937 rng(seed_);
    std::vector<std::uint8_t> rgb(static_cast<std::size_t>(w) * h * 3);
    for (auto& v : rgb) v = static_cast<std::uint8_t>(rng());
    const fs::path p = dir_ / "random.png";
    EXPECT_TRUE(stbi_write_png(p.c_str(), w, h, 3, rgb.data(), w * 3));
    rgba_out->resize(static_cast<std::size_t>(w) * h * 4);
    for (std::size_t i = 0; i < static_cast<std::size_t>(w) * h; ++i) {
      for (int c = 0; c < 3; ++c) (*rgba_out)[4 * i + c] = rgb[3 * i + c];
      (*rgba_out)[4 * i + 3] = 255;
    }
    return p;
  }
  bs::Rgba8Image load(const fs::path& p) {
    auto img = bs::load_image_file(p, bs::LoadLimits{});
    EXPECT_TRUE(img.ok()) << img.status().describe();
    return img.ok() ? std::move(img.value()) : bs::Rgba8Image{};
  }
  // The kernel output PNG (gray, read back from the GL texture the view shows): every pixel is
  // exactly the kernels' per-pixel formula (so every pixel was computed, by some thread, once)
  // and within 1 of a double-precision reference written here.
  void expect_gray_output_correct(const fs::path& gray_png, const std::vector<std::uint8_t>& rgba, int w, int h) {
    bs::Rgba8Image out = load(gray_png);
    ASSERT_EQ(out.width, w);
    ASSERT_EQ(out.height, h);
    for (std::size_t i = 0; i < static_cast<std::size_t>(w) * h; ++i) {
      const std::uint8_t* p = &rgba[4 * i];
      const std::uint8_t exact = bs::gray::gray_value(p[0], p[1], p[2]);
      const double ref = std::floor(0.2989 * p[0] + 0.5870 * p[1] + 0.1140 * p[2]);
      ASSERT_EQ(out.rgba[4 * i], exact) << "pixel " << i % w << "," << i / w << " seed " << seed_;
      ASSERT_LE(std::abs(out.rgba[4 * i] - ref), 1.0);
    }
  }
  fs::path dir_;
  std::uint32_t seed_ = 0;
};

TEST_F(HeadlessApp, ScreenshotShowsTheUiAndTheResultAndTheOutputIsExact) {
  std::vector<std::uint8_t> rgba;
  const int w = 333, h = 217;
  const fs::path img = make_image(w, h, &rgba);
  const fs::path shot = dir_ / "shot.png", gray = dir_ / "gray.png", sched = dir_ / "sched.json";
  auto r = run(quote(img) +
               " --headless --backend cpu --frames 3 --kernel gray_2d --block 16x8 "
               "--overlay lines --pin 20,30 --panel stats --screenshot " +
               quote(shot) + " --gray-out " + quote(gray) + " --schedule-json " + quote(sched));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("backend: CPU simulation"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("launch: gray_2d [block 16x8] on 333x217 planar grid (21, 28, 1) block (16, 8, 1)"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("check: correct"), std::string::npos) << r.output;
  expect_gray_output_correct(gray, rgba, w, h);

  bs::Rgba8Image s = load(shot);
  ASSERT_EQ(s.width, 1600);
  ASSERT_EQ(s.height, 1000);
  // The UI is there: many distinct colours (text, widgets, image), the dark theme background at
  // the corners, and the result half of the split view is mostly gray (r == g == b) while the
  // original half is colourful.
  std::set<std::uint32_t> colours;
  std::size_t gray_px = 0, colour_px = 0;
  for (int y = 0; y < s.height; ++y)
    for (int x = 0; x < s.width; ++x) {
      const std::uint8_t* p = &s.rgba[(static_cast<std::size_t>(y) * s.width + x) * 4];
      colours.insert(p[0] | p[1] << 8 | p[2] << 16);
      // The image view sits in the middle third of the window.
      if (y > 200 && y < 800 && x > 400 && x < 1200) {
        const bool is_gray = p[0] == p[1] && p[1] == p[2] && p[0] > 40;
        gray_px += is_gray && x > 850;
        colour_px += !is_gray && x < 750 && (std::abs(p[0] - p[1]) > 30 || std::abs(p[1] - p[2]) > 30);
      }
    }
  EXPECT_GT(colours.size(), 1000u);
  EXPECT_GT(gray_px, 20000u) << "the result half should show the gray output";
  EXPECT_GT(colour_px, 20000u) << "the original half should show the colour input";
  const std::uint8_t* corner = &s.rgba[(static_cast<std::size_t>(s.height - 3) * s.width + 3) * 4];
  EXPECT_LT(corner[0], 60) << "dark theme background expected at the bottom-left corner";

  // The schedule JSON names every block once and says it was simulated.
  std::ifstream in(sched);
  std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::erase_if(json, [](char c) { return c == ' ' || c == '\n'; });
  EXPECT_NE(json.find("\"simulated\":true"), std::string::npos) << json.substr(0, 200);
  std::size_t blocks = 0;
  for (std::size_t pos = 0; (pos = json.find("\"sm\":", pos)) != std::string::npos; ++pos) ++blocks;
  EXPECT_EQ(blocks, 21u * 28u);
}

TEST_F(HeadlessApp, OneDimensionalKernelOutputIsExactToo) {
  std::vector<std::uint8_t> rgba;
  const int w = 1023, h = 31;
  const fs::path img = make_image(w, h, &rgba);
  const fs::path gray = dir_ / "gray.png";
  auto r = run(quote(img) + " --headless --backend cpu --frames 1 --kernel gray_1d_flat --block 100 --output " +
               quote(gray));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_gray_output_correct(gray, rgba, w, h);
}

TEST_F(HeadlessApp, BadFilesGetAMessageAndTheSampleStaysLoaded) {
  const fs::path text = dir_ / "notes.png";
  std::ofstream(text) << "this is not a png";
  const fs::path empty = dir_ / "empty.jpg";
  std::ofstream(empty).flush();
  const fs::path shot = dir_ / "shot.png";
  auto r = run(quote(text) + " " + quote((dir_ / "missing.png").string()) + " " + quote(empty) + " " +
               quote(dir_.string()) + " --headless --backend cpu --frames 2 --screenshot " + quote(shot));
  EXPECT_EQ(r.exit_code, 1) << r.output;  // documented: a file did not load
  EXPECT_NE(r.output.find("notes.png"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("missing.png"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("empty.jpg"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("is a folder, not an image file"), std::string::npos) << r.output;
  // Still running on the sample: a launch happened and the screenshot was written.
  EXPECT_NE(r.output.find("launch: gray_1d_flat"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(shot));
}

TEST_F(HeadlessApp, RefusedLaunchSaysWhyAndExitsNonZero) {
  auto r = run("--headless --backend cpu --frames 1 --block 2048");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("1024"), std::string::npos) << r.output;
  auto z = run("--headless --backend cpu --frames 1 --kernel gray_2d --block 8x8x2");
  EXPECT_EQ(z.exit_code, 1) << z.output;
  EXPECT_NE(z.output.find("blockDim.z"), std::string::npos) << z.output;
}

TEST_F(HeadlessApp, NoDisplaySuggestsHeadlessAndBadFlagsAreUsageErrors) {
  auto r = run("--backend cpu", "env -u DISPLAY -u WAYLAND_DISPLAY");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("--headless"), std::string::npos) << r.output;
  auto u = run("--overlay rainbow");
  EXPECT_EQ(u.exit_code, 2) << u.output;
  EXPECT_NE(u.output.find("--overlay"), std::string::npos) << u.output;
  auto h = run("--help");
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_NE(h.output.find("EXIT CODES"), std::string::npos);
}

// An unknown kernel in the window's modes is a bad command line, as for bench and sweep.
TEST(CommandLine, AnUnknownKernelExitsTwoAndListsTheLabsKernels) {
  const auto r = run("--headless --backend cpu --frames 1 --kernel nope",
                     "env -u BLOCKSCOPE_CONFIG_DIR XDG_CONFIG_HOME=/nonexistent");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("no kernel 'nope'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("gray_2d"), std::string::npos) << "the lab's kernels are listed: " << r.output;
  const auto m = run("--headless --backend cpu --frames 1 --lab matmul --kernel gray_2d",
                     "env -u BLOCKSCOPE_CONFIG_DIR XDG_CONFIG_HOME=/nonexistent");
  EXPECT_EQ(m.exit_code, 2) << m.output;
  EXPECT_NE(m.output.find("k1_naive"), std::string::npos) << m.output;
}

// `blockscope sweep` without --json writes the JSON alone to stdout (the table and the
// notes go to stderr), so a pipe can parse it; `bench` does the same.
TEST(CommandLine, SweepAndBenchWithoutJsonKeepStdoutParseable) {
  for (const char* cmd :
       {"sweep gray --backend cpu --size 40x24 --kernel gray_2d --blocks 32x8,16x16",
        "bench gray --backend cpu --size 40x24 --kernel gray_2d --block 32x8 --repeats 2 --set layout=planar"}) {
    SCOPED_TRACE(cmd);
    const std::string line = quote(executable()) + " " + cmd + " 2>/dev/null";
    FILE* p = popen(line.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string out;
    std::array<char, 4096> buf{};
    while (std::fgets(buf.data(), buf.size(), p)) out += buf.data();
    const int rc = pclose(p);
    EXPECT_EQ(WEXITSTATUS(rc), 0) << out;
    const auto doc = bs::test::parse_json(out);
    ASSERT_TRUE(doc) << "stdout is not JSON alone:\n" << out.substr(0, 2000);
    EXPECT_GE(doc->at("results").items.size(), 1u);
  }
}

// `--block 32x8 --kernel 2d` once silently ran 16x16, and `--block 128 --kernel 1d` ran 256: both
// orders of the flags launch the same, asked-for configuration.
TEST_F(HeadlessApp, TheOrderOfFlagsDoesNotChangeWhatRuns) {
  for (const auto& [a, b, expect] :
       {std::tuple{"--block 32x8", "--kernel gray_2d", "launch: gray_2d [block 32x8]"},
        std::tuple{"--block 128", "--kernel gray_1d_flat", "launch: gray_1d_flat [block 128]"}}) {
    auto first = run(std::string("--headless --backend cpu --frames 1 ") + a + " " + b);
    auto second = run(std::string("--headless --backend cpu --frames 1 ") + b + " " + a);
    EXPECT_EQ(first.exit_code, 0) << first.output;
    EXPECT_EQ(second.exit_code, 0) << second.output;
    EXPECT_NE(first.output.find(expect), std::string::npos) << first.output;
    EXPECT_NE(second.output.find(expect), std::string::npos) << second.output;
  }
  // A block the kernel cannot take is refused, whatever the order, with exit 1.
  for (const char* args : {"--block 8x8x2 --kernel gray_2d", "--kernel gray_2d --block 8x8x2"}) {
    auto r = run(std::string("--headless --backend cpu --frames 1 ") + args);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("refused"), std::string::npos) << r.output;
  }
}

TEST_F(HeadlessApp, BenchGrayOnTheCpuWritesJson) {
  const fs::path json = dir_ / "bench.json";
  auto r = run("bench gray --backend cpu --size 257x129 --block 64 --block 16x16 --repeats 3 --warmup 1 --json " +
               quote(json));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(json);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto v = bs::test::parse_json(text);
  ASSERT_TRUE(v.has_value()) << text;
  EXPECT_EQ(v->at("kind").str, "bench");
  EXPECT_EQ(v->at("lab").str, "gray");
  // No --set: both layouts ran, each kernel with each block (the CPU has no CUB or copy).
  const auto& results = v->at("results").items;
  std::set<std::string> seen;
  for (const auto& r : results) {
    const std::string layout = r.at("settings").at("layout").str;
    ASSERT_TRUE(layout == "planar" || layout == "rgba") << layout;
    EXPECT_EQ(r.at("outcome").str, "ok") << r.at("kernel").str << " " << r.at("error").str;
    EXPECT_EQ(r.at("check").at("state").str, "passed");
    // The bytes each layout counts: 3 + 1 or 4 + 1 per pixel.
    EXPECT_EQ(r.at("bytes").number, (layout == "planar" ? 4.0 : 5.0) * 257 * 129);
    EXPECT_GT(r.at("median_ms").number, 0);
    seen.insert(r.at("kernel").str + "|" + std::to_string(r.at("block").at(0).number) + "x" +
                std::to_string(r.at("block").at(1).number) + "|" + layout);
  }
  for (const char* k : {"gray_1d_flat", "gray_2d", "gray_ilp4", "gray_vec16", "gray_grid_stride", "gray_vec16_aligned"})
    for (const char* layout : {"planar", "rgba"})
      for (auto [bx, by] : {std::pair{64, 1}, std::pair{16, 16}})
        EXPECT_EQ(seen.count(std::string(k) + "|" + std::to_string(double(bx)) + "x" + std::to_string(double(by)) +
                             "|" + layout),
                  1u)
            << k << " " << layout << " " << bx << "x" << by;
  EXPECT_EQ(results.size(), 24u);  // 6 kernels x 2 layouts x 2 blocks
  // --set narrows it to one layout; a bad value is refused with the choices.
  auto one =
      run("bench gray --backend cpu --size 33x7 --block 64 --repeats 1 --warmup 0 --kernel gray_vec16 "
          "--set layout=rgba --json " +
          quote(json));
  ASSERT_EQ(one.exit_code, 0) << one.output;
  auto bad = run("bench gray --backend cpu --size 33x7 --set layout=bgr");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("planar, rgba"), std::string::npos) << bad.output;
}

// --kernel names a kernel of the settings the command runs: the tensor-core rungs are kernels of
// precision=bf16 (they were refused as unknown, checked against the default fp32 list); a kernel
// of no combination is refused with every combination's kernels listed.
TEST_F(HeadlessApp, BenchAndSweepFindTheTensorCoreRungsUnderTheirPrecision) {
  const fs::path json = dir_ / "tc.json";
  auto r =
      run("bench matmul --backend cpu --size 37x21x19 --set precision=bf16 --kernel tc2_mma_sync --kernel tc1_wmma "
          "--repeats 1 --warmup 0 --json " +
          quote(json));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(json);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto doc = bs::test::parse_json(text);
  ASSERT_TRUE(doc) << text;
  std::set<std::string> kernels;
  for (const auto& x : doc->at("results").items) {
    kernels.insert(x.at("kernel").str);
    EXPECT_EQ(x.at("check").at("state").str, "passed") << x.at("kernel").str;
    EXPECT_EQ(x.at("settings").at("precision").str, "bf16");
  }
  EXPECT_EQ(kernels, (std::set<std::string>{"tc1_wmma", "tc2_mma_sync"}));
  auto sweep = run("sweep matmul --backend cpu --size 33x17x16 --set precision=fp32,bf16 --kernel tc1_wmma --json " +
                   quote(json));
  ASSERT_EQ(sweep.exit_code, 0) << sweep.output;
  auto fp32 = run("sweep matmul --backend cpu --size 33x17x16 --set precision=fp32 --kernel tc1_wmma");
  EXPECT_EQ(fp32.exit_code, 2) << fp32.output;
  EXPECT_NE(fp32.output.find("no kernel 'tc1_wmma' with these settings"), std::string::npos) << fp32.output;
  EXPECT_NE(fp32.output.find("k7_warptile"), std::string::npos) << "the fp32 kernels are listed: " << fp32.output;
}

// On the GPU machine: the CUDA backend writes into the GL texture through zero-copy interop,
// and the texture read back equals the reference.
TEST_F(HeadlessApp, GpuZeroCopyInteropOutputEqualsReference) {
  std::vector<std::uint8_t> rgba;
  const int w = 1023, h = 767;
  const fs::path img = make_image(w, h, &rgba);
  const fs::path gray = dir_ / "gray.png", shot = dir_ / "shot.png";
  for (auto [kernel, block] : {std::pair{"gray_1d_flat", "256"}, std::pair{"gray_2d", "16x16"}}) {
    auto r = run(quote(img) + " --headless --backend cuda --frames 3 --kernel " + kernel + " --block " + block +
                 " --overlay sm --output " + quote(gray) + " --screenshot " + quote(shot));
    if (r.exit_code == 4) BS_SKIP_NO_GPU() << "no usable CUDA device: " << r.output;
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("interop: CUDA-GL interop (zero-copy: CUDA copies into the texture)"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("CUDA events"), std::string::npos) << r.output;
    expect_gray_output_correct(gray, rgba, w, h);
  }
}

// The Pipeline tab draws a recording loaded with --matmul-pipeline-trace (the CPU cannot launch
// T4): a trace written here by hand, one block on SM 3 with 5 slices whose consumers wait on full
// barriers for most of each slice, must paint that span's colour (235, 95, 70) and the wgmma
// wait's (60, 170, 85) in the side tabs; a file that is not a trace leaves the app running.
TEST_F(HeadlessApp, PipelineTabDrawsALoadedTrace) {
  std::string t =
      "blockscope-pipeline-trace 1\nkernel tc4_warp_specialized\nconfig hand-written\n"
      "size 128 256 320\ngrid 1 1 1\ncluster 1 1 1\nstages 3\npersistent 0\nevent_ms 0.00002\n"
      "capacity 64\nblock 0 3 1000 20000 -1\n";
  const std::uint64_t T = 1000;
  std::string producer, consumer[2];
  int np = 0, nc = 0;
  for (int s = 0; s < 5; ++s) {
    const std::uint64_t b = T + 3000ull * s;  // slice s: the consumers wait 2000 ns, wgmma 900 ns
    producer += "e 1 " + std::to_string(s % 3) + " " + std::to_string(s) + " 0 " + std::to_string(b) + " 0\n";
    producer += "e 2 " + std::to_string(s % 3) + " " + std::to_string(s) + " 0 " + std::to_string(b + 10) + " 0\n";
    producer += "e 3 " + std::to_string(s % 3) + " " + std::to_string(s) + " 0 " + std::to_string(b + 60) + " 0\n";
    np += 3;
    for (auto& c : consumer) {
      const std::uint64_t times[5] = {b, b + 2000, b + 2050, b + 2950, b + 2990};
      for (int k = 0; k < 5; ++k)
        c += "e " + std::to_string(4 + k) + " " + std::to_string(s % 3) + " " + std::to_string(s) + " 0 " +
             std::to_string(times[k]) + " 0\n";
    }
    nc += 5;
  }
  t += "lane 0 0 " + std::to_string(np) + " " + std::to_string(np) + "\n" + producer;
  t += "lane 0 1 " + std::to_string(nc) + " " + std::to_string(nc) + "\n" + consumer[0];
  t += "lane 0 2 " + std::to_string(nc) + " " + std::to_string(nc) + "\n" + consumer[1];
  const fs::path trace = dir_ / "hand.trace", shot = dir_ / "pipeline.png";
  std::ofstream(trace) << t;
  auto r = run("--headless --backend cpu --lab matmul --frames 3 --panel pipeline --matmul-pipeline-trace " +
               quote(trace.string()) + " --screenshot " + quote(shot.string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  bs::Rgba8Image s = load(shot);
  ASSERT_GT(s.width, 0);
  std::size_t wait_full = 0, wgmma = 0;
  for (int y = 0; y < s.height; ++y)
    for (int x = s.width * 2 / 3; x < s.width; ++x) {  // the side tabs
      const std::uint8_t* p = &s.rgba[(static_cast<std::size_t>(y) * s.width + x) * 4];
      wait_full += p[0] == 235 && p[1] == 95 && p[2] == 70;
      wgmma += p[0] == 60 && p[1] == 170 && p[2] == 85;
    }
  // Two consumer rows of 5 waits of 2000 ns in a 15 us axis: hundreds of pixels; the legend
  // swatches alone are a few dozen.
  EXPECT_GT(wait_full, 400u);
  EXPECT_GT(wgmma, 150u);
  EXPECT_GT(wait_full, wgmma);  // the waits are longer than the wgmma waits
  std::ofstream(dir_ / "bad.trace") << "not a trace\n";
  auto bad = run("--headless --backend cpu --lab matmul --frames 2 --panel pipeline --matmul-pipeline-trace " +
                 quote((dir_ / "bad.trace").string()) + " --screenshot " + quote((dir_ / "bad.png").string()));
  EXPECT_EQ(bad.exit_code, 0) << bad.output;
}

}  // namespace
