// y = a x + y: a tiny kernel whose SASS uses general, predicate and uniform registers.
__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[i] = a * v + y[i];
  }
}
