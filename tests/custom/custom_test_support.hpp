// Shared by the user-kernel tests: an engine with a private cache folder, the built-in sample
// image as planar RGB, fresh random data, references computed independently of the library
// (double precision, no grid), and problems packed by the labs' own packers
// (gray::pack_user_problem, matmul::pack_user_problem) around those references.
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "labs/custom/custom_kernel.hpp"
#include "labs/grayscale/gray_user_spec.hpp"
#include "test_data.hpp"
#include "labs/matmul/matmul_user_spec.hpp"

namespace bs::custom::test {

// The source tree: compiled in, or $BLOCKSCOPE_SOURCE_DIR where the tests run from a copy (the
// GPU machine).
inline std::string source_dir() {
  if (const char* env = std::getenv("BLOCKSCOPE_SOURCE_DIR"); env && *env) return env;
  return BS_SOURCE_DIR;
}

// A file of the repository the tests read (the user kernels in tests/custom/kernels, the sample
// notebooks): beside the test executable first (test_data/<relative>, copied by the build and
// carried by the GPU bundle), else the source tree, so a test on the GPU machine never reads the
// build machine's paths.
inline std::string repo_file(const std::string& relative) {
  if (const auto p = bs::test::test_data(relative); !p.empty()) return p.string();
  return source_dir() + "/" + relative;
}

inline std::uint32_t fresh_seed() {
  static std::random_device rd;
  return rd();
}

// A cache folder of the test's own, removed afterwards.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    char tmpl[] = "/tmp/bs-custom-test-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

inline EngineOptions options_with_cache(const std::filesystem::path& cache) {
  EngineOptions o;
  o.cache_dir = cache;
  return o;
}

struct PlanarImage {
  int w = 0, h = 0;
  std::vector<std::uint8_t> planar;  // R plane, G plane, B plane
};

// assets/sample_astronaut.png (the app's built-in sample), decoded by stb_image.
PlanarImage sample_image();

inline PlanarImage random_image(int w, int h, std::uint32_t seed) {
  PlanarImage img{w, h, std::vector<std::uint8_t>(static_cast<std::size_t>(w) * h * 3)};
  std::mt19937 rng(seed);
  for (auto& v : img.planar) v = static_cast<std::uint8_t>(rng());
  return img;
}

// The lecture's formula in double precision, truncated like its uint8 store.
inline std::vector<std::uint8_t> gray_in_double(const PlanarImage& img) {
  const std::size_t n = static_cast<std::size_t>(img.w) * img.h;
  std::vector<std::uint8_t> out(n);
  const std::uint8_t* x = img.planar.data();
  for (std::size_t i = 0; i < n; ++i)
    out[i] = static_cast<std::uint8_t>(0.2989 * x[i] + 0.5870 * x[i + n] + 0.1140 * x[i + 2 * n]);
  return out;
}

inline std::vector<float> random_matrix(int rows, int cols, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> m(static_cast<std::size_t>(rows) * cols);
  for (auto& v : m) v = u(rng);
  return m;
}

// out (h x w) = m (h x k) * n (k x w), in double.
inline std::vector<double> product_in_double(const std::vector<float>& m, const std::vector<float>& n, int h, int w,
                                             int k) {
  std::vector<double> out(static_cast<std::size_t>(h) * w, 0.0);
  for (int r = 0; r < h; ++r)
    for (int i = 0; i < k; ++i) {
      const double a = m[static_cast<std::size_t>(r) * k + i];
      for (int c = 0; c < w; ++c)
        out[static_cast<std::size_t>(r) * w + c] += a * n[static_cast<std::size_t>(i) * w + c];
    }
  return out;
}

inline std::vector<float> floats_of(const std::vector<std::uint8_t>& bytes) {
  std::vector<float> f(bytes.size() / sizeof(float));
  std::memcpy(f.data(), bytes.data(), f.size() * sizeof(float));
  return f;
}

// The labs' forms, as their specs offer them.
inline const std::vector<lab::UserForm>& gray_forms() { return gray::user_kernel_spec().forms(); }
inline const std::vector<lab::UserForm>& matmul_forms() { return matmul::user_kernel_spec().forms(); }

// A template's source, from whichever lab's spec has it.
inline std::string template_source(std::string_view id) {
  for (const lab::UserKernelSpec* s : {&gray::user_kernel_spec(), &matmul::user_kernel_spec()})
    if (const lab::UserTemplate* t = s->find_template(id)) return t->source;
  ADD_FAILURE() << "no template " << id;
  return {};
}

// The image packed for the gray form `form`, its check against gray_in_double (computed here).
inline Result<Problem> gray_problem(const PlanarImage& img, std::string_view form = "gray_1d") {
  const lab::UserForm* f = gray::user_kernel_spec().find_form(form);
  if (!f) return Status::failure("no gray form " + std::string(form));
  auto p = gray::pack_user_problem(*f, img.planar, img.w, img.h, gray_in_double(img), "test image");
  if (!p) return p.status();
  return Problem::create(std::move(p.value()));
}

// out (h x w) = m (h x k) * n (k x w), packed for the matmul form, its check against
// product_in_double (computed here) with the lab's tolerance.
Result<Problem> matmul_problem(const std::vector<float>& m, const std::vector<float>& n, int h, int w, int k);

inline double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

inline std::string diagnostics_text(const CompileResult& c) {
  std::string s = c.status.describe();
  for (const Diagnostic& d : c.diagnostics) s += "\n  " + describe(d);
  return s;
}

// The lecture's kernels, as pasted from its notebook (gpu-mode lecture 3, pmpp.ipynb).
inline constexpr const char* kLectureGray1D =
    R"(__global__ void rgb_to_grayscale_kernel(unsigned char* x, unsigned char* out, int n) {
    int i = blockIdx.x*blockDim.x + threadIdx.x;
    if (i<n) out[i] = 0.2989*x[i] + 0.5870*x[i+n] + 0.1140*x[i+2*n];
}
)";

inline constexpr const char* kLectureGray2D =
    R"(__global__ void rgb_to_grayscale_kernel(unsigned char* x, unsigned char* out, int w, int h) {
    int c = blockIdx.x*blockDim.x + threadIdx.x;
    int r = blockIdx.y*blockDim.y + threadIdx.y;

    if (c<w && r<h) {
        int i = r*w + c;
        int n = h*w;
        out[i] = 0.2989*x[i] + 0.5870*x[i+n] + 0.1140*x[i+2*n];
    }
}
)";

inline constexpr const char* kLectureMatmul =
    R"(__global__ void matmul_k(float* m, float* n, float* out, int h, int w, int k) {
    int r = blockIdx.y*blockDim.y + threadIdx.y;
    int c = blockIdx.x*blockDim.x + threadIdx.x;

    if (r>=h || c>=w) return;
    float o = 0;
    for (int i = 0; i<k; ++i) o += m[r*k+i] * n[i*w+c];
    out[r*w+c] = o;
}
)";

}  // namespace bs::custom::test
