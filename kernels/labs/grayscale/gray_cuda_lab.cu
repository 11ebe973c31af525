// The grayscale lab on a CUDA device: the planar source lives in device memory, launches are
// validated against the device and the kernel's own attributes first, timed with CUDA events,
// and checked with cudaGetLastError after.
#include <algorithm>
#include <vector>

#include "core/median.hpp"
#include "device/device_buffer.hpp"
#include "device/event_timer.hpp"
#include "labs/grayscale/gray_cuda_kernels.cuh"
#include "labs/grayscale/gray_lab.hpp"
#include "trace/trace_buffer.hpp"

namespace bs::gray {
namespace {

using KernelFn = void (*)(GrayArgs);

KernelFn kernel_fn(GrayKernel k) {
  return k == GrayKernel::Flat1D ? gray_1d_flat_kernel : gray_2d_kernel;
}

using TracedFn = void (*)(GrayArgs, trace::DeviceBlockRecord*);
TracedFn traced_fn(GrayKernel k) {
  return k == GrayKernel::Flat1D ? gray_1d_flat_traced : gray_2d_traced;
}

class CudaGrayLab final : public GrayLab {
 public:
  CudaGrayLab(int device, DeviceLimits limits) : device_(device), limits_(std::move(limits)) {
    for (auto& k : gray_kernels()) {
      cudaFuncAttributes a{};
      KernelAttributes& out = attributes_[static_cast<int>(k.id)];
      if (cudaFuncGetAttributes(&a, kernel_fn(k.id)) == cudaSuccess) {
        out.max_threads_per_block = a.maxThreadsPerBlock;
        out.registers_per_thread = a.numRegs;
        out.static_shared_bytes = a.sharedSizeBytes;
        out.local_bytes_per_thread = a.localSizeBytes;
        out.max_dynamic_shared_bytes = a.maxDynamicSharedSizeBytes;
        out.ptx_version = a.ptxVersion;
        out.binary_version = a.binaryVersion;
      } else {
        attribute_error_ = cuda::to_status(cudaGetLastError(), "cudaFuncGetAttributes");
      }
    }
  }

  Status init_status() const { return attribute_error_; }

  BackendKind backend() const override { return BackendKind::Cuda; }
  const DeviceLimits& limits() const override { return limits_; }
  KernelAttributes attributes(GrayKernel k) const override {
    return attributes_[static_cast<int>(k)];
  }

  Status set_image(const std::uint8_t* rgba, int width, int height) override {
    if (!rgba || width <= 0 || height <= 0)
      return Status::failure("empty image", "", "set_image");
    BS_CUDA_TRY(cudaSetDevice(device_));
    const std::size_t n = static_cast<std::size_t>(width) * height;
    std::vector<std::uint8_t> planar(3 * n);
    rgba_to_planar_rgb(rgba, width, height, planar.data());
    // Allocate the new buffers before freeing the old ones: a failure keeps the loaded image.
    auto src = cuda::DeviceBuffer<std::uint8_t>::allocate(3 * n);
    if (!src) return src.status();
    auto dst = cuda::DeviceBuffer<std::uint8_t>::allocate(n);
    if (!dst) return dst.status();
    BS_CUDA_TRY(cudaMemcpy(src->get(), planar.data(), 3 * n, cudaMemcpyHostToDevice));
    BS_CUDA_TRY(cudaMemset(dst->get(), 0, n));
    planar_ = std::move(src.value());
    result_ = std::move(dst.value());
    width_ = width;
    height_ = height;
    return Status::success();
  }
  int width() const override { return width_; }
  int height() const override { return height_; }

  LaunchRecord run(GrayKernel k, Dim3 block, std::uint8_t* out,
                   const GrayRunOptions& options) override {
    const KernelAttributes attrs = attributes(k);
    LaunchRecord rec = begin_gray_launch(k, block, width_, height_, limits_, &attrs);
    rec.backend = BackendKind::Cuda;
    rec.timing.clock = "CUDA events";
    if (!rec.ok()) return rec;
    if (Status s = cuda::to_status(cudaSetDevice(device_), "cudaSetDevice"); !s) {
      rec.status = s;
      return rec;
    }
    const int n = width_ * height_;
    GrayArgs args{planar_.get(), out ? out : result_.get(), width_, height_, n};
    const dim3 grid(rec.config.grid.x, rec.config.grid.y, rec.config.grid.z);
    const dim3 blk(rec.config.block.x, rec.config.block.y, rec.config.block.z);

    std::vector<float> times;
    const int repeats = std::max(1, options.repeats);
    for (int r = 0; r < repeats; ++r) {
      timer_.start();
      kernel_fn(k)<<<grid, blk>>>(args);
      timer_.stop();
      if (Status s = cuda::to_status(cudaGetLastError(), "kernel launch"); !s) {
        rec.status = s;
        return rec;
      }
      auto ms = timer_.elapsed_ms();  // synchronises: execution errors surface here
      if (!ms) {
        rec.status = ms.status();
        return rec;
      }
      times.push_back(ms.value());
    }
    rec.timing.samples_ms.assign(times.begin(), times.end());
    summarize(rec.timing);
    if (options.trace_schedule) {
      // One more launch of the instrumented wrapper (same body, same output), untimed.
      auto buffer = trace::TraceBuffer::allocate(rec.config.grid);
      if (!buffer) {
        rec.status = buffer.status();
        return rec;
      }
      traced_fn(k)<<<grid, blk>>>(args, buffer->records());
      if (Status s = cuda::to_status(cudaGetLastError(), "traced kernel launch"); !s) {
        rec.status = s;
        return rec;
      }
      auto schedule = buffer->collect(limits_.sm_count);
      if (!schedule) {
        rec.status = schedule.status();
        return rec;
      }
      rec.schedule = std::move(schedule.value());
      rec.schedule_simulated = false;
    }
    return rec;
  }

  Status download_result(std::uint8_t* host) override {
    BS_CUDA_TRY(cudaMemcpy(host, result_.get(), result_.bytes(), cudaMemcpyDeviceToHost));
    return Status::success();
  }

 private:
  int device_;
  DeviceLimits limits_;
  KernelAttributes attributes_[2];
  Status attribute_error_;
  cuda::DeviceBuffer<std::uint8_t> planar_, result_;
  cuda::EventTimer timer_;
  int width_ = 0, height_ = 0;
};

}  // namespace

Result<std::unique_ptr<GrayLab>> make_cuda_gray_lab(int device, const DeviceLimits& limits) {
  int count = 0;
  if (cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess || count == 0) {
    cudaGetLastError();
    return e != cudaSuccess ? cuda::to_status(e, "cudaGetDeviceCount")
                            : Status::failure("no CUDA device found", "use --backend cpu",
                                              "cudaGetDeviceCount", "cudaErrorNoDevice");
  }
  if (device < 0 || device >= count)
    return Status::failure("CUDA device " + std::to_string(device) + " does not exist (" +
                               std::to_string(count) + " found)",
                           "pick a device from 0 to " + std::to_string(count - 1),
                           "make_cuda_gray_lab");
  BS_CUDA_TRY(cudaSetDevice(device));
  auto lab = std::make_unique<CudaGrayLab>(device, limits);
  if (Status s = lab->init_status(); !s) return s;
  return std::unique_ptr<GrayLab>(std::move(lab));
}

}  // namespace bs::gray
