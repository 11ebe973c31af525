// Matmul rows with cub::BlockLoad: a block of 128 threads computes 128 columns of one row of
// out. The row of m is brought in 128 terms at a time by BlockLoad (guarded past k, zero
// there), put in shared memory, and each thread multiplies it with its column of n. Run it with
// blockDim = (128, 1): the form's grid is then (ceil(w / 128), h).
#include <cub/block/block_load.cuh>

using RowLoad = cub::BlockLoad<float, 128, 1, cub::BLOCK_LOAD_DIRECT>;

__global__ void matmul_block_load(float* m, float* n, float* out, int h, int w, int k) {
    __shared__ typename RowLoad::TempStorage temp;
    __shared__ float row[128];
    const int r = blockIdx.y, c = blockIdx.x * 128 + threadIdx.x;
    float p = 0.0f;
    for (int i0 = 0; i0 < k; i0 += 128) {
        float item[1];
        RowLoad(temp).Load(m + r * k + i0, item, k - i0 < 128 ? k - i0 : 128, 0.0f);
        row[threadIdx.x] = item[0];
        __syncthreads();
        if (c < w)
            for (int i = 0; i < 128 && i0 + i < k; ++i) p += row[i] * n[(i0 + i) * w + c];
        __syncthreads();
    }
    if (c < w) out[r * w + c] = p;
}
