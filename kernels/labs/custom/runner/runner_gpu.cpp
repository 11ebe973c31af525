// The GPU backend of blockscope-kernel-runner: NVRTC compiles the unit for this device's exact
// architecture (sm_90a on Hopper: toolchain/nvrtc_target.hpp), the CUDA runtime loads it
// (cudaLibraryLoadData) into this process's own context, and each Launch request is one
// cudaLaunchKernel, timed alone with the project's one event timer (device/event_timer.hpp). The
// L2 flush is the project's one flusher (device/l2_flush.hpp); a flush buffer that cannot be had
// is an error the parent reports, never a timing that claims a cold L2.
//
// Why here and not in blockscope: a kernel that faults poisons the CUDA context it ran in (every
// later call fails), and one that never ends holds the GPU until its process dies. In this process
// both cost only this process; blockscope's own context (its built-in kernels, its GL interop) is
// never touched. NVRTC runs here too, so a compiler crash or hang is also only this process's.
//
// NVRTC is opened with dlopen, not linked (nvrtc_compile.hpp): without it the runner still starts,
// loads kernels that were compiled before, and answers "NVRTC is missing" with what to install.
// CUDA's headers come from the toolkit that NVRTC belongs to, or the one the environment names
// (toolchain/cuda_toolkit.hpp).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "device/event_timer.hpp"
#include "device/l2_flush.hpp"
#include "toolchain/nvrtc_compile.hpp"
#include "toolchain/nvrtc_target.hpp"
#include "labs/custom/runner/runner.hpp"
#include "sampling/pc_sampler.hpp"

namespace bs::custom::runner {
namespace {

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

std::string cuda_error(cudaError_t e) { return std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")"; }

wire::Attr attributes_of(cudaKernel_t k) {
  wire::Attr a;
  cudaFuncAttributes f{};
  if (cudaFuncGetAttributes(&f, reinterpret_cast<const void*>(k)) != cudaSuccess) {
    cudaGetLastError();
    return a;
  }
  a.registers = static_cast<std::uint32_t>(f.numRegs);
  a.max_threads_per_block = static_cast<std::uint32_t>(f.maxThreadsPerBlock);
  a.static_shared = f.sharedSizeBytes;
  a.local_bytes = f.localSizeBytes;
  a.const_bytes = f.constSizeBytes;
  a.ptx_version = f.ptxVersion;
  a.binary_version = f.binaryVersion;
  a.valid = 1;
  return a;
}

class GpuBackend final : public Backend {
 public:
  explicit GpuBackend(int device) : device_(device) {
    const auto t0 = Clock::now();
    info_.head.backend = wire::Backend::Gpu;
    init_cuda();
    nvrtc_ = toolchain::NvrtcLibrary::open();
    if (nvrtc_.ok()) {
      info_.head.nvrtc_ok = 1;
      info_.head.nvrtc_major = nvrtc_.major();
      info_.head.nvrtc_minor = nvrtc_.minor();
      info_.nvrtc_message = nvrtc_.loaded_from();
      // CUDA's headers for the user's #includes: those of the toolkit this NVRTC came from,
      // unless the environment names another (toolchain/cuda_toolkit.hpp).
      headers_ = toolchain::find_cuda_headers(toolchain::cuda_header_inputs_from_environment(nvrtc_.path()));
    } else {
      info_.nvrtc_message = nvrtc_.error();
    }
    info_.head.init_ms = ms_since(t0);
  }
  ~GpuBackend() override {
    free_buffers();
    if (library_) cudaLibraryUnload(library_);
  }

  wire::Info info() override { return info_; }

