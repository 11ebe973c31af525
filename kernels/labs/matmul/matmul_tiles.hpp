// Which block computes each tile of C, and the key the overlay colours a tile by: the block, the
// cluster of that block, or the SM it ran on. The block comes from the rung's own rule (its
// geometry, or for persistent rungs the launch's grid and cluster); the cluster and the SM from
// the launch's record where a traced launch recorded them (%clusterid, %smid), else the cluster
// from the PTX ISA's model (mapping/cluster.hpp) and no SM. tests/matmul/test_matmul_tiles.cpp
// checks the blocks against element_owner for every element.
#pragma once
#include <cstdint>
#include <vector>

#include "core/launch_record.hpp"
#include "core/status.hpp"
#include "labs/matmul/matmul.hpp"

namespace bs::matmul {

// C cut into the blocks' tiles (MatmulGeometry::block_rows x block_cols), row-major.
struct CTiles {
  int tile_rows = 0, tile_cols = 0;  // one block's tile of C
  int rows = 0, cols = 0;            // tiles along M and along N
  std::vector<Dim3> block;           // rows * cols: the block that computes each tile
};

// Refuses a configuration with an empty tile or a persistent launch without blocks.
Result<CTiles> c_tiles(MatmulKernel kernel, const MatmulConfig& config, const LaunchConfig& lc, int M, int N);

enum class TileColour { Block, Cluster, Sm };

inline constexpr std::uint64_t kNoKey = ~std::uint64_t{0};

// One key per tile (same order as CTiles::block): the linear block id, the linear id of its
// cluster, or the SM that ran it (kNoKey where the launch's schedule does not say). *recorded:
// every key came from the record (the traced launch's %clusterid or %smid) rather than the model.
std::vector<std::uint64_t> tile_keys(const CTiles& tiles, const LaunchRecord& launch, TileColour colour,
                                     bool* recorded = nullptr);

}  // namespace bs::matmul
