// User kernels on the GPU: NVRTC, the runner's own CUDA context, the traced entry, faults and
// endless loops. Skips visibly without a CUDA device.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <nvrtc.h>
#include <stdlib.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "custom_test_support.hpp"
#include "prelude_proofs.hpp"
#include "device/cuda_device.hpp"
#include "lab/sweep.hpp"
#include "labs/custom/user_kernel_lab.hpp"
#include "labs/grayscale/gray_lab.hpp"
#include "counters/counters.hpp"
#include "measured/profile_launch.hpp"
#include "gpu_skip.hpp"
#include "labs/custom/codegen.hpp"
#include "toolchain/nvrtc_compile.hpp"
#include "toolchain/nvrtc_target.hpp"
#include "labs/custom/source_parse.hpp"

namespace bs::custom {
namespace {

using namespace test;
using namespace toolchain;  // NVRTC and its target choice

class CustomGpu : public ::testing::Test {
 protected:
  void SetUp() override { BS_SKIP_WITHOUT_GPU(); }
  TempDir cache;
  Engine engine{options_with_cache(cache.path)};

  std::shared_ptr<CustomKernel> compile(const std::string& src, std::span<const lab::UserForm> forms) {
    CompileResult c = engine.compile(src, forms, Target::Gpu);
    EXPECT_TRUE(c.ok()) << diagnostics_text(c);
    return c.kernel;
  }
};

void print_info(const char* what, const CompiledInfo& i) {
  std::printf(
      "[ kernel ] %s: %s on %s, compile %.1f ms, load %.1f ms, total %.1f ms; registers %u, "
      "static shared %zu B, local (spills+stack) %zu B; traced: %u registers\n",
      what, i.compiler.c_str(), i.device.c_str(), i.compile_ms, i.load_ms, i.total_ms,
      i.attributes.registers_per_thread, i.attributes.static_shared_bytes, i.attributes.local_bytes_per_thread,
      i.traced_attributes.registers_per_thread);
}

// Issue 32's kernels as people write them (tests/custom/kernels/*.cu and prelude_proofs.hpp),
// compiled by NVRTC with CUDA's headers and checked against the same references as on the CPU
// simulator; the shuffle semantics are checked against the hardware here.
TEST_F(CustomGpu, WmmaBf16MatmulAtAnOddSizeMatchesTheProductOfTheRoundedInputs) {
  proof_WmmaBf16MatmulAtAnOddSizeMatchesTheProductOfTheRoundedInputs(engine, Target::Gpu);
}
TEST_F(CustomGpu, EveryWmmaShapeComputesTheProductWithItsLayouts) {
  proof_EveryWmmaShapeComputesTheProductWithItsLayouts(engine, Target::Gpu);
}
TEST_F(CustomGpu, WmmaFragmentsAreLaidOutAsTheHardwareHoldsThem) {
  proof_WmmaFragmentsAreLaidOutAsTheHardwareHoldsThem(engine, Target::Gpu);
}
TEST_F(CustomGpu, WarpReductionsWithCooperativeGroupsAndShufflesMatchTheDoubleProduct) {
  proof_WarpReductionsWithCooperativeGroupsAndShufflesMatchTheDoubleProduct(engine, Target::Gpu);
}
TEST_F(CustomGpu, AGrayscaleComputedInFp16MatchesTheReferenceRoundingExactly) {
  proof_AGrayscaleComputedInFp16MatchesTheReferenceRoundingExactly(engine, Target::Gpu);
}
TEST_F(CustomGpu, ShufflesAndVotesFollowCudasSemanticsIncludingWidthsAndPartialMasks) {
  proof_ShufflesAndVotesFollowCudasSemanticsIncludingWidthsAndPartialMasks(engine, Target::Gpu);
}

TEST_F(CustomGpu, EditToResultOfTheLecturesGray1DOnTheSampleUnderASecond) {
  const PlanarImage img = sample_image();
  ASSERT_GT(img.w, 0);
  auto problem = gray_problem(img);
  ASSERT_TRUE(problem.ok());
  const auto ref = gray_in_double(img);

  // Cold: the first compile starts a runner (CUDA context, NVRTC) and waits for it.
  auto t0 = std::chrono::steady_clock::now();
  CompileResult cold = engine.compile(kLectureGray1D, gray_forms(), Target::Gpu);
  ASSERT_TRUE(cold.ok()) << diagnostics_text(cold);
  RunRequest req;
  req.block = {256, 1, 1};
  RunOutcome r0 = cold.kernel->run(*problem, req);
  const double cold_ms = ms_since(t0);
  ASSERT_TRUE(r0.record.ok()) << r0.record.status.describe();
  EXPECT_TRUE(r0.record.check.passed()) << r0.record.check.summary();
  print_info("lecture gray 1D", cold.kernel->info());

  // Warm, as in the editor: the spare runner is up; the user changes the source.
  engine.available_compilers();  // waits until the spare answers
  for (int edit = 0; edit < 3; ++edit) {
    const std::string src = std::string(kLectureGray1D) + "// edit " + std::to_string(edit) + "\n";
    t0 = std::chrono::steady_clock::now();
    CompileResult c = engine.compile(src, gray_forms(), Target::Gpu);
    ASSERT_TRUE(c.ok()) << diagnostics_text(c);
    const double compiled_ms = ms_since(t0);
    RunOutcome r = c.kernel->run(*problem, req);
    const double total_ms = ms_since(t0);
    ASSERT_TRUE(r.record.ok()) << r.record.status.describe();
    ASSERT_TRUE(r.record.check.passed()) << r.record.check.summary();
    for (std::size_t i = 0; i < ref.size(); ++i) ASSERT_LE(std::abs(int(r.output[i]) - int(ref[i])), 1);
    std::printf(
        "[ timing ] GPU edit-to-result #%d, lecture gray 1D on the %d x %d sample: compile+load "
        "%.0f ms (NVRTC %.0f ms), first verified run %.0f ms (kernel %.4f ms), total %.0f ms "
        "(cold start was %.0f ms)\n",
        edit, img.w, img.h, compiled_ms, c.kernel->info().compile_ms, r.wall_ms, r.record.timing.median_ms, total_ms,
        cold_ms);
    engine.available_compilers();  // let the next spare come up, as between keystrokes
  }
}

TEST_F(CustomGpu, LectureKernelsAndTheTiledMatmulMatchTheirReferences) {
  const std::uint32_t seed = fresh_seed();
  const PlanarImage img = random_image(517, 301, seed);
  const auto gref = gray_in_double(img);
  for (const char* src : {kLectureGray1D, kLectureGray2D}) {
    auto k = compile(src, gray_forms());
    ASSERT_TRUE(k);
    auto gp = gray_problem(img, k->info().form.id);
    RunRequest req;
    req.block = k->info().form.id == "gray_1d" ? Dim3{256, 1, 1} : Dim3{32, 8, 1};
    req.timing = TimingPolicy::fixed(5, 2);
    RunOutcome r = k->run(*gp, req);
    ASSERT_TRUE(r.record.ok()) << r.record.status.describe();
    EXPECT_TRUE(r.record.check.passed()) << r.record.check.summary();
    for (std::size_t i = 0; i < gref.size(); ++i) ASSERT_LE(std::abs(int(r.output[i]) - int(gref[i])), 1);
    EXPECT_EQ(r.record.timing.repeats(), 5);
    EXPECT_EQ(r.record.timing.clock, "CUDA events");
    print_info(k->info().form.id.c_str(), k->info());
  }
  const int h = 300, w = 257, kk = 129;
  const auto m = random_matrix(h, kk, seed), n = random_matrix(kk, w, seed + 1);
  auto mp = matmul_problem(m, n, h, w, kk);
  const auto want = product_in_double(m, n, h, w, kk);
  for (const std::string& src : {std::string(kLectureMatmul), template_source("matmul_tiled")}) {
    auto k = compile(src, matmul_forms());
    ASSERT_TRUE(k);
    RunRequest req;
    req.block = {16, 16, 1};
    RunOutcome r = k->run(*mp, req);
    ASSERT_TRUE(r.record.ok()) << r.record.status.describe();
    EXPECT_TRUE(r.record.check.passed()) << r.record.check.summary();
    const auto got = floats_of(r.output);
    for (std::size_t e = 0; e < want.size(); ++e) ASSERT_NEAR(got[e], want[e], 1e-4 * kk) << e;
    print_info(k->info().name.c_str(), k->info());
    if (k->info().uses_shared) { EXPECT_EQ(k->info().attributes.static_shared_bytes, 2u * 16 * 16 * sizeof(float)); }
  }
}

// The editor's tensor-core template (mma.sync.m16n8k16 through the BF16 form's GPU prelude),
// compiled by NVRTC for this device, on odd sizes, against the double product of the BF16 numbers.
TEST_F(CustomGpu, TheBf16MmaTemplateMatchesTheDoubleProductOfItsBf16Numbers) {
  const std::uint32_t seed = fresh_seed();
  const int h = 301, w = 259, kk = 133;
  auto m = random_matrix(h, kk, seed), n = random_matrix(kk, w, seed + 1);
  matmul::round_to_bf16(m), matmul::round_to_bf16(n);
  const lab::UserForm* form = matmul::user_kernel_spec().find_form("matmul_bf16");
  ASSERT_NE(form, nullptr);
  const std::vector<double> exact = product_in_double(m, n, h, w, kk);
  auto packed = matmul::pack_user_problem(*form, m, n, h, w, kk, std::vector<float>(exact.begin(), exact.end()),
                                          matmul::error_scale(m.data(), n.data(), h, w, kk), "double product");
  ASSERT_TRUE(packed.ok()) << packed.status().describe();
  auto problem = Problem::create(std::move(packed.value()));
  ASSERT_TRUE(problem.ok());
  auto k = compile(template_source("matmul_mma_bf16"), matmul_forms());
  ASSERT_TRUE(k);
  EXPECT_EQ(k->info().form.id, "matmul_bf16");
  RunRequest req;
  req.block = {128, 1, 1};
  RunOutcome r = k->run(*problem, req);
  ASSERT_TRUE(r.record.ok()) << r.record.status.describe();
  EXPECT_TRUE(r.record.check.passed()) << r.record.check.summary();
  EXPECT_EQ(r.record.config.grid, (Dim3{9, 10, 1}));
  const auto got = floats_of(r.output);
  for (std::size_t e = 0; e < exact.size(); ++e) ASSERT_NEAR(got[e], exact[e], 1e-4 * kk) << e;
  print_info(k->info().name.c_str(), k->info());
}

// Kernels that include CUDA's headers (tests/custom/kernels/nvrtc_*.cu, compiled without a device
// in test_custom_nvrtc), run here and verified on odd sizes with fresh random data against the
// test's own double-precision reference: WMMA BF16, cooperative groups, cuda_fp16, cuda_bf16,
// cuda/pipeline, cuda/barrier, cuda/std and CUB's block primitives.
std::string kernel_file(const char* name) {
  std::ifstream f(repo_file(std::string("tests/custom/kernels/") + name));
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST_F(CustomGpu, KernelsIncludingCudasHeadersMatchTheirReferencesOnOddSizes) {
  const std::uint32_t seed = fresh_seed();
  std::printf("[ seed ] %u\n", seed);
  const int h = 77, w = 61, kk = 93;
  const auto m = random_matrix(h, kk, seed), n = random_matrix(kk, w, seed + 1);
  auto fp32 = matmul_problem(m, n, h, w, kk);
  ASSERT_TRUE(fp32.ok()) << fp32.status().describe();
  const std::vector<double> exact = product_in_double(m, n, h, w, kk);

  auto mb = m, nb = n;
  matmul::round_to_bf16(mb), matmul::round_to_bf16(nb);
  const std::vector<double> exact_bf16 = product_in_double(mb, nb, h, w, kk);
  const lab::UserForm* bf16_form = matmul::user_kernel_spec().find_form("matmul_bf16");
  ASSERT_NE(bf16_form, nullptr);
  auto packed =
      matmul::pack_user_problem(*bf16_form, mb, nb, h, w, kk, std::vector<float>(exact_bf16.begin(), exact_bf16.end()),
                                matmul::error_scale(mb.data(), nb.data(), h, w, kk), "double product");
  ASSERT_TRUE(packed.ok()) << packed.status().describe();
  auto bf16 = Problem::create(std::move(packed.value()));
  ASSERT_TRUE(bf16.ok());

  struct Case {
    const char* file;
    Dim3 block;
    bool use_bf16;
  };
  const Case matmuls[] = {
      {"nvrtc_wmma_bf16.cu", {128, 1, 1}, true}, {"nvrtc_bf16_convert.cu", {128, 1, 1}, true},
      {"nvrtc_cg_reduce.cu", {32, 8, 1}, false}, {"nvrtc_pipeline.cu", {16, 16, 1}, false},
      {"nvrtc_barrier.cu", {16, 16, 1}, false},  {"nvrtc_cub_reduce.cu", {32, 8, 1}, false},
      {"nvrtc_cub_load.cu", {128, 1, 1}, false},
  };
  for (const Case& c : matmuls) {
    SCOPED_TRACE(c.file);
    auto k = compile(kernel_file(c.file), matmul_forms());
    ASSERT_TRUE(k);
    RunRequest req;
    req.block = c.block;
    RunOutcome r = k->run(c.use_bf16 ? *bf16 : *fp32, req);
    ASSERT_TRUE(r.record.ok()) << r.record.status.describe();
    EXPECT_TRUE(r.record.check.passed()) << r.record.check.summary();
    const auto got = floats_of(r.output);
    const std::vector<double>& ref = c.use_bf16 ? exact_bf16 : exact;
    ASSERT_EQ(got.size(), ref.size());
    for (std::size_t e = 0; e < ref.size(); ++e) ASSERT_NEAR(got[e], ref[e], 1e-4 * kk) << e;
    print_info(c.file, k->info());
  }

  const PlanarImage img = random_image(333, 71, seed + 2);
  auto gray = gray_problem(img);
  ASSERT_TRUE(gray.ok());
  const auto ref = gray_in_double(img);
  for (const char* file : {"nvrtc_fp16_gray.cu", "nvrtc_cuda_std.cu", "nvrtc_std_headers.cu"}) {
    SCOPED_TRACE(file);
    auto k = compile(kernel_file(file), gray_forms());
    ASSERT_TRUE(k);
    RunOutcome r = k->run(*gray, RunRequest{});
    ASSERT_TRUE(r.record.ok()) << r.record.status.describe();
    EXPECT_TRUE(r.record.check.passed()) << r.record.check.summary();
    ASSERT_EQ(r.output.size(), ref.size());
    for (std::size_t i = 0; i < ref.size(); ++i) ASSERT_LE(std::abs(int(r.output[i]) - int(ref[i])), 1) << i;
    print_info(file, k->info());
  }
}

TEST_F(CustomGpu, TheTracedEntryGivesOneRecordPerBlock) {
  const PlanarImage img = random_image(300, 200, fresh_seed());
  auto p = gray_problem(img, "gray_2d");
  auto k = compile(kLectureGray2D, gray_forms());
  ASSERT_TRUE(k);
  RunRequest req;
  req.block = {16, 16, 1};
  req.trace = true;
  RunOutcome r = k->run(*p, req);
  ASSERT_TRUE(r.record.ok()) << r.record.status.describe();
  EXPECT_TRUE(r.record.check.passed());  // the traced launch ran last: its output is verified too
  const Dim3 g = r.record.config.grid;
  EXPECT_EQ(g, (Dim3{19, 13, 1}));
  ASSERT_EQ(r.record.schedule.size(), g.volume());
  EXPECT_FALSE(r.record.schedule_simulated);
  std::vector<int> seen(g.volume(), 0);
  for (std::size_t i = 0; i < r.record.schedule.size(); ++i) {
    const BlockTrace& b = r.record.schedule[i];
    EXPECT_LT(b.unit, k->info().limits.sm_count);
    EXPECT_LE(b.start_ns, b.end_ns);
    ++seen[b.block.x + g.x * b.block.y];
  }
  for (int s : seen) EXPECT_EQ(s, 1);
}

TEST_F(CustomGpu, AFaultIsReportedAndTheParentsContextStaysUsable) {
  // The parent's own context, made before the fault, with data on it.
  float* mine = nullptr;
  ASSERT_EQ(cudaMalloc(&mine, 1024 * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMemset(mine, 0, 1024 * sizeof(float)), cudaSuccess);

  const std::string src = R"(__global__ void k(unsigned char* x, unsigned char* out, int n) {
    int i = blockIdx.x*blockDim.x + threadIdx.x;
    if (i < n) out[i + (1LL << 40)] = x[i];
}
)";
  auto k = compile(src, gray_forms());
  ASSERT_TRUE(k);
  const PlanarImage img = random_image(128, 64, 5);
  auto p = gray_problem(img);
  RunOutcome r = k->run(*p, RunRequest{});
  ASSERT_FALSE(r.record.ok());
  std::printf("[ fault ] %s\n", r.record.status.describe().c_str());
  EXPECT_TRUE(r.runner_failed);
  EXPECT_TRUE(r.record.status.code == "cudaErrorIllegalAddress" || r.record.status.code == "cudaErrorLaunchFailure")
      << r.record.status.code;

  EXPECT_EQ(cudaMemset(mine, 1, 1024 * sizeof(float)), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaFree(mine);

  // The same kernel object recovers (a fresh runner) and a correct kernel runs right.
  auto good = compile(kLectureGray1D, gray_forms());
  RunOutcome ok = good->run(*p, RunRequest{});
  ASSERT_TRUE(ok.record.ok()) << ok.record.status.describe();
  EXPECT_TRUE(ok.record.check.passed());
  RunOutcome again = k->run(*p, RunRequest{});
  EXPECT_FALSE(again.record.ok());
  EXPECT_TRUE(again.runner_restarted);
}

TEST_F(CustomGpu, AnEndlessLoopIsStoppedAtTheTimeLimit) {
  const std::string src = R"(__global__ void k(unsigned char* x, unsigned char* out, int n) {
    int i = blockIdx.x*blockDim.x + threadIdx.x;
    volatile int spin = 0;
    while (n > 1000) spin = spin + 1;
    if (i < n) out[i] = 0.2989*x[i] + 0.5870*x[i+n] + 0.1140*x[i+2*n];
}
)";
  auto k = compile(src, gray_forms());
  ASSERT_TRUE(k);
  const PlanarImage big = random_image(64, 64, 1), small = random_image(20, 10, 2);
  auto pbig = gray_problem(big);
  auto psmall = gray_problem(small);
  RunRequest req;
  req.time_limit_s = 1.0;
  const auto t0 = std::chrono::steady_clock::now();
  RunOutcome r = k->run(*pbig, req);
  std::printf("[ timing ] GPU endless loop stopped after %.0f ms: %s\n", ms_since(t0), r.record.status.message.c_str());
  ASSERT_FALSE(r.record.ok());
  EXPECT_TRUE(r.timed_out);
  req.time_limit_s = 10.0;  // the killed context may still be winding down on the GPU
  const auto t1 = std::chrono::steady_clock::now();
  RunOutcome next = k->run(*psmall, req);
  std::printf("[ timing ] the next run after the kill took %.0f ms\n", ms_since(t1));
  ASSERT_TRUE(next.record.ok()) << next.record.status.describe();
  EXPECT_TRUE(next.runner_restarted);
  EXPECT_TRUE(next.record.check.passed());
}

TEST_F(CustomGpu, SyntaxErrorsComeBackAtTheirLineAndColumn) {
  const std::string src =
      "__global__ void rgb_to_grayscale_kernel(unsigned char* x, unsigned char* out, int n) {\n"
      "    int i = blockIdx.x*blockDim.x + threadIdx.x;\n"
      "    if (i<n) out[i] = 0.2989*x[i] + 0.5870*x[i+n] + 0.1140*x[i+2*n] + undeclared_thing;\n"
      "}\n";
  CompileResult c = engine.compile(src, gray_forms(), Target::Gpu);
  ASSERT_FALSE(c.ok());
  ASSERT_FALSE(c.diagnostics.empty());
  const Diagnostic& d = c.diagnostics[0];
  EXPECT_EQ(d.line, 3) << describe(d);
  EXPECT_EQ(
      d.column,
      static_cast<int>(std::string("    if (i<n) out[i] = 0.2989*x[i] + 0.5870*x[i+n] + 0.1140*x[i+2*n] + ").size()) +
          1)
      << describe(d);
  EXPECT_EQ(d.origin, "NVRTC");
}

// The grayscale lab on the CUDA device, with user kernels (as the app's catalog makes it).
std::unique_ptr<lab::Lab> cuda_gray_lab(std::shared_ptr<UserKernelBook> book, int w, int h, std::uint32_t seed) {
  auto limits = cuda_device_limits(0);
  if (!limits) return nullptr;
  lab::Backend b;
  b.kind = BackendKind::Cuda;
  b.cuda_device = 0;
  b.limits = limits.value();
  b.label = "CUDA device 0";
  auto g = gray::GrayLab::create(b);
  if (!g) return nullptr;
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> rgba(static_cast<std::size_t>(w) * h * 4);
  for (auto& v : rgba) v = static_cast<std::uint8_t>(rng());
  if (!(*g)->set_image(rgba.data(), w, h, "random")) return nullptr;
  return with_user_kernels(std::move(g.value()), std::move(book));
}

// The editor's Compile on the GPU, then installed (whatever its first launch did).
TrialResult compile_install(lab::Lab& lab, const std::string& source) {
  auto* user = lab::layer<UserKernelLab>(lab);
  TrialRequest req;
  req.source = source;
  req.forms = user->spec().forms();
  req.target = Target::Gpu;
  if (const lab::UserForm* f = user->form_of(source))
    if (auto p = user->user_problem(*f)) req.problem = *p;
  TrialResult t = compile_and_try(user->book().engine(), req);
  if (t.compile.ok()) user->book().install(t.kernel, t.compile.kernel);
  return t;
}

class UserLabGpu : public ::testing::Test {
 protected:
  void SetUp() override { BS_SKIP_WITHOUT_GPU(); }
  TempDir cache;
  std::shared_ptr<Engine> engine = std::make_shared<Engine>(options_with_cache(cache.path));
  std::shared_ptr<UserKernelBook> book = std::make_shared<UserKernelBook>(engine, nullptr);
};

// Where the confidence rule should have stopped a run of timed launches: the first count from
// `min_repeats` on whose samples' median interval is within `target`, replayed on the recorded
// samples; `max_repeats` when none is.
int rule_stops_at(const Timing& t, double target, int min_repeats, int max_repeats) {
  for (int n = min_repeats; n <= t.repeats(); ++n) {
    Timing prefix;
    prefix.samples_ms.assign(t.samples_ms.begin(), t.samples_ms.begin() + n);
    summarize(prefix);
    if (prefix.relative_ci() <= target) return n;
  }
  return max_repeats;
}

// One measurement path on the GPU: a user kernel's repeats follow the confidence target as the
// built-in rung's beside it do (CUDA events, launch by launch, in the runner; the loop is the
// parent's lab::measure). A target of 1e-12 is met only by an interval of zero width: CUDA events
// tick every 32 ns on an H200, so an 8 us kernel on a quiet GPU can give the same time often
// enough for that, and the run then rightly stops before its 40 (the rule, replayed on the
// samples, says where).
TEST_F(UserLabGpu, TheRepeatsFollowTheConfidenceTargetAsTheBuiltInRungsDo) {
  auto lab = cuda_gray_lab(book, 2039, 1021, fresh_seed());
  ASSERT_TRUE(lab);
  ASSERT_TRUE(compile_install(*lab, kLectureGray1D).runs());
  for (const char* kernel : {"gray_1d_flat", "custom:rgb_to_grayscale_kernel"}) {
    lab::RunOptions o;
    o.timing = TimingPolicy::until_stable(1e-12, 60000, 5, 40, 2);  // met by no timing: 40
    LaunchRecord tight = lab->run(kernel, {Dim3{256, 1, 1}}, o);
    o.timing = TimingPolicy::until_stable(1e9, 60000, 5, 40, 2);  // met by any: 5
    LaunchRecord loose = lab->run(kernel, {Dim3{256, 1, 1}}, o);
    ASSERT_TRUE(tight.ok() && loose.ok()) << kernel << ": " << tight.status.describe() << loose.status.describe();
    EXPECT_TRUE(tight.check.passed() && loose.check.passed()) << kernel;
    EXPECT_EQ(tight.timing.repeats(), rule_stops_at(tight.timing, 1e-12, 5, 40)) << kernel;
    EXPECT_GE(tight.timing.repeats(), 5) << kernel;
    EXPECT_EQ(loose.timing.repeats(), 5) << kernel;
    EXPECT_EQ(tight.timing.warmup, 2) << kernel;
    EXPECT_EQ(tight.timing.clock, "CUDA events") << kernel;
    std::printf("[ timing ] %s: median %.4f ms, +-%.2f%% after %d repeats (target none), %d repeats (target any)\n",
                kernel, tight.timing.median_ms, 100 * tight.timing.relative_ci(), tight.timing.repeats(),
                loose.timing.repeats());
  }
}

// Stall samples of a user kernel per line of the user's own source (issue 22): the runner samples
// its launches with CUPTI PC sampling in its own process. The kernel spins on line 5 for 20,000
// cycles per thread and does the lecture's arithmetic on line 6, so line 5 must hold most samples,
// whatever the block shape; a kernel without the spin has no samples there (it has no line 5 loop).
TEST_F(UserLabGpu, AUserKernelIsSampledPerLineOfItsOwnSourceInItsRunner) {
  static constexpr const char* kSpin = R"(__global__ void spin_then_gray(unsigned char* x, unsigned char* out, int n) {
    int i = blockIdx.x*blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long t0 = clock64();
    while (clock64() - t0 < 20000) { }
    out[i] = 0.2989f*x[i] + 0.5870f*x[i+n] + 0.1140f*x[i+2*n];
}
)";
  auto lab = cuda_gray_lab(book, 1031, 517, fresh_seed());
  ASSERT_TRUE(lab);
  ASSERT_TRUE(compile_install(*lab, kSpin).runs());
  for (unsigned bx : {256u, 96u}) {
    LineSampling sampling;
    sampling.max_seconds = 2;
    auto got = lab->profile_lines_elsewhere("custom:spin_then_gray", {Dim3{bx, 1, 1}}, sampling);
    ASSERT_TRUE(got.has_value()) << "a user kernel is sampled by its runner";
    ASSERT_TRUE(got->ok()) << got->status().describe();
    const LineProfile& p = got->value();
    ASSERT_TRUE(p.lines_status.ok()) << p.lines_status.describe();
    EXPECT_EQ(p.kernel, "custom:spin_then_gray");
    ASSERT_GT(p.total_samples, 0);
    ASSERT_FALSE(p.lines.empty());
    long long sum = 0, spin = 0;
    for (const LineSamples& l : p.lines) {
      sum += l.samples;
      const bool users = l.file.size() >= 9 && l.file.compare(l.file.size() - 9, 9, "kernel.cu") == 0;
      if (users && l.line == 5) spin += l.samples;
    }
    EXPECT_EQ(sum, p.total_samples);
    const double spin_pct = 100.0 * static_cast<double>(spin) / static_cast<double>(p.total_samples);
    EXPECT_GT(spin_pct, 60.0) << "top line " << p.lines.front().file << ":" << p.lines.front().line;
    EXPECT_LT(static_cast<double>(p.dropped_samples), 0.01 * static_cast<double>(p.total_samples));
    std::printf(
        "[ lines ] block %u: %lld samples over %lld launches in %.0f ms, %lld dropped; line 5 (spin) "
        "%.1f%%; top %s:%d %.1f%% (%s)\n",
        bx, p.total_samples, p.launches, p.profile_ms, p.dropped_samples, spin_pct, p.lines.front().file.c_str(),
        p.lines.front().line, p.lines.front().share_pct,
        p.lines.front().stalls.empty() ? "-" : p.lines.front().stalls.front().reason.c_str());
  }
  // The kernel still runs and verifies after being sampled (the runner's outputs were reset).
  LaunchRecord after = lab->run("custom:spin_then_gray", {Dim3{128, 1, 1}}, {});
  ASSERT_TRUE(after.ok()) << after.status.describe();
  EXPECT_TRUE(after.check.passed()) << after.check.summary();
}

