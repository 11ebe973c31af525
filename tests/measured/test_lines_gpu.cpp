// Stall samples per source line through the lab interface (label gpu; skips visibly without a
// device): profile_lines on the lecture's grayscale and k3, the worker thread, and sampling after
// a hardware-counter profile. A binary of its own: the sampler must exist before the process's
// first launch (it keeps the cubins the modules load), so it is made once, before any test.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <random>
#include <string>
#include <thread>

#include "counters/counters.hpp"
#include "device/cuda_device.hpp"
#include "labs/grayscale/gray_lab.hpp"
#include "labs/matmul/matmul_lab.hpp"
#include "measured/counter_worker.hpp"
#include "measured/profile_launch.hpp"
#include "measured/profile_lines.hpp"
#include "cuda_labs.hpp"
#include "skips.hpp"
#include "wait_until.hpp"

namespace bs::measured {
namespace {

using test::cuda_backend;
using test::gray_lab;
using test::matmul_lab;

// The process's sampler, made before any test launches anything (main below).
struct SamplerHolder {
  std::shared_ptr<sampling::PcSampler> sampler;
  Status why_not;
};
SamplerHolder& holder() {
  static SamplerHolder h;
  return h;
}
std::shared_ptr<sampling::PcSampler> sampler_shared() { return holder().sampler; }

#define NEED_SAMPLER()                                                         \
  if (!cuda_backend()) BS_SKIP_NO_GPU() << cuda_backend().status().describe(); \
  if (!holder().sampler) BS_SKIP_NO_GPU() << holder().why_not.describe();      \
  const sampling::SamplerHandle lines_sampler { holder().sampler, Status::success() }

// ---- stall samples per line (issue 22) ------------------------------------------------------

// The file name without its folders.
std::string base_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Samples `kernel` on `lab` and checks what any profile must show: every sample on a known
// source line, some of them in the rung's own file (KernelInfo::file: where its body is; the
// helpers it calls and its __global__ wrapper have the rest), few dropped, lines adding up.
void expect_lines_in_the_rungs_file(lab::Lab& lab, const sampling::SamplerHandle& handle, const std::string& kernel,
                                    const KernelConfig& cfg) {
  auto p = profile_lines(lab, kernel, cfg, handle);
  ASSERT_TRUE(p) << p.status().describe();
  ASSERT_TRUE(p->lines_status.ok()) << p->lines_status.describe();
  EXPECT_EQ(p->kernel, kernel);
  ASSERT_GT(p->total_samples, 0);
  EXPECT_LT(static_cast<double>(p->dropped_samples), 0.01 * static_cast<double>(p->total_samples));
  const std::string rung_file = base_name(lab.find_kernel(kernel)->file);
  double share_in_rung = 0, unknown = 0;
  long long sum = 0;
  for (const auto& l : p->lines) {
    sum += l.samples;
    if (base_name(l.file) == rung_file) share_in_rung += l.share_pct;
    if (l.line <= 0 || l.file.empty()) unknown += l.share_pct;
  }
  EXPECT_EQ(sum, p->total_samples);
  EXPECT_LT(unknown, 1.0) << kernel << ": samples on no source line";
  EXPECT_GT(share_in_rung, 1.0) << kernel << ": top line " << p->lines.front().file << ":" << p->lines.front().line;
  std::printf("%s: %lld samples, %lld launches, %lld dropped, %.0f ms; top %s:%d %.1f%% (%s); %.1f%% in %s\n",
              kernel.c_str(), p->total_samples, p->launches, p->dropped_samples, p->profile_ms,
              base_name(p->lines.front().file).c_str(), p->lines.front().line, p->lines.front().share_pct,
              p->lines.front().stalls.empty() ? "-" : p->lines.front().stalls.front().reason.c_str(), share_in_rung,
              rung_file.c_str());
}

TEST(LinesGpu, TheLecturesGrayscaleAndK3SampleOntoTheirOwnLines) {
  NEED_SAMPLER();
  auto gray = gray_lab(3001, 2003);
  ASSERT_TRUE(gray);
  KernelConfig g;
  g.block = Dim3{256, 1, 1};
  expect_lines_in_the_rungs_file(*gray, lines_sampler, "gray_1d_flat", g);
  auto mm = matmul_lab(1031);
  ASSERT_TRUE(mm);
  const lab::KernelInfo* k3 = mm->find_kernel("k3_smem_tiled");
  ASSERT_TRUE(k3);
  KernelConfig k;
  k.compiled = k3->default_config;
  k.block = k3->configs.empty() ? k3->default_block : k3->configs[k3->default_config].block;
  expect_lines_in_the_rungs_file(*mm, lines_sampler, "k3_smem_tiled", k);
}

TEST(LinesGpu, TheWorkerSamplesOffTheCallingThread) {
  NEED_SAMPLER();
  (void)lines_sampler;  // the worker takes the shared one
  auto lab = gray_lab(1023, 777);
  ASSERT_TRUE(lab);
  KernelConfig cfg;
  cfg.block = Dim3{128, 1, 1};
  LaunchRecord shown = lab->run("gray_1d_flat", cfg, {});
  ASSERT_TRUE(shown.ok()) << shown.status.describe();
  CounterWorker worker;
  worker.set_sampler(sampler_shared(), Status::success());
  CounterWorker::Job job{"gray 1023x777", "gray_1d_flat", cfg, shown, CounterWorker::What::Lines};
  ASSERT_TRUE(worker.start(job, [&] { return lab->fork(); }).ok());
  std::optional<LaunchRecord> done;
  ASSERT_TRUE(bs::test::wait_until([&] { return (done = worker.take_finished()).has_value(); },
                                   bs::test::kGenerousTimeout, std::chrono::milliseconds(5)))
      << "the worker never finished";
  ASSERT_TRUE(done->lines);
  ASSERT_TRUE(done->lines->ok()) << done->lines->status.describe();
  EXPECT_GT(done->lines->total_samples, 0);
  EXPECT_TRUE(done->lines->lines_status.ok()) << done->lines->lines_status.describe();
  EXPECT_FALSE(done->counters) << "a lines job attaches no counters";
}

TEST(LinesGpu, SamplingWorksOnceACounterSessionIsGone) {
  NEED_SAMPLER();
  auto lab = gray_lab(777, 555);
  ASSERT_TRUE(lab);
  KernelConfig cfg;
  cfg.block = Dim3{256, 1, 1};
  {
    // While a range profiler session exists, CUPTI's PC sampling gathers nothing (the Source
    // tab lets go of the Measured tab's session first): profile, then let the session go.
    auto session = counters::CounterSession::create(0);
    ASSERT_TRUE(session) << session.status().describe();
    auto c = profile_launch(*lab, "gray_1d_flat", cfg, **session);
    ASSERT_TRUE(c) << c.status().describe();
    EXPECT_TRUE(c->measured());
  }
  auto p = profile_lines(*lab, "gray_1d_flat", cfg, lines_sampler);
  ASSERT_TRUE(p) << p.status().describe();
  EXPECT_GT(p->total_samples, 0);
}

}  // namespace
}  // namespace bs::measured

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // Before any test launches a kernel: the sampler keeps the cubins the modules load.
  auto made = bs::sampling::PcSampler::create({});
  if (made) bs::measured::holder().sampler = std::move(made).value();
  else bs::measured::holder().why_not = made.status();
  return RUN_ALL_TESTS();
}
