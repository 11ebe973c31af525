// The launch scheduler's policy (shell/launch_scheduler.hpp), without GL or a window: a fake lab
// counts every run with the options it was given and costs time on a clock the test moves, so
// each rule of the policy is checked against runs counted in the lab, not against the
// scheduler's own bookkeeping.
#include "shell/launch_scheduler.hpp"

#include <gtest/gtest.h>

#include <random>

#include <thread>

#include "fake_lab_view.hpp"
#include "shell/lab_slot.hpp"
#include "wait_until.hpp"

namespace bs::app {
namespace {
using namespace bs::app::test;

class Scheduler : public ::testing::Test {
 protected:
  void SetUp() override {
    script_ = std::make_shared<FakeScript>();
    script_->clock = &clock_;
    seen_ = std::make_shared<ViewSeen>();
    entry_ = fake_entry("fake", false, script_, seen_, {"k1", "k2"});
  }

  // A scheduler on the frame loop (headless, or the GPU); `async_on_cpu`: the window's worker.
  LaunchScheduler make(bool async_on_cpu = false) {
    LaunchScheduler::Options o;
    o.async_on_cpu = async_on_cpu;
    o.finish = [this] { ++finishes_; };
    o.now = [this] { return clock_.t; };
    o.on_fault = [this](const Status& s) { faults_.push_back(s); };
    return LaunchScheduler(o);
  }
  // The slot as the lab host would make it: the view open, the first kernel selected.
  LabSlot slot_on(const lab::Backend& backend) {
    LabSlot s;
    s.entry = &entry_;
    ViewContext ctx{messages_, backend, true, 0};
    s.view = std::move(entry_.make_view(std::move(entry_.make_lab(backend).value()), LabViewSetup{}, ctx).value());
    s.kernel = "k1";
    s.config = KernelConfig{Dim3{128, 1, 1}};
    return s;
  }
  // The window's case: one slot whose CPU launches go to the worker; not continuous, so each
  // launch is one the test asked for.
  std::vector<LabSlot> one_slot_on_the_worker(LaunchScheduler& sched) {
    std::vector<LabSlot> slots;
    slots.push_back(slot_on(cpu_));
    slots[0].launch.continuous = false;
    step(sched, slots[0], cpu_);
    return slots;
  }
  // Polls the worker as the frame loop does until its result is shown (a wait, not a timing).
  void wait_for_worker(LaunchScheduler& sched, std::vector<LabSlot>& slots) {
    ViewContext ctx{messages_, cpu_, false, 0};
    EXPECT_TRUE(bs::test::wait_until(
        [&] {
          sched.take_async_result(slots, ctx);
          return !sched.in_flight() && seen_->results_shown > 0;
        },
        bs::test::kGenerousTimeout, std::chrono::milliseconds(1)))
        << "the worker's result was never shown";
  }
  // Until the worker's launch has ended (its result not yet taken).
  static bool worker_done(LaunchScheduler& sched) {
    return bs::test::wait_until([&] { return !sched.in_flight(); }, bs::test::kGenerousTimeout,
                                std::chrono::milliseconds(1));
  }
  // The window's scheduler as the App makes it: CPU launches on the worker, continuous runs paced.
  LaunchScheduler make_window() {
    LaunchScheduler::Options o;
    o.async_on_cpu = true;
    o.paced = true;
    o.now = [this] { return clock_.t; };
    return LaunchScheduler(o);
  }
  // `seconds` of a window's frames at 60 a second on `backend`, nobody touching it: each frame
  // takes what the worker finished and steps the scheduler. The worker's launch is waited for
  // before the clock moves on (the fake lab's runs move the clock too). Returns the runs made.
  std::size_t frames_for(LaunchScheduler& sched, std::vector<LabSlot>& slots, const lab::Backend& backend,
                         double seconds) {
    const std::size_t before = script_->runs.size();
    ViewContext ctx{messages_, backend, false, 0};
    for (int f = 0; f < std::max(1, static_cast<int>(seconds * 60)); ++f) {
      sched.take_async_result(slots, ctx);
      sched.step(slots[0], slots[0].view->lab().problem(), true, ctx);
      EXPECT_TRUE(bs::test::wait_until([&] { return !sched.in_flight(); }, bs::test::kGenerousTimeout,
                                       std::chrono::microseconds(100)))
          << "the worker's launch never ended";
      clock_.advance_ms(1000.0 / 60);
    }
    sched.take_async_result(slots, ctx);
    return script_->runs.size() - before;
  }
  void step(LaunchScheduler& sched, LabSlot& s, const lab::Backend& backend, bool trace = true) {
    ViewContext ctx{messages_, backend, true, 0};
    sched.step(s, s.view->lab().problem(), trace, ctx);
  }
  std::size_t warnings() const {
    std::size_t n = 0;
    for (const Message& m : messages_.all()) n += m.level == Message::Warning;
    return n;
  }

