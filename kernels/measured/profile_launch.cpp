// Sections:
//   1. refusals and the profile itself
//   2. the measured half (counters::Measurement -> LaunchCounters)
//   3. the model half: bytes, bandwidth, sectors per request (sampled), theoretical occupancy
//   4. rows and the sentence the Measured tab shows
#include "measured/profile_launch.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "counters/counter_errors.hpp"
#include "mapping/memory_access.hpp"
#include "mapping/occupancy.hpp"

namespace bs::measured {
namespace {

constexpr double kNone = LaunchCounters::kNone;

bool finite(double v) { return std::isfinite(v); }

std::string num(double v, int digits = 3) {
  if (!finite(v)) return "n/a";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

// Decimal units, as DRAM bandwidth is quoted: 50.3 MB.
std::string bytes_text(double b) { return finite(b) ? decimal_bytes(b) : "n/a"; }

std::string times_text(double r) { return num(r, 2) + "x"; }

}  // namespace

// ---- 1. refusals and the profile -------------------------------------------------------------

Status profile_refusal(const lab::Lab& lab, std::string_view kernel) {
  if (lab.backend().kind != BackendKind::Cuda) {
    Status s = counters::gpu_feature_status();
    s.call.clear();  // no call failed: the backend has no counters
    return s;
  }
  const lab::KernelInfo* k = lab.find_kernel(kernel);
  if (!k)
    return Status::failure(
        "the " + std::string(lab.title()) + " lab has no kernel '" + std::string(kernel) + "' to profile",
        "pick one of the kernel list", "profile_launch");
  if (k->group == KernelGroup::Ceiling)
    return Status::failure(k->label + " is a cudaMemcpy, not a kernel: the range profiler measures kernels",
                           "profile one of the kernels; the copy is the ceiling they are measured against",
                           "profile_launch");
  // A user kernel launches in its runner process, which reads its counters with the same range
  // profiler (Lab::profile_counters_elsewhere): no refusal here.
  return Status::success();
}

CounterRequest counter_request(const counters::CounterSession& session, const counters::ProfileOptions& options) {
  CounterRequest r;
  const auto& names = session.metric_names();
  auto any = [&](std::string_view part) {
    return std::any_of(names.begin(), names.end(),
                       [&](const std::string& n) { return n.find(part) != std::string::npos; });
  };
  r.stall_reasons = any("warps_issue_stalled");
  r.throughput = any("sm__throughput");
  r.flush_l2 = options.flush_l2;
  r.evict_read_only = options.eviction == counters::L2Eviction::Read;
  r.cupti_library = session.cupti_path();
  return r;
}

std::optional<Result<LaunchCounters>> profile_elsewhere(lab::Lab& lab, const std::string& kernel,
                                                        const KernelConfig& config, const CounterRequest& request,
                                                        const LaunchRecord* model_record) {
  auto elsewhere = lab.profile_counters_elsewhere(kernel, config, request);
  if (!elsewhere) return std::nullopt;
  if (!*elsewhere) return Result<LaunchCounters>(elsewhere->status());
  LaunchCounters c = (*elsewhere)->counters;
  add_model(c, lab, model_record ? *model_record : (*elsewhere)->launch);
  return Result<LaunchCounters>(std::move(c));
}

Result<LaunchCounters> profile_launch(lab::Lab& lab, const std::string& kernel, const KernelConfig& config,
                                      counters::CounterSession& session, const LaunchRecord* model_record,
                                      std::atomic<int>* passes_done, const counters::ProfileOptions& options) {
  if (Status s = profile_refusal(lab, kernel); !s) return s;
  // A kernel launched in another process (a user kernel's runner): profiled there with the same
  // metrics and L2 handling as this session's, compared here with the same model.
  if (auto elsewhere = profile_elsewhere(lab, kernel, config, counter_request(session, options), model_record)) {
    if (passes_done && *elsewhere) passes_done->fetch_add((*elsewhere)->passes, std::memory_order_relaxed);
    return std::move(*elsewhere);
  }
  // A configuration the lab refuses fails the first pass with the lab's reason (planning it here
  // first would touch the device before the session has made it current on this thread).

  // One launch per pass and nothing else: no warm-up, one timed repeat without an L2 flush (the
  // session empties L2 itself), no traced launch, no verification kernel.
  lab::RunOptions run;
  run.timing = TimingPolicy::once();
  run.trace_schedule = false;
  run.verify = false;
  LaunchRecord last;
  auto launch_once = [&]() -> Status {
    LaunchRecord r = lab.run(kernel, config, run);
    if (!r.ok()) return r.status;
    last = std::move(r);
    if (passes_done) passes_done->fetch_add(1, std::memory_order_relaxed);
    return Status::success();
  };
  auto m = session.profile(launch_once, options);
  if (!m) {
    Status s = m.status();
    const lab::KernelInfo* k = lab.find_kernel(kernel);
    const bool ranges = s.call == "cuptiRangeProfilerDecodeData" || s.call == "cuptiRangeProfilerGetCounterDataInfo";
    if (k && k->group == KernelGroup::Library && ranges) {
      s.message = k->label +
                  " ran more than one kernel for this problem (libraries split some "
                  "problems, e.g. with a split-K reduction), and the counters measure one: " +
                  s.message;
      s.hint = "profile the library call with Nsight Compute to see each of its kernels";
    }
    return s;
  }
  LaunchCounters c = from_measurement(*m);
  add_model(c, lab, model_record ? *model_record : last);
  return c;
}

LaunchCounters unavailable(Status why) {
  LaunchCounters c;
  c.status = std::move(why);
  if (c.status.ok()) c.status = Status::failure("no counters were read", "", "counters");
  return c;
}

// ---- 2. the measured half --------------------------------------------------------------------

LaunchCounters from_measurement(const counters::Measurement& m) {
  LaunchCounters c;
  c.device = m.device;
  c.chip = m.chip;
  c.range = m.range;
  c.dram_read_bytes = m.dram_read_bytes;
  c.dram_write_bytes = m.dram_write_bytes;
  c.duration_ns = m.duration_ns;
  c.dram_bandwidth_gbs = m.dram_bandwidth_gbs;
  c.dram_throughput_pct = m.dram_throughput_pct;
  c.l2_hit_pct = m.l2_hit_pct;
  c.ld_sectors = m.global_ld_sectors;
  c.ld_requests = m.global_ld_requests;
  c.st_sectors = m.global_st_sectors;
  c.st_requests = m.global_st_requests;
  c.achieved_occupancy_pct = m.achieved_occupancy_pct;
  c.shared_ld_wavefronts = m.shared_ld_wavefronts;
  c.shared_st_wavefronts = m.shared_st_wavefronts;
  c.shared_ld_conflicts = m.shared_ld_conflicts;
  c.shared_st_conflicts = m.shared_st_conflicts;
  c.sm_throughput_pct = m.sm_throughput_pct;
  c.memory_throughput_pct = m.memory_throughput_pct;
  c.warp_cycles_per_issue = m.warp_cycles_per_issued_instruction;
  for (const counters::StallReason& s : m.stalls) c.stalls.push_back({s.reason, s.cycles_per_issue, s.share_pct});
  c.passes = m.passes;
  c.profile_wall_ms = m.wall_ms;
  return c;
}

// ---- 3. the model half -----------------------------------------------------------------------

namespace {
bool same_addresses(const std::vector<mapping::WarpAccess>& a, const std::vector<mapping::WarpAccess>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].lane_address != b[i].lane_address) return false;
  return true;
}
}  // namespace

