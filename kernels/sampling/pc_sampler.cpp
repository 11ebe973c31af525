// PcSampler through CUPTI: a resource callback keeps every cubin loaded; sample() enables PC
// sampling on the current context, starts and stops it around each launch (kernel-serialized
// collection, so only that launch's warps are in the samples), reads the parsed records, and
// correlates the busiest function's pcs with source lines through the cubin's line table.
#include "sampling/pc_sampler.hpp"

#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_pcsampling.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "counters/cupti_errors.hpp"
#include "counters/cupti_library.hpp"
#include "sampling/line_table.hpp"
#include "sampling/sass_metrics.hpp"

namespace bs::sampling {

bool pc_sampling_built() { return true; }

#define BS_SAMPLING_TRY(call_expr, name)                                            \
  do {                                                                              \
    if (const CUptiResult bs_r_ = (call_expr); bs_r_ != CUPTI_SUCCESS)              \
      return counters::status_from_cupti(bs_r_, name, impl_->api->describe(bs_r_)); \
  } while (0)

struct PcSampler::Impl {
  const counters::CuptiApi* api = nullptr;
  CUpti_SubscriberHandle subscriber = nullptr;
  mutable std::mutex mutex;  // the callback runs on whichever thread loads a module
  struct Cubin {
    std::string bytes;
    std::uint64_t crc = 0;
    bool crc_known = false;
  };
  std::vector<Cubin> cubins;
  std::string cupti_library;

  static void CUPTIAPI on_callback(void* user, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
    if (domain != CUPTI_CB_DOMAIN_RESOURCE || id != CUPTI_CBID_RESOURCE_MODULE_LOADED || !data) return;
    const auto* resource = static_cast<const CUpti_ResourceData*>(data);
    const auto* module = static_cast<const CUpti_ModuleResourceData*>(resource->resourceDescriptor);
    if (!module || !module->pCubin || module->cubinSize == 0) return;
    auto* self = static_cast<Impl*>(user);
    std::lock_guard lock(self->mutex);
    self->cubins.push_back({std::string(module->pCubin, module->cubinSize), 0, false});
  }

  // The kept cubin CUPTI's CRC names, or null.
  const std::string* find(std::uint64_t crc) {
    std::lock_guard lock(mutex);
    for (Cubin& c : cubins) {
      if (!c.crc_known) {
        auto p = BS_CUPTI_SIZED(CUpti_GetCubinCrcParams);
        p.cubin = c.bytes.data();
        p.cubinSize = c.bytes.size();
        if (api->cuptiGetCubinCrc(&p) == CUPTI_SUCCESS) c.crc = p.cubinCrc;
        c.crc_known = true;
      }
      if (c.crc == crc) return &c.bytes;
    }
    // The SASS metrics' records carry the CRC in 32 bits.
    if (crc <= 0xffffffffull)
      for (Cubin& c : cubins)
        if ((c.crc & 0xffffffffull) == crc) return &c.bytes;
    return nullptr;
  }
};

Result<std::unique_ptr<PcSampler>> PcSampler::create(const Options& options) {
  auto api = counters::load_cupti(options.cupti_library);
  if (!api) return api.status();
  auto impl = std::make_unique<Impl>();
  impl->api = api.value();
  impl->cupti_library = options.cupti_library;
  if (const CUptiResult r = impl->api->cuptiSubscribe(&impl->subscriber, &Impl::on_callback, impl.get());
      r != CUPTI_SUCCESS)
    return counters::status_from_cupti(r, "cuptiSubscribe", impl->api->describe(r));
  if (const CUptiResult r = impl->api->cuptiEnableCallback(1, impl->subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                                                           CUPTI_CBID_RESOURCE_MODULE_LOADED);
      r != CUPTI_SUCCESS) {
    impl->api->cuptiUnsubscribe(impl->subscriber);
    return counters::status_from_cupti(r, "cuptiEnableCallback", impl->api->describe(r));
  }
  return std::unique_ptr<PcSampler>(new PcSampler(std::move(impl)));
}

PcSampler::PcSampler(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

PcSampler::~PcSampler() {
  if (impl_ && impl_->subscriber) impl_->api->cuptiUnsubscribe(impl_->subscriber);
}

std::size_t PcSampler::cubins_kept() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->cubins.size();
}

void PcSampler::keep_cubin(std::string cubin) {
  std::lock_guard lock(impl_->mutex);
  impl_->cubins.push_back({std::move(cubin), 0, false});
}

const std::string& PcSampler::cupti_library() const { return impl_->cupti_library; }

namespace {

// The parsed-format buffer CUPTI fills: `pcs` records, each with room for every stall reason.
// The records' function names are CUPTI's: it hands the same pointer to every record of a
// function, in this sampling and in later ones of the same function (two block shapes of one
// kernel), so a name freed here would be freed again there. They are never freed: one short
// string per function sampled, for the life of the process.
class PcBuffer {
 public:
  PcBuffer(std::size_t pcs, std::size_t reasons) : records_(pcs), reasons_(pcs * reasons) {
    for (std::size_t i = 0; i < pcs; ++i) {
      records_[i].size = sizeof(CUpti_PCSamplingPCData);
      records_[i].stallReason = reasons_.data() + i * reasons;
    }
    data_.size = sizeof(CUpti_PCSamplingData);
    data_.collectNumPcs = pcs;
    data_.pPcData = records_.data();
  }
  PcBuffer(const PcBuffer&) = delete;
  PcBuffer& operator=(const PcBuffer&) = delete;
  CUpti_PCSamplingData* data() { return &data_; }

