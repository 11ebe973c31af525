// The warp-specialized pipeline, measured: what a pipeline-traced launch of T4, T5 or T6 writes
// (one capped event buffer per block and warpgroup, the SM clock at each hand-over), and the
// analysis the Pipeline view and the checks read. Plain C++ (no CUDA): the device side is
// pipeline_probe.cuh, the launch is MatmulLab::trace_pipeline.
//
// What is recorded. One thread per warpgroup records (the producer's thread 0; lane 0 of each
// consumer's second warp: pipeline_probe.cuh says why, and why most events are stamped where they
// happen and written a little later):
//   producer (warpgroup 0), per k-slice it issues:
//     EmptyWaitBegin  before it waits on the stage's "empty" barrier (a wait of zero length for
//                     the first pass over the ring, where nothing is waited on)
//     EmptyWaitEnd    after that wait: it starts issuing the stage (before arrive.expect_tx)
//     TmaIssued       after the stage's TMA copies were issued
//   each consumer (warpgroups 1 and 2), per k-slice:
//     FullWaitBegin / FullWaitEnd   around its wait on the stage's "full" barrier
//     WgmmaCommit     after its wgmmas on the stage were issued and committed
//     WgmmaWaitEnd    after wgmma.wait_group 0 (the stage's products are in the accumulators)
//     EmptyArrive     its arrive on the stage's "empty" barrier, issued right after: one clock
//                     reading serves both, and the next slice's FullWaitBegin too (nothing
//                     between them waits)
//   and per output tile: EpilogueBegin / EpilogueEnd around its stores of C (the recording
//   thread's own stores: the other threads of the warpgroup finish about together).
// Each event carries the stage, the k-slice within the tile and the tile (T4: the block's linear
// id; T5/T6: the tile's index in the grouped order) and the low 32 bits of the SM's clock64
// (cycles: finer than the timer's tick; see PipelineRaw::timer_tick_ns). Every eighth k-slice's
// TMA issue and commit, and each epilogue's end, also read %globaltimer; place_by_clock puts the
// others on the timer's scale.
//
// When a buffer is full. Each warpgroup has `capacity` slots; it keeps the first `capacity`
// events and counts the rest (`attempted` - `capacity` were dropped). The host sizes the
// capacity from the launch (slices x tiles per block x events per slice), capped at
// PipelineCapture::max_events_per_warpgroup, so at the default cap nothing is dropped up to
// 8192^3; the analysis says how many were dropped and where the record stops.
//
// Section index of pipeline_trace.cpp: 1. the record and its text file  2. spans  3. analysis
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/dim.hpp"
#include "core/status.hpp"

