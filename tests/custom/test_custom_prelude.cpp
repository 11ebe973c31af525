// Kernels as people write them, on the CPU simulator (issue 32): CUDA's headers, half and bf16,
// warp shuffles and votes, WMMA, cooperative_groups, forms by meaning, and what the simulator
// refuses. The kernels of tests/custom/kernels/*.cu are valid CUDA (they compile with nvcc); each
// is checked here against a reference computed by the test with plain loops, at odd sizes, on
// fresh random data.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "custom_test_support.hpp"
#include "prelude_proofs.hpp"
#include "labs/custom/codegen.hpp"
#include "labs/custom/cpu_headers.hpp"
#include "labs/custom/source_parse.hpp"

namespace bs::custom {
namespace {

using namespace test;

class CustomPrelude : public ::testing::Test {
 protected:
  TempDir cache;
  Engine engine{options_with_cache(cache.path)};

  std::shared_ptr<CustomKernel> compile(const std::string& src, std::span<const lab::UserForm> forms) {
    return compile_for(engine, Target::Cpu, src, forms);
  }
};

// The proofs shared with the GPU (prelude_proofs.hpp), on the CPU simulator.
TEST_F(CustomPrelude, WmmaBf16MatmulAtAnOddSizeMatchesTheProductOfTheRoundedInputs) {
  proof_WmmaBf16MatmulAtAnOddSizeMatchesTheProductOfTheRoundedInputs(engine, Target::Cpu);
}
TEST_F(CustomPrelude, EveryWmmaShapeComputesTheProductWithItsLayouts) {
  proof_EveryWmmaShapeComputesTheProductWithItsLayouts(engine, Target::Cpu);
}
TEST_F(CustomPrelude, WmmaFragmentsAreLaidOutAsTheHardwareHoldsThem) {
  proof_WmmaFragmentsAreLaidOutAsTheHardwareHoldsThem(engine, Target::Cpu);
}
TEST_F(CustomPrelude, WarpReductionsWithCooperativeGroupsAndShufflesMatchTheDoubleProduct) {
  proof_WarpReductionsWithCooperativeGroupsAndShufflesMatchTheDoubleProduct(engine, Target::Cpu);
}
TEST_F(CustomPrelude, AGrayscaleComputedInFp16MatchesTheReferenceRoundingExactly) {
  proof_AGrayscaleComputedInFp16MatchesTheReferenceRoundingExactly(engine, Target::Cpu);
}
TEST_F(CustomPrelude, ShufflesAndVotesFollowCudasSemanticsIncludingWidthsAndPartialMasks) {
  proof_ShufflesAndVotesFollowCudasSemanticsIncludingWidthsAndPartialMasks(engine, Target::Cpu);
}

// Lanes of one warp at different barriers: reported with the lanes and what each waits at,
// not a hang.
TEST_F(CustomPrelude, AWarpWhoseLanesWaitAtDifferentBarriersIsReportedNotHung) {
  const auto m = random_matrix(8, 8, 1), n = random_matrix(8, 8, 2);
  auto problem = matmul_problem(m, n, 8, 8, 8);
  ASSERT_TRUE(problem.ok());
  const std::string src = R"(__global__ void split(float* m, float* n, float* out, int h, int w, int k) {
    const unsigned lane = threadIdx.x % 32;
    if (lane < 16) __syncwarp();
    else __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0) out[0] = 1.0f;
}
)";
  auto k = compile(src, matmul_forms());
  ASSERT_TRUE(k);
  RunRequest req;
  req.time_limit_s = 60;  // a loaded 2-core CI machine (ASan too) simulates slowly: the proofs check results, not speed
  req.block = {32, 1, 1};
  req.workers = 1;  // block (0, 0, 0) first: with two workers another block's report may come first
  RunOutcome r = k->run(*problem, req);
  ASSERT_FALSE(r.record.ok());
  const std::string& msg = r.record.status.message;
  EXPECT_NE(msg.find("warp-synchronous deadlock in block (0, 0, 0), warp 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("lane 0 waits"), std::string::npos) << msg;
  EXPECT_NE(msg.find("mask 0xffffffff, but lane 16, named in that mask, waits at __syncthreads()"), std::string::npos)
      << msg;
  EXPECT_FALSE(r.timed_out);
}

// What the simulator cannot run is refused before compiling, one sentence each, with its line.
TEST_F(CustomPrelude, CubAndInlinePtxAreRefusedWithTheirLinesBeforeCompiling) {
  const std::string src = R"(#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cub/block/block_reduce.cuh>
__global__ void k(float* m, float* n, float* out, int h, int w, int k) {
    unsigned lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    out[0] = lane;
}
)";
  CompileResult c = engine.compile(src, matmul_forms(), Target::Cpu);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status.code, "cpu_unsupported");
  EXPECT_EQ(c.status.message,
            "line 3: <cub/block/block_reduce.cuh> (CUB's block and warp primitives) is not available on the CPU "
            "simulator (it runs only what it can simulate thread by thread); run this kernel on the GPU backend");
  int errors = 0;
  bool asm_line = false;
  for (const Diagnostic& d : c.diagnostics)
    if (d.is_error()) {
      ++errors;
      asm_line |= d.line == 6 && d.column == 5 && d.message.starts_with("line 6: inline PTX (`asm`)");
      EXPECT_EQ(d.origin, "blockscope") << d.message;
    }
  EXPECT_EQ(errors, 2) << diagnostics_text(c);
  EXPECT_TRUE(asm_line) << diagnostics_text(c);
  EXPECT_EQ(c.ms < 1000, true) << "no compiler ran";
}

