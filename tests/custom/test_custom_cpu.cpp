// User kernels on the CPU simulator, end to end: the host compiler, the runner process, the
// simulator, the views, verification and ownership. Every reference here is computed by the test
// itself, in double precision, with no grid.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>

#include "custom_test_support.hpp"
#include "labs/custom/protocol.hpp"
#include "mapping/launch_stats.hpp"

namespace bs::custom {
namespace {

using namespace test;

class CustomCpu : public ::testing::Test {
 protected:
  TempDir cache;
  Engine engine{options_with_cache(cache.path)};

  std::shared_ptr<CustomKernel> compile(const std::string& src, std::span<const lab::UserForm> forms) {
    CompileResult c = engine.compile(src, forms, Target::Cpu);
    EXPECT_TRUE(c.ok()) << diagnostics_text(c);
    return c.kernel;
  }
};

TEST_F(CustomCpu, LecturesGray1DPastedVerbatimMatchesADoubleReferenceOnTheSample) {
  const PlanarImage img = sample_image();
  ASSERT_GT(img.w, 0) << "cannot decode assets/sample_astronaut.png";
  auto problem = gray_problem(img);
  ASSERT_TRUE(problem.ok()) << problem.status().describe();

  // Edit to result: compile (cold cache) plus the first verified run.
  const auto t0 = std::chrono::steady_clock::now();
  CompileResult c = engine.compile(kLectureGray1D, gray_forms(), Target::Cpu);
  ASSERT_TRUE(c.ok()) << diagnostics_text(c);
  const double compile_ms = ms_since(t0);
  RunRequest req;
  req.block = {256, 1, 1};
  RunOutcome r = c.kernel->run(*problem, req);
  const double total_ms = ms_since(t0);
  ASSERT_TRUE(r.record.ok()) << r.record.status.describe();
  std::printf(
      "[ timing ] CPU edit-to-result, lecture gray 1D on the %d x %d sample: compile %.0f ms "
      "(%s; compiler %.0f ms), first verified run %.0f ms, total %.0f ms\n",
      img.w, img.h, compile_ms, c.kernel->info().compiler.c_str(), c.kernel->info().compile_ms, r.wall_ms, total_ms);

  EXPECT_EQ(c.kernel->info().name, "rgb_to_grayscale_kernel");
  EXPECT_EQ(c.kernel->info().form.id, "gray_1d");
  EXPECT_EQ(r.record.config.grid, (Dim3{static_cast<unsigned>((img.w * img.h + 255) / 256), 1, 1}));
  EXPECT_TRUE(r.record.check.passed()) << r.record.check.summary();
  const auto ref = gray_in_double(img);
  ASSERT_EQ(r.output.size(), ref.size());
  std::size_t off = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    ASSERT_LE(std::abs(int(r.output[i]) - int(ref[i])), 1) << "pixel " << i;
    off += r.output[i] != ref[i];
  }
  EXPECT_LE(off, ref.size() / 100);
  // The recorded owners: the lecture's 1D kernel gives pixel i to global thread i.
  ASSERT_TRUE(r.record.owners);
  EXPECT_EQ(r.record.scheme.kind, IndexScheme::Kind::Recorded);
  for (std::size_t i = 0; i < ref.size(); ++i) ASSERT_EQ(r.record.owners->thread[i], i);
  EXPECT_EQ(r.record.timing.repeats(), 1);
  EXPECT_TRUE(r.record.timing.simulated);
}

TEST_F(CustomCpu, Lectures2DKernelOnAnOddImageWithTheScheduleAndOwners) {
  const std::uint32_t seed = fresh_seed();
  const PlanarImage img = random_image(97, 61, seed);
  auto problem = gray_problem(img, "gray_2d");
  ASSERT_TRUE(problem.ok());
  auto k = compile(kLectureGray2D, gray_forms());
  ASSERT_TRUE(k);
  EXPECT_EQ(k->info().form.id, "gray_2d");
  RunRequest req;
  req.block = {16, 8, 1};
  req.trace = true;
  req.timing = TimingPolicy::fixed(3, 1);
  RunOutcome r = k->run(*problem, req);
  ASSERT_TRUE(r.record.ok()) << r.record.status.describe();
  EXPECT_TRUE(r.record.check.passed()) << r.record.check.summary() << " seed " << seed;
  EXPECT_EQ(r.record.config.grid, (Dim3{7, 8, 1}));
  EXPECT_EQ(r.record.timing.repeats(), 3);
  // One schedule entry per block, each naming its block.
  ASSERT_EQ(r.record.schedule.size(), 56u);
  for (std::size_t b = 0; b < 56; ++b)
    EXPECT_EQ(r.record.schedule[b].block, (Dim3{static_cast<unsigned>(b % 7), static_cast<unsigned>(b / 7), 0}));
  EXPECT_TRUE(r.record.schedule_simulated);
  // Owner of (c, r): block (c/16, r/8), thread (c%16, r%8).
  for (int y = 0; y < img.h; ++y)
    for (int x = 0; x < img.w; ++x) {
      const unsigned block = static_cast<unsigned>(x / 16 + 7 * (y / 8));
      const unsigned thread = static_cast<unsigned>(x % 16 + 16 * (y % 8));
      ASSERT_EQ(r.record.owners->thread[static_cast<std::size_t>(y) * img.w + x], block * 128 + thread);
    }
}

TEST_F(CustomCpu, LecturesMatmulMatchesADoubleProductOnOddSizes) {
  const std::uint32_t seed = fresh_seed();
  const int h = 37, w = 29, kk = 53;
  const auto m = random_matrix(h, kk, seed), n = random_matrix(kk, w, seed + 1);
  auto problem = matmul_problem(m, n, h, w, kk);
  ASSERT_TRUE(problem.ok()) << problem.status().describe();
  auto k = compile(kLectureMatmul, matmul_forms());
  ASSERT_TRUE(k);
  RunRequest req;
  req.block = {8, 16, 1};
  RunOutcome r = k->run(*problem, req);
  ASSERT_TRUE(r.record.ok()) << r.record.status.describe();
  EXPECT_EQ(r.record.config.grid, (Dim3{4, 3, 1}));
  EXPECT_TRUE(r.record.check.passed()) << r.record.check.summary();
  const auto want = product_in_double(m, n, h, w, kk);
  const auto got = floats_of(r.output);
  for (std::size_t e = 0; e < want.size(); ++e)
    ASSERT_NEAR(got[e], want[e], 1e-4 * kk) << "element " << e << " seed " << seed;
  EXPECT_DOUBLE_EQ(r.record.flops, 2.0 * h * w * kk);
}

TEST_F(CustomCpu, TiledMatmulWithSharedMemoryAndBarriersWorks) {
  const std::uint32_t seed = fresh_seed();
  const int h = 45, w = 38, kk = 70;  // no multiple of the 16-wide tile
  const auto m = random_matrix(h, kk, seed), n = random_matrix(kk, w, seed + 1);
  auto problem = matmul_problem(m, n, h, w, kk);
  ASSERT_TRUE(problem.ok());
  auto k = compile(template_source("matmul_tiled"), matmul_forms());
  ASSERT_TRUE(k);
  EXPECT_TRUE(k->info().uses_barriers);
  EXPECT_GE(k->info().cpu_shared_bytes, 2u * 16 * 16 * sizeof(float));
  RunRequest req;
  req.block = {16, 16, 1};
  RunOutcome r = k->run(*problem, req);
  ASSERT_TRUE(r.record.ok()) << r.record.status.describe();
  EXPECT_TRUE(r.record.check.passed()) << r.record.check.summary();
  const auto want = product_in_double(m, n, h, w, kk);
  const auto got = floats_of(r.output);
  for (std::size_t e = 0; e < want.size(); ++e) ASSERT_NEAR(got[e], want[e], 1e-4 * kk) << e;

  // The same kernel with 8 x 8 blocks multiplies wrong tiles: the check fails and each wrong
  // element names the block and thread that stored it.
  req.block = {8, 8, 1};
  RunOutcome bad = k->run(*problem, req);
  ASSERT_TRUE(bad.record.ok()) << bad.record.status.describe();
  EXPECT_TRUE(bad.record.check.failed());
  ASSERT_FALSE(bad.wrong.empty());
  for (const WrongElement& e : bad.wrong) {
    ASSERT_TRUE(e.owner_known);
    ASSERT_TRUE(e.written);
    EXPECT_EQ(e.block.x * 8 + e.thread.x, e.x);  // the lecture's c and r
    EXPECT_EQ(e.block.y * 8 + e.thread.y, e.y);
  }
}

TEST_F(CustomCpu, SharedMemoryIsOnePerBlockAndFreshForEachBlock) {
  // Every thread stores its input byte in the block's tile; after the barrier each reads its
  // mirror's. Thread 0 also reports whether the block's `seen` started fresh (0xFF bytes: -1).
  const std::string src = R"(
__global__ void k(unsigned char* x, unsigned char* out, int n) {
    __shared__ unsigned char tile[64];
    __shared__ int seen;
    int i = blockIdx.x*blockDim.x + threadIdx.x;
    int fresh = seen == -1;
    __syncthreads();
    if (threadIdx.x == 0) seen = 7;
    tile[threadIdx.x] = i < n ? x[i] : 0;
    __syncthreads();
    if (i < n) out[i] = threadIdx.x == 0 ? (unsigned char)(200 + fresh) : tile[blockDim.x - 1 - threadIdx.x];
}
)";
  const PlanarImage img = random_image(64, 9, fresh_seed());  // 576 pixels: 9 blocks of 64
  auto problem = gray_problem(img);
  auto k = compile(src, gray_forms());
  ASSERT_TRUE(k);
  RunRequest req;
  req.block = {64, 1, 1};
  req.verify = false;
  req.workers = 1;  // one worker runs every block: stale storage would show from block 1 on
  RunOutcome r = k->run(*problem, req);
  ASSERT_TRUE(r.record.ok()) << r.record.status.describe();
  for (int b = 0; b < 9; ++b)
    for (int t = 0; t < 64; ++t) {
      const int i = b * 64 + t;
      if (t == 0) ASSERT_EQ(r.output[i], 201) << "block " << b << " did not start from fresh shared memory";
      else ASSERT_EQ(r.output[i], img.planar[b * 64 + 63 - t]) << "block " << b << " thread " << t;
    }
}

