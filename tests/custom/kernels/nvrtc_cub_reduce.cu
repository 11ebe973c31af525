// A reduction-style matmul with CUB's block primitives: every element of out is a block-wide
// sum. For each of the block's 32 x 8 elements, all 256 threads take every 256th term of its dot
// product, cub::BlockReduce adds their partial sums, and thread 0 stores the total. (Correct at
// any size, but it synchronises the block twice per element: the point is the primitive, not the
// speed.) Run it with blockDim = (32, 8), the shape BlockReduce is instantiated for.
#include <cub/block/block_reduce.cuh>

using BlockSum = cub::BlockReduce<float, 32, cub::BLOCK_REDUCE_WARP_REDUCTIONS, 8>;

__global__ void matmul_block_reduce(float* m, float* n, float* out, int h, int w, int k) {
    __shared__ typename BlockSum::TempStorage temp;
    const int t = threadIdx.y * 32 + threadIdx.x;
    for (int e = 0; e < 32 * 8; ++e) {
        const int r = blockIdx.y * 8 + e / 32, c = blockIdx.x * 32 + e % 32;
        if (r >= h || c >= w) continue;  // the same for every thread of the block
        float part = 0.0f;
        for (int i = t; i < k; i += 256) part += m[r * k + i] * n[i * w + c];
        const float sum = BlockSum(temp).Sum(part);
        if (t == 0) out[r * w + c] = sum;
        __syncthreads();  // temp is reused by the next element
    }
}
