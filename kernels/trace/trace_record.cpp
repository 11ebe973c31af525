#include "trace/trace_record.hpp"

#include <algorithm>
#include <string>

namespace bs::trace {

Result<std::vector<BlockTrace>> records_to_trace(const std::vector<DeviceBlockRecord>& records, Dim3 grid,
                                                 unsigned sm_count) {
  if (records.size() != grid.volume())
    return Status::failure(
        "the trace has " + std::to_string(records.size()) + " records for " + std::to_string(grid.volume()) + " blocks",
        "allocate one record per block of the launched grid", "records_to_trace");
  auto name = [&](std::size_t i) {
    const Dim3 b{static_cast<unsigned>(i % grid.x), static_cast<unsigned>((i / grid.x) % grid.y),
                 static_cast<unsigned>(i / (static_cast<unsigned long long>(grid.x) * grid.y))};
    return "block " + to_string(b) + " (linear " + std::to_string(i) + ")";
  };
  std::uint64_t earliest = records.empty() ? 0 : records.front().start_ns;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const DeviceBlockRecord& r = records[i];
    if (r.writes != 1)
      return Status::failure(name(i) + " wrote its trace record " + std::to_string(r.writes) + " times instead of once",
                             r.writes == 0 ? "the traced kernel did not run every block (was the "
                                             "traced wrapper launched with this grid?)"
                                           : "two blocks computed the same linear block id",
                             "records_to_trace");
    if (r.start_ns > r.end_ns)
      return Status::failure(name(i) + " ended before it started (" + std::to_string(r.start_ns) + " > " +
                                 std::to_string(r.end_ns) + " ns)",
                             "", "records_to_trace");
    if (sm_count > 0 && r.smid >= sm_count)
      return Status::failure(name(i) + " reports SM " + std::to_string(r.smid) + " but the device has " +
                                 std::to_string(sm_count) + " SMs",
                             "", "records_to_trace");
    earliest = std::min(earliest, r.start_ns);
  }
  std::vector<BlockTrace> out(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    const DeviceBlockRecord& r = records[i];
    out[i].block = Dim3{static_cast<unsigned>(i % grid.x), static_cast<unsigned>((i / grid.x) % grid.y),
                        static_cast<unsigned>(i / (static_cast<unsigned long long>(grid.x) * grid.y))};
    out[i].unit = r.smid;
    out[i].start_ns = r.start_ns - earliest;
    out[i].end_ns = r.end_ns - earliest;
    out[i].threads = r.threads;
    if (r.cluster_flags & kClusterRead) {
      ClusterPlace c;
      c.id = Dim3{r.cluster_id[0], r.cluster_id[1], r.cluster_id[2]};
      c.rank = r.cluster_rank;
      c.count = Dim3{r.cluster_count[0], r.cluster_count[1], r.cluster_count[2]};
      c.blocks = r.cluster_blocks;
      c.explicit_cluster = (r.cluster_flags & kClusterExplicit) != 0;
      out[i].cluster = c;
    }
  }
  return out;
}

}  // namespace bs::trace