// The Launch tab's "shared / block" and its occupancy read the record's static shared memory: on
// the CPU simulator that is the kernel's own __shared__ variables, as CUDA allocates them (the
// unit's thread-local block also holds the prelude's variables and was reported instead, or
// nothing: issue 36 item 7). A kernel with 11000 floats of tiles is then limited by shared
// memory, as the same kernel is on a GPU.
TEST_F(CustomCpu, TheRecordCarriesTheKernelsStaticSharedMemoryAndOccupancyFollowsIt) {
  const std::string small = R"(
__global__ void k(unsigned char* x, unsigned char* out, int n) {
    __shared__ float ms[16][16], ns[16][16];
    int i = blockIdx.x*blockDim.x + threadIdx.x;
    ms[threadIdx.x % 16][0] = 1.0f; ns[0][threadIdx.x % 16] = 2.0f;
    __syncthreads();
    if (i < n) out[i] = (unsigned char)(ms[threadIdx.x % 16][0] + ns[0][threadIdx.x % 16]);
}
)";
  const std::string big = R"(
__global__ void k(unsigned char* x, unsigned char* out, int n) {
    __shared__ float tiles[11000];
    __shared__ int count;
    int i = blockIdx.x*blockDim.x + threadIdx.x;
    if (threadIdx.x == 0) count = 0;
    tiles[threadIdx.x] = 1.0f;
    __syncthreads();
    if (i < n) out[i] = (unsigned char)(tiles[threadIdx.x] + count);
}
)";
  const PlanarImage img = random_image(67, 5, fresh_seed());
  auto problem = gray_problem(img);
  struct Case {
    const std::string* src;
    std::size_t bytes;
  };
  for (const Case& c : {Case{&small, 2 * 16 * 16 * sizeof(float)}, Case{&big, 11000 * sizeof(float) + sizeof(int)}}) {
    auto k = compile(*c.src, gray_forms());
    ASSERT_TRUE(k);
    RunRequest req;
    req.block = {128, 1, 1};
    req.verify = false;
    RunOutcome r = k->run(*problem, req);
    ASSERT_TRUE(r.record.ok()) << r.record.status.describe();
    EXPECT_EQ(r.record.attributes.static_shared_bytes, c.bytes);
    EXPECT_GT(k->info().cpu_shared_bytes, 0u);
    // Occupancy on the default CUDA limits, from the record as the Launch tab computes it.
    const DeviceLimits sm90 = DeviceLimits::cuda_defaults();
    const auto st = mapping::compute_stats(r.record.scheme, r.record.config, r.record.data_width, r.record.data_height,
                                           r.record.attributes, sm90, r.record.owners.get());
    EXPECT_EQ(st.shared_per_block, c.bytes);
    if (c.bytes > 40000) {
      // 128 threads: 16 blocks by threads; shared memory allows far fewer.
      EXPECT_LT(st.occupancy.blocks_by_shared_memory, st.occupancy.blocks_by_threads);
      EXPECT_EQ(st.occupancy.active_blocks_per_sm, st.occupancy.blocks_by_shared_memory);
    }
  }
}

