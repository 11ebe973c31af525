#include "labs/matmul/pipeline_trace.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>

namespace bs::matmul {

const char* to_string(PipelineEventKind k) {
  switch (k) {
    case PipelineEventKind::None: return "none";
    case PipelineEventKind::EmptyWaitBegin: return "empty wait begins";
    case PipelineEventKind::EmptyWaitEnd: return "empty wait ends";
    case PipelineEventKind::TmaIssued: return "TMA issued";
    case PipelineEventKind::FullWaitBegin: return "full wait begins";
    case PipelineEventKind::FullWaitEnd: return "full wait ends";
    case PipelineEventKind::WgmmaCommit: return "wgmma committed";
    case PipelineEventKind::WgmmaWaitEnd: return "wgmma done";
    case PipelineEventKind::EmptyArrive: return "empty arrive";
    case PipelineEventKind::EpilogueBegin: return "epilogue begins";
    case PipelineEventKind::EpilogueEnd: return "epilogue ends";
    case PipelineEventKind::Count: break;
  }
  return "?";
}

const char* to_string(SpanKind k) {
  switch (k) {
    case SpanKind::WaitEmpty: return "waiting on empty";
    case SpanKind::TmaIssue: return "TMA issue";
    case SpanKind::WaitFull: return "waiting on full";
    case SpanKind::WgmmaIssue: return "wgmma issue";
    case SpanKind::WgmmaWait: return "wgmma wait";
    case SpanKind::Release: return "empty arrive";
    case SpanKind::Epilogue: return "epilogue";
    case SpanKind::Count: break;
  }
  return "?";
}

std::uint32_t pipeline_events_needed(int warpgroup, int slices, int tiles) {
  const long long s = std::max(0, slices), t = std::max(0, tiles);
  const long long n = warpgroup == 0 ? 3 * s * t : (5 * s + 2) * t;
  return static_cast<std::uint32_t>(std::min<long long>(n, 0xffffffffLL));
}

PipelineEvent decode_pipeline_event(const PipelineDeviceEvent& d, std::uint64_t block_start_ns) {
  PipelineEvent e;
  e.clock = d.clock;
  e.tile = d.tile;
  e.slice = d.bits & ((1u << kPipelineSliceBits) - 1);
  e.stage = static_cast<std::uint8_t>((d.bits >> kPipelineSliceBits) & 0xfu);
  e.kind = static_cast<std::uint8_t>((d.bits >> 24) & 0xfu);
  if (d.bits & kPipelineTimerRead) {
    // The 64-bit value with these low bits nearest the block's start (the event comes after it,
    // by far less than 2^31 ns).
    const std::uint64_t high = block_start_ns & ~0xffffffffull;
    std::uint64_t t = high | d.timer_lo;
    if (t + 0x80000000ull < block_start_ns) t += 0x100000000ull;
    else if (t > block_start_ns + 0x80000000ull && t >= 0x100000000ull) t -= 0x100000000ull;
    e.t_ns = t;
  }
  return e;
}

// ---------------------------------------------------------------------------------------------
// 1. The record and its text file
// ---------------------------------------------------------------------------------------------

std::string write_pipeline_text(const PipelineRaw& raw) {
  std::ostringstream o;
  o << "blockscope-pipeline-trace 1\n";
  o << "kernel " << raw.kernel << "\n";
  o << "config " << raw.config << "\n";
  o << "size " << raw.M << " " << raw.N << " " << raw.K << "\n";
  o << "grid " << raw.grid.x << " " << raw.grid.y << " " << raw.grid.z << "\n";
  o << "cluster " << raw.cluster.x << " " << raw.cluster.y << " " << raw.cluster.z << "\n";
  o << "stages " << raw.stages << "\npersistent " << (raw.persistent ? 1 : 0) << "\n";
  o << "in_flight " << raw.mma_groups_in_flight << "\n";
  char ms[64];
  std::snprintf(ms, sizeof ms, "%.9g", raw.event_ms);
  o << "event_ms " << ms << "\ncapacity " << raw.capacity << "\n";
  for (std::size_t b = 0; b < raw.blocks.size(); ++b) {
    const PipelineBlock& pb = raw.blocks[b];
    o << "block " << b << " " << pb.sm << " " << pb.start_ns << " " << pb.end_ns << " " << pb.cluster_rank << "\n";
  }
  for (std::size_t l = 0; l < raw.lanes.size(); ++l) {
    const auto& ev = raw.lanes[l];
    o << "lane " << l / kPipelineWarpgroups << " " << l % kPipelineWarpgroups << " "
      << (l < raw.attempted.size() ? raw.attempted[l] : ev.size()) << " " << ev.size() << "\n";
    for (const PipelineEvent& e : ev)
      o << "e " << int(e.kind) << " " << int(e.stage) << " " << e.slice << " " << e.tile << " " << e.t_ns << " "
        << e.clock << "\n";
  }
  return o.str();
}

Result<PipelineRaw> read_pipeline_text(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  std::string line;
  int number = 0;
  auto bad = [&](const std::string& what) {
    return Status::failure(name + ", line " + std::to_string(number) + ": " + what,
                           "a pipeline trace is the text a pipeline-traced launch writes "
                           "(kernels/labs/matmul/pipeline_trace.hpp)",
                           "read_pipeline_text");
  };
  if (!std::getline(in, line) || line.rfind("blockscope-pipeline-trace 1", 0) != 0) {
    number = 1;
    return bad("not a blockscope pipeline trace (its first line is not 'blockscope-pipeline-trace 1')");
  }
  ++number;
  PipelineRaw raw;
  raw.source = name;
  std::size_t expect_events = 0;
  std::vector<PipelineEvent>* lane = nullptr;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    std::istringstream f(line);
    std::string tag;
    f >> tag;
    if (tag == "e") {
      if (!lane || expect_events == 0) return bad("an event outside a lane");
      unsigned kind = 0, stage = 0;
      PipelineEvent e;
      if (!(f >> kind >> stage >> e.slice >> e.tile >> e.t_ns >> e.clock)) return bad("an event needs 6 numbers");
      if (kind == 0 || kind >= static_cast<unsigned>(PipelineEventKind::Count))
        return bad("unknown event kind " + std::to_string(kind));
      e.kind = static_cast<std::uint8_t>(kind);
      e.stage = static_cast<std::uint8_t>(stage);
      lane->push_back(e);
      --expect_events;
      continue;
    }
    if (expect_events != 0) return bad("the lane before this line has fewer events than it announced");
    if (tag == "kernel") f >> raw.kernel;
    else if (tag == "config") {
      std::getline(f >> std::ws, raw.config);
    } else if (tag == "size") f >> raw.M >> raw.N >> raw.K;
    else if (tag == "grid") f >> raw.grid.x >> raw.grid.y >> raw.grid.z;
    else if (tag == "cluster") f >> raw.cluster.x >> raw.cluster.y >> raw.cluster.z;
    else if (tag == "stages") f >> raw.stages;
    else if (tag == "persistent") {
      int p = 0;
      f >> p;
      raw.persistent = p != 0;
    } else if (tag == "in_flight") f >> raw.mma_groups_in_flight;
    else if (tag == "event_ms") f >> raw.event_ms;
    else if (tag == "capacity") f >> raw.capacity;
    else if (tag == "block") {
      std::size_t id = 0;
      PipelineBlock b;
      if (!(f >> id >> b.sm >> b.start_ns >> b.end_ns >> b.cluster_rank)) return bad("a block needs 5 numbers");
      if (id != raw.blocks.size()) return bad("blocks must come in linear order");
      const unsigned long long gx = std::max(1u, raw.grid.x), gy = std::max(1u, raw.grid.y);
      b.block = Dim3{static_cast<unsigned>(id % gx), static_cast<unsigned>((id / gx) % gy),
                     static_cast<unsigned>(id / (gx * gy))};
      raw.blocks.push_back(b);
    } else if (tag == "lane") {
      std::size_t block = 0, wg = 0, attempted = 0, kept = 0;
      if (!(f >> block >> wg >> attempted >> kept)) return bad("a lane needs 4 numbers");
      if (block * kPipelineWarpgroups + wg != raw.lanes.size()) return bad("lanes must come in order, 3 a block");
      raw.lanes.emplace_back();
      raw.attempted.push_back(static_cast<std::uint32_t>(attempted));
      lane = &raw.lanes.back();
      lane->reserve(kept);
      expect_events = kept;
    } else {
      return bad("unknown line '" + tag + "'");
    }
    if (f.fail()) return bad("could not read the numbers of '" + tag + "'");
  }
  if (expect_events != 0) return bad("the file ends inside a lane");
  if (raw.grid.volume() != raw.blocks.size())
    return bad("the grid has " + std::to_string(raw.grid.volume()) + " blocks but the file lists " +
               std::to_string(raw.blocks.size()));
  return raw;
}

