// Schedule summary against a nanosecond-by-nanosecond replay of random traces, the JSON export
// read back with a small strict parser, and the trace records' host-side checks.
#include "mapping/schedule.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <variant>

#include "mapping/explain.hpp"
#include "mapping/thread_map.hpp"
#include "trace/trace_record.hpp"

namespace bs::mapping {
namespace {

std::vector<BlockTrace> random_trace(std::mt19937& rng, Dim3 grid, unsigned units, std::uint64_t horizon) {
  std::vector<BlockTrace> t(grid.volume());
  for (unsigned long long i = 0; i < t.size(); ++i) {
    t[i].block = block_from_linear(i, grid);
    t[i].unit = rng() % units;
    t[i].start_ns = rng() % horizon;
    t[i].end_ns = t[i].start_ns + (rng() % 4 == 0 ? 0 : rng() % 40);  // some zero-length blocks
  }
  return t;
}

TEST(Schedule, SummaryMatchesReplay) {
  std::mt19937 rng(std::random_device{}());
  for (int trial = 0; trial < 200; ++trial) {
    const Dim3 grid{1u + unsigned(rng() % 9), 1u + unsigned(rng() % 5), 1u + unsigned(rng() % 2)};
    const unsigned units = 1 + rng() % 6;
    const auto trace = random_trace(rng, grid, units, 1 + rng() % 300);
    const ScheduleSummary s = summarize(trace, units);
    ASSERT_EQ(s.units, units);
    EXPECT_FALSE(s.unit_out_of_range);
    EXPECT_EQ(s.blocks, trace.size());
    std::uint64_t lo = ~0ull, hi = 0;
    for (auto& b : trace) lo = std::min(lo, b.start_ns), hi = std::max(hi, b.end_ns);
    EXPECT_EQ(s.makespan_ns, hi - lo);
    unsigned long long total = 0;
    double busy_sum = 0, busy_max = 0, waves = 0;
    unsigned used = 0;
    for (unsigned u = 0; u < units; ++u) {
      // Replay: at each ns, which blocks of this unit are running? (zero-length blocks: 1 ns)
      unsigned long long blocks = 0, block_ns = 0, busy = 0;
      unsigned peak = 0;
      for (auto& b : trace)
        if (b.unit == u) ++blocks, block_ns += b.end_ns - b.start_ns;
      for (std::uint64_t t = 0; t <= hi + 1; ++t) {
        unsigned running = 0;
        for (auto& b : trace)
          if (b.unit == u && b.start_ns <= t && t < std::max(b.end_ns, b.start_ns + 1)) ++running;
        if (running) ++busy;
        peak = std::max(peak, running);
      }
      const UnitSchedule& got = s.per_unit[u];
      EXPECT_EQ(got.blocks, blocks);
      EXPECT_EQ(got.block_ns, block_ns);
      EXPECT_EQ(got.busy_ns, busy);
      EXPECT_EQ(got.peak_concurrent, peak);
      total += blocks;
      busy_sum += busy;
      busy_max = std::max(busy_max, double(busy));
      if (blocks) ++used, waves = std::max(waves, double(blocks) / peak);
    }
    EXPECT_EQ(total, trace.size());
    EXPECT_EQ(s.units_used, used);
    EXPECT_DOUBLE_EQ(s.mean_busy_ns, busy_sum / units);
    EXPECT_DOUBLE_EQ(s.imbalance, busy_max / (busy_sum / units));
    EXPECT_DOUBLE_EQ(s.waves_observed, waves);
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(Schedule, SerialWorkerRunsOneWavePerBlock) {
  // One worker running 5 blocks back to back: 5 observed waves, fully busy, imbalance 1.
  std::vector<BlockTrace> t;
  for (unsigned i = 0; i < 5; ++i) t.push_back(BlockTrace{Dim3{i, 0, 0}, 0, i * 10ull, i * 10ull + 10});
  const ScheduleSummary s = summarize(t, 1);
  EXPECT_DOUBLE_EQ(s.waves_observed, 5.0);
  EXPECT_EQ(s.per_unit[0].busy_ns, 50u);
  EXPECT_DOUBLE_EQ(s.imbalance, 1.0);
}

TEST(Schedule, UnitsBeyondTheCountGrowTheTimeline) {
  std::vector<BlockTrace> t{{Dim3{0, 0, 0}, 7, 0, 5}};
  const ScheduleSummary s = summarize(t, 4);
  EXPECT_TRUE(s.unit_out_of_range);
  EXPECT_EQ(s.units, 8u);
  EXPECT_EQ(s.per_unit[7].blocks, 1u);
  EXPECT_EQ(summarize({}, 3).blocks, 0u);
}

// ---- a strict little JSON reader, enough to read the export back --------------------------
struct Json;
using JsonObject = std::map<std::string, Json>;
using JsonArray = std::vector<Json>;
struct Json {
  std::variant<std::nullptr_t, bool, double, std::string, std::shared_ptr<JsonArray>, std::shared_ptr<JsonObject>> v;
  const Json& operator[](const std::string& k) const { return std::get<std::shared_ptr<JsonObject>>(v)->at(k); }
  const Json& operator[](std::size_t i) const { return std::get<std::shared_ptr<JsonArray>>(v)->at(i); }
  std::size_t size() const { return std::get<std::shared_ptr<JsonArray>>(v)->size(); }
  double num() const { return std::get<double>(v); }
  const std::string& str() const { return std::get<std::string>(v); }
};

struct JsonReader {
  const std::string& s;
  std::size_t p = 0;
  void ws() {
    while (p < s.size() && std::isspace(static_cast<unsigned char>(s[p]))) ++p;
  }
  void expect(char c) {
    ws();
    if (p >= s.size() || s[p] != c) throw std::runtime_error(std::string("expected ") + c + " at " + std::to_string(p));
    ++p;
  }
  std::string string() {
    expect('"');
    std::string out;
    while (p < s.size() && s[p] != '"') {
      if (static_cast<unsigned char>(s[p]) < 0x20) throw std::runtime_error("raw control character");
      if (s[p] == '\\') {
        ++p;
        const char e = s.at(p);
        if (e == 'u') {
          out += static_cast<char>(std::stoi(s.substr(p + 1, 4), nullptr, 16));
          p += 4;
        } else {
          out += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
        }
      } else {
        out += s[p];
      }
      ++p;
    }
    expect('"');
    return out;
  }
  Json value() {
    ws();
    const char c = s.at(p);
    if (c == '{') {
      ++p;
      auto o = std::make_shared<JsonObject>();
      ws();
      if (s.at(p) == '}') return ++p, Json{o};
      do {
        std::string k = string();
        expect(':');
        (*o)[k] = value();
        ws();
      } while (s.at(p) == ',' && ++p);
      expect('}');
      return Json{o};
    }
    if (c == '[') {
      ++p;
      auto a = std::make_shared<JsonArray>();
      ws();
      if (s.at(p) == ']') return ++p, Json{a};
      do {
        a->push_back(value());
        ws();
      } while (s.at(p) == ',' && ++p);
      expect(']');
      return Json{a};
    }
    if (c == '"') return Json{string()};
    if (s.compare(p, 4, "true") == 0) return p += 4, Json{true};
    if (s.compare(p, 5, "false") == 0) return p += 5, Json{false};
    std::size_t used = 0;
    const double d = std::stod(s.substr(p), &used);
    p += used;
    return Json{d};
  }
  Json document() {
    Json j = value();
    ws();
    if (p != s.size()) throw std::runtime_error("trailing characters");
    return j;
  }
};

TEST(Schedule, JsonExportReadsBack) {
  std::mt19937 rng(std::random_device{}());
  const Dim3 grid{5, 3, 2};
  const auto trace = random_trace(rng, grid, 4, 1000);
  const LaunchConfig config{grid, Dim3{16, 8, 1}};
  for (bool simulated : {false, true}) {
    const std::string text = schedule_to_json(trace, simulated, config, "gray_2d \"tab\"\there", "H100\n");
    Json j;
    ASSERT_NO_THROW(j = JsonReader{text}.document()) << text;
    EXPECT_EQ(j["kernel"].str(), "gray_2d \"tab\"\there");
    EXPECT_EQ(j["device"].str(), "H100\n");
    EXPECT_EQ(std::get<bool>(j["simulated"].v), simulated);
    EXPECT_EQ(j["unit"].str(), simulated ? "simulator worker" : "SM");
    EXPECT_EQ(j["grid"][1].num(), 3);
    EXPECT_EQ(j["block"][0].num(), 16);
    ASSERT_EQ(j["blocks"].size(), trace.size());
    for (std::size_t i = 0; i < trace.size(); ++i) {
      const Json& b = j["blocks"][i];
      EXPECT_EQ(b["id"].num(), double(linear_block_id(trace[i].block, grid)));
      EXPECT_EQ(b["block"][0].num(), trace[i].block.x);
      EXPECT_EQ(b["block"][2].num(), trace[i].block.z);
      EXPECT_EQ(b["sm"].num(), trace[i].unit);
      EXPECT_EQ(b["start"].num(), double(trace[i].start_ns));
      EXPECT_EQ(b["end"].num(), double(trace[i].end_ns));
    }
  }
  Json empty;
  ASSERT_NO_THROW(empty = JsonReader{schedule_to_json({}, true, config)}.document());
  EXPECT_EQ(empty["blocks"].size(), 0u);
}

TEST(Schedule, UnitPerBlockForTheSmColourMode) {
  std::mt19937 rng(std::random_device{}());
  const Dim3 grid{4, 3, 1};
  auto trace = random_trace(rng, grid, 9, 50);
  trace.pop_back();  // one block left unrecorded
  const auto units = unit_per_block(trace, grid);
  ASSERT_EQ(units.size(), grid.volume());
  for (const auto& b : trace) EXPECT_EQ(units[linear_block_id(b.block, grid)], b.unit);
  EXPECT_EQ(units.back(), kNoUnit);
}

// ---- trace records (host side of kernels/trace) ---------------------------------------------
TEST(TraceRecords, NormaliseToEarliestStart) {
  std::mt19937_64 rng(std::random_device{}());
  const Dim3 grid{7, 2, 3};
  std::vector<trace::DeviceBlockRecord> r(grid.volume());
  const std::uint64_t epoch = 1'700'000'000'000'000'000ull + rng() % 1000000;
  for (auto& x : r) {
    x.start_ns = epoch + 100 + rng() % 5000;
    x.end_ns = x.start_ns + rng() % 3000;
    x.smid = static_cast<std::uint32_t>(rng() % 132);
    x.writes = 1;
  }
  auto t = trace::records_to_trace(r, grid, 132);
  ASSERT_TRUE(t.ok()) << t.status().describe();
  std::uint64_t earliest = ~0ull;
  for (auto& x : r) earliest = std::min(earliest, x.start_ns);
  bool some_zero = false;
  for (std::size_t i = 0; i < r.size(); ++i) {
    EXPECT_EQ(t.value()[i].block, block_from_linear(i, grid));
    EXPECT_EQ(t.value()[i].unit, r[i].smid);
    EXPECT_EQ(t.value()[i].start_ns, r[i].start_ns - earliest);
    EXPECT_EQ(t.value()[i].end_ns, r[i].end_ns - earliest);
    some_zero |= t.value()[i].start_ns == 0;
  }
  EXPECT_TRUE(some_zero);
}

TEST(TraceRecords, RefuseMissingDuplicateAndImpossibleRecords) {
  const Dim3 grid{3, 2, 1};
  std::vector<trace::DeviceBlockRecord> good(grid.volume(), trace::DeviceBlockRecord{.start_ns = 10,
                                                                                     .end_ns = 20,
                                                                                     .smid = 3,
                                                                                     .writes = 1,
                                                                                     .threads = 0,
                                                                                     .cluster_flags = 0,
                                                                                     .cluster_id = {},
                                                                                     .cluster_rank = 0,
                                                                                     .cluster_count = {},
                                                                                     .cluster_blocks = 0});
  ASSERT_TRUE(trace::records_to_trace(good, grid, 4).ok());
  auto bad = good;
  bad[4].writes = 0;
  auto s = trace::records_to_trace(bad, grid, 4);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message.find("(1, 1, 0)"), std::string::npos) << s.status().message;
  bad = good;
  bad[2].writes = 2;
  EXPECT_FALSE(trace::records_to_trace(bad, grid, 4).ok());
  bad = good;
  bad[1].end_ns = 5;
  EXPECT_FALSE(trace::records_to_trace(bad, grid, 4).ok());
  EXPECT_FALSE(trace::records_to_trace(good, grid, 3).ok());  // SM 3 of 3
  EXPECT_TRUE(trace::records_to_trace(good, grid, 0).ok());   // no SM count: not checked
  EXPECT_FALSE(trace::records_to_trace(good, Dim3{7, 1, 1}, 4).ok());
}

TEST(Explain, EveryConceptHasALabelAndPlainWords) {
  std::set<std::string> labels;
  for (int i = 0; i < static_cast<int>(Concept::kCount); ++i) {
    const Concept c = static_cast<Concept>(i);
    EXPECT_GE(std::string(label(c)).size(), 2u) << i;
    EXPECT_GT(std::string(explain(c)).size(), 40u) << label(c);
    EXPECT_TRUE(labels.insert(label(c)).second) << "duplicate label " << label(c);
  }
}

}  // namespace
}  // namespace bs::mapping
