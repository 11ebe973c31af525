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
#include "half_reference.hpp"
#include "labs/custom/codegen.hpp"
#include "labs/custom/source_parse.hpp"

namespace bs::custom {
namespace {

using namespace test;

std::string kernel_file(const std::string& name) {
  std::ifstream in(source_dir() + "/tests/custom/kernels/" + name);
  EXPECT_TRUE(in) << "cannot read tests/custom/kernels/" << name;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

float f32(std::uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
std::uint32_t bits(float f) { std::uint32_t u; std::memcpy(&u, &f, 4); return u; }

class CustomPrelude : public ::testing::Test {
 protected:
  TempDir cache;
  Engine engine{options_with_cache(cache.path)};

  std::shared_ptr<CustomKernel> compile(const std::string& src, std::span<const lab::UserForm> forms) {
    CompileResult c = engine.compile(src, forms, Target::Cpu);
    EXPECT_TRUE(c.ok()) << diagnostics_text(c);
    return c.kernel;
  }
};

// The WMMA kernel of NVIDIA's documentation (<mma.h>, <cuda_bf16.h>, __nv_bfloat16* parameters)
// on the matmul lab's BF16 form, at 67 x 45 x 53: partial 32 x 32 block tiles, partial 16 x 16
// warp tiles, k not a multiple of 16 (the kernel zero-fills past the edges). Compared with the
// double product of the BF16-rounded inputs.
TEST_F(CustomPrelude, WmmaBf16MatmulAtAnOddSizeMatchesTheProductOfTheRoundedInputs) {
  const std::uint32_t seed = fresh_seed();
  const int h = 67, w = 45, kk = 53;
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
  auto k = compile(kernel_file("wmma_bf16_matmul.cu"), matmul_forms());
  ASSERT_TRUE(k);
  EXPECT_EQ(k->info().form.id, "matmul_bf16");
  EXPECT_TRUE(k->info().uses_barriers) << "wmma is warp-collective: the block runs as fibers";
  RunRequest req;
  req.block = {128, 1, 1};
  RunOutcome r = k->run(*problem, req);
  ASSERT_TRUE(r.record.ok()) << r.record.status.describe();
  EXPECT_TRUE(r.record.check.passed()) << r.record.check.summary();
  EXPECT_EQ(r.record.config.grid, (Dim3{2, 3, 1}));
  const auto got = floats_of(r.output);
  ASSERT_EQ(got.size(), exact.size());
  for (std::size_t e = 0; e < exact.size(); ++e) ASSERT_NEAR(got[e], exact[e], 1e-5 * kk) << e;
}

// Every wmma shape the simulator has (m16n16k16, m32n8k16, m8n32k16): one warp loads A row-major
// and B col-major from __shared__, starts from fill_fragment(0.5), scales the result through
// .x[] and stores it col-major; compared with the double product of the BF16 inputs.
constexpr const char* kWmmaShape = R"(#include <mma.h>
#include <cuda_bf16.h>
using namespace nvcuda;
constexpr int M = SHAPE_M, N = SHAPE_N, K = 16;
__global__ void wmma_shape(float* m, float* n, float* out, int h, int w, int k) {
    __shared__ __nv_bfloat16 a[M * K], b[K * N];
    if (blockIdx.x != 0 || blockIdx.y != 0) return;
    for (int i = threadIdx.x; i < M * K; i += 32) a[i] = __float2bfloat16(m[i]);
    for (int i = threadIdx.x; i < K * N; i += 32) b[(i % N) * K + i / N] = __float2bfloat16(n[i]);
    __syncwarp();
    wmma::fragment<wmma::matrix_a, M, N, K, __nv_bfloat16, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, __nv_bfloat16, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, M, N, K, float> acc;
    wmma::load_matrix_sync(fa, a, K);
    wmma::load_matrix_sync(fb, b, K);
    wmma::fill_fragment(acc, 0.5f);
    wmma::mma_sync(acc, fa, fb, acc);
    for (int e = 0; e < acc.num_elements; ++e) acc.x[e] *= 2.0f;
    wmma::store_matrix_sync(out, acc, M, wmma::mem_col_major);
}
)";

TEST_F(CustomPrelude, EveryWmmaShapeComputesTheProductWithItsLayouts) {
  const std::uint32_t seed = fresh_seed();
  for (const auto& [mm, nn] : {std::pair{16, 16}, std::pair{32, 8}, std::pair{8, 32}}) {
    SCOPED_TRACE("m" + std::to_string(mm) + "n" + std::to_string(nn) + "k16");
    auto m = random_matrix(mm, 16, seed), n = random_matrix(16, nn, seed + 3);
    matmul::round_to_bf16(m), matmul::round_to_bf16(n);
    auto problem = matmul_problem(m, n, mm, nn, 16);
    ASSERT_TRUE(problem.ok());
    std::string src = kWmmaShape;
    src.replace(src.find("SHAPE_M"), 7, std::to_string(mm));
    src.replace(src.find("SHAPE_N"), 7, std::to_string(nn));
    auto k = compile(src, matmul_forms());
    ASSERT_TRUE(k);
    RunRequest req;
    req.block = {32, 1, 1};
    RunOutcome r = k->run(*problem, req);
    ASSERT_TRUE(r.record.ok()) << r.record.status.describe();
    const auto got = floats_of(r.output);
    const auto exact = product_in_double(m, n, mm, nn, 16);
    for (int row = 0; row < mm; ++row)
      for (int c = 0; c < nn; ++c)
        ASSERT_NEAR(got[static_cast<std::size_t>(c) * mm + row], 2 * (0.5 + exact[static_cast<std::size_t>(row) * nn + c]), 1e-5)
            << row << ", " << c;
  }
}

// A reduction with cooperative_groups (tiled_partition<32> + cg::reduce) and the same with
// __shfl_xor_sync, on the FP32 form: w = 45 leaves a partial warp of columns, k = 61 a partial
// stride; block 32 x 4 with h = 37 leaves rows past h.
TEST_F(CustomPrelude, WarpReductionsWithCooperativeGroupsAndShufflesMatchTheDoubleProduct) {
  const std::uint32_t seed = fresh_seed();
  const int h = 37, w = 45, kk = 61;
  const auto m = random_matrix(h, kk, seed), n = random_matrix(kk, w, seed + 7);
  const std::vector<double> exact = product_in_double(m, n, h, w, kk);
  for (const char* file : {"cg_warp_dot_matmul.cu", "shfl_warp_dot_matmul.cu"}) {
    SCOPED_TRACE(file);
    auto problem = matmul_problem(m, n, h, w, kk);
    ASSERT_TRUE(problem.ok());
    auto k = compile(kernel_file(file), matmul_forms());
    ASSERT_TRUE(k);
    EXPECT_EQ(k->info().form.id, "matmul");
    RunRequest req;
    req.block = {32, 4, 1};
    RunOutcome r = k->run(*problem, req);
    ASSERT_TRUE(r.record.ok()) << r.record.status.describe();
    EXPECT_TRUE(r.record.check.passed()) << r.record.check.summary();
    const auto got = floats_of(r.output);
    ASSERT_EQ(got.size(), exact.size());
    for (std::size_t e = 0; e < exact.size(); ++e) ASSERT_NEAR(got[e], exact[e], 1e-5 * kk) << e;
    // Element (r, c) is stored by lane c % 32 of its row's warp: the reduction's result reached it.
    ASSERT_TRUE(r.record.owners);
    const unsigned bw = 32, bh = 4;
    for (int row = 0; row < h; ++row)
      for (int c = 0; c < w; ++c) {
        const unsigned block = static_cast<unsigned>(c) / bw + ((w + bw - 1) / bw) * (static_cast<unsigned>(row) / bh);
        const unsigned thread = static_cast<unsigned>(c) % bw + bw * (static_cast<unsigned>(row) % bh);
        ASSERT_EQ(r.record.owners->thread[static_cast<std::size_t>(row) * w + c], block * bw * bh + thread) << row << "," << c;
      }
  }
}

// The lecture's grayscale through cuda_fp16.h: compared with the same steps done here in double
// with the reference FP16 rounding (half_reference.hpp), exactly.
TEST_F(CustomPrelude, AGrayscaleComputedInFp16MatchesTheReferenceRoundingExactly) {
  const PlanarImage img = random_image(97, 61, fresh_seed());
  const std::size_t n = static_cast<std::size_t>(img.w) * img.h;
  std::vector<std::uint8_t> want(n);
  auto h16 = [](double x) { return round_to(kFp16, x); };
  const double w0 = h16(0.2989f), w1 = h16(0.5870f), w2 = h16(0.1140f);
  for (std::size_t i = 0; i < n; ++i) {
    double y = h16(w0 * img.planar[i]);
    y = h16(w1 * img.planar[i + n] + y);
    y = h16(w2 * img.planar[i + 2 * n] + y);
    want[i] = static_cast<std::uint8_t>(y);
  }
  const lab::UserForm* f = gray::user_kernel_spec().find_form("gray_1d");
  auto packed = gray::pack_user_problem(*f, img.planar, img.w, img.h, want, "FP16 reference");
  ASSERT_TRUE(packed.ok());
  auto problem = Problem::create(std::move(packed.value()));
  ASSERT_TRUE(problem.ok());
  auto k = compile(kernel_file("half_gray.cu"), gray_forms());
  ASSERT_TRUE(k);
  RunRequest req;
  req.block = {96, 1, 1};
  RunOutcome r = k->run(*problem, req);
  ASSERT_TRUE(r.record.ok()) << r.record.status.describe();
  EXPECT_TRUE(r.record.check.passed()) << r.record.check.summary();
  ASSERT_EQ(r.output.size(), n);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(r.output[i], want[i]) << "pixel " << i;
}

// Shuffles (with width < 32), votes, partial masks, __reduce_add_sync and __syncthreads_count,
// each on one row of a 10 x 96 problem with blocks of 48 threads (so the second warp of every
// block has 16 lanes), against CUDA's documented semantics written out here.
constexpr const char* kWarpOps = R"(#include <cuda_runtime.h>
__global__ void warp_ops(float* m, float* n, float* out, int h, int w, int k) {
    const int r = blockIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned lane = threadIdx.x % 32;
    const float v = m[r * k + c];
    float res = 0.0f;
    switch (r) {
        case 0: res = __shfl_sync(0xffffffffu, v, (lane * 7 + 3) % 32); break;
        case 1: res = __shfl_sync(0xffffffffu, v, lane + 5, 16); break;
        case 2: res = __shfl_up_sync(0xffffffffu, v, 3, 8); break;
        case 3: res = __shfl_down_sync(0xffffffffu, v, 5, 16); break;
        case 4: res = __shfl_xor_sync(0xffffffffu, v, 18, 16); break;
        case 5: res = __uint_as_float(__ballot_sync(0xffffffffu, v > 0.0f)); break;
        case 6:
            if (lane < 16) res = __shfl_down_sync(0x0000ffffu, v, 1, 16);
            else res = __uint_as_float(__ballot_sync(0xffff0000u, v > 0.0f));
            break;
        case 7: res = (float)(__any_sync(0xffffffffu, v > 0.9f) * 2 + __all_sync(0xffffffffu, v > -0.99f)); break;
        case 8: res = (float)__reduce_add_sync(0xffffffffu, (unsigned)(int)(v * 100.0f + 200.0f)); break;
        case 9: res = (float)__syncthreads_count(v > 0.0f); break;
    }
    if (c < w && r < h) out[r * w + c] = res;
}
)";

TEST_F(CustomPrelude, ShufflesAndVotesFollowCudasSemanticsIncludingWidthsAndPartialMasks) {
  const int h = 10, w = 96, kk = 96, block = 48;
  const auto m = random_matrix(h, kk, fresh_seed());
  const auto n = random_matrix(kk, w, 1);
  auto problem = matmul_problem(m, n, h, w, kk);
  ASSERT_TRUE(problem.ok());
  auto k = compile(kWarpOps, matmul_forms());
  ASSERT_TRUE(k);
  EXPECT_TRUE(k->info().uses_barriers);
  RunRequest req;
  req.block = {static_cast<unsigned>(block), 1, 1};
  RunOutcome r = k->run(*problem, req);
  ASSERT_TRUE(r.record.ok()) << r.record.status.describe();
  const auto got = floats_of(r.output);
  ASSERT_EQ(got.size(), static_cast<std::size_t>(h * w));
  const float kBad = f32(0xffffffffu);  // what a lane the warp does not have gives
  for (int row = 0; row < h; ++row)
    for (int c = 0; c < w; ++c) {
      const int t = c % block, lane = t % 32, first = c - lane;  // first column of this warp
      const int lanes = std::min(32, block - (t - lane));        // lanes this warp has
      auto v = [&](int l) { return m[static_cast<std::size_t>(row) * kk + first + l]; };
      auto from = [&](int l) { return l < lanes ? v(l) : kBad; };
      auto ballot = [&](unsigned mask) {
        unsigned b = 0;
        for (int l = 0; l < lanes; ++l)
          if (mask >> l & 1u && v(l) > 0.0f) b |= 1u << l;
        return b;
      };
      float want = 0;
      switch (row) {
        case 0: want = from((lane * 7 + 3) % 32); break;
        case 1: want = from(lane / 16 * 16 + (lane + 5) % 16); break;        // srcLane % width, in my segment
        case 2: want = lane % 8 >= 3 ? from(lane - 3) : v(lane); break;      // from below, within 8
        case 3: want = lane % 16 + 5 < 16 ? from(lane + 5) : v(lane); break;
        case 4: want = (lane ^ 18) / 16 > lane / 16 ? v(lane) : from(lane ^ 18); break;  // later groups: own value
        case 5: want = f32(ballot(0xffffffffu)); break;
        case 6: want = lane < 16 ? (lane + 1 < 16 ? from(lane + 1) : v(lane)) : f32(ballot(0xffff0000u)); break;
        case 7: {
          bool any = false, all = true;
          for (int l = 0; l < lanes; ++l) any |= v(l) > 0.9f, all &= v(l) > -0.99f;
          want = static_cast<float>(any * 2 + all);
          break;
        }
        case 8: {
          unsigned s = 0;
          for (int l = 0; l < lanes; ++l) s += static_cast<unsigned>(static_cast<int>(v(l) * 100.0f + 200.0f));
          want = static_cast<float>(s);
          break;
        }
        case 9: {
          int count = 0;
          for (int x = c - t; x < c - t + block; ++x) count += m[static_cast<std::size_t>(row) * kk + x] > 0.0f;
          want = static_cast<float>(count);
          break;
        }
      }
      ASSERT_EQ(bits(got[static_cast<std::size_t>(row) * w + c]), bits(want)) << "op " << row << ", column " << c << ", lane " << lane;
    }
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
  req.block = {32, 1, 1};
  RunOutcome r = k->run(*problem, req);
  ASSERT_FALSE(r.record.ok());
  const std::string& msg = r.record.status.message;
  EXPECT_NE(msg.find("warp-synchronous deadlock in block (0, 0, 0), warp 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("lane 0 waits"), std::string::npos) << msg;
  EXPECT_NE(msg.find("mask 0xffffffff, but lane 16, named in that mask, waits at __syncthreads()"), std::string::npos) << msg;
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
  const std::string src = "#include <no_such_header_bs.h>\n" + std::string(R"(__global__ void k(float* m, float* n, float* out, int h, int w, int k) { out[0] = 1; }
)");
  CompileResult c = engine.compile(src, matmul_forms(), Target::Cpu);
  ASSERT_FALSE(c.ok());
  bool named = false;
  for (const Diagnostic& d : c.diagnostics) named |= d.line == 1 && d.message.find("no_such_header_bs.h") != std::string::npos;
  EXPECT_TRUE(named) << diagnostics_text(c);
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
  const ParseResult half = parse_kernel_source("__global__ void k(const __half* a, const __half* bt, " + tail, matmul_forms());
  ASSERT_FALSE(half.ok());
  ASSERT_FALSE(half.diagnostics.empty());
  const std::string& msg = half.diagnostics.front().message;
  EXPECT_NE(msg.find("parameter 1 `const __half* a` should be `unsigned short* a` (__half is FP16, this parameter holds "
                     "BF16 numbers (write __nv_bfloat16* or unsigned short*))"),
            std::string::npos)
      << msg;
  // Every form of the lab, with its signature.
  EXPECT_NE(msg.find("(float* m, float* n, float* out, int h, int w, int k)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(unsigned short* a, unsigned short* bt, float* out, int h, int w, int k, int ld)"), std::string::npos) << msg;
}

// The generated units view (CPU) or cast (GPU) the lab's bytes as the kernel's own type.
TEST(CustomPreludeForms, TheGeneratedUnitsUseTheKernelsElementType) {
  const std::string src = R"(#include <cuda_bf16.h>
__global__ void k(const __nv_bfloat16* __restrict__ a, const __nv_bfloat16* bt, float* out, int h, int w, int k, int ld) {}
)";
  const ParseResult p = parse_kernel_source(src, matmul_forms());
  ASSERT_TRUE(p.ok());
  const GeneratedUnit cpu = make_cpu_unit(src, *p.kernel);
  EXPECT_NE(cpu.text.find("k(bs_in<const __nv_bfloat16> a, bs_in<const __nv_bfloat16> bt, bs_out<float> out"), std::string::npos);
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
  EXPECT_NE(gpu.text.find("k((const __nv_bfloat16*)bs_a0, (const __nv_bfloat16*)bs_a1, bs_a2"), std::string::npos) << gpu.text;
}

}  // namespace
}  // namespace bs::custom