 private:
  std::vector<CUpti_PCSamplingPCData> records_;
  std::vector<CUpti_PCSamplingStallReason> reasons_;
  CUpti_PCSamplingData data_{};
};

}  // namespace

Result<RawSamples> PcSampler::sample_raw(const std::function<Status()>& launch, const SampleOptions& options) {
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
  const counters::CuptiApi& api = *impl_->api;
  std::lock_guard profiling(counters::profile_lock());
  auto ctx_r = counters::device_context(options.device);
  if (!ctx_r) return ctx_r.status();
  CUcontext ctx = ctx_r.value();

  auto enable = BS_CUPTI_SIZED(CUpti_PCSamplingEnableParams);
  enable.ctx = ctx;
  BS_SAMPLING_TRY(api.cuptiPCSamplingEnable(&enable), "cuptiPCSamplingEnable");
  // Disabled again however this returns, so the launches after it run unsampled.
  struct Disable {
    const counters::CuptiApi& api;
    CUcontext ctx;
    ~Disable() {
      auto p = BS_CUPTI_SIZED(CUpti_PCSamplingDisableParams);
      p.ctx = ctx;
      api.cuptiPCSamplingDisable(&p);
    }
  } disable{api, ctx};

  std::size_t n_reasons = 0;
  auto num = BS_CUPTI_SIZED(CUpti_PCSamplingGetNumStallReasonsParams);
  num.ctx = ctx;
  num.numStallReasons = &n_reasons;
  BS_SAMPLING_TRY(api.cuptiPCSamplingGetNumStallReasons(&num), "cuptiPCSamplingGetNumStallReasons");
  std::vector<std::vector<char>> names(n_reasons, std::vector<char>(CUPTI_STALL_REASON_STRING_SIZE, 0));
  std::vector<char*> name_ptrs;
  for (auto& n : names) name_ptrs.push_back(n.data());
  std::vector<std::uint32_t> indexes(n_reasons, 0);
  auto reasons = BS_CUPTI_SIZED(CUpti_PCSamplingGetStallReasonsParams);
  reasons.ctx = ctx;
  reasons.numStallReasons = n_reasons;
  reasons.stallReasonIndex = indexes.data();
  reasons.stallReasons = name_ptrs.data();
  BS_SAMPLING_TRY(api.cuptiPCSamplingGetStallReasons(&reasons), "cuptiPCSamplingGetStallReasons");
  std::map<std::uint32_t, std::string> reason_name;
  for (std::size_t i = 0; i < n_reasons; ++i) reason_name[indexes[i]] = names[i].data();

  // A kernel of blockscope's ladder has at most a few thousand instructions; 8192 records hold
  // every pc of one range, and GetData is called again while CUPTI has more.
  constexpr std::size_t kPcs = 8192;
  PcBuffer flushed(kPcs, n_reasons);  // where CUPTI puts records it must flush on its own
  PcBuffer buffer(kPcs, n_reasons);
  std::vector<CUpti_PCSamplingConfigurationInfo> config(5);
  config[0].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL;
  config[0].attributeData.enableStartStopControlData.enableStartStopControl = 1;
  config[1].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE;
  config[1].attributeData.collectionModeData.collectionMode = CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED;
  config[2].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT;
  config[2].attributeData.outputDataFormatData.outputDataFormat = CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED;
  config[3].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER;
  config[3].attributeData.samplingDataBufferData.samplingDataBuffer = flushed.data();
  config[4].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE;
  config[4].attributeData.scratchBufferSizeData.scratchBufferSize = std::size_t{64} << 20;
  if (options.period >= 5 && options.period <= 31) {
    CUpti_PCSamplingConfigurationInfo p{};
    p.attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD;
    p.attributeData.samplingPeriodData.samplingPeriod = static_cast<std::uint32_t>(options.period);
    config.push_back(p);
  }
  auto set = BS_CUPTI_SIZED(CUpti_PCSamplingConfigurationInfoParams);
  set.ctx = ctx;
  set.numAttributes = config.size();
  set.pPCSamplingConfigurationInfo = config.data();
  BS_SAMPLING_TRY(api.cuptiPCSamplingSetConfigurationAttribute(&set), "cuptiPCSamplingSetConfigurationAttribute");
  // The period in force (CUPTI picks one from the SM count when none is asked for).
  int period_in_force = options.period;
  {
    CUpti_PCSamplingConfigurationInfo q{};
    q.attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD;
    auto get = BS_CUPTI_SIZED(CUpti_PCSamplingConfigurationInfoParams);
    get.ctx = ctx;
    get.numAttributes = 1;
    get.pPCSamplingConfigurationInfo = &q;
    if (api.cuptiPCSamplingGetConfigurationAttribute(&get) == CUPTI_SUCCESS && q.attributeStatus == CUPTI_SUCCESS)
      period_in_force = static_cast<int>(q.attributeData.samplingPeriodData.samplingPeriod);
  }

  RawSamples raw;
  raw.sampling_period = period_in_force;
  std::vector<RawPc>& pcs = raw.pcs;
  auto take = [&](CUpti_PCSamplingData* d) {
    raw.dropped_samples += static_cast<long long>(d->droppedSamples);
    for (std::size_t i = 0; i < d->totalNumPcs; ++i) {
      const CUpti_PCSamplingPCData& r = d->pPcData[i];
      RawPc pc;
      pc.function = r.functionName ? r.functionName : "";
      pc.cubin_crc = r.cubinCrc;
      pc.pc_offset = r.pcOffset;
      for (std::size_t k = 0; k < r.stallReasonCount; ++k) {
        auto it = reason_name.find(r.stallReason[k].pcSamplingStallReasonIndex);
        pc.stalls.push_back({it == reason_name.end()
                                 ? "reason " + std::to_string(r.stallReason[k].pcSamplingStallReasonIndex)
                                 : it->second,
                             static_cast<long long>(r.stallReason[k].samples)});
      }
      pcs.push_back(std::move(pc));
    }
  };
  long long sampled = 0;
  for (;;) {
    auto start = BS_CUPTI_SIZED(CUpti_PCSamplingStartParams);
    start.ctx = ctx;
    BS_SAMPLING_TRY(api.cuptiPCSamplingStart(&start), "cuptiPCSamplingStart");
    const Status ran = launch();
    auto stop = BS_CUPTI_SIZED(CUpti_PCSamplingStopParams);
    stop.ctx = ctx;
    BS_SAMPLING_TRY(api.cuptiPCSamplingStop(&stop), "cuptiPCSamplingStop");
    if (!ran) return ran;
    ++raw.launches;
    do {
      auto get = BS_CUPTI_SIZED(CUpti_PCSamplingGetDataParams);
      get.ctx = ctx;
      get.pcSamplingData = buffer.data();
      BS_SAMPLING_TRY(api.cuptiPCSamplingGetData(&get), "cuptiPCSamplingGetData");
      sampled += static_cast<long long>(buffer.data()->totalSamples);
      take(buffer.data());
    } while (buffer.data()->remainingNumPcs > 0);
    if (flushed.data()->totalNumPcs > 0) {  // records CUPTI flushed on its own (a module unloaded)
      take(flushed.data());
      flushed.data()->totalNumPcs = 0;
    }
    const double elapsed = std::chrono::duration<double>(Clock::now() - started).count();
    if (sampled >= options.min_samples || raw.launches >= options.max_launches || elapsed >= options.max_seconds) break;
  }

  raw.elapsed_ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  return raw;
}

namespace {

// The source line of one pc through the cubin's line table (CUPTI's SASS-to-source correlation).
SourceLocation correlate(const counters::CuptiApi& api, const std::string& cubin, const std::string& function,
                         std::uint64_t offset) {
  auto c = BS_CUPTI_SIZED(CUpti_GetSassToSourceCorrelationParams);
  c.cubin = cubin.data();
  c.cubinSize = cubin.size();
  c.functionName = function.c_str();
  c.pcOffset = offset;
  if (api.cuptiGetSassToSourceCorrelation(&c) != CUPTI_SUCCESS) return {};
  SourceLocation where;
  where.line = static_cast<int>(c.lineNumber);
  if (c.fileName) where.file = c.fileName;
  if (c.dirName && where.file.size() && where.file.front() != '/')
    where.file = std::string(c.dirName) + "/" + where.file;
  std::free(c.fileName);
  std::free(c.dirName);
  return where;
}

// The tables of the busiest function of `raw`, its lines from `cubin` (null: unknown, `why`).
Result<LineProfile> tables(const counters::CuptiApi& api, const RawSamples& raw, const std::string* cubin,
                           const Status& why_no_cubin) {
  const std::string function = busiest_function(raw.pcs);
  if (function.empty())
    return Status::failure("PC sampling collected no samples of the launch",
                           "a launch shorter than the sampling period gives none: try a larger "
                           "problem; and while a range profiler session (hardware counters) "
                           "exists in the process, CUPTI gathers none",
                           "cuptiPCSamplingGetData");
  LineProfile profile;
  profile.sampling_period = raw.sampling_period;
  profile.dropped_samples = raw.dropped_samples;
  profile.launches = raw.launches;
  if (!cubin) profile.lines_status = why_no_cubin;
  fill_tables(profile, raw.pcs, function, [&](std::uint64_t offset) -> SourceLocation {
    return cubin ? correlate(api, *cubin, function, offset) : SourceLocation{};
  });
  profile.profile_ms = raw.elapsed_ms;
  return profile;
}

}  // namespace

SourceLocation PcSampler::locate(std::uint64_t cubin_crc, const std::string& function, std::uint64_t pc_offset) const {
  const std::string* cubin = impl_->find(cubin_crc);
  return cubin ? correlate(*impl_->api, *cubin, function, pc_offset) : SourceLocation{};
}

bool PcSampler::has_cubin(std::uint64_t cubin_crc) const { return impl_->find(cubin_crc) != nullptr; }

Result<LineProfile> PcSampler::sample(const std::function<Status()>& launch, const SampleOptions& options) {
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
  auto raw = sample_raw(launch, options);
  if (!raw) return raw.status();
  std::uint64_t crc = 0;
  const std::string function = busiest_function(raw->pcs);
  for (const RawPc& pc : raw->pcs)
    if (pc.function == function) crc = pc.cubin_crc;
  auto p = tables(*impl_->api, *raw, impl_->find(crc),
                  Status::failure("the kernel's cubin was loaded before sampling was set up, so its source lines "
                                  "are unknown",
                                  "start blockscope with the CUDA backend so the sampler is created before the "
                                  "first launch"));
  if (p && options.sass_metrics)  // one more launch, counted (its own status; the samples stay)
    add_sass_metrics(*p, *this, launch,
                     {.cupti_library = impl_->cupti_library, .device = options.device, .lazy_patching = true});
  if (p) p->profile_ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  return p;
}

}  // namespace bs::sampling
