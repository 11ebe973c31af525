// CounterSession over CUPTI's range profiler (CUDA 12.6+ API): user replay, the kernel as the
// range.
//
// Sections:
//   1. process-wide state: CUPTI's profiler initialisation count and the profile lock
//   2. helpers: CUPTI call -> Status, the current CUcontext, device support flags, and
//      RangeProfiler (one enabled range profiler: configuration, passes, decoding)
//   3. create(): load CUPTI, check the device, counter availability, build the configuration
//   4. profile(): one pass per launch until CUPTI has every counter, then decode and evaluate
//
// The sequence follows CUPTI's documentation of the range profiler: host object from the chip
// name and the counter availability image, config image from the metric names, then on the
// target Enable -> counter data image -> SetConfig -> { Start, launch, Stop } until Stop reports
// every pass submitted -> DecodeData -> EvaluateToGpuValues -> Disable.
//
// Ranges: with CUPTI's auto range the kernel itself is the range, so the duration and the shares
// of peak over elapsed time are the kernel's own (a user range opened before the launch also
// holds the launch latency: 50 to 300 us more than ncu for a 50 us kernel, seen on an H200).
// Should a driver refuse auto ranges with user replay, the session falls back to a user range
// (PushRange and PopRange around the launch) and says so in range_note().
#include <cuda.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <utility>

#include "core/timing.hpp"
#include "counters/counters.hpp"
#include "counters/cupti_errors.hpp"
#include "counters/cupti_library.hpp"
#include "counters/l2_evict.hpp"
#include "counters/metrics.hpp"
#include "device/cuda_status.hpp"
#include "device/device_buffer.hpp"

namespace bs::counters {

// ---- 1. process-wide state -----------------------------------------------------------------
namespace {

// CUPTI's profiler is initialised per process, not per caller: count the sessions using each
// loaded library and de-initialise when the last one ends.
struct ProfilerUsers {
  std::mutex mutex;
  std::map<const CuptiApi*, int> users;
};
ProfilerUsers& profiler_users() {
  static ProfilerUsers u;
  return u;
}

// ---- 2. helpers ----------------------------------------------------------------------------
#define BS_CUPTI_TRY(api, call_expr, name)                                         \
  do {                                                                             \
    if (const CUptiResult bs_cupti_r_ = (call_expr); bs_cupti_r_ != CUPTI_SUCCESS) \
      return status_from_cupti(bs_cupti_r_, name, (api).describe(bs_cupti_r_));    \
  } while (0)

// The first reason cuptiProfilerDeviceSupported gives for refusing the device.
Status device_support(const CuptiApi& api, int device) {
  auto p = BS_CUPTI_PARAMS(CUpti_Profiler_DeviceSupported_Params);
  p.cuDevice = device;
  p.api = CUPTI_PROFILER_RANGE_PROFILING;
  BS_CUPTI_TRY(api, api.cuptiProfilerDeviceSupported(&p), "cuptiProfilerDeviceSupported");
  if (p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return Status::success();
  const auto refused = [](CUpti_Profiler_Support_Level l) {
    return l == CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED || l == CUPTI_PROFILER_CONFIGURATION_DISABLED;
  };
  const char* call = "cuptiProfilerDeviceSupported";
  if (refused(p.vGpu)) return explain(CounterProblem::VirtualizedDevice, call, "vGpu");
  if (refused(p.confidentialCompute)) return explain(CounterProblem::ConfidentialCompute, call, "confidentialCompute");
  if (refused(p.cmp)) return explain(CounterProblem::MiningProcessor, call, "cmp");
  if (refused(p.sli)) return explain(CounterProblem::Sli, call, "sli");
  if (refused(p.wsl)) return explain(CounterProblem::Wsl, call, "wsl");
  if (refused(p.architecture)) return explain(CounterProblem::UnsupportedDevice, call, "architecture");
  return explain(CounterProblem::UnsupportedDevice, call, "isSupported");
}

}  // namespace

// An enabled range profiler. close_pass() ends whatever of Start and PushRange is still open
// (after a failed pass); the destructor does that and disables the profiler. Outside the
// anonymous namespace: CounterSession::Impl (which has linkage) holds one.
class RangeProfiler {
 public:
  explicit RangeProfiler(const CuptiApi& api) : api_(api) {}
  ~RangeProfiler() {
    close_pass();
    if (!object_) return;
    auto p = on_object(BS_CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params));
    api_.cuptiRangeProfilerDisable(&p);
  }
  RangeProfiler(const RangeProfiler&) = delete;
  RangeProfiler& operator=(const RangeProfiler&) = delete;

