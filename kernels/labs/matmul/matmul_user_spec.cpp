// The matmul lab's user-kernel spec: the FP32 form, the lecture's naive kernel and lecture 5's
// shared-memory tiles as templates, and the packing of the lab's matrices with its own check.
#include "labs/matmul/matmul_user_spec.hpp"

#include <climits>
#include <cstring>
#include <memory>

#include "labs/matmul/matmul_lab.hpp"

namespace bs::matmul {
namespace {

using Role = lab::UserParam::Role;

// The BF16 form: the tensor-core ladder's layouts (tc_common.hpp), BF16 as raw 16-bit patterns
// (the CPU compiler has no __nv_bfloat16), and the one warp-collective instruction a first
// tensor-core kernel needs, written once per compiler in the form's preludes.
const char* const kBf16GpuPrelude =
    R"(// The BF16 form's helpers (blockscope): two BF16 bit patterns in one register, and the tensor
// cores' mma.sync.m16n8k16 (BF16 in, FP32 accumulate): c += a * b for a warp's 16 x 8 tile. The
// fragments are the PTX ISA's: lane l is groupID g = l / 4, threadID_in_group t = l % 4;
//   a[0] = A[g][2t..2t+1], a[1] = A[g+8][2t..], a[2] = A[g][2t+8..], a[3] = A[g+8][2t+8..]
//   b[0] = B[2t..2t+1][g], b[1] = B[2t+8..2t+9][g]          (B is k x n: bt[n][k])
//   c[0..1] = C[g][2t..2t+1], c[2..3] = C[g+8][2t..2t+1]
__device__ __forceinline__ unsigned bs_pack2(unsigned short lo, unsigned short hi) {
  return (unsigned)lo | ((unsigned)hi << 16);
}
__device__ __forceinline__ void bs_mma_bf16_16816(float (&c)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
#if __CUDA_ARCH__ >= 800
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  __trap();  // BF16 mma needs sm_80
#endif
}
)";

const char* const kBf16CpuPrelude =
    R"(// The BF16 form's helpers on the CPU simulator (blockscope): as on the GPU, bs_pack2 and
// bs_mma_bf16_16816. The 32 lanes of a warp hand their registers to each other through an
// exchange between two __syncthreads (every thread of the block must call it the same number
// of times, as the rungs' loops do), then each lane computes its own c by the PTX ISA's layout.
inline unsigned bs_pack2(unsigned short lo, unsigned short hi) { return (unsigned)lo | ((unsigned)hi << 16); }
inline float bs_bf16_value(unsigned short v) {
  unsigned u = (unsigned)v << 16;
  float f;
  __builtin_memcpy(&f, &u, sizeof f);
  return f;
}
static thread_local float bs_mma_exchange[32][32][16];  // [warp][lane][8 of a, 4 of b, 4 of c]
inline void bs_mma_bf16_16816(float (&c)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  float (*warp)[16] = bs_mma_exchange[tid / 32];
  const int lane = (int)(tid % 32);
  for (int e = 0; e < 8; ++e) warp[lane][e] = bs_bf16_value((unsigned short)(a[e / 2] >> (16 * (e % 2))));
  for (int e = 0; e < 4; ++e) warp[lane][8 + e] = bs_bf16_value((unsigned short)(b[e / 2] >> (16 * (e % 2))));
  for (int e = 0; e < 4; ++e) warp[lane][12 + e] = c[e];
  __syncthreads();
  float A[16][16], B[16][8], C[16][8];
  for (int l = 0; l < 32; ++l) {
    const int g = l / 4, t = l % 4;
    for (int e = 0; e < 8; ++e) A[g + 8 * ((e / 2) % 2)][2 * t + e % 2 + 8 * (e / 4)] = warp[l][e];
    for (int e = 0; e < 4; ++e) B[2 * t + e % 2 + 8 * (e / 2)][g] = warp[l][8 + e];
    for (int e = 0; e < 4; ++e) C[g + 8 * (e / 2)][2 * t + e % 2] = warp[l][12 + e];
  }
  float d[4];
  for (int e = 0; e < 4; ++e) {
    const int row = lane / 4 + 8 * (e / 2), col = 2 * (lane % 4) + e % 2;
    float acc = C[row][col];
    for (int k = 0; k < 16; ++k) acc += A[row][k] * B[k][col];
    d[e] = acc;
  }
  __syncthreads();  // every lane has read the exchange before anyone writes it again
  for (int e = 0; e < 4; ++e) c[e] = d[e];
}
)";

