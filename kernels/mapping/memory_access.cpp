#include "mapping/memory_access.hpp"

#include <algorithm>

namespace bs::mapping {
namespace {

std::vector<long long> byte_set(const std::vector<long long>& lane_address, unsigned element_bytes) {
  std::vector<long long> bytes;
  for (long long a : lane_address)
    if (a != kNoAccess)
      for (unsigned b = 0; b < element_bytes; ++b) bytes.push_back(a + b);
  std::sort(bytes.begin(), bytes.end());
  bytes.erase(std::unique(bytes.begin(), bytes.end()), bytes.end());
  return bytes;
}

std::vector<long long> sector_set(const std::vector<long long>& lane_address, unsigned element_bytes) {
  std::vector<long long> sectors;
  for (long long a : lane_address)
    if (a != kNoAccess && element_bytes > 0)
      for (long long s = a / kSectorBytes; s <= (a + element_bytes - 1) / kSectorBytes; ++s) sectors.push_back(s);
  std::sort(sectors.begin(), sectors.end());
  sectors.erase(std::unique(sectors.begin(), sectors.end()), sectors.end());
  return sectors;
}

}  // namespace

unsigned sectors_touched(const std::vector<long long>& lane_address, unsigned element_bytes) {
  return static_cast<unsigned>(sector_set(lane_address, element_bytes).size());
}

unsigned ideal_sectors(const std::vector<long long>& lane_address, unsigned element_bytes) {
  return static_cast<unsigned>(ceil_div(byte_set(lane_address, element_bytes).size(), kSectorBytes));
}

WarpAccess make_warp_access(std::string label, std::string buffer, bool is_write, unsigned element_bytes,
                            std::vector<long long> lane_address) {
  WarpAccess a;
  a.label = std::move(label);
  a.buffer = std::move(buffer);
  a.is_write = is_write;
  a.element_bytes = element_bytes;
  a.lane_address = std::move(lane_address);
  a.active_lanes = static_cast<unsigned>(
      std::count_if(a.lane_address.begin(), a.lane_address.end(), [](long long v) { return v != kNoAccess; }));
  a.sector_ids = sector_set(a.lane_address, element_bytes);
  a.sectors = static_cast<unsigned>(a.sector_ids.size());
  a.ideal_sectors = ideal_sectors(a.lane_address, element_bytes);
  return a;
}

std::vector<std::optional<ThreadCoord>> warp_lanes(const IndexScheme& scheme, const LaunchConfig& c, long long width,
                                                   long long height, Dim3 block, unsigned warp) {
  std::vector<std::optional<ThreadCoord>> lanes(kWarpSize);
  const unsigned long long T = c.block.volume();
  for (unsigned lane = 0; lane < kWarpSize; ++lane) {
    const unsigned long long l = static_cast<unsigned long long>(warp) * kWarpSize + lane;
    if (l < T) lanes[lane] = describe_thread(scheme, c, width, height, block, thread_from_linear(l, c.block));
  }
  return lanes;
}

std::vector<LaneChunk> flat_lane_chunks(const IndexScheme& s, const LaunchConfig& c, long long width, long long height,
                                        Dim3 block, unsigned warp, long long pass, unsigned slot) {
  std::vector<LaneChunk> out(kWarpSize);
  if (s.kind != IndexScheme::Kind::Flat || width <= 0 || height <= 0 || block.x >= c.grid.x) return out;
  const long long n = width * height;
  const long long head = std::clamp<long long>(s.head, 0, n);
  const long long tail = std::clamp<long long>(s.tail, 0, n - head);
  const long long V = std::max(1u, s.vector), K = std::max(1u, s.per_thread);
  const long long T = static_cast<long long>(c.block.volume());
  const long long G = static_cast<long long>(c.grid.x) * T;
  const long long body_end = n - tail;
  if (pass > 0 && !s.grid_stride) return out;
  for (unsigned lane = 0; lane < kWarpSize; ++lane) {
    const long long t = static_cast<long long>(warp) * kWarpSize + lane;
    if (t >= T || slot >= K) continue;
    const long long chunk = pass * G * K + static_cast<long long>(block.x) * T * K + slot * T + t;
    const long long first = head + chunk * V;
    if (first >= body_end) continue;
    out[lane] = LaneChunk{first, std::min(body_end, first + V) - first};
  }
  return out;
}

}  // namespace bs::mapping
