// Where an element of C lives in a tensor-core rung, one level up and one down from the thread:
// the warpgroup (wgmma rungs), the warp, the lane and the accumulator register that holds it, the
// mma instruction tile that produces it (m16n8k16 for T1/T2, m64nNk16 for wgmma) and the k-steps
// that accumulate into it; the operand elements a lane feeds in at one k-step (T1/T2) or the
// slices a warpgroup's wgmma reads from shared memory (T3..T6); and, for the overlay, one key per
// element of a block's tile (warpgroup, warp, lane or mma tile).
//
// This is the MODEL: the PTX ISA's fragment layouts (tc_common.hpp) in closed form, so the view
// can ask it for every element on screen. The rungs' own owner() functions search the same
// layouts (matmul_rung.hpp); tests/matmul/test_matmul_fragments.cpp checks these closed forms
// against a brute-force search of the layout functions. A recorded launch (the `frags` branch's
// FragmentRecord: which thread and register held each element on the GPU or the simulator) is
// drawn beside it, never replaced by it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "labs/matmul/fragment_place.hpp"
#include "labs/matmul/matmul.hpp"

namespace bs::matmul {

// The closed form of `kernel`'s traits (fragment_place.hpp); refuses FP32 rungs (no fragments) and
// (r, c) outside the tile.
Result<FragmentPlace> fragment_place(MatmulKernel kernel, int r, int c);

// "mma.sync.m16n8k16", "wgmma.m64n256k16", "wmma 16x16x16 (2 x mma.m16n8k16)".
std::string mma_name(const FragmentPlace& p);

// The instructions that accumulate into one element: the K tiles the kernel walks times the
// k-steps of 16 in each (the last tile's steps past K multiply the zero padding).
int mma_k_steps(const MatmulGeometry& g, int K);

// What the instruction of k-step `step` reads for the element at (row, col) of C:
//  T1/T2: the lane's own A and B fragment elements (mma_a_coord, mma_b_coord), in matrix
//         coordinates (A row, A col = k) and (B row = k, B col), some past M, N or K (zeros);
//  T3..T6: no lane feeds wgmma its operands: the 64 x 16 slice of A and 16 x N slice of B it reads
//         from shared memory.
// `a_tile` and `b_tile` are the instruction's whole A tile (m x 16) and B tile (16 x n).
struct FedOperands {
  bool from_shared = false;  // wgmma: both operands from shared memory, not from lanes
  std::vector<CRect> a, b;   // 1 x 1 cells (T1/T2); empty for wgmma
  CRect a_tile, b_tile;      // rows, cols of A (m x 16) and of B (16 x n)
};
FedOperands fed_operands(const FragmentPlace& p, long long block_row0, long long block_col0, int step);

// The hover's lines for C[row][col] of a launch `lc` of (kernel, config) on M x N x K, top down:
//   cluster (only where the launch has clusters: the model's %clusterid, %cluster_ctarank),
//   block (blockIdx and its tile), warpgroup (wgmma rungs), warp, lane, the accumulator register,
//   the instruction tile (which of its warp's or warpgroup's, its rows and columns in C), and the
//   k-steps (the `step` shown of all that accumulate into it).
// Every line by the model; the view adds the record's where a tagged launch has one.
struct FragmentHierarchy {
  FragmentPlace place;
  Dim3 block;  // blockIdx (persistent rungs: the block that took the tile)
  long long block_row0 = 0, block_col0 = 0;
  int k_steps = 0, step = 0;  // step clamped to 0 .. k_steps - 1
  std::vector<std::string> lines;
};
Result<FragmentHierarchy> fragment_hierarchy(MatmulKernel kernel, const MatmulConfig& config, const LaunchConfig& lc,
                                             int M, int N, int K, int row, int col, int step);

// What the overlay colours C by.
enum class FragmentColour { Warpgroup, Warp, Lane, Mma };

// One key per element of a block's tile (rows x cols, row-major): the warpgroup, warp, lane or
// mma tile of the element by the model. FP32 rungs: warp and lane from element_owner (their
// threads' outputs), no warpgroup or mma (refused with the reason). The keys repeat from block
// to block (every block runs the same code on its own tile), so the view computes them once per
// rung and draws C by repeating them.
struct FragmentKeys {
  int rows = 0, cols = 0;
  std::vector<std::uint32_t> keys;
  std::uint32_t distinct = 0;  // keys run 0 .. distinct - 1
};
Result<FragmentKeys> fragment_keys(MatmulKernel kernel, const MatmulConfig& config, FragmentColour colour);

}  // namespace bs::matmul