Result<PipelineRaw> load_pipeline_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f)
    return Status::failure("cannot open the pipeline trace '" + path + "'", "check the path", "load_pipeline_file");
  std::stringstream s;
  s << f.rdbuf();
  return read_pipeline_text(s.str(), path);
}

Status save_pipeline_file(const PipelineRaw& raw, const std::string& path) {
  std::ofstream f(path, std::ios::binary);
  if (!f)
    return Status::failure("cannot write '" + path + "'", "check the folder exists and is writable",
                           "save_pipeline_file");
  f << write_pipeline_text(raw);
  if (!f) return Status::failure("writing '" + path + "' failed", "check the disk has room", "save_pipeline_file");
  return Status::success();
}

// ---------------------------------------------------------------------------------------------
// 2. Spans
// ---------------------------------------------------------------------------------------------
namespace {

struct SpanRule {
  PipelineEventKind begin, end;
  SpanKind span;
};
constexpr SpanRule kRules[] = {
    {PipelineEventKind::EmptyWaitBegin, PipelineEventKind::EmptyWaitEnd, SpanKind::WaitEmpty},
    {PipelineEventKind::EmptyWaitEnd, PipelineEventKind::TmaIssued, SpanKind::TmaIssue},
    {PipelineEventKind::FullWaitBegin, PipelineEventKind::FullWaitEnd, SpanKind::WaitFull},
    {PipelineEventKind::FullWaitEnd, PipelineEventKind::WgmmaCommit, SpanKind::WgmmaIssue},
    {PipelineEventKind::WgmmaCommit, PipelineEventKind::WgmmaWaitEnd, SpanKind::WgmmaWait},
    {PipelineEventKind::WgmmaWaitEnd, PipelineEventKind::EmptyArrive, SpanKind::Release},
    {PipelineEventKind::EpilogueBegin, PipelineEventKind::EpilogueEnd, SpanKind::Epilogue},
};

// A least-squares line y = icpt + slope * x through the points added.
struct LineFit {
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  void add(double x, double y) { n += 1, sx += x, sy += y, sxx += x * x, sxy += x * y; }
  double den() const { return n * sxx - sx * sx; }
  double slope() const { return (n * sxy - sx * sy) / den(); }
  double icpt(double slope) const { return (sy - slope * sx) / n; }
};

// Cycles from `clock0` to `clock`, across the 32-bit counter's wrap.
double cycles_since(std::uint32_t clock0, std::uint32_t clock) {
  return static_cast<double>(static_cast<std::int32_t>(clock - clock0));
}

// Per block, the event times in nanoseconds: %globaltimer, or, where the timer ticks coarsely,
// the SM's clock mapped onto it by a least-squares line through every event of the block
// (t = a + b * cycles; the clock is the SM's own, shared by its warpgroups), plus half a tick:
// the timer shows the last tick, so an event happened on average half a tick after it.
std::vector<std::vector<double>> event_times(const PipelineRaw& raw, std::uint64_t tick, std::uint64_t base,
                                             bool* refined) {
  std::vector<std::vector<double>> t(raw.lanes.size());
  *refined = false;
  for (std::size_t l = 0; l < raw.lanes.size(); ++l)
    for (const PipelineEvent& e : raw.lanes[l]) t[l].push_back(static_cast<double>(e.t_ns - base));
  if (tick < 256) return t;
  for (std::size_t b = 0; b * kPipelineWarpgroups < raw.lanes.size(); ++b) {
    const PipelineEvent* first = nullptr;
    for (int wg = 0; wg < kPipelineWarpgroups && !first; ++wg)
      if (!raw.lanes[b * kPipelineWarpgroups + wg].empty()) first = &raw.lanes[b * kPipelineWarpgroups + wg].front();
    if (!first) continue;
    LineFit fit;
    for (int wg = 0; wg < kPipelineWarpgroups; ++wg)
      for (const PipelineEvent& e : raw.lanes[b * kPipelineWarpgroups + wg])
        fit.add(cycles_since(first->clock, e.clock), static_cast<double>(e.t_ns - base));
    if (fit.n < 8 || fit.den() <= 0) continue;
    const double slope = fit.slope(), icpt = fit.icpt(slope) + 0.5 * double(tick);
    if (!(slope > 0)) continue;
    for (int wg = 0; wg < kPipelineWarpgroups; ++wg) {
      const std::size_t l = b * kPipelineWarpgroups + wg;
      for (std::size_t i = 0; i < raw.lanes[l].size(); ++i)
        t[l][i] = icpt + slope * cycles_since(first->clock, raw.lanes[l][i].clock);
    }
    *refined = true;
  }
  return t;
}

}  // namespace

