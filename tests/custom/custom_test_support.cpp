#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_NO_STDIO_DEPRECATION
#include <stb_image.h>

#include "custom_test_support.hpp"
#include "test_data.hpp"

namespace bs::custom::test {

PlanarImage sample_image() {
  PlanarImage img;
  int channels = 0;
  const std::string path = bs::test::test_data("assets/sample_astronaut.png").string();  // beside the executable
  unsigned char* rgb = stbi_load(path.c_str(), &img.w, &img.h, &channels, 3);
  if (!rgb) return img;
  const std::size_t n = static_cast<std::size_t>(img.w) * img.h;
  img.planar.resize(3 * n);
  for (std::size_t i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c) img.planar[c * n + i] = rgb[3 * i + c];
  stbi_image_free(rgb);
  return img;
}

}  // namespace bs::custom::test

namespace bs::custom::test {

Result<Problem> matmul_problem(const std::vector<float>& m, const std::vector<float>& n, int h, int w, int k) {
  const lab::UserForm* f = matmul::user_kernel_spec().find_form("matmul");
  if (!f) return Status::failure("no matmul form");
  const std::vector<double> exact = product_in_double(m, n, h, w, k);
  std::vector<float> reference(exact.begin(), exact.end());
  auto p = matmul::pack_user_problem(*f, m, n, h, w, k, std::move(reference),
                                     matmul::error_scale(m.data(), n.data(), h, w, k), "the test's product in double");
  if (!p) return p.status();
  return Problem::create(std::move(p.value()));
}

}  // namespace bs::custom::test
