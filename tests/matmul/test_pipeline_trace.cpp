// The pipeline trace's analysis (kernels/labs/matmul/pipeline_trace.hpp) on event records written
// by hand: the spans, wait shares, SM unions and the order check are worked out below from the
// times themselves, never by calling the analysis's own helpers; an odd number of stages and
// slices; a buffer that filled up; a timer that ticks coarsely; the text file round trip. And the
// CPU simulator's refusal.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "labs/matmul/matmul_lab.hpp"
#include "simulator/grid_simulator.hpp"
#include "labs/matmul/pipeline_trace.hpp"

namespace bs::matmul {
namespace {

using K = PipelineEventKind;

PipelineEvent ev(K kind, int stage, int slice, int tile, std::uint64_t t, std::uint32_t clock = 0) {
  PipelineEvent e;
  e.kind = static_cast<std::uint8_t>(kind);
  e.stage = static_cast<std::uint8_t>(stage);
  e.slice = static_cast<std::uint32_t>(slice);
  e.tile = static_cast<std::uint32_t>(tile);
  e.t_ns = t;
  e.clock = clock;
  return e;
}

// One block, 3 stages, 5 slices (odd both). Times in ns from 1000 (the block's start):
//   producer slice s: EmptyWaitBegin 1000 + 10 s, EmptyWaitEnd (s < 3: same; s >= 3: the time
//   consumer 1 released slice s - 3), TmaIssued 4 ns later.
//   consumers: slice s waits on full from a to b, issues to b + 2, wgmma done at b + 30, arrive
//   at b + 31; then the next slice's wait starts at the arrive. Epilogue 20 ns after the last.
struct Hand {
  PipelineRaw raw;
  // Expected, worked out by hand below.
  std::uint64_t consumer_wait = 0, consumer_active = 0, producer_wait = 0, producer_active = 0;
};

Hand one_block() {
  Hand h;
  PipelineRaw& r = h.raw;
  r.kernel = "tc4_warp_specialized";
  r.grid = Dim3{1, 1, 1};
  r.stages = 3;
  r.capacity = 64;
  r.blocks = {PipelineBlock{Dim3{0, 0, 0}, 7, 1000, 1400, -1}};
  r.lanes.resize(3);
  const int S = 5;
  // Consumer 0 (warpgroup 1): full wait of slice s ends at data[s]; consumer 1 (warpgroup 2)
  // 5 ns later each time.
  const std::uint64_t data[S] = {1040, 1080, 1120, 1200, 1260};
  for (int c = 0; c < 2; ++c) {
    std::vector<PipelineEvent>& lane = r.lanes[1 + c];
    std::uint64_t t = 1000;
    std::uint64_t first = t, last = 0;
    for (int s = 0; s < S; ++s) {
      const std::uint64_t b = data[s] + 5 * c;
      lane.push_back(ev(K::FullWaitBegin, s % 3, s, 0, t));
      lane.push_back(ev(K::FullWaitEnd, s % 3, s, 0, b));
      h.consumer_wait += b - t;
      lane.push_back(ev(K::WgmmaCommit, s % 3, s, 0, b + 2));
      lane.push_back(ev(K::WgmmaWaitEnd, s % 3, s, 0, b + 30));
      lane.push_back(ev(K::EmptyArrive, s % 3, s, 0, b + 31));
      t = b + 31;
    }
    lane.push_back(ev(K::EpilogueBegin, 0, S, 0, t));
    lane.push_back(ev(K::EpilogueEnd, 0, S, 0, t + 20));
    last = t + 20;
    h.consumer_active += last - first;
  }
  // Producer: the stage of slice s >= 3 is free when consumer 1 (the later) arrived on slice s - 3.
  std::vector<PipelineEvent>& p = r.lanes[0];
  std::uint64_t t = 1000;
  for (int s = 0; s < S; ++s) {
    const std::uint64_t begin = t;
    const std::uint64_t end = s < 3 ? begin : std::max(begin, data[s - 3] + 5 + 31);
    p.push_back(ev(K::EmptyWaitBegin, s % 3, s, 0, begin));
    p.push_back(ev(K::EmptyWaitEnd, s % 3, s, 0, end));
    p.push_back(ev(K::TmaIssued, s % 3, s, 0, end + 4));
    h.producer_wait += end - begin;
    t = end + 4;
  }
  h.producer_active = t - 1000;
  r.attempted = {static_cast<std::uint32_t>(r.lanes[0].size()), static_cast<std::uint32_t>(r.lanes[1].size()),
                 static_cast<std::uint32_t>(r.lanes[2].size())};
  return h;
}

TEST(PipelineTrace, SpansAndSharesOfOneBlockByHand) {
  const Hand h = one_block();
  // By hand: the consumers' waits are (1040-1000) + (1080-1071) + (1120-1111) + (1200-1151) +
  // (1260-1231) = 40 + 9 + 9 + 49 + 29 = 136 for consumer 0, and the same for consumer 1 (every
  // time shifted by 5, but its first wait is 45): 141. 277 in all.
  EXPECT_EQ(h.consumer_wait, 277u);
  // The producer: slices 0..2 do not wait (1000..1012); slice 3 waits from 1012 to 1076,
  // slice 4 from 1080 to 1116: 64 + 36 = 100.
  EXPECT_EQ(h.producer_wait, 100u);
  auto a = analyse_pipeline(h.raw);
  ASSERT_TRUE(a.ok()) << a.status().describe();
  EXPECT_EQ(a->consumer_wait_full_ns, 277u);
  EXPECT_EQ(a->producer_wait_empty_ns, 100u);
  EXPECT_EQ(a->consumer_active_ns, h.consumer_active);
  EXPECT_EQ(a->producer_active_ns, h.producer_active);
  EXPECT_DOUBLE_EQ(a->consumer_wait_share, 277.0 / double(h.consumer_active));
  EXPECT_DOUBLE_EQ(a->producer_wait_share, 100.0 / double(h.producer_active));
  // Every slice gives a consumer 4 spans (wait, issue, wgmma wait, release), plus the epilogue;
  // the producer 2 a slice (wait, issue).
  ASSERT_EQ(a->lanes.size(), 3u);
  EXPECT_EQ(a->lanes[0].spans.size(), 10u);
  EXPECT_EQ(a->lanes[1].spans.size(), 21u);
  EXPECT_EQ(a->lanes[2].spans.size(), 21u);
  // Consumer 0's slice 3: waited on stage 0 from 1151 - 1000 = 151 to 200, wgmma from 202 to 230.
  int found = 0;
  for (const PipelineSpan& s : a->lanes[1].spans) {
    if (s.slice != 3) continue;
    EXPECT_EQ(s.stage, 0);
    if (s.kind == SpanKind::WaitFull) {
      EXPECT_EQ(s.begin_ns, 151u);
      EXPECT_EQ(s.end_ns, 200u);
      ++found;
    }
    if (s.kind == SpanKind::WgmmaWait) {
      EXPECT_EQ(s.begin_ns, 202u);
      EXPECT_EQ(s.end_ns, 230u);
      ++found;
    }
  }
  EXPECT_EQ(found, 2);
  // Multiplying (issue + wgmma wait) is 30 ns a slice: 150 for five.
  EXPECT_EQ(a->lanes[1].multiplying_ns, 150u);
  EXPECT_EQ(a->lanes[1].epilogue_ns, 20u);
  // Shares: consumers 277 of (1311 - 1000) + (1316 - 1000) = 627 ns (44%); the producer 100 of
  // 120 (83%): the producer waits more, so the sentence says the consumers set the pace.
  EXPECT_EQ(h.consumer_active, 627u);
  EXPECT_EQ(h.producer_active, 120u);
  EXPECT_NE(a->sentence.find("producer waits on empty barriers 83%"), std::string::npos) << a->sentence;
  EXPECT_NE(a->sentence.find("consumers are late"), std::string::npos) << a->sentence;
  // The order check: 10 consumer waits, none before the producer's issue.
  EXPECT_EQ(a->order_checked, 10u);
  EXPECT_EQ(a->order_violations, 0u) << a->order_first_violation;
  EXPECT_EQ(a->dropped, 0u);
  // One SM, one block: its union is the block (400 ns).
  ASSERT_EQ(a->sms.size(), 1u);
  EXPECT_EQ(a->sms[0].sm, 7u);
  EXPECT_EQ(a->sms[0].union_ns, 400u);
}

TEST(PipelineTrace, OrderCheckCatchesAWaitThatEndsBeforeTheIssue) {
  Hand h = one_block();
  // Consumer 1's wait on slice 4 now ends at 1100, before the producer began issuing slice 4
  // (1116).
  for (PipelineEvent& e : h.raw.lanes[2])
    if (e.slice == 4 && e.kind == static_cast<std::uint8_t>(K::FullWaitEnd)) e.t_ns = 1100;
  // Keep the lane in time order: slice 4's wait begins at 1236 in the record, so move it too.
  for (PipelineEvent& e : h.raw.lanes[2])
    if (e.slice == 4 && e.kind == static_cast<std::uint8_t>(K::FullWaitBegin)) e.t_ns = 1100;
  // Slice 3's arrive was at 1236 > 1100: the lane is out of order, which the analysis refuses.
  auto refused = analyse_pipeline(h.raw);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message.find("earlier than the one before it"), std::string::npos);
  // In order, with a violation: the producer begins issuing slice 4 at 1262 instead of 1116
  // (its TMA at 1266). Consumer 0's wait on slice 4 ended at 1260, before: a violation; consumer
  // 1's at 1265, after.
  Hand g = one_block();
  for (PipelineEvent& e : g.raw.lanes[0]) {
    if (e.slice != 4) continue;
    if (e.kind == static_cast<std::uint8_t>(K::EmptyWaitEnd)) e.t_ns = 1262;
    if (e.kind == static_cast<std::uint8_t>(K::TmaIssued)) e.t_ns = 1266;
  }
  auto a = analyse_pipeline(g.raw);
  ASSERT_TRUE(a.ok()) << a.status().describe();
  EXPECT_EQ(a->order_checked, 10u);
  EXPECT_EQ(a->order_violations, 1u);
  EXPECT_NE(a->order_first_violation.find("consumer 0: tile 0 slice 4"), std::string::npos) << a->order_first_violation;
}

TEST(PipelineTrace, AFullBufferKeepsTheFirstEventsAndSaysHowManyWereDropped) {
  Hand h = one_block();
  // Capacity 7: the producer kept 7 of its 15 events, each consumer 7 of 27.
  h.raw.capacity = 7;
  for (auto& lane : h.raw.lanes) lane.resize(7);
  auto a = analyse_pipeline(h.raw);
  ASSERT_TRUE(a.ok()) << a.status().describe();
  EXPECT_EQ(a->lanes[0].dropped, 8u);
  EXPECT_EQ(a->lanes[1].dropped, 20u);
  EXPECT_EQ(a->dropped, 8u + 20u + 20u);
  EXPECT_NE(a->sentence.find("48 events past the buffer's capacity of 7"), std::string::npos) << a->sentence;
  // The producer kept slices 0, 1 and the first event of slice 2: 2 waits, 2 issues.
  EXPECT_EQ(a->lanes[0].spans.size(), 4u);
  // The consumers kept slice 0 (5 events) and slice 1's wait: spans wait, issue, wgmma wait,
  // release, wait.
  EXPECT_EQ(a->lanes[1].spans.size(), 5u);
  // The order check skips nothing it has: consumer waits on slices 0 and 1, both issued.
  EXPECT_EQ(a->order_checked, 4u);
  EXPECT_EQ(a->order_violations, 0u);
}

TEST(PipelineTrace, SmUnionsAndCoverageOfThreeBlocksOnTwoSms) {
  // Blocks 0 and 1 on SM 3 overlap (100..300, 250..500): union 400; block 2 on SM 5 at
  // 600..900 and, after a gap, nothing else: 300. Extent 100..900 = 800. Event time 0.00084 ms
  // = 840 ns: extent ratio 800/840, busiest SM 400/840, mean (400 + 300)/2 = 350.
  PipelineRaw r;
  r.grid = Dim3{3, 1, 1};
  r.event_ms = 0.00084;
  r.blocks = {PipelineBlock{Dim3{0, 0, 0}, 3, 100, 300, -1}, PipelineBlock{Dim3{1, 0, 0}, 3, 250, 500, -1},
              PipelineBlock{Dim3{2, 0, 0}, 5, 600, 900, -1}};
  r.lanes.resize(9);
  r.attempted.assign(9, 0);
  auto a = analyse_pipeline(r);
  ASSERT_TRUE(a.ok()) << a.status().describe();
  ASSERT_EQ(a->sms.size(), 2u);
  EXPECT_EQ(a->sms[0].sm, 3u);
  EXPECT_EQ(a->sms[0].union_ns, 400u);
  EXPECT_EQ(a->sms[1].union_ns, 300u);
  EXPECT_EQ(a->coverage.extent_ns, 800u);
  EXPECT_EQ(a->coverage.busiest_sm_ns, 400u);
  EXPECT_DOUBLE_EQ(a->coverage.mean_sm_ns, 350.0);
  EXPECT_NEAR(a->coverage.extent_ratio, 800.0 / 840.0, 1e-9);
  EXPECT_NEAR(a->coverage.busiest_ratio, 400.0 / 840.0, 1e-9);
  // A gap inside one SM: add block 3 on SM 5 at 1000..1100: SM 5's union is 300 + 100.
  r.grid = Dim3{4, 1, 1};
  r.blocks.push_back(PipelineBlock{Dim3{3, 0, 0}, 5, 1000, 1100, -1});
  r.lanes.resize(12);
  r.attempted.assign(12, 0);
  a = analyse_pipeline(r);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->sms[1].union_ns, 400u);
  EXPECT_EQ(a->coverage.extent_ns, 1000u);
}

