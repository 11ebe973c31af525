#include "labs/matmul/matmul_owner.hpp"

namespace bs::matmul {

Result<ElementOwner> element_owner(MatmulKernel kernel, const MatmulConfig& config, int M, int N, int row,
                                   int col) {
  if (row < 0 || col < 0 || row >= M || col >= N)
    return Status::failure("C[" + std::to_string(row) + "][" + std::to_string(col) + "] is outside the " +
                               std::to_string(M) + " x " + std::to_string(N) + " result",
                           "", "element_owner");
  const MatmulGeometry g = matmul_geometry(kernel, config);
  const TileParams& p = config.tile;
  if (g.block_rows <= 0 || g.block_cols <= 0 || config.block.x == 0 || config.block.y == 0)
    return Status::failure("the configuration has an empty block or tile", "", "element_owner");
  ElementOwner o;
  const int br = row / g.block_rows, bc = col / g.block_cols;
  const long long row0 = static_cast<long long>(br) * g.block_rows, col0 = static_cast<long long>(bc) * g.block_cols;
  const int r = static_cast<int>(row - row0), c = static_cast<int>(col - col0);  // inside the tile
  auto u = [](long long v) { return static_cast<unsigned>(v); };
  switch (kernel) {
    case MatmulKernel::Naive:
    case MatmulKernel::SmemTiled:
      // row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x
      o.block = Dim3{u(bc), u(br), 0};
      o.thread = Dim3{u(c), u(r), 0};
      o.outputs = {{row, col, 1, 1}};
      break;
    case MatmulKernel::Uncoalesced:
      // row = blockIdx.x * blockDim.x + threadIdx.x, col = blockIdx.y * blockDim.y + threadIdx.y
      o.block = Dim3{u(br), u(bc), 0};
      o.thread = Dim3{u(r), u(c), 0};
      o.outputs = {{row, col, 1, 1}};
      break;
    case MatmulKernel::Blocktile1D: {
      // tcol = tid % BN, trow = tid / BN; rows row0 + trow*TM .. + TM of column col0 + tcol
      if (p.TM <= 0) return Status::failure("TM must be positive", "", "element_owner");
      const int trow = r / p.TM, tcol = c;
      o.block = Dim3{u(bc), u(br), 0};
      o.thread = Dim3{u(trow * p.BN + tcol), 0, 0};
      o.outputs = {{row0 + static_cast<long long>(trow) * p.TM, col, p.TM, 1}};
      break;
    }
    case MatmulKernel::Blocktile2D:
    case MatmulKernel::Vectorized: {
      // tcol = tid % (BN / TN), trow = tid / (BN / TN); a TM x TN patch at (trow*TM, tcol*TN)
      if (p.TM <= 0 || p.TN <= 0) return Status::failure("TM and TN must be positive", "", "element_owner");
      const int trow = r / p.TM, tcol = c / p.TN;
      o.block = Dim3{u(bc), u(br), 0};
      o.thread = Dim3{u(trow * (p.BN / p.TN) + tcol), 0, 0};
      o.outputs = {{row0 + static_cast<long long>(trow) * p.TM, col0 + static_cast<long long>(tcol) * p.TN, p.TM, p.TN}};
      break;
    }
    case MatmulKernel::Warptile: {
      // warp = warp_m * (BN / WN) + warp_n over WM x WN warp tiles; lane = lane_m * (WN / TN) +
      // lane_n; a lane's (TM / 4) x (TN / 4) fragments of 4 x 4 sit kSubM = WM / (TM / 4) rows
      // and kSubN = WN / (TN / 4) columns apart, its first at (lane_m * 4, lane_n * 4).
      if (p.TM < 4 || p.TN < 4 || p.WM <= 0 || p.WN <= 0)
        return Status::failure("rung 7 needs TM, TN >= 4 and a warp tile", "", "element_owner");
      const int frags_m = p.TM / 4, frags_n = p.TN / 4;
      const int sub_m = p.WM / frags_m, sub_n = p.WN / frags_n;
      const int lanes_n = p.WN / p.TN;
      const int warp_m = r / p.WM, warp_n = c / p.WN;
      const int rr = r % p.WM, cc = c % p.WN;
      const int lane_m = (rr % sub_m) / 4, lane_n = (cc % sub_n) / 4;
      o.warp = static_cast<unsigned>(warp_m * (p.BN / p.WN) + warp_n);
      o.lane = static_cast<unsigned>(lane_m * lanes_n + lane_n);
      o.block = Dim3{u(bc), u(br), 0};
      o.thread = Dim3{o.warp * 32 + o.lane, 0, 0};
      const long long wr = row0 + static_cast<long long>(warp_m) * p.WM, wc = col0 + static_cast<long long>(warp_n) * p.WN;
      o.warp_tile = {wr, wc, p.WM, p.WN};
      for (int fm = 0; fm < frags_m; ++fm)
        for (int fn = 0; fn < frags_n; ++fn)
          o.outputs.push_back({wr + lane_m * 4 + static_cast<long long>(fm) * sub_m,
                               wc + lane_n * 4 + static_cast<long long>(fn) * sub_n, 4, 4});
      break;
    }
  }
  o.linear_thread = o.thread.x + config.block.x * o.thread.y;
  if (kernel != MatmulKernel::Warptile) {
    o.warp = o.linear_thread / 32;
    o.lane = o.linear_thread % 32;
  }
  return o;
}

}  // namespace bs::matmul
