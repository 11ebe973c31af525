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

namespace {

// What differs between the presets: the name, threads and shared memory per SM (KiB), the
// opt-in and reserved shared memory per block (KiB), and the SM count.
struct Preset {
  int major, minor;
  const char* name;
  unsigned max_threads_per_sm;
  std::size_t shared_per_sm_kib, shared_per_block_optin_kib, reserved_shared_per_block_kib;
  unsigned sm_count;
};
constexpr Preset kPresets[] = {
    {7, 5, "Tesla T4 (preset)", 1024, 64, 64, 0, 40},          {8, 0, "A100-SXM4 (preset)", 2048, 164, 163, 1, 108},
    {8, 6, "GeForce RTX 3090 (preset)", 1536, 100, 99, 1, 82}, {8, 9, "L4 (preset)", 1536, 100, 99, 1, 58},
    {9, 0, "H100 SXM (preset)", 2048, 228, 227, 1, 132},
};

}  // namespace

std::optional<DeviceLimits> device_preset(int major, int minor) {
  auto rules = architecture_rules(major, minor);
  if (!rules) return std::nullopt;
  const Preset* p = nullptr;
  for (const Preset& candidate : kPresets)
    if (candidate.major == major && candidate.minor == minor) p = &candidate;
  if (!p) return std::nullopt;
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
  d.name = p->name;
  d.max_threads_per_sm = p->max_threads_per_sm;
  d.shared_per_sm = p->shared_per_sm_kib * KiB;
  d.shared_per_block_optin = p->shared_per_block_optin_kib * KiB;
  d.reserved_shared_per_block = p->reserved_shared_per_block_kib * KiB;
  d.sm_count = p->sm_count;
  return d;
}

}  // namespace bs::mapping
