// What a matmul rung is, to the rest of blockscope: the types every rung file fills in, and the
// defaults of its traits. A rung is ONE file (k1_naive.hpp ... tc6_cluster_multicast.hpp) that
// holds its kernel body and, at its end, a traits struct with everything the lab, the views, the
// simulator and the CUDA launchers need to know about it; matmul_registry.hpp lists the traits,
// one line a rung. Nothing else names a rung.
//
// A traits struct (derive from RungBase and override what differs):
//   static MatmulKernelInfo info();          id, label, teaching note, file, configurations, flags
//   static unsigned threads(const TileParams&);                the block a compiled tile implies
//   static std::string describe(const MatmulConfig&);          "BM=128 BN=128 ... | 256 threads"
//   static LaunchConfig launch_config(const MatmulConfig&, int M, int N, int K);   the grid rule
//   static MatmulGeometry geometry(const MatmulConfig&);       tiles, for the overlays
//   static std::size_t shared_bytes(const MatmulConfig&);      what one block declares
//   static Status check(const MatmulConfig&, const DeviceLimits&);  refusals of its own
//   static IndexScheme scheme(const MatmulConfig&);            how its threads own C
//   static Result<ElementOwner> owner(const MatmulConfig&, int row, int col);   who stores C[row][col]
//   static MatmulConfig config_of(Dim3 block);   optional: where a free block implies a tile (rung 3)
//   kGlobalLoads, kLoadFloats, kStoreFromOwner: how its warps read A and B (the Memory tab)
//   kSharedModel + shared_lane (shared_model.hpp), fragment_place + kOwnerHolds, kOperandWarps,
//   kFragmentNote (fragment_place.hpp, fragment_record.hpp), kFragments, kPipeline, swizzle_map(): what the
//   views can show of it; RungBase below says the defaults (a rung without them)
//   kCompiled, compiled_index(config), and At<I> (Smem, threads, min_blocks, body): the compiled
//   instantiations, for rungs with a per-thread body (kBody) that the simulator and the generic
//   CUDA wrappers run; kHopper rungs are launched by matmul_hopper.cu instead.
// Families of rungs share bases that fill in what they have in common: TcRungBase (BF16),
// BlockTileRungBase (rungs 4-6's grid and shared tiles), PatchRungBase (rungs 5 and 6's patches);
// HopperRungBase and PersistentRungBase live beside the rungs they serve (tc3, tc5).
#pragma once
#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "core/index_scheme.hpp"
#include "core/launch.hpp"
#include "core/status.hpp"
#include "labs/matmul/matmul_common.hpp"
#include "labs/matmul/fragment_place.hpp"
#include "labs/matmul/matmul_configs.hpp"
#include "labs/matmul/tc_common.hpp"

