// Which architecture NVRTC compiles a user's kernel for: the device's exact one, so everything
// the device has is there to use. Since Hopper that is the arch-specific variant (sm_90a, sm_100a,
// ...): wgmma, TMA's tensor maps and setmaxnreg exist only there, and a cubin for it runs only on
// that architecture, which is the device in hand. Older devices: sm_XY. A device this NVRTC does
// not know: the newest virtual architecture below it, as PTX the driver JIT-compiles.
// Plain C++ (no CUDA headers), so the choice is tested without a device.
#pragma once
#include <algorithm>
#include <span>
#include <string>

namespace bs::toolchain {

struct NvrtcTarget {
  bool ok = false;       // false: this NVRTC knows nothing at or below the device
  bool ptx = false;      // compile to PTX for the driver to JIT (the device is too new)
  std::string option;    // "--gpu-architecture=sm_90a"
  std::string arch;      // "sm_90a", "compute_89 (PTX, JIT-compiled by the driver)"
  std::string fallback;  // the option without the arch-specific suffix ("" when none)
};

// Architectures with an arch-specific ('a') variant: Hopper's 9.0 and every one from 10.0 on.
inline bool has_arch_specific_variant(int cc) { return cc == 90 || cc >= 100; }

// cc = 10 * major + minor of the device; `supported` what nvrtcGetSupportedArchs lists.
inline NvrtcTarget nvrtc_target(int cc, std::span<const int> supported) {
  NvrtcTarget t;
  const bool exact = std::find(supported.begin(), supported.end(), cc) != supported.end();
  if (exact) {
    const std::string plain = "sm_" + std::to_string(cc);
    t.ok = true;
    t.arch = has_arch_specific_variant(cc) ? plain + "a" : plain;
    t.option = "--gpu-architecture=" + t.arch;
    if (t.arch != plain) t.fallback = "--gpu-architecture=" + plain;
    return t;
  }
  int below = 0;
  for (int a : supported)
    if (a <= cc) below = std::max(below, a);
  if (below == 0) return t;
  t.ok = true;
  t.ptx = true;
  t.option = "--gpu-architecture=compute_" + std::to_string(below);
  t.arch = "compute_" + std::to_string(below) + " (PTX, JIT-compiled by the driver)";
  return t;
}

}  // namespace bs::toolchain