  ManualClock clock_;
  std::shared_ptr<FakeScript> script_;
  std::shared_ptr<ViewSeen> seen_;
  LabEntry entry_;
  MessageLog messages_;
  int finishes_ = 0;
  std::vector<Status> faults_;
  const lab::Backend cpu_ = cpu_backend();
  const lab::Backend gpu_ = cuda_backend();
};

TEST_F(Scheduler, ADirtySlotLaunchesOnceAndAContinuousOneEveryFrame) {
  LaunchScheduler sched = make();
  LabSlot s = slot_on(cpu_);
  s.launch.continuous = false;
  for (int f = 0; f < 5; ++f) step(sched, s, cpu_);
  EXPECT_EQ(script_->runs.size(), 1u) << "not continuous: only the frame after a change launches";
  EXPECT_EQ(finishes_, 1) << "each launch on the frame loop waits for its GPU work";
  s.launch.dirty = true;  // "Run once"
  step(sched, s, cpu_);
  EXPECT_EQ(script_->runs.size(), 2u);
  s.launch.continuous = true;
  for (int f = 0; f < 4; ++f) step(sched, s, cpu_);
  EXPECT_EQ(script_->runs.size(), 6u) << "continuous: one launch per frame";
  EXPECT_EQ(seen_->launches, 6) << "all on the frame loop (headless)";
  EXPECT_TRUE(s.launch.last.ok());
  EXPECT_EQ(s.launch.shown.kernel, "k1");
}

TEST_F(Scheduler, ANewSelectionIsVerifiedAndTracedItsRepeatsOnlyOncePerPeriod) {
  LaunchScheduler sched = make();
  LabSlot s = slot_on(cpu_);
  step(sched, s, cpu_);  // new: verified and traced
  step(sched, s, cpu_);  // a repeat 1 ms later: neither
  clock_.advance_ms(LaunchScheduler::kVerifyPeriodS * 1000);
  step(sched, s, cpu_);  // a period after the check: verified again, not traced
  ASSERT_EQ(script_->runs.size(), 3u);
  EXPECT_TRUE(script_->runs[0].verify && script_->runs[0].trace);
  EXPECT_FALSE(script_->runs[1].verify || script_->runs[1].trace);
  EXPECT_TRUE(script_->runs[2].verify);
  EXPECT_FALSE(script_->runs[2].trace);
  // An unverified repeat carries the last verdict of its configuration.
  ASSERT_EQ(s.launch.last.check.state, Check::State::Passed);
  // Another configuration is new again; with tracing off it is verified but not traced.
  s.config = KernelConfig{Dim3{64, 1, 1}};
  s.launch.dirty = true;
  step(sched, s, cpu_, /*trace=*/false);
  EXPECT_TRUE(script_->runs.back().verify);
  EXPECT_FALSE(script_->runs.back().trace);
}

TEST_F(Scheduler, TheScheduleOfAConfigurationIsKeptAcrossItsUntracedRepeats) {
  LaunchScheduler sched = make();
  LabSlot s = slot_on(cpu_);
  step(sched, s, cpu_);
  ASSERT_EQ(s.launch.shown.schedule.size(), 1u);
  step(sched, s, cpu_);
  EXPECT_FALSE(script_->runs.back().trace);
  EXPECT_EQ(s.launch.shown.schedule.size(), 1u) << "the trace of this configuration stays on show";
  EXPECT_TRUE(s.launch.last.schedule.empty()) << "the latest attempt does not carry it twice";
}

TEST_F(Scheduler, ARefusalIsSaidOnceAndNotRelaunchedUntilAsked) {
  LaunchScheduler sched = make();
  LabSlot s = slot_on(cpu_);
  s.config = KernelConfig{Dim3{2048, 1, 1}};  // over 1024 threads: CUDA refuses it
  for (int f = 0; f < 5; ++f) step(sched, s, cpu_);
  EXPECT_EQ(script_->runs.size(), 1u) << "a refused selection does not run continuously";
  EXPECT_TRUE(s.launch.last.refused);
  EXPECT_EQ(warnings(), 1u);
  ASSERT_NE(messages_.latest(), nullptr);
  EXPECT_EQ(messages_.latest()->text.rfind("Launch refused: ", 0), 0u) << messages_.latest()->text;
  EXPECT_TRUE(s.launch.shown.kernel.empty()) << "the views keep the last launch that ran: none";
  s.launch.dirty = true;  // asked again: said again
  step(sched, s, cpu_);
  EXPECT_EQ(warnings(), 2u);
}

TEST_F(Scheduler, ASlowSimulatedLaunchPausesContinuousRunsAFastOneDoesNot) {
  LaunchScheduler sched = make();
  LabSlot s = slot_on(cpu_);
  script_->run_ms = LaunchScheduler::kSlowLaunchMs / 2;
  step(sched, s, cpu_);
  EXPECT_FALSE(s.launch.paused_slow);
  script_->run_ms = LaunchScheduler::kSlowLaunchMs * 2;
  step(sched, s, cpu_);
  EXPECT_TRUE(s.launch.paused_slow);
  EXPECT_DOUBLE_EQ(s.launch.slow_ms, LaunchScheduler::kSlowLaunchMs * 2);
  const std::size_t runs = script_->runs.size();
  for (int f = 0; f < 3; ++f) step(sched, s, cpu_);
  EXPECT_EQ(script_->runs.size(), runs) << "paused: no more launches until asked";
  s.launch.dirty = true;
  step(sched, s, cpu_);
  EXPECT_EQ(script_->runs.size(), runs + 1);
}

TEST_F(Scheduler, AGpuLaunchIsNeverPausedAsSlow) {
  LaunchScheduler sched = make();
  LabSlot s = slot_on(gpu_);
  script_->run_ms = LaunchScheduler::kSlowLaunchMs * 3;
  step(sched, s, gpu_);
  step(sched, s, gpu_);
  EXPECT_FALSE(s.launch.paused_slow) << "only simulated launches stutter the window";
  EXPECT_EQ(script_->runs.size(), 2u);
}

TEST_F(Scheduler, WithoutDataNothingRunsAndTheRecordSaysWhy) {
  LaunchScheduler sched = make();
  LabSlot s = slot_on(cpu_);
  script_->ready = false;
  step(sched, s, cpu_);
  step(sched, s, cpu_);
  EXPECT_TRUE(script_->runs.empty());
  EXPECT_TRUE(s.launch.last.refused);
  EXPECT_EQ(s.launch.last.status.message, "no data loaded");
  EXPECT_EQ(s.launch.last.kernel, "k1");
}

TEST_F(Scheduler, AStickyCudaFaultIsHandedOnOnceAndAPlainFailureIsNot) {
  LaunchScheduler sched = make();
  LabSlot s = slot_on(gpu_);
  script_->fault_code = "cudaErrorIllegalAddress";
  step(sched, s, gpu_);
  ASSERT_EQ(faults_.size(), 1u);
  EXPECT_EQ(faults_[0].code, "cudaErrorIllegalAddress");
  EXPECT_EQ(messages_.errors(), 1u) << "the failure itself is said";

  LabSlot t = slot_on(gpu_);
  script_->fault_code = "cudaErrorInvalidValue";  // an error the context survives
  script_->fault_sticky = false;
  step(sched, t, gpu_);
  EXPECT_EQ(faults_.size(), 1u);
}

TEST_F(Scheduler, AProblemChangeDropsTheRecordsAndTimingsOfThatLabAndRelaunches) {
  LaunchScheduler sched = make();
  LabSlot s = slot_on(cpu_);
  s.launch.continuous = false;
  step(sched, s, cpu_);
  ASSERT_EQ(sched.timings().entries().size(), 1u);
  const std::string key_before = problem_key(s);
  sched.problem_changed(s);
  EXPECT_TRUE(sched.timings().entries().empty());
  EXPECT_TRUE(s.launch.last.kernel.empty());
  EXPECT_TRUE(s.launch.shown.kernel.empty());
  EXPECT_NE(problem_key(s), key_before) << "a fork made before is stale";
  step(sched, s, cpu_);
  EXPECT_EQ(script_->runs.size(), 2u);
  EXPECT_TRUE(script_->runs.back().verify) << "new data: checked again";
}

TEST_F(Scheduler, AWrongResultIsSaidWhenTheSelectionIsNew) {
  LaunchScheduler sched = make();
  LabSlot s = slot_on(cpu_);
  script_->wrong = true;
  step(sched, s, cpu_);
  step(sched, s, cpu_);
  EXPECT_EQ(warnings(), 1u);
  EXPECT_NE(messages_.latest()->text.find("WRONG"), std::string::npos);
  EXPECT_TRUE(s.launch.last.check.failed()) << "the repeat carries the verdict";
}

// In the window the CPU simulation runs on the worker: the frame loop never calls the view's
// launch(), and the result is shown once the worker is done.
TEST_F(Scheduler, InTheWindowTheCpuSimulationRunsOnTheWorkerAndItsResultIsShown) {
  LaunchScheduler sched = make(/*async_on_cpu=*/true);
  std::vector<LabSlot> slots = one_slot_on_the_worker(sched);
  LabSlot& s = slots[0];
  EXPECT_TRUE(s.launch.in_flight);
  EXPECT_EQ(seen_->launches, 0);
  wait_for_worker(sched, slots);
  EXPECT_EQ(seen_->results_shown, 1);
  EXPECT_FALSE(s.launch.in_flight);
  EXPECT_TRUE(s.launch.last.ok());
  EXPECT_EQ(s.launch.shown.kernel, "k1");
}

TEST_F(Scheduler, AWorkerResultForAnOlderSelectionIsDroppedAndTheNewOneRuns) {
  LaunchScheduler sched = make(/*async_on_cpu=*/true);
  std::vector<LabSlot> slots = one_slot_on_the_worker(sched);
  LabSlot& s = slots[0];
  s.kernel = "k2";  // changed while k1 runs; not yet relaunched
  ASSERT_TRUE(worker_done(sched)) << "the worker's launch never ended";
  ViewContext ctx{messages_, cpu_, false, 0};
  sched.take_async_result(slots, ctx);
  EXPECT_EQ(seen_->results_shown, 0) << "k1's result is not shown under k2";
  EXPECT_TRUE(s.launch.dirty) << "the slot asks for its own launch";
  EXPECT_TRUE(s.launch.last.kernel.empty());
}

// Issue 24, item 5: a slow simulation of a new selection says what runs, and the user can stop
// it; the views keep the launch that ran, the latest attempt says it was cancelled, and nothing
// relaunches until asked.
TEST_F(Scheduler, ASimulationOnTheWorkerCanBeCancelledAndTheViewsKeepTheLaunchThatRan) {
  LaunchScheduler sched = make(/*async_on_cpu=*/true);
  std::vector<LabSlot> slots = one_slot_on_the_worker(sched);
  LabSlot& s = slots[0];
  wait_for_worker(sched, slots);
  ASSERT_TRUE(s.launch.shown.ok());
  const std::size_t kept = sched.records_kept();
  // k2 is slow: it runs until cancelled.
  script_->until_cancelled = true;
  s.kernel = "k2";
  s.launch.dirty = true;
  s.launch.continuous = true;
  step(sched, s, cpu_);
  ASSERT_TRUE(s.launch.in_flight);
  EXPECT_EQ(s.launch.last.kernel, "k1") << "the figures are k1's while k2 runs (the card says so)";
  ViewContext ctx{messages_, cpu_, false, 0};
  sched.cancel(s, ctx);
  ASSERT_TRUE(worker_done(sched)) << "the worker's launch never ended";
  sched.take_async_result(slots, ctx);
  EXPECT_FALSE(s.launch.in_flight);
  EXPECT_EQ(s.launch.last.kernel, "k2");
  EXPECT_FALSE(s.launch.last.ok());
  EXPECT_EQ(s.launch.last.status.code, "cancelled") << s.launch.last.status.describe();
  EXPECT_EQ(s.launch.shown.kernel, "k1") << "the views keep the launch that ran";
  EXPECT_GT(sched.records_kept(), kept);
  // Continuous runs do not start it again by themselves.
  const std::size_t runs = script_->runs.size();
  for (int f = 0; f < 5; ++f) step(sched, s, cpu_);
  EXPECT_FALSE(s.launch.in_flight);
  EXPECT_EQ(script_->runs.size(), runs);
}

// Issue 36, item 4: Escape pressed with nothing to close cancelled the quick launch in flight,
// called it a failure and left continuous runs stopped with their checkbox ticked. Escape's
// cancel says "cancelled" as news (no error) and continuous runs go on; a slow one stays stopped.
TEST_F(Scheduler, EscapesCancelKeepsContinuousRunsGoingAndIsNoError) {
  LaunchScheduler sched = make(/*async_on_cpu=*/true);
  std::vector<LabSlot> slots = one_slot_on_the_worker(sched);
  LabSlot& s = slots[0];
  wait_for_worker(sched, slots);
  ASSERT_TRUE(s.launch.shown.ok());
  s.launch.continuous = true;
  script_->until_cancelled = true;  // the next launch runs until stopped
  step(sched, s, cpu_);
  ASSERT_TRUE(s.launch.in_flight);
  const std::size_t errors = messages_.errors();
  ViewContext ctx{messages_, cpu_, false, 0};
  sched.cancel(s, ctx, /*keep_continuous=*/true);  // at once: a quick launch
  ASSERT_TRUE(worker_done(sched)) << "the worker's launch never ended";
  sched.take_async_result(slots, ctx);
  EXPECT_EQ(s.launch.last.status.code, "cancelled");
  EXPECT_EQ(messages_.errors(), errors) << "a cancel is not an error";
  EXPECT_TRUE(s.launch.continuous);
  script_->until_cancelled = false;
  step(sched, s, cpu_);
  EXPECT_TRUE(s.launch.in_flight) << "continuous runs go on";
  wait_for_worker(sched, slots);
  sched.take_async_result(slots, ctx);  // the worker may have ended after the last look
  EXPECT_TRUE(s.launch.last.ok()) << s.launch.last.status.describe();
}

// Issue 24, item 15: a warning or error is the news until a later new launch runs; repeats of
// the same launch are not news.
TEST_F(Scheduler, ANewLaunchThatRanEndsTheNewsOfAnEarlierRefusal) {
  LaunchScheduler sched = make();
  LabSlot s = slot_on(cpu_);
  s.launch.continuous = false;
  s.config = KernelConfig{Dim3{2048, 1, 1}};
  step(sched, s, cpu_);
  ASSERT_NE(messages_.current(), nullptr);
  EXPECT_EQ(messages_.current()->level, Message::Warning) << "the refusal is the news";
  s.launch.continuous = true;
  s.config = KernelConfig{Dim3{128, 1, 1}};
  s.launch.dirty = true;
  step(sched, s, cpu_);
  ASSERT_TRUE(s.launch.last.ok());
  EXPECT_EQ(messages_.current(), nullptr) << "a later launch ran: the refusal is no longer the news";
  messages_.error(Status::failure("could not load notes.txt"));
  step(sched, s, cpu_);  // a continuous repeat of the same launch
  ASSERT_NE(messages_.current(), nullptr) << "a repeat is not news: the error stays";
  EXPECT_EQ(messages_.current()->text, "could not load notes.txt");
}

// GPU launches stay on the frame loop even in the window: interop maps GL buffers there.
TEST_F(Scheduler, GpuLaunchesStayOnTheFrameLoopInTheWindow) {
  LaunchScheduler sched = make(/*async_on_cpu=*/true);
  LabSlot s = slot_on(gpu_);
  step(sched, s, gpu_);
  EXPECT_EQ(seen_->launches, 1);
  EXPECT_FALSE(s.launch.in_flight);
}

// Issue 34: a new user's window (the CPU simulation, "Run continuously" on by default) relaunched
// the unchanged selection one launch after another, about 24 a second, which kept both cores of
// a laptop busy with nobody at it. In the window the simulation now repeats at its period, a
// change still launches at once, and after kIdlePauseS without input the repeats stop until the
// next input.
TEST_F(Scheduler, TheWindowsDefaultsOnTheSimulationRepeatAtTheirPeriodNotEveryFrame) {
  LaunchScheduler sched = make_window();
  std::vector<LabSlot> slots;
  slots.push_back(slot_on(cpu_));
  ASSERT_TRUE(slots[0].launch.continuous) << "the defaults a new user gets";
  ASSERT_GT(LaunchScheduler::kSimPeriodS, 0.5);
  const double seconds = 10;
  const std::size_t runs = frames_for(sched, slots, cpu_, seconds);
  EXPECT_GE(seen_->results_shown, 1) << "the first launch ran on the worker and was shown";
  // The first launch, then one repeat per period: 6 in 10 s at 2 s (600 one after another).
  EXPECT_LE(runs, static_cast<std::size_t>(seconds / LaunchScheduler::kSimPeriodS) + 1) << "repeats at full rate";
  EXPECT_GE(runs, static_cast<std::size_t>(seconds / LaunchScheduler::kSimPeriodS) - 1)
      << "continuous runs still repeat (live timings)";
  using Mode = LaunchScheduler::ContinuousPlan::Mode;
  const LaunchScheduler::ContinuousPlan plan = sched.continuous_plan(slots[0], cpu_.kind);
  EXPECT_EQ(plan.mode, Mode::Every);
  EXPECT_LE(plan.wait_s, LaunchScheduler::kSimPeriodS);
  EXPECT_NE(plan.says.find("every 2 s"), std::string::npos) << plan.says;

  // A change launches at once, whatever the period.
  const std::size_t before = script_->runs.size();
  slots[0].kernel = "k2";
  slots[0].launch.dirty = true;
  frames_for(sched, slots, cpu_, 1.0 / 60);
  ASSERT_GT(script_->runs.size(), before);
  EXPECT_EQ(script_->runs[before].kernel, "k2");

  // Nobody touches the window: once kIdlePauseS has passed the repeats stop and the plan says so.
  frames_for(sched, slots, cpu_, LaunchScheduler::kIdlePauseS);
  EXPECT_EQ(sched.continuous_plan(slots[0], cpu_.kind).mode, Mode::Paused);
  EXPECT_NE(sched.continuous_plan(slots[0], cpu_.kind).says.find("paused"), std::string::npos);
  EXPECT_EQ(frames_for(sched, slots, cpu_, 10), 0u) << "an untouched window relaunched";
  // Input resumes them.
  sched.attention(true, true);
  EXPECT_GE(frames_for(sched, slots, cpu_, LaunchScheduler::kSimPeriodS + 0.1), 1u);

  // The automatic period (the default) keeps a repeat and its frame under kRepeatShare of a core:
  // 0.2 s of CPU each (a software-rendered frame) puts them 10 s apart.
  sched.repeat_cost(0.2);
  EXPECT_NEAR(sched.continuous_plan(slots[0], cpu_.kind).period_s, 0.2 / LaunchScheduler::kRepeatShare, 1e-9);
  sched.attention(true, true);
  EXPECT_LE(frames_for(sched, slots, cpu_, 20), 3u);
  // The user's choice of period: one after another is the old behaviour, still there on request.
  sched.set_sim_period_s(0);
  sched.attention(true, true);
  EXPECT_GT(frames_for(sched, slots, cpu_, 1), 30u);
}

// On the GPU the window's continuous runs relaunch every frame while it has the focus, none while
// another window has it, and again when it comes back.
TEST_F(Scheduler, TheWindowsGpuRepeatsEveryFrameWhileFocusedAndPausesInTheBackground) {
  LaunchScheduler sched = make_window();
  std::vector<LabSlot> slots;
  slots.push_back(slot_on(gpu_));
  EXPECT_EQ(frames_for(sched, slots, gpu_, 1), 60u);
  sched.attention(true, /*focused=*/false);
  EXPECT_EQ(frames_for(sched, slots, gpu_, 1), 0u) << "relaunched while the window was in the background";
  EXPECT_NE(sched.continuous_plan(slots[0], gpu_.kind).says.find("background"), std::string::npos);
  slots[0].launch.dirty = true;  // a change still launches
  EXPECT_EQ(frames_for(sched, slots, gpu_, 1.0 / 60), 1u);
  sched.attention(true, true);
  EXPECT_EQ(frames_for(sched, slots, gpu_, 1), 60u);
  // Untouched for kIdlePauseS: paused on the GPU too.
  frames_for(sched, slots, gpu_, LaunchScheduler::kIdlePauseS);
  EXPECT_EQ(frames_for(sched, slots, gpu_, 1), 0u);
}

// Headless runs (--frames, the benchmarks) are not paced: each frame relaunches.
TEST_F(Scheduler, HeadlessContinuousRunsRelaunchEveryFrameWhateverTheClock) {
  LaunchScheduler sched = make();
  LabSlot s = slot_on(cpu_);
  clock_.advance_ms(LaunchScheduler::kIdlePauseS * 2000);
  for (int f = 0; f < 10; ++f) step(sched, s, cpu_);
  EXPECT_EQ(script_->runs.size(), 10u);
}

// A launch over much more data than the last one of its kernel says, as it starts, how long it
// should take on the simulator (the status bar shows it at once for a 16384^2 image): the last
// launch's time per byte counted, times this one's bytes; for a kernel that has not run, the
// slowest of its lab; before any launch, a first guess per simulated thread.
TEST_F(Scheduler, TheSimulatorsExpectedTimeIsTheLastLaunchsTimePerByteTimesThisOnesBytes) {
  std::mt19937 rng(std::random_device{}());
  LaunchScheduler sched = make();
  LabSlot s = slot_on(cpu_);
  s.launch.continuous = false;
  const LaunchRecord plan = s.view->lab().plan(s.kernel, s.config);
  const double threads = static_cast<double>(plan.config.grid.volume() * plan.config.block.volume());
  ASSERT_GT(threads, 0);
  EXPECT_NEAR(sched.expected_s(s), LaunchScheduler::kFirstGuessThreadS * threads, 1e-12) << "no launch has run";
  EXPECT_NE(sched.estimate(s).basis.find("first guess"), std::string::npos);
  script_->run_ms = static_cast<double>(10 + rng() % 90);
  script_->bytes = 1e5 * static_cast<double>(1 + rng() % 9);
  step(sched, s, cpu_);
  ASSERT_TRUE(s.launch.shown.ok());
  const double per_byte = script_->run_ms / 1000 / script_->bytes;
  EXPECT_NEAR(sched.expected_s(s), script_->run_ms / 1000, 1e-9);
  script_->bytes *= 64;  // a 64x larger image
  EXPECT_NEAR(sched.expected_s(s), per_byte * script_->bytes, 1e-9);
  s.launch.dirty = true;
  step(sched, s, cpu_);
  EXPECT_NEAR(s.launch.expected_s, per_byte * script_->bytes, 1e-9) << "set as the launch started";
  EXPECT_NE(s.launch.expected_basis.find("its kernel's speed"), std::string::npos);
  s.kernel = "k2";
  // k1's last launch (the 64x image, in the same time) is its speed now: k2 is expected at it.
  EXPECT_NEAR(sched.expected_s(s), script_->run_ms / 1000, 1e-9) << "k2 has not run: k1, the lab's slowest so far";
  EXPECT_NE(sched.estimate(s).basis.find("slowest kernel"), std::string::npos);
  LabSlot g = slot_on(gpu_);
  step(sched, g, gpu_);
  ASSERT_TRUE(g.launch.shown.ok());
  EXPECT_EQ(sched.expected_s(g), 0) << "a GPU's launch is not simulated";
}

}  // namespace
}  // namespace bs::app