TEST_F(CustomCpu, ASyntaxErrorIsReportedAtItsLineAndColumn) {
  const std::string src =
      "__global__ void rgb_to_grayscale_kernel(unsigned char* x, unsigned char* out, int n) {\n"
      "    int i = blockIdx.x*blockDim.x + threadIdx.x\n"
      "    if (i<n) out[i] = 0.2989*x[i] + 0.5870*x[i+n] + 0.1140*x[i+2*n];\n"
      "    float unused_value = undeclared_thing;\n"
      "}\n";
  CompileResult c = engine.compile(src, gray_forms(), Target::Cpu);
  ASSERT_FALSE(c.ok());
  std::vector<Diagnostic> errors;
  for (const Diagnostic& d : c.diagnostics)
    if (d.is_error()) errors.push_back(d);
  ASSERT_GE(errors.size(), 2u) << diagnostics_text(c);
  // g++: "expected ',' or ';' before 'if'" at line 3 column 5, "'undeclared_thing' was not
  // declared" at line 4 column 26.
  EXPECT_EQ(errors[0].line, 3) << describe(errors[0]);
  EXPECT_EQ(errors[0].column, 5) << describe(errors[0]);
  EXPECT_EQ(errors[1].line, 4) << describe(errors[1]);
  EXPECT_EQ(errors[1].column, 26) << describe(errors[1]);
  EXPECT_NE(errors[1].message.find("undeclared_thing"), std::string::npos);
  EXPECT_NE(c.status.message.find("errors compiling for the CPU simulator"), std::string::npos);

  // An error after the rewritten parameter list on the signature's own line keeps its column.
  const std::string sig = "__global__ void k(unsigned char* x, unsigned char* out, int n) { int q = nope; }\n";
  CompileResult s = engine.compile(sig, gray_forms(), Target::Cpu);
  ASSERT_FALSE(s.ok());
  bool found = false;
  for (const Diagnostic& d : s.diagnostics)
    if (d.is_error() && d.message.find("nope") != std::string::npos) {
      found = true;
      EXPECT_EQ(d.line, 1);
      EXPECT_EQ(d.column, static_cast<int>(sig.find("nope")) + 1) << describe(d);
    }
  EXPECT_TRUE(found) << diagnostics_text(s);
}

