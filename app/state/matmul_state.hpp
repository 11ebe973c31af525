// What the user chose in the matmul lab, as plain data (the command line fills it too; see
// cli/options.hpp). The session (shell/matmul_session.hpp) reads it every frame and rebuilds
// the matrices or reruns the kernel when it changes.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "core/dim.hpp"
#include "labs/matmul/matmul_configs.hpp"

namespace bs::app {

struct MatmulState {
  int M = 0, N = 0, K = 0;     // C = A (M x K) * B (K x N); 0: the backend's default shape
  std::string kernel;          // registry id, "k1_naive" ... "k7_warptile"; empty: the default
  int config_index = 0;        // which of the kernel's listed configurations
  std::optional<Dim3> block;   // rungs 1-3: a blockDim the user typed (overrides config_index)
  std::optional<matmul::TileParams> tile;  // rungs 4-7: typed tile parameters (refused unless
                                           // they are a compiled configuration)
  std::string pattern_a = "uniform", pattern_b = "uniform";  // matmul::pattern_from_string names
  std::uint64_t seed = 1;      // A from seed, B from seed + 1
  int phase = 0;               // the K tile the shared-memory view shows
  bool run_continuously = true;
  bool block_lines = true;     // block tile boundaries over C and |C - reference|
};

}  // namespace bs::app