// A flush that cannot happen is an error, never a record claiming a cold L2: with the device's
// memory taken (by this process), the runner cannot allocate its flush buffer (2 x L2) and the
// run fails saying so; with the memory back, the same run flushes and says so.
// Issue 32: in the window the GPU result comes first; the CPU build and its replay of the launch
// (who stores what, an overrun the GPU does not fault on) arrive from the lab's worker, and the
// next run's record uses them: the lecture's 1D mapping, or the replay's out-of-bounds report.
TEST_F(UserLabGpu, TheGpuResultComesFirstAndTheCpuFindingsUpdateItsRecord) {
  const int w = 61, h = 37, n = w * h;  // 2257 pixels: thread n exists with block 384
  auto lab = cuda_gray_lab(book, w, h, fresh_seed());
  ASSERT_TRUE(lab);
  auto* user = lab::layer<UserKernelLab>(*lab);
  user->set_findings_in_background(true);
  ASSERT_TRUE(compile_install(*lab, kLectureGray1D).runs());
  KernelConfig cfg;
  cfg.block = {384, 1, 1};
  lab::RunOptions o;
  o.verify = true;
  const LaunchRecord first = lab->run("custom:rgb_to_grayscale_kernel", cfg, o);
  ASSERT_TRUE(first.ok()) << first.status.describe();
  EXPECT_TRUE(first.check.passed());
  // The run handed the findings of this launch shape to the worker and returned: no mapping yet,
  // and the note says why.
  EXPECT_EQ(first.scheme.kind, IndexScheme::Kind::Recorded);
  EXPECT_FALSE(first.owners);
  EXPECT_NE(user->owners_note().find("being recorded"), std::string::npos) << user->owners_note();
  user->wait_for_findings();
  const LaunchRecord later = lab->run("custom:rgb_to_grayscale_kernel", cfg, o);
  ASSERT_TRUE(later.ok()) << later.status.describe();
  EXPECT_EQ(later.scheme.kind, IndexScheme::flat().kind) << user->owners_note();
  std::printf("[ findings ] first record: %s; after the CPU findings: %s (%s)\n", describe(first.scheme).c_str(),
              describe(later.scheme).c_str(), user->owners_note().c_str());

  // An off-by-one guard: the GPU finishes (no fault), the findings fail the next record with the
  // replay's block, thread and index.
  std::string off = kLectureGray1D;
  off.replace(off.find("i<n"), 3, "i<=n");
  ASSERT_TRUE(compile_install(*lab, off).compile.ok());
  const LaunchRecord gpu_only = lab->run("custom:rgb_to_grayscale_kernel", cfg, o);
  user->wait_for_findings();
  const LaunchRecord caught = lab->run("custom:rgb_to_grayscale_kernel", cfg, o);
  ASSERT_FALSE(caught.ok()) << "the replay's report must fail the record";
  EXPECT_EQ(caught.status.code, "out_of_bounds");
  const std::string want = "thread (" + std::to_string(n % 384) + ", 0, 0) of block (" + std::to_string(n / 384) +
                           ", 0, 0) accessed x[" + std::to_string(3 * n) + "]";
  EXPECT_NE(caught.status.message.find(want), std::string::npos) << caught.status.message;
  std::printf("[ findings ] off-by-one: GPU record %s; after the findings: %s\n",
              gpu_only.ok() ? "ok" : gpu_only.status.message.c_str(), caught.status.message.c_str());
}