  Status enable(CUcontext ctx) {
    auto p = BS_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params);
    p.ctx = ctx;
    BS_CUPTI_TRY(api_, api_.cuptiRangeProfilerEnable(&p), "cuptiRangeProfilerEnable");
    object_ = p.pRangeProfilerObject;
    return Status::success();
  }

  void close_pass() {
    if (!object_) return;
    if (pushed_) {
      auto p = on_object(BS_CUPTI_PARAMS(CUpti_RangeProfiler_PopRange_Params));
      api_.cuptiRangeProfilerPopRange(&p);
      pushed_ = false;
    }
    if (started_) {
      auto p = on_object(BS_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params));
      api_.cuptiRangeProfilerStop(&p);
      started_ = false;
    }
  }

  // A fresh counter data image for one range, and the configuration for `range` with user
  // replay (we call the launch again for every pass).
  Status configure(const std::vector<const char*>& metrics, const std::vector<std::uint8_t>& config,
                   CUpti_ProfilerRange range, std::vector<std::uint8_t>& data) {
    auto sz = on_object(BS_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params));
    sz.pMetricNames = const_cast<const char**>(metrics.data());
    sz.numMetrics = metrics.size();
    sz.maxNumOfRanges = 1;
    sz.maxNumRangeTreeNodes = 1;
    BS_CUPTI_TRY(api_, api_.cuptiRangeProfilerGetCounterDataSize(&sz), "cuptiRangeProfilerGetCounterDataSize");
    data.assign(sz.counterDataSize, 0);
    auto init = on_object(BS_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params));
    init.counterDataSize = data.size();
    init.pCounterData = data.data();
    BS_CUPTI_TRY(api_, api_.cuptiRangeProfilerCounterDataImageInitialize(&init),
                 "cuptiRangeProfilerCounterDataImageInitialize");

    auto c = on_object(BS_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params));
    c.configSize = config.size();
    c.pConfig = config.data();
    c.counterDataImageSize = data.size();
    c.pCounterDataImage = data.data();
    c.range = range;
    c.replayMode = CUPTI_UserReplay;
    c.maxRangesPerPass = 1;
    c.numNestingLevels = 1;
    c.minNestingLevel = 1;
    c.passIndex = 0;
    c.targetNestingLevel = 1;
    BS_CUPTI_TRY(api_, api_.cuptiRangeProfilerSetConfig(&c), "cuptiRangeProfilerSetConfig");
    user_range_ = range == CUPTI_UserRange;
    return Status::success();
  }

  Status start_pass() {
    auto s = on_object(BS_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params));
    BS_CUPTI_TRY(api_, api_.cuptiRangeProfilerStart(&s), "cuptiRangeProfilerStart");
    started_ = true;
    if (!user_range_) return Status::success();  // auto range: the kernel is the range
    static const char kRange[] = "blockscope launch";
    auto p = on_object(BS_CUPTI_PARAMS(CUpti_RangeProfiler_PushRange_Params));
    p.pRangeName = kRange;
    BS_CUPTI_TRY(api_, api_.cuptiRangeProfilerPushRange(&p), "cuptiRangeProfilerPushRange");
    pushed_ = true;
    return Status::success();
  }

  // Ends the pass; `all_submitted` says whether CUPTI has scheduled every pass.
  Status end_pass(bool& all_submitted) {
    if (pushed_) {
      auto p = on_object(BS_CUPTI_PARAMS(CUpti_RangeProfiler_PopRange_Params));
      pushed_ = false;
      BS_CUPTI_TRY(api_, api_.cuptiRangeProfilerPopRange(&p), "cuptiRangeProfilerPopRange");
    }
    auto s = on_object(BS_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params));
    started_ = false;
    BS_CUPTI_TRY(api_, api_.cuptiRangeProfilerStop(&s), "cuptiRangeProfilerStop");
    all_submitted = s.isAllPassSubmitted != 0;
    return Status::success();
  }

  Status decode() {
    auto d = on_object(BS_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params));
    BS_CUPTI_TRY(api_, api_.cuptiRangeProfilerDecodeData(&d), "cuptiRangeProfilerDecodeData");
    if (d.numOfRangeDropped > 0)
      return Status::failure("CUPTI dropped " + std::to_string(d.numOfRangeDropped) +
                                 " profiled range(s): was more than one kernel launched per pass?",
                             "the callback must enqueue exactly one kernel launch", "cuptiRangeProfilerDecodeData");
    return Status::success();
  }

 private:
  // The parameter struct `p` for this profiler's object.
  template <class P>
  P on_object(P p) const {
    p.pRangeProfilerObject = object_;
    return p;
  }

  const CuptiApi& api_;
  CUpti_RangeProfiler_Object* object_ = nullptr;
  bool user_range_ = true;
  bool started_ = false, pushed_ = false;
};

