// A first tensor-core kernel written the way NVIDIA's documentation teaches it: nvcuda::wmma
// fragments of BF16, 16 x 16 x 16, FP32 accumulation, for the matmul lab's BF16 form (precision
// bf16). a is h x ld and bt is B transposed, w x ld, both BF16 bit patterns; out is h x w FP32.
//
// A block of 4 warps (128 threads, the form's block) computes a 32 x 32 tile of out, warp w its
// 16 x 16 quarter (row w / 2, column w % 2). The tiles of a and bt pass through shared memory,
// zero past the matrices' edges, so any h, w and k work: WMMA always loads whole 16 x 16 tiles.
#include <mma.h>
#include <cuda_bf16.h>

using namespace nvcuda;

__global__ void wmma_bf16(unsigned short* a, unsigned short* bt, float* out, int h, int w, int k, int ld) {
    __shared__ __align__(32) __nv_bfloat16 as[32][16];  // 32 rows of a, 16 of k
    __shared__ __align__(32) __nv_bfloat16 bs[32][16];  // 32 rows of bt (columns of out), 16 of k
    __shared__ __align__(32) float cs[32][32];
    const int warp = threadIdx.x / 32, wr = warp / 2, wc = warp % 2;
    const int row0 = blockIdx.y * 32, col0 = blockIdx.x * 32;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < k; k0 += 16) {
        for (int e = threadIdx.x; e < 32 * 16; e += blockDim.x) {
            const int r = e / 16, c = e % 16, kk = k0 + c;
            as[r][c] = row0 + r < h && kk < k ? __ushort_as_bfloat16(a[(row0 + r) * ld + kk]) : __float2bfloat16(0.0f);
            bs[r][c] = col0 + r < w && kk < k ? __ushort_as_bfloat16(bt[(col0 + r) * ld + kk]) : __float2bfloat16(0.0f);
        }
        __syncthreads();
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb;  // B[k][n] at bs[n][k]
        wmma::load_matrix_sync(fa, &as[wr * 16][0], 16);
        wmma::load_matrix_sync(fb, &bs[wc * 16][0], 16);
        wmma::mma_sync(acc, fa, fb, acc);
        __syncthreads();
    }
    wmma::store_matrix_sync(&cs[wr * 16][wc * 16], acc, 32, wmma::mem_row_major);
    __syncthreads();
    for (int e = threadIdx.x; e < 32 * 32; e += blockDim.x) {
        const int r = e / 32, c = e % 32;
        if (row0 + r < h && col0 + c < w) out[(row0 + r) * w + col0 + c] = cs[r][c];
    }
}
