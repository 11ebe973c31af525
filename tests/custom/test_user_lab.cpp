// User kernels as kernels of the grayscale and matmul labs, through the lab interface (the same
// path the window, bench and sweeps take), on the CPU simulator: the lecture's kernels pasted
// unchanged and verified against references computed here (double precision, no grid), owners
// recorded and matched to the closed-form mappings, an off-by-one guard caught with its block and
// thread, a syntax error at its line, an endless loop stopped, wrong results naming their writer,
// bench over a user kernel, forks, and the output copied where the view asks.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <random>

#include "custom_test_support.hpp"
#include "lab/catalog.hpp"
#include "lab/bench.hpp"
#include "lab/report.hpp"
#include "labs/custom/user_kernel_lab.hpp"
#include "labs/grayscale/gray_lab.hpp"
#include "labs/matmul/matmul_lab.hpp"
#include "mapping/thread_map.hpp"
#include "skips.hpp"

namespace bs::custom {
namespace {

using namespace test;

lab::Backend cpu_backend() { return lab::cpu_simulation(2, "test"); }

std::vector<std::uint8_t> random_rgba(int w, int h, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> rgba(static_cast<std::size_t>(w) * h * 4);
  for (auto& v : rgba) v = static_cast<std::uint8_t>(rng());
  return rgba;
}

// The lecture's formula on RGBA in double precision, truncated like its uint8 store.
std::vector<std::uint8_t> gray_of_rgba(const std::vector<std::uint8_t>& rgba) {
  std::vector<std::uint8_t> out(rgba.size() / 4);
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<std::uint8_t>(0.2989 * rgba[4 * i] + 0.5870 * rgba[4 * i + 1] + 0.1140 * rgba[4 * i + 2]);
  return out;
}

class UserLab : public ::testing::Test {
 protected:
  TempDir cache;
  std::shared_ptr<Engine> engine = std::make_shared<Engine>(options_with_cache(cache.path));
  std::shared_ptr<const UserLabs> labs = std::make_shared<const UserLabs>(
      UserLabs{{{"gray", "Grayscale", &gray::user_kernel_spec()}, {"matmul", "Matmul", &matmul::user_kernel_spec()}}});
  std::shared_ptr<UserKernelBook> gray_book = std::make_shared<UserKernelBook>(engine, labs);
  std::shared_ptr<UserKernelBook> matmul_book = std::make_shared<UserKernelBook>(engine, labs);

  std::unique_ptr<lab::Lab> gray_lab(int w, int h, std::uint32_t seed, std::vector<std::uint8_t>* rgba_out) {
    auto g = gray::GrayLab::create(cpu_backend());
    EXPECT_TRUE(g.ok());
    auto rgba = random_rgba(w, h, seed);
    EXPECT_TRUE((*g)->set_image(rgba.data(), w, h, "random").ok());
    if (rgba_out) *rgba_out = rgba;
    return with_user_kernels(std::move(g.value()), gray_book);
  }

  // The editor's Compile: compile, one verified launch on the lab's data, then install.
  TrialResult compile_into(lab::Lab& lab, const std::string& source, Dim3 block = {0, 0, 0}) {
    auto* user = lab::layer<UserKernelLab>(lab);
    EXPECT_NE(user, nullptr);
    TrialRequest req;
    req.source = source;
    req.forms = user->spec().forms();
    req.target = Target::Cpu;
    if (const lab::UserForm* form = user->form_of(source)) {
      auto p = user->user_problem(*form);
      EXPECT_TRUE(p.ok()) << p.status().describe();
      if (p) req.problem = *p;
    }
    req.block = block;
    req.time_limit_s = user->book().time_limit_s();
    TrialResult t = compile_and_try(*engine, req);
    if (t.runs()) user->book().install(t.kernel, t.compile.kernel);
    return t;
  }
};

// On the CPU the simulator counts how often each line of a user kernel runs (issue 22): the
// kernel's counting build (GCC coverage counters) runs once, gcov reads the counts. Checked
// against counts made here from the kernel's arithmetic: line 2 runs on every launched thread,
// lines 4 and 7 on the n threads past the guard, line 6 (i % 5) times for thread i. A built-in
// rung is refused on the CPU with the reason.
TEST_F(UserLab, OnTheCpuEachLineOfAUserKernelIsCountedAsItRan) {
  static constexpr const char* kCounted = R"(__global__ void count_me(unsigned char* x, unsigned char* out, int n) {
    int i = blockIdx.x*blockDim.x + threadIdx.x;
    if (i >= n) return;
    int extra = 0;
    for (int j = 0; j < i % 5; ++j)
        extra += 1;
    out[i] = 0.2989f*x[i] + 0.5870f*x[i+n] + 0.1140f*x[i+2*n] + extra * 0;
}
)";
  const std::uint32_t seed = fresh_seed();
  std::mt19937 rng(seed);
  const int w = 37 + static_cast<int>(rng() % 40), h = 23 + static_cast<int>(rng() % 30);
  auto lab = gray_lab(w, h, seed, nullptr);
  ASSERT_TRUE(compile_into(*lab, kCounted).runs());
  const long long n = static_cast<long long>(w) * h;
  const unsigned bx = 96;
  const long long launched = (n + bx - 1) / bx * bx;
  long long inner = 0;
  for (long long i = 0; i < n; ++i) inner += i % 5;

