// Shared-memory accesses a kernel body reports, so the CPU simulator can record them for the
// bank view (mapping/shared_banks.hpp) and the GPU pays nothing.
//
// A body reads and writes its shared tiles through three helpers instead of plain expressions:
//
//   const float a = shared_load(t, s.As[ty][k], "As[ty][k]");     // value of s.As[ty][k]
//   shared_store(t, s.As[ty][tx], v, "As[ty][tx]");                // s.As[ty][tx] = v
//   note_shared(t, dst, 16, SharedOp::AsyncCopy, "A chunk");       // an access made elsewhere
//                                                                  // (cp.async, ldmatrix, float4)
//
// On the GPU (device pass) each is the plain access: the label and the source line are
// compile-time constants that nothing reads. On the host they call t.shared_access(...): the
// simulator's HostCtx records (warp, lane, index in program order, byte offset from the block's
// shared base, size) when a recorder is attached (SimOptions::shared_recorder, off for timed
// runs), and does nothing otherwise.
//
// A "request" is the i-th shared access of every lane of one warp (lanes of the rungs that use
// these helpers follow the same path), as one warp-wide instruction issues it.
#pragma once
#include <cstdint>
#include <source_location>
#include <string>
#include <vector>

#include "core/hd.hpp"

namespace bs {

enum class SharedOp : std::uint8_t {
  Load,       // ld.shared (LDS): through the load/store pipe
  Store,      // st.shared (STS)
  AsyncCopy,  // cp.async: the shared write of a global -> shared copy (LDGSTS)
  LdMatrix,   // ldmatrix: each lane gives one 16-byte row address of an 8 x 8 tile (LDSM)
};

inline const char* to_string(SharedOp op) {
  switch (op) {
    case SharedOp::Load: return "load";
    case SharedOp::Store: return "store";
    case SharedOp::AsyncCopy: return "cp.async";
    case SharedOp::LdMatrix: return "ldmatrix";
  }
  return "?";
}
inline bool is_write(SharedOp op) { return op == SharedOp::Store || op == SharedOp::AsyncCopy; }

// Where in a body an access is written: what it touches ("As[ty][k]") and the source line.
struct SharedSite {
  const char* what = "";
  const char* file = "";
  unsigned line = 0;
};

// One lane's access, as recorded (or modelled).
struct SharedAccess {
  unsigned index = 0;    // the lane's count of shared accesses before this one
  long long offset = 0;  // bytes from the block's shared base
  unsigned bytes = 4;    // moved by this lane
  SharedOp op = SharedOp::Load;
  SharedSite site;
};

// One warp-wide request: the index-th access of every lane.
inline constexpr long long kNoSharedAccess = -1;
struct SharedRequest {
  unsigned index = 0;
  SharedOp op = SharedOp::Load;
  unsigned bytes = 4;
  SharedSite site;
  std::vector<long long> lane_offset = std::vector<long long>(32, kNoSharedAccess);
  // "load As[ty][k] (k3_smem_tiled.hpp:41)"
  std::string label() const {
    std::string file = site.file ? site.file : "";
    if (const auto slash = file.find_last_of('/'); slash != std::string::npos) file = file.substr(slash + 1);
    std::string s = std::string(to_string(op)) + " " + (site.what ? site.what : "");
    if (!file.empty()) s += " (" + file + ":" + std::to_string(site.line) + ")";
    return s;
  }
};

// Groups per-lane access lists (lanes[l] in program order) into requests: request i holds the
// i-th access of every lane that has one. A lane whose i-th access is at another site than lane
// 0's (a body whose lanes diverge) still lands in request i; the site and size are the first
// active lane's.
inline std::vector<SharedRequest> group_requests(const std::vector<std::vector<SharedAccess>>& lanes) {
  std::size_t n = 0;
  for (const auto& l : lanes) n = l.size() > n ? l.size() : n;
  std::vector<SharedRequest> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    SharedRequest& r = out[i];
    r.index = static_cast<unsigned>(i);
    bool first = true;
    for (std::size_t lane = 0; lane < lanes.size() && lane < 32; ++lane) {
      if (i >= lanes[lane].size()) continue;
      const SharedAccess& a = lanes[lane][i];
      if (first) r.op = a.op, r.bytes = a.bytes, r.site = a.site, first = false;
      r.lane_offset[lane] = a.offset;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The helpers a body calls. `loc` defaults to the caller's line.
// ---------------------------------------------------------------------------------------------
template <class Ctx>
BS_HD void note_shared(const Ctx& t, const void* p, unsigned bytes, SharedOp op, const char* what,
                       std::source_location loc = std::source_location::current()) {
#if BS_ON_DEVICE
  (void)t, (void)p, (void)bytes, (void)op, (void)what, (void)loc;
#else
  t.shared_access(p, bytes, op, SharedSite{what, loc.file_name(), static_cast<unsigned>(loc.line())});
#endif
}

template <class Ctx, class T>
BS_HD T shared_load(const Ctx& t, const T& ref, const char* what,
                    std::source_location loc = std::source_location::current()) {
  note_shared(t, &ref, sizeof(T), SharedOp::Load, what, loc);
  return ref;
}

template <class Ctx, class T>
BS_HD void shared_store(const Ctx& t, T& ref, const T& value, const char* what,
                        std::source_location loc = std::source_location::current()) {
  note_shared(t, &ref, sizeof(T), SharedOp::Store, what, loc);
  ref = value;
}

}  // namespace bs
