// The lecture's 1D grayscale with libcu++ (CCCL's cuda/std): the weights in a
// cuda::std::array, the pixels read as cuda::std::uint8_t, the sum clamped with cuda::std::fmin.
#include <cuda/std/array>
#include <cuda/std/cstdint>
#include <cuda/std/cmath>

__global__ void gray_std(unsigned char* x, unsigned char* out, int n) {
    constexpr cuda::std::array<float, 3> weights{0.2989f, 0.5870f, 0.1140f};
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = 0.0f;
        for (cuda::std::size_t ch = 0; ch < weights.size(); ++ch) {
            const cuda::std::uint8_t p = x[i + ch * n];
            v += weights[ch] * p;
        }
        out[i] = (cuda::std::uint8_t)cuda::std::fmin(v, 255.0f);
    }
}
