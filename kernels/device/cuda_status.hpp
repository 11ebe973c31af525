// The one CUDA error helper: turns a cudaError_t into a bs::Status carrying the error's name,
// the call that returned it and a hint the user can act on. Include only from .cu/.cpp files
// compiled with the CUDA toolkit.
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "core/status.hpp"

namespace bs::cuda {

inline std::string hint_for(cudaError_t e) {
  switch (e) {
    case cudaErrorMemoryAllocation: return "the GPU is out of memory: try a smaller size";
    case cudaErrorInvalidConfiguration: return "the launch shape breaks a CUDA limit: check blockDim and gridDim";
    case cudaErrorLaunchOutOfResources:
      return "too many registers or too much shared memory for this block size: use fewer threads";
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorHardwareStackError: return "a kernel faulted; the CUDA context is unusable until the device is reset";
    case cudaErrorLaunchTimeout: return "the kernel ran too long and the display watchdog stopped it";
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorUnsupportedPtxVersion:
      return "this binary has no code for this GPU: rebuild with -DCMAKE_CUDA_ARCHITECTURES=<your sm>";
    case cudaErrorInsufficientDriver: return "the NVIDIA driver is older than the CUDA runtime: update the driver";
    case cudaErrorNoDevice: return "no CUDA GPU found: use --backend cpu";
    default: return {};
  }
}

// Errors after which the context cannot be used again (every later call fails the same way).
inline bool is_sticky(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorHardwareStackError:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert: return true;
    default: return false;
  }
}

// The Status of `e`, marked sticky (Status::sticky) when the context is gone: the one place a CUDA
// error's stickiness is decided, from the error itself.
inline Status to_status(cudaError_t e, const char* call) {
  if (e == cudaSuccess) return Status::success();
  Status s = Status::failure(cudaGetErrorString(e), hint_for(e), call, cudaGetErrorName(e));
  s.sticky = is_sticky(e);
  return s;
}

}  // namespace bs::cuda

// Early-return a Status from a function returning Status (or Result<T>) when a CUDA call fails.
// The error is consumed (cudaGetLastError) once it has become a Status, so a later launch check
// does not report it again as its own.
#define BS_CUDA_TRY(expr)                                                 \
  do {                                                                    \
    if (cudaError_t bs_cuda_err_ = (expr); bs_cuda_err_ != cudaSuccess) { \
      cudaGetLastError();                                                 \
      return ::bs::cuda::to_status(bs_cuda_err_, #expr);                  \
    }                                                                     \
  } while (0)