std::size_t place_by_clock(PipelineRaw& raw) {
  std::size_t unplaced = 0;
  for (std::size_t b = 0; b * kPipelineWarpgroups < raw.lanes.size(); ++b) {
    const PipelineEvent* first = nullptr;  // the block's first event with both readings
    for (int wg = 0; wg < kPipelineWarpgroups; ++wg)
      for (const PipelineEvent& e : raw.lanes[b * kPipelineWarpgroups + wg])
        if (e.t_ns != 0 && (!first || e.t_ns < first->t_ns)) first = &e;
    LineFit fit;
    if (first)
      for (int wg = 0; wg < kPipelineWarpgroups; ++wg)
        for (const PipelineEvent& e : raw.lanes[b * kPipelineWarpgroups + wg])
          if (e.t_ns != 0)
            fit.add(cycles_since(first->clock, e.clock),
                    static_cast<double>(static_cast<std::int64_t>(e.t_ns - first->t_ns)));
    const bool fitted = fit.n >= 2 && fit.den() > 0;
    const double slope = fitted ? fit.slope() : 0, icpt = fitted ? fit.icpt(slope) : 0;
    const std::uint32_t clock0 = first ? first->clock : 0;
    const std::uint64_t t0 = first ? first->t_ns : 0;
    // Every event of a fitted block is placed on the line, the ones with a reading too: two
    // events a few cycles apart keep their order (the clock's), which a reading beside a fitted
    // neighbour would not (the line's residuals are tens of ns: the timer's tick and read).
    for (int wg = 0; wg < kPipelineWarpgroups; ++wg)
      for (PipelineEvent& e : raw.lanes[b * kPipelineWarpgroups + wg]) {
        if (!fitted || !(slope > 0)) {
          if (e.t_ns == 0) ++unplaced;
          continue;
        }
        const double dt = icpt + slope * cycles_since(clock0, e.clock);
        e.t_ns = static_cast<std::uint64_t>(static_cast<double>(t0) + std::max(dt, -static_cast<double>(t0)));
      }
  }
  return unplaced;
}