SectorModel model_sectors(const lab::Lab& lab, const LaunchRecord& r, unsigned max_blocks, int max_steps) {
  SectorModel out;
  const unsigned long long blocks = r.config.total_blocks();
  const unsigned long long threads = r.config.threads_per_block();
  if (blocks == 0 || threads == 0) {
    out.sample = r.kernel + " picks its own launch: there are no warps of ours to model";
    return out;
  }
  const unsigned warps = static_cast<unsigned>((threads + mapping::kWarpSize - 1) / mapping::kWarpSize);
  const unsigned long long n = std::min<unsigned long long>(blocks, std::max(1u, max_blocks));
  const Dim3 g = r.config.grid;
  double ld_sectors = 0, st_sectors = 0;
  int steps_seen = 0;
  unsigned long long previous = ~0ull, sampled = 0;
  for (unsigned long long i = 0; i < n; ++i) {
    // Spread evenly over the linear block index, the first and the last block included.
    const unsigned long long lin = n == 1 ? 0 : i * (blocks - 1) / (n - 1);
    if (lin == previous) continue;
    previous = lin;
    ++sampled;
    const Dim3 b{static_cast<unsigned>(lin % g.x), static_cast<unsigned>((lin / g.x) % g.y),
                 static_cast<unsigned>(lin / (static_cast<unsigned long long>(g.x) * g.y))};
    for (unsigned w = 0; w < warps; ++w) {
      std::vector<mapping::WarpAccess> first;
      for (int step = 0; step < max_steps; ++step) {
        std::vector<mapping::WarpAccess> acc = lab.warp_accesses(r, b, w, step);
        if (acc.empty()) break;
        if (step == 0) first = acc;
        else if (same_addresses(acc, first)) break;  // the lab's accesses do not depend on the step
        steps_seen = std::max(steps_seen, step + 1);
        for (const mapping::WarpAccess& a : acc) {
          if (a.active_lanes == 0) continue;  // no lane issues it: no request
          if (a.is_write) {
            st_sectors += a.sectors;
            out.st_requests += 1;
          } else {
            ld_sectors += a.sectors;
            out.ld_requests += 1;
          }
        }
      }
    }
  }
  if (out.ld_requests + out.st_requests == 0) {
    out.sample = "the memory view does not model " + r.kernel + "'s global accesses";
    return out;
  }
  if (out.ld_requests > 0) out.ld = ld_sectors / out.ld_requests;
  if (out.st_requests > 0) out.st = st_sectors / out.st_requests;
  out.sample = std::to_string(sampled) + " of " + std::to_string(blocks) +
               " blocks (spread evenly, first and last included), all " + std::to_string(warps) + " warps of each, " +
               (steps_seen > 1 ? "the first " + std::to_string(steps_seen) + " steps of each warp's loop"
                               : std::string("one step (the model's accesses do not change along the loop)"));
  return out;
}