  auto got = lab->profile_lines_elsewhere("custom:count_me", {Dim3{bx, 1, 1}}, {});
  ASSERT_TRUE(got.has_value());
  // The one thing this machine may lack: GCC's gcov (the kernels compiled with another compiler,
  // or gcov not installed), said with the call "line counts"; any other failure fails the case.
  if (!got->ok() && got->status().call == "line counts") BS_SKIP() << got->status().describe();
  ASSERT_TRUE(got->ok()) << got->status().describe();
  const LineProfile& p = got->value();
  EXPECT_EQ(p.measure, LineMeasure::Executions);
  EXPECT_NE(p.measure_note.find("gcov"), std::string::npos) << p.measure_note;
  EXPECT_EQ(p.kernel, "custom:count_me");
  auto count = [&](int line) -> long long {
    for (const LineSamples& l : p.lines)
      if (l.line == line && l.file == "kernel.cu") return l.samples;
    return -1;
  };
  EXPECT_EQ(count(2), launched) << w << "x" << h;
  EXPECT_EQ(count(4), n);
  EXPECT_EQ(count(6), inner);
  EXPECT_EQ(count(7), n);
  long long total = 0;
  for (const LineSamples& l : p.lines) total += l.samples;
  EXPECT_EQ(total, p.total_samples);
  ASSERT_FALSE(p.lines.empty());
  EXPECT_GE(p.lines.front().samples, p.lines.back().samples) << "most executions first";
  // Counted again, the counts are the second launch's alone (not added to the first's), and
  // the kernel still runs and verifies afterwards.
  auto again = lab->profile_lines_elsewhere("custom:count_me", {Dim3{bx, 1, 1}}, {});
  ASSERT_TRUE(again.has_value() && again->ok());
  for (const LineSamples& l : again->value().lines) {
    if (l.line == 6) { EXPECT_EQ(l.samples, inner); }
  }
  LaunchRecord after = lab->run("custom:count_me", {Dim3{bx, 1, 1}}, {});
  ASSERT_TRUE(after.ok()) << after.status.describe();
  EXPECT_TRUE(after.check.passed()) << after.check.summary();
  // A built-in rung runs in this process: no runner counts it.
  EXPECT_FALSE(lab->profile_lines_elsewhere("gray_1d_flat", {Dim3{bx, 1, 1}}, {}).has_value());
}

