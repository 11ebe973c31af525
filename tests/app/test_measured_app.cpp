// Hardware counters as a user reaches them: the flags (--panel measured, --profile, --cupti,
// bench --counters), the headless app with --profile, and bench --counters with its JSON parsed
// back. On the CPU backend the tab and the bench say counters are a GPU feature and everything
// else goes on. The *Gpu* cases (label gpu) read real counters, and load a stand-in libcupti that
// refuses as the driver refuses a user without profiling permission.
#include <gtest/gtest.h>

#include <unistd.h>  // getpid

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "app_runner.hpp"
#include "cli/options.hpp"
#include "counters/counter_errors.hpp"
#include "json_reader.hpp"
#include "labs/catalog.hpp"
#include "shell/run_modes.hpp"
#include "skips.hpp"

namespace {

namespace fs = std::filesystem;
using namespace bs::app;
using bs::app::test::quote;
using bs::app::test::run;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

bs::Result<CliOptions> parse(std::vector<std::string> args) {
  static const std::vector<LabFlags> f = lab_flags(built_in_labs());
  return parse_command_line(args, f);
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The side tab the app said it showed in its last status (--status-file): the Measured tab's word.
bool shows_the_measured_tab(const fs::path& status) {
  auto v = bs::test::parse_json(read_file(status));
  return v && v->at("ui").at("panel").str == "measured";
}

class MeasuredApp : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("bs_measured_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    if (!HasFailure()) fs::remove_all(dir_, ec);
  }
  fs::path dir_;
};

// ---- the command line ------------------------------------------------------------------------

TEST(MeasuredCli, FlagsReachTheirOptions) {
  auto o = parse({"--headless", "--panel", "measured", "--profile", "--cupti", "/x/libcupti.so"});
  ASSERT_TRUE(o) << o.status().describe();
  EXPECT_EQ(o->state.panel, Panel::Measured);
  EXPECT_TRUE(o->profile);
  EXPECT_EQ(o->cupti_library, "/x/libcupti.so");
  auto b = parse({"bench", "matmul", "--counters", "--cupti", "/y/libcupti.so"});
  ASSERT_TRUE(b) << b.status().describe();
  ASSERT_TRUE(b->bench);
  EXPECT_TRUE(b->bench->counters);
  EXPECT_EQ(b->cupti_library, "/y/libcupti.so");
  auto plain = parse({"bench", "gray"});
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->bench->counters) << "counters are opt-in";
}

TEST(MeasuredCli, MisplacedFlagsSayWhereTheyBelong) {
  auto a = parse({"--counters"});
  ASSERT_FALSE(a);
  EXPECT_TRUE(contains(a.status().message, "bench")) << a.status().message;
  auto b = parse({"bench", "gray", "--profile"});
  ASSERT_FALSE(b);
  EXPECT_TRUE(contains(b.status().message, "--counters")) << b.status().message;
  auto c = parse({"--cupti"});
  ASSERT_FALSE(c);
  auto d = parse({"--panel", "measure"});
  ASSERT_FALSE(d);
  EXPECT_TRUE(contains(d.status().message, "measured")) << d.status().message;
  EXPECT_TRUE(contains(help_text(lab_flags(built_in_labs())), "--counters"));
  EXPECT_TRUE(contains(help_text(lab_flags(built_in_labs())), "--profile"));
}

// ---- the CPU backend -------------------------------------------------------------------------

TEST_F(MeasuredApp, HeadlessProfileOnTheCpuSaysCountersAreAGpuFeatureAndRunsOn) {
  const fs::path shot = dir_ / "measured.png", status = dir_ / "status.json";
  const auto r =
      run("--headless --backend cpu --lab matmul --panel measured --profile --frames 3 "
          "--window-size 900x600 --screenshot " +
          quote(shot.string()) + " --status-file " + quote(status.string()));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "hardware counters are a GPU feature")) << r.output;
  EXPECT_TRUE(contains(r.output, "check: correct")) << "the launch itself ran and was verified: " << r.output;
  EXPECT_TRUE(shows_the_measured_tab(status)) << read_file(status);
  ASSERT_TRUE(fs::exists(shot)) << r.output;
  EXPECT_GT(fs::file_size(shot), 10000u);
}

