// The SASS metrics' arithmetic on every build (kernels/sampling/line_table: add_sass_counts,
// choose_sass_metrics): random counted pcs merged into a sampled profile, against sums made by a
// flat pass over the records; the metric names chosen from a chip's list.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "sampling/line_table.hpp"

namespace bs::sampling {
namespace {

TEST(SassMetricChoice, TakesTheAggregateWavefrontsAndTheirIdeal) {
  const std::vector<std::string> chip = {"smsp__sass_inst_executed",
                                         "smsp__sass_thread_inst_executed",
                                         "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_op_ld",
                                         "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_op_ld_ideal",
                                         "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
                                         "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal",
                                         "smsp__sass_sectors_mem_global",
                                         "smsp__sass_sectors_mem_global_ideal"};
  const SassMetricNames n = choose_sass_metrics(chip);
  EXPECT_EQ(n.executed, "smsp__sass_inst_executed");
  EXPECT_EQ(n.thread_executed, "smsp__sass_thread_inst_executed");
  EXPECT_EQ(n.shared_wavefronts, "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared");
  EXPECT_EQ(n.shared_ideal, "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal");
}

TEST(SassMetricChoice, FallsBackToTheShortestSharedWavefrontPairAndNeverHalfAPair) {
  // Another spelling, a name without its ideal (not taken), a longer pair (not taken).
  const std::vector<std::string> chip = {"smsp__sass_inst_executed",
                                         "smsp__sass_wavefronts_shared_op_st",
                                         "smsp__sass_wavefronts_shared_op_ld",
                                         "smsp__sass_wavefronts_shared_op_ld_ideal",
                                         "smsp__sass_wavefronts_shared_op_atom_x",
                                         "smsp__sass_wavefronts_shared_op_atom_x_ideal"};
  const SassMetricNames n = choose_sass_metrics(chip);
  EXPECT_EQ(n.thread_executed, "");
  EXPECT_EQ(n.shared_wavefronts, "smsp__sass_wavefronts_shared_op_ld");
  EXPECT_EQ(n.shared_ideal, "smsp__sass_wavefronts_shared_op_ld_ideal");
  const SassMetricNames none = choose_sass_metrics({"smsp__sass_inst_executed", "smsp__sass_data_bytes_mem_shared"});
  EXPECT_EQ(none.shared_wavefronts, "");
  EXPECT_EQ(none.shared_ideal, "");
  EXPECT_EQ(choose_sass_metrics({}).executed, "");
}

TEST(SassTable, RandomCountsLandOnTheSampledTablesLines) {
  std::mt19937 rng(std::random_device{}());
  const int n_pcs = 41 + static_cast<int>(rng() % 60);
  std::map<std::uint64_t, int> line_of;  // pc -> line (0: unknown), as a line table would say
  for (int i = 0; i < n_pcs; ++i) line_of[16u * i] = static_cast<int>(rng() % 13);
  const std::string file = "/src/k.cu";
  auto locate = [&](std::uint64_t pc) { return SourceLocation{line_of[pc] ? file : "", line_of[pc]}; };

  // A sampled profile of some of the pcs (every third).
  std::vector<RawPc> sampled;
  for (const auto& [pc, line] : line_of)
    if (pc % 48 == 0)
      sampled.push_back(
          {"k", 7, pc, {{"smsp__pcsamp_warps_issue_stalled_barrier", static_cast<long long>(1 + pc % 5)}}});
  LineProfile p;
  fill_tables(p, sampled, "k", locate);
  const std::size_t sampled_lines = p.lines.size();
  const long long sampled_total = p.total_samples;

  // Counted records: every pc in two records (as when each metric is a record of its own),
  // some pcs that never ran, and another function's.
  std::vector<RawSassPc> counted;
  std::map<int, SassCounts> want_line;
  SassCounts want_total;
  std::set<std::uint64_t> ran;
  for (const auto& [pc, line] : line_of) {
    if (rng() % 7 == 0) {
      counted.push_back({"k", 7, pc, {}});  // patched, never executed
      continue;
    }
    SassCounts a{static_cast<long long>(rng() % 1000 + 1), 0, 0, 0};
    a.thread_executed = a.executed * static_cast<long long>(rng() % 33);
    SassCounts b{0, 0, static_cast<long long>(rng() % 4) * 10, 0};
    b.shared_ideal = b.shared_wavefronts / 2;
    counted.push_back({"k", 7, pc, a});
    counted.push_back({"k", 7, pc, b});
    counted.push_back({"other", 9, pc, a});
    want_line[line] += a;
    want_line[line] += b;
    want_total += a;
    want_total += b;
    ran.insert(pc);
  }
  add_sass_counts(p, counted, "k", locate);

  EXPECT_EQ(p.total_samples, sampled_total) << "the samples are untouched";
  EXPECT_EQ(p.sass_total.executed, want_total.executed);
  EXPECT_EQ(p.sass_total.thread_executed, want_total.thread_executed);
  EXPECT_EQ(p.sass_total.shared_wavefronts, want_total.shared_wavefronts);
  EXPECT_EQ(p.sass_total.shared_ideal, want_total.shared_ideal);
  for (std::size_t i = 1; i < p.instructions.size(); ++i)
    EXPECT_LT(p.instructions[i - 1].pc_offset, p.instructions[i].pc_offset) << "instructions stay by pc, once each";
  for (const InstructionSamples& ins : p.instructions) {
    EXPECT_EQ(ins.line, line_of[ins.pc_offset]);
    EXPECT_TRUE(ran.count(ins.pc_offset) || ins.samples > 0)
        << "a pc that never ran and was never sampled is not listed";
  }
  std::map<int, int> seen;
  for (std::size_t i = 0; i < p.lines.size(); ++i) {
    const LineSamples& l = p.lines[i];
    ++seen[l.line];
    const SassCounts& w = want_line[l.line];
    EXPECT_EQ(l.sass.executed, w.executed) << "line " << l.line;
    EXPECT_EQ(l.sass.thread_executed, w.thread_executed) << "line " << l.line;
    EXPECT_EQ(l.sass.shared_wavefronts, w.shared_wavefronts) << "line " << l.line;
    EXPECT_EQ(l.sass.shared_ideal, w.shared_ideal) << "line " << l.line;
    if (i >= sampled_lines) { EXPECT_EQ(l.samples, 0) << "lines only counted come after the sampled ones"; }
  }
  for (const auto& [line, n] : seen) EXPECT_EQ(n, 1) << "line " << line << " listed once";
  for (const auto& [line, w] : want_line) {
    if (w.executed > 0) { EXPECT_EQ(seen.count(line), 1u) << "line " << line << " ran and must be listed"; }
  }

  // Counting again replaces the counts (a second profile of the same launch), never adds.
  add_sass_counts(p, counted, "k", locate);
  EXPECT_EQ(p.sass_total.executed, want_total.executed);
  EXPECT_EQ(p.lines.size(), seen.size());
}

TEST(SassTable, CountedLinesStayOutOfTheSampleDiff) {
  LineProfile a, b;
  fill_tables(a, {{"k", 1, 0, {{"barrier", 10}}}}, "k", [](std::uint64_t) { return SourceLocation{"f.cu", 3}; });
  fill_tables(b, {{"k", 1, 0, {{"barrier", 10}}}}, "k", [](std::uint64_t) { return SourceLocation{"f.cu", 3}; });
  add_sass_counts(a, {{"k", 1, 0, {5, 160, 0, 0}}, {"k", 1, 16, {5, 160, 0, 0}}}, "k", [](std::uint64_t pc) {
    return SourceLocation{"f.cu", pc == 0 ? 3 : 9};
  });
  ASSERT_EQ(a.lines.size(), 2u);
  EXPECT_EQ(a.lines[1].line, 9);
  EXPECT_DOUBLE_EQ(a.lines[1].sass.threads_per_warp(), 32.0);
  const auto d = diff_lines(a, b);
  ASSERT_EQ(d.size(), 1u) << "line 9 has no samples in either profile";
  EXPECT_EQ(d[0].line, 3);
}

TEST(SassCounts, RatiosOfWhatWasCounted) {
  SassCounts c{10, 240, 64, 32};
  EXPECT_DOUBLE_EQ(c.threads_per_warp(), 24.0);
  EXPECT_DOUBLE_EQ(c.conflict_ratio(), 2.0);
  EXPECT_DOUBLE_EQ(SassCounts{}.threads_per_warp(), 0.0);
  EXPECT_DOUBLE_EQ(SassCounts{}.conflict_ratio(), 0.0);
}

}  // namespace
}  // namespace bs::sampling
