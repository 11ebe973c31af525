// Issue 32: the Measured tab's counters of a user kernel come from its runner process
// (ProfileCounters, protocol version 5). Here without a GPU: the Counters message carries a
// Measurement field by field, and a real CPU runner answers the request, end to end through the
// lab interface, with the same refusal blockscope gives its own kernels on the simulator.
#include <gtest/gtest.h>

#include <cmath>

#include "custom_test_support.hpp"
#include "lab/catalog.hpp"
#include "labs/custom/counters_wire.hpp"
#include "labs/custom/user_kernel_lab.hpp"
#include "labs/grayscale/gray_lab.hpp"
#include "measured/profile_launch.hpp"

namespace bs::custom {
namespace {

using namespace test;

TEST(CountersWire, AMeasurementCrossesTheWireFieldByField) {
  wire::Counters sent;
  sent.head.ok = 1;
  counters::Measurement& m = sent.measurement;
  m.chip = "GH100";
  m.device = "NVIDIA H200";
  m.range = "kernel";
  // Distinct values, so a field read into its neighbour's place shows.
  double v = 1.5;
  for (double* f : {&m.dram_read_bytes, &m.dram_write_bytes, &m.duration_ns, &m.dram_bandwidth_gbs,
                    &m.dram_throughput_pct, &m.l2_hit_pct, &m.global_ld_sectors, &m.global_ld_requests,
                    &m.global_st_sectors, &m.global_st_requests, &m.shared_ld_wavefronts, &m.shared_st_wavefronts,
                    &m.shared_ld_conflicts, &m.shared_st_conflicts, &m.achieved_occupancy_pct, &m.sm_throughput_pct,
                    &m.memory_throughput_pct, &m.warp_cycles_per_issued_instruction, &m.wall_ms})
    *f = (v *= 3.25);
  m.global_st_requests = std::nan("");  // not collected: NaN survives as NaN
  m.passes = 15;
  m.stalls = {{"long_scoreboard", 12.5, 61.0}, {"wait", 3.25, 16.0}};
  m.raw = {{"dram__bytes_read.sum", 201.36e6, "byte"}};
  wire::Counters got;
  ASSERT_TRUE(wire::decode(wire::encode(sent), got));
  const counters::Measurement& g = got.measurement;
  EXPECT_EQ(got.head.ok, 1u);
  EXPECT_EQ(g.chip, "GH100");
  EXPECT_EQ(g.device, "NVIDIA H200");
  EXPECT_EQ(g.range, "kernel");
  EXPECT_EQ(g.dram_read_bytes, m.dram_read_bytes);
  EXPECT_EQ(g.dram_write_bytes, m.dram_write_bytes);
  EXPECT_EQ(g.duration_ns, m.duration_ns);
  EXPECT_EQ(g.dram_bandwidth_gbs, m.dram_bandwidth_gbs);
  EXPECT_EQ(g.dram_throughput_pct, m.dram_throughput_pct);
  EXPECT_EQ(g.l2_hit_pct, m.l2_hit_pct);
  EXPECT_EQ(g.global_ld_sectors, m.global_ld_sectors);
  EXPECT_EQ(g.global_ld_requests, m.global_ld_requests);
  EXPECT_EQ(g.global_st_sectors, m.global_st_sectors);
  EXPECT_TRUE(std::isnan(g.global_st_requests));
  EXPECT_EQ(g.shared_ld_wavefronts, m.shared_ld_wavefronts);
  EXPECT_EQ(g.shared_st_wavefronts, m.shared_st_wavefronts);
  EXPECT_EQ(g.shared_ld_conflicts, m.shared_ld_conflicts);
  EXPECT_EQ(g.shared_st_conflicts, m.shared_st_conflicts);
  EXPECT_EQ(g.achieved_occupancy_pct, m.achieved_occupancy_pct);
  EXPECT_EQ(g.sm_throughput_pct, m.sm_throughput_pct);
  EXPECT_EQ(g.memory_throughput_pct, m.memory_throughput_pct);
  EXPECT_EQ(g.warp_cycles_per_issued_instruction, m.warp_cycles_per_issued_instruction);
  EXPECT_EQ(g.wall_ms, m.wall_ms);
  EXPECT_EQ(g.passes, 15);
  ASSERT_EQ(g.stalls.size(), 2u);
  EXPECT_EQ(g.stalls[1].reason, "wait");
  EXPECT_EQ(g.stalls[1].cycles_per_issue, 3.25);
  EXPECT_EQ(g.stalls[1].share_pct, 16.0);
  ASSERT_EQ(g.raw.size(), 1u);
  EXPECT_EQ(g.raw[0].name, "dram__bytes_read.sum");
  EXPECT_EQ(g.raw[0].value, 201.36e6);
  // Through the Measured tab's one conversion, the values land where the tab reads them.
  const LaunchCounters c = measured::from_measurement(g);
  EXPECT_EQ(c.dram_bytes(), m.dram_read_bytes + m.dram_write_bytes);
  EXPECT_EQ(c.achieved_occupancy_pct, m.achieved_occupancy_pct);
  ASSERT_EQ(c.stalls.size(), 2u);
  EXPECT_EQ(c.stalls[0].reason, "long_scoreboard");

  // A refusal travels as its Status; a message cut short is refused, not half read.
  wire::Counters no;
  no.status = Status::failure("profiling is not permitted for this user", "set NVreg_RestrictProfilingToAdminUsers=0",
                              "cuptiProfilerInitialize", "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  wire::Counters back;
  const std::string bytes = wire::encode(no);
  ASSERT_TRUE(wire::decode(bytes, back));
  EXPECT_EQ(back.head.ok, 0u);
  EXPECT_EQ(back.status.message, no.status.message);
  EXPECT_EQ(back.status.hint, no.status.hint);
  EXPECT_EQ(back.status.code, no.status.code);
  wire::Counters cut;
  EXPECT_FALSE(wire::decode(std::string_view(bytes).substr(0, bytes.size() / 2), cut));
}

TEST(CountersWire, ACpuRunnerAnswersProfileCountersAsTheSimulatorAnswersForRungs) {
  TempDir cache;
  auto engine = std::make_shared<Engine>(options_with_cache(cache.path));
  auto book = std::make_shared<UserKernelBook>(engine, nullptr);
  auto g = gray::GrayLab::create(lab::cpu_simulation(2));
  ASSERT_TRUE(g.ok());
  std::vector<std::uint8_t> rgba(37 * 23 * 4, 77);
  ASSERT_TRUE((*g)->set_image(rgba.data(), 37, 23, "flat").ok());
  auto lab = with_user_kernels(std::move(g.value()), book);
  auto* user = lab::layer<UserKernelLab>(*lab);
  TrialRequest req;
  req.source = kLectureGray1D;
  req.forms = user->spec().forms();
  req.target = Target::Cpu;
  TrialResult t = compile_and_try(*engine, req);
  ASSERT_TRUE(t.compile.ok()) << t.summary();
  book->install(t.kernel, t.compile.kernel);
  KernelConfig cfg;
  cfg.block = {128, 1, 1};
  // The lab's own kernels launch here: nothing to ask elsewhere.
  EXPECT_FALSE(lab->profile_counters_elsewhere("gray_1d_flat", cfg, {}).has_value());
  // The user's: a ProfileCounters request to its runner process, which answers and stays usable.
  auto got = lab->profile_counters_elsewhere(t.kernel.id, cfg, {});
  ASSERT_TRUE(got.has_value());
  ASSERT_FALSE(got->ok());
  EXPECT_EQ(got->status().message, counters::gpu_feature_status().message);
  EXPECT_EQ(measured::profile_refusal(*lab, t.kernel.id).message,
            measured::profile_refusal(*lab, "gray_1d_flat").message)
      << "the Measured tab refuses a user kernel on the simulator as it refuses a rung";
  lab::RunOptions o;
  o.verify = true;
  const LaunchRecord after = lab->run(t.kernel.id, cfg, o);
  ASSERT_TRUE(after.ok()) << after.status.describe();
  EXPECT_TRUE(after.check.passed());
}

}  // namespace
}  // namespace bs::custom
