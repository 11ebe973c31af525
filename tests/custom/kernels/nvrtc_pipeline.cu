// Lecture 5's shared-memory tiled matmul with its tiles brought in by asynchronous copies
// (cuda/pipeline: cp.async on Ampere and later): each thread starts the copy of its element of
// the m and n tiles, commits, waits for its own copies, then the block synchronises as before.
// Elements past the matrices' edges are written as zero directly. Run it with 16 x 16 blocks.
#include <cuda/pipeline>

constexpr int tw = 16;

__global__ void matmul_pipeline(float* m, float* n, float* out, int h, int w, int k) {
    __shared__ float ms[tw][tw], ns[tw][tw];
    const int tc = threadIdx.x, tr = threadIdx.y;
    const int r = blockIdx.y * blockDim.y + tr, c = blockIdx.x * blockDim.x + tc;
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    float p = 0.0f;
    for (int ph = 0; ph < cdiv(k, tw); ++ph) {
        const int idx = ph * tw;
        pipe.producer_acquire();
        if (r < h && idx + tc < k) cuda::memcpy_async(&ms[tr][tc], &m[r * k + idx + tc], sizeof(float), pipe);
        else ms[tr][tc] = 0.0f;
        if (c < w && idx + tr < k) cuda::memcpy_async(&ns[tr][tc], &n[(idx + tr) * w + c], sizeof(float), pipe);
        else ns[tr][tc] = 0.0f;
        pipe.producer_commit();
        pipe.consumer_wait();
        __syncthreads();
        for (int i = 0; i < tw; ++i) p += ms[tr][i] * ns[i][tc];
        pipe.consumer_release();
        __syncthreads();
    }
    if (r < h && c < w) out[r * w + c] = p;
}
