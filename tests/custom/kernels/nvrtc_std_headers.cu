// The C and C++ standard headers kernels include as a matter of course, on the lecture's 1D
// grayscale: NVRTC has none of them, blockscope gives it stand-ins (printf, assert and the math
// functions are built into device code; the integer types and limits are libcu++'s).
#include <cstdio>
#include <cstdint>
#include <cmath>
#include <climits>
#include <cfloat>
#include <cassert>
#include <algorithm>
#include <stdint.h>
#include <math.h>

__global__ void gray_std_headers(unsigned char* x, unsigned char* out, int n) {
    const std::int64_t i = (std::int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    assert(n < INT_MAX);
    if (i == 0 && n < 0) printf("n = %d\n", n);
    if (i < n) {
        const float v = 0.2989f * x[i] + 0.5870f * x[i + n] + 0.1140f * x[i + 2 * n];
        const float clamped = std::min(std::fmax(v, 0.0f), 255.0f - FLT_EPSILON);
        out[i] = (std::uint8_t)std::floor(clamped + (float)(sqrtf(0.0f)));
    }
}
