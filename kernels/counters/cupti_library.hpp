// libcupti, loaded at run time. CUDA build only.
//
// Why dlopen rather than linking: CUPTI ships with the CUDA toolkit, not with the driver, so a
// machine that runs blockscope's CUDA backend may well have no libcupti. Linked, blockscope would
// not even start there; loaded on demand, only the counters say what is missing. The headers
// still come from the toolkit at build time, so every entry point keeps CUPTI's exact signature
// (decltype of the declaration). The library is never unloaded: CUPTI registers process-wide
// state (and libnvperf_host, which it loads in turn) that outlives any one session.
#pragma once
#include <cupti.h>
#include <cupti_pcsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include <cuda.h>

#include <mutex>
#include <string>

#include "core/status.hpp"

namespace bs::counters {

struct CuptiApi {
  std::string path;  // what was loaded (the name given to dlopen)

#define BS_CUPTI_ENTRY(fn) decltype(&::fn) fn = nullptr;
#define BS_CUPTI_ENTRIES(X)                       \
  X(cuptiGetResultString)                         \
  X(cuptiProfilerInitialize)                      \
  X(cuptiProfilerDeInitialize)                    \
  X(cuptiProfilerDeviceSupported)                 \
  X(cuptiProfilerGetCounterAvailability)          \
  X(cuptiDeviceGetChipName)                       \
  X(cuptiProfilerHostInitialize)                  \
  X(cuptiProfilerHostDeinitialize)                \
  X(cuptiProfilerHostGetBaseMetrics)              \
  X(cuptiProfilerHostConfigAddMetrics)            \
  X(cuptiProfilerHostGetConfigImageSize)          \
  X(cuptiProfilerHostGetConfigImage)              \
  X(cuptiProfilerHostGetNumOfPasses)              \
  X(cuptiProfilerHostEvaluateToGpuValues)         \
  X(cuptiRangeProfilerEnable)                     \
  X(cuptiRangeProfilerDisable)                    \
  X(cuptiRangeProfilerGetCounterDataSize)         \
  X(cuptiRangeProfilerCounterDataImageInitialize) \
  X(cuptiRangeProfilerSetConfig)                  \
  X(cuptiRangeProfilerStart)                      \
  X(cuptiRangeProfilerStop)                       \
  X(cuptiRangeProfilerPushRange)                  \
  X(cuptiRangeProfilerPopRange)                   \
  X(cuptiRangeProfilerDecodeData)                 \
  X(cuptiRangeProfilerGetCounterDataInfo)         \
  X(cuptiSubscribe)                               \
  X(cuptiUnsubscribe)                             \
  X(cuptiEnableCallback)                          \
  X(cuptiGetCubinCrc)                             \
  X(cuptiGetSassToSourceCorrelation)              \
  X(cuptiPCSamplingEnable)                        \
  X(cuptiPCSamplingDisable)                       \
  X(cuptiPCSamplingStart)                         \
  X(cuptiPCSamplingStop)                          \
  X(cuptiPCSamplingGetData)                       \
  X(cuptiPCSamplingGetNumStallReasons)            \
  X(cuptiPCSamplingGetStallReasons)               \
  X(cuptiPCSamplingSetConfigurationAttribute)     \
  X(cuptiPCSamplingGetConfigurationAttribute)
  BS_CUPTI_ENTRIES(BS_CUPTI_ENTRY)
  // Optional: a CUPTI without them still loads (counters and PC sampling work), and the SASS
  // metrics say which entry is missing (sampling/sass_metrics.cpp). CUPTI 12.4 and later have them.
#define BS_CUPTI_OPTIONAL_ENTRIES(X)   \
  X(cuptiSassMetricsGetNumOfMetrics)   \
  X(cuptiSassMetricsGetMetrics)        \
  X(cuptiSassMetricsGetProperties)     \
  X(cuptiSassMetricsSetConfig)         \
  X(cuptiSassMetricsUnsetConfig)       \
  X(cuptiSassMetricsEnable)            \
  X(cuptiSassMetricsDisable)           \
  X(cuptiSassMetricsGetDataProperties) \
  X(cuptiSassMetricsFlushData)
  BS_CUPTI_OPTIONAL_ENTRIES(BS_CUPTI_ENTRY)
#undef BS_CUPTI_ENTRY
  std::string missing_optional;  // the first optional entry this library lacks, "" when none

  // CUPTI's description of a result code ("" if it has none).
  std::string describe(CUptiResult r) const;
};

// The CUPTI at `path`, or (empty path) the first that loads of: libcupti.so.<major> through the
// loader's search path, then the library this build was configured with, then the usual toolkit
// folders. Loaded once per path for the life of the process.
Result<const CuptiApi*> load_cupti(const std::string& path);

// The CUDA context current on this thread (through the runtime's driver entry point, so nothing
// links libcuda), or why there is none.
Result<CUcontext> current_context();

// Makes `device` current on this thread first (cudaSetDevice; a negative device keeps the one
// already current), then current_context(): what a profiler that may run on a worker thread needs.
Result<CUcontext> device_context(int device);

// One profile at a time in the process: the range profiler and PC sampling each own the
// context's profiling hardware while they run, and must not interleave.
std::mutex& profile_lock();

// A CUPTI parameter struct as its header asks: every field zero, structSize set.
template <class P>
P cupti_params(std::size_t struct_size) {
  P p{};
  p.structSize = struct_size;
  return p;
}
// The same for the PC sampling API's structs, whose size field is `size`.
template <class P>
P cupti_sized(std::size_t size) {
  P p{};
  p.size = size;
  return p;
}

}  // namespace bs::counters

// cupti_params of the struct T, sized by its header's T_STRUCT_SIZE.
#define BS_CUPTI_PARAMS(T) ::bs::counters::cupti_params<T>(T##_STRUCT_SIZE)
// cupti_sized of the PC sampling struct T, sized by its header's TSize.
#define BS_CUPTI_SIZED(T) ::bs::counters::cupti_sized<T>(T##Size)