// ---------------------------------------------------------------------------------------------
// 3. Analysis
// ---------------------------------------------------------------------------------------------

std::string pipeline_sentence(double consumer_wait_share, double producer_wait_share, int groups_in_flight) {
  auto pct = [](double s) { return std::to_string(static_cast<int>(std::lround(100.0 * s))) + "%"; };
  const std::string both = " (consumers wait on full " + pct(consumer_wait_share) + ", the producer on empty " +
                           pct(producer_wait_share) + " of their time)";
  if (consumer_wait_share < 0.05 && producer_wait_share < 0.05)
    return "Neither side waits much" + both + ": copies and multiplies keep pace.";
  if (consumer_wait_share >= producer_wait_share && groups_in_flight > 0)
    return "The consumers wait on full barriers " + pct(consumer_wait_share) +
           " of their time, but with their last slice's wgmmas still in the tensor cores: a wait leaves them idle "
           "only for the part that outlasts that group, so this share overstates how late the copies are" +
           both + ".";
  if (consumer_wait_share >= producer_wait_share)
    return "The consumers wait on full barriers " + pct(consumer_wait_share) +
           " of their time: the copies are late, and the tensor cores wait for data" + both + ".";
  return "The producer waits on empty barriers " + pct(producer_wait_share) +
         " of its time: the consumers are late, so the copies keep ahead and the multiplies set the pace" + both + ".";
}

