// The lecture's matmul: one thread per element of out (h x w); m is h x k, n is k x w.
// Launched with 2D blocks, gridDim = (ceil(w / blockDim.x), ceil(h / blockDim.y)).
__global__ void matmul_k(float* m, float* n, float* out, int h, int w, int k) {
    int r = blockIdx.y*blockDim.y + threadIdx.y;
    int c = blockIdx.x*blockDim.x + threadIdx.x;

    if (r>=h || c>=w) return;
    float o = 0;
    for (int i = 0; i<k; ++i) o += m[r*k+i] * n[i*w+c];
    out[r*w+c] = o;
}