  wire::Compiled compile_gpu(const std::string& unit) override {
    wire::Compiled c;
    if (!info_.head.cuda_ok) {
      c.log = "no usable CUDA device: " + info_.cuda_message;
      return c;
    }
    if (!info_.head.nvrtc_ok) {
      c.log = info_.nvrtc_message;
      return c;
    }
    const int cc = info_.head.cc_major * 10 + info_.head.cc_minor;
    const toolchain::NvrtcTarget target = toolchain::nvrtc_target(cc, nvrtc_.supported_archs());
    if (!target.ok) {
      c.log = "this NVRTC (" + std::to_string(info_.head.nvrtc_major) + "." + std::to_string(info_.head.nvrtc_minor) +
              ") cannot compile for compute capability " + std::to_string(info_.head.cc_major) + "." +
              std::to_string(info_.head.cc_minor);
      return c;
    }
    toolchain::NvrtcLibrary::Output out = nvrtc_.compile(unit, target, headers_);
    c.arch = std::move(out.arch);
    c.head.is_ptx = out.ptx ? 1 : 0;
    c.head.ok = out.ok ? 1 : 0;
    c.log = std::move(out.log);
    c.image = std::move(out.image);
    c.head.compile_ms = out.ms;
    if (!c.head.ok) return c;

    wire::Loaded l = load_gpu(c.image, c.head.is_ptx);
    c.head.loaded = l.head.ok;
    c.head.load_ms = l.head.load_ms;
    c.head.plain = l.head.plain;
    c.head.traced = l.head.traced;
    c.load_message = l.message;
    return c;
  }

  wire::Loaded load_gpu(const std::string& image, bool is_ptx) override {
    wire::Loaded l;
    if (!info_.head.cuda_ok) {
      l.message = "no usable CUDA device: " + info_.cuda_message;
      return l;
    }
    const auto t0 = Clock::now();
    if (library_) {
      cudaLibraryUnload(library_);
      library_ = nullptr;
    }
    // A PTX image must end with its terminating zero, which std::string keeps after size().
    cudaError_t e = cudaLibraryLoadData(&library_, image.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0);
    if (e == cudaSuccess) e = cudaLibraryGetKernel(&plain_, library_, "bs_entry");
    if (e == cudaSuccess) e = cudaLibraryGetKernel(&traced_, library_, "bs_entry_traced");
    if (e != cudaSuccess) {
      l.message = "cannot load the compiled kernel: " + cuda_error(e);
      cudaGetLastError();
      return l;
    }
    l.head.plain = attributes_of(plain_);
    l.head.traced = attributes_of(traced_);
    l.head.ok = 1;
    image_ = image;
    image_is_ptx_ = is_ptx;
    if (sampler_ && !is_ptx) sampler_->keep_cubin(image_);
    l.head.load_ms = ms_since(t0);
    return l;
  }

  wire::Loaded load_cpu(const std::string&, bool) override {
    wire::Loaded l;
    l.message = "this runner runs kernels on the GPU; it does not load CPU code";
    return l;
  }

  std::string set_problem(const ProblemMaps& maps) override {
    free_buffers();
    outputs_fresh_ = false;
    if (!info_.head.cuda_ok) return "no usable CUDA device: " + info_.cuda_message;
    for (unsigned i = 0; i < maps.head.nbuffers; ++i) {
      const wire::BufferDesc& b = maps.head.buffers[i];
      const std::size_t bytes = static_cast<std::size_t>(b.count) * b.elem_size;
      void* d = nullptr;
      cudaError_t e = cudaMalloc(&d, std::max<std::size_t>(bytes, 1));
      if (e == cudaSuccess && !b.is_output) e = cudaMemcpy(d, maps.buffer(i), bytes, cudaMemcpyHostToDevice);
      if (e != cudaSuccess) {
        if (d) cudaFree(d);
        cudaGetLastError();
        free_buffers();
        return "cannot put the problem on the GPU: " + cuda_error(e);
      }
      buffers_.push_back(d);
    }
    return {};
  }

