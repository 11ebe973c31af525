// The grayscale lab on a CUDA device: the planar source and the reference live in device
// memory; launches are timed with CUDA events and checked with cudaGetLastError; the output is
// compared with the reference on the device (one pass over 2n bytes, a few atomics), so even an
// 8192 x 8192 result is verified every frame without a download. Only a wrong result is copied
// back, to name its first wrong pixels exactly.
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "device/cuda_status.hpp"
#include "device/device_buffer.hpp"
#include "device/device_limits.hpp"
#include "device/event_timer.hpp"
#include "device/l2_flush.hpp"
#include "labs/grayscale/gray_cuda_kernels.cuh"
#include "labs/grayscale/gray_engine.hpp"
#include "trace/trace_buffer.hpp"

namespace bs::gray {
namespace {

struct CompareCounters {
  unsigned long long mismatches;
  unsigned int worst;
  unsigned int pad;
};

__global__ void compare_kernel(const std::uint8_t* out, const std::uint8_t* ref, long long n,
                               CompareCounters* counters) {
  unsigned long long mism = 0;
  unsigned int worst = 0;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int d = abs(static_cast<int>(out[i]) - static_cast<int>(ref[i]));
    worst = max(worst, static_cast<unsigned int>(d));
    mism += d > 1;
  }
  if (mism) atomicAdd(&counters->mismatches, mism);
  if (worst) atomicMax(&counters->worst, worst);
}

using KernelFn = void (*)(GrayArgs);
using TracedFn = void (*)(GrayArgs, trace::DeviceBlockRecord*);

KernelFn kernel_fn(GrayKernel k) {
  return k == GrayKernel::Flat1D ? gray_1d_flat_kernel : gray_2d_kernel;
}
TracedFn traced_fn(GrayKernel k) {
  return k == GrayKernel::Flat1D ? gray_1d_flat_traced : gray_2d_traced;
}

class CudaEngine final : public GrayEngine {
 public:
  explicit CudaEngine(const lab::Backend& backend) : backend_(backend) {}

  Status init() {
    BS_CUDA_TRY(cudaSetDevice(backend_.cuda_device));
    auto counters = cuda::DeviceBuffer<CompareCounters>::allocate(1);
    if (!counters) return counters.status();
    counters_ = std::move(counters.value());
    auto flusher = cuda::L2Flusher::create(backend_.cuda_device);
    if (flusher) flusher_ = std::move(flusher.value());
    else flush_error_ = flusher.status();
    for (const auto& k : gray_kernels()) {
      auto a = cuda::query_kernel_attributes(reinterpret_cast<const void*>(kernel_fn(k.id)));
      if (!a) return a.status();
      attributes_[static_cast<int>(k.id)] = a.value();
    }
    return Status::success();
  }

  KernelAttributes attributes(GrayKernel k, bool* measured) override {
    *measured = true;
    return attributes_[static_cast<int>(k)];
  }

  Status upload(const std::vector<std::uint8_t>& planar, const std::vector<std::uint8_t>& reference,
                int width, int height) override {
    BS_CUDA_TRY(cudaSetDevice(backend_.cuda_device));
    const std::size_t n = static_cast<std::size_t>(width) * height;
    // Allocate everything before freeing the old buffers: a failure keeps the loaded image.
    auto src = cuda::DeviceBuffer<std::uint8_t>::allocate(3 * n);
    if (!src) return src.status();
    auto ref = cuda::DeviceBuffer<std::uint8_t>::allocate(n);
    if (!ref) return ref.status();
    auto dst = cuda::DeviceBuffer<std::uint8_t>::allocate(n);
    if (!dst) return dst.status();
    BS_CUDA_TRY(cudaMemcpy(src->get(), planar.data(), 3 * n, cudaMemcpyHostToDevice));
    BS_CUDA_TRY(cudaMemcpy(ref->get(), reference.data(), n, cudaMemcpyHostToDevice));
    BS_CUDA_TRY(cudaMemset(dst->get(), 0, n));
    planar_ = std::move(src.value());
    reference_ = std::move(ref.value());
    result_ = std::move(dst.value());
    width_ = width;
    height_ = height;
    return Status::success();
  }

  std::uint8_t* own_output() override { return result_.get(); }
  Status download(std::uint8_t* host) override {
    BS_CUDA_TRY(cudaMemcpy(host, result_.get(), result_.bytes(), cudaMemcpyDeviceToHost));
    return Status::success();
  }

  Result<double> launch_timed(GrayKernel k, const LaunchConfig& c, std::uint8_t* out) override {
    BS_CUDA_TRY(cudaSetDevice(backend_.cuda_device));
    timer_.start();
    kernel_fn(k)<<<dim(c.grid), dim(c.block)>>>(args(out));
    timer_.stop();
    BS_CUDA_TRY(cudaGetLastError());
    auto ms = timer_.elapsed_ms();  // synchronises: execution errors surface here
    if (!ms) return ms.status();
    return static_cast<double>(ms.value());
  }

