// Who computes an element of C: the thread (blockIdx, threadIdx, warp, lane, and for the
// tensor-core rungs the accumulator register) whose epilogue stores C[row][col], and every
// output that thread stores, for the UI's hover on C. Each rung says it in its own file
// (Traits::owner, matmul_rung.hpp); tests/matmul/test_matmul_owner.cpp runs the real bodies on
// the simulator, records which thread wrote which element, and compares, so the two cannot
// drift apart.
#pragma once
#include "core/launch.hpp"
#include "core/status.hpp"
#include "labs/matmul/matmul.hpp"

namespace bs::matmul {

// Refuses elements outside M x N and configurations whose geometry is empty; it does not
// re-check everything check_matmul_config does. Persistent rungs need the launch (`lc`: which
// block took which tile depends on how many were resident).
Result<ElementOwner> element_owner(MatmulKernel kernel, const MatmulConfig& config, int M, int N, int row, int col,
                                   const LaunchConfig* lc = nullptr);

}  // namespace bs::matmul