// Issue 32: the Measured tab's counters of a user kernel, read by the range profiler in its runner
// process (ProfileCounters), against the same arithmetic launched as the lab's own rung in this
// process and profiled here: the lecture's 1D kernel and gray_1d_flat read the same 3n bytes.
// Gated as the rungs are against ncu (DRAM bytes read within 2%); the model half is the lab's.
TEST_F(UserLabGpu, AUserKernelsCountersAreReadInItsRunnerAndMatchTheRungs) {
  const int w = 8192, h = 8192;  // the output (64 MiB) is more than the L2, as in the ncu gate
  const double n = static_cast<double>(w) * h;
  auto lab = cuda_gray_lab(book, w, h, fresh_seed());
  ASSERT_TRUE(lab);
  ASSERT_TRUE(lab->set_setting("layout", "planar").ok());
  ASSERT_TRUE(compile_install(*lab, kLectureGray1D).runs());
  KernelConfig cfg;
  cfg.block = {256, 1, 1};
  LaunchCounters rung;
  {
    auto session = counters::CounterSession::create(0);
    ASSERT_TRUE(session.ok()) << session.status().describe();
    auto c = measured::profile_launch(*lab, "gray_1d_flat", cfg, **session);
    ASSERT_TRUE(c.ok()) << c.status().describe();
    rung = *c;
  }  // this process's session goes before the runner's exists
  auto user = measured::profile_elsewhere(*lab, "custom:rgb_to_grayscale_kernel", cfg, CounterRequest{});
  ASSERT_TRUE(user.has_value()) << "a user kernel is profiled in its runner";
  ASSERT_TRUE(user->ok()) << user->status().describe();
  const LaunchCounters& c = user->value();
  std::printf(
      "[ counters ] user kernel in its runner: read %.0f B, written %.0f B, occupancy %.2f%%, %d passes, "
      "%.0f ms; gray_1d_flat here: read %.0f B, written %.0f B, occupancy %.2f%%; the lab counts %.0f B\n",
      c.dram_read_bytes, c.dram_write_bytes, c.achieved_occupancy_pct, c.passes, c.profile_wall_ms,
      rung.dram_read_bytes, rung.dram_write_bytes, rung.achieved_occupancy_pct, c.model_bytes);
  EXPECT_FALSE(c.device.empty());
  EXPECT_GT(c.passes, 1);
  EXPECT_NEAR(c.dram_read_bytes, 3 * n, 0.02 * 3 * n) << "the 3 input planes, read once";
  EXPECT_NEAR(c.dram_read_bytes, rung.dram_read_bytes, 0.02 * rung.dram_read_bytes);
  EXPECT_NEAR(c.achieved_occupancy_pct, rung.achieved_occupancy_pct, 5.0);
  EXPECT_EQ(c.model_bytes, 4 * n) << "the lab's own count, as for its rungs";
  EXPECT_TRUE(std::isfinite(c.theoretical_occupancy_pct));
  // The runner goes on: the next run is verified.
  lab::RunOptions o;
  o.verify = true;
  const LaunchRecord after = lab->run("custom:rgb_to_grayscale_kernel", cfg, o);
  ASSERT_TRUE(after.ok()) << after.status.describe();
  EXPECT_TRUE(after.check.passed());
}

