// Metric selection and the arithmetic from raw values to the Measurement's fields.
#include "counters/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

namespace bs::counters {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool starts_with(const std::string& s, const std::string& head) { return s.compare(0, head.size(), head) == 0; }

double ratio(double num, double den) { return den > 0.0 ? num / den : kNaN; }

}  // namespace

std::string base_metric(const std::string& name) { return name.substr(0, name.find('.')); }

std::string stall_reason_of(const std::string& base) {
  const std::string prefix = kStallPrefix, suffix = kStallSuffix;
  if (!starts_with(base, prefix) || !ends_with(base, suffix) || base.size() <= prefix.size() + suffix.size()) return {};
  return base.substr(prefix.size(), base.size() - prefix.size() - suffix.size());
}

std::vector<std::string> choose_metrics(const std::vector<std::string>& available_bases, bool stall_reasons,
                                        bool throughput) {
  const std::unordered_set<std::string> have(available_bases.begin(), available_bases.end());
  std::vector<std::string> wanted = {kDramRead,           kDramWrite,         kDuration,          kDramThroughput,
                                     kL2HitRate,          kLdSectors,         kLdRequests,        kStSectors,
                                     kStRequests,         kOccupancy,         kSharedLdConflicts, kSharedStConflicts,
                                     kSharedLdWavefronts, kSharedStWavefronts};
  if (throughput) {
    wanted.push_back(kSmThroughput);
    wanted.push_back(kMemThroughput);
  }
  std::vector<std::string> out;
  for (const auto& m : wanted)
    if (have.count(base_metric(m))) out.push_back(m);
  if (stall_reasons) {
    if (have.count(base_metric(kWarpLatency))) out.push_back(kWarpLatency);
    std::vector<std::string> stalls;
    for (const auto& b : available_bases)
      if (!stall_reason_of(b).empty()) stalls.push_back(b + ".ratio");
    std::sort(stalls.begin(), stalls.end());
    out.insert(out.end(), stalls.begin(), stalls.end());
  }
  return out;
}

std::string unit_of(const std::string& name) {
  const std::string base = base_metric(name);
  if (starts_with(base, "dram__bytes")) return "byte";
  if (base == "gpu__time_duration") return "ns";
  if (ends_with(name, ".pct") || name.find("pct_of_peak") != std::string::npos) return "%";
  if (base.find("__t_sectors") != std::string::npos) return "sector";
  if (base.find("__t_requests") != std::string::npos) return "request";
  if (base.find("_wavefronts_") != std::string::npos) return "wavefront";
  if (base.find("__data_bank_conflicts") != std::string::npos) return "conflict";
  if (!stall_reason_of(base).empty() || base == base_metric(kWarpLatency)) return "warp cycles per issued instruction";
  return "";
}

double Measurement::ld_sectors_per_request() const { return ratio(global_ld_sectors, global_ld_requests); }
double Measurement::st_sectors_per_request() const { return ratio(global_st_sectors, global_st_requests); }

const Counter* Measurement::find(const std::string& name) const {
  for (const auto& c : raw)
    if (c.name == name) return &c;
  return nullptr;
}

Measurement assemble(const std::vector<std::string>& names, const std::vector<double>& values) {
  Measurement m;
  const std::size_t n = std::min(names.size(), values.size());
  for (std::size_t i = 0; i < n; ++i) m.raw.push_back({names[i], values[i], unit_of(names[i])});
  auto get = [&](const char* name) {
    const Counter* c = m.find(name);
    return c ? c->value : kNaN;
  };
  m.dram_read_bytes = get(kDramRead);
  m.dram_write_bytes = get(kDramWrite);
  m.duration_ns = get(kDuration);
  // bytes per nanosecond is GB/s (1e9 bytes per second).
  m.dram_bandwidth_gbs = ratio(m.dram_read_bytes + m.dram_write_bytes, m.duration_ns);
  m.dram_throughput_pct = get(kDramThroughput);
  m.l2_hit_pct = get(kL2HitRate);
  m.global_ld_sectors = get(kLdSectors);
  m.global_ld_requests = get(kLdRequests);
  m.global_st_sectors = get(kStSectors);
  m.global_st_requests = get(kStRequests);
  m.achieved_occupancy_pct = get(kOccupancy);
  m.shared_ld_conflicts = get(kSharedLdConflicts);
  m.shared_st_conflicts = get(kSharedStConflicts);
  m.shared_ld_wavefronts = get(kSharedLdWavefronts);
  m.shared_st_wavefronts = get(kSharedStWavefronts);
  m.sm_throughput_pct = get(kSmThroughput);
  m.memory_throughput_pct = get(kMemThroughput);
  m.warp_cycles_per_issued_instruction = get(kWarpLatency);

  double total = 0.0;
  for (const auto& c : m.raw) {
    const std::string reason = stall_reason_of(base_metric(c.name));
    if (reason.empty() || !std::isfinite(c.value)) continue;
    m.stalls.push_back({reason, c.value, 0.0});
    total += c.value;
  }
  for (auto& s : m.stalls) s.share_pct = total > 0.0 ? 100.0 * s.cycles_per_issue / total : 0.0;
  std::stable_sort(m.stalls.begin(), m.stalls.end(),
                   [](const StallReason& a, const StallReason& b) { return a.cycles_per_issue > b.cycles_per_issue; });
  return m;
}

}  // namespace bs::counters