namespace bs::matmul {

enum class PipelineEventKind : std::uint8_t {
  None = 0,
  EmptyWaitBegin,
  EmptyWaitEnd,
  TmaIssued,
  FullWaitBegin,
  FullWaitEnd,
  WgmmaCommit,
  WgmmaWaitEnd,
  EmptyArrive,
  EpilogueBegin,
  EpilogueEnd,
  Count
};
const char* to_string(PipelineEventKind k);

// One event, as the analysis reads it (24 bytes).
struct PipelineEvent {
  std::uint64_t t_ns = 0;   // %globaltimer (read on the device, or placed by its clock: place_by_clock)
  std::uint32_t clock = 0;  // low 32 bits of clock64 on the block's SM
  std::uint32_t slice = 0;  // k-slice within the tile
  std::uint32_t tile = 0;   // T4: linear block id; persistent rungs: tile index in grouped order
  std::uint8_t kind = 0;    // PipelineEventKind
  std::uint8_t stage = 0;   // ring slot, slice % stages (over all tiles for persistent rungs)
  std::uint16_t pad = 0;
};
static_assert(sizeof(PipelineEvent) == 24);

// One event as the device writes it: 16 bytes, one vector store (pipeline_probe.cuh says why
// each instruction counts). The timer's low 32 bits only, where it was read: the block's
// recorded start (64 bits) gives the rest, since no kernel runs for 2^32 ns.
struct PipelineDeviceEvent {
  std::uint32_t clock = 0;     // low 32 bits of clock64
  std::uint32_t timer_lo = 0;  // low 32 bits of %globaltimer, where bits has kTimerRead
  std::uint32_t tile = 0;
  std::uint32_t bits = 0;  // slice | stage << 20 | kind << 24 | kTimerRead
};
static_assert(sizeof(PipelineDeviceEvent) == 16, "the device and host layouts must agree");
inline constexpr int kPipelineSliceBits = 20;  // slices of a tile: K up to 64 x 2^20
inline constexpr std::uint32_t kPipelineTimerRead = 1u << 28;
constexpr std::uint32_t pipeline_event_bits(PipelineEventKind kind, int stage, int slice) {
  return (static_cast<std::uint32_t>(slice) & ((1u << kPipelineSliceBits) - 1)) |
         (static_cast<std::uint32_t>(stage) & 0xfu) << kPipelineSliceBits |
         (static_cast<std::uint32_t>(kind) & 0xfu) << 24;
}
static_assert(static_cast<int>(PipelineEventKind::Count) <= 16);
// The event `d` of a block whose recorder read `block_start_ns` (the 64-bit timer) at its start:
// the timer's high bits are the ones that put it nearest that start. t_ns = 0 where the device
// read only the clock.
PipelineEvent decode_pipeline_event(const PipelineDeviceEvent& d, std::uint64_t block_start_ns);

// Where the device writes: events[(block * warpgroups + wg) * capacity + i], and the number of
// events each warpgroup attempted in attempted[block * warpgroups + wg].
struct PipelineDeviceArgs {
  PipelineDeviceEvent* events = nullptr;
  std::uint32_t* attempted = nullptr;
  std::uint32_t capacity = 0;
};
inline constexpr int kPipelineWarpgroups = 3;  // producer, consumer 0, consumer 1

struct PipelineCapture {
  std::uint32_t max_events_per_warpgroup = 1u << 15;
};
// Events a warpgroup writes for `slices` k-slices per tile and `tiles` tiles of its block:
// the producer 3 per slice; a consumer 5 per slice and 2 per tile.
std::uint32_t pipeline_events_needed(int warpgroup, int slices, int tiles);

// One block's frame: from the block recorder (trace/block_trace.cuh), absolute nanoseconds.
struct PipelineBlock {
  Dim3 block;
  unsigned sm = 0;
  std::uint64_t start_ns = 0, end_ns = 0;
  int cluster_rank = -1;  // -1: no cluster
};

// A whole recording: a launch's blocks and each block's warpgroups' events.
struct PipelineRaw {
  std::string kernel;  // tc4_warp_specialized, ...
  std::string config;  // its configuration's label
  int M = 0, N = 0, K = 0;
  Dim3 grid, cluster{1, 1, 1};
  int stages = 4;
  bool persistent = false;
  int mma_groups_in_flight = 0;       // the rung's (MatmulKernelInfo): what a consumer's wait on full overlaps
  double event_ms = 0;                // the traced launch itself, timed with CUDA events
  std::uint32_t capacity = 0;         // slots per warpgroup
  std::vector<PipelineBlock> blocks;  // linear block id order
  std::vector<std::vector<PipelineEvent>> lanes;  // block * 3 + warpgroup: the events kept
  std::vector<std::uint32_t> attempted;           // block * 3 + warpgroup
  std::string source;                             // where it came from: "recorded on <GPU>", or a file's path
};

// The text file of a recording (--matmul-pipeline-trace, and what the GPU test writes):
//   blockscope-pipeline-trace 1
//   kernel <id> / config <label> / size M N K / grid x y z / cluster x y z / stages S /
//   persistent 0|1 / event_ms T / capacity C
//   block <linear> <sm> <start_ns> <end_ns> <cluster_rank>      (one per block, in order)
//   lane <linear> <warpgroup> <attempted> <kept>                 then <kept> lines:
//   e <kind> <stage> <slice> <tile> <t_ns> <clock>
// The device reads %globaltimer at one event in eight (and at each epilogue's end) and the SM's
// clock at every event, because the timer is slow to read. This places every event of a block
// on a least-squares line t = a + b * clock through the block's events that read both (the
// clock is the SM's, shared by the block's warpgroups; 32-bit differences, so a wrap in between
// is harmless), the readings' own events too, so the events keep the clock's order. A block with
// fewer than two readings keeps its times, and the count of its events left at 0 is returned.
std::size_t place_by_clock(PipelineRaw& raw);

std::string write_pipeline_text(const PipelineRaw& raw);
Result<PipelineRaw> read_pipeline_text(const std::string& text, const std::string& name);
Result<PipelineRaw> load_pipeline_file(const std::string& path);
Status save_pipeline_file(const PipelineRaw& raw, const std::string& path);

// ---------------------------------------------------------------------------------------------
// Spans: what a warpgroup was doing between two of its events
// ---------------------------------------------------------------------------------------------
enum class SpanKind : std::uint8_t {
  WaitEmpty,   // producer: waiting for the consumers to free the stage
  TmaIssue,    // producer: arrive.expect_tx and the TMA copies issued
  WaitFull,    // consumer: waiting for the stage's bytes
  WgmmaIssue,  // consumer: issuing the stage's wgmmas (to the commit)
  WgmmaWait,   // consumer: waiting for them to finish
  Release,     // consumer: arriving on the stage's empty barrier
  Epilogue,    // consumer: storing its part of C
  Count
};
const char* to_string(SpanKind k);

struct PipelineSpan {
  SpanKind kind = SpanKind::WaitFull;
  int stage = 0, slice = 0, tile = 0;
  std::uint64_t begin_ns = 0, end_ns = 0;  // relative to the recording's earliest block start
};

struct PipelineLane {
  int block = 0;  // linear block id
  int warpgroup = 0;
  bool producer() const { return warpgroup == 0; }
  unsigned sm = 0;
  std::vector<PipelineSpan> spans;          // in time order
  std::uint64_t first_ns = 0, last_ns = 0;  // its first and last event
  std::uint64_t waiting_ns = 0;             // WaitEmpty (producer) or WaitFull (consumer)
  std::uint64_t multiplying_ns = 0;         // WgmmaIssue + WgmmaWait
  std::uint64_t epilogue_ns = 0;
  std::uint32_t dropped = 0;  // events past the capacity
};

struct PipelineSm {
  unsigned sm = 0;
  std::vector<int> blocks;     // linear ids, by start
  std::uint64_t union_ns = 0;  // the union of its blocks' [start, end]
  std::uint64_t first_ns = 0, last_ns = 0;
};

struct PipelineCoverage {
  // The kernel's duration as the block records see it: the earliest block start to the latest
  // block end (the recording's extent).
  std::uint64_t extent_ns = 0;
  // The busiest SM's union of its blocks' spans; and the mean over the SMs that ran blocks.
  std::uint64_t busiest_sm_ns = 0;
  double mean_sm_ns = 0;
  // extent / (event-timed duration of the same launch) and busiest SM / event-timed; the check
  // "per-block times add up to the kernel's duration within 5%" is both in [0.95, 1.05].
  double extent_ratio = 0, busiest_ratio = 0, mean_ratio = 0;
};

struct PipelineAnalysis {
  std::vector<PipelineLane> lanes;  // block * 3 + warpgroup
  std::vector<PipelineSm> sms;      // by SM id, only SMs that ran a block
  std::uint64_t consumer_active_ns = 0, consumer_wait_full_ns = 0;
  std::uint64_t producer_active_ns = 0, producer_wait_empty_ns = 0;
  double consumer_wait_share = 0;  // waiting on full / consumer active time (first to last event)
  double producer_wait_share = 0;  // waiting on empty / producer active time
  PipelineCoverage coverage;
  std::uint64_t timer_tick_ns = 0;  // smallest positive step between two events of one lane
  std::uint32_t dropped = 0;        // events past the capacity, over all lanes
  std::uint64_t end_ns = 0;         // the latest end (relative), for the view's axis
  std::uint64_t base_ns = 0;        // the absolute %globaltimer every relative time counts from
  // The order check: every consumer's wait on a stage ends no earlier than its producer began
  // issuing that stage (same block, same pass over the ring). `order_violations` counts the
  // slices where it did not; `order_checked` the pairs compared.
  std::size_t order_checked = 0, order_violations = 0;
  std::string order_first_violation;
  // The sentence the view shows: where the consumers wait.
  std::string sentence;
};

// Spans, shares, SM unions and checks of a recording. Fails on a recording whose shape does not
// hold together (lanes not 3 per block, events out of time order within a lane).
Result<PipelineAnalysis> analyse_pipeline(const PipelineRaw& raw);

// The sentence alone, from the two shares (also used by the tests).
std::string pipeline_sentence(double consumer_wait_share, double producer_wait_share, int groups_in_flight = 0);

}  // namespace bs::matmul
