#include "mapping/schedule.hpp"

#include <algorithm>
#include <utility>

#include "core/json_writer.hpp"
#include "mapping/thread_map.hpp"

namespace bs::mapping {
namespace {

// Zero-length blocks (the GPU's globaltimer ticks coarsely) still occupy their unit for an
// instant; counting them as 1 ns keeps the concurrency sweep and the busy time honest.
std::uint64_t effective_end(const BlockTrace& b) { return std::max(b.end_ns, b.start_ns + 1); }

void fill_unit(UnitSchedule& u, std::vector<const BlockTrace*>& blocks) {
  u.blocks = blocks.size();
  if (blocks.empty()) return;
  std::sort(blocks.begin(), blocks.end(),
            [](const BlockTrace* a, const BlockTrace* b) { return a->start_ns < b->start_ns; });
  u.first_start_ns = blocks.front()->start_ns;
  // Busy time: merge the sorted intervals.
  std::uint64_t run_start = blocks.front()->start_ns, run_end = effective_end(*blocks.front());
  for (const BlockTrace* b : blocks) {
    u.block_ns += b->end_ns - std::min(b->start_ns, b->end_ns);
    u.last_end_ns = std::max(u.last_end_ns, b->end_ns);
    if (b->start_ns >= run_end) {
      u.busy_ns += run_end - run_start;
      run_start = b->start_ns;
    }
    run_end = std::max(run_end, effective_end(*b));
  }
  u.busy_ns += run_end - run_start;
  // Peak concurrency: sweep starts and ends; at equal times ends go first (touching intervals
  // do not overlap).
  std::vector<std::pair<std::uint64_t, int>> events;
  for (const BlockTrace* b : blocks) {
    events.emplace_back(b->start_ns, +1);
    events.emplace_back(effective_end(*b), -1);
  }
  std::sort(events.begin(), events.end());
  int now = 0;
  for (const auto& e : events) {
    now += e.second;
    u.peak_concurrent = std::max(u.peak_concurrent, static_cast<unsigned>(std::max(now, 0)));
  }
}

void dim_array(JsonWriter& j, Dim3 d) { j.begin_array().value(d.x).value(d.y).value(d.z).end_array(); }

}  // namespace

ScheduleSummary summarize(const std::vector<BlockTrace>& trace, unsigned units) {
  ScheduleSummary s;
  s.blocks = trace.size();
  unsigned highest = 0;
  for (const BlockTrace& b : trace) highest = std::max(highest, b.unit);
  s.units = units;
  if (!trace.empty() && highest >= units) {
    s.unit_out_of_range = true;
    s.units = highest + 1;
  }
  s.per_unit.resize(s.units);
  std::vector<std::vector<const BlockTrace*>> by_unit(s.units);
  for (const BlockTrace& b : trace) by_unit[b.unit].push_back(&b);
  for (unsigned u = 0; u < s.units; ++u) {
    s.per_unit[u].unit = u;
    fill_unit(s.per_unit[u], by_unit[u]);
  }
  if (trace.empty() || s.units == 0) return s;

  s.start_ns = trace.front().start_ns;
  for (const BlockTrace& b : trace) {
    s.start_ns = std::min(s.start_ns, b.start_ns);
    s.end_ns = std::max(s.end_ns, b.end_ns);
  }
  s.makespan_ns = s.end_ns > s.start_ns ? s.end_ns - s.start_ns : 0;
  s.min_blocks_per_unit = s.per_unit.front().blocks;
  double busy_sum = 0, busy_max = 0;
  for (const UnitSchedule& u : s.per_unit) {
    if (u.blocks) ++s.units_used;
    s.min_blocks_per_unit = std::min(s.min_blocks_per_unit, u.blocks);
    s.max_blocks_per_unit = std::max(s.max_blocks_per_unit, u.blocks);
    busy_sum += static_cast<double>(u.busy_ns);
    busy_max = std::max(busy_max, static_cast<double>(u.busy_ns));
    if (u.peak_concurrent)
      s.waves_observed = std::max(s.waves_observed, static_cast<double>(u.blocks) / u.peak_concurrent);
  }
  s.mean_busy_ns = busy_sum / s.units;
  s.imbalance = s.mean_busy_ns > 0 ? busy_max / s.mean_busy_ns : 0;
  return s;
}

std::string schedule_to_json(const std::vector<BlockTrace>& trace, bool simulated, const LaunchConfig& config,
                             std::string_view kernel, std::string_view device) {
  JsonWriter j;
  j.begin_object();
  j.field("kernel", kernel).field("device", device).field("simulated", simulated);
  j.field("unit", simulated ? "simulator worker" : "SM");
  j.field("clock", simulated ? "steady_clock" : "globaltimer");
  j.field("time_unit", "ns");
  j.key("grid");
  dim_array(j, config.grid);
  j.key("block");
  dim_array(j, config.block);
  j.key("cluster");
  dim_array(j, config.cluster);
  j.key("blocks").begin_array();
  for (const BlockTrace& b : trace) {
    j.begin_object().field("id", static_cast<unsigned long long>(linear_block_id(b.block, config.grid)));
    j.key("block");
    dim_array(j, b.block);
    j.field("sm", b.unit).field("start", static_cast<unsigned long long>(b.start_ns));
    j.field("end", static_cast<unsigned long long>(b.end_ns));
    if (b.cluster) {  // what the block read from the cluster registers (sm_90 and later)
      j.key("clusterid");
      dim_array(j, b.cluster->id);
      j.field("cluster_ctarank", b.cluster->rank);
      j.key("nclusterid");
      dim_array(j, b.cluster->count);
      j.field("cluster_nctarank", b.cluster->blocks).field("is_explicit_cluster", b.cluster->explicit_cluster);
    }
    j.end_object();
  }
  j.end_array().end_object();
  return j.str() + "\n";
}

std::vector<unsigned> unit_per_block(const std::vector<BlockTrace>& trace, Dim3 grid) {
  std::vector<unsigned> out(grid.volume(), kNoUnit);
  for (const BlockTrace& b : trace) {
    const unsigned long long id = linear_block_id(b.block, grid);
    if (b.block.x < grid.x && b.block.y < grid.y && b.block.z < grid.z) out[id] = b.unit;
  }
  return out;
}

}  // namespace bs::mapping