void add_shared_model(LaunchCounters& c, const lab::Lab& lab, const LaunchRecord& r) {
  // The lab that knows the kernel may be wrapped (the user's kernels added to it).
  for (const lab::Lab* l = &lab; l; l = l->wrapped()) {
    std::string sample;
    if (const auto t = l->shared_memory_model(r, &sample)) {
      c.model_shared_ld_wavefronts = t->ld_wavefronts;
      c.model_shared_st_wavefronts = t->st_wavefronts;
      c.model_shared_ld_conflicts = t->ld_conflicts();
      c.model_shared_st_conflicts = t->st_conflicts();
      c.model_shared_async_wavefronts = t->async_wavefronts;
      c.shared_sample = sample;
      return;
    }
  }
  c.shared_sample = "no shared-memory model of " + r.kernel + " (the bank view covers k3..k7 and T2)";
}

void add_model(LaunchCounters& c, const lab::Lab& lab, const LaunchRecord& r, unsigned max_blocks, int max_steps) {
  if (r.bytes_moved > 0) {
    c.model_bytes = r.bytes_moved;
    c.model_bytes_note = r.bytes_note;
  }
  if (r.ok() && r.timing.median_ms > 0 && r.bytes_moved > 0) c.model_bandwidth_gbs = r.gbytes_per_s();
  const SectorModel s = model_sectors(lab, r, max_blocks, max_steps);
  c.model_ld_sectors_per_request = s.ld;
  c.model_st_sectors_per_request = s.st;
  c.sectors_sample = s.sample;
  add_shared_model(c, lab, r);
  const unsigned long long threads = r.config.threads_per_block();
  // A library anchor or a ceiling (cuBLAS, CUB, the copy) launches grids of its own, whatever
  // configuration the record names.
  const lab::KernelInfo* info = lab.find_kernel(r.kernel);
  if ((info && info->timed_only) || r.config.total_blocks() == 0 || threads == 0) {
    c.occupancy_note = r.kernel + " picks its own launch: no configuration of ours to model";
    return;
  }
  const DeviceLimits& limits = lab.backend().limits;
  const mapping::Occupancy o = mapping::compute_occupancy(threads, r.config.dynamic_shared_bytes, r.attributes, limits);
  c.theoretical_occupancy_pct = 100.0 * o.occupancy;
  const mapping::Waves w = mapping::compute_waves(r.config.total_blocks(), limits.sm_count, o.active_blocks_per_sm);
  c.model_waves = w.waves;
  c.model_last_wave_fill_pct = 100.0 * w.last_wave_fill;
  c.occupancy_note = std::to_string(o.active_blocks_per_sm) + " blocks of " + std::to_string(o.warps_per_block) +
                     " warps per SM, limited by " + mapping::to_string(o.limiter) +
                     (r.attributes_measured ? "" : " (attributes not measured)");
}

