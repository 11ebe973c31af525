// The vocabulary of a rung's shared-memory MODEL (matmul_shared.hpp): what a rung that stages
// tiles in shared memory writes in its traits so the bank view and the Measured tab can predict
// its requests without running it:
//
//   static constexpr bool kSharedModel = true;
//   static void shared_lane(SharedLane l, const MatmulConfig&, int K, int tid, const SharedModelOptions&);
//
// shared_lane appends thread `tid`'s shared accesses for a whole launch of depth K, in program
// order, from the rung's own index expressions (its tile layouts, loop trip counts and lane ->
// row / column mapping). The recorded side (the simulator running the body) is the other
// computation the tests compare it with.
#pragma once
#include <vector>

#include "core/shared_access.hpp"
#include "labs/matmul/matmul_configs.hpp"

namespace bs::matmul {

// Changes to the model, for the "before" pictures and for the tests that show a wrong model
// fails the comparison.
struct SharedModelOptions {
  bool swizzle = true;  // a rung with an XOR-swizzled layout (kSwizzledShared); false: chunks stored in order
  int pad_words = 0;    // extra 4-byte words at the end of every row of the shared tiles
};

// One lane's sequence of accesses, in program order.
struct SharedLane {
  std::vector<SharedAccess>& seq;
  void add(long long offset, unsigned bytes, SharedOp op, const char* what) {
    SharedAccess a;
    a.index = static_cast<unsigned>(seq.size());
    a.offset = offset, a.bytes = bytes, a.op = op;
    a.site.what = what;
    seq.push_back(a);
  }
};

inline constexpr long long kFloatBytes = 4;
inline int model_ceil_div(int a, int b) { return (a + b - 1) / b; }

// Rungs 4 and 5: As[BM][BK] (rows of `rowa` words), Bs[BK][BN] (rows of `rowb`, at byte `bs`),
// filled by strided loops over the block's `threads`.
inline void fill_plain_tiles(SharedLane& l, const TileParams& p, int threads, int tid, int rowa, int rowb,
                             long long bs) {
  constexpr long long F = kFloatBytes;
  for (int i = tid; i < p.BM * p.BK; i += threads)
    l.add((static_cast<long long>(i / p.BK) * rowa + i % p.BK) * F, 4, SharedOp::Store, "As[r][c]");
  for (int i = tid; i < p.BK * p.BN; i += threads)
    l.add(bs + (static_cast<long long>(i / p.BN) * rowb + i % p.BN) * F, 4, SharedOp::Store, "Bs[r][c]");
}

}  // namespace bs::matmul
