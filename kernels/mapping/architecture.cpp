#include "mapping/architecture.hpp"

namespace bs::mapping {

std::optional<ArchitectureRules> architecture_rules(int major, int minor) {
  ArchitectureRules r;
  switch (major) {
    case 3:
      r.shared_allocation_unit = 256;
      r.max_blocks_per_sm = 16;
      break;
    case 5:
      r.shared_allocation_unit = 256;
      r.max_blocks_per_sm = 32;
      break;
    case 6:
      r.shared_allocation_unit = 256;
      r.max_blocks_per_sm = 32;
      r.register_sub_partitions = minor == 0 ? 2 : 4;  // GP100 has two schedulers per SM
      break;
    case 7:
      r.shared_allocation_unit = 256;
      r.max_blocks_per_sm = minor == 5 ? 16 : 32;  // Turing: 16
      break;
    case 8: r.max_blocks_per_sm = minor == 0 ? 32 : minor == 9 ? 24 : 16; break;
    case 9: r.max_blocks_per_sm = 32; break;
    case 10: r.max_blocks_per_sm = minor == 1 ? 24 : 32; break;
    case 11: r.max_blocks_per_sm = minor == 0 ? 24 : 32; break;
    case 12: r.max_blocks_per_sm = 24; break;
    default: return std::nullopt;
  }
  if (major >= 7) r.max_registers_per_thread = 256;  // the occupancy rules' bound; ptxas stops at 255
  return r;
}

std::optional<DeviceLimits> device_preset(int major, int minor) {
  auto rules = architecture_rules(major, minor);
  if (!rules) return std::nullopt;
  DeviceLimits d;
  d.compute_major = major;
  d.compute_minor = minor;
  d.max_threads_per_block = 1024;
  d.max_block = Dim3{1024, 1024, 64};
  d.max_grid = Dim3{2147483647u, 65535u, 65535u};
  d.warp_size = 32;
  d.shared_per_block = 48 * 1024;
  d.regs_per_block = 65536;
  d.regs_per_sm = 65536;
  d.register_allocation_unit = rules->register_allocation_unit;
  d.warp_allocation_granularity = rules->register_sub_partitions;
  d.shared_allocation_unit = rules->shared_allocation_unit;
  d.max_blocks_per_sm = rules->max_blocks_per_sm;
  const std::size_t KiB = 1024;
  if (major == 7 && minor == 5) {
    d.name = "Tesla T4 (preset)";
    d.max_threads_per_sm = 1024;
    d.shared_per_sm = 64 * KiB;
    d.shared_per_block_optin = 64 * KiB;
    d.reserved_shared_per_block = 0;
    d.sm_count = 40;
  } else if (major == 8 && minor == 0) {
    d.name = "A100-SXM4 (preset)";
    d.max_threads_per_sm = 2048;
    d.shared_per_sm = 164 * KiB;
    d.shared_per_block_optin = 163 * KiB;
    d.reserved_shared_per_block = 1 * KiB;
    d.sm_count = 108;
  } else if (major == 8 && minor == 6) {
    d.name = "GeForce RTX 3090 (preset)";
    d.max_threads_per_sm = 1536;
    d.shared_per_sm = 100 * KiB;
    d.shared_per_block_optin = 99 * KiB;
    d.reserved_shared_per_block = 1 * KiB;
    d.sm_count = 82;
  } else if (major == 8 && minor == 9) {
    d.name = "L4 (preset)";
    d.max_threads_per_sm = 1536;
    d.shared_per_sm = 100 * KiB;
    d.shared_per_block_optin = 99 * KiB;
    d.reserved_shared_per_block = 1 * KiB;
    d.sm_count = 58;
  } else if (major == 9 && minor == 0) {
    d.name = "H100 SXM (preset)";
    d.max_threads_per_sm = 2048;
    d.shared_per_sm = 228 * KiB;
    d.shared_per_block_optin = 227 * KiB;
    d.reserved_shared_per_block = 1 * KiB;
    d.sm_count = 132;
  } else {
    return std::nullopt;
  }
  return d;
}

}  // namespace bs::mapping