struct CounterSession::Impl {
  int device = 0;
  const CuptiApi* api = nullptr;
  bool profiler_initialised = false;
  std::string chip, device_name;
  std::size_t l2_bytes = 0;
  std::vector<std::uint8_t> availability;
  CUpti_Profiler_Host_Object* host = nullptr;
  std::vector<std::string> metrics;
  std::vector<const char*> metric_ptrs;
  std::vector<std::uint8_t> config;
  int passes = 0;
  cuda::DeviceBuffer<unsigned char> scratch;  // for evict_l2, allocated at the first profile
  bool keep_enabled = false;
  std::unique_ptr<RangeProfiler> kept;  // the enabled profiler, when kept between profiles
  // Kernel ranges (auto) give the kernel's own duration, as ncu reports it; user ranges are the
  // fallback where the driver refuses auto ranges with user replay.
  CUpti_ProfilerRange range_mode = CUPTI_AutoRange;
  std::string range_note;

  ~Impl() {
    kept.reset();  // disable before the host object and the profiler go
    if (host) {
      auto p = BS_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
      p.pHostObject = host;
      api->cuptiProfilerHostDeinitialize(&p);
    }
    if (profiler_initialised) {
      auto& u = profiler_users();
      std::lock_guard lock(u.mutex);
      if (--u.users[api] == 0) {
        auto p = BS_CUPTI_PARAMS(CUpti_Profiler_DeInitialize_Params);
        api->cuptiProfilerDeInitialize(&p);
      }
    }
  }

