// cuda_bf16.h's conversions on the matmul lab's BF16 form, without tensor cores: a and bt hold
// BF16 bit patterns; each is turned into __nv_bfloat16 (__ushort_as_bfloat16) and into float
// (__bfloat162float), and the dot product is summed in FP32. A block of 128 threads computes the
// form's 32 x 32 tile of out, 8 elements per thread.
#include <cuda_bf16.h>

__global__ void bf16_naive(unsigned short* a, unsigned short* bt, float* out, int h, int w, int k, int ld) {
    for (int e = threadIdx.x; e < 32 * 32; e += blockDim.x) {
        const int r = blockIdx.y * 32 + e / 32, c = blockIdx.x * 32 + e % 32;
        if (r >= h || c >= w) continue;
        float sum = 0.0f;
        for (int i = 0; i < k; ++i)
            sum += __bfloat162float(__ushort_as_bfloat16(a[r * ld + i])) *
                   __bfloat162float(__ushort_as_bfloat16(bt[c * ld + i]));
        out[r * w + c] = sum;
    }
}
