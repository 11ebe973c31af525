// What a user without profiling permission reads when blockscope counts executed instructions
// (CUPTI's SASS metrics), on any machine with CUPTI's headers, GPU or not: the stand-in libcupti
// (tests/counters/fake_cupti_no_permission.cpp) lists the metrics and refuses the configuration
// as the driver refuses a non-admin user, before any CUDA call is made. The sampled stall
// profile keeps its samples; only sass_status says why there are no counts.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "counters/counter_errors.hpp"
#include "sampling/pc_sampler.hpp"
#include "sampling/sass_metrics.hpp"

#ifndef FAKE_CUPTI_PATH
#define FAKE_CUPTI_PATH ""
#endif

namespace bs::sampling {
namespace {

// The stand-in libcupti: BS_FAKE_CUPTI when set (tests/gpu/run_on_device.sh sets it), else the
// one beside this executable (the GPU bundle puts it there), else the build tree's, whose path
// CMake gave at build time. Never only the build machine's path: the bundle runs elsewhere.
std::string fake_cupti() {
  if (const char* env = std::getenv("BS_FAKE_CUPTI"); env && *env) return env;
  std::error_code ec;
  const auto beside =
      std::filesystem::read_symlink("/proc/self/exe", ec).parent_path() / "libfake_cupti_no_permission.so";
  if (!ec && std::filesystem::exists(beside, ec)) return beside.string();
  return FAKE_CUPTI_PATH;
}

TEST(SassMetricsNoPermission, CountingSaysTheCauseAndTheDriverOption) {
  ASSERT_TRUE(sass_metrics_built());
  bool launched = false;
  auto got = count_sass(
      [&] {
        launched = true;
        return Status::success();
      },
      {.cupti_library = fake_cupti(), .device = 0});
  ASSERT_FALSE(got.ok());
  EXPECT_FALSE(launched) << "nothing is launched once the configuration is refused";
  EXPECT_EQ(got.status().code, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES") << got.status().describe();
  EXPECT_EQ(got.status().call, "cuptiSassMetricsSetConfig");
  EXPECT_NE(got.status().hint.find(counters::kProfilingDriverOption), std::string::npos) << got.status().hint;
  std::printf("what a user without permission sees:\n  %s\n", got.status().describe().c_str());
}

TEST(SassMetricsNoPermission, TheProfileKeepsItsSamplesAndSaysWhyNoCounts) {
  auto sampler = PcSampler::create({.cupti_library = fake_cupti()});
  ASSERT_TRUE(sampler.ok()) << sampler.status().describe();
  LineProfile p;
  p.function = "k";
  p.total_samples = 123;
  p.lines.push_back({"f.cu", 4, 123, 100.0, {{"barrier", 123}}, {}});
  add_sass_metrics(p, **sampler, [] { return Status::success(); }, {.cupti_library = fake_cupti(), .device = 0});
  EXPECT_FALSE(p.sass_status.ok());
  EXPECT_EQ(p.sass_status.code, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES") << p.sass_status.describe();
  EXPECT_EQ(p.total_samples, 123);
  ASSERT_EQ(p.lines.size(), 1u);
  EXPECT_EQ(p.lines[0].sass.executed, 0);
}

TEST(SassMetricsSwitch, OffByTheEnvironmentSaysHowToTurnItOn) {
  ::setenv("BLOCKSCOPE_SASS_METRICS", "0", 1);
  LineProfile p;
  auto sampler = PcSampler::create({.cupti_library = fake_cupti()});
  ASSERT_TRUE(sampler.ok()) << sampler.status().describe();
  bool launched = false;
  add_sass_metrics(p, **sampler,
                   [&] {
                     launched = true;
                     return Status::success();
                   },
                   {.cupti_library = fake_cupti()});
  ::unsetenv("BLOCKSCOPE_SASS_METRICS");
  EXPECT_FALSE(launched);
  EXPECT_NE(p.sass_status.message.find("BLOCKSCOPE_SASS_METRICS=0"), std::string::npos) << p.sass_status.describe();
  EXPECT_TRUE(sass_metrics_switch().ok());
}

TEST(SassMetricsDefault, AProfileWithoutCountsSaysSo) {
  LineProfile p;
  EXPECT_FALSE(p.sass_status.ok()) << "a profile never counted must not claim counts";
}

}  // namespace
}  // namespace bs::sampling
