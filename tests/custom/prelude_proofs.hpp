// The proofs of issue 32 for user kernels as people write them (CUDA's headers, half and bf16,
// warp shuffles and votes, WMMA, cooperative_groups, forms by meaning), written once for both
// backends: test_custom_prelude.cpp runs them on the CPU simulator, test_custom_gpu.cpp on the GPU.
// The kernels of tests/custom/kernels/*.cu are valid CUDA; each proof checks a kernel against a
// reference computed here with plain loops, at odd sizes, on fresh random data.
#pragma once
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "custom_test_support.hpp"
#include "half_reference.hpp"

namespace bs::custom::test {

inline std::string kernel_file(const std::string& name) {
  std::ifstream in(repo_file(std::string("tests/custom/kernels/") + name));
  EXPECT_TRUE(in) << "cannot read tests/custom/kernels/" << name;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline float f32(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

inline std::shared_ptr<CustomKernel> compile_for(Engine& engine, Target target, const std::string& src,
                                                 std::span<const lab::UserForm> forms) {
  CompileResult c = engine.compile(src, forms, target);
  EXPECT_TRUE(c.ok()) << diagnostics_text(c);
  return c.kernel;
}

// The WMMA kernel of NVIDIA's documentation (<mma.h>, <cuda_bf16.h>, __nv_bfloat16* parameters)
// on the matmul lab's BF16 form, at 67 x 45 x 53: partial 32 x 32 block tiles, partial 16 x 16
// warp tiles, k not a multiple of 16 (the kernel zero-fills past the edges). Compared with the
// double product of the BF16-rounded inputs.
inline void proof_WmmaBf16MatmulAtAnOddSizeMatchesTheProductOfTheRoundedInputs(Engine& engine, Target target) {
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
  auto k = compile_for(engine, target, kernel_file("wmma_bf16_matmul.cu"), matmul_forms());
  ASSERT_TRUE(k);
  EXPECT_EQ(k->info().form.id, "matmul_bf16");
  EXPECT_TRUE(k->info().uses_barriers) << "wmma is warp-collective: the block runs as fibers";
  RunRequest req;
  req.time_limit_s = 60;  // a loaded 2-core CI machine (ASan too) simulates slowly: the proofs check results, not speed
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

inline void proof_EveryWmmaShapeComputesTheProductWithItsLayouts(Engine& engine, Target target) {
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
    auto k = compile_for(engine, target, src, matmul_forms());
    ASSERT_TRUE(k);
    RunRequest req;
    req.time_limit_s =
        60;  // a loaded 2-core CI machine (ASan too) simulates slowly: the proofs check results, not speed
    req.block = {32, 1, 1};
    RunOutcome r = k->run(*problem, req);
    ASSERT_TRUE(r.record.ok()) << r.record.status.describe();
    const auto got = floats_of(r.output);
    const auto exact = product_in_double(m, n, mm, nn, 16);
    for (int row = 0; row < mm; ++row)
      for (int c = 0; c < nn; ++c)
        ASSERT_NEAR(got[static_cast<std::size_t>(c) * mm + row],
                    2 * (0.5 + exact[static_cast<std::size_t>(row) * nn + c]), 1e-5)
            << row << ", " << c;
  }
}

// The fragment layouts, element by element: each lane's .x[] after load_matrix_sync from
// matrices holding their own indices (FP16: exact up to 2048), against the layouts an H200 gave
// (written out here as formulas; group g = lane / 4, thread t = lane % 4).
constexpr const char* kWmmaLayout = R"(#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;
constexpr int M = SHAPE_M, N = SHAPE_N;
__global__ void wmma_layout(float* m, float* n, float* out, int h, int w, int k) {
    __shared__ __half a[M * 16], b[16 * N];
    __shared__ float c[M * N];
    if (blockIdx.x != 0 || blockIdx.y != 0) return;
    for (int i = threadIdx.x; i < M * 16; i += 32) a[i] = __float2half((float)i);
    for (int i = threadIdx.x; i < 16 * N; i += 32) b[i] = __float2half((float)i);
    for (int i = threadIdx.x; i < M * N; i += 32) c[i] = (float)i;
    __syncwarp();
    wmma::fragment<wmma::matrix_a, M, N, 16, __half, wmma::row_major> x;
    wmma::fragment<wmma::matrix_b, M, N, 16, __half, wmma::row_major> y;
    wmma::fragment<wmma::accumulator, M, N, 16, float> z;
    wmma::load_matrix_sync(x, a, 16);
    wmma::load_matrix_sync(y, b, N);
    wmma::load_matrix_sync(z, c, N, wmma::mem_row_major);
    for (int e = 0; e < 32; ++e) {
        out[threadIdx.x * 32 + e] = e < x.num_elements ? __half2float(x.x[e]) : -1.0f;
        out[(32 + threadIdx.x) * 32 + e] = e < y.num_elements ? __half2float(y.x[e]) : -1.0f;
        out[(64 + threadIdx.x) * 32 + e] = e < z.num_elements ? z.x[e] : -1.0f;
    }
}
)";

inline void proof_WmmaFragmentsAreLaidOutAsTheHardwareHoldsThem(Engine& engine, Target target) {
  for (const auto& [mm, nn] : {std::pair{16, 16}, std::pair{32, 8}, std::pair{8, 32}}) {
    SCOPED_TRACE("m" + std::to_string(mm) + "n" + std::to_string(nn) + "k16");
    const int h = 96, w = 32;
    auto problem = matmul_problem(random_matrix(h, 16, 1), random_matrix(16, w, 2), h, w, 16);
    ASSERT_TRUE(problem.ok());
    std::string src = kWmmaLayout;
    src.replace(src.find("SHAPE_M"), 7, std::to_string(mm));
    src.replace(src.find("SHAPE_N"), 7, std::to_string(nn));
    auto k = compile_for(engine, target, src, matmul_forms());
    ASSERT_TRUE(k);
    RunRequest req;
    req.time_limit_s =
        60;  // a loaded 2-core CI machine (ASan too) simulates slowly: the proofs check results, not speed
    req.block = {32, 1, 1};
    RunOutcome r = k->run(*problem, req);
    ASSERT_TRUE(r.record.ok()) << r.record.status.describe();
    const auto got = floats_of(r.output);
    for (int lane = 0; lane < 32; ++lane) {
      const int g = lane / 4, t = lane % 4;
      for (int e = 0; e < mm * 16 / 32; ++e) {  // A (mm x 16)
        int row = g + 8 * ((e / 2) % 2) + 16 * (e / 8), col = 2 * t + e % 2 + 8 * ((e / 4) % 2);
        if (mm == 8) row = g, col = 2 * t + e % 2 + 8 * (e / 2);
        ASSERT_EQ(got[lane * 32 + e], static_cast<float>(row * 16 + col)) << "A, lane " << lane << ", x[" << e << "]";
      }
      for (int e = 0; e < 16 * nn / 32; ++e) {  // B (16 x nn)
        int row = 2 * t + e % 2 + 8 * ((e / 2) % 2), col = g + 8 * (e / 4);
        if (mm == 8) row = 2 * t + e % 2 + 8 * ((e / 4) % 2), col = g + 8 * ((e / 2) % 2) + 16 * (e / 8);
        ASSERT_EQ(got[(32 + lane) * 32 + e], static_cast<float>(row * nn + col))
            << "B, lane " << lane << ", x[" << e << "]";
      }
      for (int e = 0; e < mm * nn / 32; ++e) {  // C (mm x nn)
        int row = g + 8 * ((e / 2) % 2) + (mm == 32 ? 16 * (e / 4) : 0),
            col = 2 * t + e % 2 + (mm == 16 ? 8 * (e / 4) : 0);
        if (mm == 8) row = 2 * t + e % 2, col = g + 8 * (e / 2);
        ASSERT_EQ(got[(64 + lane) * 32 + e], static_cast<float>(row * nn + col))
            << "C, lane " << lane << ", x[" << e << "]";
      }
    }
  }
}

// A reduction with cooperative_groups (tiled_partition<32> + cg::reduce) and the same with
// __shfl_xor_sync, on the FP32 form: w = 45 leaves a partial warp of columns, k = 61 a partial
// stride; block 32 x 4 with h = 37 leaves rows past h.
inline void proof_WarpReductionsWithCooperativeGroupsAndShufflesMatchTheDoubleProduct(Engine& engine, Target target) {
  const std::uint32_t seed = fresh_seed();
  const int h = 37, w = 45, kk = 61;
  const auto m = random_matrix(h, kk, seed), n = random_matrix(kk, w, seed + 7);
  const std::vector<double> exact = product_in_double(m, n, h, w, kk);
  for (const char* file : {"cg_warp_dot_matmul.cu", "shfl_warp_dot_matmul.cu"}) {
    SCOPED_TRACE(file);
    auto problem = matmul_problem(m, n, h, w, kk);
    ASSERT_TRUE(problem.ok());
    auto k = compile_for(engine, target, kernel_file(file), matmul_forms());
    ASSERT_TRUE(k);
    EXPECT_EQ(k->info().form.id, "matmul");
    RunRequest req;
    req.time_limit_s =
        60;  // a loaded 2-core CI machine (ASan too) simulates slowly: the proofs check results, not speed
    req.block = {32, 4, 1};
    RunOutcome r = k->run(*problem, req);
    ASSERT_TRUE(r.record.ok()) << r.record.status.describe();
    EXPECT_TRUE(r.record.check.passed()) << r.record.check.summary();
    const auto got = floats_of(r.output);
    ASSERT_EQ(got.size(), exact.size());
    for (std::size_t e = 0; e < exact.size(); ++e) ASSERT_NEAR(got[e], exact[e], 1e-5 * kk) << e;
    // Element (r, c) is stored by lane c % 32 of its row's warp: the reduction's result reached it.
    if (target != Target::Cpu) continue;  // owners are the simulator's record
    ASSERT_TRUE(r.record.owners);
    const unsigned bw = 32, bh = 4;
    for (int row = 0; row < h; ++row)
      for (int c = 0; c < w; ++c) {
        const unsigned block = static_cast<unsigned>(c) / bw + ((w + bw - 1) / bw) * (static_cast<unsigned>(row) / bh);
        const unsigned thread = static_cast<unsigned>(c) % bw + bw * (static_cast<unsigned>(row) % bh);
        ASSERT_EQ(r.record.owners->thread[static_cast<std::size_t>(row) * w + c], block * bw * bh + thread)
            << row << "," << c;
      }
  }
}

// The lecture's grayscale through cuda_fp16.h: compared with the same steps done here in double
// with the reference FP16 rounding (half_reference.hpp), exactly.
inline void proof_AGrayscaleComputedInFp16MatchesTheReferenceRoundingExactly(Engine& engine, Target target) {
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
  auto k = compile_for(engine, target, kernel_file("half_gray.cu"), gray_forms());
  ASSERT_TRUE(k);
  RunRequest req;
  req.time_limit_s = 60;  // a loaded 2-core CI machine (ASan too) simulates slowly: the proofs check results, not speed
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
constexpr const char* kWarpOps = R"(// warp operations need no header: NVRTC and the simulator both know them
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

inline void proof_ShufflesAndVotesFollowCudasSemanticsIncludingWidthsAndPartialMasks(Engine& engine, Target target) {
  const int h = 10, w = 96, kk = 96, block = 48;
  const auto m = random_matrix(h, kk, fresh_seed());
  const auto n = random_matrix(kk, w, 1);
  auto problem = matmul_problem(m, n, h, w, kk);
  ASSERT_TRUE(problem.ok());
  auto k = compile_for(engine, target, kWarpOps, matmul_forms());
  ASSERT_TRUE(k);
  EXPECT_TRUE(k->info().uses_barriers);
  RunRequest req;
  req.time_limit_s = 60;  // a loaded 2-core CI machine (ASan too) simulates slowly: the proofs check results, not speed
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
        case 1: want = from(lane / 16 * 16 + (lane + 5) % 16); break;    // srcLane % width, in my segment
        case 2: want = lane % 8 >= 3 ? from(lane - 3) : v(lane); break;  // from below, within 8
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
      // A lane the warp does not have: all-ones bits on the simulator, undefined on a GPU.
      if (target != Target::Cpu && bits(want) == bits(kBad)) continue;
      ASSERT_EQ(bits(got[static_cast<std::size_t>(row) * w + c]), bits(want))
          << "op " << row << ", column " << c << ", lane " << lane;
    }
}

}  // namespace bs::custom::test