TEST_F(MeasuredApp, BenchCountersOnTheCpuSaysWhyAndStillWritesTheResults) {
  const fs::path json = dir_ / "bench.json";
  const auto r =
      run("bench gray --backend cpu --size 67x45 --kernel gray_1d_flat --kernel gray_2d "
          "--block 64 --block 16x8 --repeats 2 --warmup 0 --set layout=planar --counters --json " +
          quote(json.string()));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "hardware counters are a GPU feature")) << r.output;
  // Said once, not once per result.
  EXPECT_EQ(r.output.find("GPU feature"), r.output.rfind("GPU feature")) << r.output;
  auto v = bs::test::parse_json(read_file(json));
  ASSERT_TRUE(v) << read_file(json);
  const auto& results = v->at("results").items;
  ASSERT_FALSE(results.empty());
  int ran = 0;
  for (const auto& res : results) {
    if (res.at("outcome").str != "ok") continue;
    ++ran;
    EXPECT_GT(res.at("median_ms").number, 0);
    const auto& c = res.at("counters");
    ASSERT_EQ(c.kind, bs::test::JsonValue::Object);
    EXPECT_FALSE(c.at("available").boolean);
    EXPECT_TRUE(contains(c.at("message").str, "GPU feature")) << c.at("message").str;
    EXPECT_FALSE(c.at("hint").str.empty());
  }
  EXPECT_GT(ran, 0);
}

TEST_F(MeasuredApp, BenchWithoutCountersWritesNoCounters) {
  const fs::path json = dir_ / "bench.json";
  const auto r =
      run("bench gray --backend cpu --size 33x17 --kernel gray_2d --block 16x8 --repeats 1 "
          "--warmup 0 --set layout=planar --json " +
          quote(json.string()));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  auto v = bs::test::parse_json(read_file(json));
  ASSERT_TRUE(v);
  for (const auto& res : v->at("results").items) EXPECT_FALSE(res.has("counters"));
}

// ---- on a GPU (label gpu) ---------------------------------------------------------------------

bool no_device(const bs::app::test::RunResult& r) { return r.exit_code == kExitNoBackend; }

TEST_F(MeasuredApp, GpuBenchCountersBesideTheModel) {
  const fs::path json = dir_ / "bench.json";
  const auto r =
      run("bench matmul --backend cuda --size 512 --kernel k1_naive --kernel k2_uncoalesced "
          "--block 32x32 --repeats 3 --warmup 1 --counters --json " +
          quote(json.string()));
  if (no_device(r)) BS_SKIP_NO_GPU() << "no usable CUDA device: " << r.output;
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto v = bs::test::parse_json(read_file(json));
  ASSERT_TRUE(v);
  int measured = 0;
  for (const auto& res : v->at("results").items) {
    const auto& c = res.at("counters");
    ASSERT_TRUE(c.at("available").boolean) << c.at("error").str;
    ++measured;
    const auto& m = c.at("model");
    EXPECT_NEAR(c.at("ld_sectors_per_request").number, m.at("ld_sectors_per_request").number,
                0.02 * m.at("ld_sectors_per_request").number)
        << res.at("kernel").str;
    EXPECT_NEAR(c.at("st_sectors_per_request").number, m.at("st_sectors_per_request").number,
                0.02 * m.at("st_sectors_per_request").number)
        << res.at("kernel").str;
    EXPECT_GT(c.at("dram_read_bytes").number, 0);
    EXPECT_GT(c.at("passes").number, 1);
    EXPECT_GT(c.at("achieved_occupancy_pct").number, 0);
    EXPECT_FALSE(c.at("stalls").items.empty());
  }
  EXPECT_EQ(measured, 2);
}