TEST_F(CustomCpu, AWrongSignatureIsRefusedBeforeCompiling) {
  CompileResult c =
      engine.compile("__global__ void k(float* x, unsigned char* out, int n) { }\n", gray_forms(), Target::Cpu);
  ASSERT_FALSE(c.ok());
  ASSERT_EQ(c.diagnostics.size(), 1u);
  EXPECT_EQ(c.diagnostics[0].line, 1);
  EXPECT_NE(c.diagnostics[0].message.find("parameter 1 `float* x` should be `unsigned char* x`"), std::string::npos)
      << c.diagnostics[0].message;
  EXPECT_EQ(c.status.code, "signature");
}

TEST_F(CustomCpu, AnOffByOneGuardIsCaughtWithBlockThreadIndexAndSize) {
  const std::string src = R"(__global__ void rgb_to_grayscale_kernel(unsigned char* x, unsigned char* out, int n) {
    int i = blockIdx.x*blockDim.x + threadIdx.x;
    if (i<=n) out[i] = 0.2989*x[i] + 0.5870*x[i+n] + 0.1140*x[i+2*n];
}
)";
  const PlanarImage img = random_image(61, 37, fresh_seed());  // n = 2257, not a multiple of 256
  const int n = img.w * img.h;
  auto problem = gray_problem(img);
  auto k = compile(src, gray_forms());
  ASSERT_TRUE(k);
  RunRequest req;
  req.block = {256, 1, 1};
  RunOutcome r = k->run(*problem, req);
  ASSERT_FALSE(r.record.ok());
  EXPECT_EQ(r.record.status.code, "out_of_bounds");
  ASSERT_TRUE(r.out_of_bounds);
  const OutOfBoundsReport& o = *r.out_of_bounds;
  // Thread i = n reads x[i + 2n] = x[3n] first (the store to out[n] comes after the reads).
  EXPECT_EQ(o.buffer, "x");
  EXPECT_EQ(o.index, 3LL * n);
  EXPECT_EQ(o.count, 3LL * n);
  EXPECT_EQ(o.block, (Dim3{static_cast<unsigned>(n / 256), 0, 0}));
  EXPECT_EQ(o.thread, (Dim3{static_cast<unsigned>(n % 256), 0, 0}));
  EXPECT_NE(r.record.status.message.find("x[" + std::to_string(3 * n) + "], but x has " + std::to_string(3 * n) +
                                         " elements"),
            std::string::npos)
      << r.record.status.message;
  EXPECT_FALSE(r.runner_failed);  // a clean stop, not a crash

  // A write past out is named as a write.
  const std::string store = R"(__global__ void k(unsigned char* x, unsigned char* out, int n) {
    int i = blockIdx.x*blockDim.x + threadIdx.x;
    if (i < n) out[i + 1] = x[i];
}
)";
  auto ks = compile(store, gray_forms());
  RunOutcome s = ks->run(*problem, req);
  ASSERT_TRUE(s.out_of_bounds);
  EXPECT_EQ(s.out_of_bounds->buffer, "out");
  EXPECT_EQ(s.out_of_bounds->access, "write");
  EXPECT_EQ(s.out_of_bounds->index, n);

  // The parent and its data are untouched: the lecture's kernel runs right on the same problem.
  auto good = compile(kLectureGray1D, gray_forms());
  RunOutcome ok = good->run(*problem, req);
  ASSERT_TRUE(ok.record.ok());
  EXPECT_TRUE(ok.record.check.passed());
}

