// Fragment tags, RECORDED: for every element of C, the thread (warpgroup, warp, lane) and the
// register that held it when a tensor-core rung finished, written by a tagged variant of the rung
// on the GPU (T1..T6) or by the CPU simulator running the same body (T1, T2); and beside it the
// model (the PTX ISA fragment layouts, through each rung's traits `owner`), compared element by
// element. How the tagged variant records from the hardware's result: fragment_tags.hpp.
//
//   auto rec = engine.record_fragments(kernel, config, lc, M, N, K);   // or MatmulLab::fragment_record
//   FragmentComparison cmp = compare_with_model(*rec, fragment_model(kernel, config, lc, M, N));
//
// What is recorded, rung by rung:
//   T1 (WMMA)    C: frag.x[i] of each accumulator fragment, per lane (reg = (2 i + j) * 8 + x index
//                for the warp's fragment (i, j)). CUDA leaves WMMA's layout opaque: the model is
//                the mma.m16n8k16 C layout twice (columns 0-7, then 8-15), which is what the
//                compiler emits on sm_80 and later; the ISA does not promise it (say so in the UI).
//   T2 (mma)     C: acc[i][j][e] (reg = 16 i + 4 j + e); and the operands: which lane received
//                which A and B element through ldmatrix at the first k-step (a_fed, b_fed).
//   T3..T6       C: the wgmma accumulator d[r] (reg as the traits' owner counts it). The operands
//                of wgmma are read by the tensor cores from shared memory, not from lanes: there
//                is nothing to record, and a_fed / b_fed stay empty.
// Also the block that held each block tile (tile_block): for the persistent rungs (T5, T6) which
// resident block took which tile, as it happened.
//
// For a view (hover on C[row][col] of the shown launch `shown`):
//   auto rec = lab.cached_fragment_record(shown);      // UI thread; null until a worker ran
//                                                      // lab.fragment_record(shown) once
//   const FragmentTag& t = rec->at(row, col);          // t.thread < 0: nobody held it
//   warpgroup t.thread / 128, warp t.thread / 32, lane t.thread % 32, register t.reg;
//   block rec->tile_block[(row / rec->tile_rows) * ceil(N / tile_cols) + col / tile_cols];
//   fed_by(rec->operands, t.thread): the A and B elements that lane fed in (T2);
//   ModelTag m = model(row, col) with model = lab.fragment_model(shown): say so where they differ;
//   rec->how: the paragraph that says what ran (GPU or simulator, the WMMA caveat).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/launch.hpp"
#include "core/status.hpp"
#include "labs/matmul/fragment_tags.hpp"
#include "labs/matmul/matmul.hpp"
#include "labs/matmul/matmul_fragments.hpp"