std::vector<lab::UserForm> make_forms() {
  lab::UserForm f;
  f.id = "matmul";
  f.title = "matmul, FP32 (the lecture's)";
  f.params = {{Role::Input, "float", 4, "m", "left matrix, h x k, row-major"},
              {Role::Input, "float", 4, "n", "right matrix, k x w, row-major"},
              {Role::Output, "float", 4, "out", "product, h x w, row-major"},
              {Role::Int, "int", 0, "h", "rows of m and out"},
              {Role::Int, "int", 0, "w", "columns of n and out"},
              {Role::Int, "int", 0, "k", "columns of m, rows of n"}};
  f.grid_extent = {"w", "h", ""};
  f.block_rank = 2;
  f.default_block = {16, 16, 1};
  f.presets = {{8, 8, 1}, {16, 16, 1}, {32, 8, 1}, {32, 32, 1}};

  // The tensor-core ladder's problem (precision = bf16): a and bt are the lab's BF16 layouts
  // (rows of ld = k rounded up to 8, the pad zero; bt is B transposed), out FP32. A block of
  // 4 warps covers a 32 x 32 tile of out, so the grid is (ceil(w / 32), ceil(h / 32)).
  lab::UserForm t;
  t.id = "matmul_bf16";
  t.title = "matmul, BF16 in, FP32 out (tensor cores)";
  t.params = {
      {Role::Input, "unsigned short", 2, "a", "left matrix, h x ld BF16 bit patterns, row-major", "bf16"},
      {Role::Input, "unsigned short", 2, "bt", "right matrix transposed, w x ld BF16 bit patterns, row-major", "bf16"},
      {Role::Output, "float", 4, "out", "product, h x w, row-major FP32"},
      {Role::Int, "int", 0, "h", "rows of a and out"},
      {Role::Int, "int", 0, "w", "rows of bt, columns of out"},
      {Role::Int, "int", 0, "k", "the shared dimension"},
      {Role::Int, "int", 0, "ld", "elements from one row of a (or bt) to the next: k rounded up to 8"}};
  t.grid_extent = {"w", "h", ""};
  t.grid_tile = {32, 32, 0};
  t.block_rank = 1;
  t.default_block = {128, 1, 1};
  t.presets = {{128, 1, 1}};
  t.gpu_prelude = kBf16GpuPrelude;
  t.cpu_prelude = kBf16CpuPrelude;
  return {f, t};
}

