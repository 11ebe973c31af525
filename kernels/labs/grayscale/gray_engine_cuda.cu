// The grayscale lab on a CUDA device: the RGBA source, the planar one (made from it on the
// device) and the reference live in device memory; launches are timed with CUDA events and
// checked with cudaGetLastError; the output is compared with the reference on the device (one
// pass over 2n bytes, a few atomics), so even an 8192 x 8192 result is verified every frame
// without a download. Only a wrong result is copied back, to name its first wrong pixels exactly.
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "device/cuda_status.hpp"
#include "device/device_buffer.hpp"
#include "device/device_limits.hpp"
#include "device/event_timer.hpp"
#include "device/l2_flush.hpp"
#include "labs/grayscale/gray_engine.hpp"
#include "labs/grayscale/gray_ladder_cuda.hpp"
#include "trace/trace_buffer.hpp"

namespace bs::gray {
namespace {

struct CompareCounters {
  unsigned long long mismatches;
  unsigned int worst;
  unsigned int pad;
};

// Counts the bytes of out that differ from ref by more than `tolerance`, and the largest
// difference.
__global__ void compare_kernel(const std::uint8_t* out, const std::uint8_t* ref, long long n, int tolerance,
                               CompareCounters* counters) {
  unsigned long long mism = 0;
  unsigned int worst = 0;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int d = abs(static_cast<int>(out[i]) - static_cast<int>(ref[i]));
    worst = max(worst, static_cast<unsigned int>(d));
    mism += d > tolerance;
  }
  if (mism) atomicAdd(&counters->mismatches, mism);
  if (worst) atomicMax(&counters->worst, worst);
}

// The planar source from the RGBA one, on the device: the host makes and uploads only RGBA.
__global__ void planar_from_rgba(const uchar4* rgba, std::uint8_t* planar, long long n) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const uchar4 p = rgba[i];
    planar[i] = p.x, planar[i + n] = p.y, planar[i + 2 * n] = p.z;
  }
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
    return Status::success();
  }

  Result<KernelAttributes> attributes(const GrayRung& rung, GrayLayout l, bool* measured) override {
    *measured = true;
    return gray_rung_attributes(rung, l);
  }

  Result<std::pair<int, int>> suggested_block(const GrayRung& rung, GrayLayout l) override {
    BS_CUDA_TRY(cudaSetDevice(backend_.cuda_device));
    return gray_rung_suggested_block(rung, l);
  }

  bool makes_planar() const override { return true; }
  Status upload(SharedBytes, SharedBytes rgba, SharedBytes reference, int width, int height) override {
    BS_CUDA_TRY(cudaSetDevice(backend_.cuda_device));
    const std::size_t n = static_cast<std::size_t>(width) * height;
    // Allocate everything before freeing the old buffers: a failure keeps the loaded image.
    auto src = cuda::DeviceBuffer<std::uint8_t>::allocate(3 * n);
    if (!src) return src.status();
    auto src4 = cuda::DeviceBuffer<std::uint8_t>::allocate(4 * n);
    if (!src4) return src4.status();
    auto ref = cuda::DeviceBuffer<std::uint8_t>::allocate(n);
    if (!ref) return ref.status();
    auto dst = cuda::DeviceBuffer<std::uint8_t>::allocate(n);
    if (!dst) return dst.status();
    BS_CUDA_TRY(cudaMemcpy(src4->get(), rgba->data(), 4 * n, cudaMemcpyHostToDevice));
    const auto blocks = static_cast<unsigned>(
        std::min<long long>(8 * backend_.limits.sm_count + 1, static_cast<long long>(n + 255) / 256));
    planar_from_rgba<<<blocks, 256>>>(reinterpret_cast<const uchar4*>(src4->get()), src->get(),
                                      static_cast<long long>(n));
    BS_CUDA_TRY(cudaGetLastError());
    BS_CUDA_TRY(cudaMemcpy(ref->get(), reference->data(), n, cudaMemcpyHostToDevice));
    BS_CUDA_TRY(cudaMemset(dst->get(), 0, n));
    BS_CUDA_TRY(cudaDeviceSynchronize());  // the planar copy's faults surface here, not in a later launch
    planar_ = std::move(src.value());
    rgba_ = std::move(src4.value());
    reference_ = std::move(ref.value());
    result_ = std::move(dst.value());
    width_ = width;
    height_ = height;
    return Status::success();
  }

  GrayArgs args(std::uint8_t* out) const override {
    return GrayArgs{planar_.get(), out, width_, height_, width_ * height_, rgba_.get()};
  }

  std::uint8_t* own_output() override { return result_.get(); }
  Status download(std::uint8_t* host) override {
    BS_CUDA_TRY(cudaMemcpy(host, result_.get(), result_.bytes(), cudaMemcpyDeviceToHost));
    return Status::success();
  }

  Result<double> launch_timed(const GrayRung& rung, GrayLayout l, const LaunchConfig& c, const GrayArgs& a) override {
    BS_CUDA_TRY(cudaSetDevice(backend_.cuda_device));
    timer_.start();
    const Status launched = launch_gray_rung(rung, l, c, a, nullptr, nullptr);
    timer_.stop();
    if (!launched) return launched;
    auto ms = timer_.elapsed_ms();  // synchronises: execution errors surface here
    if (!ms) return ms.status();
    return static_cast<double>(ms.value());
  }

  Result<std::vector<BlockTrace>> launch_traced(const GrayRung& rung, GrayLayout l, const LaunchConfig& c,
                                                const GrayArgs& a) override {
    if (!rung.body) return Status::failure("a library kernel's blocks are not ours to trace", "", "launch_traced");
    auto buffer = trace::TraceBuffer::allocate(c.grid);
    if (!buffer) return buffer.status();
    if (Status s = launch_gray_rung(rung, l, c, a, buffer->records(), nullptr); !s) return s;
    return buffer->collect(backend_.limits.sm_count);
  }

  Result<double> copy_timed(std::size_t bytes) override {
    BS_CUDA_TRY(cudaSetDevice(backend_.cuda_device));
    if (bytes == 0 || bytes > rgba_.bytes())
      return Status::failure("the copy ceiling needs a loaded image", "", "copy_timed");
    if (copy_.bytes() < bytes) {
      auto b = cuda::DeviceBuffer<std::uint8_t>::allocate(bytes);
      if (!b) return b.status();
      copy_ = std::move(b.value());
    }
    timer_.start();
    const cudaError_t e = cudaMemcpyAsync(copy_.get(), rgba_.get(), bytes, cudaMemcpyDeviceToDevice);
    timer_.stop();
    if (e != cudaSuccess) return cuda::to_status(e, "cudaMemcpyAsync");
    auto ms = timer_.elapsed_ms();
    if (!ms) return ms.status();
    return static_cast<double>(ms.value());
  }

  Check verify_copy(std::size_t bytes) override {
    Check c;
    c.against = "its source";
    c.measure = "bytes that differ";
    c.limit = 0;
    CompareCounters host{};
    if (bytes > copy_.bytes()) {
      c.note = "nothing was copied";
      return c;
    }
    if (Status s = compare_on_device(copy_.get(), rgba_.get(), static_cast<long long>(bytes), 0, &host); !s) {
      c.note = s.describe();
      return c;
    }
    c.checked = bytes;
    c.worst = host.worst;
    c.mismatches = host.mismatches;
    c.state = host.mismatches == 0 ? Check::State::Passed : Check::State::Failed;
    return c;
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
    CompareCounters host{};
    if (Status s = compare_on_device(out, reference_.get(), n, 1, &host); !s) return fail(s);
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
  Status compare_on_device(const std::uint8_t* out, const std::uint8_t* ref, long long n, int tolerance,
                           CompareCounters* host) {
    if (cudaError_t e = cudaMemsetAsync(counters_.get(), 0, sizeof(CompareCounters)); e != cudaSuccess)
      return cuda::to_status(e, "cudaMemsetAsync");
    const unsigned blocks =
        static_cast<unsigned>(std::min<long long>(4 * backend_.limits.sm_count + 1, (n + 255) / 256));
    compare_kernel<<<std::max(1u, blocks), 256>>>(out, ref, n, tolerance, counters_.get());
    if (cudaError_t e = cudaMemcpy(host, counters_.get(), sizeof *host, cudaMemcpyDeviceToHost); e != cudaSuccess) {
      cudaGetLastError();
      return cuda::to_status(e, "compare on the GPU");
    }
    return Status::success();
  }

  lab::Backend backend_;
  cuda::DeviceBuffer<std::uint8_t> planar_, rgba_, reference_, result_, copy_;
  cuda::DeviceBuffer<CompareCounters> counters_;
  cuda::EventTimer timer_;
  cuda::L2Flusher flusher_;
  Status flush_error_;
  int width_ = 0, height_ = 0;
};

}  // namespace

Result<std::unique_ptr<GrayEngine>> make_cuda_engine(const lab::Backend& backend) {
  if (Status exists = cuda::device_exists(backend.cuda_device); !exists) return exists;
  auto e = std::make_unique<CudaEngine>(backend);
  if (Status s = e->init(); !s) return s;
  return std::unique_ptr<GrayEngine>(std::move(e));
}

}  // namespace bs::gray
