// `blockscope-selftest soak`: the hardening proof that the app keeps running and loses nothing. It drives
// the real App headless, frame after frame, the way a user at the UI would: each frame is a
// relaunch with a random kernel and block (valid or invalid), random images of odd sizes with
// fresh pixels are installed in between, and files (valid PNGs and hostile ones: truncated,
// empty, text named .png, a folder, a missing path) arrive through the window's drop queue.
//
// It fails (exit 1) when
//  - an invalid launch is not refused, a valid one is, or a refusal has no "Launch refused"
//    message naming its rule (expected refusals are computed here from CUDA's rules and the
//    device's limits, not by asking the launcher);
//  - a hostile file does not give exactly one error, or a failure changes the image on screen;
//  - a sampled output (read back from the GL texture the view shows) differs from the CPU
//    reference;
//  - host RSS grows by more than kSoakHostGrowthBound, or used device memory by more than
//    kSoakDeviceGrowthBound, between the start (after warm-up) and the end; both are sampled
//    with the same probe image installed, so equal work holds equal memory (under
//    AddressSanitizer the host bound applies to the live heap: its quarantine inflates RSS);
//  - the device faults, or anything crashes (the process dies: ctest sees that too).
// It prints one summary line (launches, refusals expected/observed, load errors, RSS and device
// memory before/after, elapsed) and a verdict.
#pragma once
#include <cstddef>
#include <optional>

#include "cli/options.hpp"

namespace bs::selftest {

struct SoakOptions {
  long long launches = 3000;
  double seconds = 0;  // > 0: stop after this long even if launches remain
  std::optional<unsigned long long> seed;
  long long leak_bytes_per_launch = 0;  // proves the memory bound can fail
  app::BackendChoice backend = app::BackendChoice::Auto;
  int cuda_device = -1;
  int width = 1280, height = 800;
};

// Growth allowed between the two samples. Host: glibc arenas, Mesa's and the driver's caches
// and the message log's fill-up stay well inside 16 MiB; a leak of one image per install
// (hundreds of installs of up to a few MiB each) does not. Device: cudaMemGetInfo counts the
// whole GPU, OpenGL's textures and the drivers' pools included, and on an H200 three 3000-launch
// runs moved it by -6, -4 and +4 MiB between samples with the same probe image installed; 16 MiB
// absorbs that, while leaking one image's buffers per install (about 4 MiB of device memory and
// 5 MiB of textures for a 1025 x 1025 image, ~230 installs a run) would grow by hundreds.
inline constexpr std::size_t kSoakHostGrowthBound = 16u << 20;
inline constexpr std::size_t kSoakDeviceGrowthBound = 16u << 20;

// Runs the soak; returns the process exit code.
int run_soak(const SoakOptions& options);

}  // namespace bs::selftest
