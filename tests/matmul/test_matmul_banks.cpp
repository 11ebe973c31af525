// Shared-memory banks of the rungs that stage tiles in shared memory (issue 20's check): for k3..k7
// and the mma.sync rung, the bank conflicts of every sampled request as the simulator RECORDED
// them from the rung's own body equal those of the MODEL written from the rung's index
// expressions (labs/matmul/matmul_shared.cpp), at odd sizes on fresh data; and a model with one
// change (T2 without its XOR swizzle, a padding word per row) disagrees, so the comparison can
// fail.
#include <gtest/gtest.h>

#include <iostream>
#include <random>

#include "labs/matmul/matmul_lab.hpp"
#include "labs/matmul/matmul_shared.hpp"
#include "mapping/shared_banks.hpp"
#include "matmul_test_support.hpp"

namespace {

using namespace bs::matmul;
using bs::Dim3;
using bs::SharedRequest;
using bs::matmul::testing::Problem;
using bs::matmul::testing::Shape;

struct Buffers {
  std::vector<float> A, B, C;
  std::vector<Bf16> a16, bt16;
  MatmulBuffers b;
  Buffers(const Shape& s, Precision p) {
    Problem prob(s);
    A = prob.A, B = prob.B;
    C.assign(static_cast<std::size_t>(s.M) * s.N, 0.0f);
    b.f32 = MatmulArgs{A.data(), B.data(), C.data(), s.M, s.N, s.K};
    if (p == Precision::Bf16) {
      round_to_bf16(A), round_to_bf16(B);
      a16 = pack_bf16_rows(A.data(), s.M, s.K);
      bt16 = pack_bf16_transposed(B.data(), s.K, s.N);
      b.bf16 = Bf16Args{a16.data(), bt16.data(), C.data(), s.M, s.N, s.K, bf16_row_pitch(s.K)};
    }
  }
};

// The blocks a check samples: the first, the last (edge tiles) and one in between.
std::vector<Dim3> sample_blocks(const bs::LaunchConfig& lc) {
  std::vector<Dim3> v{{0, 0, 0}, {lc.grid.x - 1, lc.grid.y - 1, 0}, {lc.grid.x / 2, lc.grid.y / 2, 0}};
  return v;
}

struct Comparison {
  std::size_t requests = 0, agree = 0;
  std::size_t conflicted = 0;  // requests with conflicts (recorded)
  std::string first_difference;
};

Comparison compare(MatmulKernel k, const MatmulConfig& c, const Shape& s, const SharedModelOptions& o = {}) {
  Comparison out;
  const Precision p = matmul_kernel_info(k).precision;
  Buffers buf(s, p);
  const bs::LaunchConfig lc = matmul_launch_config(k, c, s.M, s.N, s.K);
  const auto blocks = sample_blocks(lc);
  auto rec = record_shared(k, c, buf.b, s.M, s.N, s.K, blocks);
  EXPECT_TRUE(rec.ok()) << rec.status().describe();
  if (!rec.ok()) return out;
  const unsigned warps = static_cast<unsigned>(lc.block.volume() / 32);
  const std::size_t smem = matmul_shared_bytes(k, c);
  for (Dim3 b : blocks) {
    const unsigned long long lin = b.x + static_cast<unsigned long long>(lc.grid.x) * b.y;
    for (unsigned w = 0; w < warps; ++w) {
      const auto recorded = bs::group_requests((*rec)->warp_lanes(lin, w));
      auto lanes = model_shared_lanes(k, c, s.M, s.N, s.K, b, w, o);
      EXPECT_TRUE(lanes.ok()) << lanes.status().describe();
      if (!lanes.ok()) return out;
      const auto modelled = bs::group_requests(*lanes);
      EXPECT_FALSE(recorded.empty());
      if (recorded.size() != modelled.size() && out.first_difference.empty())
        out.first_difference = "block (" + std::to_string(b.x) + "," + std::to_string(b.y) + ") warp " +
                               std::to_string(w) + ": " + std::to_string(recorded.size()) + " recorded requests, " +
                               std::to_string(modelled.size()) + " modelled";
      for (std::size_t i = 0; i < recorded.size(); ++i) {
        const SharedRequest& r = recorded[i];
        for (long long off : r.lane_offset) {  // every recorded access lies inside the block's tiles
          if (off >= 0) { EXPECT_LE(off + r.bytes, static_cast<long long>(smem)) << r.label(); }
        }
        const auto rb = bs::mapping::bank_request(r);
        ++out.requests;
        out.conflicted += rb.conflicts() > 0;
        if (i >= modelled.size()) continue;
        const auto mb = bs::mapping::bank_request(modelled[i]);
        const bool same = rb.conflicts() == mb.conflicts() && rb.wavefronts == mb.wavefronts &&
                          r.op == modelled[i].op && r.bytes == modelled[i].bytes;
        out.agree += same;
        if (!same && out.first_difference.empty())
          out.first_difference = "block (" + std::to_string(b.x) + "," + std::to_string(b.y) + ") warp " +
                                 std::to_string(w) + " request " + std::to_string(i) + " " + r.label() + ": recorded " +
                                 std::to_string(rb.wavefronts) + " wavefronts (" + std::to_string(rb.conflicts()) +
                                 " conflicts), model " + modelled[i].label() + " " + std::to_string(mb.wavefronts) +
                                 " (" + std::to_string(mb.conflicts()) + ")";
      }
    }
  }
  return out;
}

void expect_all_agree(MatmulKernel k, const MatmulConfig& c, const Shape& s) {
  const Comparison cmp = compare(k, c, s);
  EXPECT_GT(cmp.requests, 0u);
  std::cout << "[ banks   ] " << matmul_kernel_info(k).id << " | " << c.label << " | " << s.name() << ": " << cmp.agree
            << " of " << cmp.requests << " requests agree, " << cmp.conflicted << " with conflicts\n";
  EXPECT_EQ(cmp.agree, cmp.requests) << matmul_kernel_info(k).id << " " << c.label << " at " << s.name() << ": "
                                     << cmp.first_difference;
}

TEST(SharedBanksRecorded, K3MatchesTheModelAtOddSizesForEveryTile) {
  for (int T : kK3Tiles) {
    const MatmulConfig c =
        make_block_config(MatmulKernel::SmemTiled, Dim3{static_cast<unsigned>(T), static_cast<unsigned>(T), 1});
    expect_all_agree(MatmulKernel::SmemTiled, c, Shape{37, 53, 41});
  }
}

TEST(SharedBanksRecorded, K3IsConflictFree) {
  const MatmulConfig c = make_block_config(MatmulKernel::SmemTiled, Dim3{16, 16, 1});
  EXPECT_EQ(compare(MatmulKernel::SmemTiled, c, Shape{37, 53, 41}).conflicted, 0u);
}

TEST(SharedBanksRecorded, K4ToK7MatchTheModelForEveryCompiledTile) {
  const Shape s{131, 67, 45};
  for (MatmulKernel k :
       {MatmulKernel::Blocktile1D, MatmulKernel::Blocktile2D, MatmulKernel::Vectorized, MatmulKernel::Warptile})
    for (const MatmulConfig& c : matmul_kernel_info(k).configs) expect_all_agree(k, c, s);
}

TEST(SharedBanksRecorded, K5ReadsBWithConflictsAndK7WithNone) {
  // k5's lanes read B TN words apart: the bank view's example of a conflicted load.
  EXPECT_GT(
      compare(MatmulKernel::Blocktile2D, matmul_kernel_info(MatmulKernel::Blocktile2D).configs[0], Shape{130, 130, 17})
          .conflicted,
      0u);
  // k7's loads are conflict-free; its transposing A stores are padded away where the stages fit.
  const MatmulConfig c = matmul_kernel_info(MatmulKernel::Warptile).configs[0];
  EXPECT_EQ(compare(MatmulKernel::Warptile, c, Shape{130, 130, 17}).conflicted, 0u);
}

TEST(SharedBanksRecorded, MmaSyncRungMatchesTheModelAtTwoSizes) {
  const MatmulConfig c = matmul_kernel_info(MatmulKernel::Tc2MmaSync).configs[0];
  expect_all_agree(MatmulKernel::Tc2MmaSync, c, Shape{130, 67, 75});
  expect_all_agree(MatmulKernel::Tc2MmaSync, c, Shape{128, 128, 64});
  // Its swizzle makes every ldmatrix and cp.async request conflict-free.
  EXPECT_EQ(compare(MatmulKernel::Tc2MmaSync, c, Shape{128, 128, 64}).conflicted, 0u);
}

// The comparison can fail: a model without T2's swizzle, or with one padding word per row.
TEST(SharedBanksRecorded, APerturbedModelFailsTheComparison) {
  const MatmulConfig t2 = matmul_kernel_info(MatmulKernel::Tc2MmaSync).configs[0];
  SharedModelOptions no_swizzle;
  no_swizzle.swizzle = false;
  Comparison cmp = compare(MatmulKernel::Tc2MmaSync, t2, Shape{130, 67, 75}, no_swizzle);
  EXPECT_LT(cmp.agree, cmp.requests) << "T2 without the swizzle agreed with the recording";

  SharedModelOptions padded;
  padded.pad_words = 1;
  const MatmulConfig k3 = make_block_config(MatmulKernel::SmemTiled, Dim3{16, 16, 1});
  cmp = compare(MatmulKernel::SmemTiled, k3, Shape{37, 53, 41}, padded);
  EXPECT_LT(cmp.agree, cmp.requests) << "k3 with a padding word agreed with the recording";
  cmp = compare(MatmulKernel::Warptile, matmul_kernel_info(MatmulKernel::Warptile).configs[0], Shape{130, 130, 17},
                padded);
  EXPECT_LT(cmp.agree, cmp.requests) << "k7 with a padding word agreed with the recording";
}

TEST(SharedBanksRecorded, RequestsNameTheirSourceLine) {
  Buffers buf(Shape{37, 53, 41}, Precision::Fp32);
  const MatmulConfig c = make_block_config(MatmulKernel::SmemTiled, Dim3{16, 16, 1});
  auto rec = record_shared(MatmulKernel::SmemTiled, c, buf.b, 37, 53, 41, {Dim3{0, 0, 0}});
  ASSERT_TRUE(rec.ok()) << rec.status().describe();
  const auto req = bs::group_requests((*rec)->warp_lanes(0, 0));
  ASSERT_GE(req.size(), 4u);
  EXPECT_NE(req[2].label().find("load As[ty][k] (k3_smem_tiled.hpp:"), std::string::npos) << req[2].label();
  EXPECT_GT(req[2].site.line, 0u);
  EXPECT_EQ(req[0].op, bs::SharedOp::Store);
}

TEST(SharedBanksRecorded, LaunchTotalsScaleTheSampleToTheGrid) {
  const MatmulConfig c = make_block_config(MatmulKernel::SmemTiled, Dim3{16, 16, 1});
  auto m = model_shared_launch(MatmulKernel::SmemTiled, c, 64, 64, 64, 1000);  // every block of 4 x 4
  ASSERT_TRUE(m.ok());
  // 16 blocks x 8 warps x 4 phases x (2 stores, 32 loads), one wavefront each.
  EXPECT_DOUBLE_EQ(m->totals.st_requests, 16.0 * 8 * 4 * 2);
  EXPECT_DOUBLE_EQ(m->totals.ld_requests, 16.0 * 8 * 4 * 32);
  EXPECT_DOUBLE_EQ(m->totals.ld_wavefronts, m->totals.ld_requests);
  EXPECT_DOUBLE_EQ(m->totals.ld_conflicts(), 0.0);
}

// The lab's replay of one block (MatmulLab::recorded_shared_requests, the Memory tab's) packs and
// touches only what that block reads; its requests equal those of a replay over fully packed
// matrices (record_shared on Buffers, as above), for the first, an interior and the last (edge)
// block of an odd-sized problem, every warp, FP32 rungs and T2.
TEST(SharedBanksRecorded, TheLabsOneBlockReplayEqualsAReplayOverTheWholeMatrices) {
  bs::lab::Backend cpu;
  cpu.kind = bs::BackendKind::CpuSimulation;
  cpu.sim_workers = 1;
  cpu.limits = bs::sim::simulator_limits(1);
  const Shape s{301, 269, 71};
  for (MatmulKernel k : {MatmulKernel::SmemTiled, MatmulKernel::Vectorized, MatmulKernel::Tc2MmaSync}) {
    const MatmulKernelInfo& info = matmul_kernel_info(k);
    SCOPED_TRACE(info.id);
    auto created = MatmulLab::create(cpu);
    ASSERT_TRUE(created.ok()) << created.status().describe();
    MatmulLab& lab = **created;
    ASSERT_TRUE(lab.set_setting("precision", bs::matmul::to_string(info.precision)).ok());
    ASSERT_TRUE(lab.set_matrices({s.M, s.N, s.K, Pattern::Uniform, Pattern::Normal, 7}).ok());
    bs::LaunchRecord shown;
    shown.kernel = info.id;
    shown.request.compiled = 0;
    shown.request.block = Dim3{16, 16, 1};  // k3 takes any block; the others ignore it
    const auto what = lab.resolve(shown.kernel, shown.request);
    ASSERT_TRUE(what.has_value());
    const MatmulConfig c = what->second;
    Buffers buf(s, info.precision);
    const bs::LaunchConfig lc = matmul_launch_config(k, c, s.M, s.N, s.K);
    const auto blocks = sample_blocks(lc);
    auto whole = record_shared(k, c, buf.b, s.M, s.N, s.K, blocks, 4096);
    ASSERT_TRUE(whole.ok()) << whole.status().describe();
    const unsigned warps = static_cast<unsigned>(lc.block.volume() / 32);
    for (Dim3 b : blocks)
      for (unsigned w = 0; w < warps; ++w) {
        auto got = lab.recorded_shared_requests(shown, b, w, 4096);
        ASSERT_TRUE(got.ok()) << got.status().describe();
        const unsigned long long lin = b.x + static_cast<unsigned long long>(lc.grid.x) * b.y;
        const auto want = bs::group_requests((*whole)->warp_lanes(lin, w));
        ASSERT_EQ(got->size(), want.size()) << "block (" << b.x << "," << b.y << ") warp " << w;
        ASSERT_FALSE(want.empty());
        for (std::size_t i = 0; i < want.size(); ++i) {
          EXPECT_EQ((*got)[i].lane_offset, want[i].lane_offset) << "request " << i;
          EXPECT_EQ((*got)[i].label(), want[i].label()) << "request " << i;
        }
      }
  }
}

}  // namespace