TEST_F(UserLab, TheLecturesGray1DIsAKernelOfTheLabVerifiedMappedAndCopiedToTheView) {
  const std::uint32_t seed = fresh_seed();
  const int w = 101, h = 67;  // n = 6767: no multiple of any block size
  std::vector<std::uint8_t> rgba;
  auto lab = gray_lab(w, h, seed, &rgba);
  const std::size_t built_in = lab->kernels().size();
  TrialResult t = compile_into(*lab, kLectureGray1D);
  ASSERT_TRUE(t.runs()) << t.summary();
  EXPECT_NE(t.summary().find("correct"), std::string::npos) << t.summary();

  // In the kernel list, in the "custom" group, after the lab's own.
  ASSERT_EQ(lab->kernels().size(), built_in + 1);
  const lab::KernelInfo& k = lab->kernels().back();
  EXPECT_EQ(k.id, "custom:rgb_to_grayscale_kernel");
  EXPECT_EQ(k.label, "custom: rgb_to_grayscale_kernel");
  EXPECT_EQ(k.group, KernelGroup::Custom);
  EXPECT_EQ(k.block_rank, 1u);
  EXPECT_EQ(lab->default_config(k).block, (Dim3{256, 1, 1}));

  // A run writes where the view asks (host memory on the CPU backend), verified.
  std::vector<std::uint8_t> out(lab->output_bytes(), 7);
  lab::RunOptions opt;
  opt.output = out.data();
  opt.trace_schedule = true;
  KernelConfig cfg;
  cfg.block = {128, 1, 1};
  const LaunchRecord rec = lab->run(k.id, cfg, opt);
  ASSERT_TRUE(rec.ok()) << rec.status.describe();
  EXPECT_EQ(rec.kernel, "custom:rgb_to_grayscale_kernel");
  EXPECT_EQ(rec.lab, "gray");
  EXPECT_TRUE(rec.check.passed()) << rec.check.summary();
  EXPECT_EQ(rec.config.grid, (Dim3{(w * h + 127) / 128, 1, 1}));
  EXPECT_EQ(rec.schedule.size(), static_cast<std::size_t>((w * h + 127) / 128));
  const auto want = gray_of_rgba(rgba);
  for (std::size_t i = 0; i < want.size(); ++i)
    ASSERT_LE(std::abs(int(out[i]) - int(want[i])), 1) << i << " seed " << seed;
  std::vector<std::uint8_t> down(lab->output_bytes());
  ASSERT_TRUE(lab->download_output(down.data()).ok());
  EXPECT_EQ(down, out);
  // The recorded owners are exactly the lecture's 1D mapping, so the record says Flat and the
  // overlay, hover and statistics work as for the built-in rung.
  EXPECT_EQ(rec.scheme.kind, IndexScheme::Kind::Flat);
  EXPECT_FALSE(rec.scheme.grid_stride);
  ASSERT_TRUE(rec.owners);
  const long long x = 77, y = 41, i = y * w + x;
  auto o = lab->owner(rec, x, y);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->thread.block, (Dim3{static_cast<unsigned>(i / 128), 0, 0}));
  EXPECT_EQ(o->thread.thread, (Dim3{static_cast<unsigned>(i % 128), 0, 0}));
  EXPECT_EQ(rec.owners->thread[static_cast<std::size_t>(i)], static_cast<std::uint32_t>(i));
  // Memory accesses of a user kernel are not known.
  EXPECT_TRUE(lab->warp_accesses(rec, o->thread.block, 0, 0).empty());
  // A built-in kernel still runs through the same lab, and download_output is its result again.
  const LaunchRecord builtin = lab->run("gray_1d_flat", cfg, {});
  ASSERT_TRUE(builtin.ok());
  EXPECT_TRUE(builtin.check.passed());
}

TEST_F(UserLab, TheLectures2DKernelMapsAsGrid2DAndAnUnorderedKernelKeepsItsRecordedOwners) {
  const std::uint32_t seed = fresh_seed();
  const int w = 53, h = 29;
  auto lab = gray_lab(w, h, seed, nullptr);
  TrialResult t = compile_into(*lab, kLectureGray2D, {16, 8, 1});
  ASSERT_TRUE(t.runs()) << t.summary();
  KernelConfig cfg;
  cfg.block = {16, 8, 1};
  const LaunchRecord rec = lab->run("custom:rgb_to_grayscale_kernel", cfg, {});
  ASSERT_TRUE(rec.ok()) << rec.status.describe();
  EXPECT_TRUE(rec.check.passed());
  EXPECT_EQ(rec.config.grid, (Dim3{4, 4, 1}));
  EXPECT_EQ(rec.scheme.kind, IndexScheme::Kind::Grid2D);

  // Pixels in reverse order: no closed form; the inspector reads the recorded owner.
  const std::string reversed = R"(__global__ void reversed(unsigned char* x, unsigned char* out, int n) {
    int t = blockIdx.x*blockDim.x + threadIdx.x;
    int i = n - 1 - t;
    if (t < n) out[i] = 0.2989*x[i] + 0.5870*x[i+n] + 0.1140*x[i+2*n];
}
)";
  TrialResult r = compile_into(*lab, reversed);
  ASSERT_TRUE(r.runs()) << r.summary();
  cfg.block = {64, 1, 1};
  const LaunchRecord rr = lab->run("custom:reversed", cfg, {});
  ASSERT_TRUE(rr.ok());
  EXPECT_TRUE(rr.check.passed());
  EXPECT_EQ(rr.scheme.kind, IndexScheme::Kind::Recorded);
  const long long n = w * h, x = 5, y = 3, i = y * w + x, thread = n - 1 - i;
  auto o = lab->owner(rr, x, y);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->thread.block.x, static_cast<unsigned>(thread / 64));
  EXPECT_EQ(o->thread.thread.x, static_cast<unsigned>(thread % 64));
  ASSERT_EQ(o->owns.size(), 1u);
  EXPECT_EQ(o->owns[0], (mapping::ElementRect{x, y, 1, 1}));
}