  Status initialise_profiler() {
    auto& u = profiler_users();
    std::lock_guard lock(u.mutex);
    if (u.users[api] == 0) {
      auto p = BS_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params);
      BS_CUPTI_TRY(*api, api->cuptiProfilerInitialize(&p), "cuptiProfilerInitialize");
    }
    ++u.users[api];
    profiler_initialised = true;
    return Status::success();
  }

  Status read_chip_and_availability(CUcontext ctx) {
    auto chip_p = BS_CUPTI_PARAMS(CUpti_Device_GetChipName_Params);
    chip_p.deviceIndex = static_cast<std::size_t>(device);
    BS_CUPTI_TRY(*api, api->cuptiDeviceGetChipName(&chip_p), "cuptiDeviceGetChipName");
    chip = chip_p.pChipName ? chip_p.pChipName : "";

    // The first call that needs profiling permission: a user the driver does not allow to
    // profile learns it here, before anything runs.
    auto a = BS_CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params);
    a.ctx = ctx;
    BS_CUPTI_TRY(*api, api->cuptiProfilerGetCounterAvailability(&a), "cuptiProfilerGetCounterAvailability");
    availability.assign(a.counterAvailabilityImageSize, 0);
    a.pCounterAvailabilityImage = availability.data();
    BS_CUPTI_TRY(*api, api->cuptiProfilerGetCounterAvailability(&a), "cuptiProfilerGetCounterAvailability");
    return Status::success();
  }

  Status build_configuration(const CounterOptions& options) {
    auto h = BS_CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params);
    h.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    h.pChipName = chip.c_str();
    h.pCounterAvailabilityImage = availability.data();
    BS_CUPTI_TRY(*api, api->cuptiProfilerHostInitialize(&h), "cuptiProfilerHostInitialize");
    host = h.pHostObject;

    std::vector<std::string> bases;
    for (CUpti_MetricType t : {CUPTI_METRIC_TYPE_COUNTER, CUPTI_METRIC_TYPE_RATIO, CUPTI_METRIC_TYPE_THROUGHPUT}) {
      auto b = BS_CUPTI_PARAMS(CUpti_Profiler_Host_GetBaseMetrics_Params);
      b.pHostObject = host;
      b.metricType = t;
      BS_CUPTI_TRY(*api, api->cuptiProfilerHostGetBaseMetrics(&b), "cuptiProfilerHostGetBaseMetrics");
      for (std::size_t i = 0; i < b.numMetrics; ++i)
        if (b.ppMetricNames[i]) bases.emplace_back(b.ppMetricNames[i]);
    }
    metrics = choose_metrics(bases, options.stall_reasons, options.throughput);
    if (metrics.empty())
      return explain(CounterProblem::UnsupportedDevice, "cuptiProfilerHostGetBaseMetrics", "",
                     "chip " + chip + " offers none of the metrics blockscope reads");
    for (const auto& m : metrics) metric_ptrs.push_back(m.c_str());

    auto add = BS_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
    add.pHostObject = host;
    add.ppMetricNames = metric_ptrs.data();
    add.numMetrics = metric_ptrs.size();
    BS_CUPTI_TRY(*api, api->cuptiProfilerHostConfigAddMetrics(&add), "cuptiProfilerHostConfigAddMetrics");

    auto sz = BS_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
    sz.pHostObject = host;
    BS_CUPTI_TRY(*api, api->cuptiProfilerHostGetConfigImageSize(&sz), "cuptiProfilerHostGetConfigImageSize");
    config.assign(sz.configImageSize, 0);
    auto img = BS_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
    img.pHostObject = host;
    img.configImageSize = config.size();
    img.pConfigImage = config.data();
    BS_CUPTI_TRY(*api, api->cuptiProfilerHostGetConfigImage(&img), "cuptiProfilerHostGetConfigImage");

    auto np = BS_CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params);
    np.configImageSize = config.size();
    np.pConfigImage = config.data();
    BS_CUPTI_TRY(*api, api->cuptiProfilerHostGetNumOfPasses(&np), "cuptiProfilerHostGetNumOfPasses");
    passes = static_cast<int>(np.numOfPasses);
    return Status::success();
  }

  Result<Measurement> run_profile(const std::function<Status()>& launch_once, const ProfileOptions& options);
  Result<Measurement> run_once(const std::function<Status()>& launch_once, const ProfileOptions& options,
                               bool& cupti_failed);
};

