// The lecture's 1D grayscale with its arithmetic in half precision (cuda_fp16.h): each channel
// converted to __half, weighted and summed with __hmul/__hadd, converted back. FP16 keeps 11
// significant bits, so a sum up to 255 is within 1/8 of the float one: the lab's check (one
// grey level) still passes.
#include <cuda_fp16.h>

__global__ void gray_half(unsigned char* x, unsigned char* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const __half r = __float2half((float)x[i]);
        const __half g = __float2half((float)x[i + n]);
        const __half b = __float2half((float)x[i + 2 * n]);
        const __half v = __hadd(__hadd(__hmul(r, __float2half(0.2989f)), __hmul(g, __float2half(0.5870f))),
                                __hmul(b, __float2half(0.1140f)));
        out[i] = (unsigned char)__half2float(v);
    }
}