TEST_F(CustomPrelude, AHeaderThatExistsNowhereGetsTheCompilersOwnMessage) {
  const std::string src =
      "#include <no_such_header_bs.h>\n" +
      std::string(R"(__global__ void k(float* m, float* n, float* out, int h, int w, int k) { out[0] = 1; }
)");
  CompileResult c = engine.compile(src, matmul_forms(), Target::Cpu);
  ASSERT_FALSE(c.ok());
  bool named = false;
  for (const Diagnostic& d : c.diagnostics)
    named |= d.line == 1 && d.message.find("no_such_header_bs.h") != std::string::npos;
  EXPECT_TRUE(named) << diagnostics_text(c);
}

// Each construct the simulator cannot run is named with its line, and only code counts: `asm` in a
// comment or a string is not refused.
TEST(CustomPreludeRefusals, EachConstructIsNamedWithItsLineAndCommentsDoNotCount) {
  const std::string src = R"(#include <cuda/pipeline>
#include <cuda/std/atomic>
#include <cute/tensor.hpp>
// asm("trap;") in a comment, "asm" in a string:
const char* s = "asm volatile";
__global__ void __cluster_dims__(2, 1, 1) k(float* out) {
    namespace cg = cooperative_groups;
    cg::this_grid().sync();
    auto g = cg::coalesced_threads();
}
)";
  const CpuSourcePlan plan = plan_cpu_source(src);
  std::vector<std::pair<int, std::string>> got;
  for (const Diagnostic& d : plan.refusals)
    got.emplace_back(d.line, d.message.substr(0, d.message.find(" is not available")));
  const std::vector<std::pair<int, std::string>> want = {
      {1, "line 1: <cuda/pipeline> (cuda::pipeline (asynchronous copies))"},
      {2, "line 2: <cuda/std/atomic> (libcu++ (use the standard C++ header, e.g. <cstdint>, instead))"},
      {3, "line 3: <cute/tensor.hpp> (CuTe)"},
      {6, "line 6: thread block clusters (`__cluster_dims__`)"},
      {8, "line 8: grid-wide groups (`this_grid`: they need a cooperative launch)"},
      {9,
       "line 9: `coalesced_threads()` (the simulator runs a warp's lanes one after another, so it cannot know "
       "which lanes are converged)"}};
  EXPECT_EQ(got, want);
  // The headers it provides become blank lines of the same length, and switch their sections on.
  const CpuSourcePlan ok = plan_cpu_source("#include <cooperative_groups.h>\n#include <cuda_fp16.h>\nint x;\n");
  EXPECT_TRUE(ok.refusals.empty());
  EXPECT_EQ(ok.source, std::string(31, ' ') + "\n" + std::string(22, ' ') + "\nint x;\n");
  EXPECT_EQ(ok.sections, (std::vector<std::string>{"cpu_cuda_fp16.h", "cpu_warp.h", "cpu_cooperative_groups.h"}));
}

