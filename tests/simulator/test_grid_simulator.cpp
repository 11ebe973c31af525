// The grid simulator must run every thread exactly once with the right coordinates, honour
// barriers (a kernel that needs them gives a wrong answer when they are skipped), report barrier
// divergence and misuse as Status values, and record one schedule entry per block.
#include <gtest/gtest.h>

#include <atomic>
#include <numeric>
#include <random>
#include <vector>

#include "core/exec.hpp"
#include "simulator/grid_simulator.hpp"

namespace {

using bs::Dim3;
using bs::LaunchConfig;
using bs::sim::GridSimulator;
using bs::sim::HostCtx;
using bs::sim::SimOptions;

struct Shape {
  Dim3 grid, block;
};

class EveryThreadOnce : public ::testing::TestWithParam<Shape> {};

TEST_P(EveryThreadOnce, VisitsEachCoordinateExactlyOnce) {
  const Shape s = GetParam();
  LaunchConfig cfg{s.grid, s.block};
  const auto total = cfg.total_threads();
  std::vector<std::atomic<int>> hits(total);
  GridSimulator sim(3);  // more workers than this machine's cores: exercises interleaving
  auto result = sim.run(cfg, [&](const HostCtx& t) {
    // Global linear id computed independently of the simulator's own block numbering.
    const unsigned long long block_linear =
        t.blockIdx.x + static_cast<unsigned long long>(t.gridDim.x) *
                           (t.blockIdx.y + static_cast<unsigned long long>(t.gridDim.y) * t.blockIdx.z);
    const unsigned long long id = block_linear * t.blockDim.volume() + bs::linear_thread_in_block(t);
    ASSERT_LT(t.threadIdx.x, t.blockDim.x);
    ASSERT_LT(t.threadIdx.y, t.blockDim.y);
    ASSERT_LT(t.threadIdx.z, t.blockDim.z);
    ASSERT_LT(t.blockIdx.x, t.gridDim.x);
    ASSERT_LT(t.blockIdx.y, t.gridDim.y);
    ASSERT_LT(t.blockIdx.z, t.gridDim.z);
    ASSERT_EQ(t.blockDim, cfg.block);
    ASSERT_EQ(t.gridDim, cfg.grid);
    hits[id].fetch_add(1);
  });
  ASSERT_TRUE(result.status.ok()) << result.status.describe();
  for (unsigned long long i = 0; i < total; ++i) ASSERT_EQ(hits[i].load(), 1) << "thread " << i;
}

INSTANTIATE_TEST_SUITE_P(Shapes, EveryThreadOnce,
                         ::testing::Values(Shape{{1, 1, 1}, {1, 1, 1}}, Shape{{7, 1, 1}, {33, 1, 1}},
                                           Shape{{3, 5, 1}, {7, 3, 1}}, Shape{{2, 3, 4}, {5, 2, 3}},
                                           Shape{{1, 1, 1}, {1024, 1, 1}}, Shape{{1, 1, 1}, {2, 2, 64}},
                                           Shape{{200, 1, 1}, {1, 1, 1}}));

// Reverse a block-sized array through shared memory. Without the barrier, thread 0 would read
// slot n-1 before thread n-1 has written it (the simulator runs threads in order), so a skipped
// or reordered barrier gives a wrong answer.
struct ReverseShared {
  int values[256];
};

template <class Ctx>
void reverse_thread(const Ctx& t, ReverseShared& s, const int* in, int* out) {
  const unsigned n = t.blockDim.x;
  const unsigned base = t.blockIdx.x * n;
  s.values[t.threadIdx.x] = in[base + t.threadIdx.x];
  t.sync();
  out[base + t.threadIdx.x] = s.values[n - 1 - t.threadIdx.x];
}

TEST(GridSimulatorBarriers, ReverseThroughSharedMemoryNeedsTheBarrier) {
  std::mt19937 rng(std::random_device{}());
  const unsigned n = 251, blocks = 9;
  std::vector<int> in(n * blocks), out(n * blocks, -1);
  for (int& v : in) v = static_cast<int>(rng());
  GridSimulator sim(2);
  SimOptions opt;
  opt.uses_barriers = true;
  auto r = sim.run_with_shared<ReverseShared>(
      LaunchConfig{{blocks, 1, 1}, {n, 1, 1}},
      [&](const HostCtx& t, ReverseShared& s) { reverse_thread(t, s, in.data(), out.data()); }, opt);
  ASSERT_TRUE(r.status.ok()) << r.status.describe();
  for (unsigned b = 0; b < blocks; ++b)
    for (unsigned i = 0; i < n; ++i) ASSERT_EQ(out[b * n + i], in[b * n + n - 1 - i]);
}

// Many phases: a Hillis-Steele inclusive scan needs a barrier after every read and every write.
struct ScanShared {
  long long a[128];
};

TEST(GridSimulatorBarriers, MultiPhaseScanMatchesSequentialPrefixSum) {
  std::mt19937 rng(12345 + std::random_device{}());
  const unsigned n = 128, blocks = 5;
  std::vector<long long> in(n * blocks), out(n * blocks);
  for (auto& v : in) v = static_cast<long long>(rng() % 1000) - 500;
  GridSimulator sim(2);
  SimOptions opt;
  opt.uses_barriers = true;
  auto r = sim.run_with_shared<ScanShared>(
      LaunchConfig{{blocks, 1, 1}, {n, 1, 1}},
      [&](const HostCtx& t, ScanShared& s) {
        const unsigned i = t.threadIdx.x, base = t.blockIdx.x * n;
        s.a[i] = in[base + i];
        t.sync();
        for (unsigned offset = 1; offset < n; offset *= 2) {
          const long long add = i >= offset ? s.a[i - offset] : 0;
          t.sync();
          s.a[i] += add;
          t.sync();
        }
        out[base + i] = s.a[i];
      },
      opt);
  ASSERT_TRUE(r.status.ok()) << r.status.describe();
  for (unsigned b = 0; b < blocks; ++b) {
    long long sum = 0;
    for (unsigned i = 0; i < n; ++i) {
      sum += in[b * n + i];
      ASSERT_EQ(out[b * n + i], sum) << "block " << b << " index " << i;
    }
  }
}

TEST(GridSimulatorBarriers, EarlyExitBeforeABarrierIsReportedAsDivergence) {
  GridSimulator sim(1);
  SimOptions opt;
  opt.uses_barriers = true;
  auto r = sim.run(
      LaunchConfig{{2, 1, 1}, {64, 1, 1}},
      [&](const HostCtx& t) {
        if (t.threadIdx.x >= 40) return;  // the classic bug: guard by returning before sync
        t.sync();
      },
      opt);
  ASSERT_FALSE(r.status.ok());
  EXPECT_NE(r.status.message.find("barrier divergence"), std::string::npos) << r.status.message;
}

TEST(GridSimulatorBarriers, SyncWithoutBarrierSupportIsAStatusNotACrash) {
  GridSimulator sim(2);
  auto r = sim.run(LaunchConfig{{3, 1, 1}, {8, 1, 1}}, [&](const HostCtx& t) { t.sync(); });
  ASSERT_FALSE(r.status.ok());
  EXPECT_NE(r.status.message.find("barrier"), std::string::npos) << r.status.message;
}

TEST(GridSimulatorSchedule, OneRecordPerBlockWithOrderedTimes) {
  GridSimulator sim(2);
  SimOptions opt;
  opt.record_schedule = true;
  const LaunchConfig cfg{{13, 3, 1}, {32, 2, 1}};
  std::atomic<long long> sink{0};
  auto r = sim.run(
      cfg, [&](const HostCtx& t) { sink += t.threadIdx.x; }, opt);
  ASSERT_TRUE(r.status.ok());
  ASSERT_EQ(r.schedule.size(), cfg.total_blocks());
  std::vector<int> seen(cfg.total_blocks(), 0);
  for (const auto& b : r.schedule) {
    EXPECT_LE(b.start_ns, b.end_ns);
    EXPECT_LT(b.unit, sim.workers());
    seen[b.block.x + cfg.grid.x * b.block.y]++;
  }
  for (int s : seen) EXPECT_EQ(s, 1);
  EXPECT_EQ(sink.load(), 39LL * 2 * (31 * 32 / 2));
}

TEST(GridSimulatorValidation, RefusesShapesCudaWouldRefuse) {
  GridSimulator sim(1);
  bool ran = false;
  auto body = [&](const HostCtx&) { ran = true; };
  EXPECT_FALSE(sim.run(LaunchConfig{{1, 1, 1}, {0, 1, 1}}, body).status.ok());
  EXPECT_FALSE(sim.run(LaunchConfig{{1, 1, 1}, {1025, 1, 1}}, body).status.ok());
  EXPECT_FALSE(sim.run(LaunchConfig{{1, 1, 1}, {1, 1, 65}}, body).status.ok());
  EXPECT_FALSE(sim.run(LaunchConfig{{1, 65536, 1}, {1, 1, 1}}, body).status.ok());
  EXPECT_FALSE(ran);
}

}  // namespace