TEST(PipelineTrace, ACoarseTimerIsRefinedByTheSmClock) {
  // True times 0, 37, 74, ... ns (every 37 ns) over 20 us; the SM clock runs at 1.5 cycles a ns;
  // %globaltimer ticks every 1000 ns (it shows the last tick). The fit places every event far
  // closer than a tick: check within 100 ns, and each 37 ns span within 4 ns.
  PipelineRaw r;
  r.grid = Dim3{1, 1, 1};
  r.blocks = {PipelineBlock{Dim3{0, 0, 0}, 0, 5'000'000, 5'021'000, -1}};
  r.lanes.resize(3);
  std::vector<std::uint64_t> truth;
  for (int s = 0; s < 100; ++s) {
    for (int k = 0; k < 5; ++k) {
      const std::uint64_t t = 5'000'000 + static_cast<std::uint64_t>(37 * (5 * s + k) + 3 * s);
      truth.push_back(t - 5'000'000);
      const auto clock =
          static_cast<std::uint32_t>(4'294'950'000ull + static_cast<std::uint64_t>(1.5 * double(t - 5'000'000)));
      const K kinds[5] = {K::FullWaitBegin, K::FullWaitEnd, K::WgmmaCommit, K::WgmmaWaitEnd, K::EmptyArrive};
      r.lanes[1].push_back(ev(kinds[k], s % 3, s, 0, t / 1000 * 1000, clock));  // the clock wraps past 2^32
    }
  }
  r.attempted = {0, static_cast<std::uint32_t>(r.lanes[1].size()), 0};
  auto a = analyse_pipeline(r);
  ASSERT_TRUE(a.ok()) << a.status().describe();
  EXPECT_EQ(a->timer_tick_ns, 1000u);
  EXPECT_NE(a->sentence.find("placed by the SM's clock"), std::string::npos);
  // Wait spans: [5 s * 37 + 3 s, + 37] for slice s.
  int checked = 0;
  for (const PipelineSpan& s : a->lanes[1].spans) {
    if (s.kind != SpanKind::WaitFull) continue;
    const double want_b = double(truth[static_cast<std::size_t>(5 * s.slice)]);
    EXPECT_NEAR(double(s.begin_ns), want_b, 100.0) << s.slice;
    EXPECT_NEAR(double(s.end_ns - s.begin_ns), 37.0, 4.0) << s.slice;
    ++checked;
  }
  EXPECT_EQ(checked, 100);
}

TEST(PipelineTrace, TheTextFileRoundTripsAndBadFilesAreMessages) {
  Hand h = one_block();
  h.raw.config = "128 x 256 tile | 384 threads";
  h.raw.event_ms = 0.000421;
  h.raw.M = 129, h.raw.N = 257, h.raw.K = 321;
  h.raw.mma_groups_in_flight = 1;
  const std::string text = write_pipeline_text(h.raw);
  auto back = read_pipeline_text(text, "mem");
  ASSERT_TRUE(back.ok()) << back.status().describe();
  EXPECT_EQ(back->kernel, h.raw.kernel);
  EXPECT_EQ(back->config, h.raw.config);
  EXPECT_EQ(back->K, 321);
  EXPECT_DOUBLE_EQ(back->event_ms, 0.000421);
  EXPECT_EQ(back->mma_groups_in_flight, 1);
  ASSERT_EQ(back->lanes.size(), 3u);
  for (std::size_t l = 0; l < 3; ++l) {
    ASSERT_EQ(back->lanes[l].size(), h.raw.lanes[l].size());
    for (std::size_t i = 0; i < h.raw.lanes[l].size(); ++i) {
      EXPECT_EQ(back->lanes[l][i].t_ns, h.raw.lanes[l][i].t_ns);
      EXPECT_EQ(back->lanes[l][i].kind, h.raw.lanes[l][i].kind);
      EXPECT_EQ(back->lanes[l][i].slice, h.raw.lanes[l][i].slice);
    }
  }
  EXPECT_EQ(back->blocks[0].sm, 7u);
  // Truncated inside a lane, an unknown line, not a trace: each a message with the line.
  auto cut = read_pipeline_text(text.substr(0, text.size() - 40), "cut");
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message.find("cut"), std::string::npos);
  EXPECT_FALSE(read_pipeline_text("hello\n", "x").ok());
  EXPECT_FALSE(read_pipeline_text(text + "zebra 1\n", "z").ok());
  EXPECT_FALSE(load_pipeline_file("/nonexistent/trace.txt").ok());
}

