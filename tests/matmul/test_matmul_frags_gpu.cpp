// Fragment tags recorded on the GPU (label gpu; kernels/labs/matmul/fragment_record.hpp): every
// tensor-core rung T1..T6 (every cluster size of T6) at an odd and a larger tile-multiple shape,
// through the lab as the views call it (MatmulLab::fragment_record on the shown launch): the tags
// the tagged variant's threads decoded from their own accumulator registers must agree with the
// PTX ISA model for 100% of C, every element tagged exactly once, each tile by the block the model
// names (persistent rungs: as the resident grid took them), no undecodable value; T2's operand
// record (ldmatrix) agrees with mma's A and B layouts; the probe launch leaves the lab's C as it
// was. A model with two lanes swapped must fail on exactly their elements. On a GPU without
// sm_90a the Hopper rungs are refused with the reason. Prints the table for the closing note.
// Skips visibly without a device.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <set>
#include <utility>

#include "device/cuda_device.hpp"
#include "labs/matmul/fragment_record.hpp"
#include "labs/matmul/matmul_lab.hpp"
#include "gpu_lab_support.hpp"
#include "matmul_test_support.hpp"
#include "skips.hpp"

namespace bs::matmul {
namespace {

using testing::Shape;

using testing::SharedLab;
SharedLab& shared_lab() { return testing::shared_gpu_lab(Precision::Bf16); }
[[maybe_unused]] ::testing::Environment* const release_lab_at_end =
    ::testing::AddGlobalTestEnvironment(new testing::ReleaseGpuLabAtEnd(&shared_lab));

#define REQUIRE_GPU()                      \
  MatmulLab* lab = shared_lab().lab.get(); \
  if (!lab) BS_SKIP_NO_GPU() << "no usable CUDA device: " << shared_lab().why_not.describe()

bool is_hopper(const MatmulLab& lab) {
  return lab.backend().limits.compute_major == 9 && lab.backend().limits.compute_minor == 0;
}

TEST(GpuFrags, EveryTensorCoreRungsRecordAgreesWithTheModel) {
  REQUIRE_GPU();
  std::printf("\n%-24s %-3s %-14s %10s %10s %6s %8s  %s\n", "rung", "cfg", "size", "elements", "agree", "once", "tiles",
              "operands");
  for (const Shape s : {Shape{129, 255, 67}, Shape{512, 384, 128}}) {
    const MatrixSpec spec{s.M, s.N, s.K, Pattern::Uniform, Pattern::Normal, (testing::test_seed() & 0xffffff) | 1};
    ASSERT_TRUE(lab->set_matrices(spec).ok()) << lab->status().describe();
    std::vector<float> before(static_cast<std::size_t>(s.M) * s.N), after(before.size());
    for (const auto& k : matmul_kernels(Precision::Bf16)) {
      for (std::size_t ci = 0; ci < k.configs.size(); ++ci) {
        SCOPED_TRACE(k.id + " config " + std::to_string(ci) + " at " + s.name());
        const LaunchRecord shown = lab->run(k.id, KernelConfig{k.configs[ci].block, static_cast<int>(ci)}, {});
        if (k.needs == RungNeeds::Sm90a && !is_hopper(*lab)) {
          EXPECT_TRUE(shown.refused);
          auto rec = lab->fragment_record(shown);
          EXPECT_FALSE(rec.ok());
          continue;
        }
        ASSERT_TRUE(shown.ok()) << shown.status.describe();
        EXPECT_TRUE(shown.check.passed()) << shown.check.summary();
        ASSERT_TRUE(lab->download_output(before.data()).ok());
        auto rec = lab->fragment_record(shown);
        ASSERT_TRUE(rec.ok()) << rec.status().describe();
        const FragmentRecord& r = **rec;
        EXPECT_TRUE(r.on_gpu);
        EXPECT_EQ(r.launch, shown.config);
        // The probe ran on buffers of its own: the lab's C is bit for bit what the rung wrote.
        ASSERT_TRUE(lab->download_output(after.data()).ok());
        EXPECT_EQ(std::memcmp(before.data(), after.data(), before.size() * sizeof(float)), 0)
            << "the probe launch disturbed the lab's C";
        auto model = lab->fragment_model(shown);
        ASSERT_TRUE(model.ok()) << model.status().describe();
        const FragmentComparison cmp = compare_with_model(r, *model);
        EXPECT_EQ(cmp.elements, static_cast<long long>(s.M) * s.N);
        EXPECT_TRUE(cmp.all_agree()) << cmp.summary()
                                     << (k.kernel == MatmulKernel::Tc1Wmma
                                             ? " (WMMA's layout is opaque: if only T1 differs, this GPU's "
                                               "compiler holds the accumulators otherwise than mma's C layout "
                                               "twice; the record is right, the model is the guess)"
                                             : "");
        EXPECT_EQ(cmp.untagged, 0) << "elements no register named";
        EXPECT_EQ(cmp.multiple, 0) << "elements named twice";
        EXPECT_EQ(r.undecodable, 0u);
        EXPECT_EQ(r.tile_conflicts, 0u);
        long long tiles = 0, tiles_with_block = 0;
        for (int b : r.tile_block) ++tiles, tiles_with_block += b >= 0;
        EXPECT_EQ(tiles_with_block, tiles);
        std::string ops = "-";
        if (k.kernel == MatmulKernel::Tc2MmaSync) {
          auto om = operand_model(k.kernel);
          ASSERT_TRUE(om.ok());
          const OperandComparison oc = compare_operands(r.operands, *om);
          EXPECT_GT(oc.elements, 0);
          EXPECT_EQ(oc.agree, oc.elements) << oc.summary();
          ops = std::to_string(oc.agree) + "/" + std::to_string(oc.elements);
        } else {
          EXPECT_TRUE(r.operands.empty());
        }
        std::printf("%-24s %-3zu %-14s %10lld %10lld %6s %8lld  %s\n", k.id.c_str(), ci, s.name().c_str(), cmp.elements,
                    cmp.agree, cmp.untagged == 0 && cmp.multiple == 0 ? "yes" : "NO", tiles, ops.c_str());
      }
    }
  }
}

// The GPU's record against a model with lanes 3 and 7 of the block's last warp swapped (a
// consumer warpgroup's on the Hopper rungs): the comparison must fail on exactly the elements they hold.
TEST(GpuFrags, SwappingTwoLanesInTheModelFails) {
  REQUIRE_GPU();
  const Shape s{129, 255, 67};
  ASSERT_TRUE(lab->set_matrices({s.M, s.N, s.K, Pattern::Uniform, Pattern::Uniform, 7}).ok());
  for (const char* id : {"tc2_mma_sync", "tc3_wgmma", "tc4_warp_specialized"}) {
    SCOPED_TRACE(id);
    const MatmulKernelInfo* k = find_matmul_kernel(id);
    ASSERT_NE(k, nullptr);
    if (k->needs == RungNeeds::Sm90a && !is_hopper(*lab)) continue;
    const LaunchRecord shown = lab->run(id, KernelConfig{k->configs[0].block, 0}, {});
    ASSERT_TRUE(shown.ok()) << shown.status.describe();
    auto rec = lab->fragment_record(shown);
    ASSERT_TRUE(rec.ok()) << rec.status().describe();
    auto model = lab->fragment_model(shown);
    ASSERT_TRUE(model.ok());
    const int last_warp = static_cast<int>(k->configs[0].block.x) - 32;  // a consumer on the Hopper rungs
    const int a = last_warp + 3, b = last_warp + 7;
    const FragmentModel& m = *model;
    FragmentModel swapped = [&](int row, int col) {
      ModelTag t = m(row, col);
      if (t.tag.thread == a) t.tag.thread = static_cast<std::int16_t>(b);
      else if (t.tag.thread == b) t.tag.thread = static_cast<std::int16_t>(a);
      return t;
    };
    std::set<std::pair<int, int>> affected, reported;
    for (int row = 0; row < s.M; ++row)
      for (int col = 0; col < s.N; ++col)
        if (const int t = m(row, col).tag.thread; t == a || t == b) affected.insert({row, col});
    ASSERT_FALSE(affected.empty());
    const FragmentComparison cmp = compare_with_model(**rec, swapped, static_cast<std::size_t>(s.M) * s.N);
    EXPECT_FALSE(cmp.all_agree());
    for (const FragmentDifference& d : cmp.first) reported.insert({d.row, d.col});
    EXPECT_EQ(reported, affected);
  }
}

}  // namespace
}  // namespace bs::matmul
