// count_sass through CUPTI's SASS metrics API, in the order its header asks for: the profiler
// initialised, the chip's metric list read and the metrics chosen (line_table.cpp's
// choose_sass_metrics), the configuration set for the device, collection enabled on the context
// with no kernel in flight, one launch, its records flushed, then disabled, unset and
// de-initialised again however it ends (a profiler left initialised keeps PC sampling from
// working later). Every failure is a Status worded by counters/cupti_errors, with the SASS
// metrics' own words where the counters' would mislead.
#include "sampling/sass_metrics.hpp"

#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_profiler_target.h>
#include <cupti_sass_metrics.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string_view>
#include <tuple>

#include "counters/counter_errors.hpp"
#include "counters/cupti_errors.hpp"
#include "counters/cupti_library.hpp"
#include "sampling/pc_sampler.hpp"

namespace bs::sampling {

bool sass_metrics_built() { return true; }

namespace {

// A failed CUPTI call of the SASS metrics, in the user's words. The counters' wording is right
// for permission, another profiler, MIG, vGPU; "not supported" gets the SASS metrics' own.
Status sass_failure(const counters::CuptiApi& api, CUptiResult r, const std::string& call) {
  Status s = counters::status_from_cupti(r, call, api.describe(r));
  if (counters::classify(r) == counters::CounterProblem::UnsupportedDevice)
    s = Status::failure(
        "the driver does not offer CUPTI's SASS metrics (executed instructions per instruction) on "
        "this GPU: they need a Turing or newer GPU and a driver of CUDA 12.4 or later",
        "update the NVIDIA driver; the stall samples per line do not need them", call, s.code);
  else if (r == CUPTI_ERROR_INVALID_OPERATION)
    s = Status::failure("CUPTI refused the SASS metrics' " + call +
                            " (another SASS metrics configuration or profiling session is active in this "
                            "process)",
                        "close the other profiling session (the Measured tab's counters) and profile again", call,
                        s.code);
  return s;
}

#define BS_SASS_TRY(call_expr, name)                                                                          \
  do {                                                                                                        \
    if (const CUptiResult bs_r_ = (call_expr); bs_r_ != CUPTI_SUCCESS) return sass_failure(api, bs_r_, name); \
  } while (0)

// The chip's SASS metric names, or an empty list when it cannot be read (then the names are
// asked for one by one through GetProperties).
std::vector<std::string> chip_metrics(const counters::CuptiApi& api, const char* chip) {
  auto n = BS_CUPTI_PARAMS(CUpti_SassMetrics_GetNumOfMetrics_Params);
  n.pChipName = chip;
  if (api.cuptiSassMetricsGetNumOfMetrics(&n) != CUPTI_SUCCESS || n.numOfMetrics == 0) return {};
  std::vector<CUpti_SassMetrics_MetricDetails> details(n.numOfMetrics);
  auto g = BS_CUPTI_PARAMS(CUpti_SassMetrics_GetMetrics_Params);
  g.pChipName = chip;
  g.numOfMetrics = details.size();
  g.pMetricsList = details.data();
  if (api.cuptiSassMetricsGetMetrics(&g) != CUPTI_SUCCESS) return {};
  std::vector<std::string> names;
  for (const auto& d : details)
    if (d.pMetricName) names.emplace_back(d.pMetricName);
  return names;
}

// CUPTI with the SASS metrics API, or why not.
Result<const counters::CuptiApi*> sass_api(const std::string& library) {
  auto loaded = counters::load_cupti(library);
  if (!loaded) return loaded.status();
  const counters::CuptiApi& api = *loaded.value();
  if (!api.missing_optional.empty())
    return Status::failure(api.path + " has no SASS metrics API (no " + api.missing_optional +
                               "): executed instructions per instruction need CUPTI 12.4 or newer",
                           "install the CUPTI of a newer CUDA toolkit, or point LD_LIBRARY_PATH at it", "dlsym", "");
  return &api;
}

// The undoing of each step, run however count_sass ends, in reverse order.
struct ProfilerInitialized {
  const counters::CuptiApi& api;
  ~ProfilerInitialized() {
    auto p = BS_CUPTI_PARAMS(CUpti_Profiler_DeInitialize_Params);
    api.cuptiProfilerDeInitialize(&p);
  }
};
struct ConfigSet {
  const counters::CuptiApi& api;
  std::uint32_t device;
  ~ConfigSet() {
    auto p = BS_CUPTI_PARAMS(CUpti_SassMetricsUnsetConfig_Params);
    p.deviceIndex = device;
    api.cuptiSassMetricsUnsetConfig(&p);
  }
};
struct CollectionEnabled {
  const counters::CuptiApi& api;
  CUcontext ctx;
  bool done = false;
  std::size_t dropped = 0;
  CUptiResult disable() {
    if (done) return CUPTI_SUCCESS;
    done = true;
    auto p = BS_CUPTI_PARAMS(CUpti_SassMetricsDisable_Params);
    p.ctx = ctx;
    const CUptiResult r = api.cuptiSassMetricsDisable(&p);
    dropped = p.numOfDroppedRecords;
    return r;
  }
  ~CollectionEnabled() { disable(); }
};

// The chip's name, and the metrics chosen from its list.
Status choose_metrics(const counters::CuptiApi& api, int device, RawSass& raw) {
  auto chip_p = BS_CUPTI_PARAMS(CUpti_Device_GetChipName_Params);
  chip_p.deviceIndex = static_cast<std::size_t>(device);
  BS_SASS_TRY(api.cuptiDeviceGetChipName(&chip_p), "cuptiDeviceGetChipName");
  raw.chip = chip_p.pChipName ? chip_p.pChipName : "";

  std::vector<std::string> listed = chip_metrics(api, raw.chip.c_str());
  if (listed.empty())  // no list to choose from: ask for the usual names, GetProperties decides
    listed = {"smsp__sass_inst_executed", "smsp__sass_thread_inst_executed",
              "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
              "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal"};
  raw.metrics = choose_sass_metrics(listed);
  if (raw.metrics.executed.empty())
    return Status::failure("CUPTI lists no smsp__sass_inst_executed for the chip " + raw.chip +
                               ", so executed instructions cannot be counted on it",
                           "update the CUDA toolkit so its CUPTI knows this chip", "cuptiSassMetricsGetMetrics");
  return Status::success();
}

// The metrics' configurations, and for each metric id the count it adds to.
struct MetricConfigs {
  std::map<std::uint64_t, long long SassCounts::*> slot_of;
  std::vector<CUpti_SassMetrics_Config> configs;
};

// Looks up the chosen metrics' ids; an optional metric the chip does not know is dropped from
// raw.metrics (the shared wavefronts and their ideal both or neither).
Result<MetricConfigs> metric_configs(const counters::CuptiApi& api, RawSass& raw) {
  MetricConfigs m;
  auto property = [&](const std::string& name, std::uint64_t* id) -> CUptiResult {
    auto p = BS_CUPTI_PARAMS(CUpti_SassMetrics_GetProperties_Params);
    p.pChipName = raw.chip.c_str();
    p.pMetricName = name.c_str();
    const CUptiResult r = api.cuptiSassMetricsGetProperties(&p);
    if (r == CUPTI_SUCCESS) *id = p.metric.metricId;
    return r;
  };
  auto add = [&](std::uint64_t id, long long SassCounts::*slot) {
    m.slot_of[id] = slot;
    CUpti_SassMetrics_Config c{};
    c.metricId = id;
    c.outputGranularity = CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU;  // one instance: the sum
    m.configs.push_back(c);
  };
  std::uint64_t id = 0;
  BS_SASS_TRY(property(raw.metrics.executed, &id), "cuptiSassMetricsGetProperties");
  add(id, &SassCounts::executed);
  if (!raw.metrics.thread_executed.empty() && property(raw.metrics.thread_executed, &id) == CUPTI_SUCCESS)
    add(id, &SassCounts::thread_executed);
  else raw.metrics.thread_executed.clear();
  std::uint64_t wave = 0, ideal = 0;
  if (!raw.metrics.shared_wavefronts.empty() && property(raw.metrics.shared_wavefronts, &wave) == CUPTI_SUCCESS &&
      property(raw.metrics.shared_ideal, &ideal) == CUPTI_SUCCESS) {
    add(wave, &SassCounts::shared_wavefronts);
    add(ideal, &SassCounts::shared_ideal);
  } else {
    raw.metrics.shared_wavefronts.clear();
    raw.metrics.shared_ideal.clear();
  }
  return m;
}

// Enables collection on `ctx`, lazily if `*lazy` and the driver allows it (then *lazy says
// which way it was enabled).
Status enable_collection(const counters::CuptiApi& api, CUcontext ctx, bool* lazy) {
  auto enable = BS_CUPTI_PARAMS(CUpti_SassMetricsEnable_Params);
  enable.ctx = ctx;
  enable.enableLazyPatching = *lazy ? 1 : 0;
  CUptiResult enabled = api.cuptiSassMetricsEnable(&enable);
  bool retried = false;
  if (enabled != CUPTI_SUCCESS && *lazy &&
      counters::classify(enabled) != counters::CounterProblem::InsufficientPrivileges) {
    // A driver that refuses lazy patching may still patch every loaded function up front.
    retried = true;
    enable.enableLazyPatching = 0;
    if (api.cuptiSassMetricsEnable(&enable) == CUPTI_SUCCESS) {
      enabled = CUPTI_SUCCESS;
      *lazy = false;
    }
  }
  if (enabled != CUPTI_SUCCESS) {
    Status s = sass_failure(api, enabled, "cuptiSassMetricsEnable");
    if (retried) s.message += " (with lazy patching, and again without it)";
    return s;
  }
  return Status::success();
}

// The launch's patched-instruction records, each pointing into `values` (numOfInstances apiece).
struct Flushed {
  std::vector<CUpti_SassMetrics_Data> records;
  std::vector<CUpti_SassMetrics_InstanceValue> values;
  std::size_t instances = 0;
};

Result<Flushed> flush_records(const counters::CuptiApi& api, CUcontext ctx, bool lazy) {
  auto props = BS_CUPTI_PARAMS(CUpti_SassMetricsGetDataProperties_Params);
  props.ctx = ctx;
  BS_SASS_TRY(api.cuptiSassMetricsGetDataProperties(&props), "cuptiSassMetricsGetDataProperties");
  if (props.numOfPatchedInstructionRecords == 0 || props.numOfInstances == 0)
    return Status::failure(
        "CUPTI's SASS metrics counted no instruction of the launch (" +
            std::to_string(props.numOfPatchedInstructionRecords) + " records, " + std::to_string(props.numOfInstances) +
            " instances)",
        std::string("the API counts the first kernel launched after enabling: the launch must be that kernel's "
                    "alone") +
            (lazy ? "; or try BLOCKSCOPE_SASS_LAZY_PATCHING=0" : ""),
        "cuptiSassMetricsGetDataProperties");
  Flushed f;
  f.instances = props.numOfInstances;
  f.records.resize(props.numOfPatchedInstructionRecords);
  f.values.resize(props.numOfPatchedInstructionRecords * props.numOfInstances);
  for (std::size_t i = 0; i < f.records.size(); ++i) {
    f.records[i].structSize = sizeof(CUpti_SassMetrics_Data);
    f.records[i].pInstanceValues = f.values.data() + i * f.instances;
  }
  auto flush = BS_CUPTI_PARAMS(CUpti_SassMetricsFlushData_Params);
  flush.ctx = ctx;
  flush.numOfPatchedInstructionRecords = f.records.size();
  flush.numOfInstances = f.instances;
  flush.pMetricsData = f.records.data();
  BS_SASS_TRY(api.cuptiSassMetricsFlushData(&flush), "cuptiSassMetricsFlushData");
  return f;
}

// Every record and instance of a pc added, whichever way CUPTI lays the metrics out (a record
// per metric, or the metrics as instances of one record): each value names its metric.
std::vector<RawSassPc> counts_per_pc(const Flushed& flushed, const MetricConfigs& m) {
  std::map<std::tuple<std::string, std::uint64_t, std::uint64_t>, SassCounts> per_pc;
  for (const CUpti_SassMetrics_Data& r : flushed.records) {
    // The name's string is CUPTI's (as PC sampling's are): copied, never freed.
    SassCounts& c = per_pc[{r.functionName ? r.functionName : "", r.cubinCrc, r.pcOffset}];
    for (std::size_t k = 0; k < flushed.instances; ++k) {
      const CUpti_SassMetrics_InstanceValue& v = r.pInstanceValues[k];
      if (auto it = m.slot_of.find(v.metricId); it != m.slot_of.end())
        c.*(it->second) += static_cast<long long>(v.value);
    }
  }
  std::vector<RawSassPc> pcs;
  for (auto& [key, counts] : per_pc) {
    RawSassPc pc;
    std::tie(pc.function, pc.cubin_crc, pc.pc_offset) = key;
    pc.counts = counts;
    pcs.push_back(std::move(pc));
  }
  return pcs;
}

}  // namespace

Result<RawSass> count_sass(const std::function<Status()>& launch, const SassOptions& options) {
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
  auto loaded = sass_api(options.cupti_library);
  if (!loaded) return loaded.status();
  const counters::CuptiApi& api = *loaded.value();
  std::lock_guard profiling(counters::profile_lock());

  int device = options.device;
  if (device < 0)
    if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess)
      return Status::failure(std::string("no CUDA device to count instructions on: ") + cudaGetErrorString(e),
                             "run on the CUDA backend", "cudaGetDevice", cudaGetErrorName(e));

