// The grayscale lab's offer to the user's own kernels (lab/user_kernel_spec.hpp): the lecture's
// rgb_to_grayscale_kernel in its two forms, on the lab's image as the lecture's tensors hold it.
//
//   form     signature                                              grid
//   gray_1d  (unsigned char* x, unsigned char* out, int n)          (ceil(n / blockDim.x), 1, 1)
//   gray_2d  (unsigned char* x, unsigned char* out, int w, int h)   (ceil(w / blockDim.x), ceil(h / blockDim.y), 1)
//
// x is planar RGB (all red bytes, then green, then blue), 3n bytes, n = w * h; out is n bytes,
// row-major, and starts as 255 in every byte before each launch: no grayscale formula gives 255
// (the weights sum to 0.9999), so a pixel no thread wrote is wrong, not accidentally right. The
// 2D form takes width before height, as the lecture does. The check is the lab's own
// (compare_with_reference against the lab's double-precision reference, within one grey level),
// and the counts are the ones plan() gives the built-in kernels on the planar layout. With the
// source layout set to RGBA, user kernels are refused with that reason.
#pragma once
#include <cstdint>
#include <vector>

#include "lab/user_kernel_spec.hpp"

namespace bs::gray {

const lab::UserKernelSpec& user_kernel_spec();

// What pack() builds from the lab, on plain data (tests build it from their own image and
// reference): `planar` 3 * w * h bytes, `reference` w * h bytes.
Result<lab::UserProblem> pack_user_problem(const lab::UserForm& form, std::vector<std::uint8_t> planar, int w, int h,
                                           std::vector<std::uint8_t> reference, const std::string& name);

}  // namespace bs::gray
