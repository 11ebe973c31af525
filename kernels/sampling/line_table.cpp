#include "sampling/line_table.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace bs::sampling {
namespace {

constexpr std::string_view kStallPrefix = "smsp__pcsamp_warps_issue_stalled_";
constexpr std::string_view kNotIssued = "_not_issued";

long long total_of(const std::vector<StallSamples>& stalls) {
  long long n = 0;
  for (const auto& s : stalls)
    if (counts_in_total(s.reason)) n += s.samples;
  return n;
}

void add_stalls(std::map<std::string, long long>& into, const std::vector<StallSamples>& stalls) {
  for (const auto& s : stalls)
    if (s.samples > 0) into[s.reason] += s.samples;
}

std::vector<StallSamples> largest_first(const std::map<std::string, long long>& by_reason) {
  std::vector<StallSamples> v;
  for (const auto& [reason, n] : by_reason) v.push_back({reason, n});
  std::stable_sort(v.begin(), v.end(),
                   [](const StallSamples& a, const StallSamples& b) { return a.samples > b.samples; });
  return v;
}

// The function whose pcs weigh the most (`weight` of each), the first by name on a tie.
template <class Pc, class Weight>
std::string heaviest_function(const std::vector<Pc>& pcs, Weight weight) {
  std::map<std::string, long long> per;
  for (const auto& pc : pcs) per[pc.function] += weight(pc);
  std::string best;
  long long most = -1;
  for (const auto& [f, n] : per)
    if (n > most) most = n, best = f;
  return best;
}

}  // namespace

std::string stall_name(std::string_view cupti_name) {
  if (cupti_name.starts_with(kStallPrefix)) cupti_name.remove_prefix(kStallPrefix.size());
  return std::string(cupti_name);
}

bool counts_in_total(std::string_view reason) { return !reason.ends_with(kNotIssued); }

std::string busiest_function(const std::vector<RawPc>& pcs) {
  return heaviest_function(pcs, [](const RawPc& pc) { return total_of(pc.stalls); });
}

void fill_tables(LineProfile& profile, const std::vector<RawPc>& pcs, const std::string& function,
                 const std::function<SourceLocation(std::uint64_t)>& locate) {
  std::map<std::uint64_t, std::map<std::string, long long>> per_pc;
  for (const auto& pc : pcs) {
    if (pc.function != function) continue;
    std::vector<StallSamples> named;
    for (const auto& s : pc.stalls) named.push_back({stall_name(s.reason), s.samples});
    add_stalls(per_pc[pc.pc_offset], named);
  }
  profile.function = function;
  profile.instructions.clear();
  profile.lines.clear();
  profile.total_samples = 0;
  std::map<std::tuple<std::string, int>, std::map<std::string, long long>> per_line;
  for (const auto& [offset, by_reason] : per_pc) {
    InstructionSamples ins;
    ins.pc_offset = offset;
    const SourceLocation where = locate(offset);
    ins.file = where.file;
    ins.line = where.line;
    ins.stalls = largest_first(by_reason);
    ins.samples = total_of(ins.stalls);
    profile.total_samples += ins.samples;
    add_stalls(per_line[{ins.file, ins.line}], ins.stalls);
    profile.instructions.push_back(std::move(ins));
  }
  for (const auto& [key, by_reason] : per_line) {
    LineSamples l;
    std::tie(l.file, l.line) = key;
    l.stalls = largest_first(by_reason);
    l.samples = total_of(l.stalls);
    l.share_pct = profile.total_samples > 0
                      ? 100.0 * static_cast<double>(l.samples) / static_cast<double>(profile.total_samples)
                      : 0.0;
    profile.lines.push_back(std::move(l));
  }
  std::stable_sort(profile.lines.begin(), profile.lines.end(),
                   [](const LineSamples& a, const LineSamples& b) { return a.samples > b.samples; });
}