namespace bs::matmul {

// T2's operand record: per warp of block (0, 0), at the first k-step (k = 0..15 of K), from a
// launch of its own on at least one whole block tile (operand_probe_size), so every warp's lanes
// receive real elements even where the problem is smaller than a tile.
//   a[(warp * rows + r) * 16 + k]  who received A[block row0 + first_row[warp] + r][k]
//   b[(warp * 16 + k) * cols + n]  who received B[k][block col0 + first_col[warp] + n]
// tag.reg is the BF16 element of the lane's operand registers: A: e = (4 i + q) * 2 + half for
// af[i][q] (mma tile i of the warp, register q); B: e = (2 j + q) * 2 + half for bf[j][q].
struct OperandRecord {
  int warps = 0, rows = 0, cols = 0;
  std::vector<int> first_row, first_col;  // per warp, in the block tile
  std::vector<FragmentTag> a, b;
  bool empty() const { return a.empty() && b.empty(); }
};

// The operand elements one thread fed in (the A and B panels of a hovered C element): A elements
// as (row in the block tile, k), B elements as (k, column in the block tile), k in 0..15 of the
// first k-step (every later k-step repeats the pattern 16 columns of K further on).
struct FedElement {
  bool a = true;
  int row = 0, col = 0;
  int reg = -1;  // BF16 element index: register reg / 2, half reg % 2
};
std::vector<FedElement> fed_by(const OperandRecord& record, int thread);

// What the record says the element's lane fed into the instruction the model names (T2): the
// record's elements of thread p.thread that fall in the model's A and B tiles at k-step `step`
// (the record is of the first k-step; later ones repeat it 16 columns of K on), as 1 x 1 cells of
// A and B, and whether they are exactly the model's (`model`: fed_operands of the same place).
struct RecordedFeed {
  std::vector<CRect> a, b;
  bool agrees = false;
};
RecordedFeed recorded_feed(const OperandRecord& record, const FragmentPlace& p, long long block_row0,
                           long long block_col0, int step, const FedOperands& model);

struct FragmentRecord {
  std::string kernel;  // LaunchRecord::kernel
  std::string config_label;
  int M = 0, N = 0, K = 0;           // the problem recorded (K as the probe ran it: see `how`)
  std::vector<FragmentTag> c;        // M x N, row-major
  std::vector<unsigned> hits;        // M x N: registers that named each element (1 everywhere is right)
  int tile_rows = 0, tile_cols = 0;  // the block tile
  std::vector<int> tile_block;       // per block tile (row-major over tiles): linear block index, -1 none
  unsigned undecodable = 0;          // register values that named no element (0 is right)
  unsigned tile_conflicts = 0;       // tiles two blocks claimed (0 is right)
  OperandRecord operands;            // T2 only
  LaunchConfig launch;               // grid, block and cluster of the tagged launch
  bool on_gpu = false;               // the hardware's record; false: the CPU simulator's
  std::string how;                   // one paragraph for the UI: what ran and what it proves
  const FragmentTag& at(int row, int col) const { return c[static_cast<std::size_t>(row) * N + col]; }
};

// What the model says of an element: the block (linear index, -1 where the model has none), the
// thread in the block and the register.
struct ModelTag {
  int block = -1;
  FragmentTag tag;
};
using FragmentModel = std::function<ModelTag(int row, int col)>;

// The PTX ISA model of who holds C[row][col] in `kernel` launched as `lc` on an M x N problem:
// the traits' owner (matmul_owner.hpp) for T2..T6, the mma C layout twice for T1's WMMA
// accumulators. Built once per call (one block tile's owners, then a table lookup), so the
// returned function is cheap. Refuses rungs without fragments.
Result<FragmentModel> fragment_model(MatmulKernel kernel, const MatmulConfig& config, const LaunchConfig& lc, int M,
                                     int N);
// The operand model of T2 (mma_a_coord / mma_b_coord), in OperandRecord's layout.
Result<OperandRecord> operand_model(MatmulKernel kernel);

struct FragmentDifference {
  int row = 0, col = 0;
  FragmentTag recorded;
  ModelTag model;
  int recorded_block = -1;  // the block the record names for the element's tile
  unsigned hits = 0;
};
struct FragmentComparison {
  long long elements = 0;                 // M * N
  long long agree = 0;                    // thread, register and (where recorded) block all match
  long long untagged = 0;                 // elements no register named
  long long multiple = 0;                 // elements two or more registers named
  std::vector<FragmentDifference> first;  // the first few differences, row-major order
  bool all_agree() const { return elements > 0 && agree == elements; }
  std::string summary() const;  // "65536 of 65536 elements agree" / "... 64 differ, first C[3][5]: ..."
};
FragmentComparison compare_with_model(const FragmentRecord& record, const FragmentModel& model,
                                      std::size_t max_differences = 8);

// The operand record against operand_model: elements compared, agreeing.
struct OperandComparison {
  long long elements = 0, agree = 0;
  std::string summary() const;
};
OperandComparison compare_operands(const OperandRecord& record, const OperandRecord& model);

// Whether a rung has a tagged variant at all, and which backend records it.
bool has_fragment_record(MatmulKernel kernel);
// The sentence the rung's traits add to a record's `how` ("" for most; T1: WMMA's opaque layout).
std::string fragment_note(MatmulKernel kernel);

// ---------------------------------------------------------------------------------------------
// What the engines share (matmul_engine_cpu.cpp, matmul_engine_cuda.cu)
// ---------------------------------------------------------------------------------------------
// The probe operands in the tensor-core layouts (tc_common.hpp): C's probe, or T2's operand probe.
struct FragmentProbe {
  int M = 0, N = 0, K = 0, ld = 0;
  std::vector<Bf16> a, bt;
};
// K is raised to 16 where smaller (the probe needs two k columns, the operand record one k-step).
FragmentProbe make_fragment_probe(int M, int N, int K);
FragmentProbe make_operand_probe(int M, int N, int K);
// The size the operand probe runs at: M and N raised to one block tile of `kernel`.
std::pair<int, int> operand_probe_size(MatmulKernel kernel, const MatmulConfig& config, int M, int N);
// An empty record sized for the launch: tags -1, hits 0, tile_block -1, the fields filled in.
FragmentRecord empty_fragment_record(MatmulKernel kernel, const MatmulConfig& config, const LaunchConfig& lc, int M,
                                     int N, int K);
// The simulator's record (T1, T2): the probes through the simulated body on the CPU, with its
// own GridSimulator (so it may run beside the lab's launches).
Result<FragmentRecord> simulate_fragment_record(MatmulKernel kernel, const MatmulConfig& config, int M, int N, int K,
                                                unsigned workers = 0);

}  // namespace bs::matmul