  Result<std::vector<BlockTrace>> launch_traced(GrayKernel k, const LaunchConfig& c,
                                                std::uint8_t* out) override {
    auto buffer = trace::TraceBuffer::allocate(c.grid);
    if (!buffer) return buffer.status();
    traced_fn(k)<<<dim(c.grid), dim(c.block)>>>(args(out), buffer->records());
    BS_CUDA_TRY(cudaGetLastError());
    return buffer->collect(backend_.limits.sm_count);
  }

  Status flush_l2() override {
    if (!flush_error_.ok()) return flush_error_;
    return flusher_.flush();
  }
  std::string clock() const override { return "CUDA events"; }
  bool simulated() const override { return false; }

  Check verify(const std::uint8_t* out) override {
    Check c;
    c.against = "double-precision CPU reference";
    c.measure = "max |out - ref|";
    c.limit = 1;
    const long long n = static_cast<long long>(width_) * height_;
    auto fail = [&](const Status& s) {
      c.note = s.describe();
      return c;
    };
    if (cudaError_t e = cudaMemsetAsync(counters_.get(), 0, sizeof(CompareCounters)); e != cudaSuccess)
      return fail(cuda::to_status(e, "cudaMemsetAsync"));
    const unsigned blocks = static_cast<unsigned>(std::min<long long>(4 * backend_.limits.sm_count + 1, (n + 255) / 256));
    compare_kernel<<<std::max(1u, blocks), 256>>>(out, reference_.get(), n, counters_.get());
    CompareCounters host{};
    if (cudaError_t e = cudaMemcpy(&host, counters_.get(), sizeof host, cudaMemcpyDeviceToHost); e != cudaSuccess) {
      cudaGetLastError();
      return fail(cuda::to_status(e, "compare on the GPU"));
    }
    if (host.mismatches == 0) {
      c.state = Check::State::Passed;
      c.checked = static_cast<unsigned long long>(n);
      c.worst = host.worst;
      return c;
    }
    // Wrong: copy both back once to name the first wrong pixels in row-major order.
    std::vector<std::uint8_t> got(static_cast<std::size_t>(n)), want(static_cast<std::size_t>(n));
    if (cudaMemcpy(got.data(), out, n, cudaMemcpyDeviceToHost) != cudaSuccess ||
        cudaMemcpy(want.data(), reference_.get(), n, cudaMemcpyDeviceToHost) != cudaSuccess) {
      Status s = cuda::to_status(cudaGetLastError(), "cudaMemcpy");
      return fail(s);
    }
    return compare_with_reference(got.data(), want.data(), n, width_);
  }

  Result<std::unique_ptr<GrayEngine>> clone() const override {
    auto e = std::make_unique<CudaEngine>(backend_);
    if (Status s = e->init(); !s) return s;
    return std::unique_ptr<GrayEngine>(std::move(e));
  }

 private:
  static dim3 dim(const Dim3& d) { return dim3(d.x, d.y, d.z); }
  GrayArgs args(std::uint8_t* out) const {
    return GrayArgs{planar_.get(), out, width_, height_, width_ * height_};
  }

  lab::Backend backend_;
  KernelAttributes attributes_[2];
  cuda::DeviceBuffer<std::uint8_t> planar_, reference_, result_;
  cuda::DeviceBuffer<CompareCounters> counters_;
  cuda::EventTimer timer_;
  cuda::L2Flusher flusher_;
  Status flush_error_;
  int width_ = 0, height_ = 0;
};

}  // namespace

Result<std::unique_ptr<GrayEngine>> make_cuda_engine(const lab::Backend& backend) {
  int count = 0;
  if (cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess || count == 0) {
    cudaGetLastError();
    return e != cudaSuccess ? cuda::to_status(e, "cudaGetDeviceCount")
                            : Status::failure("no CUDA device found", "use --backend cpu",
                                              "cudaGetDeviceCount", "cudaErrorNoDevice");
  }
  if (backend.cuda_device < 0 || backend.cuda_device >= count)
    return Status::failure("CUDA device " + std::to_string(backend.cuda_device) +
                               " does not exist (" + std::to_string(count) + " found)",
                           "pick a device from 0 to " + std::to_string(count - 1),
                           "make_cuda_engine");
  auto e = std::make_unique<CudaEngine>(backend);
  if (Status s = e->init(); !s) return s;
  return std::unique_ptr<GrayEngine>(std::move(e));
}

}  // namespace bs::gray
