// Lecture 5's shared-memory tiled matmul with a cuda::barrier (cuda/barrier) in place of
// __syncthreads: the block's threads arrive at the barrier in shared memory and wait for each
// other. Thread 0 initialises it for the whole block. Run it with 16 x 16 blocks.
#include <cuda/barrier>

constexpr int tw = 16;

__global__ void matmul_barrier(float* m, float* n, float* out, int h, int w, int k) {
    __shared__ float ms[tw][tw], ns[tw][tw];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    const int tc = threadIdx.x, tr = threadIdx.y;
    if (tc == 0 && tr == 0) init(&bar, blockDim.x * blockDim.y);
    __syncthreads();
    const int r = blockIdx.y * blockDim.y + tr, c = blockIdx.x * blockDim.x + tc;
    float p = 0.0f;
    for (int ph = 0; ph < cdiv(k, tw); ++ph) {
        const int idx = ph * tw;
        ms[tr][tc] = r < h && idx + tc < k ? m[r * k + idx + tc] : 0.0f;
        ns[tr][tc] = c < w && idx + tr < k ? n[(idx + tr) * w + c] : 0.0f;
        bar.arrive_and_wait();
        for (int i = 0; i < tw; ++i) p += ms[tr][i] * ns[i][tc];
        bar.arrive_and_wait();
    }
    if (r < h && c < w) out[r * w + c] = p;
}