TEST_F(UserLab, TheLecturesMatmulAndTheTiledTemplateAreVerifiedAgainstADoubleProduct) {
  const std::uint32_t seed = fresh_seed();
  auto m = matmul::MatmulLab::create(cpu_backend());
  ASSERT_TRUE(m.ok());
  matmul::MatrixSpec spec;
  spec.M = 37, spec.N = 45, spec.K = 29;  // odd, no multiple of 16
  spec.seed = seed;
  ASSERT_TRUE((*m)->set_matrices(spec).ok());
  const std::vector<float> a((*m)->a().begin(), (*m)->a().end()), b((*m)->b().begin(), (*m)->b().end());
  auto lab = with_user_kernels(std::move(m.value()), matmul_book);
  for (const std::string& src : {std::string(kLectureMatmul), template_source("matmul_tiled")}) {
    TrialResult t = compile_into(*lab, src, {16, 16, 1});
    ASSERT_TRUE(t.runs()) << t.summary();
    const std::string id = t.kernel.id;
    KernelConfig cfg;
    cfg.block = {16, 16, 1};
    const LaunchRecord rec = lab->run(id, cfg, {});
    ASSERT_TRUE(rec.ok()) << rec.status.describe();
    EXPECT_TRUE(rec.check.passed()) << id << ": " << rec.check.summary();
    EXPECT_EQ(rec.config.grid, (Dim3{3, 3, 1}));
    EXPECT_EQ(rec.scheme.kind, IndexScheme::Kind::Grid2D) << id;
    EXPECT_DOUBLE_EQ(rec.flops, 2.0 * 37 * 45 * 29);
    std::vector<float> c(37 * 45);
    ASSERT_TRUE(lab->download_output(c.data()).ok());
    const auto want = product_in_double(a, b, 37, 45, 29);
    for (std::size_t e = 0; e < want.size(); ++e) ASSERT_NEAR(c[e], want[e], 1e-4 * 29) << id << " " << e;
  }
  // The tiled kernel with 8 x 8 blocks multiplies the wrong tiles: WRONG, and the check's note
  // names the first wrong element and the thread that stored it.
  KernelConfig small;
  small.block = {8, 8, 1};
  const LaunchRecord bad = lab->run("custom:matmul_ks", small, {});
  ASSERT_TRUE(bad.ok());
  ASSERT_TRUE(bad.check.failed());
  EXPECT_NE(bad.check.note.find("first wrong element ("), std::string::npos) << bad.check.note;
  EXPECT_NE(bad.check.note.find("stored by thread ("), std::string::npos) << bad.check.note;
  EXPECT_NE(bad.check.note.find(" of block ("), std::string::npos) << bad.check.note;
}

// The editor's tensor-core template (mma.sync.m16n8k16 through the BF16 form's preludes) on the
// CPU simulator: the warp's registers are exchanged by the PTX ISA's layout, so a wrong lane
// gives a wrong value; verified against the double product of the lab's BF16 numbers at an odd
// size. With the lab at fp32 the BF16 form is refused with the setting to change.
TEST_F(UserLab, TheBf16MmaTemplateIsVerifiedOnTheSimulatorAndRefusedAtFp32) {
  const std::uint32_t seed = fresh_seed();
  auto m = matmul::MatmulLab::create(cpu_backend());
  ASSERT_TRUE(m.ok());
  matmul::MatrixSpec spec;
  spec.M = 45, spec.N = 37, spec.K = 29;  // odd: partial 32 x 32 tiles, k not a multiple of 16
  spec.seed = seed;
  ASSERT_TRUE((*m)->set_matrices(spec).ok());
  auto lab = with_user_kernels(std::move(m.value()), matmul_book);
  const std::string src = template_source("matmul_mma_bf16");
  auto* user = lab::layer<UserKernelLab>(*lab);
  ASSERT_NE(user, nullptr);
  const lab::UserForm* form = user->form_of(src);
  ASSERT_NE(form, nullptr);
  EXPECT_EQ(form->id, "matmul_bf16");
  auto refused = user->user_problem(*form);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().hint.find("bf16"), std::string::npos) << refused.status().describe();

  ASSERT_TRUE(lab->set_setting("precision", "bf16").ok());
  const auto* mm = lab::layer<matmul::MatmulLab>(*lab);
  const std::vector<float> a(mm->a().begin(), mm->a().end()), b(mm->b().begin(), mm->b().end());
  TrialResult t = compile_into(*lab, src, {128, 1, 1});
  ASSERT_TRUE(t.runs()) << t.summary();
  KernelConfig cfg;
  cfg.block = {128, 1, 1};
  const LaunchRecord rec = lab->run(t.kernel.id, cfg, {});
  ASSERT_TRUE(rec.ok()) << rec.status.describe();
  EXPECT_TRUE(rec.check.passed()) << rec.check.summary();
  EXPECT_EQ(rec.config.grid, (Dim3{2, 2, 1}));
  EXPECT_DOUBLE_EQ(rec.bytes_moved, matmul::matmul_compulsory_bytes(45, 37, 29, matmul::Precision::Bf16));
  std::vector<float> c(45 * 37);
  ASSERT_TRUE(lab->download_output(c.data()).ok());
  const auto want = product_in_double(a, b, 45, 37, 29);  // a and b: the lab's BF16 numbers
  for (std::size_t e = 0; e < want.size(); ++e) ASSERT_NEAR(c[e], want[e], 1e-4 * 29) << e;
}

