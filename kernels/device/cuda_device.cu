#include <algorithm>
#include <vector>

#include "device/cuda_device.hpp"
#include "core/median.hpp"
#include "device/device_buffer.hpp"
#include "device/device_limits.hpp"
#include "device/event_timer.hpp"

namespace bs {
namespace {

// A trivial kernel: if the runtime cannot find code for the device, launching it fails with
// cudaErrorNoKernelImageForDevice, which is how we learn the binary lacks this architecture.
__global__ void probe_kernel(int* out) {
  if (out) *out = 1;
}

// Writes through a pointer no allocation owns: an illegal address, on purpose.
__global__ void illegal_write_kernel(int* bad) { bad[threadIdx.x] = 42; }

}  // namespace

bool built_with_cuda() { return true; }

Result<std::vector<CudaDeviceSummary>> list_cuda_devices() {
  int count = 0;
  if (cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) {
    cudaGetLastError();
    int driver = 0;
    if (e == cudaErrorInsufficientDriver && cudaDriverGetVersion(&driver) == cudaSuccess && driver == 0)
      return Status::failure("no NVIDIA driver is installed, so there is no CUDA GPU to use",
                             "blockscope runs the kernels on the CPU simulation instead", "cudaGetDeviceCount",
                             cudaGetErrorName(e));
    return cuda::to_status(e, "cudaGetDeviceCount");
  }
  std::vector<CudaDeviceSummary> out;
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, d) != cudaSuccess) continue;
    CudaDeviceSummary s;
    s.index = d;
    s.name = p.name;
    s.compute_major = p.major;
    s.compute_minor = p.minor;
    s.total_bytes = p.totalGlobalMem;
    cudaFuncAttributes a{};
    if (cudaSetDevice(d) == cudaSuccess) {
      s.has_code_for_it = cudaFuncGetAttributes(&a, probe_kernel) == cudaSuccess;
      cudaGetLastError();
    }
    out.push_back(s);
  }
  return out;
}

std::string cuda_versions() {
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  auto v = [](int x) { return x ? std::to_string(x / 1000) + "." + std::to_string((x % 1000) / 10) : "none"; };
  return "driver " + v(driver) + ", runtime " + v(runtime);
}

Result<DeviceLimits> cuda_device_limits(int device) { return cuda::query_device_limits(device); }

Result<double> measure_copy_bandwidth_gbs(int device, std::size_t bytes, int repeats) {
  BS_CUDA_TRY(cudaSetDevice(device));
  std::size_t free_b = 0, total_b = 0;
  BS_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
  bytes = std::min(bytes, free_b / 4);  // leave room for everything else
  bytes &= ~std::size_t(255);
  if (bytes < (1u << 20)) return Status::failure("too little free GPU memory to measure", "", "copy bandwidth");
  auto src = cuda::DeviceBuffer<unsigned char>::allocate(bytes);
  if (!src) return src.status();
  auto dst = cuda::DeviceBuffer<unsigned char>::allocate(bytes);
  if (!dst) return dst.status();
  BS_CUDA_TRY(cudaMemset(src->get(), 0x5a, bytes));
  cuda::EventTimer timer;
  std::vector<float> ms;
  for (int r = -2; r < repeats; ++r) {  // two warm-ups
    timer.start();
    BS_CUDA_TRY(cudaMemcpyAsync(dst->get(), src->get(), bytes, cudaMemcpyDeviceToDevice));
    timer.stop();
    auto t = timer.elapsed_ms();
    if (!t) return t.status();
    if (r >= 0) ms.push_back(t.value());
  }
  return 2.0 * static_cast<double>(bytes) / (median_of(std::move(ms)) * 1e6);
}

Status inject_illegal_address(int device) {
  BS_CUDA_TRY(cudaSetDevice(device));
  illegal_write_kernel<<<1, 32>>>(reinterpret_cast<int*>(16));
  return cuda::to_status(cudaDeviceSynchronize(), "cudaDeviceSynchronize (injected fault)");
}

Result<std::pair<std::size_t, std::size_t>> device_memory_info(int device) {
  BS_CUDA_TRY(cudaSetDevice(device));
  std::size_t free_b = 0, total_b = 0;
  BS_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
  return std::make_pair(free_b, total_b);
}

}  // namespace bs