namespace {

std::uint64_t as_ns(double v) { return v <= 0 ? 0 : static_cast<std::uint64_t>(std::llround(v)); }

Status analysis_failure(const std::string& what) {
  return Status::failure(what, "record the trace again; a pipeline trace has 3 lanes per block", "analyse_pipeline");
}

// The time base (the earliest block start, or event where blocks start later than that) and the
// timer's tick; fails on a lane whose events are out of time order.
Status time_base(const PipelineRaw& raw, PipelineAnalysis& a) {
  std::uint64_t base = ~0ull, tick = ~0ull;
  for (const PipelineBlock& b : raw.blocks) base = std::min(base, b.start_ns);
  for (std::size_t l = 0; l < raw.lanes.size(); ++l) {
    const auto& ev = raw.lanes[l];
    for (std::size_t i = 0; i < ev.size(); ++i) {
      base = std::min(base, ev[i].t_ns);
      if (i > 0 && ev[i].t_ns < ev[i - 1].t_ns)
        return analysis_failure("block " + std::to_string(l / kPipelineWarpgroups) + ", warpgroup " +
                                std::to_string(l % kPipelineWarpgroups) + ": event " + std::to_string(i) +
                                " is earlier than the one before it");
      if (i > 0 && ev[i].t_ns > ev[i - 1].t_ns) tick = std::min(tick, ev[i].t_ns - ev[i - 1].t_ns);
    }
  }
  a.base_ns = base == ~0ull ? 0 : base;
  a.timer_tick_ns = tick == ~0ull ? 0 : tick;
  return Status::success();
}

// Lane `l`'s spans (each rule's begin event closed by its end event of the same tile and slice,
// at the times `times`) and the time it spent waiting, multiplying and storing.
PipelineLane lane_spans(const PipelineRaw& raw, std::size_t l, const std::vector<double>& times) {
  PipelineLane lane;
  lane.block = static_cast<int>(l / kPipelineWarpgroups);
  lane.warpgroup = static_cast<int>(l % kPipelineWarpgroups);
  lane.sm = raw.blocks[static_cast<std::size_t>(lane.block)].sm;
  const auto& ev = raw.lanes[l];
  const std::uint32_t attempted = l < raw.attempted.size() ? raw.attempted[l] : static_cast<std::uint32_t>(ev.size());
  lane.dropped = attempted > ev.size() ? attempted - static_cast<std::uint32_t>(ev.size()) : 0;
  if (ev.empty()) return lane;
  lane.first_ns = as_ns(times.front());
  lane.last_ns = as_ns(times.back());
  // The latest event of each kind, to close spans.
  int last_of[static_cast<int>(PipelineEventKind::Count)];
  std::fill(std::begin(last_of), std::end(last_of), -1);
  for (std::size_t i = 0; i < ev.size(); ++i) {
    const auto kind = static_cast<PipelineEventKind>(ev[i].kind);
    for (const SpanRule& r : kRules) {
      if (r.end != kind) continue;
      const int j = last_of[static_cast<int>(r.begin)];
      if (j < 0 || ev[static_cast<std::size_t>(j)].slice != ev[i].slice ||
          ev[static_cast<std::size_t>(j)].tile != ev[i].tile)
        continue;
      PipelineSpan s;
      s.kind = r.span;
      s.stage = ev[i].stage, s.slice = static_cast<int>(ev[i].slice), s.tile = static_cast<int>(ev[i].tile);
      s.begin_ns = as_ns(times[static_cast<std::size_t>(j)]);
      s.end_ns = std::max(s.begin_ns, as_ns(times[i]));
      const std::uint64_t d = s.end_ns - s.begin_ns;
      if (r.span == SpanKind::WaitEmpty || r.span == SpanKind::WaitFull) lane.waiting_ns += d;
      if (r.span == SpanKind::WgmmaIssue || r.span == SpanKind::WgmmaWait) lane.multiplying_ns += d;
      if (r.span == SpanKind::Epilogue) lane.epilogue_ns += d;
      lane.spans.push_back(s);
    }
    last_of[ev[i].kind] = static_cast<int>(i);
  }
  std::stable_sort(lane.spans.begin(), lane.spans.end(),
                   [](const PipelineSpan& x, const PipelineSpan& y) { return x.begin_ns < y.begin_ns; });
  return lane;
}

// The order check, per block: the producer's EmptyWaitEnd of (tile, slice) against each
// consumer's FullWaitEnd of the same (tile, slice), in %globaltimer nanoseconds as recorded.
void check_order(const PipelineRaw& raw, PipelineAnalysis& a) {
  const std::uint64_t base = a.base_ns;
  for (std::size_t b = 0; b < raw.blocks.size(); ++b) {
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> issued;
    for (const PipelineEvent& e : raw.lanes[b * kPipelineWarpgroups])
      if (e.kind == static_cast<std::uint8_t>(PipelineEventKind::EmptyWaitEnd)) issued[{e.tile, e.slice}] = e.t_ns;
    const bool producer_complete = a.lanes[b * kPipelineWarpgroups].dropped == 0;
    for (int wg = 1; wg < kPipelineWarpgroups; ++wg)
      for (const PipelineEvent& e : raw.lanes[b * kPipelineWarpgroups + static_cast<std::size_t>(wg)]) {
        if (e.kind != static_cast<std::uint8_t>(PipelineEventKind::FullWaitEnd)) continue;
        auto it = issued.find({e.tile, e.slice});
        if (it == issued.end()) {
          if (!producer_complete) continue;  // the producer's record stopped at its capacity
          ++a.order_checked, ++a.order_violations;
          if (a.order_first_violation.empty())
            a.order_first_violation = "block " + std::to_string(b) + ", consumer " + std::to_string(wg - 1) +
                                      ": tile " + std::to_string(e.tile) + " slice " + std::to_string(e.slice) +
                                      " was never issued by the producer";
          continue;
        }
        ++a.order_checked;
        if (e.t_ns < it->second) {
          ++a.order_violations;
          if (a.order_first_violation.empty())
            a.order_first_violation = "block " + std::to_string(b) + ", consumer " + std::to_string(wg - 1) +
                                      ": tile " + std::to_string(e.tile) + " slice " + std::to_string(e.slice) +
                                      " wait ended at " + std::to_string(e.t_ns - base) +
                                      " ns, before the producer issued it at " + std::to_string(it->second - base) +
                                      " ns";
        }
      }
  }
}

// Per SM: the union of its blocks' spans (the block recorder's start and end), and how they
// cover the event-timed duration.
void sm_coverage(const PipelineRaw& raw, PipelineAnalysis& a) {
  const std::uint64_t base = a.base_ns;
  std::map<unsigned, PipelineSm> sms;
  std::uint64_t first = ~0ull, last = 0;
  for (std::size_t b = 0; b < raw.blocks.size(); ++b) {
    PipelineSm& s = sms[raw.blocks[b].sm];
    s.sm = raw.blocks[b].sm;
    s.blocks.push_back(static_cast<int>(b));
    first = std::min(first, raw.blocks[b].start_ns);
    last = std::max(last, raw.blocks[b].end_ns);
  }
  double sum = 0;
  for (auto& [id, s] : sms) {
    std::sort(s.blocks.begin(), s.blocks.end(),
              [&](int x, int y) { return raw.blocks[std::size_t(x)].start_ns < raw.blocks[std::size_t(y)].start_ns; });
    std::uint64_t cur_b = 0, cur_e = 0;
    bool open = false;
    for (int b : s.blocks) {
      const PipelineBlock& pb = raw.blocks[std::size_t(b)];
      if (!open) {
        cur_b = pb.start_ns, cur_e = pb.end_ns, open = true;
        s.first_ns = pb.start_ns - base;
      } else if (pb.start_ns <= cur_e) {
        cur_e = std::max(cur_e, pb.end_ns);
      } else {
        s.union_ns += cur_e - cur_b;
        cur_b = pb.start_ns, cur_e = pb.end_ns;
      }
      s.last_ns = std::max(s.last_ns, pb.end_ns - base);
    }
    if (open) s.union_ns += cur_e - cur_b;
    a.coverage.busiest_sm_ns = std::max(a.coverage.busiest_sm_ns, s.union_ns);
    sum += double(s.union_ns);
    a.sms.push_back(s);
    a.end_ns = std::max(a.end_ns, s.last_ns);
  }
  if (!sms.empty()) {
    a.coverage.extent_ns = last - first;
    a.coverage.mean_sm_ns = sum / double(sms.size());
  }
  if (raw.event_ms > 0) {
    const double ns = raw.event_ms * 1e6;
    a.coverage.extent_ratio = double(a.coverage.extent_ns) / ns;
    a.coverage.busiest_ratio = double(a.coverage.busiest_sm_ns) / ns;
    a.coverage.mean_ratio = a.coverage.mean_sm_ns / ns;
  }
}

}  // namespace