TEST_F(UserLab, AnOffByOneGuardIsCaughtWithItsBlockAndThreadAndNeverJoinsTheLab) {
  const int w = 61, h = 37, n = w * h;  // 2257 pixels: thread n exists with block 256
  auto lab = gray_lab(w, h, fresh_seed(), nullptr);
  const std::size_t before = lab->kernels().size();
  const std::string off_by_one =
      R"(__global__ void rgb_to_grayscale_kernel(unsigned char* x, unsigned char* out, int n) {
    int i = blockIdx.x*blockDim.x + threadIdx.x;
    if (i <= n) out[i] = 0.2989*x[i] + 0.5870*x[i+n] + 0.1140*x[i+2*n];
}
)";
  TrialResult t = compile_into(*lab, off_by_one);
  EXPECT_TRUE(t.compile.ok());
  EXPECT_FALSE(t.runs());
  ASSERT_TRUE(t.run && t.run->out_of_bounds);
  // Thread i = n reads x[i + 2n] = x[3n] first.
  const std::string want = "thread (" + std::to_string(n % 256) + ", 0, 0) of block (" + std::to_string(n / 256) +
                           ", 0, 0) accessed x[" + std::to_string(3 * n) + "]";
  EXPECT_NE(t.summary().find(want), std::string::npos) << t.summary();
  EXPECT_EQ(lab->kernels().size(), before) << "a kernel whose launch fails does not join the lab";

  // Installed anyway (as a kernel file for bench would be), its run reports the same.
  lab::layer<UserKernelLab>(*lab)->book().install(t.kernel, t.compile.kernel);
  KernelConfig cfg;
  cfg.block = {256, 1, 1};
  const LaunchRecord rec = lab->run("custom:rgb_to_grayscale_kernel", cfg, {});
  ASSERT_FALSE(rec.ok());
  EXPECT_FALSE(rec.refused);
  EXPECT_EQ(rec.status.code, "out_of_bounds");
  EXPECT_NE(rec.status.message.find(want), std::string::npos) << rec.status.message;
}

TEST_F(UserLab, ASyntaxErrorNamesItsLineAndTheLastWorkingKernelStays) {
  auto lab = gray_lab(40, 30, fresh_seed(), nullptr);
  ASSERT_TRUE(compile_into(*lab, kLectureGray1D).runs());
  const std::string broken =
      "__global__ void rgb_to_grayscale_kernel(unsigned char* x, unsigned char* out, int n) {\n"
      "    int i = blockIdx.x*blockDim.x + threadIdx.x\n"
      "    if (i<n) out[i] = 0.2989*x[i] + 0.5870*x[i+n] + 0.1140*x[i+2*n];\n"
      "}\n";
  TrialResult t = compile_into(*lab, broken);
  ASSERT_FALSE(t.compile.ok());
  EXPECT_EQ(t.summary("my.cu").rfind("my.cu:3:5: error: ", 0), 0u) << t.summary("my.cu");
  // The last working kernel is still the one that runs.
  const auto k = lab::layer<UserKernelLab>(*lab)->book().find("custom:rgb_to_grayscale_kernel");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->source, kLectureGray1D);
  const LaunchRecord rec = lab->run(k->id, lab->default_config(*lab->find_kernel(k->id)), {});
  ASSERT_TRUE(rec.ok());
  EXPECT_TRUE(rec.check.passed());
}

TEST_F(UserLab, AnEndlessLoopIsStoppedAtTheBooksTimeLimit) {
  auto lab = gray_lab(64, 48, fresh_seed(), nullptr);
  auto* user = lab::layer<UserKernelLab>(*lab);
  user->book().set_time_limit_s(0.4);
  const std::string endless = R"(__global__ void spin(unsigned char* x, unsigned char* out, int n) {
    volatile int k = 0;
    while (n > 0) k = k + 1;
}
)";
  TrialResult t = compile_into(*lab, endless);
  ASSERT_TRUE(t.run);
  EXPECT_TRUE(t.run->timed_out);
  EXPECT_FALSE(t.runs());
  EXPECT_NE(t.summary().find("stopped after 0.4 s"), std::string::npos) << t.summary();
  EXPECT_EQ(lab->find_kernel("custom:spin"), nullptr);
  // The lab and its built-in kernels are untouched.
  const LaunchRecord rec = lab->run("gray_2d", {Dim3{16, 16, 1}}, {});
  EXPECT_TRUE(rec.ok() && rec.check.passed());
}