  wire::Launched launch(const wire::LaunchHead& launch, const ProblemMaps& maps) override {
    wire::Launched result;
    result.clock = "CUDA events";
    if (!plain_) {
      result.message = "no kernel loaded";
      return result;
    }
    if (buffers_.size() != maps.head.nbuffers) {
      result.message = "the problem is not on the GPU";
      return result;
    }
    std::vector<int> ints(maps.head.ints, maps.head.ints + maps.head.nints);
    std::vector<void*> params = parameters(ints);
    const dim3 grid(launch.grid[0], launch.grid[1], launch.grid[2]);
    const dim3 block(launch.block[0], launch.block[1], launch.block[2]);
    auto fail = [&](cudaError_t e, bool fatal, const char* when) {
      result.head.fatal = fatal ? 1 : 0;
      result.code = cudaGetErrorName(e);
      result.message = std::string(when) + ": " + cuda_error(e);
      cudaGetLastError();
      return result;
    };
    // Fresh outputs: before the timer starts, so the launch alone is timed; already done when an
    // L2 flush came just before (it resets them first, so they are not in the L2 either).
    const bool fresh = std::exchange(outputs_fresh_, false);
    if (!fresh)
      if (cudaError_t e = reset_outputs_on_device(maps); e != cudaSuccess)
        return fail(e, cuda::is_sticky(e), "resetting the output failed");

    if (!launch.observe) {
      timer_->start();
      if (cudaError_t e =
              cudaLaunchKernel(reinterpret_cast<const void*>(plain_), grid, block, params.data(), 0, nullptr);
          e != cudaSuccess)
        return fail(e, cuda::is_sticky(e), "the launch was refused");
      timer_->stop();
      auto ms = timer_->elapsed_ms();  // waits for the kernel: a fault shows here
      if (!ms) {                       // a fault: this process's context is gone (the parent starts another runner)
        result.head.fatal = 1;
        result.code = ms.status().code;
        result.message = "the kernel failed: " + ms.status().code + " (" + ms.status().message + ")";
        return result;
      }
      result.head.ms = *ms;
      result.head.ok = 1;
      return result;
    }

    // The observing launch: untimed, the traced entry, whose block recorder gives the real
    // per-SM schedule. The records go back as the device wrote them; blockscope reads them as
    // trace::DeviceBlockRecord (its size is launch.record_bytes; gpu_prelude.cuh's
    // bs_block_record must match it).
    const unsigned long long blocks = static_cast<unsigned long long>(grid.x) * grid.y * grid.z;
    const std::size_t bytes = blocks * std::max<std::uint32_t>(launch.record_bytes, 1);
    void* records = nullptr;
    cudaError_t e = cudaMalloc(&records, bytes);
    if (e == cudaSuccess) e = cudaMemset(records, 0, bytes);
    if (e != cudaSuccess) {
      if (records) cudaFree(records);
      return fail(e, cuda::is_sticky(e), "cannot allocate the trace records");
    }
    std::vector<void*> traced_params = params;
    traced_params.push_back(&records);
    e = cudaLaunchKernel(reinterpret_cast<const void*>(traced_), grid, block, traced_params.data(), 0, nullptr);
    if (e != cudaSuccess) {
      cudaFree(records);
      return fail(e, cuda::is_sticky(e), "the traced launch was refused");
    }
    if ((e = cudaDeviceSynchronize()) != cudaSuccess) return fail(e, true, "the traced kernel failed");
    result.records.resize(bytes);
    e = cudaMemcpy(result.records.data(), records, bytes, cudaMemcpyDeviceToHost);
    cudaFree(records);
    if (e != cudaSuccess) return fail(e, true, "reading the trace records failed");
    result.head.trace_kind = 2;
    result.head.ok = 1;
    return result;
  }

