// A first tensor-core kernel as NVIDIA's documentation teaches it: nvcuda::wmma fragments,
// BF16 in, FP32 accumulate, for the matmul lab's BF16 form (precision = bf16). a is h x ld and
// bt is w x ld (B transposed), both row-major BF16 with ld = k rounded up to 8; out is h x w FP32.
// A block of 4 warps covers a 32 x 32 tile of out (the form's grid); each warp one 16 x 16 tile.
// wmma loads whole 16 x 16 tiles, so each warp stages its tiles in __shared__ memory with zeros
// past the matrices' edges (rows past h or w, k past the end): any h, w and k work.
#include <cuda_bf16.h>
#include <mma.h>
using namespace nvcuda;

__global__ void wmma_bf16_matmul(const __nv_bfloat16* __restrict__ a, const __nv_bfloat16* __restrict__ bt,
                                 float* out, int h, int w, int k, int ld) {
    __shared__ __nv_bfloat16 as[4][16 * 16];
    __shared__ __nv_bfloat16 bs[4][16 * 16];
    __shared__ float cs[4][16 * 16];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int row0 = blockIdx.y * 32 + (warp / 2) * 16;
    const int col0 = blockIdx.x * 32 + (warp % 2) * 16;

    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);

    for (int k0 = 0; k0 < k; k0 += 16) {
        for (int i = lane; i < 16 * 16; i += 32) {
            const int r = i / 16, c = i % 16;
            const bool in_k = k0 + c < k;
            as[warp][i] = row0 + r < h && in_k ? a[(row0 + r) * ld + k0 + c] : __float2bfloat16(0.0f);
            // bs holds B's 16 x 16 tile column-major: element (kk, n) at n * 16 + kk.
            bs[warp][i] = col0 + r < w && in_k ? bt[(col0 + r) * ld + k0 + c] : __float2bfloat16(0.0f);
        }
        __syncwarp();
        wmma::load_matrix_sync(fa, as[warp], 16);
        wmma::load_matrix_sync(fb, bs[warp], 16);
        wmma::mma_sync(acc, fa, fb, acc);
        __syncwarp();  // every lane has loaded before the tiles are overwritten
    }
    wmma::store_matrix_sync(cs[warp], acc, 16, wmma::mem_row_major);
    __syncwarp();
    for (int i = lane; i < 16 * 16; i += 32) {
        const int r = row0 + i / 16, c = col0 + i % 16;
        if (r < h && c < w) out[r * w + c] = cs[warp][i];
    }
}
