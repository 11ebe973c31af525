// Stall samples of a launch, per SASS instruction and per source line, through CUPTI's PC
// sampling (issue 22). CUDA build only for the sampling itself; pc_sampler_none.cpp answers why
// not elsewhere.
//
//   auto sampler = sampling::PcSampler::create();       // before the first launch of the kernels
//   ...                                                  // (it keeps the cubins modules load)
//   auto profile = (*sampler)->sample([&] { return launch_once(); }, {});
//
// Why create it early: samples name a pc offset and the CRC of the cubin it belongs to, and
// only the cubin's line table turns that offset into a source line. CUPTI hands a module's cubin
// over once, in the callback for the module being loaded (with lazy loading: at the first launch
// of one of its kernels). A sampler created later still samples, and says that the source lines
// of modules loaded before it are unknown.
//
// One sample() at a time in the process (counters::profile_lock, shared with the range
// profiler). The launch callback runs on the caller's thread, whose current CUDA context is the
// one sampled; it must enqueue exactly the launch to look at and wait for it.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "core/line_profile.hpp"
#include "core/status.hpp"
#include "sampling/line_table.hpp"

namespace bs::sampling {

// Whether this build samples (a CUDA build with CUPTI's headers).
bool pc_sampling_built();

// What sampling gathered before any source line is known: the records of every pc sampled.
struct RawSamples {
  std::vector<RawPc> pcs;
  long long dropped_samples = 0;
  long long launches = 0;
  int sampling_period = 0;
  double elapsed_ms = 0;
};

class PcSampler {
 public:
  struct Options {
    std::string cupti_library;  // empty: the usual search (counters::load_cupti)
  };
  static Result<std::unique_ptr<PcSampler>> create(const Options& options);
  ~PcSampler();
  PcSampler(const PcSampler&) = delete;
  PcSampler& operator=(const PcSampler&) = delete;

  struct SampleOptions : LineSampling {
    int device = -1;           // >= 0: this CUDA device is made current on the calling thread
                               // first (a worker thread has none of its own)
    bool sass_metrics = true;  // sample() then calls `launch` once more with CUPTI's SASS
                               // metrics (sass_metrics.hpp): executed instructions and shared
                               // wavefronts per instruction; LineProfile::sass_status says
                               // why not where they are unavailable
  };
  // Samples launches of `launch` and builds the tables of the function with the most samples.
  Result<LineProfile> sample(const std::function<Status()>& launch, const SampleOptions& options);
  // The samples alone, without source lines.
  Result<RawSamples> sample_raw(const std::function<Status()>& launch, const SampleOptions& options);

  // Cubins kept so far (modules loaded since create(), and those handed over).
  std::size_t cubins_kept() const;
  // Hands over a cubin the caller holds itself, so samples of its functions find their source
  // lines although it was loaded before this sampler existed (the kernel runner's NVRTC output).
  void keep_cubin(std::string cubin);

  // The source line of `pc_offset` of `function` in the kept cubin whose CRC is `cubin_crc` (the
  // SASS metrics give 32 bits of it: a kept cubin whose CRC's low 32 bits match is taken); line
  // 0 when that cubin is not kept or has no line table. PC samples and SASS counts both go
  // through it, so they land on the same lines.
  SourceLocation locate(std::uint64_t cubin_crc, const std::string& function, std::uint64_t pc_offset) const;
  // Whether a cubin of that CRC is kept.
  bool has_cubin(std::uint64_t cubin_crc) const;
  // The CUPTI library the sampler was made with ("" the usual search).
  const std::string& cupti_library() const;

  struct Impl;

 private:
  explicit PcSampler(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The process's sampler, or why there is none. CUPTI takes one subscriber per process, so the
// window, a headless run or a bench makes one at its start and every tab that samples shares it.
struct SamplerHandle {
  std::shared_ptr<PcSampler> sampler;
  Status problem = Status::failure("no PC sampler was set up", "restart blockscope on the CUDA backend");
};

// Makes the process's sampler, unless `wanted` is false (the CPU backend was asked for: nothing
// will be sampled) or the environment says BLOCKSCOPE_PC_SAMPLING=0 (to run blockscope under
// another CUPTI client such as Nsight Systems without a second subscriber).
SamplerHandle keep_cubins(bool wanted, const std::string& cupti_library);

}  // namespace bs::sampling
