// The GPU heatmap kernel (fill_heatmap_device) against the host fill, on fresh random matrices of
// odd sizes, downsampled and not, both encodings, with NaN and a wrong element planted. The two
// share one per-texel function; the GPU may contract a multiply-add differently, so a value on a
// code boundary may land one code apart, never more, and the special codes agree exactly.
// Label gpu; skips visibly without a CUDA device.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "labs/matmul/matmul.hpp"
#include "labs/matmul/matmul_heatmap.hpp"
#include "matmul_test_support.hpp"
#include "skips.hpp"

namespace {

using namespace bs::matmul;

bool have_device() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

template <class T>
T* to_device(const std::vector<T>& v) {
  T* p = nullptr;
  EXPECT_EQ(cudaMalloc(&p, v.size() * sizeof(T)), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  return p;
}

TEST(MatmulHeatmapGpu, DeviceCodesEqualTheHostCodes) {
  if (!have_device()) BS_SKIP_NO_GPU() << "no CUDA device";
  struct Case {
    int rows, cols, out_w, out_h;
    HeatmapEncoding encoding;
  };
  const Case cases[] = {{1000, 777, 333, 250, HeatmapEncoding::Values},
                        {1000, 777, 333, 250, HeatmapEncoding::AbsError},
                        {129, 67, 67, 129, HeatmapEncoding::Values},
                        {129, 67, 67, 129, HeatmapEncoding::AbsError},
                        {10000, 10, 10, 1024, HeatmapEncoding::AbsError}};
  for (const Case& c : cases) {
    const std::uint64_t seed = bs::matmul::testing::test_seed() + static_cast<std::uint64_t>(c.rows);
    std::vector<float> ref = generate_matrix(c.rows, c.cols, Pattern::Normal, seed);
    std::vector<float> got = ref;
    for (std::size_t i = 0; i < got.size(); i += 5) got[i] *= 1.0f + 1e-6f;
    got[got.size() / 3] = std::numeric_limits<float>::quiet_NaN();
    got[got.size() / 2] += 1.0f;
    const HeatmapSpec spec{c.rows,
                           c.cols,
                           c.out_w,
                           c.out_h,
                           c.encoding,
                           c.encoding == HeatmapEncoding::Values ? -2.0f : 1e-9f,
                           c.encoding == HeatmapEncoding::Values ? 2.0f : 1e-4f};
    std::vector<std::uint8_t> host(static_cast<std::size_t>(c.out_w) * c.out_h), device(host.size());
    ASSERT_TRUE(fill_heatmap_host(got.data(), ref.data(), spec, host.data()).ok());
    float* d_got = to_device(got);
    float* d_ref = to_device(ref);
    std::uint8_t* d_out = nullptr;
    ASSERT_EQ(cudaMalloc(&d_out, device.size()), cudaSuccess);
    ASSERT_TRUE(fill_heatmap_device(d_got, d_ref, spec, d_out).ok());
    ASSERT_EQ(cudaMemcpy(device.data(), d_out, device.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    cudaFree(d_got);
    cudaFree(d_ref);
    cudaFree(d_out);
    std::size_t off_by_one = 0;
    for (std::size_t i = 0; i < host.size(); ++i) {
      const int h = host[i], d = device[i];
      if (h == 0 || h == 255 || d == 0 || d == 255) {
        ASSERT_EQ(h, d) << "texel " << i << " of " << c.rows << "x" << c.cols;
      } else {
        ASSERT_LE(std::abs(h - d), 1) << "texel " << i;
        off_by_one += h != d;
      }
    }
    EXPECT_LT(off_by_one, host.size() / 100 + 1) << c.rows << "x" << c.cols;
  }
}

TEST(MatmulHeatmapGpu, BadSpecsAreRefusedBeforeLaunch) {
  if (!have_device()) BS_SKIP_NO_GPU() << "no CUDA device";
  const HeatmapSpec wide{4, 4, 8, 4, HeatmapEncoding::Values, -1, 1};
  EXPECT_FALSE(fill_heatmap_device(nullptr, nullptr, wide, nullptr).ok());
  const HeatmapSpec ok{4, 4, 4, 4, HeatmapEncoding::Values, -1, 1};
  EXPECT_FALSE(fill_heatmap_device(nullptr, nullptr, ok, nullptr).ok()) << "null pointers are refused";
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

}  // namespace
