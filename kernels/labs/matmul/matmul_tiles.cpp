#include "labs/matmul/matmul_tiles.hpp"

#include "labs/matmul/matmul_registry.hpp"
#include "mapping/cluster.hpp"
#include "mapping/thread_map.hpp"

namespace bs::matmul {

Result<CTiles> c_tiles(MatmulKernel kernel, const MatmulConfig& config, const LaunchConfig& lc, int M, int N) {
  const MatmulGeometry g = matmul_geometry(kernel, config);
  if (g.block_rows <= 0 || g.block_cols <= 0 || M <= 0 || N <= 0)
    return Status::failure("the configuration has an empty block tile", "", "c_tiles");
  CTiles t;
  t.tile_rows = g.block_rows, t.tile_cols = g.block_cols;
  t.rows = static_cast<int>(ceil_div_u(M, g.block_rows)), t.cols = static_cast<int>(ceil_div_u(N, g.block_cols));
  t.block.resize(static_cast<std::size_t>(t.rows) * t.cols);
  Status status = Status::success();
  with_rung(kernel, [&]<class R>() {
    for (int r = 0; r < t.rows && status.ok(); ++r)
      for (int c = 0; c < t.cols; ++c) {
        const std::size_t i = static_cast<std::size_t>(r) * t.cols + c;
        if constexpr (requires { R::persistent_block(lc, M, N, 0, 0); }) {
          auto b = R::persistent_block(lc, M, N, r * g.block_rows, c * g.block_cols);
          if (!b) {
            status = b.status();
            break;
          }
          t.block[i] = *b;
        } else {
          const auto u = [](int v) { return static_cast<unsigned>(v); };
          t.block[i] = g.x_walks_rows ? Dim3{u(r), u(c), 0} : Dim3{u(c), u(r), 0};
        }
      }
  });
  if (!status) return status;
  return t;
}

std::vector<std::uint64_t> tile_keys(const CTiles& tiles, const LaunchRecord& launch, TileColour colour,
                                     bool* recorded) {
  const Dim3 grid = launch.config.grid;
  // The record's schedule by linear block id (traced launches list every block once).
  std::vector<const BlockTrace*> traced(grid.volume(), nullptr);
  for (const BlockTrace& b : launch.schedule)
    if (b.block.x < grid.x && b.block.y < grid.y && b.block.z < grid.z)
      traced[mapping::linear_block_id(b.block, grid)] = &b;
  bool all_recorded = !tiles.block.empty();
  std::vector<std::uint64_t> keys(tiles.block.size(), kNoKey);
  for (std::size_t i = 0; i < tiles.block.size(); ++i) {
    const Dim3 b = tiles.block[i];
    if (b.x >= grid.x || b.y >= grid.y || b.z >= grid.z) {
      all_recorded = false;
      continue;
    }
    const unsigned long long id = mapping::linear_block_id(b, grid);
    const BlockTrace* t = traced[id];
    switch (colour) {
      case TileColour::Block: keys[i] = id; break;
      case TileColour::Cluster: {
        const ClusterPlace p = t && t->cluster ? *t->cluster : mapping::cluster_place(b, grid, launch.config.cluster);
        keys[i] = mapping::linear_cluster_id(p.id, p.count);
        all_recorded &= t && t->cluster.has_value();
        break;
      }
      case TileColour::Sm:
        if (t && !launch.schedule_simulated) keys[i] = t->unit;
        all_recorded &= t && !launch.schedule_simulated;
        break;
    }
  }
  if (recorded) *recorded = colour != TileColour::Block && all_recorded;
  return keys;
}

}  // namespace bs::matmul