TEST_F(CustomCpu, AnEndlessLoopIsStoppedAtTheTimeLimitAndTheNextRunWorks) {
  // Spins forever on big images only, so the same kernel can then run on a small one.
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
  req.block = {128, 1, 1};
  req.time_limit_s = 0.5;
  const auto t0 = std::chrono::steady_clock::now();
  RunOutcome r = k->run(*pbig, req);
  std::printf("[ timing ] CPU endless loop stopped after %.0f ms\n", ms_since(t0));
  ASSERT_FALSE(r.record.ok());
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.record.status.code, "timeout");
  EXPECT_NE(r.record.status.message.find("stopped after 0.5 s: the kernel did not finish (endless loop?)"),
            std::string::npos)
      << r.record.status.message;

  RunOutcome next = k->run(*psmall, req);
  ASSERT_TRUE(next.record.ok()) << next.record.status.describe();
  EXPECT_TRUE(next.runner_restarted);
  EXPECT_TRUE(next.record.check.passed());
}

TEST_F(CustomCpu, AKernelThatCrashesItsProcessIsReportedAndTheNextRunWorks) {
  // Through a raw pointer (a view converted to unsigned char*) the checks are gone, as on a GPU.
  const std::string src = R"(__global__ void k(unsigned char* x, unsigned char* out, int n) {
    unsigned char* p = out;
    int i = blockIdx.x*blockDim.x + threadIdx.x;
    if (i == 0) p[-(1LL << 40)] = 1;
}
)";
  auto k = compile(src, gray_forms());
  ASSERT_TRUE(k);
  const PlanarImage img = random_image(30, 20, 3);
  auto problem = gray_problem(img);
  RunRequest req;
  RunOutcome r = k->run(*problem, req);
  ASSERT_FALSE(r.record.ok());
  EXPECT_TRUE(r.runner_failed);
  EXPECT_EQ(r.record.status.code, "runner_died");
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer's own SEGV handler reports the fault and exits with code 1.
  EXPECT_NE(r.record.status.message.find("exited with code"), std::string::npos) << r.record.status.message;
