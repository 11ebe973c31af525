// Simulated times and the machine's load (issue 36, item 14): a CPU simulation's wall time
// stretches with what else the machine runs, so lab::measure says how busy the other programs
// kept the cores while it timed (Timing::others_load, core/machine_load.hpp) and load_changed()
// says when two timings were taken under different loads. Checked here: the arithmetic on
// snapshots made by hand, the timing loop filling the figure for a simulated time (and not for a
// GPU's), our own busy work never counted as another program's, and the sentence for two times.
#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <random>
#include <string>
#include <thread>

#include "core/machine_load.hpp"
#include "core/timing.hpp"
#include "lab/measure.hpp"
#include "support/skips.hpp"

namespace bs {
namespace {

using namespace std::chrono_literals;

CpuSnapshot snapshot(double busy_s, double ours_s, std::chrono::steady_clock::time_point at) {
  CpuSnapshot s;
  s.machine_busy_s = busy_s;
  s.ours_s = ours_s;
  s.at = at;
  return s;
}

TEST(MachineLoad, OtherProgramsAreTheMachinesBusyTimeLessOursOverTheWallTime) {
  std::mt19937 rng(std::random_device{}());
  const auto t0 = std::chrono::steady_clock::now();
  const double wall = 0.3 + 0.01 * static_cast<double>(rng() % 200);  // 0.3 .. 2.3 s
  const double ours = 0.05 * static_cast<double>(rng() % 20);         // 0 .. 0.95 s of CPU
  const double others = 0.01 * static_cast<double>(rng() % 300);      // 0 .. 3 cores
  const double before_busy = 1000 + rng() % 1000, before_ours = 5 + rng() % 10;
  const auto at =
      t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(wall));
  const CpuSnapshot a = snapshot(before_busy, before_ours, t0);
  const CpuSnapshot b = snapshot(before_busy + ours + others * wall, before_ours + ours, at);
  EXPECT_NEAR(others_cores(a, b), others, 1e-6) << "wall " << wall << " ours " << ours;
  // Unknown: /proc/stat unread, or too short to tell apart from its 10 ms ticks.
  EXPECT_EQ(others_cores(snapshot(-1, 0, t0), b), -1);
  EXPECT_EQ(others_cores(a, snapshot(before_busy + 1, before_ours, t0 + 50ms)), -1);
  // Our own work counted by the machine but more than it (ticks against microseconds): never below 0.
  EXPECT_EQ(others_cores(a, snapshot(before_busy + 0.1, before_ours + 0.2, t0 + 1s)), 0.0);
}

// The CPU time this thread has had, in seconds.
double thread_cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// A simulated time's repeats, each spinning this thread for 40 ms of its own CPU time: the figure
// is filled, lies within the machine's cores, and our own spinning (a core for the whole loop) is
// not in it. The spin counts CPU time, not wall time: on a loaded machine a 40 ms wall-clock spin
// gets only part of a core, and "the spin was ours" fell short for a reason that is not the code's.
TEST(MachineLoad, TheTimingLoopSaysHowBusyTheMachineWasAroundASimulatedTime) {
  auto spin = []() -> Result<double> {
    const double start = thread_cpu_s();
    while (thread_cpu_s() - start < 0.040) {}
    return 40.0;
  };
  const double cores = std::max(1u, std::thread::hardware_concurrency());
  Timing simulated;
  simulated.simulated = true;
  const CpuSnapshot before = cpu_snapshot();
  ASSERT_TRUE(lab::measure(TimingPolicy::fixed(5), simulated, spin, [] { return Status::success(); }));
  const CpuSnapshot after = cpu_snapshot();
  if (before.machine_busy_s < 0) BS_SKIP() << "no /proc/stat on this system (not Linux): the load is unknown";
  ASSERT_GE(simulated.others_load, 0.0) << "five repeats of 40 ms are long enough to tell";
  EXPECT_LE(simulated.others_load, cores + 0.2);
  // The machine's own busy cores over the same period, read here: the others' share is part of it.
  const double wall = std::chrono::duration<double>(after.at - before.at).count();
  const double machine = (after.machine_busy_s - before.machine_busy_s) / wall;
  // The two readings span almost the same period; half a core covers what changes at their edges.
  EXPECT_LE(simulated.others_load, machine + 0.5) << "others never exceed the machine's own busy cores";
  EXPECT_GE(after.ours_s - before.ours_s, 0.15) << "the spin was ours";

  Timing gpu;  // a GPU's time (CUDA events): the machine's load does not stretch it
  ASSERT_TRUE(lab::measure(TimingPolicy::fixed(5), gpu, spin, [] { return Status::success(); }));
  EXPECT_EQ(gpu.others_load, -1);
}

TEST(MachineLoad, TwoSimulatedTimesUnderDifferentLoadsAreSaidNotToRank) {
  Timing quiet, busy, alike, gpu, unknown;
  quiet.simulated = busy.simulated = alike.simulated = unknown.simulated = true;
  quiet.others_load = 0.1;
  busy.others_load = 1.8;
  alike.others_load = 0.5;
  const std::string said = load_changed(quiet, busy);
  EXPECT_NE(said.find("load changed"), std::string::npos) << said;
  EXPECT_NE(said.find("0.1 cores"), std::string::npos) << said;
  EXPECT_NE(said.find("1.8 cores"), std::string::npos) << said;
  EXPECT_EQ(load_changed(busy, quiet).empty(), false);
  EXPECT_EQ(load_changed(quiet, alike), "") << "0.4 cores apart: alike";
  gpu.others_load = 1.8;  // not simulated: never compared by load
  EXPECT_EQ(load_changed(quiet, gpu), "");
  EXPECT_EQ(load_changed(quiet, unknown), "") << "one of them not measured";
}

}  // namespace
}  // namespace bs
