// A grid-stride loop: any grid covers the image, each thread takes every
// (gridDim.x * blockDim.x)-th pixel. Run it with a fixed grid, e.g. 2 blocks per SM.
__global__ void rgb_to_grayscale_kernel(unsigned char* x, unsigned char* out, int n) {
    for (int i = blockIdx.x*blockDim.x + threadIdx.x; i < n; i += gridDim.x*blockDim.x)
        out[i] = 0.2989*x[i] + 0.5870*x[i+n] + 0.1140*x[i+2*n];
}