// ---- 3. create -----------------------------------------------------------------------------
Result<std::unique_ptr<CounterSession>> CounterSession::create(int device, const CounterOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->device = device;
  auto api = load_cupti(options.cupti_library);
  if (!api) return api.status();
  impl->api = *api;

  BS_CUDA_TRY(cudaSetDevice(device));
  cudaDeviceProp prop{};
  BS_CUDA_TRY(cudaGetDeviceProperties(&prop, device));
  impl->device_name = prop.name;
  impl->l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
  auto ctx = current_context();
  if (!ctx) return ctx.status();

  if (Status s = impl->initialise_profiler(); !s) return s;
  if (Status s = device_support(*impl->api, device); !s) return s;
  if (Status s = impl->read_chip_and_availability(*ctx); !s) return s;
  if (Status s = impl->build_configuration(options); !s) return s;
  impl->keep_enabled = options.keep_enabled;
  return std::unique_ptr<CounterSession>(new CounterSession(std::move(impl)));
}

CounterSession::CounterSession(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CounterSession::~CounterSession() = default;
const std::vector<std::string>& CounterSession::metric_names() const { return impl_->metrics; }
int CounterSession::passes_per_profile() const { return impl_->passes; }
const std::string& CounterSession::chip() const { return impl_->chip; }
const std::string& CounterSession::cupti_path() const { return impl_->api->path; }
const std::string& CounterSession::range_note() const { return impl_->range_note; }

Result<Measurement> CounterSession::profile(const std::function<Status()>& launch_once, const ProfileOptions& options) {
  std::lock_guard lock(profile_lock());
  return impl_->run_profile(launch_once, options);
}

// ---- 4. profile ----------------------------------------------------------------------------
namespace {
// Refusals that a user range would meet as well: no reason to fall back for them.
bool refused_by_environment(const Status& s) {
  for (const char* code :
       {"CUPTI_ERROR_INSUFFICIENT_PRIVILEGES", "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED",
        "CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED", "CUPTI_ERROR_HARDWARE_BUSY",
        "CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED", "CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES"})
    if (s.code == code) return true;
  return false;
}
}  // namespace

Result<Measurement> CounterSession::Impl::run_profile(const std::function<Status()>& launch_once,
                                                      const ProfileOptions& options) {
  bool cupti_failed = false;
  auto m = run_once(launch_once, options, cupti_failed);
  if (!m) kept.reset();  // a kept profiler may be mid-pass after a failure: start afresh next time
  if (!m && cupti_failed && range_mode == CUPTI_AutoRange && !refused_by_environment(m.status())) {
    // Once per session: say why, then measure with a user range around the launch instead.
    range_note = "kernel ranges refused (" + m.status().describe() + "); using user ranges";
    range_mode = CUPTI_UserRange;
    m = run_once(launch_once, options, cupti_failed);
    if (!m) {  // not the auto range's fault after all: keep trying kernel ranges next time
      kept.reset();
      range_mode = CUPTI_AutoRange;
      range_note.clear();
    }
  }
  return m;
}

Result<Measurement> CounterSession::Impl::run_once(const std::function<Status()>& launch_once,
                                                   const ProfileOptions& options, bool& cupti_failed) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  cupti_failed = false;
  const auto from_cupti = [&](Status s) {
    cupti_failed = true;
    return s;
  };
  BS_CUDA_TRY(cudaSetDevice(device));
  auto ctx = current_context();
  if (!ctx) return ctx.status();
  // Work already queued must not run inside the first pass's range.
  BS_CUDA_TRY(cudaDeviceSynchronize());

  if (options.flush_l2 && !scratch.get() && l2_bytes > 0) {
    auto buf = cuda::DeviceBuffer<unsigned char>::allocate(2 * l2_bytes);
    if (!buf) return buf.status();
    scratch = std::move(buf.value());
    BS_CUDA_TRY(cudaMemset(scratch.get(), 0x5a, scratch.size()));
  }

  ProfileCost cost;
  std::unique_ptr<RangeProfiler> local;
  RangeProfiler* rp = kept.get();
  if (!rp) {
    auto t = Clock::now();
    local = std::make_unique<RangeProfiler>(*api);
    if (Status s = local->enable(*ctx); !s) return from_cupti(std::move(s));
    cost.enable_ms = ms_since(t);
    rp = local.get();
  }

  std::vector<std::uint8_t> data;
  int launched = 0;
  {
    auto t = Clock::now();
    if (Status s = rp->configure(metric_ptrs, config, range_mode, data); !s) return from_cupti(std::move(s));
    cost.configure_ms = ms_since(t);
  }
  {
    auto t = Clock::now();
    // CUPTI decides the number of passes; the planned count plus a margin stops a runaway loop.
    for (bool all_submitted = false; !all_submitted;) {
      if (launched > passes + 8)
        return Status::failure("CUPTI asked for more passes than it planned (" + std::to_string(passes) + ")",
                               "report this with the GPU and driver version", "cuptiRangeProfilerStop");
      if (options.flush_l2 && scratch.get())
        if (Status s = evict_l2(scratch.get(), scratch.size(), options.eviction); !s) return s;
      if (Status s = rp->start_pass(); !s) return from_cupti(std::move(s));
      Status launched_ok = launch_once();
      if (launched_ok.ok()) launched_ok = cuda::to_status(cudaGetLastError(), "the launch callback");
      if (!launched_ok) {
        rp->close_pass();
        return launched_ok;
      }
      ++launched;
      if (Status s = rp->end_pass(all_submitted); !s) return from_cupti(std::move(s));
      BS_CUDA_TRY(cudaDeviceSynchronize());
    }
    cost.passes_ms = ms_since(t);
  }
  {
    auto t = Clock::now();
    if (Status s = rp->decode(); !s) return from_cupti(std::move(s));
    cost.decode_ms = ms_since(t);
  }

  auto t_eval = Clock::now();
  auto info = BS_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
  info.pCounterDataImage = data.data();
  info.counterDataImageSize = data.size();
  cupti_failed = true;
  BS_CUPTI_TRY(*api, api->cuptiRangeProfilerGetCounterDataInfo(&info), "cuptiRangeProfilerGetCounterDataInfo");
  if (info.numTotalRanges != 1)
    return Status::failure("the profile holds " + std::to_string(info.numTotalRanges) +
                               " ranges instead of one: did the callback launch exactly one kernel?",
                           "the callback must enqueue exactly one kernel launch on this device",
                           "cuptiRangeProfilerGetCounterDataInfo");

  std::vector<double> values(metric_ptrs.size(), std::nan(""));
  auto ev = BS_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
  ev.pHostObject = host;
  ev.pCounterDataImage = data.data();
  ev.counterDataImageSize = data.size();
  ev.rangeIndex = 0;
  ev.ppMetricNames = metric_ptrs.data();
  ev.numMetrics = metric_ptrs.size();
  ev.pMetricValues = values.data();
  BS_CUPTI_TRY(*api, api->cuptiProfilerHostEvaluateToGpuValues(&ev), "cuptiProfilerHostEvaluateToGpuValues");
  cupti_failed = false;
  cost.evaluate_ms = ms_since(t_eval);

  if (local && keep_enabled) {
    kept = std::move(local);  // enabled once, kept for the next profiles
  } else if (local) {
    auto t = Clock::now();
    local.reset();
    cost.disable_ms = ms_since(t);
  }

  Measurement m = assemble(metrics, values);
  m.chip = chip;
  m.device = device_name;
  m.passes = launched;
  m.cost = cost;
  m.range = range_mode == CUPTI_AutoRange ? "kernel" : "user";
  m.wall_ms = ms_since(t0);
  return m;
}

bool counters_built() { return true; }
Status gpu_feature_status() { return explain(CounterProblem::GpuFeature, "counters"); }

}  // namespace bs::counters
