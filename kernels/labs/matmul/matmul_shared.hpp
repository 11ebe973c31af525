// Shared-memory requests of the rungs that stage tiles in shared memory (k3..k7, T2), two ways:
//
//   recorded   the simulator runs the rung's own body for the chosen blocks with a
//              sim::SharedRecorder attached; each lane's accesses come back in program order
//              (core/shared_access.hpp), with the source line of each;
//   modelled   written in each rung's traits (shared_lane) from its index expressions (the tile layouts, the loops'
//              trip counts, the lane -> row / column mapping), without running anything.
//
// The two are different computations of the same thing: the checks (tests/matmul/
// test_matmul_banks.cpp) compare the bank conflicts of every sampled request, and the bank view
// draws the recorded one. The model also sums a launch's wavefronts for the Measured tab, where
// recording every block would be far too slow.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/shared_access.hpp"
#include "labs/matmul/matmul.hpp"
#include "labs/matmul/shared_model.hpp"
#include "mapping/shared_banks.hpp"
#include "simulator/shared_recorder.hpp"

namespace bs::matmul {

// Whether the rung's traits model its shared-memory requests (MatmulKernelInfo::shared_model).
bool has_shared_model(MatmulKernel kernel);

// Each lane's accesses (32 lists) of warp `warp` of block `block` in an M x N x K launch.
Result<std::vector<std::vector<SharedAccess>>> model_shared_lanes(MatmulKernel kernel, const MatmulConfig& config,
                                                                  int M, int N, int K, Dim3 block, unsigned warp,
                                                                  const SharedModelOptions& options = {});

// Runs the rung's body on the simulator for `blocks` only, recording their shared accesses.
// `buffers` must hold the launch's host matrices (C is written for those blocks only).
Result<std::unique_ptr<sim::SharedRecorder>> record_shared(MatmulKernel kernel, const MatmulConfig& config,
                                                           const MatmulBuffers& buffers, int M, int N, int K,
                                                           const std::vector<Dim3>& blocks,
                                                           unsigned max_per_thread = 1u << 16);

// A launch's shared-memory traffic as the model counts it: every warp of up to `max_blocks`
// blocks spread over the grid (first and last included), every request, scaled to the grid.
struct SharedLaunchModel {
  mapping::SharedTotals totals;  // the whole launch
  std::string sample;            // what was counted
};
Result<SharedLaunchModel> model_shared_launch(MatmulKernel kernel, const MatmulConfig& config, int M, int N, int K,
                                              unsigned max_blocks = 8);

}  // namespace bs::matmul
