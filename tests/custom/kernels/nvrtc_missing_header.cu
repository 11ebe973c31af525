// A header that no CUDA toolkit has: NVRTC's error is at line 3, with the folders searched.
#include <cuda_fp16.h>
#include <no_such_cuda_header.h>

__global__ void gray(unsigned char* x, unsigned char* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = x[i];
}