TEST(PipelineTrace, TheSentenceNamesTheSideThatWaits) {
  EXPECT_NE(pipeline_sentence(0.23, 0.02).find("consumers wait on full barriers 23%"), std::string::npos);
  EXPECT_NE(pipeline_sentence(0.03, 0.61).find("producer waits on empty barriers 61%"), std::string::npos);
  EXPECT_NE(pipeline_sentence(0.01, 0.02).find("Neither side"), std::string::npos);
  // A rung that keeps a wgmma group running through its waits (T7): not read as idle tensor cores.
  const std::string overlapped = pipeline_sentence(0.42, 0.30, 1);
  EXPECT_NE(overlapped.find("still in the tensor cores"), std::string::npos) << overlapped;
  EXPECT_EQ(overlapped.find("the tensor cores wait for data"), std::string::npos) << overlapped;
}

TEST(PipelineTrace, EventsNeededCountsEverySliceAndTile) {
  // T4 at K = 4096: 64 slices, one tile: producer 192, consumer 5 * 64 + 2 = 322.
  EXPECT_EQ(pipeline_events_needed(0, 64, 1), 192u);
  EXPECT_EQ(pipeline_events_needed(1, 64, 1), 322u);
  EXPECT_EQ(pipeline_events_needed(2, 3, 7), 7u * 17u);
}

