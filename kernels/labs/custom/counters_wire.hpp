// ProfileCounters (protocol version 5, issue 32): the Measured tab's hardware counters of one
// launch of a user kernel, read in its runner process by the same range profiler blockscope uses
// for its own kernels (kernels/counters: CounterSession, CUPTI loaded at run time), since CUPTI
// profiles the launches of its own process and a user kernel launches in the runner's.
//
//   parent: ProfileCountersHead + the libcupti to load ("" : CounterSession's own search)
//   runner: Counters: the Measurement (the fields the Measured tab reads) or why there is none
#pragma once
#include <cstdint>
#include <string>

#include "counters/counters.hpp"
#include "labs/custom/messages.hpp"

namespace bs::custom::wire {

struct ProfileCountersHead {
  LaunchHead launch;                // the plain entry's grid and block, as a timed launch
  std::uint32_t stall_reasons = 1;  // counters::CounterOptions
  std::uint32_t throughput = 1;
  std::uint32_t flush_l2 = 1;  // counters::ProfileOptions
  std::uint32_t eviction = 0;  // counters::L2Eviction: 0 read and discard, 1 read
};
struct CountersHead {
  std::uint32_t fatal = 0;  // a launch faulted: the runner's context is gone (it exits)
  std::uint32_t ok = 0;     // `measurement` holds what was read; else `status` says why not
};
struct Counters {
  CountersHead head;
  Status status;
  counters::Measurement measurement;
};

void fields(auto& io, Of<counters::StallReason> auto& r) { io(r.reason, r.cycles_per_issue, r.share_pct); }
void fields(auto& io, Of<counters::Counter> auto& c) { io(c.name, c.value, c.unit); }
void fields(auto& io, Of<counters::Measurement> auto& x) {
  io(x.dram_read_bytes, x.dram_write_bytes, x.duration_ns, x.dram_bandwidth_gbs, x.dram_throughput_pct, x.l2_hit_pct);
  io(x.global_ld_sectors, x.global_ld_requests, x.global_st_sectors, x.global_st_requests);
  io(x.shared_ld_wavefronts, x.shared_st_wavefronts, x.shared_ld_conflicts, x.shared_st_conflicts);
  io(x.achieved_occupancy_pct, x.sm_throughput_pct, x.memory_throughput_pct, x.warp_cycles_per_issued_instruction);
  io(x.wall_ms, x.passes, x.chip, x.device, x.range, x.stalls, x.raw);
}
void fields(auto& io, Of<Counters> auto& m) { io(m.head, m.status, m.measurement); }

}  // namespace bs::custom::wire
