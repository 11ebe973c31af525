// The lecture's first kernel: one thread per pixel of the flattened image.
// x is planar RGB (all red bytes, then green, then blue), n = width * height.
// Launched with gridDim = ceil(n / blockDim.x).
__global__ void rgb_to_grayscale_kernel(unsigned char* x, unsigned char* out, int n) {
    int i = blockIdx.x*blockDim.x + threadIdx.x;
    if (i<n) out[i] = 0.2989*x[i] + 0.5870*x[i+n] + 0.1140*x[i+2*n];
}
