// The lab's data as a user kernel receives it: the inputs in shared memory (a memfd) that every
// kernel runner maps, so an image or two matrices are copied once, not once per run or per
// kernel; and the lab's reference for verifying each run, computed another way (in double
// precision, with no grid at all).
//
// A runner maps the inputs copy-on-write: a kernel that writes to its input changes only its own
// process's copy, never this data.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.hpp"
#include "labs/custom/forms.hpp"
#include "labs/matmul/matmul.hpp"

namespace bs::custom {

class Problem {
 public:
  // planar_rgb: 3 * width * height bytes (R plane, G plane, B plane), as the lecture's tensors.
  static Result<Problem> gray(std::span<const std::uint8_t> planar_rgb, int width, int height);
  // m: h x k, n: k x w, row-major FP32; out will be h x w.
  static Result<Problem> matmul(std::span<const float> m, std::span<const float> n, int h, int w,
                                int k);

  std::string_view lab() const;  // "gray" or "matmul"
  Shape shape() const;
  std::string summary() const;   // "512 x 512 image, planar RGB" / "h 64, w 48, k 80"

  // Internals the engine reads (layout and reference); not needed by callers.
  struct Data;
  const std::shared_ptr<Data>& data() const { return d_; }

 private:
  std::shared_ptr<Data> d_;
};

struct InputBuffer {
  std::size_t offset = 0;  // bytes into the input memfd
  long long count = 0;     // elements
  unsigned elem_size = 1;
};

struct Problem::Data {
  std::string lab;
  Shape shape;
  int memfd = -1;
  std::size_t bytes = 0;
  unsigned char* map = nullptr;       // this process's view of the inputs
  std::vector<InputBuffer> inputs;    // in parameter order of the form's pointer inputs
  long long output_count = 0;         // elements of out
  unsigned output_elem_size = 1;
  std::uint8_t output_fill = 0;       // what out starts as before each launch

  ~Data();
  const std::uint8_t* bytes_of(std::size_t input) const { return map + inputs[input].offset; }

  // The reference for `out`, computed on first use and kept (matmul's costs a product).
  const std::vector<std::uint8_t>& gray_reference() const;
  struct MatmulReference {
    std::vector<float> c;  // h x w, accumulated in double, rounded once
    matmul::ErrorScale scale;
  };
  const MatmulReference& matmul_reference() const;

 private:
  mutable std::once_flag once_;
  mutable std::vector<std::uint8_t> gray_ref_;
  mutable std::shared_ptr<MatmulReference> matmul_ref_;
};

}  // namespace bs::custom
