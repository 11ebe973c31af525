// The GPU's SM clock, measured rather than asked for: there is no NVML here, and what the
// driver reports as "the" clock is not what a kernel ran at anyway. A tiny kernel on one SM
// reads clock64() (SM cycles) and %globaltimer (nanoseconds) at the start and the end of a
// spin of a few milliseconds; cycles over nanoseconds is the clock that SM ran at during the
// spin. Sweeps take it before and after, so a GPU that boosted or throttled between the first
// and the last point says so in the results.
//
// Honest limits: one SM (the others may differ under power capping), the spin itself is the
// load (an idle GPU ramps up within it), and %globaltimer ticks in steps of up to 1 us on some
// parts, so the spin is long enough for that to be below 0.1%.
#pragma once
#include <string>

#include "core/status.hpp"

namespace bs {

struct SmClock {
  double mhz = 0;      // SM cycles per microsecond over the spin
  double spin_ms = 0;  // how long the spin lasted by %globaltimer
  std::string method;  // one sentence, for the results
};

// Fails (as a value) without CUDA or without the device. Makes `device` current on the calling
// thread.
Result<SmClock> measure_sm_clock(int device);

// Makes `device` the current CUDA device of the calling thread (a sweep's worker thread starts
// with device 0 current). Fails as a value without CUDA.
Status make_device_current(int device);

}  // namespace bs
