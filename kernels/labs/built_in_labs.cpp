#include "labs/built_in_labs.hpp"

#include "labs/grayscale/gray_lab.hpp"
#include "labs/grayscale/gray_user_spec.hpp"
#include "labs/matmul/matmul_lab.hpp"
#include "labs/matmul/matmul_user_spec.hpp"

namespace bs::labs {

lab::Catalog built_in_labs() {
  return {
      {"gray", "Grayscale", &lab::create_as_lab<gray::GrayLab>, &gray::user_kernel_spec()},
      {"matmul", "Matmul", &lab::create_as_lab<matmul::MatmulLab>, &matmul::user_kernel_spec()},
  };
}

}  // namespace bs::labs
