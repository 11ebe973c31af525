// The simulator's record of shared-memory accesses (core/shared_access.hpp), for the bank view
// and its checks. Off unless asked: attach a recorder through SimOptions::shared_recorder.
//
//   sim::SharedRecorder rec({linear_block_a, linear_block_b});  // the blocks to record
//   rec.run_only_recorded = true;                               // and skip every other block
//   sim::SimOptions o; o.shared_recorder = &rec;
//   simulator.run_with_shared<Smem>(config, body, o);
//   auto lanes = rec.warp_lanes(block_a, 0);   // 32 lists, each lane's accesses in program order
//   auto requests = group_requests(lanes);     // request i = the i-th access of every lane
//
// Each recorded block has its own log, written by the one worker that runs the block, so the
// recording takes no lock. A thread records at most `max_per_thread` accesses (the rest are
// counted in truncated()).
#pragma once
#include <cstddef>
#include <vector>

#include "core/dim.hpp"
#include "core/shared_access.hpp"

namespace bs::sim {

// One block's log (private to the simulator and the recorder).
struct SharedLog {
  unsigned long long block = 0;         // linear block index
  const unsigned char* base = nullptr;  // the block's shared memory while it runs
  Dim3 block_dim;
  unsigned max_per_thread = 0;
  std::vector<std::vector<SharedAccess>> by_thread;  // linear thread -> its accesses
  unsigned long long dropped = 0;
  void record(unsigned linear_thread, const void* p, unsigned bytes, SharedOp op, const SharedSite& site);
};

class SharedRecorder {
 public:
  explicit SharedRecorder(std::vector<unsigned long long> linear_blocks, unsigned max_per_thread = 1u << 16);

  // Run only the recorded blocks (a sampled recording needs nothing else; the output is partial).
  bool run_only_recorded = false;

  bool records(unsigned long long linear_block) const;
  // The log of a recorded block (nullptr otherwise); the simulator prepares it for a run.
  SharedLog* log_for(unsigned long long linear_block);

  // After the run: warp `warp` of block `block` (linear index x fastest over `grid`), 32 lists
  // (empty for lanes the block does not have, or blocks not recorded).
  std::vector<std::vector<SharedAccess>> warp_lanes(unsigned long long linear_block, unsigned warp) const;
  unsigned long long truncated() const;

 private:
  std::vector<SharedLog> logs_;  // sorted by block
};

}  // namespace bs::sim