  wire::Lines sample_lines(const wire::SampleLinesHead& request, const std::string&, const ProblemMaps& maps) override {
    wire::Lines out;
    auto fail = [&](Status s) {
      out.profile.status = std::move(s);
      return out;
    };
    if (!plain_) return fail(Status::failure("no kernel loaded"));
    if (buffers_.size() != maps.head.nbuffers) return fail(Status::failure("the problem is not on the GPU"));
    // Made at the first request, not at start: a runner that is never asked loads no CUPTI, and
    // one started under another CUPTI client (Nsight) still runs kernels. The cubin was loaded
    // before, so it is handed over; the sampler keeps those loaded after it on its own.
    if (!sampler_) {
      auto made = sampling::PcSampler::create({});
      if (!made) return fail(made.status());
      sampler_ = std::move(made).value();
      if (!image_is_ptx_) sampler_->keep_cubin(image_);
    }
    std::vector<int> ints(maps.head.ints, maps.head.ints + maps.head.nints);
    std::vector<void*> params = parameters(ints);
    const wire::LaunchHead& h = request.launch;
    const dim3 grid(h.grid[0], h.grid[1], h.grid[2]);
    const dim3 block(h.block[0], h.block[1], h.block[2]);
    auto launch_once = [&]() -> Status {
      // Each launch on fresh outputs, as a timed one; sampled alone (kernel-serialized).
      cudaError_t e = reset_outputs_on_device(maps);
      if (e == cudaSuccess)
        e = cudaLaunchKernel(reinterpret_cast<const void*>(plain_), grid, block, params.data(), 0, nullptr);
      if (e == cudaSuccess) e = cudaDeviceSynchronize();
      if (e != cudaSuccess) {
        out.head.fatal = cuda::is_sticky(e) ? 1 : 0;
        Status s = Status::failure("the kernel failed while it was sampled: " + cuda_error(e), "", "cudaLaunchKernel",
                                   cudaGetErrorName(e));
        cudaGetLastError();
        return s;
      }
      return Status::success();
    };
    sampling::PcSampler::SampleOptions options;
    options.period = request.period;
    options.min_samples = request.min_samples;
    options.max_launches = request.max_launches;
    options.max_seconds = request.max_seconds;
    options.device = device_;
    outputs_fresh_ = false;
    auto got = sampler_->sample(launch_once, options);
    if (!got) return fail(got.status());
    out.profile = std::move(got).value();
    if (image_is_ptx_ && out.profile.lines_status.ok())
      out.profile.lines_status = Status::failure(
          "the kernel was compiled to PTX (this NVRTC does not know the GPU) and the driver's cubin of it "
          "is not at hand, so its source lines are unknown",
          "use an NVRTC that knows this GPU's architecture");
    out.profile.device = info_.device_name;
    return out;
  }

  std::string flush_l2(const ProblemMaps& maps) override {
    if (!info_.head.cuda_ok) return "no usable CUDA device: " + info_.cuda_message;
    if (buffers_.size() != maps.head.nbuffers) return "the problem is not on the GPU";
    outputs_fresh_ = false;
    if (cudaError_t e = reset_outputs_on_device(maps); e != cudaSuccess) {
      cudaGetLastError();
      return "resetting the output before the flush failed: " + cuda_error(e);
    }
    if (!flusher_) {
      auto f = cuda::L2Flusher::create(device_);
      if (!f)
        return "no L2 flush buffer (twice the " + std::to_string(info_.head.l2_bytes >> 20) +
               " MiB L2): " + f.status().describe();
      flusher_.emplace(std::move(f.value()));
    }
    if (Status s = flusher_->flush(); !s) return s.describe();
    outputs_fresh_ = true;
    return {};
  }

  std::string fetch(const ProblemMaps& maps) override {
    for (unsigned i = 0; i < maps.head.nbuffers; ++i) {
      const wire::BufferDesc& b = maps.head.buffers[i];
      if (!b.is_output) continue;
      if (cudaError_t e = cudaMemcpy(maps.buffer(i), buffers_[i], static_cast<std::size_t>(b.count) * b.elem_size,
                                     cudaMemcpyDeviceToHost);
          e != cudaSuccess) {
        cudaGetLastError();
        return "copying the result back failed: " + cuda_error(e);
      }
    }
    return {};
  }

