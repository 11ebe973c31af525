// The same warp-per-32-columns matmul as cg_warp_dot_matmul.cu, with the warp's reduction
// written out as __shfl_xor_sync butterflies (every lane ends with the sum). Launch with
// blockDim.x = 32.
__global__ void shfl_warp_dot(const float* m, const float* n, float* out, int h, int w, int k) {
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    const int c0 = blockIdx.x * blockDim.x;
    const int lane = threadIdx.x;
    if (r >= h) return;
    for (int j = 0; j < 32 && c0 + j < w; ++j) {
        float v = 0.0f;
        for (int i = lane; i < k; i += 32) v += m[r * k + i] * n[i * w + c0 + j];
        for (int off = 16; off > 0; off /= 2) v += __shfl_xor_sync(0xffffffffu, v, off);
        if (lane == j) out[r * w + c0 + j] = v;
    }
}