namespace bs::matmul {

enum class MatmulKernel : int;  // matmul_registry.hpp: one enumerator a rung

// The number type of the problem: FP32 throughout (the FP32 ladder), or BF16 inputs with FP32
// accumulation and output (the tensor-core ladder).
enum class Precision { Fp32, Bf16 };
const char* to_string(Precision p);  // "fp32", "bf16"

// What the GPU must offer for a rung to run there.
enum class RungNeeds {
  Any,    // every CUDA GPU
  Sm80,   // BF16 mma.sync, cp.async (Ampere and later)
  Sm90a,  // wgmma, setmaxnreg, TMA multicast: Hopper (H100, H200) and a build with sm_90a
};

// A kernel's real launch parameters. FP32 rungs 1-3: `block` is the user's choice (rung 3 needs
// it square, T in kK3Tiles). FP32 rungs 4-7: `tile` must be a compiled row and `block` must
// equal the thread count it implies; both are checked before launch. Tensor-core rungs: one
// compiled configuration each.
struct MatmulConfig {
  Dim3 block{16, 16, 1};
  TileParams tile{};
  std::string label;  // human string, e.g. "BM=128 BN=128 BK=8 TM=8 TN=8 | 256 threads"
};

// A picture of a rung's swizzled shared-memory layout for the bank view: the first `rows` rows of
// a tile of `chunks` 16-byte chunks a row, at their plain offsets and where the rung stores them.
// Empty (plain == nullptr) where the rung has none.
struct SwizzleMap {
  std::string title, help, before, after;
  bool modelled = false;  // drawn from a definition (TMA), not from a recording
  int rows = 0, chunks = 0;
  long long (*plain)(int r, int c) = nullptr;
  long long (*swizzled)(int r, int c) = nullptr;
};

struct MatmulKernelInfo {
  MatmulKernel kernel{};              // filled in by the registry
  std::string id;                     // "k1_naive" ... "tc6_cluster_multicast": LaunchRecord::kernel, JSON, CLI
  std::string label;                  // "1. naive (the lecture's)"
  std::string teaches;                // one sentence for the UI
  std::string file;                   // the file holding the body, e.g. "kernels/labs/matmul/k7_warptile.hpp"
  std::vector<MatmulConfig> configs;  // the compiled set (rungs 1-2: suggested blocks)
  bool uses_shared = false;
  bool uses_barriers = false;  // __syncthreads, or warp collectives the simulator runs as barriers
  bool any_block = false;      // rungs 1-2 accept any valid block, not only the listed ones
  Precision precision = Precision::Fp32;
  RungNeeds needs = RungNeeds::Any;
  bool simulated = true;         // the CPU simulator runs its body
  bool persistent = false;       // its grid is the resident clusters of the device, each looping over tiles
  int mma_groups_in_flight = 0;  // wgmma groups a consumer keeps running while it waits on "full" (T7: 1)
  std::string grid_rule;         // how the grid follows from M, N (and the device)
  bool lecture = false;          // the lecture's own kernel (the kernel list's first group)
  int gpu_default_config = 0;    // the configuration it opens with on a GPU
  // What the views can ask of it beyond its launch: read from its traits by the registry (the
  // rung's info() leaves them alone), so a view asks these, never the rung's id.
  bool shared_model = false;     // kSharedModel: the bank view's model of its shared requests
  bool swizzled_shared = false;  // kSwizzledShared: its shared layout is XOR-swizzled (a before/after)
  bool fragments = false;        // kFragments: a tagged variant records which lane held each element
  bool pipeline = false;         // kPipeline: a traced variant records its warp-specialized pipeline
  SwizzleMap swizzle;            // swizzle_map(): its shared layout's swizzle, drawn before and after
};

// What one block and one thread of this configuration own, for the UI's overlays (block -> C
// tile, the A and B panels a block reads, the shared-memory phases): the numbers the kernel
// bodies use, so the UI draws them instead of re-deriving them.
struct MatmulGeometry {
  int block_rows = 0, block_cols = 0;    // the C tile one block computes (a cluster's block)
  int k_step = 0;                        // K slice staged in shared memory per phase (0: none)
  int stages = 0;                        // shared-memory buffers of that slice
  int thread_rows = 1, thread_cols = 1;  // outputs per thread (1 x 2 pieces for tensor cores)
  int warp_rows = 0, warp_cols = 0;      // the warp's (or warpgroup's) tile; 0 where none
  bool x_walks_rows = false;             // rung 2: threadIdx.x indexes rows of C
};

// Rows [row, row + rows) x columns [col, col + cols) of C. Not clipped to M x N: an edge
// thread's patch may reach past the matrix (those outputs are not stored).
struct CRect {
  long long row = 0, col = 0;
  int rows = 0, cols = 0;
  friend bool operator==(const CRect&, const CRect&) = default;
};

// Who computes an element of C: the thread (blockIdx, threadIdx, warp, lane) whose epilogue
// stores C[row][col], and every output that thread stores.
struct ElementOwner {
  Dim3 block;                  // blockIdx (for persistent rungs: the tile's coordinates)
  Dim3 thread;                 // threadIdx
  unsigned linear_thread = 0;  // threadIdx.x + blockDim.x * threadIdx.y
  unsigned warp = 0, lane = 0;
  std::vector<CRect> outputs;  // everything this thread stores
  CRect warp_tile;             // the tile of its warp (warpgroup); rows == 0 where none
  int reg = -1;                // tensor-core rungs: the accumulator register holding the element
};

// The buffers of a launch, both precisions; each rung takes the half it multiplies.
struct MatmulBuffers {
  MatmulArgs f32{};
  Bf16Args bf16{};
};

inline unsigned ceil_div_u(int n, int d) {
  return d > 0 && n > 0 ? static_cast<unsigned>((static_cast<long long>(n) + d - 1) / d) : 0u;
}

// How a rung's warps read A and B from global memory, for the Memory tab's model of a warp's
// requests (MatmulLab::warp_accesses).
enum class GlobalLoads {
  Direct,      // each thread reads A[row][k] and B[k][col] itself, at the place its scheme gives it
  PhaseTile,   // each thread copies one element of A's and of B's T x T tile a phase (tile = block)
  BlockTile,   // the block's threads copy the BM x BK and BK x BN tiles in strided items
  Bf16Chunks,  // the block's threads copy the BF16 tiles in 16-byte chunks (cp.async, TMA)
};

// Defaults of the traits: FP32, one compiled configuration, no refusals of its own.
struct RungBase {
  static constexpr GlobalLoads kGlobalLoads = GlobalLoads::Direct;
  static constexpr int kLoadFloats = 1;           // floats per load item (float4 rungs: 4)
  static constexpr bool kStoreFromOwner = false;  // a lane's first store of C from owner(), not its patch
  using Args = MatmulArgs;
  static constexpr bool kBody = true;
  static constexpr bool kHopper = false;
  static constexpr bool kFragments = false;    // a tagged variant records its fragments (fragment_record.hpp)
  static constexpr bool kSharedModel = false;  // shared_lane(): its shared requests, modelled (shared_model.hpp)
  static constexpr bool kSwizzledShared = false;
  static constexpr bool kPipeline = false;  // a pipeline-traced variant (block_probed, matmul_hopper.cu)
  static SwizzleMap swizzle_map() { return {}; }
  static constexpr std::size_t kCompiled = 1;
  static int compiled_index(const MatmulConfig&) { return 0; }
  static unsigned threads(const TileParams&) { return 0; }
  static Status check(const MatmulConfig&, const DeviceLimits&) { return Status::success(); }
  static const MatmulArgs& args(const MatmulBuffers& b) { return b.f32; }
  static Result<FragmentPlace> fragment_place(int, int) {
    return Status::failure("an FP32 rung: no tensor-core fragments (each thread's outputs are its own registers)",
                           "pick a tensor-core rung (T1..T6, --set precision=bf16)", "fragment_place");
  }
  // Fragment records (fragment_record.hpp): whether owner() names the lane that HOLDS an element
  // (false where the epilogue stores it from another lane, T1's staging tile: then the model
  // reads fragment_place); the warps whose operand feeds a tagged run records (T2's ldmatrix;
  // 0: none); and a sentence the record's paragraph adds.
  static constexpr bool kOwnerHolds = true;
  static constexpr int kOperandWarps = 0;
  static constexpr const char* kFragmentNote = "";
};

// Tensor-core rungs: BF16 buffers, one compiled configuration whose block is fixed.
struct TcRungBase : RungBase {
  static constexpr GlobalLoads kGlobalLoads = GlobalLoads::Bf16Chunks;
  using Args = Bf16Args;
  static const Bf16Args& args(const MatmulBuffers& b) { return b.bf16; }
};

// The configuration list of a rung with one fixed block.
inline std::vector<MatmulConfig> one_config(Dim3 block, std::string label) {
  MatmulConfig c;
  c.block = block;
  c.label = std::move(label);
  return {c};
}

// ---------------------------------------------------------------------------------------------
// Helpers the rung files share
// ---------------------------------------------------------------------------------------------
inline Status refuse(const std::string& id, std::string why, std::string hint) {
  return Status::failure(id + ": " + why, std::move(hint), "check_matmul_config");
}

// "block 32x32 | 1024 threads" (a z extent only where it is not 1).
inline std::string block_shape_text(Dim3 b) {
  return "block " + std::to_string(b.x) + "x" + std::to_string(b.y) + (b.z != 1 ? "x" + std::to_string(b.z) : "") +
         " | " + std::to_string(b.volume()) + " threads";
}

template <class Describe>
std::vector<MatmulConfig> free_block_configs(Describe describe, std::initializer_list<Dim3> blocks) {
  std::vector<MatmulConfig> v;
  for (Dim3 b : blocks) {
    MatmulConfig c;
    c.block = b;
    c.label = describe(c);
    v.push_back(c);
  }
  return v;
}

// The configuration of a compiled tile (block filled in, label written).
template <class Rung>
MatmulConfig tile_config(const TileParams& p) {
  MatmulConfig c;
  c.tile = p;
  c.block = Dim3{Rung::threads(p), 1, 1};
  c.label = Rung::describe(c);
  return c;
}
template <class Rung, std::size_t Count>
std::vector<MatmulConfig> tile_configs(const TileParams (&table)[Count]) {
  std::vector<MatmulConfig> v;
  for (const TileParams& p : table) v.push_back(tile_config<Rung>(p));
  return v;
}

// Which tile parameters a rung has: 1D blocktiling (BM BN BK TM), 2D (and TN), float4 2D (TN,
// all multiples of 4), warp tiles (and WM WN MB).
enum class TileFields { OneD, TwoD, Vector, Warp };

inline std::string tile_text(const TileParams& p, TileFields f) {
  auto kv = [](const char* name, int v) { return std::string(name) + "=" + std::to_string(v); };
  std::string s = kv("BM", p.BM) + " " + kv("BN", p.BN) + " " + kv("BK", p.BK) + " " + kv("TM", p.TM);
  if (f != TileFields::OneD) s += " " + kv("TN", p.TN);
  if (f == TileFields::Warp) {
    s += " " + kv("WM", p.WM) + " " + kv("WN", p.WN);
    if (p.MB > 0) s += " " + kv("MB", p.MB);
  }
  return s;
}

inline Status check_block_matches(const std::string& id, const MatmulConfig& c, unsigned threads, TileFields f) {
  if (c.block != Dim3{threads, 1, 1})
    return refuse(id,
                  "block " + to_string(c.block) + " does not match the tile: " + tile_text(c.tile, f) +
                      " needs exactly " + std::to_string(threads) + " threads in a 1D block",
                  "use blockDim (" + std::to_string(threads) + ", 1, 1)");
  return Status::success();
}

// The rules every blocktiled rung's configuration must keep (rungs 4-7), in the order a learner
// would trip over them.
inline Status check_tile(const std::string& id, const MatmulConfig& c, unsigned threads, TileFields f,
                         bool block_last = false) {
  const TileParams& p = c.tile;
  if (p.BM <= 0 || p.BN <= 0 || p.BK <= 0 || p.TM <= 0 || p.TN <= 0)
    return refuse(id, "tile parameters must be positive", "pick a compiled configuration");
  if (p.BM % p.TM != 0 || (f != TileFields::OneD && p.BN % p.TN != 0))
    return refuse(id,
                  "the thread tile " + std::to_string(p.TM) + "x" + std::to_string(p.TN) +
                      " does not divide the block tile " + std::to_string(p.BM) + "x" + std::to_string(p.BN),
                  "BM must be a multiple of TM and BN of TN");
  if (f == TileFields::OneD && p.TN != 1)
    return refuse(id, "1D blocktiling computes one column per thread: TN must be 1", "set TN = 1");
  if ((f == TileFields::Vector || f == TileFields::Warp) &&
      (p.TM % 4 != 0 || p.TN % 4 != 0 || p.BK % 4 != 0 || p.BN % 4 != 0))
    return refuse(id, "float4 paths need TM, TN, BK and BN to be multiples of 4", "pick multiples of 4");
  if (f != TileFields::Warp && p.MB != 0)
    return refuse(id, "MB (blocks per SM for the register budget) is a rung-7 knob", "set MB = 0");
  return block_last ? Status::success() : check_block_matches(id, c, threads, f);
}

// Rungs 1-2: only x and y of the block map to C.
inline Status check_xy_block(const std::string& id, const MatmulConfig& c) {
  if (c.block.z != 1)
    return refuse(id,
                  "blockDim.z = " + std::to_string(c.block.z) +
                      ": this kernel maps only x and y to C, extra z threads would repeat the same outputs",
                  "use blockDim.z = 1");
  return Status::success();
}

// Where C[row][col] falls: the block tile (by geometry) and the element's place inside it.
struct BlockCell {
  Dim3 block;  // blockIdx.x over columns, .y over rows
  long long row0 = 0, col0 = 0;
  int r = 0, c = 0;
};
inline Result<BlockCell> block_cell(const MatmulGeometry& g, int row, int col) {
  if (g.block_rows <= 0 || g.block_cols <= 0)
    return Status::failure("the configuration has an empty block or tile", "", "element_owner");
  BlockCell b;
  const int br = row / g.block_rows, bc = col / g.block_cols;
  b.block = Dim3{static_cast<unsigned>(bc), static_cast<unsigned>(br), 0};
  b.row0 = static_cast<long long>(br) * g.block_rows, b.col0 = static_cast<long long>(bc) * g.block_cols;
  b.r = static_cast<int>(row - b.row0), b.c = static_cast<int>(col - b.col0);
  return b;
}

inline void set_linear(ElementOwner& o, const MatmulConfig& c) {
  o.linear_thread = o.thread.x + c.block.x * o.thread.y;
  o.warp = o.linear_thread / 32;
  o.lane = o.linear_thread % 32;
}

// Rungs 1-3: one output per thread, the thread at the element's place in its block (x along
// columns; `transposed`: x along rows, rung 2).
inline Result<ElementOwner> one_output_owner(const MatmulConfig& c, int row, int col, bool transposed) {
  if (c.block.x == 0 || c.block.y == 0)
    return Status::failure("the configuration has an empty block or tile", "", "element_owner");
  ElementOwner o;
  const auto bx = static_cast<int>(c.block.x), by = static_cast<int>(c.block.y);
  const auto u = [](int v) { return static_cast<unsigned>(v); };
  if (transposed) {
    o.block = Dim3{u(row / bx), u(col / by), 0};
    o.thread = Dim3{u(row % bx), u(col % by), 0};
  } else {
    o.block = Dim3{u(col / bx), u(row / by), 0};
    o.thread = Dim3{u(col % bx), u(row % by), 0};
  }
  o.outputs = {{row, col, 1, 1}};
  set_linear(o, c);
  return o;
}

// Rungs 4-6: thread tid owns a tm x tn patch, tid = trow * (BN / tn) + tcol.
inline Result<ElementOwner> patch_owner(const MatmulConfig& c, int row, int col, int tm, int tn) {
  if (tm <= 0 || tn <= 0) return Status::failure("TM and TN must be positive", "", "element_owner");
  MatmulGeometry g;
  g.block_rows = c.tile.BM, g.block_cols = c.tile.BN;
  auto cell = block_cell(g, row, col);
  if (!cell) return cell.status();
  const int trow = cell->r / tm, tcol = cell->c / tn;
  ElementOwner o;
  o.block = cell->block;
  o.thread = Dim3{static_cast<unsigned>(trow * (c.tile.BN / tn) + tcol), 0, 0};
  o.outputs = {
      {cell->row0 + static_cast<long long>(trow) * tm, cell->col0 + static_cast<long long>(tcol) * tn, tm, tn}};
  set_linear(o, c);
  return o;
}

// Rungs 4-6: a BM x BN tile of C a block of R::threads(tile) threads, the grid (ceil(N / BN),
// ceil(M / BM)); a BM x BK tile of A and a BK x BN tile of B in shared memory, one stage.
template <class R>
struct BlockTileRungBase : RungBase {
  static constexpr GlobalLoads kGlobalLoads = GlobalLoads::BlockTile;
  static LaunchConfig launch_config(const MatmulConfig& c, int M, int N, int) {
    return {Dim3{ceil_div_u(N, c.tile.BN), ceil_div_u(M, c.tile.BM), 1}, Dim3{R::threads(c.tile), 1, 1}};
  }
  static std::size_t shared_bytes(const MatmulConfig& c) {
    return static_cast<std::size_t>(c.tile.BM * c.tile.BK + c.tile.BK * c.tile.BN) * sizeof(float);
  }
};

// Rungs 5 and 6: each thread computes a TM x TN patch, tcol = tid % (BN / TN), trow = tid /
// (BN / TN), the patch at (trow*TM, tcol*TN) of the block's tile.
template <class R>
struct PatchRungBase : BlockTileRungBase<R> {
  static unsigned threads(const TileParams& p) {
    return p.TM > 0 && p.TN > 0 ? static_cast<unsigned>((p.BM / p.TM) * (p.BN / p.TN)) : 0u;
  }
  static IndexScheme scheme(const MatmulConfig& c) {
    return IndexScheme::tiled(static_cast<unsigned>(c.tile.BN), static_cast<unsigned>(c.tile.BM),
                              static_cast<unsigned>(c.tile.TN), static_cast<unsigned>(c.tile.TM));
  }
  static MatmulGeometry geometry(const MatmulConfig& c) {
    MatmulGeometry g;
    g.block_rows = c.tile.BM, g.block_cols = c.tile.BN, g.k_step = c.tile.BK, g.stages = 1;
    g.thread_rows = c.tile.TM, g.thread_cols = c.tile.TN;
    return g;
  }
  static Result<ElementOwner> owner(const MatmulConfig& c, int row, int col) {
    return patch_owner(c, row, col, c.tile.TM, c.tile.TN);
  }
};

// Owners for the rungs whose thread holds C elements in an mma fragment layout. `tile` is the
// C tile (row0, col0 in C, rows x cols) of the warp or warpgroup holding the fragment, (r, c)
// the element inside it; `coord(thread, reg)` the layout. Fills warp, lane, reg and outputs
// (the 1 x 2 pieces the thread stores).
template <class Coord>
Result<ElementOwner> fragment_owner(ElementOwner o, CRect tile, int regs, int r, int c, unsigned first_thread,
                                    unsigned threads, Coord coord) {
  for (unsigned t = 0; t < threads; ++t)
    for (int reg = 0; reg < regs; ++reg) {
      const FragCoord f = coord(static_cast<int>(t), reg);
      if (f.row != r || f.col != c) continue;
      o.linear_thread = first_thread + t;
      o.thread = Dim3{o.linear_thread, 0, 0};
      o.warp = o.linear_thread / 32;
      o.lane = o.linear_thread % 32;
      o.reg = reg;
      o.warp_tile = tile;
      for (int q = 0; q < regs; q += 2) {  // registers come in pairs: one row, two columns
        const FragCoord p = coord(static_cast<int>(t), q);
        o.outputs.push_back({tile.row + p.row, tile.col + p.col, 1, 2});
      }
      return o;
    }
  return Status::failure("no thread of the fragment layout holds this element", "", "element_owner");
}

}  // namespace bs::matmul