TEST_F(UserLab, BenchRunsAUserKernelBesideTheBuiltInOnesAndTheJsonNamesIt) {
  auto lab = gray_lab(33, 21, fresh_seed(), nullptr);
  ASSERT_TRUE(compile_into(*lab, kLectureGray1D).runs());
  ASSERT_TRUE(lab->set_random_problem("129x65").ok());  // bench's fresh data: the copy follows
  lab::BenchSpec spec;
  spec.kernels = {"custom:rgb_to_grayscale_kernel", "gray_1d_flat"};
  spec.blocks = {Dim3{64, 1, 1}, Dim3{256, 1, 1}};
  spec.timing = TimingPolicy::fixed(3, 1);
  const auto records = lab::run_bench(*lab, spec);
  ASSERT_EQ(records.size(), 4u);
  for (const LaunchRecord& r : records) {
    EXPECT_TRUE(r.ok()) << r.kernel << ": " << r.status.describe();
    EXPECT_TRUE(r.check.passed()) << r.kernel << ": " << r.check.summary();
    EXPECT_EQ(r.timing.repeats(), 3);
    EXPECT_EQ(r.data_width, 129);
  }
  EXPECT_EQ(records[0].kernel, "gray_1d_flat");  // the lab's order: its own, then the user's
  EXPECT_EQ(records[2].kernel, "custom:rgb_to_grayscale_kernel");
  EXPECT_EQ(records[2].problem, records[0].problem) << "user kernels are timed on the same problem";
  lab::ResultsHeader header;
  header.kind = "bench";
  header.lab = "gray";
  const std::string json = lab::results_json(header, records, ThroughputUnit::GBPerS, lab->kernels());
  EXPECT_NE(json.find("custom:rgb_to_grayscale_kernel"), std::string::npos);
}

TEST_F(UserLab, AForkRunsTheKernelsAsTheyWereAndAGridStrideLoopOnAFixedGridMapsAsSuch) {
  auto lab = gray_lab(97, 61, fresh_seed(), nullptr);  // 5917 pixels
  const lab::UserTemplate* gs = gray::user_kernel_spec().find_template("gray_grid_stride");
  auto* user = lab::layer<UserKernelLab>(*lab);
  TrialRequest req;
  req.source = gs->source;
  req.forms = user->spec().forms();
  req.problem = *user->user_problem(*user->form_of(gs->source));
  req.block = gs->block;
  req.fixed_blocks_per_sm = gs->fixed_blocks_per_sm;
  TrialResult t = compile_and_try(*engine, req);
  ASSERT_TRUE(t.runs()) << t.summary();
  user->book().install(t.kernel, t.compile.kernel);
  auto fork = lab->fork();
  ASSERT_TRUE(fork.ok()) << fork.status().describe();
  user->book().remove(t.kernel.id);
  EXPECT_EQ(lab->find_kernel(t.kernel.id), nullptr);
  ASSERT_NE((*fork)->find_kernel(t.kernel.id), nullptr);
  const LaunchRecord rec = (*fork)->run(t.kernel.id, {Dim3{32, 1, 1}}, {});
  ASSERT_TRUE(rec.ok()) << rec.status.describe();
  EXPECT_TRUE(rec.check.passed());
  // 2 blocks per simulator worker (the runner's "SMs"): a grid smaller than the image, which
  // the loop covers.
  const unsigned blocks = 2 * t.compile.kernel->info().limits.sm_count;
  EXPECT_EQ(rec.config.grid, (Dim3{blocks, 1, 1}));
  const long long G = 32LL * blocks, e = 20 * 97 + 10;
  ASSERT_LT(G, 97 * 61);
  EXPECT_EQ(rec.scheme.kind, IndexScheme::Kind::Flat);
  EXPECT_TRUE(rec.scheme.grid_stride);
  auto o = (*fork)->owner(rec, 10, 20);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->thread.global_linear_thread, static_cast<unsigned long long>(e % G));
  EXPECT_EQ(o->pass, e / G);
}

TEST_F(UserLab, UserKernelsAreRefusedOnTheRgbaLayoutAndUnknownIdsAreStatuses) {
  auto lab = gray_lab(20, 20, fresh_seed(), nullptr);
  ASSERT_TRUE(compile_into(*lab, kLectureGray1D).runs());
  ASSERT_TRUE(lab->set_setting("layout", "rgba").ok());
  LaunchRecord rec = lab->run("custom:rgb_to_grayscale_kernel", {Dim3{256, 1, 1}}, {});
  EXPECT_FALSE(rec.ok());
  EXPECT_TRUE(rec.refused);
  EXPECT_NE(rec.status.message.find("planar"), std::string::npos) << rec.status.message;
  rec = lab->run("custom:nope", {Dim3{256, 1, 1}}, {});
  EXPECT_FALSE(rec.ok());
  EXPECT_NE(rec.status.message.find("no user kernel"), std::string::npos);
}

