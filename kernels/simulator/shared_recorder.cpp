#include "simulator/shared_recorder.hpp"

#include <algorithm>

#include "core/exec.hpp"
#include "simulator/grid_simulator.hpp"

namespace bs::sim {

void SharedLog::record(unsigned linear_thread, const void* p, unsigned bytes, SharedOp op, const SharedSite& site) {
  if (linear_thread >= by_thread.size()) return;
  std::vector<SharedAccess>& mine = by_thread[linear_thread];
  if (mine.size() >= max_per_thread) {
    ++dropped;
    return;
  }
  SharedAccess a;
  a.index = static_cast<unsigned>(mine.size());
  a.offset = static_cast<const unsigned char*>(p) - base;
  a.bytes = bytes;
  a.op = op;
  a.site = site;
  mine.push_back(a);
}

SharedRecorder::SharedRecorder(std::vector<unsigned long long> blocks, unsigned max_per_thread) {
  std::sort(blocks.begin(), blocks.end());
  blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
  for (unsigned long long b : blocks) {
    SharedLog log;
    log.block = b;
    log.max_per_thread = max_per_thread;
    logs_.push_back(std::move(log));
  }
}

bool SharedRecorder::records(unsigned long long b) const {
  auto it = std::lower_bound(logs_.begin(), logs_.end(), b,
                             [](const SharedLog& l, unsigned long long v) { return l.block < v; });
  return it != logs_.end() && it->block == b;
}

SharedLog* SharedRecorder::log_for(unsigned long long b) {
  auto it = std::lower_bound(logs_.begin(), logs_.end(), b,
                             [](const SharedLog& l, unsigned long long v) { return l.block < v; });
  return it != logs_.end() && it->block == b ? &*it : nullptr;
}

std::vector<std::vector<SharedAccess>> SharedRecorder::warp_lanes(unsigned long long b, unsigned warp) const {
  std::vector<std::vector<SharedAccess>> out(32);
  auto it = std::lower_bound(logs_.begin(), logs_.end(), b,
                             [](const SharedLog& l, unsigned long long v) { return l.block < v; });
  if (it == logs_.end() || it->block != b) return out;
  for (unsigned lane = 0; lane < 32; ++lane) {
    const std::size_t t = static_cast<std::size_t>(warp) * 32 + lane;
    if (t < it->by_thread.size()) out[lane] = it->by_thread[t];
  }
  return out;
}

unsigned long long SharedRecorder::truncated() const {
  unsigned long long n = 0;
  for (const SharedLog& l : logs_) n += l.dropped;
  return n;
}

// HostCtx's hook (grid_simulator.hpp): the simulator sets shared_log only for recorded blocks.
void HostCtx::record_shared(const void* p, unsigned bytes, SharedOp op, const SharedSite& site) const {
  shared_log->record(linear_thread_in_block(*this), p, bytes, op, site);
}

}  // namespace bs::sim
