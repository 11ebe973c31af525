// The cuBLASLt ceilings on the CUDA backend (label gpu): at odd sizes, the algorithm each search
// kept writes the product the CPU computes here (double accumulation of the same FP32 or BF16
// numbers) within the lab's tolerance; the record names the algorithm and how many candidates
// were tried; a second run keeps the same algorithm (the search is made once per problem); and
// cuBLAS's reference ceiling names cuBLASLt's heuristic first choice. Skips visibly without a
// device.
#include <gtest/gtest.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "device/cuda_device.hpp"
#include "labs/matmul/matmul.hpp"
#include "labs/matmul/matmul_engine.hpp"
#include "labs/matmul/matmul_lab.hpp"
#include "gpu_lab_support.hpp"
#include "matmul_test_support.hpp"
#include "skips.hpp"

namespace bs::matmul {
namespace {

using testing::Shape;

using testing::SharedLab;
SharedLab& shared_lab() { return testing::shared_gpu_lab(Precision::Fp32); }
[[maybe_unused]] ::testing::Environment* const release_lab_at_end =
    ::testing::AddGlobalTestEnvironment(new testing::ReleaseGpuLabAtEnd(&shared_lab));

#define REQUIRE_GPU()                      \
  MatmulLab* lab = shared_lab().lab.get(); \
  if (!lab) BS_SKIP_NO_GPU() << "no usable CUDA device: " << shared_lab().why_not.describe()

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The lab's matrices regenerated here (rounded to BF16 for a BF16 problem) and their product.
struct Expected {
  std::vector<float> ref;
  ErrorScale scale;
};
Expected expected(const MatrixSpec& spec, Precision p) {
  std::vector<float> A = generate_matrix(spec.M, spec.K, spec.a, spec.seed),
                     B = generate_matrix(spec.K, spec.N, spec.b, spec.seed + 1);
  if (p == Precision::Bf16) round_to_bf16(A), round_to_bf16(B);
  Expected e;
  e.ref.resize(static_cast<std::size_t>(spec.M) * spec.N);
  EXPECT_TRUE(cpu_reference(A.data(), B.data(), e.ref.data(), spec.M, spec.N, spec.K).ok());
  e.scale = error_scale(A.data(), B.data(), spec.M, spec.N, spec.K);
  return e;
}

// The ceiling `id` of precision `p` at shape `s`, run twice through the lab.
void run_lt_ceiling(MatmulLab& lab, Precision p, const char* id, const char* other_id, const Shape& s) {
  SCOPED_TRACE(std::string(id) + " at " + s.name());
  ASSERT_TRUE(lab.set_setting("precision", to_string(p)).ok());
  const MatrixSpec spec{s.M, s.N, s.K, Pattern::Uniform, Pattern::Normal, (testing::test_seed() & 0xffffff) | 1};
  ASSERT_TRUE(lab.set_matrices(spec).ok()) << lab.status().describe();
  const Expected want = expected(spec, p);

  // Listed for its own precision only, as a ceiling that bounds no other kernel.
  const lab::KernelInfo* info = lab.find_kernel(id);
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->group, KernelGroup::Ceiling);
  EXPECT_FALSE(info->bounds_others);
  EXPECT_TRUE(info->timed_only);
  EXPECT_EQ(lab.find_kernel(other_id), nullptr);

  const LaunchRecord r = lab.run(id, KernelConfig{Dim3{0, 0, 0}, 0}, {});
  ASSERT_TRUE(r.ok()) << r.status.describe();
  EXPECT_GT(r.kernel_ms(), 0.0);
  // The configuration names the algorithm kept and how many candidates it was the best of.
  EXPECT_EQ(r.config_label.rfind("best of ", 0), 0u) << r.config_label;
  EXPECT_TRUE(has(r.config_label, ": algo ")) << r.config_label;
  EXPECT_TRUE(has(r.config_label, "tile ")) << r.config_label;
  EXPECT_TRUE(has(r.config_label, "split-K ")) << r.config_label;
  EXPECT_TRUE(has(r.config_label, " ran in ")) << r.config_label;
  std::cout << "[ cuBLASLt ] " << id << " at " << s.name() << ": " << r.config_label << ", " << r.kernel_ms()
            << " ms\n";
  std::vector<float> got(want.ref.size());
  ASSERT_TRUE(lab.download_output(got.data()).ok());
  const Verification v = verify(got.data(), want.ref.data(), s.M, s.N, want.scale);
  EXPECT_TRUE(v.passed) << "(seed " << spec.seed << "): " << v.summary();
  EXPECT_TRUE(r.check.passed()) << r.check.summary();

