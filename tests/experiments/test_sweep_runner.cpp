// The sweep's worker thread (app/experiments/sweep_runner.hpp) on the grayscale lab's CPU
// simulation: it measures a fork, so the window's lab can change once the fork is made; points
// arrive while it runs; cancel keeps what was measured.
#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <thread>

#include "experiments/sweep_runner.hpp"
#include "grayscale/gray_test_support.hpp"
#include "wait_until.hpp"

namespace bs::app {
namespace {

using namespace std::chrono_literals;

std::unique_ptr<gray::GrayLab> small_lab(int w, int h) {
  auto lab = gray::test::cpu_lab(2);
  const auto rgba = gray::test::random_rgba(w, h, gray::test::fresh_seed());
  EXPECT_TRUE(lab->set_image(rgba.data(), w, h, "odd").ok());
  return lab;
}

// Polls like the window does, once a frame.
lab::SweepResult poll_until_done(SweepRunner& runner, std::vector<LaunchRecord>* seen,
                                 const std::function<void(std::size_t)>& each = {}) {
  std::optional<lab::SweepResult> result;
  const bool done = bs::test::wait_until(
      [&] {
        for (LaunchRecord& r : runner.take_new_records()) seen->push_back(std::move(r));
        (void)runner.progress();
        if (each) each(seen->size());
        return (result = runner.take_result()).has_value();
      },
      bs::test::kGenerousTimeout, 5ms);
  if (!done) ADD_FAILURE() << "the sweep did not finish";
  return result ? *result : lab::SweepResult{};
}

TEST(SweepRunner, MeasuresAForkAndStreamsItsPoints) {
  auto lab = small_lab(23, 17);
  SweepRunner runner;
  lab::SweepSpec spec;
  spec.kernels = {"gray_2d"};
  spec.blocks = lab::parse_block_list("32x8,16x16,8x8,4x4,1x64").shapes;
  spec.timing = TimingPolicy::until_stable(0.05, 2, 6, 12, 1);
  ASSERT_TRUE(runner.start(*lab, spec).ok());
  runner.go();  // the window's frame is drawn
  EXPECT_FALSE(runner.start(*lab, spec).ok()) << "one sweep at a time";
  ASSERT_TRUE(bs::test::wait_until([&] { return !runner.forking(); })) << "the fork was never made";
  // The fork is made: the window's lab may load another image now.
  const auto other = gray::test::random_rgba(9, 5, gray::test::fresh_seed());
  ASSERT_TRUE(lab->set_image(other.data(), 9, 5, "other").ok());
  std::vector<LaunchRecord> seen;
  const lab::SweepResult r = poll_until_done(runner, &seen);
  EXPECT_TRUE(r.complete) << r.note;
  ASSERT_EQ(r.records.size(), 5u);
  EXPECT_EQ(seen.size(), 5u) << "every point streamed before the result";
  for (const LaunchRecord& rec : r.records) {
    EXPECT_EQ(rec.data_width, 23) << "the sweep measured its own copy";
    EXPECT_TRUE(rec.check.passed()) << rec.check.summary();
  }
  EXPECT_FALSE(runner.running());
}

TEST(SweepRunner, CancelKeepsWhatWasMeasured) {
  auto lab = small_lab(61, 37);
  SweepRunner runner;
  lab::SweepSpec spec;
  spec.kernels = {"gray_2d"};  // all 66 shapes
  spec.timing = TimingPolicy::until_stable(0.01, 5, 6, 50, 1);
  ASSERT_TRUE(runner.start(*lab, spec).ok());
  runner.go();
  std::vector<LaunchRecord> seen;
  const lab::SweepResult r = poll_until_done(runner, &seen, [&](std::size_t n) {
    if (n >= 3) runner.cancel();
  });
  EXPECT_FALSE(r.complete);
  EXPECT_TRUE(r.cancelled);
  EXPECT_GE(r.records.size(), 3u);
  EXPECT_LT(r.records.size(), 66u);
  EXPECT_NE(r.note.find("cancelled after"), std::string::npos) << r.note;
  for (const LaunchRecord& rec : r.records) EXPECT_TRUE(rec.ok() || rec.refused);
}

// The worker forks at once but measures only after go() (the window calls it once its frame's GL
// work is done): before it, no point is timed however long the wait; after it, all are.
TEST(SweepRunner, MeasuresNothingBeforeTheWindowSaysGo) {
  auto lab = small_lab(19, 11);
  SweepRunner runner;
  lab::SweepSpec spec;
  spec.kernels = {"gray_2d"};
  spec.blocks = lab::parse_block_list("8x8,16x4").shapes;
  spec.timing = TimingPolicy::until_stable(0.05, 1, 3, 5, 0);
  ASSERT_TRUE(runner.start(*lab, spec).ok());
  ASSERT_TRUE(bs::test::wait_until([&] { return !runner.forking(); })) << "the fork was never made";
  EXPECT_TRUE(runner.waiting_for_go());
  // Time for several sweeps of two points on 19 x 11 pixels, in which none may be timed: the
  // wait is the thing tested, so this sleep stays.
  std::this_thread::sleep_for(300ms);
  EXPECT_TRUE(runner.take_new_records().empty()) << "a point was timed before go()";
  EXPECT_EQ(runner.progress().sweep.done, 0u);
  runner.go();
  EXPECT_FALSE(runner.waiting_for_go());
  std::vector<LaunchRecord> seen;
  const lab::SweepResult r = poll_until_done(runner, &seen);
  EXPECT_TRUE(r.complete) << r.note;
  EXPECT_EQ(r.records.size(), 2u);
}

// Nobody says go (a caller without a window): it measures after kGoTimeoutS anyway.
TEST(SweepRunner, WithoutGoItMeasuresAfterTheTimeout) {
  auto lab = small_lab(7, 5);
  SweepRunner runner;
  lab::SweepSpec spec;
  spec.kernels = {"gray_2d"};
  spec.blocks = lab::parse_block_list("8x8").shapes;
  spec.timing = TimingPolicy::until_stable(0.05, 1, 3, 5, 0);
  ASSERT_TRUE(runner.start(*lab, spec).ok());
  std::vector<LaunchRecord> seen;
  const lab::SweepResult r = poll_until_done(runner, &seen);
  EXPECT_TRUE(r.complete) << r.note;
  EXPECT_EQ(r.records.size(), 1u);
}

}  // namespace
}  // namespace bs::app
