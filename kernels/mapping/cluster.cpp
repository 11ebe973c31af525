#include "mapping/cluster.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "mapping/thread_map.hpp"

namespace bs::mapping {
namespace {

Dim3 at_least_one(Dim3 d) { return Dim3{std::max(1u, d.x), std::max(1u, d.y), std::max(1u, d.z)}; }

Dim3 block_of(unsigned long long linear, Dim3 grid) {
  return Dim3{static_cast<unsigned>(linear % grid.x), static_cast<unsigned>((linear / grid.x) % grid.y),
              static_cast<unsigned>(linear / (static_cast<unsigned long long>(grid.x) * grid.y))};
}

std::string dim_text(Dim3 d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

std::string place_text(const ClusterPlace& p) {
  return "cluster " + dim_text(p.id) + " rank " + std::to_string(p.rank) + " of " + std::to_string(p.blocks) + ", " +
         dim_text(p.count) + " clusters";
}

// Union-find over SM ids.
struct Groups {
  std::map<unsigned, unsigned> parent;
  unsigned find(unsigned u) {
    auto it = parent.try_emplace(u, u).first;
    if (it->second == u) return u;
    const unsigned root = find(it->second);
    parent[u] = root;
    return root;
  }
  void join(unsigned a, unsigned b) {
    const unsigned ra = find(a), rb = find(b);
    if (ra != rb) parent[std::max(ra, rb)] = std::min(ra, rb);
  }
};

std::string time_text(double ns) {
  char buf[48];
  if (ns >= 1e6) std::snprintf(buf, sizeof buf, "%.2f ms", ns / 1e6);
  else if (ns >= 1e3) std::snprintf(buf, sizeof buf, "%.0f us", ns / 1e3);
  else std::snprintf(buf, sizeof buf, "%.0f ns", ns);
  return buf;
}

}  // namespace

ClusterPlace cluster_place(Dim3 block, Dim3 grid, Dim3 cluster) {
  const Dim3 c = at_least_one(cluster), g = at_least_one(grid);
  ClusterPlace p;
  p.id = Dim3{block.x / c.x, block.y / c.y, block.z / c.z};
  const Dim3 in{block.x % c.x, block.y % c.y, block.z % c.z};
  p.rank = in.x + c.x * (in.y + c.y * in.z);
  p.count = Dim3{g.x / c.x, g.y / c.y, g.z / c.z};
  p.blocks = static_cast<unsigned>(c.volume());
  p.explicit_cluster = c.volume() > 1;
  return p;
}

unsigned long long linear_cluster_id(Dim3 id, Dim3 count) {
  return id.x + static_cast<unsigned long long>(count.x) * (id.y + static_cast<unsigned long long>(count.y) * id.z);
}

std::vector<unsigned long long> cluster_blocks(unsigned long long linear, Dim3 grid, Dim3 cluster) {
  const Dim3 c = at_least_one(cluster), g = at_least_one(grid);
  const Dim3 count{g.x / c.x, g.y / c.y, g.z / c.z};
  if (count.volume() == 0 || linear >= count.volume()) return {};
  const Dim3 id = block_of(linear, count);
  std::vector<unsigned long long> out;
  out.reserve(c.volume());
  for (unsigned z = 0; z < c.z; ++z)
    for (unsigned y = 0; y < c.y; ++y)
      for (unsigned x = 0; x < c.x; ++x)
        out.push_back(linear_block_id(Dim3{id.x * c.x + x, id.y * c.y + y, id.z * c.z + z}, g));
  return out;
}

ClusterSchedule cluster_schedule(const std::vector<BlockTrace>& trace, const LaunchConfig& config) {
  ClusterSchedule s;
  s.dims = at_least_one(config.cluster);
  const Dim3 grid = at_least_one(config.grid);
  s.count = Dim3{grid.x / s.dims.x, grid.y / s.dims.y, grid.z / s.dims.z};
  struct Member {
    unsigned rank;
    unsigned long long block;
    const BlockTrace* trace;
  };
  std::map<unsigned long long, std::pair<Dim3, std::vector<Member>>> by_cluster;
  for (const BlockTrace& b : trace) {
    const ClusterPlace model = cluster_place(b.block, grid, s.dims);
    const ClusterPlace& place = b.cluster ? *b.cluster : model;
    if (b.cluster) {
      ++s.recorded_blocks;
      const bool same = b.cluster->id == model.id && b.cluster->rank == model.rank && b.cluster->count == model.count &&
                        b.cluster->blocks == model.blocks;
      if (!same && s.mismatches++ == 0)
        s.first_mismatch = "block " + dim_text(b.block) + " recorded " + place_text(*b.cluster) + "; the model says " +
                           place_text(model);
    }
    auto& entry = by_cluster[linear_cluster_id(place.id, place.count.volume() ? place.count : s.count)];
    entry.first = place.id;
    entry.second.push_back({place.rank, linear_block_id(b.block, grid), &b});
  }
  s.recorded = !trace.empty() && s.recorded_blocks == trace.size();
  Groups groups;
  s.clusters.reserve(by_cluster.size());
  for (auto& [linear, entry] : by_cluster) {
    auto& members = entry.second;
    std::sort(members.begin(), members.end(),
              [](const Member& a, const Member& b) { return a.rank != b.rank ? a.rank < b.rank : a.block < b.block; });
    ClusterRun c;
    c.id = entry.first;
    c.linear = linear;
    c.first_start_ns = c.last_start_ns = members.front().trace->start_ns;
    c.first_end_ns = c.last_end_ns = std::max(members.front().trace->end_ns, members.front().trace->start_ns + 1);
    for (const Member& m : members) {
      c.blocks.push_back(m.block);
      c.units.push_back(m.trace->unit);
      const std::uint64_t end = std::max(m.trace->end_ns, m.trace->start_ns + 1);
      c.first_start_ns = std::min(c.first_start_ns, m.trace->start_ns);
      c.last_start_ns = std::max(c.last_start_ns, m.trace->start_ns);
      c.first_end_ns = std::min(c.first_end_ns, end);
      c.last_end_ns = std::max(c.last_end_ns, end);
      groups.join(c.units.front(), m.trace->unit);
    }
    c.co_scheduled = c.last_start_ns < c.first_end_ns;
    s.co_scheduled += c.co_scheduled;
    s.clusters.push_back(std::move(c));
  }
  // SM groups: number them by their smallest SM.
  std::map<unsigned, std::vector<unsigned>> members;
  for (const auto& [unit, parent] : groups.parent) members[groups.find(unit)].push_back(unit);
  std::map<unsigned, unsigned> index;
  for (auto& [root, units] : members) {
    std::sort(units.begin(), units.end());
    index[root] = static_cast<unsigned>(s.sm_groups.size());
    s.sm_groups.push_back(units);
  }
  for (ClusterRun& c : s.clusters)
    if (!c.units.empty()) c.sm_group = index[groups.find(c.units.front())];
  return s;
}

std::string cluster_line(const ClusterRun& c, bool simulated) {
  std::string blocks;
  const bool consecutive = !c.blocks.empty() && std::adjacent_find(c.blocks.begin(), c.blocks.end(),
                                                                   [](unsigned long long a, unsigned long long b) {
                                                                     return b != a + 1;
                                                                   }) == c.blocks.end();
  if (c.blocks.size() == 1) blocks = "block " + std::to_string(c.blocks.front());
  else if (consecutive) blocks = "blocks " + std::to_string(c.blocks.front()) + "-" + std::to_string(c.blocks.back());
  else
    for (std::size_t i = 0; i < c.blocks.size(); ++i)
      blocks += (i == 0 ? "blocks " : i + 1 == c.blocks.size() ? " and " : ", ") + std::to_string(c.blocks[i]);
  std::string units;
  for (std::size_t i = 0; i < c.units.size(); ++i)
    units += (i == 0 ? "" : i + 1 == c.units.size() ? " and " : ", ") + std::to_string(c.units[i]);
  std::string line = "cluster " + dim_text(c.id) + ": " + blocks + " ran on " + (simulated ? "worker " : "SM ") + units;
  if (c.blocks.size() > 1)
    line += c.co_scheduled ? ", together for " + time_text(static_cast<double>(c.first_end_ns - c.last_start_ns))
                           : ", NOT at one moment (" +
                                 time_text(static_cast<double>(c.last_start_ns - c.first_end_ns)) + " apart)";
  return line;
}

std::string cluster_dims_text(const LaunchConfig& config) {
  const Dim3 c = at_least_one(config.cluster);
  if (c.volume() <= 1) return "no clusters: every block is its own cluster of one";
  const Dim3 g = at_least_one(config.grid);
  const unsigned long long clusters = static_cast<unsigned long long>(g.x / c.x) * (g.y / c.y) * (g.z / c.z);
  return "clusters of " + std::to_string(c.x) + " x " + std::to_string(c.y) + " x " + std::to_string(c.z) + " (" +
         std::to_string(c.volume()) + " blocks each), " + std::to_string(clusters) + " cluster" +
         (clusters == 1 ? "" : "s");
}

}  // namespace bs::mapping