TEST_F(UserLabGpu, AnL2FlushThatCannotHappenFailsTheRunInsteadOfBeingClaimed) {
  const PlanarImage img = random_image(1031, 517, fresh_seed());
  auto p = gray_problem(img);
  CompileResult c = engine->compile(kLectureGray1D, gray_forms(), Target::Gpu);
  ASSERT_TRUE(c.ok()) << diagnostics_text(c);
  RunRequest req;
  req.block = {256, 1, 1};
  ASSERT_TRUE(c.kernel->run(*p, req).record.ok());  // the runner holds the problem now
  // Take the device's free memory, in shrinking pieces, down to less than the flush buffer.
  std::vector<void*> hog;
  for (std::size_t piece = std::size_t(1) << 30; piece >= (std::size_t(1) << 20); piece /= 2)
    for (void* q = nullptr; cudaMalloc(&q, piece) == cudaSuccess; q = nullptr) hog.push_back(q);
  cudaGetLastError();
  std::size_t free_b = 0, total_b = 0;
  cudaMemGetInfo(&free_b, &total_b);
  std::printf("[ memory ] %zu allocations hold the device; %zu MiB left free\n", hog.size(), free_b >> 20);
  req.timing = TimingPolicy::fixed(3, 1);
  req.timing.flush_l2 = true;
  RunOutcome starved = c.kernel->run(*p, req);
  for (void* q : hog) cudaFree(q);
  std::printf("[ flush ] with the memory taken: %s\n", starved.record.status.describe().c_str());
  EXPECT_FALSE(starved.record.ok() && starved.record.timing.l2_flushed) << "a flush that could not happen was claimed";
  ASSERT_FALSE(starved.record.ok());
  EXPECT_EQ(starved.record.status.code, "l2_flush");
  EXPECT_NE(starved.record.status.message.find("could not be flushed"), std::string::npos);
  RunOutcome fed = c.kernel->run(*p, req);
  ASSERT_TRUE(fed.record.ok()) << fed.record.status.describe();
  EXPECT_TRUE(fed.record.timing.l2_flushed);
  EXPECT_EQ(fed.record.timing.repeats(), 3);
  EXPECT_TRUE(fed.record.check.passed());
}

