// Which CUPTI result codes mean which problem. The codes come from cupti_result.h (CUDA 13);
// several codes describe one problem (two for virtualised GPUs, two for a second profiler).
#include "counters/cupti_errors.hpp"

namespace bs::counters {

CounterProblem classify(CUptiResult r) {
  switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES: return CounterProblem::InsufficientPrivileges;
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES: return CounterProblem::VirtualizedDevice;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED: return CounterProblem::AnotherProfiler;
    case CUPTI_ERROR_HARDWARE_BUSY: return CounterProblem::HardwareBusy;
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_INVALID_CHIP_NAME:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED: return CounterProblem::UnsupportedDevice;
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED: return CounterProblem::MigSlice;
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED: return CounterProblem::ConfidentialCompute;
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED: return CounterProblem::MiningProcessor;
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED: return CounterProblem::Sli;
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED: return CounterProblem::Wsl;
    default: return CounterProblem::Other;
  }
}

std::string cupti_error_name(CUptiResult r) {
  switch (r) {
#define BS_CUPTI_NAME(code) \
  case code: return #code;
    BS_CUPTI_NAME(CUPTI_SUCCESS)
    BS_CUPTI_NAME(CUPTI_ERROR_INVALID_PARAMETER)
    BS_CUPTI_NAME(CUPTI_ERROR_INVALID_DEVICE)
    BS_CUPTI_NAME(CUPTI_ERROR_INVALID_CONTEXT)
    BS_CUPTI_NAME(CUPTI_ERROR_INVALID_OPERATION)
    BS_CUPTI_NAME(CUPTI_ERROR_OUT_OF_MEMORY)
    BS_CUPTI_NAME(CUPTI_ERROR_HARDWARE)
    BS_CUPTI_NAME(CUPTI_ERROR_NOT_READY)
    BS_CUPTI_NAME(CUPTI_ERROR_NOT_COMPATIBLE)
    BS_CUPTI_NAME(CUPTI_ERROR_NOT_INITIALIZED)
    BS_CUPTI_NAME(CUPTI_ERROR_INVALID_METRIC_NAME)
    BS_CUPTI_NAME(CUPTI_ERROR_DISABLED)
    BS_CUPTI_NAME(CUPTI_ERROR_HARDWARE_BUSY)
    BS_CUPTI_NAME(CUPTI_ERROR_NOT_SUPPORTED)
    BS_CUPTI_NAME(CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED)
    BS_CUPTI_NAME(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
    BS_CUPTI_NAME(CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED)
    BS_CUPTI_NAME(CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED)
    BS_CUPTI_NAME(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
    BS_CUPTI_NAME(CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES)
    BS_CUPTI_NAME(CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED)
    BS_CUPTI_NAME(CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED)
    BS_CUPTI_NAME(CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED)
    BS_CUPTI_NAME(CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED)
    BS_CUPTI_NAME(CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED)
    BS_CUPTI_NAME(CUPTI_ERROR_INVALID_CHIP_NAME)
    BS_CUPTI_NAME(CUPTI_ERROR_UNKNOWN)
#undef BS_CUPTI_NAME
    default: return "CUPTI error " + std::to_string(static_cast<int>(r));
  }
}

Status status_from_cupti(CUptiResult r, const std::string& call, const std::string& description) {
  const CounterProblem p = classify(r);
  return explain(p, call, cupti_error_name(r), p == CounterProblem::Other ? description : "");
}

}  // namespace bs::counters
