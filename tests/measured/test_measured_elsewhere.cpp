// Issue 32: a user kernel's counters are read in its runner process (Lab::profile_counters_
// elsewhere) and compared here with the same model as the lab's own kernels. No GPU here: a lab
// that answers with counters as a runner would, and the model half checked against numbers made
// by hand (the lab's byte count, the occupancy of 64 registers x 256 threads, the ratio).
#include <gtest/gtest.h>

#include <cmath>

#include "lab_without_memory_model.hpp"
#include "measured/profile_launch.hpp"

namespace bs::measured {
namespace {

// One user kernel that "runs in another process": plan() is the lab's (its byte count, the
// launch's attributes), profile_counters_elsewhere answers with `measured` or `refusal`.
class ElsewhereLab final : public bs::test::LabWithoutMemoryModel {
 public:
  LaunchCounters measured;
  Status refusal;
  CounterRequest asked;
  int asked_times = 0;

  ElsewhereLab() {
    backend_.kind = BackendKind::Cuda;
    backend_.label = "a GPU elsewhere";
    backend_.limits.max_threads_per_sm = 2048;
    backend_.limits.max_blocks_per_sm = 32;
    backend_.limits.regs_per_sm = 65536;
    backend_.limits.regs_per_block = 65536;
    backend_.limits.shared_per_sm = 228 * 1024;
    backend_.limits.sm_count = 132;
    lab::KernelInfo user;
    user.id = "custom:rgb_to_grayscale_kernel";
    user.label = "custom: rgb_to_grayscale_kernel";
    user.group = KernelGroup::Custom;
    lab::KernelInfo rung = user;
    rung.id = "gray_1d_flat";
    rung.group = KernelGroup::Lecture;
    kernels_ = {rung, user};
  }
  std::string_view id() const override { return "gray"; }
  std::string_view title() const override { return "Grayscale"; }
  const lab::Backend& backend() const override { return backend_; }
  const std::vector<lab::KernelInfo>& kernels() const override { return kernels_; }
  lab::ProblemInfo problem() const override {
    lab::ProblemInfo p;
    p.ready = true;
    return p;
  }
  LaunchRecord plan(std::string_view kernel, const KernelConfig& c) override {
    LaunchRecord r;
    r.lab = "gray";
    r.kernel = std::string(kernel);
    r.config.block = c.block;
    r.config.grid = {static_cast<unsigned>((kPixels + c.block.x - 1) / c.block.x), 1, 1};
    r.bytes_moved = 4.0 * kPixels;  // the lab's count: 3 bytes read + 1 written per pixel
    r.bytes_note = "3 bytes read + 1 written per pixel";
    r.attributes.registers_per_thread = 64;
    r.attributes_measured = true;
    return r;
  }
  LaunchRecord run(std::string_view kernel, const KernelConfig& c, const lab::RunOptions&) override {
    return plan(kernel, c);
  }
  std::optional<Result<CountersElsewhere>> profile_counters_elsewhere(std::string_view kernel,
                                                                      const KernelConfig& config,
                                                                      const CounterRequest& request) override {
    if (kernel.substr(0, 7) != "custom:") return std::nullopt;
    asked = request;
    ++asked_times;
    if (!refusal.ok()) return Result<CountersElsewhere>(refusal);
    CountersElsewhere out;
    out.counters = measured;
    out.launch = plan(kernel, config);
    return Result<CountersElsewhere>(std::move(out));
  }
  std::size_t output_bytes() const override { return 0; }
  Result<std::unique_ptr<lab::Lab>> fork() const override { return Status::failure("no fork"); }
  Status set_random_problem(std::string_view) override { return Status::success(); }
  std::string size_syntax() const override { return "WxH"; }
  std::vector<std::string> default_sizes() const override { return {}; }

  static constexpr long long kPixels = 8192LL * 8192;