// A user kernel's GPU fault is typed as its runner's (sticky, FaultOwner::Child, CUDA's own
// error name, no prefix): a sweep over it fails that point and goes on, and the app's own
// context runs the built-in kernels afterwards.
TEST_F(UserLabGpu, AFaultIsTheChildsAndTheSweepGoesOnWithTheAppsContextIntact) {
  auto lab = cuda_gray_lab(book, 257, 129, fresh_seed());
  ASSERT_TRUE(lab);
  const std::string faulting = R"(__global__ void wild(unsigned char* x, unsigned char* out, int n) {
    int i = blockIdx.x*blockDim.x + threadIdx.x;
    if (i < n) out[i + (1LL << 40)] = x[i];
}
)";
  ASSERT_TRUE(compile_install(*lab, faulting).compile.ok());
  ASSERT_TRUE(compile_install(*lab, kLectureGray1D).runs());
  lab::SweepSpec spec;
  spec.kernels = {"custom:wild", "custom:rgb_to_grayscale_kernel", "gray_1d_flat"};
  spec.blocks = {Dim3{128, 1, 1}, Dim3{256, 1, 1}};
  spec.timing = TimingPolicy::fixed(3, 1);
  spec.measure_clock = false;
  const lab::SweepResult r = lab::run_sweep(*lab, spec);
  EXPECT_TRUE(r.fault.ok()) << r.fault.describe();
  EXPECT_TRUE(r.complete);
  ASSERT_EQ(r.records.size(), 6u);
  for (const LaunchRecord& rec : r.records) {
    if (rec.kernel == "custom:wild") {
      ASSERT_FALSE(rec.ok());
      std::printf("[ fault ] %s\n", rec.status.describe().c_str());
      EXPECT_TRUE(rec.status.sticky);
      EXPECT_EQ(rec.status.owner, FaultOwner::Child);
      EXPECT_FALSE(rec.status.sticky_app_fault());
      EXPECT_TRUE(rec.status.code == "cudaErrorIllegalAddress" || rec.status.code == "cudaErrorLaunchFailure")
          << rec.status.code;
    } else {
      EXPECT_TRUE(rec.ok() && rec.check.passed()) << rec.kernel << ": " << rec.status.describe();
    }
  }
}