  auto init = BS_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params);
  BS_SASS_TRY(api.cuptiProfilerInitialize(&init), "cuptiProfilerInitialize");
  ProfilerInitialized deinit{api};

  RawSass raw;
  if (Status chosen = choose_metrics(api, device, raw); !chosen) return chosen;
  auto metrics = metric_configs(api, raw);
  if (!metrics) return metrics.status();

  auto set = BS_CUPTI_PARAMS(CUpti_SassMetricsSetConfig_Params);
  set.numOfMetricConfig = metrics->configs.size();
  set.pConfigs = metrics->configs.data();
  set.deviceIndex = static_cast<std::uint32_t>(device);
  BS_SASS_TRY(api.cuptiSassMetricsSetConfig(&set), "cuptiSassMetricsSetConfig");
  ConfigSet unset{api, static_cast<std::uint32_t>(device)};

  auto ctx_r = counters::device_context(options.device);
  if (!ctx_r) return ctx_r.status();
  CUcontext ctx = ctx_r.value();
  // CUPTI patches functions only while no kernel is in flight.
  if (const cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess)
    return Status::failure(std::string("the device failed before counting: ") + cudaGetErrorString(e), "",
                           "cudaDeviceSynchronize", cudaGetErrorName(e));

  bool lazy = options.lazy_patching;
  if (const char* env = std::getenv("BLOCKSCOPE_SASS_LAZY_PATCHING"); env && std::string_view(env) == "0") lazy = false;
  if (Status enabled = enable_collection(api, ctx, &lazy); !enabled) return enabled;
  raw.lazy_patching = lazy;
  CollectionEnabled disable{api, ctx};

  if (Status ran = launch(); !ran) return ran;
  if (const cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess)
    return Status::failure(std::string("the counted launch failed: ") + cudaGetErrorString(e), "",
                           "cudaDeviceSynchronize", cudaGetErrorName(e));

  auto flushed = flush_records(api, ctx, lazy);
  if (!flushed) return flushed.status();
  raw.pcs = counts_per_pc(*flushed, *metrics);
  BS_SASS_TRY(disable.disable(), "cuptiSassMetricsDisable");
  raw.dropped_records = static_cast<long long>(disable.dropped);
  raw.elapsed_ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  return raw;
}