#else
  EXPECT_NE(r.record.status.message.find("SIGSEGV"), std::string::npos) << r.record.status.message;
#endif

  auto good = compile(kLectureGray1D, gray_forms());
  RunOutcome ok = good->run(*problem, req);
  ASSERT_TRUE(ok.record.ok());
  EXPECT_TRUE(ok.record.check.passed());
}

TEST_F(CustomCpu, AMissingHostCompilerSaysWhichBackendAndWhatToInstall) {
  EngineOptions o = options_with_cache(cache.path);
  o.host_compiler = "/nonexistent/bin/c++";
  Engine no_cxx(o);
  CompileResult c = no_cxx.compile(kLectureGray1D, gray_forms(), Target::Cpu);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status.code, "no_host_compiler");
  EXPECT_NE(c.status.message.find("the CPU simulator cannot compile"), std::string::npos);
  EXPECT_NE(c.status.hint.find("apt install g++"), std::string::npos);
  ASSERT_FALSE(c.diagnostics.empty());
  const auto compilers = no_cxx.available_compilers();
  EXPECT_FALSE(compilers[0].available);
  EXPECT_NE(compilers[0].message.find("apt install g++"), std::string::npos);

  // The same through the environment, as a user without g++ would see it.
  setenv("BLOCKSCOPE_CXX", "/nonexistent/g++", 1);
  Engine env_engine(options_with_cache(cache.path));
  CompileResult e = env_engine.compile(kLectureGray1D, gray_forms(), Target::Cpu);
  unsetenv("BLOCKSCOPE_CXX");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status.message.find("BLOCKSCOPE_CXX"), std::string::npos);
}

TEST_F(CustomCpu, TheCacheAvoidsRecompilingAnUnchangedKernel) {
  CompileResult a = engine.compile(kLectureGray1D, gray_forms(), Target::Cpu);
  ASSERT_TRUE(a.ok());
  EXPECT_FALSE(a.kernel->info().cache_hit);
  CompileResult b = engine.compile(kLectureGray1D, gray_forms(), Target::Cpu);
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b.kernel->info().cache_hit);
  std::printf("[ timing ] CPU compile: cold %.0f ms, cached %.1f ms\n", a.kernel->info().compile_ms,
              b.kernel->info().compile_ms);
  CompileResult c = engine.compile(std::string(kLectureGray1D) + "// edited\n", gray_forms(), Target::Cpu);
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c.kernel->info().cache_hit);
  // Warnings survive a cache hit (they come from the stored log).
  const std::string warn = "__global__ void k(unsigned char* x, unsigned char* out, int n) { int unused_q; }\n";
  CompileResult w1 = engine.compile(warn, gray_forms(), Target::Cpu);
  CompileResult w2 = engine.compile(warn, gray_forms(), Target::Cpu);
  ASSERT_TRUE(w1.ok() && w2.ok());
  auto warnings = [](const CompileResult& r) {
    int n = 0;
    for (const Diagnostic& d : r.diagnostics) n += d.severity == Diagnostic::Severity::Warning;
    return n;
  };
  EXPECT_GE(warnings(w1), 1);
  EXPECT_EQ(warnings(w1), warnings(w2));
}

