// The soak (`blockscope-selftest soak`, tools/selftest/soak.hpp) run as CI runs it: a short CPU
// run passes with every kind of invalid block and hostile file exercised and counted, a run that
// holds memory per launch fails on the memory bound (so the bound can fail), the block that once
// crashed the app is refused, and (label gpu) 3000 launches on the CUDA backend pass with device
// memory flat. The GPU fault injection (`blockscope-selftest fault`) is the last gpu case.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <regex>
#include <string>

#include "app_runner.hpp"
#include "skips.hpp"

namespace {

using namespace bs::app::test;  // RunResult, quote, executable, run, run_program

// The self-test tool; BLOCKSCOPE_SELFTEST_EXE in the environment overrides the build's path.
RunResult selftest(const std::string& args) {
  const char* env = std::getenv("BLOCKSCOPE_SELFTEST_EXE");
  return run_program(env && *env ? env : BLOCKSCOPE_SELFTEST_EXE, args);
}

// A number that follows `label` in the summary line ("refusals expected 164" -> 164).
long long number_after(const std::string& text, const std::string& label) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex(label + " ([0-9]+)"))) return -1;
  return std::stoll(m[1]);
}

// The growth named by the failed host bound ("host memory (RSS) grew by 30.1 MiB", or "(live
// heap)" under AddressSanitizer, whose quarantine makes RSS meaningless).
double host_growth_mib(const std::string& text) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex("host memory \\((RSS|live heap)\\) grew by ([0-9.]+) MiB"))) return -1;
  return std::stod(m[2]);
}

// A fresh seed per run (printed by the soak, so a failure can be replayed with --seed).
unsigned long long fresh_seed() { return std::random_device{}(); }

// The figures every passing soak must show: it really launched, really refused, really loaded
// hostile files, and checked outputs against the reference.
void expect_meaningful_pass(const RunResult& r, long long launches) {
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("soak: PASSED"), std::string::npos) << r.output;
  EXPECT_EQ(number_after(r.output, "soak summary: launches"), launches) << r.output;
  const long long refused = number_after(r.output, "refusals expected");
  EXPECT_GT(refused, launches / 10) << r.output;
  EXPECT_EQ(number_after(r.output, "observed"), refused) << r.output;
  const long long load_errors = number_after(r.output, "load errors expected");
  EXPECT_GT(load_errors, 0) << r.output;
  EXPECT_EQ(number_after(r.output, "load errors expected [0-9]+ observed"), load_errors) << r.output;
  EXPECT_GT(number_after(r.output, "outputs verified"), 3) << r.output;
  // Every way to be invalid was tried at least once.
  for (const char* kind :
       {"zero dimension", "over 1024 threads", "z over 64", "x or y over 1024", "2D with z > 1", "huge dimensions"})
    EXPECT_GT(number_after(r.output, kind), 0) << kind << "\n" << r.output;
  for (const char* kind : {"valid PNG", "truncated PNG", "empty file", "text named .png", "directory", "missing path"})
    EXPECT_GT(number_after(r.output, kind), 0) << kind << "\n" << r.output;
}

// 120 launches on the CPU (the soak tries every invalid kind and every file kind first, whatever
// the seed); the long soak, 3000 launches, runs on the GPU machine (GpuRunOf3000Launches below).
TEST(Soak, CpuRunOf120LaunchesPassesAndExercisesEveryInvalidKind) {
  const auto seed = fresh_seed();
  const RunResult r = selftest("soak --backend cpu --launches 120 --seed " + std::to_string(seed));
  SCOPED_TRACE("seed " + std::to_string(seed));
  expect_meaningful_pass(r, 120);
  EXPECT_NE(r.output.find("device memory n/a (CPU backend)"), std::string::npos) << r.output;
}

// The memory check is a real check: 512 KiB held per launch after the warm-up (about 40 MiB
// over 100 launches, 20 of them warm-up) must fail the run on the host bound (16 MiB).
TEST(Soak, MemoryHeldPerLaunchFailsTheRun) {
  const RunResult r = selftest("soak --backend cpu --launches 100 --leak-bytes-per-launch 524288 --seed " +
                               std::to_string(fresh_seed()));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("soak: FAILED"), std::string::npos) << r.output;
  EXPECT_GT(host_growth_mib(r.output), 16.0) << r.output;
}

// 4194304^3 wrapped Dim3::volume() to 0 and crashed the app with SIGFPE before validation
// (found by the soak's huge-dimension trials); now it is refused with the rule it breaks.
TEST(Soak, BlockWhoseThreadCountWraps64BitsIsRefusedNotACrash) {
  for (const char* kernel : {"gray_1d_flat", "gray_2d"}) {
    const RunResult r =
        run(std::string("--headless --backend cpu --frames 1 --kernel ") + kernel + " --block 4194304x4194304x4194304");
    EXPECT_EQ(r.exit_code, 1) << kernel << "\n" << r.output;  // refused: a failed run, not a signal
    EXPECT_NE(r.output.find("Launch refused"), std::string::npos) << kernel << "\n" << r.output;
  }
}

TEST(Soak, FlagsBelongToTheSelfTestNotToBlockscope) {
  EXPECT_EQ(run("--launches 5").exit_code, 2);
  EXPECT_EQ(run("soak --headless --frames 1").exit_code, 1) << "blockscope has no soak mode: soak is a missing image";
  EXPECT_EQ(selftest("soak --launches 0").exit_code, 2);
  EXPECT_EQ(selftest("soak some.png").exit_code, 2);
  EXPECT_EQ(selftest("").exit_code, 2);
  EXPECT_EQ(selftest("fault --launches 5").exit_code, 2);
}

// Label gpu: the full soak on the CUDA backend (zero-copy interop when the EGL context is on
// the CUDA device), device memory sampled too. Skips visibly without a usable CUDA device.
TEST(Soak, GpuRunOf3000LaunchesOnCudaKeepsDeviceMemoryFlat) {
  const auto seed = fresh_seed();
  const RunResult r = selftest("soak --backend cuda --launches 3000 --seed " + std::to_string(seed));
  if (r.exit_code == 4) BS_SKIP_NO_GPU() << "no usable CUDA device: " << r.output;
  SCOPED_TRACE("seed " + std::to_string(seed));
  expect_meaningful_pass(r, 3000);
  EXPECT_NE(r.output.find("device used"), std::string::npos) << r.output;
  std::printf("%s", r.output.substr(r.output.find("soak summary")).c_str());
}

// Label gpu, and last on a GPU machine (tests/gpu/run_on_device.sh runs it alone, at the end): a
// real sticky fault in the running app is reported by name, the app moves to the CPU simulation,
// keeps the image and shows a verified result.
TEST(Soak, GpuFaultIsReportedAndTheAppCarriesOnOnTheCpu) {
  const RunResult r = selftest("fault --at-frame 2 --frames 5");
  if (r.exit_code == 4) BS_SKIP_NO_GPU() << "no usable CUDA device: " << r.output;
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("fault: PASSED"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("backend: CPU simulation"), std::string::npos) << r.output;
}

}  // namespace
