// Portability macros for code shared between nvcc and the host compiler.
// A kernel body marked BS_HD compiles as a __host__ __device__ function under nvcc and as a
// plain inline function under g++, which is what lets the CPU simulator run the same code.
#pragma once

#if defined(__CUDACC__)
#define BS_HD __host__ __device__ __forceinline__
#define BS_HOST_DEVICE __host__ __device__
#else
#define BS_HD inline
#define BS_HOST_DEVICE
#endif

#if defined(__CUDA_ARCH__)
#define BS_ON_DEVICE 1
#else
#define BS_ON_DEVICE 0
#endif
