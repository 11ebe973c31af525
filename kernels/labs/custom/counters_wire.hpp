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

// The scalars of a Measurement, in one POD (both sides are built from this header together).
struct MeasurementScalars {
  double dram_read_bytes, dram_write_bytes, duration_ns, dram_bandwidth_gbs, dram_throughput_pct;
  double l2_hit_pct;
  double global_ld_sectors, global_ld_requests, global_st_sectors, global_st_requests;
  double shared_ld_wavefronts, shared_st_wavefronts, shared_ld_conflicts, shared_st_conflicts;
  double achieved_occupancy_pct, sm_throughput_pct, memory_throughput_pct;
  double warp_cycles_per_issued_instruction;
  double wall_ms;
  std::int32_t passes;
  std::int32_t pad;
};

inline std::string encode(const Counters& m) {
  Writer w;
  w.pod(m.head);
  put(w, m.status);
  const counters::Measurement& x = m.measurement;
  const MeasurementScalars s{x.dram_read_bytes,
                             x.dram_write_bytes,
                             x.duration_ns,
                             x.dram_bandwidth_gbs,
                             x.dram_throughput_pct,
                             x.l2_hit_pct,
                             x.global_ld_sectors,
                             x.global_ld_requests,
                             x.global_st_sectors,
                             x.global_st_requests,
                             x.shared_ld_wavefronts,
                             x.shared_st_wavefronts,
                             x.shared_ld_conflicts,
                             x.shared_st_conflicts,
                             x.achieved_occupancy_pct,
                             x.sm_throughput_pct,
                             x.memory_throughput_pct,
                             x.warp_cycles_per_issued_instruction,
                             x.wall_ms,
                             x.passes,
                             0};
  w.pod(s).str(x.chip).str(x.device).str(x.range);
  w.pod(static_cast<std::uint64_t>(x.stalls.size()));
  for (const counters::StallReason& r : x.stalls) w.str(r.reason).pod(r.cycles_per_issue).pod(r.share_pct);
  w.pod(static_cast<std::uint64_t>(x.raw.size()));
  for (const counters::Counter& c : x.raw) w.str(c.name).pod(c.value).str(c.unit);
  return w.bytes();
}

inline bool decode(std::string_view b, Counters& m) {
  Reader r(b);
  m.head = r.pod<CountersHead>();
  m.status = get_status(r);
  const auto s = r.pod<MeasurementScalars>();
  counters::Measurement& x = m.measurement;
  x.dram_read_bytes = s.dram_read_bytes;
  x.dram_write_bytes = s.dram_write_bytes;
  x.duration_ns = s.duration_ns;
  x.dram_bandwidth_gbs = s.dram_bandwidth_gbs;
  x.dram_throughput_pct = s.dram_throughput_pct;
  x.l2_hit_pct = s.l2_hit_pct;
  x.global_ld_sectors = s.global_ld_sectors;
  x.global_ld_requests = s.global_ld_requests;
  x.global_st_sectors = s.global_st_sectors;
  x.global_st_requests = s.global_st_requests;
  x.shared_ld_wavefronts = s.shared_ld_wavefronts;
  x.shared_st_wavefronts = s.shared_st_wavefronts;
  x.shared_ld_conflicts = s.shared_ld_conflicts;
  x.shared_st_conflicts = s.shared_st_conflicts;
  x.achieved_occupancy_pct = s.achieved_occupancy_pct;
  x.sm_throughput_pct = s.sm_throughput_pct;
  x.memory_throughput_pct = s.memory_throughput_pct;
  x.warp_cycles_per_issued_instruction = s.warp_cycles_per_issued_instruction;
  x.wall_ms = s.wall_ms;
  x.passes = s.passes;
  x.chip = r.str();
  x.device = r.str();
  x.range = r.str();
  const auto ns = r.pod<std::uint64_t>();
  for (std::uint64_t i = 0; r.ok() && i < ns && i < 4096; ++i) {
    counters::StallReason sr;
    sr.reason = r.str();
    sr.cycles_per_issue = r.pod<double>();
    sr.share_pct = r.pod<double>();
    x.stalls.push_back(std::move(sr));
  }
  const auto nr = r.pod<std::uint64_t>();
  for (std::uint64_t i = 0; r.ok() && i < nr && i < 4096; ++i) {
    counters::Counter c;
    c.name = r.str();
    c.value = r.pod<double>();
    c.unit = r.str();
    x.raw.push_back(std::move(c));
  }
  return r.ok();
}

}  // namespace bs::custom::wire
