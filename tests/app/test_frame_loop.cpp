// The frame loop keeps its thread: a slow simulated launch on the worker thread (shell/
// async_launch.hpp) leaves the caller free at once and gives the same bytes as a launch on the
// frame loop; an idle window waits for events (it draws no frames and launches nothing), and
// input, a due launch and continuous runs wake it; while a sweep measures, the window launches
// nothing of its own and asks for frames slowly. The App in-process for the last two; the pacer
// alone on a clock the test moves is in test_shell_rooms, a real window in test_window_input.cpp.
#include <gtest/gtest.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "app_in_process.hpp"
#include "labs/catalog.hpp"
#include "shell/async_launch.hpp"
#include "shell/compute_session.hpp"
#include "shell/frame_pacer.hpp"
#include "wait_until.hpp"

namespace {

using namespace bs;
using namespace bs::app;

TEST(WorkerLaunch, ASlowSimulatedLaunchLeavesTheCallerFreeAndMatchesTheFrameLoopsOwn) {
  auto session = open_compute_session(BackendChoice::Cpu, -1, false);
  ASSERT_TRUE(session.ok());
  const LabCatalog catalog = built_in_labs();
  auto lab = catalog[1].make_lab(session->backend);  // matmul
  ASSERT_TRUE(lab.ok()) << lab.status().describe();
  std::mt19937 rng(std::random_device{}());
  const int m = std::uniform_int_distribution<int>(60, 90)(rng) | 1;
  ASSERT_TRUE(lab.value()
                  ->set_random_problem(std::to_string(m) + "x" + std::to_string(m + 6) + "x" + std::to_string(m - 4))
                  .ok());
  const lab::KernelInfo* k = lab.value()->find_kernel("k3_smem_tiled");
  ASSERT_NE(k, nullptr);
  ASSERT_TRUE(k->uses_barriers);  // the slow kind on the simulator
  const KernelConfig config = lab.value()->default_config(*k);

  AsyncLaunch async;
  AsyncLaunch::Request r;
  r.slot = "matmul";
  r.problem_key = "p1";
  r.kernel = k->id;
  r.config = config;
  r.options.timing = TimingPolicy::once();
  r.options.verify = true;
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_FALSE(async.start(*lab.value(), r).has_value());
  const double start_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::optional<AsyncLaunch::Finished> f;
  int polls = 0;  // the caller's loop keeps running: this is where frames are drawn
  ASSERT_TRUE(bs::test::wait_until([&] {
    if ((f = async.take())) return true;
    ++polls;
    return false;
  })) << "no answer in 2 minutes";
  EXPECT_GT(polls, 0) << "the launch finished before start() returned: it ran on the caller's thread";
  ASSERT_TRUE(f->record.ok()) << f->record.status.describe();
  EXPECT_TRUE(f->record.check.passed()) << f->record.check.summary();
  EXPECT_FALSE(f->cancelled);
  RecordProperty("start_ms", std::to_string(start_ms));  // the figure, for reports (not asserted)

  // The same launch on the lab itself (the frame loop's way): the same bytes.
  std::vector<std::uint8_t> own(lab.value()->output_bytes());
  lab::RunOptions o = r.options;
  o.output = own.data();
  const LaunchRecord rec = lab.value()->run(k->id, config, o);
  ASSERT_TRUE(rec.ok());
  EXPECT_EQ(own, f->output);
  EXPECT_EQ(rec.config.grid, f->record.config.grid);

  // A second request on the same problem reuses the fork; a cancelled one comes back marked.
  r.problem_key = "p1";
  ASSERT_FALSE(async.start(*lab.value(), r).has_value());
  async.cancel();
  EXPECT_TRUE(bs::test::wait_until([&] { return !async.busy(); })) << "the cancelled launch never ended";
  if (auto c = async.take()) { EXPECT_TRUE(c->cancelled || c->record.ok()); }
}

class IdleWindow : public bs::app::test::AppInProcess {};

// The window sleeps while nothing changes; a due launch, continuous runs and input keep it
// drawing.
TEST_F(IdleWindow, WaitsForEventsAndInputWakesIt) {
  start();
  // Continuous runs (the default): a frame is due at once (at most 60 a second).
  EXPECT_LE(app_->idle_wait_s(), 1.0 / 60 + 1e-9);
  window_->key(GLFW_KEY_R, GLFW_MOD_CONTROL | GLFW_MOD_SHIFT);  // Run continuously: off
  steps(1);
  steps(FramePacer::kSettleFrames + 2);
  // The pacer settles for those frames and for at least kSettleS after the input: with frames
  // faster than kSettleS / 5 (the grayscale view on llvmpipe now draws in about 40 ms) the frames
  // alone do not span it, so its time passes here, with nothing touched.
  std::this_thread::sleep_for(std::chrono::duration<double>(FramePacer::kSettleS));
  // Nothing changes now: the loop may sleep long (it waits for events; a wake-up ends it).
  EXPECT_GE(app_->idle_wait_s(), 1.0) << "an idle window must not draw frames";
  const std::size_t launches = app_->launch_records_kept();
  steps(5);
  EXPECT_EQ(app_->launch_records_kept(), launches) << "no launches while idle";
  // Input waiting: draw at once.
  window_->key(GLFW_KEY_F1);
  window_->key(GLFW_KEY_F1);
  steps(1);
  EXPECT_EQ(app_->idle_wait_s(), 0.0) << "queued input and the frames after it are drawn at once";
  // Run once (Ctrl+R): the launch is due at once.
  window_->key(GLFW_KEY_R, GLFW_MOD_CONTROL);
  steps(1);
  EXPECT_EQ(app_->idle_wait_s(), 0.0) << "a launch is due";
  // On the CPU simulation it runs on the worker: its record is kept when it finishes.
  EXPECT_TRUE(frames_until([&] { return app_->launch_records_kept() > launches; })) << "the launch never finished";
}

class SweepInTheWindow : public bs::app::test::AppInProcess {};

// While a sweep measures, the window launches nothing of its own and draws its progress once a
// second.
TEST_F(SweepInTheWindow, HasTheMachineToItselfAndItsProgressIsDrawnSlowly) {
  start();
  ASSERT_TRUE(app_->select("gray_2d", KernelConfig{Dim3{32, 8, 1}}).ok());
  steps(2);
  app_->state().sweep.all_blocks = false;
  app_->state().sweep.block_list = "32x8,16x16,64x4,8x8";
  ASSERT_TRUE(app_->start_sweep().ok());
  const std::size_t launches = app_->launch_records_kept();
  int frames = 0;
  bool slow_progress = false;
  while (app_->sweeping() && frames < 20000) {
    steps(1);
    ++frames;
    if (frames > FramePacer::kSettleFrames + 2) slow_progress = slow_progress || app_->idle_wait_s() > 0.5;
  }
  ASSERT_FALSE(app_->sweeping());
  const std::size_t launches_during = app_->launch_records_kept();
  steps(1);  // the frame after the worker ended takes its whole result (and may launch again)
  EXPECT_EQ(launches_during, launches) << "the window relaunched its kernel during the sweep";
  EXPECT_TRUE(slow_progress || frames <= FramePacer::kSettleFrames + 3)
      << "the sweep's progress asked for frames faster than once per half second";
  ASSERT_NE(app_->sweep_result(), nullptr);
  EXPECT_EQ(app_->sweep_result()->records.size(), 4u);
}

}  // namespace
