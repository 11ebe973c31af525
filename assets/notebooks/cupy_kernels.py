# The lecture's grayscale and matmul kernels as a CuPy user writes them: CUDA source in Python
# strings, compiled by cp.RawKernel / cp.RawModule. Open this file in blockscope (File > Open
# kernel file, a drop on the window, or --kernel-file cupy_kernels.py) to run them there.
import cupy as cp

helpers = """
#define WEIGHT_R 0.2989f
#define WEIGHT_G 0.5870f
#define WEIGHT_B 0.1140f
"""

gray_src = helpers + r'''
extern "C" __global__
void gray_1d(const unsigned char* x, unsigned char* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = WEIGHT_R * x[i] + WEIGHT_G * x[i + n] + WEIGHT_B * x[i + 2 * n];
}
'''
gray = cp.RawKernel(gray_src, 'gray_1d')

module = cp.RawModule(code='''
extern "C" __global__ void mm(const float* m, const float* n, float* out, int h, int w, int k) {
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < h && c < w) {
        float acc = 0.0f;
        for (int i = 0; i < k; ++i) acc += m[r * k + i] * n[i * w + c];
        out[r * w + c] = acc;
    }
}
''')
mm = module.get_function('mm')

if __name__ == '__main__':
    img = cp.random.randint(0, 256, (3, 333, 517), dtype=cp.uint8)
    n = img.shape[1] * img.shape[2]
    out = cp.empty(n, dtype=cp.uint8)
    gray(((n + 255) // 256,), (256,), (img, out, cp.int32(n)))
    a = cp.random.rand(65, 33, dtype=cp.float32)
    b = cp.random.rand(33, 47, dtype=cp.float32)
    c = cp.zeros((65, 47), dtype=cp.float32)
    mm(((47 + 15) // 16, (65 + 15) // 16), (16, 16), (a, b, c, cp.int32(65), cp.int32(47), cp.int32(33)))
    assert cp.allclose(c, a @ b, atol=1e-4)