Result<PipelineAnalysis> analyse_pipeline(const PipelineRaw& raw) {
  if (raw.lanes.size() != raw.blocks.size() * kPipelineWarpgroups)
    return analysis_failure("the trace has " + std::to_string(raw.lanes.size()) + " lanes for " +
                            std::to_string(raw.blocks.size()) + " blocks");
  PipelineAnalysis a;
  if (Status ordered = time_base(raw, a); !ordered) return ordered;
  bool refined = false;
  const auto times = event_times(raw, a.timer_tick_ns, a.base_ns, &refined);

  for (std::size_t l = 0; l < raw.lanes.size(); ++l) {
    PipelineLane& lane = a.lanes.emplace_back(lane_spans(raw, l, times[l]));
    a.dropped += lane.dropped;
    if (raw.lanes[l].empty()) continue;
    const std::uint64_t active = lane.last_ns - lane.first_ns;
    if (lane.producer()) {
      a.producer_active_ns += active;
      a.producer_wait_empty_ns += lane.waiting_ns;
    } else {
      a.consumer_active_ns += active;
      a.consumer_wait_full_ns += lane.waiting_ns;
    }
    a.end_ns = std::max(a.end_ns, lane.last_ns);
  }
  a.consumer_wait_share = a.consumer_active_ns ? double(a.consumer_wait_full_ns) / double(a.consumer_active_ns) : 0;
  a.producer_wait_share = a.producer_active_ns ? double(a.producer_wait_empty_ns) / double(a.producer_active_ns) : 0;
  check_order(raw, a);
  sm_coverage(raw, a);

  a.sentence = pipeline_sentence(a.consumer_wait_share, a.producer_wait_share, raw.mma_groups_in_flight);
  if (refined)
    a.sentence += " (%globaltimer ticks every " + std::to_string(a.timer_tick_ns) +
                  " ns here; the spans are placed by the SM's clock, fitted to it per block.)";
  if (a.dropped > 0)
    a.sentence += " " + std::to_string(a.dropped) + " events past the buffer's capacity of " +
                  std::to_string(raw.capacity) + " a warpgroup were not recorded: the lanes stop there.";
  return a;
}

}  // namespace bs::matmul