std::vector<lab::UserTemplate> make_templates() {
  return {
      {"matmul_naive",
       "Matmul, naive (the lecture's)",
       "matmul",
       {16, 16, 1},
       0,
       R"(// The lecture's matmul: one thread per element of out (h x w); m is h x k, n is k x w.
// Launched with 2D blocks, gridDim = (ceil(w / blockDim.x), ceil(h / blockDim.y)).
__global__ void matmul_k(float* m, float* n, float* out, int h, int w, int k) {
    int r = blockIdx.y*blockDim.y + threadIdx.y;
    int c = blockIdx.x*blockDim.x + threadIdx.x;

    if (r>=h || c>=w) return;
    float o = 0;
    for (int i = 0; i<k; ++i) o += m[r*k+i] * n[i*w+c];
    out[r*w+c] = o;
}
)"},
      {"matmul_tiled",
       "Matmul, shared-memory tiles (lecture 5)",
       "matmul",
       {16, 16, 1},
       0,
       R"(// Shared-memory tiling (lecture 5): each block loads tw x tw tiles of m and n into
// __shared__ memory, waits for all its threads (__syncthreads), then multiplies from there.
// Needs blockDim = (tw, tw): run it with 16 x 16 blocks.
constexpr int tw = 16;

__global__ void matmul_ks(float *m, float *n, float *out, int h, int w, int k) {
    __shared__ float ms[tw][tw], ns[tw][tw];
    int tc=threadIdx.x, tr=threadIdx.y;
    int r=blockIdx.y*blockDim.y+tr, c=blockIdx.x*blockDim.x+tc;

    float p=0.0f;
    for (int ph=0; ph < cdiv(k,tw); ++ph) {
        int idx = ph*tw;
        ms[tr][tc] = r<h && idx+tc<k ? m[ tc+idx + r*k ] : 0.0f;
        ns[tr][tc] = c<w && idx+tr<k ? n[(tr+idx)*w + c] : 0.0f;
        __syncthreads();
        for (int i=0; i<tw; ++i) p += ms[tr][i] * ns[i][tc];
        __syncthreads();
    }
    if (r<h && c<w) out[r*w + c] = p;
}
)"},
      {"matmul_tiled_conflict",
       "Matmul, shared-memory tiles with a bank conflict (on purpose)",
       "matmul",
       {32, 32, 1},
       0,
       R"(// The tiled matmul with a bank conflict on purpose (see the Memory tab's bank view). Its n tile
// is stored transposed, nt[tc][tr]: a warp is the 32 threads of one row tr (tc = 0..31), so its
// store nt[tc][tr] and its read nt[tc][i] touch addresses 32 floats (128 bytes) apart, all in
// one bank: 32 wavefronts where 1 would do. The lecture's tiled matmul reads ns[i][tc] instead,
// 32 consecutive words: one wavefront. Pad the row to spread the column over all 32 banks:
// __shared__ float nt[tw][tw + 1];
// Needs blockDim = (tw, tw): run it with 32 x 32 blocks.
constexpr int tw = 32;

__global__ void matmul_conflict(float *m, float *n, float *out, int h, int w, int k) {
    __shared__ float ms[tw][tw], nt[tw][tw];
    int tc=threadIdx.x, tr=threadIdx.y;
    int r=blockIdx.y*blockDim.y+tr, c=blockIdx.x*blockDim.x+tc;

    float p=0.0f;
    for (int ph=0; ph < cdiv(k,tw); ++ph) {
        int idx = ph*tw;
        ms[tr][tc] = r<h && idx+tc<k ? m[ tc+idx + r*k ] : 0.0f;
        nt[tc][tr] = c<w && idx+tr<k ? n[(tr+idx)*w + c] : 0.0f;  // a column: 32-way
        __syncthreads();
        for (int i=0; i<tw; ++i) p += ms[tr][i] * nt[tc][i];      // a column: 32-way
        __syncthreads();
    }
    if (r<h && c<w) out[r*w + c] = p;
}
)"},
      {"matmul_mma_bf16",
       "Matmul, BF16 tensor cores (mma.sync)",
       "matmul_bf16",
       {128, 1, 1},
       0,
       R"(// A first tensor-core kernel: mma.sync.m16n8k16, BF16 in, FP32 accumulate (the T2 rung's
// instruction, without its pipeline). A block of 4 warps computes a 32 x 32 tile of out, each
// warp 16 x 16 of it as two 16 x 8 mma tiles. Every 16 steps of k the block stages its slices of
// a and bt in shared memory; then each lane gathers the fragment elements the PTX ISA gives it
// (g = lane / 4, t = lane % 4; see the prelude) and the warp multiplies.
// BF16 numbers arrive as their 16-bit patterns; bs_pack2 puts two into one register.
// Launch: block 128, grid (ceil(w / 32), ceil(h / 32)); needs an Ampere or newer GPU.
__global__ void mma_bf16(unsigned short* a, unsigned short* bt, float* out, int h, int w, int k, int ld) {
    __shared__ unsigned short sa[32][16], sb[32][16];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    int ar = (warp / 2) * 16, br = (warp % 2) * 16;  // the warp's rows of sa, of sb
    float c[2][4] = {};
    for (int k0 = 0; k0 < k; k0 += 16) {
        for (int i = threadIdx.x; i < 32 * 16; i += 128) {
            int r = i / 16, kk = i % 16;
            int arow = blockIdx.y * 32 + r, brow = blockIdx.x * 32 + r;
            sa[r][kk] = arow < h && k0 + kk < k ? a[arow * ld + k0 + kk] : 0;
            sb[r][kk] = brow < w && k0 + kk < k ? bt[brow * ld + k0 + kk] : 0;
        }
        __syncthreads();
        unsigned af[4] = {bs_pack2(sa[ar + g][2 * t], sa[ar + g][2 * t + 1]),
                          bs_pack2(sa[ar + g + 8][2 * t], sa[ar + g + 8][2 * t + 1]),
                          bs_pack2(sa[ar + g][2 * t + 8], sa[ar + g][2 * t + 9]),
                          bs_pack2(sa[ar + g + 8][2 * t + 8], sa[ar + g + 8][2 * t + 9])};
        for (int j = 0; j < 2; ++j) {
            int n = br + 8 * j + g;
            unsigned bf[2] = {bs_pack2(sb[n][2 * t], sb[n][2 * t + 1]), bs_pack2(sb[n][2 * t + 8], sb[n][2 * t + 9])};
            bs_mma_bf16_16816(c[j], af, bf);
        }
        __syncthreads();
    }
    for (int j = 0; j < 2; ++j)
        for (int e = 0; e < 4; ++e) {
            int r = blockIdx.y * 32 + ar + g + 8 * (e / 2), col = blockIdx.x * 32 + br + 8 * j + 2 * t + e % 2;
            if (r < h && col < w) out[r * w + col] = c[j][e];
        }
}
)"},
  };
}