TEST_F(CustomCpu, AFixedGridRunsAGridStrideLoop) {
  auto k = compile(template_source("gray_grid_stride"), gray_forms());
  ASSERT_TRUE(k);
  const PlanarImage img = random_image(101, 77, fresh_seed());
  auto problem = gray_problem(img);
  RunRequest req;
  req.block = {64, 1, 1};
  req.grid = GridRule::fixed_grid({5, 1, 1});
  RunOutcome r = k->run(*problem, req);
  ASSERT_TRUE(r.record.ok()) << r.record.status.describe();
  EXPECT_EQ(r.record.config.grid, (Dim3{5, 1, 1}));
  EXPECT_TRUE(r.record.check.passed()) << r.record.check.summary();
  // Pixel i belongs to thread i mod 320 (5 blocks of 64).
  for (std::size_t i = 0; i < r.output.size(); ++i) ASSERT_EQ(r.record.owners->thread[i], i % 320);

  // The lecture's 1D kernel on the same too-small grid leaves pixels unwritten: the check fails
  // and names them as written by nobody.
  auto lecture = compile(kLectureGray1D, gray_forms());
  RunOutcome partial = lecture->run(*problem, req);
  ASSERT_TRUE(partial.record.ok());
  EXPECT_TRUE(partial.record.check.failed());
  ASSERT_FALSE(partial.wrong.empty());
  EXPECT_EQ(partial.wrong[0].x + partial.wrong[0].y * img.w, 320);
  EXPECT_TRUE(partial.wrong[0].owner_known);
  EXPECT_FALSE(partial.wrong[0].written);
}

TEST_F(CustomCpu, RefusedLaunchesAndWrongLabsAreStatusesNotCrashes) {
  auto k = compile(kLectureGray1D, gray_forms());
  const PlanarImage img = random_image(16, 16, 4);
  auto problem = gray_problem(img);
  RunRequest req;
  req.block = {512, 4, 1};
  RunOutcome r = k->run(*problem, req);
  EXPECT_FALSE(r.record.ok());
  EXPECT_NE(r.record.status.message.find("at most 1024"), std::string::npos) << r.record.status.message;
  const auto m = random_matrix(4, 4, 1);
  auto mm = matmul_problem(m, m, 4, 4, 4);
  RunOutcome wrong_lab = k->run(*mm, RunRequest{});
  EXPECT_FALSE(wrong_lab.record.ok());
  EXPECT_NE(wrong_lab.record.status.message.find("takes form gray_1d, the problem is packed for matmul"),
            std::string::npos)
      << wrong_lab.record.status.message;
  auto g2 = gray_problem(img, "gray_2d");
  RunOutcome wrong_form = k->run(*g2, RunRequest{});
  EXPECT_FALSE(wrong_form.record.ok());
}

