// A reduction-style matmul with cooperative groups, for the matmul lab's FP32 form: each warp,
// as a tile of 32 threads (cg::tiled_partition), computes 32 elements of one row of out; for
// each, its lanes take every 32nd term of the dot product and cg::reduce adds the 32 partial
// sums. Run it with blockDim = (32, 8): a block covers 32 columns and 8 rows of out, each of its
// warps one row (threadIdx.y), as the form's grid (ceil(w / 32), ceil(h / 8)) expects.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

__global__ void matmul_cg_reduce(float* m, float* n, float* out, int h, int w, int k) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    const int c0 = blockIdx.x * blockDim.x;
    if (r >= h) return;  // the whole warp: its lanes share threadIdx.y
    for (int j = 0; j < 32 && c0 + j < w; ++j) {
        const int c = c0 + j;
        float part = 0.0f;
        for (int i = warp.thread_rank(); i < k; i += warp.size()) part += m[r * k + i] * n[i * w + c];
        const float sum = cg::reduce(warp, part, cg::plus<float>());
        if (warp.thread_rank() == j) out[r * w + c] = sum;
    }
}