// Forms by meaning: the BF16 form's `unsigned short*` (BF16 bit patterns) takes __nv_bfloat16*
// in every spelling; __half* (FP16: other numbers in the same 16 bits) is refused, saying why.
TEST(CustomPreludeForms, TheBf16FormTakesNvBfloat16AndRefusesHalfSayingWhy) {
  const std::string tail = R"(float* out, int h, int w, int k, int ld) {}
)";
  for (const char* a : {"const __nv_bfloat16* a, const __nv_bfloat16* bt, ", "__nv_bfloat16* a, __nv_bfloat16* bt, ",
                        "const __nv_bfloat16* __restrict__ a, const nv_bfloat16* __restrict__ bt, ",
                        "const unsigned short* a, const __nv_bfloat16* bt, "}) {
    const ParseResult p = parse_kernel_source("__global__ void k(" + std::string(a) + tail, matmul_forms());
    ASSERT_TRUE(p.ok()) << a;
    EXPECT_EQ(p.kernel->form.id, "matmul_bf16") << a;
  }
  const ParseResult half =
      parse_kernel_source("__global__ void k(const __half* a, const __half* bt, " + tail, matmul_forms());
  ASSERT_FALSE(half.ok());
  ASSERT_FALSE(half.diagnostics.empty());
  const std::string& msg = half.diagnostics.front().message;
  EXPECT_NE(
      msg.find("parameter 1 `const __half* a` should be `unsigned short* a` (__half is FP16, this parameter holds "
               "BF16 numbers (write __nv_bfloat16* or unsigned short*))"),
      std::string::npos)
      << msg;
  // Every form of the lab, with its signature.
  EXPECT_NE(msg.find("(float* m, float* n, float* out, int h, int w, int k)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(unsigned short* a, unsigned short* bt, float* out, int h, int w, int k, int ld)"),
            std::string::npos)
      << msg;
}

// The generated units view (CPU) or cast (GPU) the lab's bytes as the kernel's own type.
TEST(CustomPreludeForms, TheGeneratedUnitsUseTheKernelsElementType) {
  const std::string src = R"(#include <cuda_bf16.h>
__global__ void k(const __nv_bfloat16* __restrict__ a, const __nv_bfloat16* bt, float* out, int h, int w, int k, int ld) {}
)";
  const ParseResult p = parse_kernel_source(src, matmul_forms());
  ASSERT_TRUE(p.ok());
  const GeneratedUnit cpu = make_cpu_unit(src, *p.kernel);
  EXPECT_NE(cpu.text.find("k(bs_in<const __nv_bfloat16> a, bs_in<const __nv_bfloat16> bt, bs_out<float> out"),
            std::string::npos);
  EXPECT_NE(cpu.text.find("BS_CPU_CUDA_BF16_H"), std::string::npos) << "the bf16 section is appended";
  EXPECT_EQ(cpu.text.find("BS_CPU_MMA_H"), std::string::npos) << "wmma only when <mma.h> is included";
  EXPECT_EQ(cpu.text.find("BS_CPU_WARP_H"), std::string::npos) << "the warp operations only when used";
  const std::string shfl = R"(__global__ void k(float* m, float* n, float* out, int h, int w, int k) {
    out[0] = __shfl_down_sync(0xffffffffu, m[0], 1);
}
)";
  const ParseResult ps = parse_kernel_source(shfl, matmul_forms());
  ASSERT_TRUE(ps.ok());
  EXPECT_TRUE(ps.kernel->uses_barriers);
  EXPECT_NE(make_cpu_unit(shfl, *ps.kernel).text.find("BS_CPU_WARP_H"), std::string::npos);
  const std::size_t user = cpu.text.find("#line 1 \"kernel.cu\"");
  ASSERT_NE(user, std::string::npos);
  EXPECT_EQ(cpu.text.find("#include <cuda_bf16.h>", user), std::string::npos) << "the include line is blanked";
  const std::string blank_line = "#line 1 \"kernel.cu\"\n" + std::string(22, ' ') + "\n";
  EXPECT_EQ(cpu.text.compare(user, blank_line.size(), blank_line), 0) << "same line, blank";
  const GeneratedUnit gpu = make_gpu_unit(src, *p.kernel);
  EXPECT_NE(gpu.text.find("k((const __nv_bfloat16*)bs_a0, (const __nv_bfloat16*)bs_a1, bs_a2"), std::string::npos)
      << gpu.text;
}

}  // namespace
}  // namespace bs::custom
