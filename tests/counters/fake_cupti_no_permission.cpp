// A stand-in libcupti for the test of what a user without profiling permission sees. The test
// machines run as root, where the driver never refuses, so this library answers the first call
// that needs permission (the counter availability image) as the driver answers anyone else:
// CUPTI_ERROR_INSUFFICIENT_PRIVILEGES. Everything before it succeeds, everything after it is
// never reached (and says not supported). Loaded by the test through CounterOptions::cupti_library,
// the same option a user has for choosing a CUPTI; nothing of it is in blockscope itself.
// Keep its entry points in step with BS_CUPTI_ENTRIES in kernels/counters/cupti_library.hpp:
// the loader refuses a library that lacks one.
#include <cupti.h>
#include <cupti_pcsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include <cstring>

extern "C" {

CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult, const char** s) {
  *s = "fake CUPTI: insufficient privileges";
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiProfilerInitialize(CUpti_Profiler_Initialize_Params*) { return CUPTI_SUCCESS; }

CUptiResult CUPTIAPI cuptiProfilerDeInitialize(CUpti_Profiler_DeInitialize_Params*) { return CUPTI_SUCCESS; }

CUptiResult CUPTIAPI cuptiProfilerDeviceSupported(CUpti_Profiler_DeviceSupported_Params* p) {
  p->isSupported = CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiProfilerGetCounterAvailability(CUpti_Profiler_GetCounterAvailability_Params*) {
  return CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;  // what the driver answers a non-admin user
}

CUptiResult CUPTIAPI cuptiDeviceGetChipName(CUpti_Device_GetChipName_Params* p) {
  p->pChipName = "GH100";
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiProfilerHostInitialize(CUpti_Profiler_Host_Initialize_Params*) {
  return CUPTI_ERROR_NOT_SUPPORTED;
}

CUptiResult CUPTIAPI cuptiProfilerHostDeinitialize(CUpti_Profiler_Host_Deinitialize_Params*) {
  return CUPTI_ERROR_NOT_SUPPORTED;
}

CUptiResult CUPTIAPI cuptiProfilerHostGetBaseMetrics(CUpti_Profiler_Host_GetBaseMetrics_Params*) {
  return CUPTI_ERROR_NOT_SUPPORTED;
}

CUptiResult CUPTIAPI cuptiProfilerHostConfigAddMetrics(CUpti_Profiler_Host_ConfigAddMetrics_Params*) {
  return CUPTI_ERROR_NOT_SUPPORTED;
}

CUptiResult CUPTIAPI cuptiProfilerHostGetConfigImageSize(CUpti_Profiler_Host_GetConfigImageSize_Params*) {
  return CUPTI_ERROR_NOT_SUPPORTED;
}

CUptiResult CUPTIAPI cuptiProfilerHostGetConfigImage(CUpti_Profiler_Host_GetConfigImage_Params*) {
  return CUPTI_ERROR_NOT_SUPPORTED;
}

CUptiResult CUPTIAPI cuptiProfilerHostGetNumOfPasses(CUpti_Profiler_Host_GetNumOfPasses_Params*) {
  return CUPTI_ERROR_NOT_SUPPORTED;
}

CUptiResult CUPTIAPI cuptiProfilerHostEvaluateToGpuValues(CUpti_Profiler_Host_EvaluateToGpuValues_Params*) {
  return CUPTI_ERROR_NOT_SUPPORTED;
}

CUptiResult CUPTIAPI cuptiRangeProfilerEnable(CUpti_RangeProfiler_Enable_Params*) { return CUPTI_ERROR_NOT_SUPPORTED; }

CUptiResult CUPTIAPI cuptiRangeProfilerDisable(CUpti_RangeProfiler_Disable_Params*) {
  return CUPTI_ERROR_NOT_SUPPORTED;
}

CUptiResult CUPTIAPI cuptiRangeProfilerGetCounterDataSize(CUpti_RangeProfiler_GetCounterDataSize_Params*) {
  return CUPTI_ERROR_NOT_SUPPORTED;
}

CUptiResult CUPTIAPI
cuptiRangeProfilerCounterDataImageInitialize(CUpti_RangeProfiler_CounterDataImage_Initialize_Params*) {
  return CUPTI_ERROR_NOT_SUPPORTED;
}

CUptiResult CUPTIAPI cuptiRangeProfilerSetConfig(CUpti_RangeProfiler_SetConfig_Params*) {
  return CUPTI_ERROR_NOT_SUPPORTED;
}

CUptiResult CUPTIAPI cuptiRangeProfilerStart(CUpti_RangeProfiler_Start_Params*) { return CUPTI_ERROR_NOT_SUPPORTED; }

CUptiResult CUPTIAPI cuptiRangeProfilerStop(CUpti_RangeProfiler_Stop_Params*) { return CUPTI_ERROR_NOT_SUPPORTED; }

CUptiResult CUPTIAPI cuptiRangeProfilerPushRange(CUpti_RangeProfiler_PushRange_Params*) {
  return CUPTI_ERROR_NOT_SUPPORTED;
}

CUptiResult CUPTIAPI cuptiRangeProfilerPopRange(CUpti_RangeProfiler_PopRange_Params*) {
  return CUPTI_ERROR_NOT_SUPPORTED;
}

CUptiResult CUPTIAPI cuptiRangeProfilerDecodeData(CUpti_RangeProfiler_DecodeData_Params*) {
  return CUPTI_ERROR_NOT_SUPPORTED;
}

CUptiResult CUPTIAPI cuptiRangeProfilerGetCounterDataInfo(CUpti_RangeProfiler_GetCounterDataInfo_Params*) {
  return CUPTI_ERROR_NOT_SUPPORTED;
}

// PC sampling (kernels/sampling): subscribing needs no permission; enabling sampling does.
CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle* s, CUpti_CallbackFunc, void*) {
  *s = nullptr;
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiUnsubscribe(CUpti_SubscriberHandle) { return CUPTI_SUCCESS; }
CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain, CUpti_CallbackId) {
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiGetCubinCrc(CUpti_GetCubinCrcParams*) { return CUPTI_ERROR_NOT_SUPPORTED; }
CUptiResult CUPTIAPI cuptiGetSassToSourceCorrelation(CUpti_GetSassToSourceCorrelationParams*) {
  return CUPTI_ERROR_NOT_SUPPORTED;
}
CUptiResult CUPTIAPI cuptiPCSamplingEnable(CUpti_PCSamplingEnableParams*) {
  return CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;  // what the driver answers a non-admin user
}
CUptiResult CUPTIAPI cuptiPCSamplingDisable(CUpti_PCSamplingDisableParams*) { return CUPTI_SUCCESS; }
CUptiResult CUPTIAPI cuptiPCSamplingStart(CUpti_PCSamplingStartParams*) { return CUPTI_ERROR_NOT_SUPPORTED; }
CUptiResult CUPTIAPI cuptiPCSamplingStop(CUpti_PCSamplingStopParams*) { return CUPTI_ERROR_NOT_SUPPORTED; }
CUptiResult CUPTIAPI cuptiPCSamplingGetData(CUpti_PCSamplingGetDataParams*) { return CUPTI_ERROR_NOT_SUPPORTED; }
CUptiResult CUPTIAPI cuptiPCSamplingGetNumStallReasons(CUpti_PCSamplingGetNumStallReasonsParams*) {
  return CUPTI_ERROR_NOT_SUPPORTED;
}
CUptiResult CUPTIAPI cuptiPCSamplingGetStallReasons(CUpti_PCSamplingGetStallReasonsParams*) {
  return CUPTI_ERROR_NOT_SUPPORTED;
}
CUptiResult CUPTIAPI cuptiPCSamplingSetConfigurationAttribute(CUpti_PCSamplingConfigurationInfoParams*) {
  return CUPTI_ERROR_NOT_SUPPORTED;
}
CUptiResult CUPTIAPI cuptiPCSamplingGetConfigurationAttribute(CUpti_PCSamplingConfigurationInfoParams*) {
  return CUPTI_ERROR_NOT_SUPPORTED;
}

// SASS metrics (kernels/sampling/sass_metrics.cpp): the chip's list and the metrics' properties
// need no permission; setting the configuration for a device does (CUPTI answers it as the
// driver does a non-admin user), so a test reaches the refusal without a GPU.
namespace {
const char* const kFakeSassMetrics[] = {"smsp__sass_inst_executed", "smsp__sass_thread_inst_executed",
                                        "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
                                        "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal"};
constexpr size_t kFakeSassCount = sizeof(kFakeSassMetrics) / sizeof(kFakeSassMetrics[0]);
}  // namespace

CUptiResult CUPTIAPI cuptiSassMetricsGetNumOfMetrics(CUpti_SassMetrics_GetNumOfMetrics_Params* p) {
  p->numOfMetrics = kFakeSassCount;
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiSassMetricsGetMetrics(CUpti_SassMetrics_GetMetrics_Params* p) {
  for (size_t i = 0; i < p->numOfMetrics && i < kFakeSassCount; ++i)
    p->pMetricsList[i] = {i + 1, kFakeSassMetrics[i], "fake"};
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiSassMetricsGetProperties(CUpti_SassMetrics_GetProperties_Params* p) {
  for (size_t i = 0; i < kFakeSassCount; ++i)
    if (p->pMetricName && std::strcmp(p->pMetricName, kFakeSassMetrics[i]) == 0) {
      p->metric = {i + 1, kFakeSassMetrics[i], "fake"};
      return CUPTI_SUCCESS;
    }
  return CUPTI_ERROR_INVALID_METRIC_NAME;
}
CUptiResult CUPTIAPI cuptiSassMetricsSetConfig(CUpti_SassMetricsSetConfig_Params*) {
  return CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;  // what the driver answers a non-admin user
}
CUptiResult CUPTIAPI cuptiSassMetricsUnsetConfig(CUpti_SassMetricsUnsetConfig_Params*) { return CUPTI_SUCCESS; }
CUptiResult CUPTIAPI cuptiSassMetricsEnable(CUpti_SassMetricsEnable_Params*) { return CUPTI_ERROR_NOT_SUPPORTED; }
CUptiResult CUPTIAPI cuptiSassMetricsDisable(CUpti_SassMetricsDisable_Params*) { return CUPTI_SUCCESS; }
CUptiResult CUPTIAPI cuptiSassMetricsGetDataProperties(CUpti_SassMetricsGetDataProperties_Params*) {
  return CUPTI_ERROR_NOT_SUPPORTED;
}
CUptiResult CUPTIAPI cuptiSassMetricsFlushData(CUpti_SassMetricsFlushData_Params*) { return CUPTI_ERROR_NOT_SUPPORTED; }

}  // extern "C"
