#include "mapping/schedule.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

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

void append_escaped(std::string& out, std::string_view s) {
  out += '"';
  for (char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

void append_dim(std::string& out, Dim3 d) {
  out += '[' + std::to_string(d.x) + ',' + std::to_string(d.y) + ',' + std::to_string(d.z) + ']';
}

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
      s.waves_observed =
          std::max(s.waves_observed, static_cast<double>(u.blocks) / u.peak_concurrent);
  }
  s.mean_busy_ns = busy_sum / s.units;
  s.imbalance = s.mean_busy_ns > 0 ? busy_max / s.mean_busy_ns : 0;
  return s;
}

std::string schedule_to_json(const std::vector<BlockTrace>& trace, bool simulated,
                             const LaunchConfig& config, std::string_view kernel,
                             std::string_view device) {
  std::string out;
  out.reserve(128 + trace.size() * 72);
  out += "{\n  \"kernel\": ";
  append_escaped(out, kernel);
  out += ",\n  \"device\": ";
  append_escaped(out, device);
  out += ",\n  \"simulated\": ";
  out += simulated ? "true" : "false";
  out += ",\n  \"unit\": ";
  out += simulated ? "\"simulator worker\"" : "\"SM\"";
  out += ",\n  \"clock\": ";
  out += simulated ? "\"steady_clock\"" : "\"globaltimer\"";
  out += ",\n  \"time_unit\": \"ns\",\n  \"grid\": ";
  append_dim(out, config.grid);
  out += ",\n  \"block\": ";
  append_dim(out, config.block);
  out += ",\n  \"blocks\": [";
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const BlockTrace& b = trace[i];
    out += i ? ",\n    " : "\n    ";
    out += "{\"id\": " + std::to_string(linear_block_id(b.block, config.grid)) + ", \"block\": ";
    append_dim(out, b.block);
    out += ", \"sm\": " + std::to_string(b.unit) + ", \"start\": " + std::to_string(b.start_ns) +
           ", \"end\": " + std::to_string(b.end_ns) + "}";
  }
  out += trace.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return out;
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
