#include "lab/rank.hpp"

#include <algorithm>
#include <map>

namespace bs::lab {

std::string rank_group(const LaunchRecord& r) {
  std::string k = r.lab + "|" + r.problem;
  for (const auto& [key, value] : r.settings) k += "|" + key + "=" + value;
  return k;
}

bool rankable(const LaunchRecord& r) { return r.ok() && !r.check.failed() && r.timing.median_ms > 0; }

std::vector<Ranked> rank_records(const std::vector<LaunchRecord>& records) {
  std::map<std::string, std::vector<std::size_t>> groups;
  std::vector<std::string> order;  // groups in order of first appearance
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (!rankable(records[i])) continue;
    const std::string k = rank_group(records[i]);
    if (!groups.count(k)) order.push_back(k);
    groups[k].push_back(i);
  }
  std::vector<Ranked> out;
  for (const std::string& k : order) {
    std::vector<std::size_t>& g = groups[k];
    std::stable_sort(g.begin(), g.end(), [&](std::size_t a, std::size_t b) {
      return records[a].timing.median_ms < records[b].timing.median_ms;
    });
    for (std::size_t j = 0; j < g.size(); ++j) {
      Ranked r;
      r.index = g[j];
      r.rank = static_cast<int>(j) + 1;
      const Timing& t = records[g[j]].timing;
      r.ties_previous = j > 0 && t.overlaps(records[g[j - 1]].timing);
      r.ties_best = j > 0 && t.overlaps(records[g[0]].timing);
      out.push_back(r);
    }
  }
  return out;
}

}  // namespace bs::lab
