// The matmul lab's offer to the user's own kernels (lab/user_kernel_spec.hpp): the lecture's
// matmul_k form in FP32, on the lab's matrices, checked by the lab's own tolerance.
//
//   form         signature                                                  grid
//   matmul       (float* m, float* n, float* out, int h, int w, int k)      (ceil(w / blockDim.x), ceil(h /
//   blockDim.y), 1) matmul_bf16  (unsigned short* a, unsigned short* bt, float* out,        (ceil(w / 32), ceil(h /
//   32), 1)
//                 int h, int w, int k, int ld)
//
// out (h x w) = m (h x k) * n (k x w), row-major FP32: the lab's C (M x N) = A (M x K) * B (K x N)
// in the lecture's names. out starts as zeros before each launch (the lecture's torch::zeros).
// The check is matmul::verify against the lab's reference with its documented tolerance; the
// counts are matmul_flops and the compulsory bytes plan() gives the built-in rungs.
//
// The BF16 form takes the tensor-core ladder's layouts (tc_common.hpp: a h x ld, bt = B
// transposed w x ld, BF16 as 16-bit patterns, ld = k rounded up to 8) with FP32 out, and brings
// bs_pack2 and bs_mma_bf16_16816 (mma.sync.m16n8k16) in its preludes: PTX on the GPU, the
// warp's registers exchanged by the PTX ISA's layout on the CPU simulator. pack() refuses it
// while the lab's precision is fp32. Nothing in kernels/labs/custom knows of it.
#pragma once
#include <span>
#include <vector>

#include "lab/user_kernel_spec.hpp"
#include "labs/matmul/matmul.hpp"

namespace bs::matmul {

const lab::UserKernelSpec& user_kernel_spec();

// What pack() builds from the lab, on plain data (tests build it from their own matrices and
// reference): a is M x K, b is K x N, reference M x N; `against` names the reference.
Result<lab::UserProblem> pack_user_problem(const lab::UserForm& form, std::span<const float> a,
                                           std::span<const float> b, int M, int N, int K, std::vector<float> reference,
                                           ErrorScale scale, std::string against);

}  // namespace bs::matmul
