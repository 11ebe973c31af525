// FramePhases (app/shell/frame_phases.hpp) on made-up clocks: each phase gets exactly the time
// between its mark and the one before, the first frame is left out of the medians, and the
// medians are the ones a sort of the same durations gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <sstream>

#include "shell/frame_phases.hpp"

namespace bs::app {
namespace {

using Clock = FramePhases::Clock;
using us = std::chrono::microseconds;

// The upper median of a copy, sorted here (not through the code under test).
double upper_median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

TEST(FramePhases, EachPhaseGetsTheTimeSinceTheMarkBeforeIt) {
  FramePhases f;
  const Clock::time_point t0{};
  f.begin_frame(t0);
  f.end_phase(FramePhases::kInput, t0 + us(100));
  f.end_phase(FramePhases::kLaunch, t0 + us(5100));  // results never marked: it gets nothing
  f.end_phase(FramePhases::kUi, t0 + us(5900));
  f.end_phase(FramePhases::kGl, t0 + us(6300));
  f.end_phase(FramePhases::kPresent, t0 + us(7500));
  EXPECT_EQ(f.frames(), 0u) << "a frame counts once the next begins";
  f.begin_frame(t0 + us(20000));  // 12.5 ms asleep between frames: no phase's
  ASSERT_EQ(f.frames(), 1u);
  EXPECT_NEAR(f.last_ms()[FramePhases::kInput], 0.1, 1e-9);
  EXPECT_NEAR(f.last_ms()[FramePhases::kResults], 0.0, 1e-9);
  EXPECT_NEAR(f.last_ms()[FramePhases::kLaunch], 5.0, 1e-9);
  EXPECT_NEAR(f.last_ms()[FramePhases::kUi], 0.8, 1e-9);
  EXPECT_NEAR(f.last_ms()[FramePhases::kGl], 0.4, 1e-9);
  EXPECT_NEAR(f.last_ms()[FramePhases::kPresent], 1.2, 1e-9);
  EXPECT_NEAR(f.last_total_ms(), 7.5, 1e-9);
  EXPECT_TRUE(f.summary().empty()) << "the first frame (shaders, the lab opening) is not a frame's cost";
}

TEST(FramePhases, TheSummaryHasTheMedianOfEveryPhaseOverTheFramesAfterTheFirst) {
  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<int> d(1, 20000);
  FramePhases f;
  Clock::time_point t{};
  const int frames = 37;  // odd, and more than one
  std::vector<std::vector<double>> want(FramePhases::kPhaseCount + 1);
  for (int i = 0; i < frames; ++i) {
    f.begin_frame(t);
    double total = 0;
    for (int p = 0; p < FramePhases::kPhaseCount; ++p) {
      const int step = d(rng);
      t += us(step);
      f.end_phase(static_cast<FramePhases::Phase>(p), t);
      if (i > 0) want[p].push_back(step / 1000.0);
      total += step / 1000.0;
    }
    if (i > 0) want[FramePhases::kPhaseCount].push_back(total);
    t += us(d(rng));  // asleep
  }
  f.begin_frame(t);
  const std::string s = f.summary();
  for (int p = 0; p < FramePhases::kPhaseCount; ++p) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s %.2f |", FramePhases::name(static_cast<FramePhases::Phase>(p)),
                  upper_median(want[p]));
    EXPECT_NE(s.find(buf), std::string::npos) << buf << " in " << s;
  }
  char buf[80];
  std::snprintf(buf, sizeof buf, "frame %.2f ms (median of %d frames)", upper_median(want[FramePhases::kPhaseCount]),
                frames - 1);
  EXPECT_NE(s.find(buf), std::string::npos) << buf << " in " << s;
}

// The launch phase itemised: each step's median over the frames (after the first) whose launch had
// it, in the order the steps first came; frames without a launch add nothing.
TEST(FramePhases, TheLaunchStepsAreTheMediansOverTheFramesThatLaunched) {
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<double> d(1e-6, 5e-3);
  FramePhases f;
  Clock::time_point t{};
  std::vector<double> plan, timed, map;
  int launches = 0;
  for (int i = 0; i < 41; ++i) {
    f.begin_frame(t);
    t += us(100);
    if (i % 3 != 2) {  // every third frame launches nothing
      const double a = d(rng), b = d(rng), c = d(rng);
      std::vector<std::pair<std::string, double>> steps{{"plan", a}, {"timed launches", b}};
      if (i % 2) steps.emplace_back("interop map", c);
      f.launch_steps(steps);
      if (i > 0) {
        ++launches;
        plan.push_back(a * 1000), timed.push_back(b * 1000);
        if (i % 2) map.push_back(c * 1000);
      }
    }
    f.end_phase(FramePhases::kLaunch, t);
  }
  f.begin_frame(t);
  char buf[200];
  std::snprintf(buf, sizeof buf, "plan %.3f | timed launches %.3f | interop map %.3f ms (medians over %d launches)",
                upper_median(plan), upper_median(timed), upper_median(map), launches);
  EXPECT_EQ(f.launch_summary(), buf);
  EXPECT_TRUE(FramePhases().launch_summary().empty());
}

}  // namespace
}  // namespace bs::app
