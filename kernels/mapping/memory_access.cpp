#include "mapping/memory_access.hpp"

#include <algorithm>

namespace bs::mapping {
namespace {

std::vector<long long> byte_set(const std::vector<long long>& lane_address,
                                unsigned element_bytes) {
  std::vector<long long> bytes;
  for (long long a : lane_address)
    if (a != kNoAccess)
      for (unsigned b = 0; b < element_bytes; ++b) bytes.push_back(a + b);
  std::sort(bytes.begin(), bytes.end());
  bytes.erase(std::unique(bytes.begin(), bytes.end()), bytes.end());
  return bytes;
}

std::vector<long long> sector_set(const std::vector<long long>& lane_address,
                                  unsigned element_bytes) {
  std::vector<long long> sectors;
  for (long long a : lane_address)
    if (a != kNoAccess && element_bytes > 0)
      for (long long s = a / kSectorBytes; s <= (a + element_bytes - 1) / kSectorBytes; ++s)
        sectors.push_back(s);
  std::sort(sectors.begin(), sectors.end());
  sectors.erase(std::unique(sectors.begin(), sectors.end()), sectors.end());
  return sectors;
}

}  // namespace

unsigned sectors_touched(const std::vector<long long>& lane_address, unsigned element_bytes) {
  return static_cast<unsigned>(sector_set(lane_address, element_bytes).size());
}

unsigned ideal_sectors(const std::vector<long long>& lane_address, unsigned element_bytes) {
  return static_cast<unsigned>(
      ceil_div(byte_set(lane_address, element_bytes).size(), kSectorBytes));
}

WarpAccess make_warp_access(std::string label, std::string buffer, bool is_write,
                            unsigned element_bytes, std::vector<long long> lane_address) {
  WarpAccess a;
  a.label = std::move(label);
  a.buffer = std::move(buffer);
  a.is_write = is_write;
  a.element_bytes = element_bytes;
  a.lane_address = std::move(lane_address);
  a.active_lanes = static_cast<unsigned>(std::count_if(a.lane_address.begin(), a.lane_address.end(),
                                                       [](long long v) { return v != kNoAccess; }));
  a.sector_ids = sector_set(a.lane_address, element_bytes);
  a.sectors = static_cast<unsigned>(a.sector_ids.size());
  a.ideal_sectors = ideal_sectors(a.lane_address, element_bytes);
  return a;
}

std::vector<std::optional<ThreadCoord>> warp_lanes(IndexScheme scheme, const LaunchConfig& c,
                                                   int width, int height, Dim3 block,
                                                   unsigned warp) {
  std::vector<std::optional<ThreadCoord>> lanes(kWarpSize);
  const unsigned long long T = c.block.volume();
  for (unsigned lane = 0; lane < kWarpSize; ++lane) {
    const unsigned long long l = static_cast<unsigned long long>(warp) * kWarpSize + lane;
    if (l < T)
      lanes[lane] =
          describe_thread(scheme, c, width, height, block, thread_from_linear(l, c.block));
  }
  return lanes;
}

std::vector<WarpAccess> gray_warp_accesses(IndexScheme scheme, const LaunchConfig& c, int width,
                                           int height, Dim3 block, unsigned warp) {
  auto lanes = warp_lanes(scheme, c, width, height, block, warp);
  if (!lanes[0]) return {};  // no such warp (lane 0 exists whenever the warp does)
  const long long n = static_cast<long long>(width) * height;
  auto offsets = [&](long long plane) {
    std::vector<long long> a(kWarpSize, kNoAccess);
    for (unsigned l = 0; l < kWarpSize; ++l)
      if (lanes[l] && lanes[l]->in_range)
        a[l] = plane * n + (static_cast<long long>(lanes[l]->y) * width + lanes[l]->x);
    return a;
  };
  std::vector<WarpAccess> out;
  out.push_back(make_warp_access("read R  x[i]", "planar_rgb", false, 1, offsets(0)));
  out.push_back(make_warp_access("read G  x[i + n]", "planar_rgb", false, 1, offsets(1)));
  out.push_back(make_warp_access("read B  x[i + 2n]", "planar_rgb", false, 1, offsets(2)));
  out.push_back(make_warp_access("write   out[i]", "out", true, 1, offsets(0)));
  return out;
}

std::vector<WarpAccess> matmul_warp_accesses(MatmulMapping mapping, const LaunchConfig& c, int M,
                                             int N, int K, Dim3 block, unsigned warp, int k) {
  // C's element (row, col) sits at data coordinates (x = col, y = row) of an N-wide array.
  auto lanes = warp_lanes(scheme_for(mapping), c, N, M, block, warp);
  if (!lanes[0] || k < 0 || k >= K) return {};
  std::vector<long long> a(kWarpSize, kNoAccess), b(kWarpSize, kNoAccess), cc(kWarpSize, kNoAccess);
  constexpr long long F = sizeof(float);
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!lanes[l] || !lanes[l]->in_range) continue;
    const long long row = lanes[l]->y, col = lanes[l]->x;
    a[l] = (row * K + k) * F;
    b[l] = (static_cast<long long>(k) * N + col) * F;
    cc[l] = (row * N + col) * F;
  }
  std::vector<WarpAccess> out;
  out.push_back(make_warp_access("load  A[row][k]", "A", false, F, std::move(a)));
  out.push_back(make_warp_access("load  B[k][col]", "B", false, F, std::move(b)));
  out.push_back(make_warp_access("store C[row][col]", "C", true, F, std::move(cc)));
  return out;
}

}  // namespace bs::mapping
