// The vocabulary of a tensor-core rung's fragment layout, in closed form: what a rung writes in
// its traits so the views can say, for any element of its block tile, which warpgroup, warp,
// lane and accumulator register hold it and which mma instruction tile produces it:
//
//   static Result<FragmentPlace> fragment_place(int r, int c);   // (r, c) inside the block tile
//
// RungBase's default refuses (an FP32 rung: each thread's outputs are its own registers).
// matmul_fragments.hpp builds the hover lines, the fed operands and the overlay keys on it;
// tests/matmul/test_matmul_fragments.cpp checks every rung's form against the PTX ISA layouts
// (tc_common.hpp) run forward.
#pragma once
#include <string>

#include "core/status.hpp"

namespace bs::matmul {

// The tensor-core instruction a rung's accumulators come from.
enum class MmaKind {
  None,     // FP32 rungs: no tensor cores
  Wmma,     // T1: nvcuda::wmma 16x16x16, compiled to two mma.m16n8k16 (the simulator's layout)
  MmaSync,  // T2: mma.sync.aligned.m16n8k16
  Wgmma,    // T3..T6: wgmma.mma_async.m64nNk16, a warpgroup of 4 warps
};

// One element of C inside its block's tile (r, c from the tile's corner), by the model.
struct FragmentPlace {
  MmaKind kind = MmaKind::None;
  int warpgroup = -1;                // in the block (wgmma rungs; T4..T6: 0 is the producer); -1: none
  bool producer = false;             // warpgroup 0 is a producer (TMA) and the others consume (T4..T6)
  unsigned warp = 0;                 // warp in the block
  unsigned lane = 0;                 // lane in the warp
  unsigned thread = 0;               // linear thread in the block
  int reg = -1;                      // the accumulator register (index into the thread's FP32 accumulators)
  int store_lane = -1;               // T1: the lane that stores it through the staging tile (else = lane)
  int mma_m = 0, mma_n = 0;          // the instruction's tile of C (16 x 8, or 64 x N); k is always 16
  int wmma_m = 0, wmma_n = 0;        // T1: the WMMA fragment (16 x 16) the mma tile is half of
  int tile_r = 0, tile_c = 0;        // the instruction tile's corner, in the block's tile
  int in_r = 0, in_c = 0;            // the element inside the instruction tile
  int mma_index = 0, mma_count = 0;  // which instruction tile of its warp's (warpgroup's) tile
  int owner_r = 0, owner_c = 0, owner_rows = 0, owner_cols = 0;  // that warp (warpgroup) tile
};

// The C layout of mma.m16n8 (tc_common.hpp's mma_c_coord) inverted: element (r, c) of a 16 x 8
// tile is held by lane 4 (r % 8) + c / 2 in its register 2 (r / 8) + c % 2.
struct LaneReg {
  unsigned lane;
  int e;
};
inline LaneReg mma_c_owner(int r, int c) { return {static_cast<unsigned>((r % 8) * 4 + c / 2), (r / 8) * 2 + c % 2}; }

// The refusal of an element outside the block's rows x cols tile.
inline Status fragment_outside(int r, int c, int rows, int cols) {
  return Status::failure("(" + std::to_string(r) + ", " + std::to_string(c) + ") is outside the block's " +
                             std::to_string(rows) + " x " + std::to_string(cols) + " tile",
                         "", "fragment_place");
}

// A wgmma m64nNk16 accumulator tile at (tile_r, tile_c) of the block's tile, held by the
// warpgroup whose threads start at `first_thread`; (r, c) inside it; `reg_base` the first of its
// N / 2 registers in the thread's accumulators.
inline FragmentPlace wgmma_place(int n, int tile_r, int tile_c, int r, int c, int warpgroup, unsigned first_thread,
                                 int reg_base) {
  FragmentPlace p;
  p.kind = MmaKind::Wgmma;
  p.warpgroup = warpgroup;
  const int w = r / 16;  // warp w of the group holds rows 16 w .. 16 w + 15
  const LaneReg lr = mma_c_owner(r % 16, c % 8);
  p.thread = first_thread + static_cast<unsigned>(w) * 32 + lr.lane;
  p.warp = p.thread / 32, p.lane = lr.lane;
  p.reg = reg_base + (c / 8) * 4 + lr.e;
  p.store_lane = static_cast<int>(p.lane);
  p.mma_m = 64, p.mma_n = n;
  p.tile_r = tile_r, p.tile_c = tile_c, p.in_r = r, p.in_c = c;
  return p;
}

}  // namespace bs::matmul