template <class T>
std::vector<std::uint8_t> bytes_of(std::span<const T> v) {
  std::vector<std::uint8_t> b(v.size_bytes());
  if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

class MatmulSpec final : public lab::UserKernelSpec {
 public:
  const std::vector<lab::UserForm>& forms() const override { return forms_; }
  const std::vector<lab::UserTemplate>& templates() const override { return templates_; }
  std::string template_for(std::string_view kernel) const override {
    const MatmulKernelInfo* k = find_matmul_kernel(kernel);
    if ((k && k->any_block) || kernel == kCublasId) return "matmul_naive";  // a thread per element of C
    if ((k && k->precision == Precision::Bf16) || kernel == kCublasBf16Id)
      return "matmul_mma_bf16";  // the tensor-core ladder starts from one mma.sync kernel
    return "matmul_tiled";       // shared-memory tiles: where the ladder from rung 3 on starts
  }
  std::uint64_t generation(const lab::Lab& l) const override {
    const auto* m = lab::layer<MatmulLab>(l);
    return m ? m->generation() : 0;
  }
  Result<lab::UserProblem> pack(const lab::Lab& l, const lab::UserForm& form) const override {
    const auto* m = lab::layer<MatmulLab>(l);
    if (!m || !m->ready()) return m ? m->status() : Status::failure("no matrices yet", "", "matmul lab");
    const MatrixSpec& s = m->spec();
    if (form.id == "matmul_bf16" && m->precision() != Precision::Bf16)
      return Status::failure("a BF16 kernel multiplies the tensor-core ladder's matrices; the lab's precision is fp32",
                             "set the precision to bf16 (the matmul panel's precision box, or --set precision=bf16)",
                             "matmul user kernels");
    const auto ref = m->reference();
    return pack_user_problem(form, m->a(), m->b(), s.M, s.N, s.K, {ref.begin(), ref.end()}, m->error_scale(),
                             m->reference_note());
  }

 private:
  std::vector<lab::UserForm> forms_ = make_forms();
  std::vector<lab::UserTemplate> templates_ = make_templates();
};

}  // namespace