// NVRTC with `option` on a generated unit, through the runner's own compile (NvrtcLibrary: the
// same options, CUDA's headers and standard-header stand-ins): its log, and whether it compiled to
// a cubin.
struct NvrtcRun {
  bool ok = false;
  std::string log;
};
NvrtcRun nvrtc_compile(const std::string& unit, const std::string& option) {
  NvrtcRun out;
  const NvrtcLibrary lib = NvrtcLibrary::open("/usr/local/cuda/lib64");
  if (!lib.ok()) {
    out.log = lib.error();
    return out;
  }
  NvrtcTarget target;
  target.ok = true;
  target.option = option;
  target.arch = option.substr(option.find('=') + 1);
  const NvrtcLibrary::Output o =
      lib.compile(unit, target, find_cuda_headers(cuda_header_inputs_from_environment(lib.path())));
  out.ok = o.ok && !o.image.empty();
  out.log = o.log;
  return out;
}

std::vector<int> nvrtc_archs() {
  int n = 0;
  nvrtcGetNumSupportedArchs(&n);
  std::vector<int> a(static_cast<std::size_t>(n));
  if (n > 0) nvrtcGetSupportedArchs(a.data());
  return a;
}

// Needs NVRTC only, no device: every lab's templates' generated units compile for Hopper exactly
// as the runner compiles them (sm_90a) without warnings from blockscope's own code.
TEST(CustomNvrtc, EveryLabsTemplatesCompileForHopperAsTheRunnerDoes) {
  const NvrtcTarget target = nvrtc_target(90, nvrtc_archs());
  ASSERT_TRUE(target.ok);
  EXPECT_EQ(target.option, "--gpu-architecture=sm_90a");
  for (const lab::UserKernelSpec* spec : {&gray::user_kernel_spec(), &matmul::user_kernel_spec()})
    for (const lab::UserTemplate& t : spec->templates()) {
      const auto parsed = parse_kernel_source(t.source, spec->forms());
      ASSERT_TRUE(parsed.ok()) << t.id;
      const NvrtcRun r = nvrtc_compile(make_gpu_unit(t.source, *parsed.kernel).text, target.option);
      EXPECT_TRUE(r.ok) << t.id << ":\n" << r.log;
      EXPECT_EQ(r.log.find("warning"), std::string::npos) << t.id << ":\n" << r.log;
    }
}