// The device's 16-byte events (one vector store each) decode to the fields they were packed from,
// and the timer's low 32 bits get back their high bits from the block's start, also where the
// low bits wrapped between the start and the event. Packed here by hand (slice in bits 0..19,
// stage 20..23, kind 24..27, timer read 28), not with the device's packer, which is checked too.
TEST(PipelineTrace, DeviceEventsDecodeToTheirFieldsAndTheFullTimer) {
  const unsigned seed = std::random_device{}();
  std::printf("seed %u\n", seed);
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 4000; ++i) {
    SCOPED_TRACE(i);
    // Starts anywhere, a quarter of them just below a multiple of 2^32 so the event's low bits wrap.
    std::uint64_t start = (rng() % (1ull << 50)) + (1ull << 40);
    if (i % 4 == 0) start = (start & ~0xffffffffull) - rng() % 5000;
    const std::uint64_t t = start + rng() % (i % 3 == 0 ? 20000 : (1ull << 31) - 1);
    const int slice = static_cast<int>(rng() % (1u << 20)), stage = static_cast<int>(rng() % 4);
    const auto kind = static_cast<K>(1 + rng() % (static_cast<int>(K::Count) - 1));
    const bool read = rng() % 2 == 0;
    PipelineDeviceEvent d;
    d.clock = static_cast<std::uint32_t>(rng());
    d.tile = static_cast<std::uint32_t>(rng() % 100000);
    d.bits = static_cast<std::uint32_t>(slice) | static_cast<std::uint32_t>(stage) << 20 |
             static_cast<std::uint32_t>(kind) << 24 | (read ? 1u << 28 : 0u);
    d.timer_lo = read ? static_cast<std::uint32_t>(t) : 0u;
    ASSERT_EQ(pipeline_event_bits(kind, stage, slice) | (read ? kPipelineTimerRead : 0u), d.bits);
    const PipelineEvent e = decode_pipeline_event(d, start);
    EXPECT_EQ(e.clock, d.clock);
    EXPECT_EQ(e.tile, d.tile);
    EXPECT_EQ(e.slice, static_cast<std::uint32_t>(slice));
    EXPECT_EQ(e.stage, stage);
    EXPECT_EQ(e.kind, static_cast<std::uint8_t>(kind));
    EXPECT_EQ(e.t_ns, read ? t : 0u) << "start " << start;
  }
}

