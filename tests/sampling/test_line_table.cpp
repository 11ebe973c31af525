// The per-line arithmetic of the PC sampler (kernels/sampling/line_table), on every build: random
// raw records against totals counted another way (a flat pass over the records), the
// "_not_issued" subset kept out of the totals, launches adding up, and the names ncu shows.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "sampling/line_table.hpp"

namespace bs::sampling {
namespace {

const std::vector<std::string> kReasons = {
    "smsp__pcsamp_warps_issue_stalled_long_scoreboard", "smsp__pcsamp_warps_issue_stalled_barrier",
    "smsp__pcsamp_warps_issue_stalled_selected", "smsp__pcsamp_warps_issue_stalled_mio_throttle",
    "smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued"};

TEST(StallNames, LoseCuptisPrefixAndKeepTheRest) {
  EXPECT_EQ(stall_name("smsp__pcsamp_warps_issue_stalled_long_scoreboard"), "long_scoreboard");
  EXPECT_EQ(stall_name("smsp__pcsamp_warps_issue_stalled_mio_throttle_not_issued"), "mio_throttle_not_issued");
  EXPECT_EQ(stall_name("barrier"), "barrier");
  EXPECT_TRUE(counts_in_total("barrier"));
  EXPECT_FALSE(counts_in_total("barrier_not_issued"));
}

TEST(LineTable, RandomRecordsAddUpPerInstructionAndPerLine) {
  std::mt19937 rng(std::random_device{}());
  const int n_pcs = 37 + static_cast<int>(rng() % 50);
  // pc offset -> line, as a line table would say (several pcs per line, some lines unknown)
  std::map<std::uint64_t, int> line_of;
  for (int i = 0; i < n_pcs; ++i) line_of[16u * i] = static_cast<int>(rng() % 11);  // 0: unknown
  std::vector<RawPc> pcs;
  // Expected totals, counted straight from the records.
  std::map<std::uint64_t, long long> want_pc;
  std::map<int, long long> want_line;
  std::map<int, std::map<std::string, long long>> want_line_reason;
  long long want_total = 0, other_function = 0;
  const int launches = 3;
  for (int launch = 0; launch < launches; ++launch)
    for (const auto& [pc, line] : line_of) {
      RawPc r;
      r.function = rng() % 9 == 0 ? "_Z5otherv" : "_Z4mainv";
      r.pc_offset = pc;
      for (const auto& reason : kReasons) {
        if (rng() % 3 == 0) continue;
        const long long n = rng() % 100;
        r.stalls.push_back({reason, n});
        if (r.function != "_Z4mainv") {
          other_function += n;
          continue;
        }
        if (n > 0) want_line_reason[line][stall_name(reason)] += n;  // the subset is listed too
        if (reason.ends_with("_not_issued")) continue;               // but not counted twice
        want_pc[pc] += n;
        want_line[line] += n;
        want_total += n;
      }
      pcs.push_back(std::move(r));
    }
  LineProfile p;
  int located = 0;
  fill_tables(p, pcs, "_Z4mainv", [&](std::uint64_t pc) {
    ++located;
    const int line = line_of.at(pc);
    return SourceLocation{line ? "kernel.cu" : "", line};
  });
  EXPECT_EQ(p.function, "_Z4mainv");
  EXPECT_EQ(p.total_samples, want_total);
  EXPECT_EQ(static_cast<std::size_t>(located), p.instructions.size());  // once per distinct pc
  for (const auto& ins : p.instructions) {
    EXPECT_EQ(ins.samples, want_pc[ins.pc_offset]) << ins.pc_offset;
    EXPECT_EQ(ins.line, line_of.at(ins.pc_offset));
  }
  double share = 0;
  long long prev = -1;
  for (const auto& l : p.lines) {
    EXPECT_EQ(l.samples, want_line[l.line]) << l.line;
    EXPECT_EQ(l.file, l.line ? "kernel.cu" : "");
    share += l.share_pct;
    if (prev >= 0) { EXPECT_LE(l.samples, prev) << "lines are sorted, most samples first"; }
    prev = l.samples;
    long long from_reasons = 0, prev_reason = -1;
    for (const auto& s : l.stalls) {
      EXPECT_EQ(s.samples, want_line_reason[l.line][s.reason]) << l.line << " " << s.reason;
      if (counts_in_total(s.reason)) from_reasons += s.samples;
      if (prev_reason >= 0) { EXPECT_LE(s.samples, prev_reason); }
      prev_reason = s.samples;
    }
    EXPECT_EQ(from_reasons, l.samples);
  }
  if (want_total > 0) { EXPECT_NEAR(share, 100.0, 1e-9); }
  EXPECT_EQ(busiest_function(pcs), want_total >= other_function ? "_Z4mainv" : "_Z5otherv");
}

TEST(LineTable, NoSamplesGiveEmptyTables) {
  LineProfile p;
  fill_tables(p, {}, "_Z4mainv", [](std::uint64_t) { return SourceLocation{}; });
  EXPECT_EQ(p.total_samples, 0);
  EXPECT_TRUE(p.lines.empty());
  EXPECT_EQ(busiest_function({}), "");
}

LineProfile profile_of(const std::vector<std::pair<int, long long>>& line_samples, const char* reason) {
  std::vector<RawPc> pcs;
  std::uint64_t pc = 0;
  std::map<std::uint64_t, int> line_of;
  for (const auto& [line, n] : line_samples) {
    pcs.push_back({"_Z1kv", 0, pc, {{reason, n}}});
    line_of[pc] = line;
    pc += 16;
  }
  LineProfile p;
  fill_tables(p, pcs, "_Z1kv", [&](std::uint64_t at) { return SourceLocation{"k.cu", line_of.at(at)}; });
  return p;
}

TEST(LineDiff, SharesOfBothRunsAndTheLargestChangeFirst) {
  std::mt19937 rng(std::random_device{}());
  // A: lines 10, 11, 12; B: lines 11, 12, 13 (random counts): shares recomputed here by hand.
  std::vector<std::pair<int, long long>> a, b;
  long long ta = 0, tb = 0;
  for (int line : {10, 11, 12}) a.push_back({line, 1 + static_cast<long long>(rng() % 1000)}), ta += a.back().second;
  for (int line : {11, 12, 13}) b.push_back({line, 1 + static_cast<long long>(rng() % 1000)}), tb += b.back().second;
  const auto d = diff_lines(profile_of(a, "smsp__pcsamp_warps_issue_stalled_long_scoreboard"),
                            profile_of(b, "smsp__pcsamp_warps_issue_stalled_barrier"));
  ASSERT_EQ(d.size(), 4u);
  std::map<int, double> want_a, want_b;
  for (auto [l, n] : a) want_a[l] = 100.0 * n / ta;
  for (auto [l, n] : b) want_b[l] = 100.0 * n / tb;
  double prev = 1e9;
  for (const auto& x : d) {
    const bool in_a = want_a.count(x.line) > 0, in_b = want_b.count(x.line) > 0;
    EXPECT_NEAR(x.share_a, in_a ? want_a.at(x.line) : 0.0, 1e-9) << x.line;
    EXPECT_NEAR(x.share_b, in_b ? want_b.at(x.line) : 0.0, 1e-9) << x.line;
    EXPECT_EQ(x.top_a, in_a ? "long_scoreboard" : "");
    EXPECT_EQ(x.top_b, in_b ? "barrier" : "");
    EXPECT_LE(std::abs(x.diff()), prev + 1e-12) << "largest change first";
    prev = std::abs(x.diff());
  }
}

}  // namespace
}  // namespace bs::sampling
