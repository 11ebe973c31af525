// The occupancy calculator against a model SM that admits blocks one at a time, placing every
// warp's registers in a register-file sub-partition, until one does not fit. (The GPU test
// compares with cudaOccupancyMaxActiveBlocksPerMultiprocessor on real kernels.)
#include "mapping/occupancy.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "mapping/architecture.hpp"

namespace bs::mapping {
namespace {

// Rounds up by counting units, the slow way.
unsigned long long units_of(unsigned long long bytes, unsigned long long unit) {
  unsigned long long total = 0;
  while (total < bytes) total += unit;
  return total;
}

struct Enforce {
  bool threads = true, registers = true, shared = true, blocks = true;
};

// How many blocks a model SM admits; 100000 stands for "no limit".
unsigned model_blocks(unsigned T, std::size_t dyn, const KernelAttributes& k, const DeviceLimits& d, Enforce e = {}) {
  const unsigned warps = (T + 31) / 32;
  const unsigned long long regs_per_warp = units_of(32ull * k.registers_per_thread, d.register_allocation_unit);
  const unsigned parts = d.warp_allocation_granularity;
  const unsigned long long shared =
      units_of(k.static_shared_bytes + d.reserved_shared_per_block + dyn, d.shared_allocation_unit);

  // Can this block be launched at all?
  if (T == 0 || T > d.max_threads_per_block || T > k.max_threads_per_block) return e.threads ? 0 : 100000;
  if (e.registers && k.registers_per_thread > 0) {
    unsigned warps_rounded = warps;
    while (warps_rounded % parts) ++warps_rounded;  // the hardware's check spreads warps evenly
    if (regs_per_warp * warps_rounded > d.regs_per_block || regs_per_warp * warps > d.regs_per_block ||
        k.registers_per_thread > 256)
      return 0;
  }
  if (e.shared) {
    const bool optin = k.static_shared_bytes + k.max_dynamic_shared_bytes > d.shared_per_block;
    if (optin && dyn > k.max_dynamic_shared_bytes) return 0;
    if (shared > (optin ? d.shared_per_block_optin : d.shared_per_block) + d.reserved_shared_per_block) return 0;
  }

  unsigned long long warp_slots = d.max_threads_per_sm / 32, block_slots = d.max_blocks_per_sm;
  unsigned long long shared_free = d.shared_per_sm;
  std::vector<unsigned long long> part_free(parts, d.regs_per_sm / parts);
  unsigned admitted = 0;
  while (admitted < 100000) {
    if (e.blocks && block_slots == 0) break;
    if (e.threads && warp_slots < warps) break;
    if (e.shared && shared_free < shared) break;
    if (e.registers && regs_per_warp > 0) {
      auto trial = part_free;
      bool fits = true;
      for (unsigned w = 0; w < warps && fits; ++w) {
        auto most = std::max_element(trial.begin(), trial.end());
        if (*most < regs_per_warp) fits = false;
        else *most -= regs_per_warp;
      }
      if (!fits) break;
      part_free = trial;
    }
    --block_slots;
    warp_slots -= warps;
    shared_free -= shared;
    ++admitted;
  }
  return admitted;
}

unsigned as_model(unsigned v) { return v == kNoLimit ? 100000 : v; }

TEST(Occupancy, MatchesModelSmOnEveryPresetAndShape) {
  const unsigned block_sizes[] = {1,   2,   31,  32,  33,  64,  96,  100, 128, 160, 192,  250, 256,
                                  288, 320, 384, 448, 512, 576, 640, 768, 800, 896, 1000, 1024};
  const unsigned registers[] = {0, 8, 16, 24, 32, 33, 40, 48, 56, 64, 72, 80, 96, 128, 168, 200, 255};
  const std::size_t statics[] = {0, 100, 4096, 10000, 20000, 48 * 1024};
  const std::size_t dynamics[] = {0, 1, 777, 16384, 60000, 100 * 1024};
  unsigned long long compared = 0, nonzero = 0;
  for (auto [major, minor] : {std::pair{7, 5}, {8, 0}, {8, 6}, {8, 9}, {9, 0}}) {
    const DeviceLimits d = device_preset(major, minor).value();
    for (bool opted_in : {false, true})
      for (std::size_t st : statics)
        for (unsigned r : registers)
          for (unsigned T : block_sizes)
            for (std::size_t dyn : dynamics) {
              KernelAttributes k;
              k.registers_per_thread = r;
              k.static_shared_bytes = st;
              k.max_dynamic_shared_bytes =
                  (opted_in ? d.shared_per_block_optin : d.shared_per_block) - std::min(st, d.shared_per_block);
              const Occupancy o = compute_occupancy(T, dyn, k, d);
              const unsigned expected = model_blocks(T, dyn, k, d);
              ASSERT_EQ(o.active_blocks_per_sm, expected) << d.name << " T=" << T << " regs=" << r << " static=" << st
                                                          << " dyn=" << dyn << " optin=" << opted_in;
              ++compared;
              if (expected == 0) {
                EXPECT_FALSE(o.reason.empty());
                continue;
              }
              ++nonzero;
              EXPECT_TRUE(o.reason.empty());
              // Each limit on its own, with the model enforcing only that resource.
              EXPECT_EQ(as_model(o.blocks_by_threads), model_blocks(T, dyn, k, d, {true, false, false, false}));
              EXPECT_EQ(as_model(o.blocks_by_registers), model_blocks(T, dyn, k, d, {false, true, false, false}));
              EXPECT_EQ(as_model(o.blocks_by_shared_memory), model_blocks(T, dyn, k, d, {false, false, true, false}));
              EXPECT_EQ(as_model(o.blocks_by_block_limit), model_blocks(T, dyn, k, d, {false, false, false, true}));
              const unsigned warps = (T + 31) / 32;
              EXPECT_EQ(o.active_warps_per_sm, expected * warps);
              EXPECT_DOUBLE_EQ(o.occupancy, double(expected * warps) / (d.max_threads_per_sm / 32));
              EXPECT_TRUE(o.limited_by(o.limiter));
              if (::testing::Test::HasFailure()) return;
            }
  }
  EXPECT_GT(nonzero, compared / 3);  // the sweep is not all refusals
}

TEST(Occupancy, KnownFiguresFromTheOccupancyRules) {
  const DeviceLimits h100 = device_preset(9, 0).value();
  KernelAttributes k;
  // 256 threads, 32 regs: 8 warps per block; 64 warp slots -> 8 blocks; registers 32*32 = 1024
  // per warp, 16384 per sub-partition -> 16 warps each, 64 in all -> 8 blocks. Both limit.
  k.registers_per_thread = 32;
  Occupancy o = compute_occupancy(256, 0, k, h100);
  EXPECT_EQ(o.active_blocks_per_sm, 8u);
  EXPECT_DOUBLE_EQ(o.occupancy, 1.0);
  EXPECT_TRUE(o.limited_by(Occupancy::Threads));
  EXPECT_TRUE(o.limited_by(Occupancy::Registers));
  // 33 regs: 1056 per warp rounds to 1280; 16384 / 1280 = 12 warps per sub-partition, 48 per SM
  // -> 6 blocks of 8 warps: 75%, registers limit.
  k.registers_per_thread = 33;
  o = compute_occupancy(256, 0, k, h100);
  EXPECT_EQ(o.active_blocks_per_sm, 6u);
  EXPECT_EQ(o.limiter, Occupancy::Registers);
  EXPECT_EQ(o.registers_per_warp, 1280u);
  // One-warp blocks hit the 32 blocks per SM limit: 50%.
  k.registers_per_thread = 16;
  o = compute_occupancy(32, 0, k, h100);
  EXPECT_EQ(o.active_blocks_per_sm, 32u);
  EXPECT_EQ(o.limiter, Occupancy::BlocksPerSm);
  EXPECT_DOUBLE_EQ(o.occupancy, 0.5);
  // 48 KiB of static shared memory + 1 KiB reserved = 50176 bytes; 233472 / 50176 = 4 blocks.
  k.static_shared_bytes = 48 * 1024;
  o = compute_occupancy(256, 0, k, h100);
  EXPECT_EQ(o.active_blocks_per_sm, 4u);
  EXPECT_EQ(o.limiter, Occupancy::SharedMemory);
  EXPECT_EQ(o.shared_per_block, 49u * 1024);
  // Turing: a 1024-thread block with 65 registers needs 32 * 2304 > 65536 registers: it cannot run.
  const DeviceLimits t4 = device_preset(7, 5).value();
  KernelAttributes fat;
  fat.registers_per_thread = 65;
  o = compute_occupancy(1024, 0, fat, t4);
  EXPECT_EQ(o.active_blocks_per_sm, 0u);
  EXPECT_NE(o.reason.find("registers"), std::string::npos);
}

TEST(Occupancy, RefusesBlocksTheKernelCannotRun) {
  const DeviceLimits d = device_preset(8, 0).value();
  KernelAttributes k;
  k.max_threads_per_block = 512;  // e.g. __launch_bounds__(512)
  EXPECT_GT(compute_occupancy(512, 0, k, d).active_blocks_per_sm, 0u);
  const Occupancy o = compute_occupancy(513, 0, k, d);
  EXPECT_EQ(o.active_blocks_per_sm, 0u);
  EXPECT_NE(o.reason.find("512"), std::string::npos);
  EXPECT_EQ(compute_occupancy(2048, 0, KernelAttributes{}, d).active_blocks_per_sm, 0u);
}

TEST(Waves, MatchRoundByRoundDispatch) {
  for (unsigned sms : {1u, 7u, 108u, 132u})
    for (unsigned active : {0u, 1u, 3u, 8u, 32u})
      for (unsigned long long blocks : {0ull, 1ull, 5ull, 131ull, 132ull, 133ull, 1000ull, 4097ull}) {
        const Waves w = compute_waves(blocks, sms, active);
        const unsigned long long slots = 1ull * sms * active;
        EXPECT_EQ(w.slots, slots);
        if (slots == 0 || blocks == 0) {
          EXPECT_EQ(w.wave_count, 0u);
          continue;
        }
        // Dispatch: every round starts as many waiting blocks as there are slots.
        unsigned long long waiting = blocks, rounds = 0, last = 0;
        while (waiting) {
          last = std::min(waiting, slots);
          waiting -= last;
          ++rounds;
        }
        EXPECT_EQ(w.wave_count, rounds);
        EXPECT_EQ(w.full_waves, last == slots ? rounds : rounds - 1);
        EXPECT_DOUBLE_EQ(w.last_wave_fill, double(last) / slots);
        EXPECT_DOUBLE_EQ(w.waves, double(blocks) / slots);
      }
}

TEST(Architecture, PresetsFollowTheirRules) {
  for (auto [major, minor] : {std::pair{7, 5}, {8, 0}, {8, 6}, {8, 9}, {9, 0}}) {
    const auto d = device_preset(major, minor);
    ASSERT_TRUE(d.has_value());
    const auto r = architecture_rules(major, minor).value();
    EXPECT_EQ(d->max_blocks_per_sm, r.max_blocks_per_sm);
    EXPECT_EQ(d->shared_allocation_unit, r.shared_allocation_unit);
    EXPECT_EQ(d->warp_allocation_granularity, r.register_sub_partitions);
    EXPECT_EQ(d->reserved_shared_per_block, major >= 8 ? 1024u : 0u);
    EXPECT_LE(d->shared_per_block_optin + d->reserved_shared_per_block, d->shared_per_sm);
  }
  EXPECT_FALSE(architecture_rules(2, 0).has_value());
  EXPECT_EQ(architecture_rules(7, 5)->max_blocks_per_sm, 16u);
  EXPECT_EQ(architecture_rules(9, 0)->max_blocks_per_sm, 32u);
}

}  // namespace
}  // namespace bs::mapping