// ---- 4. rows and the sentence ----------------------------------------------------------------

double CounterRow::comparison() const {
  if (!finite(measured) || !finite(model)) return kNone;
  if (points) return measured - model;
  if (model != 0) return measured / model;
  return measured == 0 ? 1.0 : kNone;
}

std::vector<CounterRow> counter_rows(const LaunchCounters& c) {
  std::vector<CounterRow> rows;
  auto add = [&](std::string name, double m, double p, std::string unit, std::string help, bool points = false) {
    rows.push_back(CounterRow{std::move(name), m, p, std::move(unit), points, std::move(help)});
  };
  add("DRAM bytes", c.dram_bytes(), c.model_bytes, "B",
      "Bytes read from and written to device memory while the kernel ran (dram__bytes_read.sum + "
      "dram__bytes_write.sum), beside the bytes blockscope counts for its bandwidth figure.");
  add("  read", c.dram_read_bytes, kNone, "B", "dram__bytes_read.sum");
  add("  written", c.dram_write_bytes, kNone, "B",
      "dram__bytes_write.sum: write-backs that reached DRAM before the kernel ended. Output still "
      "dirty in L2 at the end is written back later and not counted (by ncu neither).");
  add("DRAM bandwidth", c.dram_bandwidth_gbs, c.model_bandwidth_gbs, "GB/s",
      "Measured: DRAM bytes over the profiled kernel's duration. blockscope: the bytes it counts "
      "over the launch's kernel time as timed with CUDA events (its bandwidth figure).");
  add("L2 hit rate", c.l2_hit_pct, kNone, "%",
      "lts__t_sector_hit_rate: share of L2 sector lookups that hit. Every pass starts with an "
      "emptied L2, as in Nsight Compute.");
  add("sectors / load", c.ld_sectors_per_request(), c.model_ld_sectors_per_request, "",
      "32-byte sectors per global load instruction of a warp (L1TEX). 1 byte per lane coalesced: "
      "1; 4 bytes per lane coalesced: 4; 32 lanes on 32 rows: 32. blockscope: the Memory tab's "
      "model averaged over a sample of the launch's warps.");
  add("sectors / store", c.st_sectors_per_request(), c.model_st_sectors_per_request, "",
      "32-byte sectors per global store instruction of a warp, beside the Memory tab's model.");
  add("shared load wavefronts", c.shared_ld_wavefronts, c.model_shared_ld_wavefronts, "",
      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum: shared-memory load wavefronts (ld.shared and "
      "ldmatrix) through the load/store pipe. blockscope: the bank view's model, every request of a sample of "
      "warps, scaled to the grid. TMA writes and wgmma operand reads do not go through this pipe: neither "
      "side counts them.");
  add("shared load bank conflicts", c.shared_ld_conflicts, c.model_shared_ld_conflicts, "",
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum: load wavefronts beyond the ideal (a bank asked "
      "for two different words in one wavefront). blockscope: the model's wavefronts minus its ideal.");
  add("shared store wavefronts", c.shared_st_wavefronts, c.model_shared_st_wavefronts, "",
      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum: st.shared wavefronts. cp.async's shared writes are "
      "counted as LDGSTS (op_ldgsts), not here; the model keeps them apart too.");
  add("shared store bank conflicts", c.shared_st_conflicts, c.model_shared_st_conflicts, "",
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum, beside the model's wavefronts beyond the ideal.");
  add("occupancy", c.achieved_occupancy_pct, c.theoretical_occupancy_pct, "%",
      "Achieved: warps resident on an SM on average while it was active, as a share of its warp "
      "slots (sm__warps_active). blockscope: the theoretical occupancy from the kernel's "
      "registers, shared memory and block size (the Launch tab).",
      true);
  add("SM throughput", c.sm_throughput_pct, kNone, "% of peak",
      "sm__throughput: the busiest of the SM's pipelines and units, as a share of its peak over "
      "the kernel's elapsed time.");
  add("memory throughput", c.memory_throughput_pct, kNone, "% of peak",
      "gpu__compute_memory_throughput: the busiest of the memory units (L1, L2, DRAM), as a "
      "share of its peak.");
  add("DRAM throughput", c.dram_throughput_pct, kNone, "% of peak",
      "dram__throughput: DRAM traffic as a share of its peak.");
  add("cycles / instruction", c.warp_cycles_per_issue, kNone, "",
      "Cycles a warp spends, on average, between two instructions it issues: the stall "
      "reasons below split them.");
  return rows;
}

std::string largest_disagreement(const LaunchCounters& c) {
  if (!c.measured()) return {};
  struct Candidate {
    double score = -1;
    std::string text;
  };
  Candidate best;
  auto consider = [&](double score, std::string text) {
    if (finite(score) && score > best.score) best = {score, std::move(text)};
  };
  // Ratios score by how far they are from 1 either way; 0 measured against a non-zero model is
  // as far as it gets.
  auto ratio_score = [](double m, double p) {
    if (!finite(m) || !finite(p) || p <= 0) return kNone;
    return m <= 0 ? 10.0 : std::fabs(std::log(m / p));
  };

  const double m_bytes = c.dram_bytes();
  if (const double s = ratio_score(m_bytes, c.model_bytes); finite(s)) {
    const double r = m_bytes / c.model_bytes;
    std::string why;
    if (r < 1)
      why = "data that stays in L2 never reaches DRAM during the kernel (only " + bytes_text(c.dram_write_bytes) +
            " was written back before it ended; output still dirty in L2 goes out later)";
    else
      why = "the kernel fetched data more than once (its reuse did not stay in L2: " + num(c.l2_hit_pct) +
            "% of L2 lookups hit) or moved whole 32-byte sectors of which "
            "it used only part";
    consider(s, "DRAM moved " + times_text(r) + " the bytes blockscope counts (" + bytes_text(m_bytes) + " against " +
                    bytes_text(c.model_bytes) + "): " + why + ".");
  }
  auto sectors = [&](const char* what, double m, double p) {
    if (const double s = ratio_score(m, p); finite(s))
      consider(s, std::string("Global ") + what + " touched " + num(m) +
                      " sectors per request where the memory view predicts " + num(p) +
                      (m > p ? ": the warps outside the model's sample, or buffers that are not "
                               "sector-aligned, spread their requests wider"
                             : ": requests of the warps outside the model's sample are narrower") +
                      " (the model averages " + c.sectors_sample + ").");
  };
  sectors("loads", c.ld_sectors_per_request(), c.model_ld_sectors_per_request);
  auto shared = [&](const char* what, double m, double p) {
    if (const double s = ratio_score(m, p); finite(s))
      consider(s, std::string("Shared-memory ") + what + " took " + num(m) +
                      " wavefronts where the bank model counts " + num(p) +
                      (m > p ? ": the hardware served some requests in more wavefronts than the model's phases "
                               "(8- and 16-byte accesses in half- and quarter-warps) predict, or warps outside "
                               "its sample differ"
                             : ": the hardware merged wavefronts the model serves separately (for 16-byte "
                               "accesses whose quarter-warps read the same words)") +
                      " (the model counts " + c.shared_sample + ").");
  };
  shared("loads", c.shared_ld_wavefronts, c.model_shared_ld_wavefronts);
  shared("stores", c.shared_st_wavefronts, c.model_shared_st_wavefronts);
  sectors("stores", c.st_sectors_per_request(), c.model_st_sectors_per_request);
  const double a = c.achieved_occupancy_pct, t = c.theoretical_occupancy_pct;
  if (finite(a) && finite(t) && t > 0) {
    std::string why;
    if (a < t) {
      why =
          "warps wait to start and finish unevenly within their blocks, and SMs idle while a "
          "wave drains";
      if (finite(c.model_waves))
        why += " (the grid is " + num(c.model_waves) + " waves; the last one fills " + num(c.model_last_wave_fill_pct) +
               "% of the slots)";
    } else {
      why =
          "more warps were resident than the model allows: check the kernel's registers and "
          "shared memory in the Launch tab";
    }
    consider(std::fabs(a - t) / t,
             "Achieved occupancy is " + num(a) + "% against " + num(t) + "% theoretical: " + why + ".");
  }
  if (best.score < 0)
    return "Nothing to compare: blockscope has no model of this launch (a library kernel picks "
           "its own grid and blocks).";
  if (best.score < std::log(1.05))
    return "Model and hardware agree within 5% on every figure both have; the largest "
           "difference: " +
           best.text;
  return best.text;
}

std::string decimal_bytes(double b) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB"};
  int u = 0;
  while (std::fabs(b) >= 1000 && u < 4) b /= 1000, ++u;
  char buf[48];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.3g %s", b, units[u]);
  return buf;
}

}  // namespace bs::measured
