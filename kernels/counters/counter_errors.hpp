// Why hardware counters could not be read, in the user's terms, with the fix.
//
// Every failure of the counter path becomes one of these problems and then a bs::Status whose
// message names the cause and whose hint names the fix (a driver option, a tool to close, a
// library to install). The mapping is plain C++ so the CPU-only build and its tests carry it too;
// turning a CUptiResult into a problem needs CUPTI's header and lives in cupti_errors.hpp.
#pragma once
#include <string>

#include "core/status.hpp"

namespace bs::counters {

enum class CounterProblem {
  InsufficientPrivileges,  // the driver lets only administrators read counters
  VirtualizedDevice,       // a vGPU or passthrough GPU without profiling enabled
  AnotherProfiler,         // ncu, nsys or another CUPTI client already in this process
  HardwareBusy,            // another process (DCGM, a profiler) holds the counters
  UnsupportedDevice,       // architecture or chip CUPTI cannot profile
  MigSlice,                // a MIG instance, where device-level counters are not visible
  ConfidentialCompute,     // confidential-computing mode forbids profiling
  MiningProcessor,         // NVIDIA CMP boards have no profiling
  Sli,                     // SLI-linked GPUs
  Wsl,                     // WSL without profiling support
  LibraryMissing,          // libcupti could not be loaded
  LibraryTooOld,           // libcupti lacks the range profiler API
  GpuFeature,              // the CPU backend or a CPU-only build: nothing to read
  Other,                   // anything else CUPTI reports
};

// The Status the user sees for `problem`. `call` is the API call or stage that failed and
// `code` the library's error name (e.g. "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"); `detail` is
// appended to the message when given (CUPTI's own description, the dlopen error, ...).
Status explain(CounterProblem problem, std::string call = {}, std::string code = {}, const std::string& detail = {});

// The driver option that lets users who are not administrators read counters; the hint of
// InsufficientPrivileges names it, and so do the tests.
inline constexpr const char* kProfilingDriverOption = "NVreg_RestrictProfilingToAdminUsers=0";

}  // namespace bs::counters