TEST(PipelineTrace, TheCpuSimulatorRefusesWithTheReason) {
  lab::Backend cpu;
  cpu.kind = BackendKind::CpuSimulation;
  cpu.sim_workers = 1;
  cpu.limits = sim::simulator_limits(1);
  auto lab = MatmulLab::create(cpu);
  ASSERT_TRUE(lab.ok()) << lab.status().describe();
  ASSERT_TRUE((*lab)->set_setting("precision", "bf16").ok());
  auto r = (*lab)->trace_pipeline("tc4_warp_specialized", KernelConfig{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message.find("no Hopper rungs"), std::string::npos) << r.status().describe();
  auto cost = (*lab)->pipeline_cost("tc4_warp_specialized", KernelConfig{}, TimingPolicy::once());
  ASSERT_FALSE(cost.ok());
  EXPECT_NE(cost.status().message.find("no Hopper rungs"), std::string::npos) << cost.status().describe();
  auto k3 = (*lab)->trace_pipeline("k3_smem_tiled", KernelConfig{});
  ASSERT_FALSE(k3.ok());
  EXPECT_NE(k3.status().message.find("no pipeline to record"), std::string::npos);
}

// The device reads %globaltimer at one event in eight: place_by_clock gives the others their
// times from the SM clock. Two blocks, each on its own clock (offset and rate differ, one wraps
// through 2^32), timer readings at every 8th event of each warpgroup: every event must land on
// the line the block's clock follows, worked out here from the rates, within a nanosecond. A
// third block with a single timer reading cannot be fitted and is counted.
TEST(PipelineTrace, EventsWithoutATimerReadingArePlacedByTheirBlocksClock) {
  PipelineRaw r;
  r.lanes.resize(9);
  struct Clock {
    std::uint32_t c0;
    double ns_per_cycle;
    std::uint64_t t0;
  };
  const Clock clocks[2] = {{1000u, 0.505, 5'000'000}, {0xFFFFF000u, 0.51, 5'000'300}};  // the second wraps
  std::vector<std::vector<std::uint64_t>> expected(9);
  for (int b = 0; b < 2; ++b)
    for (int wg = 0; wg < 3; ++wg) {
      auto& lane = r.lanes[b * 3 + wg];
      const int n = 37 + 5 * wg;  // odd counts, not multiples of 8
      for (int i = 0; i < n; ++i) {
        const std::uint32_t cycles = static_cast<std::uint32_t>(97 * i + 13 * wg + 3 * (i % 3));
        const std::uint64_t t =
            clocks[b].t0 + static_cast<std::uint64_t>(std::llround(cycles * clocks[b].ns_per_cycle));
        PipelineEvent e = ev(K::FullWaitEnd, 0, i, 0, i % 8 == 0 ? t : 0, clocks[b].c0 + cycles);
        lane.push_back(e);
        expected[b * 3 + wg].push_back(t);
      }
    }
  r.lanes[6] = {ev(K::FullWaitEnd, 0, 0, 0, 7'000'000, 50), ev(K::FullWaitEnd, 0, 1, 0, 0, 90)};
  EXPECT_EQ(place_by_clock(r), 1u);  // block 2: one reading, one event left at 0
  for (int l = 0; l < 6; ++l)
    for (std::size_t i = 0; i < r.lanes[l].size(); ++i)
      EXPECT_NEAR(static_cast<double>(r.lanes[l][i].t_ns), static_cast<double>(expected[l][i]), 1.0)
          << "lane " << l << " event " << i;
  for (int l = 0; l < 6; ++l)  // the clock's order, readings included
    for (std::size_t i = 1; i < r.lanes[l].size(); ++i) EXPECT_LE(r.lanes[l][i - 1].t_ns, r.lanes[l][i].t_ns);
  EXPECT_EQ(r.lanes[6][0].t_ns, 7'000'000u);
  EXPECT_EQ(r.lanes[6][1].t_ns, 0u);
}

}  // namespace
}  // namespace bs::matmul
