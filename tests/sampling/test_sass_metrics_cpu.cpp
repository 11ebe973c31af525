// What a user without profiling permission reads when blockscope counts executed instructions
// (CUPTI's SASS metrics), on any machine with CUPTI's headers, GPU or not: the stand-in libcupti
// (tests/counters/fake_cupti_no_permission.cpp) lists the metrics and refuses the configuration
// as the driver refuses a non-admin user, before any CUDA call is made. The sampled stall
// profile keeps its samples; only sass_status says why there are no counts.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "counters/counter_errors.hpp"
#include "sampling/pc_sampler.hpp"
#include "sampling/sass_metrics.hpp"

#ifndef FAKE_CUPTI_PATH
#define FAKE_CUPTI_PATH ""
#endif

namespace bs::sampling {
namespace {

TEST(SassMetricsNoPermission, CountingSaysTheCauseAndTheDriverOption) {
  ASSERT_TRUE(sass_metrics_built());
  bool launched = false;
  auto got = count_sass(
      [&] {
        launched = true;
        return Status::success();
      },
      {.cupti_library = FAKE_CUPTI_PATH, .device = 0});
  ASSERT_FALSE(got.ok());
  EXPECT_FALSE(launched) << "nothing is launched once the configuration is refused";
  EXPECT_EQ(got.status().code, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES") << got.status().describe();
  EXPECT_EQ(got.status().call, "cuptiSassMetricsSetConfig");
  EXPECT_NE(got.status().hint.find(counters::kProfilingDriverOption), std::string::npos) << got.status().hint;
  std::printf("what a user without permission sees:\n  %s\n", got.status().describe().c_str());
}

TEST(SassMetricsNoPermission, TheProfileKeepsItsSamplesAndSaysWhyNoCounts) {
  auto sampler = PcSampler::create({.cupti_library = FAKE_CUPTI_PATH});
  ASSERT_TRUE(sampler.ok()) << sampler.status().describe();
  LineProfile p;
  p.function = "k";
  p.total_samples = 123;
  p.lines.push_back({"f.cu", 4, 123, 100.0, {{"barrier", 123}}, {}});
  add_sass_metrics(p, **sampler, [] { return Status::success(); }, {.cupti_library = FAKE_CUPTI_PATH, .device = 0});
  EXPECT_FALSE(p.sass_status.ok());
  EXPECT_EQ(p.sass_status.code, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES") << p.sass_status.describe();
  EXPECT_EQ(p.total_samples, 123);
  ASSERT_EQ(p.lines.size(), 1u);
  EXPECT_EQ(p.lines[0].sass.executed, 0);
}

TEST(SassMetricsSwitch, OffByTheEnvironmentSaysHowToTurnItOn) {
  ::setenv("BLOCKSCOPE_SASS_METRICS", "0", 1);
  LineProfile p;
  auto sampler = PcSampler::create({.cupti_library = FAKE_CUPTI_PATH});
  ASSERT_TRUE(sampler.ok()) << sampler.status().describe();
  bool launched = false;
  add_sass_metrics(p, **sampler, [&] { launched = true; return Status::success(); }, {.cupti_library = FAKE_CUPTI_PATH});
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
