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
  return {f};
}

std::vector<lab::UserTemplate> make_templates() {
  return {
      {"matmul_naive", "Matmul, naive (the lecture's)", "matmul", {16, 16, 1}, 0,
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
      {"matmul_tiled", "Matmul, shared-memory tiles (lecture 5)", "matmul", {16, 16, 1}, 0,
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
  };
}

std::vector<std::uint8_t> bytes_of(const std::vector<float>& v) {
  std::vector<std::uint8_t> b(v.size() * sizeof(float));
  if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

class MatmulSpec final : public lab::UserKernelSpec {
 public:
  const std::vector<lab::UserForm>& forms() const override { return forms_; }
  const std::vector<lab::UserTemplate>& templates() const override { return templates_; }
  std::string template_for(std::string_view kernel) const override {
    if (kernel == "k1_naive" || kernel == "k2_uncoalesced" || kernel == kCublasId) return "matmul_naive";
    return "matmul_tiled";  // shared-memory tiles: where the ladder from rung 3 on starts
  }
  std::uint64_t generation(const lab::Lab& l) const override {
    const auto* m = lab::layer<MatmulLab>(l);
    return m ? m->generation() : 0;
  }
  Result<lab::UserProblem> pack(const lab::Lab& l, const lab::UserForm& form) const override {
    const auto* m = lab::layer<MatmulLab>(l);
    if (!m || !m->ready()) return m ? m->status() : Status::failure("no matrices yet", "", "matmul lab");
    const MatrixSpec& s = m->spec();
    return pack_user_problem(form, m->a(), m->b(), s.M, s.N, s.K, m->reference(), m->error_scale(),
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

Result<lab::UserProblem> pack_user_problem(const lab::UserForm& form, const std::vector<float>& a,
                                           const std::vector<float>& b, int M, int N, int K,
                                           std::vector<float> reference, ErrorScale scale, std::string against) {
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
  p.inputs = {bytes_of(a), bytes_of(b)};
  p.output_count = static_cast<long long>(M) * N;
  p.output_fill = 0;  // zeros, as the lecture's torch::zeros
  p.out_width = N;
  p.out_height = M;
  p.summary = "out " + std::to_string(M) + " x " + std::to_string(N) + " = m " + std::to_string(M) + " x " +
              std::to_string(K) + " * n " + std::to_string(K) + " x " + std::to_string(N);
  p.bytes_moved = matmul_compulsory_bytes(M, N, K);
  p.bytes_note = "m and n read once, out written once (the least any kernel must move)";
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
