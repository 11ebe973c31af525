// A reduction-style kernel with cooperative_groups, for the matmul lab's FP32 form: one warp
// (a tiled_partition<32> of the block) computes the 32 elements of out in its row r and its 32
// columns; for each, the lanes add up strided parts of the dot product and cg::reduce sums them.
// Launch with blockDim.x = 32 (e.g. 32 x 4): the form's grid then gives one warp per row of 32
// columns. Every branch below is uniform over the warp, so all 32 lanes reach each reduce.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void cg_warp_dot(const float* m, const float* n, float* out, int h, int w, int k) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    const int c0 = blockIdx.x * blockDim.x;
    if (r >= h) return;
    for (int j = 0; j < 32 && c0 + j < w; ++j) {
        float part = 0.0f;
        for (int i = warp.thread_rank(); i < k; i += warp.size()) part += m[r * k + i] * n[i * w + c0 + j];
        const float sum = cg::reduce(warp, part, cg::plus<float>());
        if ((int)warp.thread_rank() == j) out[r * w + c0 + j] = sum;
    }
}