// The warp barrier (HostCtx::sync_warp): lanes named by a mask meet; two halves of a warp with
// their own masks proceed apart; a lane that exited does not hold the others; a partial warp
// (48 threads: the second warp has 16 lanes) meets with the lanes it has.
TEST(GridSimulatorBarriers, WarpBarrierMeetsTheLanesItsMaskNames) {
  GridSimulator sim(2);
  SimOptions opt;
  opt.uses_barriers = true;
  const unsigned blocks = 3, n = 48;
  std::vector<int> slot(blocks * n, -1), got(blocks * n, -2);
  auto r = sim.run(
      LaunchConfig{{blocks, 1, 1}, {n, 1, 1}},
      [&](const HostCtx& t) {
        const unsigned b = t.blockIdx.x, i = t.threadIdx.x, lane = i % 32;
        if (i == 31) return;  // exits: the full-mask barrier below must not wait for it
        slot[b * n + i] = static_cast<int>(1000 * b + i);
        t.sync_warp(lane < 16 ? 0x0000ffffu : 0xffff0000u);
        const unsigned partner = i - lane + (lane / 16 * 16) + (lane % 16 + 1) % 16;
        got[b * n + i] = partner == 31 ? 0 : slot[b * n + partner];
        t.sync_warp(0xffffffffu);
      },
      opt);
  ASSERT_TRUE(r.status.ok()) << r.status.describe();
  for (unsigned b = 0; b < blocks; ++b)
    for (unsigned i = 0; i < n; ++i) {
      if (i == 31) continue;
      const unsigned lane = i % 32, partner = i - lane + (lane / 16 * 16) + (lane % 16 + 1) % 16;
      ASSERT_EQ(got[b * n + i], partner == 31 ? 0 : static_cast<int>(1000 * b + partner)) << b << " " << i;
    }
}

TEST(GridSimulatorBarriers, LanesAtAWarpBarrierAndABlockBarrierAreReportedAsADeadlock) {
  GridSimulator sim(1);
  SimOptions opt;
  opt.uses_barriers = true;
  auto r = sim.run(
      LaunchConfig{{1, 1, 1}, {64, 1, 1}},
      [&](const HostCtx& t) {
        if (t.threadIdx.x == 37) t.sync();
        else t.sync_warp(0xffffffffu);
      },
      opt);
  ASSERT_FALSE(r.status.ok());
  EXPECT_NE(r.status.message.find("warp-synchronous deadlock in block (0, 0, 0), warp 1: lane 0 waits"),
            std::string::npos)
      << r.status.message;
  EXPECT_NE(r.status.message.find("but lane 5, named in that mask, waits at __syncthreads()"), std::string::npos)
      << r.status.message;
}