  // ProfileCounters (issue 32): the Measured tab's counters of one launch of the plain entry, read
  // by kernels/counters' CounterSession in this process (made for the request, so a runner never
  // asked loads no CUPTI, and released after it). Each pass of
  // the profile is exactly one cudaLaunchKernel, as the session requires: the outputs are reset
  // once before the profile, not per pass (a reset is a launch of its own).
  wire::Counters profile_counters(const wire::ProfileCountersHead& request, const std::string& cupti_library,
                                  const ProblemMaps& maps) override {
    wire::Counters out;
    auto fail = [&](Status s) {
      out.status = std::move(s);
      return out;
    };
    if (!info_.head.cuda_ok) return fail(Status::failure("no usable CUDA device: " + info_.cuda_message));
    if (!plain_) return fail(Status::failure("no kernel loaded"));
    if (buffers_.size() != maps.head.nbuffers) return fail(Status::failure("the problem is not on the GPU"));
    // One CUPTI client at a time in this process: PC sampling gathers nothing while a range
    // profiler session exists (shell/measured_tab.hpp), so the sampler goes (the next SampleLines
    // makes it again) and the session lives for this profile only.
    sampler_.reset();
    counters::CounterOptions o;
    o.stall_reasons = request.stall_reasons != 0;
    o.throughput = request.throughput != 0;
    o.cupti_library = cupti_library;
    auto session = counters::CounterSession::create(device_, o);
    if (!session) return fail(session.status());
    std::vector<int> ints(maps.head.ints, maps.head.ints + maps.head.nints);
    std::vector<void*> params = parameters(ints);
    const wire::LaunchHead& h = request.launch;
    const dim3 grid(h.grid[0], h.grid[1], h.grid[2]);
    const dim3 block(h.block[0], h.block[1], h.block[2]);
    outputs_fresh_ = false;
    cudaError_t reset = reset_outputs_on_device(maps);
    if (reset == cudaSuccess) reset = cudaDeviceSynchronize();
    if (reset != cudaSuccess) {
      out.head.fatal = cuda::is_sticky(reset) ? 1 : 0;
      cudaGetLastError();
      return fail(Status::failure("resetting the outputs before the profile failed: " + cuda_error(reset)));
    }
    auto launch_once = [&]() -> Status {
      cudaError_t e = cudaLaunchKernel(reinterpret_cast<const void*>(plain_), grid, block, params.data(), 0, nullptr);
      if (e != cudaSuccess) {
        out.head.fatal = cuda::is_sticky(e) ? 1 : 0;
        Status s = Status::failure("the kernel failed while it was profiled: " + cuda_error(e), "", "cudaLaunchKernel",
                                   cudaGetErrorName(e));
        cudaGetLastError();
        return s;
      }
      return Status::success();
    };
    counters::ProfileOptions po;
    po.flush_l2 = request.flush_l2 != 0;
    po.eviction = request.eviction == 1 ? counters::L2Eviction::Read : counters::L2Eviction::ReadAndDiscard;
    auto m = (*session)->profile(launch_once, po);
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess && cuda::is_sticky(e)) out.head.fatal = 1;
    if (!m) return fail(m.status());
    out.measurement = std::move(m).value();
    if (out.measurement.device.empty()) out.measurement.device = info_.device_name;
    out.head.ok = 1;
    return out;
  }

 private:
  // The kernel's arguments: a pointer to each buffer's device pointer, then to each integer.
  std::vector<void*> parameters(std::vector<int>& ints) {
    std::vector<void*> params;
    for (std::size_t i = 0; i < buffers_.size(); ++i) params.push_back(&buffers_[i]);
    for (int& v : ints) params.push_back(&v);
    return params;
  }

  // Every output back to its fill byte (before each launch: an element no thread writes shows).
  cudaError_t reset_outputs_on_device(const ProblemMaps& maps) {
    for (unsigned i = 0; i < maps.head.nbuffers; ++i) {
      const wire::BufferDesc& b = maps.head.buffers[i];
      if (!b.is_output) continue;
      if (cudaError_t e = cudaMemsetAsync(buffers_[i], b.fill, static_cast<std::size_t>(b.count) * b.elem_size);
          e != cudaSuccess)
        return e;
    }
    return cudaSuccess;
  }

