#include "mapping/thread_map.hpp"

#include <algorithm>

namespace bs::mapping {
namespace {

using ll = long long;
using ull = unsigned long long;

bool inside(Dim3 v, Dim3 extent) { return v.x < extent.x && v.y < extent.y && v.z < extent.z; }

ull linear_in(Dim3 v, Dim3 extent) {
  return v.x + static_cast<ull>(extent.x) * (v.y + static_cast<ull>(extent.y) * v.z);
}

// What the kernel computes for one thread: the element it would touch, and whether its guard lets
// it. Written the way the kernels write it, in 64-bit so huge grids cannot overflow here.
struct Element {
  ll flat_index = -1;
  bool in_range = false;
  int x = -1, y = -1;
};

Element element_of(IndexScheme scheme, const LaunchConfig& c, int width, int height, Dim3 b,
                   Dim3 t) {
  Element e;
  const ll w = width, h = height;
  switch (scheme) {
    case IndexScheme::Flat1D: {
      const ll i = static_cast<ll>(b.x) * static_cast<ll>(c.block.volume()) +
                   static_cast<ll>(linear_in(t, c.block));
      e.flat_index = i;
      e.in_range = w > 0 && i < w * h;
      if (e.in_range) {
        e.x = static_cast<int>(i % w);
        e.y = static_cast<int>(i / w);
      }
      return e;
    }
    case IndexScheme::Grid2D:
    case IndexScheme::Grid2DTransposed: {
      const ll gx = static_cast<ll>(b.x) * c.block.x + t.x;
      const ll gy = static_cast<ll>(b.y) * c.block.y + t.y;
      const ll col = scheme == IndexScheme::Grid2D ? gx : gy;
      const ll row = scheme == IndexScheme::Grid2D ? gy : gx;
      e.in_range = col < w && row < h;
      if (e.in_range) {
        e.flat_index = row * w + col;
        e.x = static_cast<int>(col);
        e.y = static_cast<int>(row);
      }
      return e;
    }
  }
  return e;
}

// A block is partial when its far edge passes the end of the data in any mapped direction.
bool block_partial(IndexScheme scheme, const LaunchConfig& c, int width, int height, Dim3 b) {
  const ll w = width, h = height;
  if (w <= 0 || h <= 0) return true;
  switch (scheme) {
    case IndexScheme::Flat1D:
      return (static_cast<ll>(b.x) + 1) * static_cast<ll>(c.block.volume()) > w * h;
    case IndexScheme::Grid2D:
      return (static_cast<ll>(b.x) + 1) * c.block.x > w ||
             (static_cast<ll>(b.y) + 1) * c.block.y > h;
    case IndexScheme::Grid2DTransposed:
      return (static_cast<ll>(b.x) + 1) * c.block.x > h ||
             (static_cast<ll>(b.y) + 1) * c.block.y > w;
  }
  return true;
}

bool valid_shape(const LaunchConfig& c) { return c.block.volume() > 0 && c.grid.volume() > 0; }

// Appends the pixels [begin, end) of a row-major array of width `w` as row runs.
void append_flat_run(std::vector<RowSpan>& out, ll begin, ll end, ll w) {
  while (begin < end) {
    const ll y = begin / w;
    const ll row_end = std::min(end, (y + 1) * w);
    out.push_back(RowSpan{static_cast<int>(y), static_cast<int>(begin - y * w),
                          static_cast<int>(row_end - y * w)});
    begin = row_end;
  }
}

void append_rect(std::vector<RowSpan>& out, ll x0, ll x1, ll y0, ll y1) {
  if (x0 >= x1) return;
  for (ll y = y0; y < y1; ++y)
    out.push_back(RowSpan{static_cast<int>(y), static_cast<int>(x0), static_cast<int>(x1)});
}

}  // namespace

const char* to_string(IndexScheme s) {
  switch (s) {
    case IndexScheme::Flat1D:
      return "1D flat (i = blockIdx.x * T + thread)";
    case IndexScheme::Grid2D:
      return "2D (x -> column, y -> row)";
    case IndexScheme::Grid2DTransposed:
      return "2D transposed (x -> row, y -> column)";
  }
  return "?";
}

const char* to_string(MatmulMapping m) {
  return m == MatmulMapping::RowFromY ? "row from y (coalesced)" : "row from x (uncoalesced)";
}

Status check_scheme(IndexScheme scheme, const LaunchConfig& c, int width, int height) {
  if (width <= 0 || height <= 0)
    return Status::failure(
        "the data is empty (" + std::to_string(width) + " x " + std::to_string(height) + ")",
        "load an image or choose a size", "check_scheme");
  if (!valid_shape(c))
    return Status::failure("gridDim " + to_string(c.grid) + " or blockDim " + to_string(c.block) +
                               " has a zero dimension",
                           "every dimension must be at least 1", "check_scheme");
  if (scheme == IndexScheme::Flat1D && (c.grid.y > 1 || c.grid.z > 1))
    return Status::failure("a 1D flat kernel ignores blockIdx.y and z, so gridDim " +
                               to_string(c.grid) + " repeats the same indices " +
                               std::to_string(static_cast<ull>(c.grid.y) * c.grid.z) + " times",
                           "use gridDim (n / T, 1, 1)", "check_scheme");
  if (scheme != IndexScheme::Flat1D && (c.block.z > 1 || c.grid.z > 1))
    return Status::failure("a 2D kernel ignores z, so blockDim.z = " + std::to_string(c.block.z) +
                               " and gridDim.z = " + std::to_string(c.grid.z) +
                               " make threads compute the same element again",
                           "use blockDim.z = 1 and gridDim.z = 1", "check_scheme");
  return Status::success();
}

ull linear_block_id(Dim3 block, Dim3 grid) { return linear_in(block, grid); }

Dim3 block_from_linear(ull linear, Dim3 grid) { return thread_from_linear(linear, grid); }

Dim3 thread_from_linear(ull linear, Dim3 d) {
  if (d.x == 0 || d.y == 0) return Dim3{0, 0, 0};
  const ull plane = static_cast<ull>(d.x) * d.y;
  return Dim3{static_cast<unsigned>(linear % d.x), static_cast<unsigned>((linear / d.x) % d.y),
              static_cast<unsigned>(linear / plane)};
}

unsigned warps_per_block(const LaunchConfig& c) {
  return static_cast<unsigned>(ceil_div(c.block.volume(), kWarpSize));
}

std::optional<ThreadCoord> describe_thread(IndexScheme scheme, const LaunchConfig& c, int width,
                                           int height, Dim3 block, Dim3 thread) {
  if (!valid_shape(c) || !inside(block, c.grid) || !inside(thread, c.block)) return std::nullopt;
  ThreadCoord t;
  t.block = block;
  t.thread = thread;
  t.linear_block = linear_in(block, c.grid);
  t.linear_thread_in_block = linear_in(thread, c.block);
  t.global_linear_thread = t.linear_block * c.block.volume() + t.linear_thread_in_block;
  t.warp_in_block = static_cast<unsigned>(t.linear_thread_in_block / kWarpSize);
  t.lane = static_cast<unsigned>(t.linear_thread_in_block % kWarpSize);
  const Element e = element_of(scheme, c, width, height, block, thread);
  t.flat_index = e.flat_index;
  t.in_range = e.in_range;
  t.x = e.x;
  t.y = e.y;
  t.block_is_partial = block_partial(scheme, c, width, height, block);
  return t;
}

std::optional<ThreadCoord> thread_for_pixel(IndexScheme scheme, const LaunchConfig& c, int width,
                                            int height, int x, int y) {
  if (!valid_shape(c) || x < 0 || y < 0 || x >= width || y >= height) return std::nullopt;
  Dim3 block, thread;
  switch (scheme) {
    case IndexScheme::Flat1D: {
      const ull i = static_cast<ull>(y) * static_cast<ull>(width) + static_cast<ull>(x);
      const ull bx = i / c.block.volume();
      if (bx >= c.grid.x) return std::nullopt;
      block = Dim3{static_cast<unsigned>(bx), 0, 0};
      thread = thread_from_linear(i % c.block.volume(), c.block);
      break;
    }
    case IndexScheme::Grid2D:
    case IndexScheme::Grid2DTransposed: {
      const unsigned gx = static_cast<unsigned>(scheme == IndexScheme::Grid2D ? x : y);
      const unsigned gy = static_cast<unsigned>(scheme == IndexScheme::Grid2D ? y : x);
      block = Dim3{gx / c.block.x, gy / c.block.y, 0};
      thread = Dim3{gx % c.block.x, gy % c.block.y, 0};
      break;
    }
  }
  return describe_thread(scheme, c, width, height, block, thread);
}

std::optional<std::pair<int, int>> pixel_for_thread(IndexScheme scheme, const LaunchConfig& c,
                                                    int width, int height, Dim3 block,
                                                    Dim3 thread) {
  auto t = describe_thread(scheme, c, width, height, block, thread);
  if (!t || !t->in_range) return std::nullopt;
  return std::pair<int, int>{t->x, t->y};
}

std::vector<RowSpan> block_footprint(IndexScheme scheme, const LaunchConfig& c, int width,
                                     int height, Dim3 b) {
  std::vector<RowSpan> out;
  if (!valid_shape(c) || !inside(b, c.grid) || width <= 0 || height <= 0) return out;
  const ll w = width, h = height;
  switch (scheme) {
    case IndexScheme::Flat1D: {
      const ll T = static_cast<ll>(c.block.volume());
      const ll begin = static_cast<ll>(b.x) * T;
      append_flat_run(out, begin, std::min(w * h, begin + T), w);
      break;
    }
    case IndexScheme::Grid2D: {
      const ll x0 = static_cast<ll>(b.x) * c.block.x, y0 = static_cast<ll>(b.y) * c.block.y;
      append_rect(out, x0, std::min(w, x0 + c.block.x), y0, std::min(h, y0 + c.block.y));
      break;
    }
    case IndexScheme::Grid2DTransposed: {
      const ll r0 = static_cast<ll>(b.x) * c.block.x, c0 = static_cast<ll>(b.y) * c.block.y;
      append_rect(out, c0, std::min(w, c0 + c.block.y), r0, std::min(h, r0 + c.block.x));
      break;
    }
  }
  return out;
}

std::vector<RowSpan> warp_footprint(IndexScheme scheme, const LaunchConfig& c, int width,
                                    int height, Dim3 b, unsigned warp) {
  std::vector<RowSpan> out;
  if (!valid_shape(c) || !inside(b, c.grid)) return out;
  const ull T = c.block.volume();
  std::vector<std::pair<int, int>> cells;  // (y, x), so sorting orders by row
  for (ull l = static_cast<ull>(warp) * kWarpSize;
       l < T && l < (static_cast<ull>(warp) + 1) * kWarpSize; ++l) {
    const Element e = element_of(scheme, c, width, height, b, thread_from_linear(l, c.block));
    if (e.in_range) cells.emplace_back(e.y, e.x);
  }
  std::sort(cells.begin(), cells.end());
  cells.erase(std::unique(cells.begin(), cells.end()), cells.end());
  for (const auto& [y, x] : cells) {
    if (!out.empty() && out.back().y == y && out.back().x_end == x)
      ++out.back().x_end;
    else
      out.push_back(RowSpan{y, x, x + 1});
  }
  return out;
}

}  // namespace bs::mapping
