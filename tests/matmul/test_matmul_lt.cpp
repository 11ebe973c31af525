// The cuBLASLt ceilings without a GPU: how a search is summed up (the fastest candidate that ran,
// its name, the note with the candidates' range and failures) on candidates written here by hand,
// and the CPU backend refusing cuBLASLt with the reason. The GPU half is test_matmul_lt_gpu.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "labs/matmul/matmul_engine.hpp"
#include "labs/matmul/matmul_lab.hpp"
#include "simulator/grid_simulator.hpp"

namespace bs::matmul {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

LtAlgo algo(int id, double ms, std::string failed = "") {
  LtAlgo a;
  a.id = id;
  a.tile = "128x256";
  a.stages = "64x4";
  a.ms = ms;
  a.failed = std::move(failed);
  return a;
}

TEST(MatmulLt, TheFastestIsTheSmallestMedianAmongTheCandidatesThatRan) {
  // Failed and untimed candidates never win, however small their time; ties keep the heuristic's
  // earlier candidate.
  const std::vector<LtAlgo> c = {algo(1, 0.9), algo(2, 0.1, "CUBLAS_STATUS_NOT_SUPPORTED"),
                                 algo(3, 0.0), algo(4, 0.7),
                                 algo(5, 0.7), algo(6, 1.4)};
  EXPECT_EQ(lt_fastest(c), 3);
  EXPECT_EQ(lt_fastest({}), -1);
  EXPECT_EQ(lt_fastest({algo(7, 0.5, "failed")}), -1);
  EXPECT_EQ(lt_fastest({algo(8, 2.5)}), 0);
}

TEST(MatmulLt, AnAlgorithmIsNamedByEveryConfigurationAttribute) {
  LtAlgo a = algo(66, 1.0);
  a.split_k = 1;
  a.swizzle = 1;
  a.cluster = "2x1x1";
  const std::string t = lt_algo_text(a);
  EXPECT_TRUE(has(t, "algo 66")) << t;
  EXPECT_TRUE(has(t, "tile 128x256")) << t;
  EXPECT_TRUE(has(t, "stages 64x4")) << t;
  EXPECT_TRUE(has(t, "split-K 1")) << t;
  EXPECT_TRUE(has(t, "swizzle 1")) << t;
  EXPECT_TRUE(has(t, "cluster 2x1x1")) << t;
  // Split-K says how its partial sums meet (cublasLtReductionScheme_t: 1 in place, 2 compute
  // type, 4 output type).
  a.split_k = 4;
  a.reduction = 2;
  EXPECT_TRUE(has(lt_algo_text(a), "split-K 4 (reduced in a compute-type workspace)")) << lt_algo_text(a);
  a.reduction = 1;
  EXPECT_TRUE(has(lt_algo_text(a), "split-K 4 (reduced in place in C)")) << lt_algo_text(a);
  // Attributes the library left undefined say so rather than printing nothing.
  LtAlgo bare;
  bare.id = 3;
  EXPECT_TRUE(has(lt_algo_text(bare), "tile undefined")) << lt_algo_text(bare);
  EXPECT_FALSE(has(lt_algo_text(bare), "cluster")) << lt_algo_text(bare);
}

TEST(MatmulLt, TheNoteCountsTheCandidatesGivesTheirRangeAndNamesTheOneKept) {
  LtSearch s;
  s.requested = 8;
  s.repeats = 5;
  s.candidates = {algo(21, 1.25), algo(6, 0.5, "CUBLAS_STATUS_NOT_SUPPORTED"), algo(31, 0.875), algo(40, 2.0)};
  s.best = lt_fastest(s.candidates);
  ASSERT_EQ(s.best, 2);
  const std::string note = lt_search_note(s);
  EXPECT_TRUE(has(note, "returned 4 candidates (asked for 8)")) << note;
  EXPECT_TRUE(has(note, "3 tried")) << note;
  EXPECT_TRUE(has(note, "median of 5")) << note;
  EXPECT_TRUE(has(note, "from 0.875 ms to 2 ms")) << note;
  EXPECT_TRUE(has(note, "the heuristic's #3: algo 31")) << note;
  EXPECT_TRUE(has(note, "its first choice, algo 21")) << note;
  EXPECT_TRUE(has(note, "took 1.25 ms")) << note;
  EXPECT_TRUE(has(note, "could not run: algo 6: CUBLAS_STATUS_NOT_SUPPORTED")) << note;
  const std::string label = lt_search_label(s);
  EXPECT_EQ(label.rfind("best of 4: algo 31, tile 128x256", 0), 0u) << label;
  EXPECT_TRUE(has(label, "; 3 ran in 0.875 ms to 2 ms, 1 failed")) << label;

  // The heuristic's first choice kept: no second mention of it.
  s.candidates = {algo(21, 0.5), algo(6, 0.75)};
  s.best = lt_fastest(s.candidates);
  EXPECT_FALSE(has(lt_search_note(s), "its first choice")) << lt_search_note(s);
  // None ran: said, with no algorithm named as kept.
  s.candidates = {algo(21, 0, "out of workspace")};
  s.best = lt_fastest(s.candidates);
  EXPECT_TRUE(has(lt_search_note(s), "none ran")) << lt_search_note(s);
  EXPECT_TRUE(has(lt_search_label(s), "no candidate ran")) << lt_search_label(s);
}

lab::Backend cpu_backend() {
  lab::Backend b;
  b.kind = BackendKind::CpuSimulation;
  b.sim_workers = 1;
  b.limits = sim::simulator_limits(1);
  return b;
}

TEST(MatmulLt, TheCpuBackendRefusesCublasLtWithTheReason) {
  auto engine = make_cpu_engine(cpu_backend());
  const std::vector<float> a(7 * 5, 1.0f), b(5 * 3, 1.0f);
  ASSERT_TRUE(engine->set_matrices(a, b, 7, 3, 5, Precision::Fp32).ok());
  std::vector<float> out(7 * 3);
  for (Library l : {Library::LtSgemm, Library::LtBf16}) {
    const Result<double> t = engine->library_timed(l, out.data());
    ASSERT_FALSE(t.ok());
    EXPECT_TRUE(has(t.status().message, "GPU only")) << t.status().describe();
    const Result<LtSearch> s = engine->lt_search(l);
    ASSERT_FALSE(s.ok());
    EXPECT_TRUE(has(s.status().message, "cuBLASLt runs on the GPU only")) << s.status().describe();
    EXPECT_TRUE(engine->library_note(l).empty());
  }
  EXPECT_FALSE(engine->has_library());
}

TEST(MatmulLt, TheCpuLabListsNoCublasLtCeilingAndRefusesToRunOne) {
  auto created = MatmulLab::create(cpu_backend());
  ASSERT_TRUE(created.ok()) << created.status().describe();
  MatmulLab& lab = **created;
  ASSERT_TRUE(lab.set_matrices({9, 7, 5, Pattern::Uniform, Pattern::Uniform, 3}).ok());
  for (const char* precision : {"fp32", "bf16"}) {
    SCOPED_TRACE(precision);
    ASSERT_TRUE(lab.set_setting("precision", precision).ok());
    for (const char* id : {kCublasLtSgemmId, kCublasLtBf16Id}) {
      EXPECT_EQ(lab.find_kernel(id), nullptr) << id;
      const LaunchRecord r = lab.run(id, KernelConfig{Dim3{0, 0, 0}, 0}, {});
      EXPECT_FALSE(r.ok()) << id;
    }
  }
}

}  // namespace
}  // namespace bs::matmul