void add_sass_metrics(LineProfile& profile, const PcSampler& sampler, const std::function<Status()>& launch,
                      const SassOptions& options) {
  if (Status off = sass_metrics_switch(); !off) {
    profile.sass_status = off;
    return;
  }
  auto raw = count_sass(launch, options);
  if (!raw) {
    profile.sass_status = raw.status();
    return;
  }
  std::string function = profile.function;
  bool found = false;
  for (const RawSassPc& pc : raw->pcs) found = found || pc.function == function;
  if (!found && !function.empty()) {
    profile.sass_status = Status::failure(
        "CUPTI's SASS metrics counted " + busiest_sass_function(raw->pcs) + ", not the sampled " + function,
        "the API counts the first kernel launched after enabling: the launch must be that kernel's alone",
        "cuptiSassMetricsFlushData");
    return;
  }
  if (function.empty()) function = busiest_sass_function(raw->pcs);
  std::uint64_t crc = 0;
  for (const RawSassPc& pc : raw->pcs)
    if (pc.function == function) crc = pc.cubin_crc;
  if (profile.function.empty()) profile.function = function;
  add_sass_counts(profile, raw->pcs, function,
                  [&](std::uint64_t offset) { return sampler.locate(crc, function, offset); });
  profile.sass_has_threads = !raw->metrics.thread_executed.empty();
  profile.sass_has_shared = !raw->metrics.shared_wavefronts.empty();
  profile.sass_ms = raw->elapsed_ms;
  profile.sass_status = Status::success();
}

}  // namespace bs::sampling