 private:
  lab::Backend backend_;
  std::vector<lab::KernelInfo> kernels_;
};

TEST(MeasuredElsewhere, AUserKernelsCountersMeetTheLabsModelAsARungsDo) {
  ElsewhereLab lab;
  // What a runner read: 1% more DRAM bytes than the lab counts, 40% achieved occupancy.
  lab.measured.device = "NVIDIA H200";
  lab.measured.dram_read_bytes = 3.0 * ElsewhereLab::kPixels * 1.01;
  lab.measured.dram_write_bytes = 1.0 * ElsewhereLab::kPixels * 1.01;
  lab.measured.achieved_occupancy_pct = 40;
  lab.measured.passes = 15;
  CounterRequest want;
  want.stall_reasons = false;
  want.evict_read_only = true;
  KernelConfig cfg;
  cfg.block = {256, 1, 1};

  // A rung of this process is not profiled elsewhere.
  EXPECT_FALSE(profile_elsewhere(lab, "gray_1d_flat", cfg, want).has_value());
  EXPECT_EQ(lab.asked_times, 0);

  auto got = profile_elsewhere(lab, "custom:rgb_to_grayscale_kernel", cfg, want);
  ASSERT_TRUE(got.has_value());
  ASSERT_TRUE(got->ok()) << got->status().describe();
  const LaunchCounters& c = got->value();
  // The request travelled as asked (the runner profiles with the session's metric set).
  EXPECT_FALSE(lab.asked.stall_reasons);
  EXPECT_TRUE(lab.asked.evict_read_only);
  // The measured half as the runner read it, the model half from the lab's own plan.
  EXPECT_EQ(c.dram_bytes(), 4.0 * ElsewhereLab::kPixels * 1.01);
  EXPECT_EQ(c.model_bytes, 4.0 * ElsewhereLab::kPixels);
  EXPECT_EQ(c.model_bytes_note, "3 bytes read + 1 written per pixel");
  // 64 registers x 32 lanes x 8 warps = 16384 per block: 4 blocks of 65536, 32 of 64 warps.
  EXPECT_DOUBLE_EQ(c.theoretical_occupancy_pct, 50.0) << c.occupancy_note;
  // The rows and the comparison the Measured tab draws for a rung.
  bool saw_bytes = false, saw_occupancy = false;
  for (const CounterRow& r : counter_rows(c)) {
    if (r.name == "DRAM bytes") {
      saw_bytes = true;
      EXPECT_NEAR(r.comparison(), 1.01, 1e-12);
    }
    if (r.name == "occupancy") {
      saw_occupancy = true;
      EXPECT_NEAR(r.comparison(), -10.0, 1e-12);  // 40% achieved against 50% theoretical
    }
  }
  EXPECT_TRUE(saw_bytes && saw_occupancy);
  EXPECT_NE(largest_disagreement(c).find("Achieved occupancy is 40% against 50%"), std::string::npos)
      << largest_disagreement(c);

  // A model record given (the shown launch, timed) is the model side's, as for rungs.
  LaunchRecord shown = lab.plan("custom:rgb_to_grayscale_kernel", cfg);
  shown.timing.median_ms = 1.0;
  shown.timing.samples_ms = {1.0};
  auto with_time = profile_elsewhere(lab, "custom:rgb_to_grayscale_kernel", cfg, want, &shown);
  ASSERT_TRUE(with_time && with_time->ok());
  EXPECT_NEAR(with_time->value().model_bandwidth_gbs, 4.0 * ElsewhereLab::kPixels / 1e6, 1e-6);
}

TEST(MeasuredElsewhere, WhereTheRunnerCannotReadCountersItsReasonIsTheAnswer) {
  ElsewhereLab lab;
  lab.refusal = Status::failure("profiling is not permitted for this user (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)",
                                "run as root or set NVreg_RestrictProfilingToAdminUsers=0", "cuptiProfilerInitialize");
  KernelConfig cfg;
  cfg.block = {256, 1, 1};
  auto got = profile_elsewhere(lab, "custom:rgb_to_grayscale_kernel", cfg, {});
  ASSERT_TRUE(got.has_value());
  ASSERT_FALSE(got->ok());
  EXPECT_EQ(got->status().message, lab.refusal.message);
  EXPECT_EQ(got->status().hint, lab.refusal.hint);
  // A user kernel is no longer refused before profiling on a GPU backend.
  EXPECT_TRUE(profile_refusal(lab, "custom:rgb_to_grayscale_kernel").ok());
}

}  // namespace
}  // namespace bs::measured