// One measurement path: a user kernel is timed by the lab's one timing policy exactly as the
// lab's own rungs are. Its repeats follow the confidence target, the budget and cancel (before,
// the runner ran max(1, min_repeats) whatever the policy said), each policy giving the user
// kernel the same repeats and warm-ups as the built-in rung beside it.
TEST_F(UserLab, TheRepeatsFollowTheTimingPolicyAsTheBuiltInRungsDo) {
  auto lab = gray_lab(211, 97, fresh_seed(), nullptr);
  ASSERT_TRUE(compile_into(*lab, kLectureGray1D).runs());
  struct Case {
    const char* what;
    TimingPolicy policy;
    bool cancelled;
    int repeats;  // what lab::measure must give: the policy worked out by hand
    int warmup;
  };
  const Case cases[] = {
      // A target no timing meets: the repeats run to max_repeats.
      {"unreachable target", TimingPolicy::until_stable(1e-12, 60000, 3, 9, 2), false, 9, 2},
      // A target any timing meets: min_repeats, then it stops.
      {"met target", TimingPolicy::until_stable(1e9, 60000, 3, 9, 1), false, 3, 1},
      // A budget spent at once: min_repeats, then it stops.
      {"spent budget", TimingPolicy::until_stable(1e-12, 1e-6, 4, 1000, 0), false, 4, 0},
      // Cancelled before it starts: no warm-up, one repeat (a record needs one), then it stops.
      {"cancelled", TimingPolicy::fixed(5, 2), true, 1, 0},
  };
  for (const Case& c : cases)
    for (const char* kernel : {"gray_1d_flat", "custom:rgb_to_grayscale_kernel"}) {
      std::atomic<bool> stop{c.cancelled};
      lab::RunOptions o;
      o.timing = c.policy;
      o.cancel = &stop;
      const LaunchRecord rec = lab->run(kernel, {Dim3{128, 1, 1}}, o);
      ASSERT_TRUE(rec.ok()) << kernel << ": " << rec.status.describe();
      EXPECT_TRUE(rec.check.passed()) << kernel;
      EXPECT_EQ(rec.timing.repeats(), c.repeats) << c.what << ", " << kernel;
      EXPECT_EQ(rec.timing.warmup, c.warmup) << c.what << ", " << kernel;
      EXPECT_TRUE(rec.timing.simulated);
      EXPECT_FALSE(rec.timing.clock.empty());
    }
}

// The counts behind GB/s and GFLOP/s are the lab's own: a user kernel's record carries what
// plan() gives the built-in kernels on the same problem (before, the custom lab counted again and
// a grayscale user kernel had 0 FLOPs where the rungs have 5 per pixel).
TEST_F(UserLab, AUserKernelsBytesAndFlopsAreTheLabsOwnCounts) {
  const int w = 83, h = 59;
  auto gl = gray_lab(w, h, fresh_seed(), nullptr);
  ASSERT_TRUE(compile_into(*gl, kLectureGray1D).runs());
  const LaunchRecord rung = gl->plan("gray_1d_flat", {Dim3{256, 1, 1}});
  const LaunchRecord mine = gl->run("custom:rgb_to_grayscale_kernel", {Dim3{256, 1, 1}}, {});
  ASSERT_TRUE(mine.ok()) << mine.status.describe();
  EXPECT_DOUBLE_EQ(mine.flops, 5.0 * w * h);  // 2 FMAs and a multiply per pixel, counted here
  EXPECT_DOUBLE_EQ(mine.flops, rung.flops);
  EXPECT_DOUBLE_EQ(mine.bytes_moved, 4.0 * w * h);  // planar: 3 read + 1 written per pixel
  EXPECT_DOUBLE_EQ(mine.bytes_moved, rung.bytes_moved);
  EXPECT_EQ(mine.bytes_note, rung.bytes_note);
  EXPECT_EQ(mine.problem, rung.problem);

  auto m = matmul::MatmulLab::create(cpu_backend());
  ASSERT_TRUE(m.ok());
  matmul::MatrixSpec spec;
  spec.M = 21, spec.N = 35, spec.K = 13;
  spec.seed = fresh_seed();
  ASSERT_TRUE((*m)->set_matrices(spec).ok());
  auto ml = with_user_kernels(std::move(m.value()), matmul_book);
  ASSERT_TRUE(compile_into(*ml, kLectureMatmul, {16, 16, 1}).runs());
  const LaunchRecord k1 = ml->plan("k1_naive", {Dim3{16, 16, 1}});
  const LaunchRecord mm = ml->run("custom:matmul_k", {Dim3{16, 16, 1}}, {});
  ASSERT_TRUE(mm.ok()) << mm.status.describe();
  EXPECT_TRUE(mm.check.passed()) << mm.check.summary();
  EXPECT_DOUBLE_EQ(mm.flops, 2.0 * 21 * 35 * 13);
  EXPECT_DOUBLE_EQ(mm.flops, k1.flops);
  EXPECT_DOUBLE_EQ(mm.bytes_moved, 4.0 * (21 * 13 + 13 * 35 + 21 * 35));
  EXPECT_DOUBLE_EQ(mm.bytes_moved, k1.bytes_moved);
}