// What sm_90a is for: Hopper's arch-specific instructions (wgmma, setmaxnreg) compile in a user's
// kernel for the target the runner picks, and do not for plain sm_90 (why the suffix matters).
TEST(CustomNvrtc, HoppersArchSpecificInstructionsCompileForTheRunnersTarget) {
  const std::string src = R"(__global__ void k(unsigned char* x, unsigned char* out, int n) {
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n" ::: "memory");
    int i = blockIdx.x*blockDim.x + threadIdx.x;
    if (i < n) out[i] = x[i];
}
)";
  const auto parsed = parse_kernel_source(src, gray_forms());
  ASSERT_TRUE(parsed.ok());
  const std::string unit = make_gpu_unit(src, *parsed.kernel).text;
  const NvrtcTarget target = nvrtc_target(90, nvrtc_archs());
  const NvrtcRun a = nvrtc_compile(unit, target.option);
  EXPECT_TRUE(a.ok) << target.option << ":\n" << a.log;
  const NvrtcRun plain = nvrtc_compile(unit, "--gpu-architecture=sm_90");
  EXPECT_FALSE(plain.ok) << "sm_90 accepted Hopper's arch-specific instructions: the test proves nothing";
}

TEST(CustomGpuMissing, MissingNvrtcSaysWhatToInstallAndTheCpuPathStillWorks) {
  BS_SKIP_WITHOUT_GPU();
  setenv("BLOCKSCOPE_NVRTC", "/nonexistent/libnvrtc.so", 1);
  TempDir cache;
  Engine engine(options_with_cache(cache.path));
  CompileResult c = engine.compile(kLectureGray1D, gray_forms(), Target::Gpu);
  const auto cs = engine.available_compilers();
  unsetenv("BLOCKSCOPE_NVRTC");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status.code, "no_nvrtc");
  EXPECT_NE(c.status.message.find("cannot compile"), std::string::npos);
  EXPECT_NE(c.status.message.find("NVRTC"), std::string::npos);
  EXPECT_NE(c.status.message.find("install"), std::string::npos) << c.status.message;
  EXPECT_FALSE(cs[1].available);
  EXPECT_TRUE(cs[0].available);
  CompileResult cpu = engine.compile(kLectureGray1D, gray_forms(), Target::Cpu);
  EXPECT_TRUE(cpu.ok()) << diagnostics_text(cpu);
}

}  // namespace
}  // namespace bs::custom