SassMetricNames choose_sass_metrics(const std::vector<std::string>& chip_metrics) {
  SassMetricNames n;
  auto listed = [&](std::string_view name) {
    return std::find(chip_metrics.begin(), chip_metrics.end(), name) != chip_metrics.end();
  };
  if (listed("smsp__sass_inst_executed")) n.executed = "smsp__sass_inst_executed";
  if (listed("smsp__sass_thread_inst_executed")) n.thread_executed = "smsp__sass_thread_inst_executed";
  constexpr std::string_view kAggregate = "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared";
  std::string wavefronts;
  if (listed(kAggregate) && listed(std::string(kAggregate) + "_ideal")) {
    wavefronts = kAggregate;
  } else {
    for (const std::string& m : chip_metrics) {
      if (m.find("shared") == std::string::npos || m.find("wavefront") == std::string::npos ||
          m.find("ideal") != std::string::npos || !listed(m + "_ideal"))
        continue;
      if (wavefronts.empty() || m.size() < wavefronts.size() || (m.size() == wavefronts.size() && m < wavefronts))
        wavefronts = m;
    }
  }
  if (!wavefronts.empty()) {
    n.shared_wavefronts = wavefronts;
    n.shared_ideal = wavefronts + "_ideal";
  }
  return n;
}

std::string busiest_sass_function(const std::vector<RawSassPc>& pcs) {
  return heaviest_function(pcs, [](const RawSassPc& pc) { return pc.counts.executed; });
}

void add_sass_counts(LineProfile& profile, const std::vector<RawSassPc>& pcs, const std::string& function,
                     const std::function<SourceLocation(std::uint64_t)>& locate) {
  std::map<std::uint64_t, SassCounts> per_pc;
  for (const auto& pc : pcs)
    if (pc.function == function) per_pc[pc.pc_offset] += pc.counts;
  std::map<std::uint64_t, std::size_t> at;  // pc -> index into profile.instructions
  for (std::size_t i = 0; i < profile.instructions.size(); ++i) {
    profile.instructions[i].sass = {};
    at[profile.instructions[i].pc_offset] = i;
  }
  for (const auto& [offset, counts] : per_pc) {
    auto it = at.find(offset);
    if (it == at.end() && counts.executed == 0 && counts.shared_wavefronts == 0) continue;  // never ran
    if (it == at.end()) {
      InstructionSamples ins;
      ins.pc_offset = offset;
      const SourceLocation where = locate(offset);
      ins.file = where.file;
      ins.line = where.line;
      it = at.emplace(offset, profile.instructions.size()).first;
      profile.instructions.push_back(std::move(ins));
    }
    profile.instructions[it->second].sass = counts;
  }
  std::stable_sort(profile.instructions.begin(), profile.instructions.end(),
                   [](const InstructionSamples& x, const InstructionSamples& y) { return x.pc_offset < y.pc_offset; });
  std::map<std::tuple<std::string, int>, SassCounts> per_line;
  profile.sass_total = {};
  for (const InstructionSamples& ins : profile.instructions) {
    per_line[{ins.file, ins.line}] += ins.sass;
    profile.sass_total += ins.sass;
  }
  for (LineSamples& l : profile.lines) {
    auto it = per_line.find({l.file, l.line});
    l.sass = it == per_line.end() ? SassCounts{} : it->second;
    if (it != per_line.end()) per_line.erase(it);
  }
  for (const auto& [key, counts] : per_line) {  // lines that ran but were never sampled
    LineSamples l;
    std::tie(l.file, l.line) = key;
    l.sass = counts;
    profile.lines.push_back(std::move(l));
  }
}

std::vector<LineDiff> diff_lines(const LineProfile& a, const LineProfile& b) {
  std::map<std::tuple<std::string, int>, LineDiff> by_line;
  auto top_counted = [](const std::vector<StallSamples>& stalls) -> std::string {
    for (const auto& s : stalls)  // largest first already
      if (counts_in_total(s.reason)) return s.reason;
    return {};
  };
  for (const auto& l : a.lines) {
    if (l.samples == 0) continue;  // counted by the SASS metrics, never sampled
    LineDiff& d = by_line[{l.file, l.line}];
    d.file = l.file, d.line = l.line, d.share_a = l.share_pct, d.top_a = top_counted(l.stalls);
  }
  for (const auto& l : b.lines) {
    if (l.samples == 0) continue;
    LineDiff& d = by_line[{l.file, l.line}];
    d.file = l.file, d.line = l.line, d.share_b = l.share_pct, d.top_b = top_counted(l.stalls);
  }
  std::vector<LineDiff> out;
  for (auto& [key, d] : by_line) out.push_back(std::move(d));
  std::stable_sort(out.begin(), out.end(), [](const LineDiff& x, const LineDiff& y) {
    const double dx = std::abs(x.diff()), dy = std::abs(y.diff());
    if (dx != dy) return dx > dy;
    return std::max(x.share_a, x.share_b) > std::max(y.share_a, y.share_b);
  });
  return out;
}

}  // namespace bs::sampling
