// The ladder's registry: what each rung is, which configurations are compiled, the exact launch
// shape, and the rules that refuse a configuration before launch.
#include <algorithm>
#include <iterator>

#include "labs/matmul/k3_smem_tiled.hpp"
#include "labs/matmul/k4_blocktile_1d.hpp"
#include "labs/matmul/k5_blocktile_2d.hpp"
#include "labs/matmul/k6_vectorized.hpp"
#include "labs/matmul/k7_warptile.hpp"
#include "labs/matmul/matmul.hpp"

namespace bs::matmul {
namespace {

bool tiled(MatmulKernel k) {
  return k == MatmulKernel::Blocktile1D || k == MatmulKernel::Blocktile2D ||
         k == MatmulKernel::Vectorized || k == MatmulKernel::Warptile;
}

unsigned threads_for(MatmulKernel k, const TileParams& p) {
  if (p.BM <= 0 || p.BN <= 0 || p.TM <= 0 || p.TN <= 0) return 0;
  switch (k) {
    case MatmulKernel::Blocktile1D:
      return static_cast<unsigned>((p.BM / p.TM) * p.BN);
    case MatmulKernel::Blocktile2D:
    case MatmulKernel::Vectorized:
      return static_cast<unsigned>((p.BM / p.TM) * (p.BN / p.TN));
    case MatmulKernel::Warptile:
      return p.WM > 0 && p.WN > 0 ? static_cast<unsigned>((p.BM / p.WM) * (p.BN / p.WN) * 32) : 0;
    default:
      return 0;
  }
}

// Formulas for the Smem structs' sizes; the static_asserts below keep them honest.
std::size_t shared_bytes_of(MatmulKernel k, const TileParams& p, Dim3 block) {
  const std::size_t f = sizeof(float);
  switch (k) {
    case MatmulKernel::SmemTiled:
      return 2 * static_cast<std::size_t>(block.x) * block.x * f;
    case MatmulKernel::Blocktile1D:
    case MatmulKernel::Blocktile2D:
    case MatmulKernel::Vectorized:
      return static_cast<std::size_t>(p.BM * p.BK + p.BK * p.BN) * f;
    case MatmulKernel::Warptile: {
      // K7Smem: two stages; A's rows padded by 4 floats where that still fits in 48 KB.
      const int pad = 2 * p.BK * (p.BM + 4 + p.BN) * 4 <= 48 * 1024 ? 4 : 0;
      return 2 * static_cast<std::size_t>(p.BK * (p.BM + pad) + p.BK * p.BN) * f;
    }
    default:
      return 0;
  }
}
static_assert(sizeof(K3Smem<16>) == 2 * 16 * 16 * 4);
static_assert(sizeof(K5Smem<128, 128, 8>) == (128 * 8 + 8 * 128) * 4);
static_assert(sizeof(K6Smem<128, 128, 16>) == (128 * 16 + 16 * 128) * 4);
static_assert(sizeof(K7Smem<128, 256, 8>) == 2 * (8 * (128 + 4) + 8 * 256) * 4);
static_assert(sizeof(K7Smem<128, 128, 16>) == 2 * (16 * (128 + 4) + 16 * 128) * 4);
static_assert(sizeof(K7Smem<128, 256, 16>) == 2 * (16 * 128 + 16 * 256) * 4);  // unpadded: 48 KB

template <std::size_t Count>
std::string list_tiles(MatmulKernel k, const TileParams (&table)[Count]) {
  std::string s;
  for (const TileParams& p : table) {
    if (!s.empty()) s += "; ";
    s += describe(k, make_config(k, p));
  }
  return s;
}

std::string tile_text(MatmulKernel k, const TileParams& p) {
  auto kv = [](const char* name, int v) { return std::string(name) + "=" + std::to_string(v); };
  std::string s = kv("BM", p.BM) + " " + kv("BN", p.BN) + " " + kv("BK", p.BK) + " " + kv("TM", p.TM);
  if (k != MatmulKernel::Blocktile1D) s += " " + kv("TN", p.TN);
  if (k == MatmulKernel::Warptile) {
    s += " " + kv("WM", p.WM) + " " + kv("WN", p.WN);
    if (p.MB > 0) s += " " + kv("MB", p.MB);
  }
  return s;
}

std::vector<MatmulConfig> block_configs(MatmulKernel k, std::initializer_list<Dim3> blocks) {
  std::vector<MatmulConfig> v;
  for (Dim3 b : blocks) v.push_back(make_block_config(k, b));
  return v;
}

template <std::size_t Count>
std::vector<MatmulConfig> tile_configs(MatmulKernel k, const TileParams (&table)[Count]) {
  std::vector<MatmulConfig> v;
  for (const TileParams& p : table) v.push_back(make_config(k, p));
  return v;
}

std::vector<MatmulKernelInfo> build_registry() {
  using K = MatmulKernel;
  std::vector<MatmulKernelInfo> r;
  r.push_back({K::Naive, "k1_naive", "1. naive (the lecture's)",
               "one thread per output, row from y, column from x: coalesced B reads, but every "
               "operand comes from global memory",
               "kernels/labs/matmul/k1_naive.hpp",
               block_configs(K::Naive, {{32, 32, 1}, {16, 16, 1}, {32, 8, 1}, {8, 8, 1}}), false,
               false, true});
  r.push_back({K::Uncoalesced, "k2_uncoalesced", "2. naive, x mapped to rows",
               "the same arithmetic with threadIdx.x along rows: a warp reads 32 different rows, "
               "so its loads are no longer coalesced",
               "kernels/labs/matmul/k2_uncoalesced.hpp",
               block_configs(K::Uncoalesced, {{32, 32, 1}, {16, 16, 1}, {32, 8, 1}, {8, 8, 1}}),
               false, false, true});
  {
    std::vector<MatmulConfig> c;
    for (int t : kK3Tiles)
      c.push_back(make_block_config(K::SmemTiled, Dim3{static_cast<unsigned>(t), static_cast<unsigned>(t), 1}));
    r.push_back({K::SmemTiled, "k3_smem_tiled", "3. shared-memory tiles (tile = block)",
                 "each block stages T x T tiles of A and B in shared memory between two "
                 "__syncthreads, so each global load serves T threads",
                 "kernels/labs/matmul/k3_smem_tiled.hpp", c, true, true, false});
  }
  r.push_back({K::Blocktile1D, "k4_blocktile_1d", "4. 1D register blocking",
               "each thread accumulates TM outputs of a column in registers: TM FMAs per B value "
               "read from shared memory",
               "kernels/labs/matmul/k4_blocktile_1d.hpp", tile_configs(K::Blocktile1D, kK4Params), true,
               true, false});
  r.push_back({K::Blocktile2D, "k5_blocktile_2d", "5. 2D register blocking",
               "each thread computes a TM x TN patch as outer products: TM*TN FMAs per TM+TN "
               "shared loads",
               "kernels/labs/matmul/k5_blocktile_2d.hpp", tile_configs(K::Blocktile2D, kK5Params), true,
               true, false});
  r.push_back({K::Vectorized, "k6_vectorized", "6. float4 loads, transposed A tile",
               "16-byte loads from global and shared memory; A is transposed into shared memory "
               "so a thread's A values are contiguous too",
               "kernels/labs/matmul/k6_vectorized.hpp", tile_configs(K::Vectorized, kK6Params), true,
               true, false});
  r.push_back({K::Warptile, "k7_warptile", "7. warp tiling, double-buffered",
               "block, warp and thread tiles arranged so every shared-memory read of a warp is "
               "conflict-free, with the next tile's loads in flight during the FMAs (B by "
               "cp.async) and interior blocks loading without per-element checks",
               "kernels/labs/matmul/k7_warptile.hpp", tile_configs(K::Warptile, kK7Params), true, true,
               false});
  return r;
}

}  // namespace

const std::vector<MatmulKernelInfo>& matmul_kernels() {
  static const std::vector<MatmulKernelInfo> registry = build_registry();  // immutable
  return registry;
}

const MatmulKernelInfo& matmul_kernel_info(MatmulKernel kernel) {
  return matmul_kernels()[static_cast<std::size_t>(kernel)];
}

const MatmulKernelInfo* find_matmul_kernel(std::string_view id) {
  for (const auto& k : matmul_kernels())
    if (k.id == id) return &k;
  return nullptr;
}

MatmulConfig make_config(MatmulKernel kernel, const TileParams& tile) {
  MatmulConfig c;
  c.tile = tile;
  c.block = Dim3{threads_for(kernel, tile), 1, 1};
  c.label = describe(kernel, c);
  return c;
}

MatmulConfig make_block_config(MatmulKernel kernel, Dim3 block) {
  MatmulConfig c;
  c.block = block;
  if (kernel == MatmulKernel::SmemTiled)
    c.tile = TileParams{static_cast<int>(block.x), static_cast<int>(block.x), static_cast<int>(block.x),
                        1, 1, 0, 0};
  c.label = describe(kernel, c);
  return c;
}

std::string describe(MatmulKernel kernel, const MatmulConfig& c) {
  const std::string threads = std::to_string(c.block.volume()) + " threads";
  if (kernel == MatmulKernel::Naive || kernel == MatmulKernel::Uncoalesced)
    return "block " + std::to_string(c.block.x) + "x" + std::to_string(c.block.y) +
           (c.block.z != 1 ? "x" + std::to_string(c.block.z) : "") + " | " + threads;
  if (kernel == MatmulKernel::SmemTiled)
    return "tile " + std::to_string(c.block.x) + "x" + std::to_string(c.block.y) + " | " + threads;
  return tile_text(kernel, c.tile) + " | " + threads;
}

LaunchConfig matmul_launch_config(MatmulKernel kernel, const MatmulConfig& c, int M, int N, int K) {
  (void)K;
  auto cd = [](int n, int b) {
    return b > 0 && n > 0 ? static_cast<unsigned>(ceil_div(static_cast<unsigned long long>(n),
                                                           static_cast<unsigned long long>(b)))
                          : 0u;
  };
  LaunchConfig lc;
  lc.block = c.block;
  switch (kernel) {
    case MatmulKernel::Naive:
      lc.grid = Dim3{cd(N, static_cast<int>(c.block.x)), cd(M, static_cast<int>(c.block.y)), 1};
      break;
    case MatmulKernel::Uncoalesced:
      lc.grid = Dim3{cd(M, static_cast<int>(c.block.x)), cd(N, static_cast<int>(c.block.y)), 1};
      break;
    case MatmulKernel::SmemTiled:
      lc.grid = Dim3{cd(N, static_cast<int>(c.block.x)), cd(M, static_cast<int>(c.block.x)), 1};
      break;
    default:
      lc.block = Dim3{threads_for(kernel, c.tile), 1, 1};
      lc.grid = Dim3{cd(N, c.tile.BN), cd(M, c.tile.BM), 1};
      break;
  }
  return lc;
}

MatmulGeometry matmul_geometry(MatmulKernel kernel, const MatmulConfig& c) {
  MatmulGeometry g;
  const TileParams& p = c.tile;
  switch (kernel) {
    case MatmulKernel::Naive:
      g.block_rows = static_cast<int>(c.block.y), g.block_cols = static_cast<int>(c.block.x);
      break;
    case MatmulKernel::Uncoalesced:
      g.block_rows = static_cast<int>(c.block.x), g.block_cols = static_cast<int>(c.block.y);
      g.x_walks_rows = true;
      break;
    case MatmulKernel::SmemTiled:
      g.block_rows = g.block_cols = g.k_step = static_cast<int>(c.block.x);
      g.stages = 1;
      break;
    case MatmulKernel::Blocktile1D:
      g.block_rows = p.BM, g.block_cols = p.BN, g.k_step = p.BK, g.stages = 1;
      g.thread_rows = p.TM;
      break;
    case MatmulKernel::Blocktile2D:
    case MatmulKernel::Vectorized:
      g.block_rows = p.BM, g.block_cols = p.BN, g.k_step = p.BK, g.stages = 1;
      g.thread_rows = p.TM, g.thread_cols = p.TN;
      break;
    case MatmulKernel::Warptile:
      g.block_rows = p.BM, g.block_cols = p.BN, g.k_step = p.BK, g.stages = 2;
      g.thread_rows = p.TM, g.thread_cols = p.TN, g.warp_rows = p.WM, g.warp_cols = p.WN;
      break;
  }
  return g;
}

std::size_t matmul_shared_bytes(MatmulKernel kernel, const MatmulConfig& c) {
  return shared_bytes_of(kernel, c.tile, c.block);
}

Status check_matmul_config(MatmulKernel kernel, const MatmulConfig& c, int M, int N, int K,
                           const DeviceLimits& limits) {
  if (Status s = check_matmul_sizes(M, N, K); !s) return s;
  const MatmulKernelInfo& info = matmul_kernel_info(kernel);
  auto refuse = [&](std::string why, std::string hint) {
    return Status::failure(info.id + ": " + why, std::move(hint), "check_matmul_config");
  };
  const TileParams& p = c.tile;

  switch (kernel) {
    case MatmulKernel::Naive:
    case MatmulKernel::Uncoalesced:
      if (c.block.z != 1)
        return refuse("blockDim.z = " + std::to_string(c.block.z) +
                          ": this kernel maps only x and y to C, extra z threads would repeat "
                          "the same outputs",
                      "use blockDim.z = 1");
      break;
    case MatmulKernel::SmemTiled: {
      if (c.block.x != c.block.y || c.block.z != 1)
        return refuse("block " + to_string(c.block) +
                          " is not square: the tile equals the block, and each thread loads one "
                          "element of the A tile (T wide) and one of the B tile (T tall)",
                      "use a T x T x 1 block");
      if (find_in(kK3Tiles, static_cast<int>(c.block.x)) < 0) {
        std::string list;
        for (int t : kK3Tiles) list += (list.empty() ? "" : ", ") + std::to_string(t);
        return refuse("T = " + std::to_string(c.block.x) +
                          " is not compiled: the shared tiles are fixed-size arrays, T in {" +
                          list + "}",
                      "pick T from {" + list + "}");
      }
      break;
    }
    default: {
      if (p.BM <= 0 || p.BN <= 0 || p.BK <= 0 || p.TM <= 0 || p.TN <= 0)
        return refuse("tile parameters must be positive", "pick a compiled configuration");
      if (p.BM % p.TM != 0 || (kernel != MatmulKernel::Blocktile1D && p.BN % p.TN != 0))
        return refuse("the thread tile " + std::to_string(p.TM) + "x" + std::to_string(p.TN) +
                          " does not divide the block tile " + std::to_string(p.BM) + "x" +
                          std::to_string(p.BN),
                      "BM must be a multiple of TM and BN of TN");
      if (kernel == MatmulKernel::Blocktile1D && p.TN != 1)
        return refuse("1D blocktiling computes one column per thread: TN must be 1", "set TN = 1");
      if ((kernel == MatmulKernel::Vectorized || kernel == MatmulKernel::Warptile) &&
          (p.TM % 4 != 0 || p.TN % 4 != 0 || p.BK % 4 != 0 || p.BN % 4 != 0))
        return refuse("float4 paths need TM, TN, BK and BN to be multiples of 4",
                      "pick multiples of 4");
      if (kernel != MatmulKernel::Warptile && p.MB != 0)
        return refuse("MB (blocks per SM for the register budget) is a rung-7 knob", "set MB = 0");
      if (kernel == MatmulKernel::Warptile) {
        if (p.MB < 1 || p.MB > static_cast<int>(limits.max_blocks_per_sm))
          return refuse("MB = " + std::to_string(p.MB) +
                            ": the blocks per SM the compiler must fit (1 uncaps registers, 2 "
                            "caps 256-thread blocks at 128 registers) must be at least 1",
                        "pick MB from the compiled set");
        if (p.WM <= 0 || p.WN <= 0 || p.BM % p.WM != 0 || p.BN % p.WN != 0)
          return refuse("the warp tile " + std::to_string(p.WM) + "x" + std::to_string(p.WN) +
                            " does not divide the block tile",
                        "BM must be a multiple of WM and BN of WN");
        if (p.WM % p.TM != 0 || p.WN % p.TN != 0 || (p.WM / p.TM) * (p.WN / p.TN) != 32)
          return refuse("a warp tile must hold exactly 32 thread tiles: (WM/TM) * (WN/TN) = " +
                            std::to_string(p.WM % p.TM == 0 && p.WN % p.TN == 0
                                               ? (p.WM / p.TM) * (p.WN / p.TN)
                                               : -1),
                        "choose WM, WN, TM, TN with (WM/TM) * (WN/TN) = 32");
      }
      const unsigned threads = threads_for(kernel, p);
      if (c.block != Dim3{threads, 1, 1})
        return refuse("block " + to_string(c.block) + " does not match the tile: " +
                          tile_text(kernel, p) + " needs exactly " + std::to_string(threads) +
                          " threads in a 1D block",
                      "use blockDim (" + std::to_string(threads) + ", 1, 1)");
      break;
    }
  }

  const std::size_t smem = matmul_shared_bytes(kernel, c);
  if (smem > limits.shared_per_block)
    return refuse("the tiles need " + std::to_string(smem) + " bytes of shared memory per block; " +
                      limits.name + " allows " + std::to_string(limits.shared_per_block) +
                      " without opt-in",
                  "use smaller BM, BN or BK");

  if (tiled(kernel)) {
    int index = -1;
    std::string list;
    switch (kernel) {
      case MatmulKernel::Blocktile1D: index = find_in(kK4Params, p); list = list_tiles(kernel, kK4Params); break;
      case MatmulKernel::Blocktile2D: index = find_in(kK5Params, p); list = list_tiles(kernel, kK5Params); break;
      case MatmulKernel::Vectorized: index = find_in(kK6Params, p); list = list_tiles(kernel, kK6Params); break;
      default: index = find_in(kK7Params, p); list = list_tiles(kernel, kK7Params); break;
    }
    if (index < 0)
      return refuse(tile_text(kernel, p) +
                        " is not in the compiled set (tile sizes are template parameters, so "
                        "only these exist as machine code): " + list,
                    "pick one of the compiled configurations");
  }

  return validate_launch(matmul_launch_config(kernel, c, M, N, K), limits);
}

}  // namespace bs::matmul
