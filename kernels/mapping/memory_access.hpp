// What one warp's memory requests look like: for each of its 32 lanes, the byte address it
// reads or writes, and how many 32-byte sectors the request touches against the fewest it could.
//
// Global memory is served in 32-byte sectors. A warp-wide load whose lanes read consecutive
// addresses touches as few sectors as the bytes need ("coalesced"); lanes that stride apart each
// pull in a sector of their own, and the rest of each sector is fetched for nothing. This is the
// cost the memory view puts side by side for the row-major (RowFromY) and the column-major
// (RowFromX) matmul mappings.
//
// Addresses are byte offsets from the start of the buffer; cudaMalloc aligns buffers to 256
// bytes, so offsets and device addresses fall into sectors alike.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/launch.hpp"
#include "mapping/thread_map.hpp"

namespace bs::mapping {

inline constexpr unsigned kSectorBytes = 32;
// lane_address entry of a lane that makes no access (idle, or absent in a short warp).
inline constexpr long long kNoAccess = -1;

struct WarpAccess {
  std::string label;   // e.g. "read R plane x[i]", "load A[row][k]"
  std::string buffer;  // which array the offsets index: "planar_rgb", "A", ...
  bool is_write = false;
  unsigned element_bytes = 1;           // bytes each lane moves
  std::vector<long long> lane_address;  // 32 entries: byte offset per lane, or kNoAccess
  unsigned active_lanes = 0;
  unsigned sectors = 0;               // distinct 32-byte sectors the request touches
  unsigned ideal_sectors = 0;         // ceil(distinct bytes / 32): the fewest that could serve them
  std::vector<long long> sector_ids;  // the sectors touched (offset / 32), sorted
};

// Distinct sectors touched by accesses of `element_bytes` bytes at the given offsets (entries
// equal to kNoAccess are skipped; an access straddling a sector boundary counts both).
unsigned sectors_touched(const std::vector<long long>& lane_address, unsigned element_bytes);
// The fewest sectors that could hold the distinct bytes the lanes touch.
unsigned ideal_sectors(const std::vector<long long>& lane_address, unsigned element_bytes);
// Fills active_lanes, sectors, ideal_sectors and sector_ids from lane_address.
WarpAccess make_warp_access(std::string label, std::string buffer, bool is_write, unsigned element_bytes,
                            std::vector<long long> lane_address);

// The lanes of warp `warp` of block `block`: 32 entries, each the thread (or nullopt where the
// block has no such lane).
std::vector<std::optional<ThreadCoord>> warp_lanes(const IndexScheme& scheme, const LaunchConfig& config,
                                                   long long width, long long height, Dim3 block, unsigned warp);

// The chunk each lane of a warp reaches at pass `pass`, slot `slot` of a flat scheme: the first
// element index and the element count (clipped to the body) per lane; count 0 where a lane has
// no such chunk (idle, absent, past the data). Heads and tails are not included: they are
// scalar accesses the kernel makes before and after its vector loop.
struct LaneChunk {
  long long first = 0;
  long long count = 0;
};
std::vector<LaneChunk> flat_lane_chunks(const IndexScheme& scheme, const LaunchConfig& config, long long width,
                                        long long height, Dim3 block, unsigned warp, long long pass, unsigned slot);

}  // namespace bs::mapping
