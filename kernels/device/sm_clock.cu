#include "device/sm_clock.hpp"

#include <cuda_runtime.h>

#include "device/cuda_status.hpp"
#include "device/device_buffer.hpp"

namespace bs {
namespace {

struct ClockSample {
  unsigned long long cycles_start, cycles_end;
  unsigned long long ns_start, ns_end;
};

__device__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// One thread spins until `spin_ns` have passed by %globaltimer, reading clock64() at both ends.
__global__ void sm_clock_kernel(unsigned long long spin_ns, ClockSample* out) {
  const unsigned long long t0 = global_ns();
  const long long c0 = clock64();
  unsigned long long t = t0;
  while (t - t0 < spin_ns) t = global_ns();
  const long long c1 = clock64();
  out->cycles_start = static_cast<unsigned long long>(c0);
  out->cycles_end = static_cast<unsigned long long>(c1);
  out->ns_start = t0;
  out->ns_end = t;
}

constexpr unsigned long long kSpinNs = 5'000'000;  // 5 ms: 1 us timer steps are 0.02% of it

}  // namespace

Status make_device_current(int device) {
  BS_CUDA_TRY(cudaSetDevice(device));
  return Status::success();
}

Result<SmClock> measure_sm_clock(int device) {
  BS_CUDA_TRY(cudaSetDevice(device));
  auto buffer = cuda::DeviceBuffer<ClockSample>::allocate(1);
  if (!buffer) return buffer.status();
  // Twice: the first spin wakes an idle GPU up; the second is the one reported.
  ClockSample host{};
  for (int i = 0; i < 2; ++i) {
    sm_clock_kernel<<<1, 1>>>(kSpinNs, buffer->get());
    BS_CUDA_TRY(cudaGetLastError());
    BS_CUDA_TRY(cudaMemcpy(&host, buffer->get(), sizeof host, cudaMemcpyDeviceToHost));
  }
  const double ns = static_cast<double>(host.ns_end - host.ns_start);
  if (ns <= 0)
    return Status::failure("the GPU's %globaltimer did not advance during the clock spin", "", "measure_sm_clock");
  SmClock c;
  c.mhz = static_cast<double>(host.cycles_end - host.cycles_start) / ns * 1000.0;
  c.spin_ms = ns / 1e6;
  c.method = "clock64() cycles over %globaltimer ns during a 5 ms spin of one thread on one SM";
  return c;
}

}  // namespace bs