// The simulator has no L2: a policy asking for a flush gives a record that says not flushed,
// as the built-in rungs' CPU records would never be cold-cache timings either.
TEST_F(UserLab, OnTheSimulatorAFlushIsNeverClaimed) {
  auto lab = gray_lab(40, 30, fresh_seed(), nullptr);
  ASSERT_TRUE(compile_into(*lab, kLectureGray1D).runs());
  lab::RunOptions o;
  o.timing = TimingPolicy::fixed(3, 1);
  o.timing.flush_l2 = true;
  const LaunchRecord rec = lab->run("custom:rgb_to_grayscale_kernel", {Dim3{64, 1, 1}}, o);
  ASSERT_TRUE(rec.ok()) << rec.status.describe();
  EXPECT_EQ(rec.timing.repeats(), 3);
  EXPECT_FALSE(rec.timing.l2_flushed);
}

// The spec comes with the lab, and the wrapped lab passes it on (views and the editor find it
// through any layer).
TEST_F(UserLab, TheWrappedLabOffersTheSpecOfTheLabItWraps) {
  auto g = gray::GrayLab::create(cpu_backend());
  ASSERT_TRUE(g.ok());
  const lab::UserKernelSpec* spec = (*g)->user_kernel_spec();
  ASSERT_EQ(spec, &gray::user_kernel_spec());
  auto wrapped = with_user_kernels(std::move(g.value()), gray_book);
  ASSERT_NE(lab::layer<UserKernelLab>(*wrapped), nullptr);
  EXPECT_EQ(wrapped->user_kernel_spec(), spec);
  EXPECT_EQ(&lab::layer<UserKernelLab>(*wrapped)->spec(), spec);
}

// The closed forms, checked against owners built by enumerating threads (no scheme arithmetic).
TEST(ClosedFormScheme, RecognisesEachMappingAndNothingElse) {
  const long long w = 19, h = 11;
  auto owners_by = [&](LaunchConfig c, auto store) {
    OwnerMap m;
    m.width = w, m.height = h;
    m.thread.assign(static_cast<std::size_t>(w * h), OwnerMap::kNobody);
    const unsigned T = c.block.volume();
    for (unsigned by = 0; by < c.grid.y; ++by)
      for (unsigned bx = 0; bx < c.grid.x; ++bx)
        for (unsigned ty = 0; ty < c.block.y; ++ty)
          for (unsigned tx = 0; tx < c.block.x; ++tx) {
            const std::uint32_t id = (bx + c.grid.x * by) * T + tx + c.block.x * ty;
            store(m, bx * c.block.x + tx, by * c.block.y + ty, id);
          }
    return m;
  };
  LaunchConfig flat{{4, 1, 1}, {64, 1, 1}};
  auto m1 = owners_by(flat, [&](OwnerMap& m, long long gx, long long, std::uint32_t id) {
    if (gx < w * h) m.thread[gx] = id;
  });
  EXPECT_EQ(closed_form_scheme(flat, m1)->kind, IndexScheme::Kind::Flat);
  LaunchConfig small{{2, 1, 1}, {32, 1, 1}};
  auto m2 = owners_by(small, [&](OwnerMap& m, long long gx, long long, std::uint32_t id) {
    for (long long e = gx; e < w * h; e += 64) m.thread[e] = id;
  });
  auto s2 = closed_form_scheme(small, m2);
  ASSERT_TRUE(s2);
  EXPECT_TRUE(s2->grid_stride);
  LaunchConfig two{{3, 2, 1}, {8, 8, 1}};
  auto m3 = owners_by(two, [&](OwnerMap& m, long long x, long long y, std::uint32_t id) {
    if (x < w && y < h) m.thread[y * w + x] = id;
  });
  EXPECT_EQ(closed_form_scheme(two, m3)->kind, IndexScheme::Kind::Grid2D);
  LaunchConfig tr{{2, 3, 1}, {8, 8, 1}};
  auto m4 = owners_by(tr, [&](OwnerMap& m, long long gx, long long gy, std::uint32_t id) {
    if (gx < h && gy < w) m.thread[gx * w + gy] = id;
  });
  EXPECT_EQ(closed_form_scheme(tr, m4)->kind, IndexScheme::Kind::Grid2DTransposed);
  m3.thread[5] = m3.thread[6];  // one element stored by another thread: no closed form
  EXPECT_FALSE(closed_form_scheme(two, m3));
}

}  // namespace
}  // namespace bs::custom
