// The bank model (mapping/shared_banks.hpp) on requests worked out by hand, and on random
// requests against a second computation: a step-by-step server that, each cycle, lets every bank
// deliver one pending word of the phase to all lanes that want it, until no lane waits.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "mapping/shared_banks.hpp"

namespace {

using bs::mapping::bank_request;
using bs::mapping::BankRequest;

std::vector<long long> lanes_at(long long (*f)(int)) {
  std::vector<long long> v(32);
  for (int l = 0; l < 32; ++l) v[l] = f(l);
  return v;
}

TEST(SharedBanks, ConsecutiveWordsAreOneWavefront) {
  const BankRequest r = bank_request(lanes_at([](int l) { return 4LL * l; }), 4);
  EXPECT_EQ(r.wavefronts, 1u);
  EXPECT_EQ(r.ideal_wavefronts, 1u);
  EXPECT_EQ(r.conflicts(), 0u);
  ASSERT_EQ(r.rows.size(), 1u);
  for (unsigned b = 0; b < 32; ++b) EXPECT_EQ(r.rows[0][b].lanes, std::vector<unsigned>{b});
}

TEST(SharedBanks, StrideTwoWordsIsTwoWay) {
  const BankRequest r = bank_request(lanes_at([](int l) { return 8LL * l + 256; }), 4);
  EXPECT_EQ(r.wavefronts, 2u);
  EXPECT_EQ(r.ideal_wavefronts, 1u);
  EXPECT_DOUBLE_EQ(r.ways(), 2.0);
  EXPECT_EQ(r.rows[0][1].word, -1);  // odd banks idle
  EXPECT_EQ(r.rows[1][0].lanes, std::vector<unsigned>{16});
}

TEST(SharedBanks, StrideThirtyTwoWordsIsThirtyTwoWay) {
  const BankRequest r = bank_request(lanes_at([](int l) { return 128LL * l + 12; }), 4);
  EXPECT_EQ(r.wavefronts, 32u);
  EXPECT_EQ(r.ideal_wavefronts, 1u);
  EXPECT_EQ(r.conflicts(), 31u);
  for (unsigned w = 0; w < 32; ++w) EXPECT_EQ(r.rows[w][3].lanes, std::vector<unsigned>{w});
}

TEST(SharedBanks, BroadcastIsFree) {
  const BankRequest r = bank_request(lanes_at([](int) { return 40LL; }), 4);
  EXPECT_EQ(r.wavefronts, 1u);
  EXPECT_EQ(r.conflicts(), 0u);
  EXPECT_EQ(r.rows[0][10].lanes.size(), 32u);
  // Two words broadcast to halves of the warp, in different banks: still one wavefront; in the
  // same bank: two.
  EXPECT_EQ(bank_request(lanes_at([](int l) { return l < 16 ? 0LL : 4LL; }), 4).wavefronts, 1u);
  EXPECT_EQ(bank_request(lanes_at([](int l) { return l < 16 ? 0LL : 128LL; }), 4).wavefronts, 2u);
}

TEST(SharedBanks, SixteenByteVectorsAreServedInQuarterWarps) {
  // float4 per lane, consecutive: 512 bytes, four phases of 128 bytes, no conflict.
  BankRequest r = bank_request(lanes_at([](int l) { return 16LL * l; }), 16);
  EXPECT_EQ(r.phases, 4u);
  EXPECT_EQ(r.wavefronts, 4u);
  EXPECT_EQ(r.ideal_wavefronts, 4u);
  EXPECT_EQ(r.rows[1][0].lanes, std::vector<unsigned>{8});  // phase 1 starts at lane 8
  EXPECT_EQ(r.rows[0][5].lanes, std::vector<unsigned>{1});  // lane 1's words are banks 4-7
  // 32 bytes apart: lanes 0-3 and 4-7 of a phase share banks: 2-way.
  r = bank_request(lanes_at([](int l) { return 32LL * l; }), 16);
  EXPECT_EQ(r.wavefronts, 8u);
  EXPECT_EQ(r.ideal_wavefronts, 4u);
  // 8 lanes reading the same float4 (a broadcast inside each phase): one wavefront a phase.
  r = bank_request(lanes_at([](int l) { return 16LL * (l / 8); }), 16);
  EXPECT_EQ(r.wavefronts, 4u);
  EXPECT_EQ(r.conflicts(), 0u);
  // ldmatrix rows 64 bytes apart (an unswizzled 32-BF16 tile): rows r and r + 2 share banks.
  r = bank_request(lanes_at([](int l) { return 64LL * l; }), 16);
  EXPECT_EQ(r.wavefronts, 16u);
  EXPECT_EQ(r.ideal_wavefronts, 4u);
}

TEST(SharedBanks, EightByteAccessesAreServedInHalfWarps) {
  BankRequest r = bank_request(lanes_at([](int l) { return 8LL * l; }), 8);
  EXPECT_EQ(r.phases, 2u);
  EXPECT_EQ(r.wavefronts, 2u);
  EXPECT_EQ(r.ideal_wavefronts, 2u);
  r = bank_request(lanes_at([](int l) { return 16LL * l; }), 8);  // every other 8 bytes
  EXPECT_EQ(r.wavefronts, 4u);
}

TEST(SharedBanks, InactiveLanesAreSkipped) {
  std::vector<long long> v(32, bs::kNoSharedAccess);
  EXPECT_EQ(bank_request(v, 4).wavefronts, 0u);
  v[7] = 0, v[9] = 128;
  const BankRequest r = bank_request(v, 4);
  EXPECT_EQ(r.active_lanes, 2u);
  EXPECT_EQ(r.wavefronts, 2u);
}

// The second computation: cycle by cycle, each bank serves one word still wanted in the phase.
unsigned served_in_cycles(const std::vector<long long>& off, unsigned bytes) {
  const unsigned phases = bytes > 8 ? 4 : bytes > 4 ? 2 : 1, per = 32 / phases;
  unsigned cycles = 0;
  for (unsigned p = 0; p < phases; ++p) {
    std::set<long long> pending;
    for (unsigned l = p * per; l < (p + 1) * per; ++l)
      if (off[l] >= 0)
        for (long long b = off[l]; b < off[l] + bytes; b += 1) pending.insert(b / 4);
    while (!pending.empty()) {
      std::map<long long, long long> pick;  // bank -> word served this cycle
      for (long long w : pending) pick.emplace(w % 32, w);
      for (auto [bank, w] : pick) pending.erase(w);
      ++cycles;
    }
  }
  return cycles;
}

TEST(SharedBanks, RandomRequestsAgreeWithACycleByCycleServer) {
  std::mt19937 rng(20);
  for (unsigned bytes : {4u, 8u, 16u}) {
    for (int trial = 0; trial < 500; ++trial) {
      std::vector<long long> off(32);
      const int span = 1 + static_cast<int>(rng() % 64);  // small spans make conflicts and broadcasts
      for (auto& o : off) o = (rng() % 5 == 0) ? -1 : static_cast<long long>(rng() % span) * bytes;
      const BankRequest r = bank_request(off, bytes);
      ASSERT_EQ(r.wavefronts, served_in_cycles(off, bytes)) << "bytes " << bytes << " trial " << trial;
      ASSERT_GE(r.wavefronts, r.ideal_wavefronts);
      // Every active lane appears in the grid once per word it touches.
      std::map<unsigned, int> seen;
      for (const auto& row : r.rows)
        for (const auto& cell : row)
          for (unsigned l : cell.lanes) ++seen[l];
      for (unsigned l = 0; l < 32; ++l) {
        if (off[l] >= 0) { ASSERT_EQ(seen[l], static_cast<int>(bytes / 4)) << "lane " << l; }
      }
    }
  }
}

TEST(SharedBanks, TmaSwizzleSpreadsAColumnOverEightChunks) {
  const auto plain = bs::mapping::tile_bank_map(8, 8, [](int r, int c) { return r * 128LL + 16 * c; });
  const auto swz = bs::mapping::tile_bank_map(8, 8, bs::mapping::tma_swizzle_128b);
  std::set<unsigned> column_plain, column_swz;
  for (int r = 0; r < 8; ++r) column_plain.insert(plain.at(r, 0)), column_swz.insert(swz.at(r, 0));
  EXPECT_EQ(column_plain.size(), 1u);  // chunk 0 of every row: banks 0-3
  EXPECT_EQ(column_swz.size(), 8u);    // all 32 banks
}

}  // namespace