// The schedule (and the owners) come from one more launch, after the timed ones and untimed: a
// timed launch does the kernel's work and nothing else (before, the CPU runner recorded the
// schedule during its last timed repeat). Counted by the kernel itself: thread 0 adds one to
// x[0] each launch (its runner's private copy of the input, kept between launches) and writes it
// to out[0].
TEST_F(CustomCpu, TheScheduleAndTheOwnersComeFromOneMoreUntimedLaunch) {
  const std::string src = R"(__global__ void count(unsigned char* x, unsigned char* out, int n) {
    int i = blockIdx.x*blockDim.x + threadIdx.x;
    if (i == 0) { x[0] = x[0] + 1; out[0] = x[0]; }
    else if (i < n) out[i] = x[i];
}
)";
  const PlanarImage img = random_image(37, 23, fresh_seed());
  auto problem = gray_problem(img);
  auto k = compile(src, gray_forms());
  ASSERT_TRUE(k);
  unsigned launches = 0;  // so far, in this runner
  auto run = [&](bool trace, bool owners, int repeats, int warmup) {
    RunRequest req;
    req.block = {64, 1, 1};
    req.timing = TimingPolicy::fixed(repeats, warmup);
    req.trace = trace;
    req.record_owners = owners;
    req.verify = false;
    RunOutcome r = k->run(*problem, req);
    EXPECT_TRUE(r.record.ok()) << r.record.status.describe();
    EXPECT_FALSE(r.runner_restarted && launches > 0);
    EXPECT_EQ(r.record.timing.repeats(), repeats);
    EXPECT_EQ(r.record.timing.warmup, warmup);
    return r;
  };
  RunOutcome plain = run(false, false, 4, 2);
  launches += 6;
  EXPECT_EQ(plain.output[0], static_cast<std::uint8_t>(img.planar[0] + launches));
  EXPECT_TRUE(plain.record.schedule.empty());
  EXPECT_FALSE(plain.record.owners);

  RunOutcome traced = run(true, false, 4, 2);
  launches += 6 + 1;  // the timed ones, then the traced one
  EXPECT_EQ(traced.output[0], static_cast<std::uint8_t>(img.planar[0] + launches));
  EXPECT_EQ(traced.record.schedule.size(), static_cast<std::size_t>((37 * 23 + 63) / 64));
  EXPECT_TRUE(traced.record.schedule_simulated);

  RunOutcome owned = run(false, true, 3, 0);
  launches += 3 + 1;  // the owners come from the untimed launch too
  EXPECT_EQ(owned.output[0], static_cast<std::uint8_t>(img.planar[0] + launches));
  ASSERT_TRUE(owned.record.owners);
  EXPECT_EQ(owned.record.owners->thread[5], 5u);
  EXPECT_TRUE(owned.record.schedule.empty());

  // A replay for owners only (the GPU lab's who-stores-what): the observing launch alone.
  RunRequest replay;
  replay.block = {64, 1, 1};
  replay.timed = false;
  replay.verify = false;
  RunOutcome r = k->run(*problem, replay);
  ASSERT_TRUE(r.record.ok()) << r.record.status.describe();
  launches += 1;
  EXPECT_EQ(r.output[0], static_cast<std::uint8_t>(img.planar[0] + launches));
  EXPECT_EQ(r.record.timing.repeats(), 0);
  ASSERT_TRUE(r.record.owners);
  EXPECT_EQ(r.record.owners->thread[7], 7u);
}

// A runner that speaks another protocol version (a stale blockscope-kernel-runner left next to a
// newer blockscope) is refused with both versions named, and nothing runs on it.
TEST_F(CustomCpu, AStaleRunnerIsRefusedNamingBothProtocolVersions) {
  EngineOptions o = options_with_cache(cache.path);
  o.runner = BS_STALE_RUNNER_PATH;
  o.keep_spare_runners = false;
  Engine stale(o);
  CompileResult c = stale.compile(kLectureGray1D, gray_forms(), Target::Cpu);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status.code, "protocol_version");
  EXPECT_NE(c.status.message.find("speaks protocol version 1"), std::string::npos) << c.status.message;
  EXPECT_NE(c.status.message.find("this blockscope speaks version " + std::to_string(wire::kProtocolVersion)),
            std::string::npos)
      << c.status.message;
  EXPECT_NE(c.status.message.find("stale-kernel-runner"), std::string::npos) << c.status.message;
  EXPECT_NE(c.status.hint.find("stale"), std::string::npos) << c.status.hint;
  // The runner built with this blockscope is accepted.
  EXPECT_TRUE(engine.compile(kLectureGray1D, gray_forms(), Target::Cpu).ok());
}

TEST(CustomCompilers, CpuIsAvailableHereAndTheGpuAnswerIsClear) {
  TempDir cache;
  Engine engine(options_with_cache(cache.path));
  const auto cs = engine.available_compilers();
  ASSERT_EQ(cs.size(), 2u);
  EXPECT_TRUE(cs[0].available) << cs[0].message;
  EXPECT_FALSE(cs[0].compiler.empty());
  if (!cs[1].available) {
    EXPECT_NE(cs[1].message.find("GPU"), std::string::npos) << cs[1].message;
    CompileResult c = engine.compile(kLectureGray1D, gray_forms(), Target::Gpu);
    EXPECT_FALSE(c.ok());
    EXPECT_FALSE(c.status.message.empty());
    std::printf("[ info ] GPU backend here: %s\n", cs[1].message.c_str());
  }
}

}  // namespace
}  // namespace bs::custom