TEST_F(MeasuredApp, GpuHeadlessProfileShowsTheTab) {
  const fs::path shot = dir_ / "measured.png", status = dir_ / "status.json";
  const auto r =
      run("--headless --backend cuda --lab matmul --matmul-size 1024x1024x1024 --kernel k2_uncoalesced --block 32x32 "
          "--panel measured --profile --screenshot " +
          quote(shot.string()) + " --status-file " + quote(status.string()));
  if (no_device(r)) BS_SKIP_NO_GPU() << "no usable CUDA device: " << r.output;
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(contains(r.output, "could not be read")) << r.output;
  EXPECT_TRUE(shows_the_measured_tab(status)) << read_file(status);
  EXPECT_TRUE(fs::exists(shot));
}

#ifdef FAKE_CUPTI_PATH
std::string fake_cupti() {
  const char* env = std::getenv("BS_FAKE_CUPTI");
  return env && *env ? env : FAKE_CUPTI_PATH;
}

TEST_F(MeasuredApp, GpuWithoutPermissionTheBenchSaysTheCauseAndTheFix) {
  const fs::path json = dir_ / "bench.json";
  const auto r =
      run("bench matmul --backend cuda --size 256 --kernel k1_naive --block 16x16 --repeats 2 "
          "--counters --cupti " +
          quote(fake_cupti()) + " --json " + quote(json.string()));
  if (no_device(r)) BS_SKIP_NO_GPU() << "no usable CUDA device: " << r.output;
  EXPECT_EQ(r.exit_code, 0) << "counters are an extra: " << r.output;
  EXPECT_TRUE(contains(r.output, "restricts profiling to administrators")) << r.output;
  EXPECT_TRUE(contains(r.output, bs::counters::kProfilingDriverOption)) << r.output;
  auto v = bs::test::parse_json(read_file(json));
  ASSERT_TRUE(v);
  const auto& c = v->at("results").at(0).at("counters");
  EXPECT_FALSE(c.at("available").boolean);
  EXPECT_EQ(c.at("code").str, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  EXPECT_TRUE(contains(c.at("hint").str, bs::counters::kProfilingDriverOption));
}

TEST_F(MeasuredApp, GpuWithoutPermissionTheTabSaysTheCauseAndTheFix) {
  const fs::path shot = dir_ / "measured.png";
  const auto r =
      run("--headless --backend cuda --lab matmul --matmul-size 512x512x512 --panel measured --profile --cupti " +
          quote(fake_cupti()) + " --screenshot " + quote(shot.string()));
  if (no_device(r)) BS_SKIP_NO_GPU() << "no usable CUDA device: " << r.output;
  EXPECT_EQ(r.exit_code, 0) << "everything else works: " << r.output;
  EXPECT_TRUE(contains(r.output, "Hardware counters could not be read")) << r.output;
  EXPECT_TRUE(contains(r.output, bs::counters::kProfilingDriverOption)) << r.output;
  EXPECT_TRUE(fs::exists(shot));
}

// The window's sweep with "hardware counters per point" loads the libcupti the app was given
// (--cupti), as the Measured tab and the sweep command do: with the stand-in that refuses, every
// point that ran carries the refusal, and the sweep's timings are all there.
TEST_F(MeasuredApp, GpuWindowSweepWithCountersUsesTheAppsCupti) {
  const fs::path config = dir_ / "config", json = dir_ / "sweep.json";
  fs::create_directories(config);
  std::ofstream(config / "settings.txt") << "# blockscope settings v1\nsweep.counters = true\n";
  const auto r = run("--headless --backend cuda --config-dir " + quote(config.string()) +
                     " --kernel gray_2d --sweep --blocks 32x8,16x16,2048 --cupti " + quote(fake_cupti()) + " --json " +
                     quote(json.string()));
  if (no_device(r)) BS_SKIP_NO_GPU() << "no usable CUDA device: " << r.output;
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto v = bs::test::parse_json(read_file(json));
  ASSERT_TRUE(v);
  int ran = 0;
  for (const auto& x : v->at("results").items) {
    if (x.at("outcome").str != "ok") continue;
    ++ran;
    EXPECT_GT(x.at("median_ms").number, 0);
    ASSERT_TRUE(x.has("counters"));
    EXPECT_FALSE(x.at("counters").at("available").boolean);
    EXPECT_EQ(x.at("counters").at("code").str, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  }
  EXPECT_EQ(ran, 2);
}
#endif

}  // namespace
