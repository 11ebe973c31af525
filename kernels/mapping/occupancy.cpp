#include "mapping/occupancy.hpp"

#include <algorithm>

#include "mapping/architecture.hpp"

namespace bs::mapping {
namespace {

using ull = unsigned long long;

ull round_up(ull v, ull unit) { return unit == 0 ? v : ceil_div(v, unit) * unit; }

unsigned clamp_blocks(ull v) { return v >= kNoLimit ? kNoLimit - 1 : static_cast<unsigned>(v); }

std::string kib(std::size_t bytes) {
  if (bytes % 1024 == 0) return std::to_string(bytes / 1024) + " KiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace

const char* to_string(Occupancy::Limiter l) {
  switch (l) {
    case Occupancy::Threads: return "threads (warp slots) per SM";
    case Occupancy::Registers: return "registers per SM";
    case Occupancy::SharedMemory: return "shared memory per SM";
    case Occupancy::BlocksPerSm: return "blocks per SM";
  }
  return "?";
}

Occupancy compute_occupancy(ull threads_per_block, std::size_t dynamic_shared_bytes, const KernelAttributes& kernel,
                            const DeviceLimits& device) {
  Occupancy o;
  const unsigned warp = device.warp_size ? device.warp_size : 32;
  o.max_warps_per_sm = device.max_threads_per_sm / warp;
  o.warps_per_block = static_cast<unsigned>(ceil_div(threads_per_block, warp));
  const ull wpb = o.warps_per_block;

  // --- threads: warp slots --------------------------------------------------------------
  if (threads_per_block == 0) {
    o.reason = "the block has no threads";
    o.blocks_by_threads = 0;
  } else if (threads_per_block > device.max_threads_per_block) {
    o.reason = "a block may have at most " + std::to_string(device.max_threads_per_block) + " threads on this device";
    o.blocks_by_threads = 0;
  } else if (threads_per_block > kernel.max_threads_per_block) {
    o.reason = "this kernel can run at most " + std::to_string(kernel.max_threads_per_block) +
               " threads per block (its register use or __launch_bounds__)";
    o.blocks_by_threads = 0;
  } else {
    o.blocks_by_threads = clamp_blocks(o.max_warps_per_sm / wpb);
  }

  // --- registers ------------------------------------------------------------------------
  const unsigned sub_partitions = std::max(1u, device.warp_allocation_granularity);
  const unsigned max_regs_per_thread = architecture_rules(device.compute_major, device.compute_minor)
                                           .value_or(ArchitectureRules{})
                                           .max_registers_per_thread;
  o.registers_per_warp = static_cast<unsigned>(
      round_up(static_cast<ull>(kernel.registers_per_thread) * warp, device.register_allocation_unit));
  o.registers_per_block = static_cast<ull>(o.registers_per_warp) * wpb;
  if (kernel.registers_per_thread == 0 || wpb == 0) {
    o.blocks_by_registers = kNoLimit;
  } else {
    // The hardware checks a block's registers as if its warps were spread evenly over all
    // sub-partitions, so the warp count is rounded up to a multiple of them first.
    const ull assumed = static_cast<ull>(o.registers_per_warp) * round_up(wpb, sub_partitions);
    if (kernel.registers_per_thread > max_regs_per_thread || o.registers_per_block > device.regs_per_block ||
        assumed > device.regs_per_block) {
      o.blocks_by_registers = 0;
      if (o.reason.empty())
        o.reason = "the block needs " + std::to_string(std::max(assumed, o.registers_per_block)) +
                   " registers but a block may have " + std::to_string(device.regs_per_block);
    } else {
      const ull warps_per_sub_partition = (device.regs_per_sm / sub_partitions) / o.registers_per_warp;
      o.blocks_by_registers = clamp_blocks(warps_per_sub_partition * sub_partitions / wpb);
    }
  }

  // --- shared memory --------------------------------------------------------------------
  const std::size_t static_with_reserve = kernel.static_shared_bytes + device.reserved_shared_per_block;
  o.shared_per_block =
      static_cast<std::size_t>(round_up(static_with_reserve + dynamic_shared_bytes, device.shared_allocation_unit));
  o.shared_per_sm = device.shared_per_sm;
  // A kernel that opted in to more dynamic shared memory
  // (cudaFuncAttributeMaxDynamicSharedMemorySize) may use up to the opt-in limit; others stop at
  // the default per-block limit.
  const bool opted_in = kernel.static_shared_bytes + kernel.max_dynamic_shared_bytes > device.shared_per_block;
  const std::size_t per_block_limit =
      (opted_in ? device.shared_per_block_optin : device.shared_per_block) + device.reserved_shared_per_block;
  if (opted_in && dynamic_shared_bytes > kernel.max_dynamic_shared_bytes) {
    o.blocks_by_shared_memory = 0;
    if (o.reason.empty())
      o.reason = "the launch asks for " + kib(dynamic_shared_bytes) + " of dynamic shared memory; this kernel allows " +
                 kib(kernel.max_dynamic_shared_bytes);
  } else if (o.shared_per_block > per_block_limit) {
    o.blocks_by_shared_memory = 0;
    if (o.reason.empty())
      o.reason =
          "the block needs " + kib(o.shared_per_block) + " of shared memory; the limit is " + kib(per_block_limit);
  } else if (o.shared_per_block == 0) {
    o.blocks_by_shared_memory = kNoLimit;
  } else {
    o.blocks_by_shared_memory = clamp_blocks(device.shared_per_sm / o.shared_per_block);
  }

  // --- resident blocks ------------------------------------------------------------------
  o.blocks_by_block_limit = device.max_blocks_per_sm;

  const unsigned limits[4] = {o.blocks_by_threads, o.blocks_by_registers, o.blocks_by_shared_memory,
                              o.blocks_by_block_limit};
  o.active_blocks_per_sm = *std::min_element(limits, limits + 4);
  for (int l = 3; l >= 0; --l)
    if (limits[l] == o.active_blocks_per_sm) {
      o.limiter_mask |= 1u << l;
      o.limiter = static_cast<Occupancy::Limiter>(l);
    }
  if (o.active_blocks_per_sm == 0 && o.reason.empty())
    o.reason = std::string("no block fits: limited by ") + to_string(o.limiter);
  o.active_warps_per_sm = static_cast<unsigned>(o.active_blocks_per_sm * wpb);
  o.occupancy = o.max_warps_per_sm ? static_cast<double>(o.active_warps_per_sm) / o.max_warps_per_sm : 0;
  return o;
}

Waves compute_waves(ull blocks, unsigned sm_count, unsigned active_blocks_per_sm) {
  Waves w;
  w.blocks = blocks;
  w.slots = static_cast<ull>(sm_count) * active_blocks_per_sm;
  if (w.slots == 0 || blocks == 0) return w;
  w.waves = static_cast<double>(blocks) / static_cast<double>(w.slots);
  w.full_waves = blocks / w.slots;
  w.wave_count = ceil_div(blocks, w.slots);
  const ull last = blocks - (w.wave_count - 1) * w.slots;
  w.last_wave_fill = static_cast<double>(last) / static_cast<double>(w.slots);
  return w;
}

}  // namespace bs::mapping