  void init_cuda() {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
      info_.cuda_message = e != cudaSuccess ? "cudaGetDeviceCount says " + cuda_error(e)
                                            : std::string("cudaGetDeviceCount found no device");
      cudaGetLastError();
      return;
    }
    if (device_ < 0 || device_ >= count) {
      info_.cuda_message = "no CUDA device " + std::to_string(device_);
      return;
    }
    e = cudaSetDevice(device_);
    if (e == cudaSuccess) e = cudaFree(nullptr);  // create the context now, not at first run
    cudaDeviceProp p{};
    if (e == cudaSuccess) e = cudaGetDeviceProperties(&p, device_);
    if (e != cudaSuccess) {
      info_.cuda_message = "cannot use CUDA device " + std::to_string(device_) + ": " + cuda_error(e);
      cudaGetLastError();
      return;
    }
    wire::InfoHead& h = info_.head;
    h.cuda_ok = 1;
    timer_.emplace();
    info_.device_name = p.name;
    h.cc_major = p.major;
    h.cc_minor = p.minor;
    h.sm_count = static_cast<std::uint32_t>(p.multiProcessorCount);
    h.max_threads_per_block = static_cast<std::uint32_t>(p.maxThreadsPerBlock);
    for (int i = 0; i < 3; ++i) {
      h.max_block[i] = static_cast<std::uint32_t>(p.maxThreadsDim[i]);
      h.max_grid[i] = static_cast<std::uint32_t>(p.maxGridSize[i]);
    }
    h.shared_per_block = p.sharedMemPerBlock;
    h.shared_per_block_optin = p.sharedMemPerBlockOptin;
    h.shared_per_sm = p.sharedMemPerMultiprocessor;
    h.reserved_shared_per_block = p.reservedSharedMemPerBlock;
    h.regs_per_block = static_cast<std::uint32_t>(p.regsPerBlock);
    h.regs_per_sm = static_cast<std::uint32_t>(p.regsPerMultiprocessor);
    h.max_threads_per_sm = static_cast<std::uint32_t>(p.maxThreadsPerMultiProcessor);
    h.max_blocks_per_sm = static_cast<std::uint32_t>(p.maxBlocksPerMultiProcessor);
    h.warp_size = static_cast<std::uint32_t>(p.warpSize);
    h.l2_bytes = static_cast<std::uint64_t>(p.l2CacheSize);
    h.total_global_bytes = p.totalGlobalMem;
    int clock = 0, mem_clock = 0, bus = 0;
    cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, device_);
    cudaDeviceGetAttribute(&mem_clock, cudaDevAttrMemoryClockRate, device_);
    cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, device_);
    h.clock_khz = clock;
    h.memory_clock_khz = mem_clock;
    h.memory_bus_bits = bus;
    cudaRuntimeGetVersion(&h.runtime_version);
    cudaDriverGetVersion(&h.driver_version);
  }

  void free_buffers() {
    for (void* d : buffers_) cudaFree(d);
    buffers_.clear();
  }

  int device_;
  wire::Info info_;
  toolchain::NvrtcLibrary nvrtc_;
  toolchain::CudaHeaderSearch headers_;
  cudaLibrary_t library_ = nullptr;
  cudaKernel_t plain_ = nullptr, traced_ = nullptr;
  std::vector<void*> buffers_;
  std::optional<cuda::EventTimer> timer_;   // made once the device's context is (init_cuda)
  std::optional<cuda::L2Flusher> flusher_;  // made on the first flush
  bool outputs_fresh_ = false;              // the last flush reset the outputs
  std::string image_;                       // what load_gpu loaded (the sampler needs the cubin)
  bool image_is_ptx_ = false;
  std::unique_ptr<sampling::PcSampler> sampler_;  // made at the first SampleLines
};

}  // namespace

std::unique_ptr<Backend> make_gpu_backend(int device) { return std::make_unique<GpuBackend>(device); }

}  // namespace bs::custom::runner