  // Searched once for the problem: the second run keeps the same algorithm.
  const LaunchRecord again = lab.run(id, KernelConfig{Dim3{0, 0, 0}, 0}, {});
  ASSERT_TRUE(again.ok()) << again.status.describe();
  EXPECT_EQ(again.config_label, r.config_label);

  // cuBLAS's reference ceiling names cuBLASLt's first choice for the same problem.
  bool named = false;
  for (const lab::Ceiling& c : lab.problem().ceilings)
    if (c.name.rfind("cuBLAS", 0) == 0) {
      named = true;
      EXPECT_TRUE(has(c.note, "cuBLASLt's heuristic first choice for this problem")) << c.note;
      EXPECT_TRUE(has(c.note, ": algo ")) << c.note;
      std::cout << "[ cuBLAS   ] " << c.name << ": " << c.note << "\n";
    }
  EXPECT_TRUE(named) << "no cuBLAS ceiling in the problem";
}

TEST(GpuLt, SgemmBestOfTheHeuristicMatchesTheFp32Product) {
  REQUIRE_GPU();
  run_lt_ceiling(*lab, Precision::Fp32, kCublasLtSgemmId, kCublasLtBf16Id, {517, 389, 263});
}

TEST(GpuLt, Bf16BestOfTheHeuristicMatchesTheBf16Product) {
  REQUIRE_GPU();
  run_lt_ceiling(*lab, Precision::Bf16, kCublasLtBf16Id, kCublasLtSgemmId, {301, 203, 137});
  run_lt_ceiling(*lab, Precision::Bf16, kCublasLtBf16Id, kCublasLtSgemmId, {256, 512, 320});
}

// The engine itself: the search's candidates, each timed or failed with the reason, the note
// that counts them, and a refusal where the problem has no BF16 copies.
TEST(GpuLt, TheSearchTimesEveryCandidateAndItsNoteCountsThem) {
  REQUIRE_GPU();
  auto engine = make_cuda_engine(lab->backend());
  ASSERT_TRUE(engine.ok()) << engine.status().describe();
  MatmulEngine& e = **engine;
  const Shape s{517, 389, 263};
  const MatrixSpec spec{s.M, s.N, s.K, Pattern::Uniform, Pattern::Uniform, (testing::test_seed() & 0xffffff) | 5};
  const std::vector<float> A = generate_matrix(s.M, s.K, spec.a, spec.seed),
                           B = generate_matrix(s.K, s.N, spec.b, spec.seed + 1);
  ASSERT_TRUE(e.set_matrices(A, B, s.M, s.N, s.K, Precision::Fp32).ok());
  EXPECT_TRUE(e.library_note(Library::LtSgemm).empty()) << "a note before any search";
  const Result<LtSearch> found = e.lt_search(Library::LtSgemm);
  ASSERT_TRUE(found.ok()) << found.status().describe();
  const LtSearch& search = *found;
  ASSERT_FALSE(search.candidates.empty());
  EXPECT_LE(static_cast<int>(search.candidates.size()), search.requested);
  ASSERT_GE(search.best, 0);
  for (const LtAlgo& c : search.candidates) {
    EXPECT_GE(c.id, 0);
    EXPECT_TRUE(c.failed.empty() ? c.ms > 0 : c.ms == 0) << lt_algo_text(c) << ": " << c.failed;
    if (c.failed.empty()) { EXPECT_LE(search.candidates[static_cast<std::size_t>(search.best)].ms, c.ms); }
  }
  const std::string note = e.library_note(Library::LtSgemm);
  EXPECT_TRUE(has(note, "returned " + std::to_string(search.candidates.size()) + " candidate")) << note;
  EXPECT_TRUE(has(note, "kept the fastest")) << note;
  std::cout << "[ cuBLASLt ] " << note << "\n";
  // The engine's own launch of the kept algorithm writes the product.
  std::vector<float> ref(static_cast<std::size_t>(s.M) * s.N), got(ref.size());
  ASSERT_TRUE(cpu_reference(A.data(), B.data(), ref.data(), s.M, s.N, s.K).ok());
  const Result<double> t = e.library_timed(Library::LtSgemm, e.own_output());
  ASSERT_TRUE(t.ok()) << t.status().describe();
  ASSERT_TRUE(e.download(got.data()).ok());
  const Verification v = verify(got.data(), ref.data(), s.M, s.N, error_scale(A.data(), B.data(), s.M, s.N, s.K));
  EXPECT_TRUE(v.passed) << v.summary();
  // FP32 matrices have no BF16 copies: the BF16 ceiling says so, as a value.
  const Result<double> bf16 = e.library_timed(Library::LtBf16, e.own_output());
  ASSERT_FALSE(bf16.ok());
  EXPECT_TRUE(has(bf16.status().message, "no BF16 copies")) << bf16.status().describe();
}

}  // namespace
}  // namespace bs::matmul