const lab::UserKernelSpec& user_kernel_spec() {
  static const MatmulSpec spec;
  return spec;
}

const lab::UserKernelSpec* MatmulLab::user_kernel_spec() const { return &matmul::user_kernel_spec(); }

Result<lab::UserProblem> pack_user_problem(const lab::UserForm& form, std::span<const float> a,
                                           std::span<const float> b, int M, int N, int K, std::vector<float> reference,
                                           ErrorScale scale, std::string against) {
  if (Status s = check_matmul_sizes(M, N, K); !s) return s;
  const auto fits = [](long long rows, long long cols) { return rows * cols <= INT_MAX; };
  if (!fits(M, K) || !fits(K, N) || !fits(M, N))
    return Status::failure("a matrix has more elements than a kernel's int index reaches", "choose smaller sizes",
                           "matmul user kernels");
  if (static_cast<long long>(a.size()) != static_cast<long long>(M) * K ||
      static_cast<long long>(b.size()) != static_cast<long long>(K) * N ||
      static_cast<long long>(reference.size()) != static_cast<long long>(M) * N)
    return Status::failure("m must be h x k, n k x w and the reference h x w", "", "matmul user kernels");
  lab::UserProblem p;
  p.form = form.id;
  // The lecture's names: out (h x w) = m (h x k) * n (k x w); the lab's C (M x N) = A (M x K) * B (K x N).
  p.sizes = {{"h", M}, {"w", N}, {"k", K}};
  const bool bf16 = form.id == "matmul_bf16";
  if (bf16) {  // the tensor-core layouts (a and b should hold BF16 numbers: the reference is of them)
    p.sizes.emplace_back("ld", bf16_row_pitch(K));
    p.inputs = {bytes_of<Bf16>(pack_bf16_rows(a.data(), M, K)), bytes_of<Bf16>(pack_bf16_transposed(b.data(), K, N))};
  } else {
    p.inputs = {bytes_of(a), bytes_of(b)};
  }
  p.output_count = static_cast<long long>(M) * N;
  p.output_fill = 0;  // zeros, as the lecture's torch::zeros
  p.out_width = N;
  p.out_height = M;
  p.summary = "out " + std::to_string(M) + " x " + std::to_string(N) + " = m " + std::to_string(M) + " x " +
              std::to_string(K) + " * n " + std::to_string(K) + " x " + std::to_string(N);
  p.bytes_moved = matmul_compulsory_bytes(M, N, K, bf16 ? Precision::Bf16 : Precision::Fp32);
  p.bytes_note = bf16 ? "a and bt read once in BF16 (rows padded to 16 bytes), out written once in FP32"
                      : "m and n read once, out written once (the least any kernel must move)";
  p.flops = matmul_flops(M, N, K);
  p.replay_work = static_cast<double>(M) * N * K;
  auto ref = std::make_shared<const std::vector<float>>(std::move(reference));
  auto sc = std::make_shared<const ErrorScale>(std::move(scale));
  p.verify = [ref, sc, M, N, against = std::move(against)](const std::uint8_t* out) {
    std::vector<float> got(static_cast<std::size_t>(M) * N);
    std::memcpy(got.data(), out, got.size() * sizeof(float));
    Check c = to_check(verify(got.data(), ref->data(), M, N, *sc));
    c.against = against;
    return c;
  };
  return p;
}

}  // namespace bs::matmul
