#include "mapping/thread_map.hpp"

#include <algorithm>

namespace bs::mapping {
namespace {

using ll = long long;
using ull = unsigned long long;
using Kind = IndexScheme::Kind;

bool inside(Dim3 v, Dim3 extent) { return v.x < extent.x && v.y < extent.y && v.z < extent.z; }

ull linear_in(Dim3 v, Dim3 extent) {
  return v.x + static_cast<ull>(extent.x) * (v.y + static_cast<ull>(extent.y) * v.z);
}

bool valid_shape(const LaunchConfig& c) { return c.block.volume() > 0 && c.grid.volume() > 0; }

// The flat scheme's arithmetic (core/index_scheme.hpp), in 64 bits.
struct Flat {
  ll n = 0, head = 0, tail = 0, body_begin = 0, body_end = 0;
  ll V = 1, K = 1, T = 1, blocks = 1, G = 1;  // G = gridDim.x * T
  ll chunks = 0;                              // ceil(body / V)
  bool stride = false;

  Flat(const IndexScheme& s, const LaunchConfig& c, ll width, ll height) {
    n = width > 0 && height > 0 ? width * height : 0;
    head = std::clamp<ll>(s.head, 0, n);
    tail = std::clamp<ll>(s.tail, 0, n - head);
    body_begin = head;
    body_end = n - tail;
    V = std::max<ll>(1, s.vector);
    K = std::max<ll>(1, s.per_thread);
    T = static_cast<ll>(c.block.volume());
    blocks = c.grid.x;
    G = blocks * T;
    chunks = (body_end - body_begin + V - 1) / V;
    stride = s.grid_stride;
  }
  // Chunks one pass of the whole grid covers.
  ll per_pass() const { return G * K; }
  // Chunk of thread (b, t) at pass p, slot j.
  ll chunk(ll p, ll b, ll j, ll t) const { return p * per_pass() + b * T * K + j * T + t; }
  // Element range [first, last) of chunk c, clipped to the body.
  std::pair<ll, ll> chunk_elements(ll c) const {
    const ll first = body_begin + c * V;
    return {first, std::min(body_end, first + V)};
  }
  ll passes() const {
    if (!stride) return 1;
    return per_pass() > 0 ? std::max<ll>(1, (chunks + per_pass() - 1) / per_pass()) : 1;
  }
  // The thread owning scalar element index e of the head (or e - (n - tail) of the tail).
  ll scalar_owner(ll e) const { return stride ? e % G : e; }
  // Global thread g owns a head element, a tail element, or a body chunk.
  bool owns_something(ll b, ll t) const {
    const ll g = b * T + t;
    if (g < head || g < tail) return true;
    return chunk(0, b, 0, t) < chunks && (stride || chunk(0, b, 0, t) < per_pass());
  }
};

void append_flat_run(std::vector<ElementRect>& out, ll begin, ll end, ll w) {
  while (begin < end) {
    const ll y = begin / w;
    const ll row_end = std::min(end, (y + 1) * w);
    out.push_back(ElementRect{begin - y * w, y, row_end - begin, 1});
    begin = row_end;
  }
}

void append_flat_spans(std::vector<RowSpan>& out, ll begin, ll end, ll w) {
  while (begin < end) {
    const ll y = begin / w;
    const ll row_end = std::min(end, (y + 1) * w);
    out.push_back(RowSpan{y, begin - y * w, row_end - y * w});
    begin = row_end;
  }
}

// The patch of a Tiled thread (row-major patches over its block's tile), unclipped.
ElementRect tiled_patch(const IndexScheme& s, Dim3 b, ull t) {
  const ll per_row = std::max<ll>(1, s.tile_w / std::max(1u, s.thread_w));
  return ElementRect{static_cast<ll>(b.x) * s.tile_w + static_cast<ll>(t % per_row) * s.thread_w,
                     static_cast<ll>(b.y) * s.tile_h + static_cast<ll>(t / per_row) * s.thread_h, s.thread_w,
                     s.thread_h};
}

ElementRect clip(ElementRect r, ll w, ll h) {
  const ll x0 = std::max<ll>(0, r.x), y0 = std::max<ll>(0, r.y);
  const ll x1 = std::min(w, r.x + r.w), y1 = std::min(h, r.y + r.h);
  return x1 > x0 && y1 > y0 ? ElementRect{x0, y0, x1 - x0, y1 - y0} : ElementRect{};
}

bool patches_closed_form(const IndexScheme& s) {
  return s.kind == Kind::Tiled && s.thread_w > 0 && s.thread_h > 0 && s.tile_w > 0 && s.tile_h > 0;
}

// A block is partial when not every thread of it stores an element.
bool block_partial(const IndexScheme& s, const LaunchConfig& c, ll w, ll h, Dim3 b) {
  if (w <= 0 || h <= 0) return true;
  switch (s.kind) {
    case Kind::Flat: {
      const Flat f(s, c, w, h);
      return !f.owns_something(b.x, f.T - 1);  // the block's last thread takes its last chunk
    }
    case Kind::Grid2D: return (static_cast<ll>(b.x) + 1) * c.block.x > w || (static_cast<ll>(b.y) + 1) * c.block.y > h;
    case Kind::Grid2DTransposed:
      return (static_cast<ll>(b.x) + 1) * c.block.x > h || (static_cast<ll>(b.y) + 1) * c.block.y > w;
    case Kind::Tiled: {
      if (!patches_closed_form(s))
        return (static_cast<ll>(b.x) + 1) * s.tile_w > w || (static_cast<ll>(b.y) + 1) * s.tile_h > h;
      // Every thread works when the last patch column and the last patch row start inside.
      const ll T = static_cast<ll>(c.block.volume());
      const ll per_row = std::max<ll>(1, s.tile_w / s.thread_w);
      const ll rows = (T + per_row - 1) / per_row;
      return static_cast<ll>(b.x) * s.tile_w + (std::min(T, per_row) - 1) * s.thread_w >= w ||
             static_cast<ll>(b.y) * s.tile_h + (rows - 1) * s.thread_h >= h;
    }
    case Kind::Recorded: return false;
  }
  return true;
}

}  // namespace

Status check_scheme(const IndexScheme& s, const LaunchConfig& c, ll width, ll height) {
  if (width <= 0 || height <= 0)
    return Status::failure("the data is empty (" + std::to_string(width) + " x " + std::to_string(height) + ")",
                           "load an image or choose a size", "check_scheme");
  if (!valid_shape(c))
    return Status::failure(
        "gridDim " + to_string(c.grid) + " or blockDim " + to_string(c.block) + " has a zero dimension",
        "every dimension must be at least 1", "check_scheme");
  if (s.kind == Kind::Flat && (c.grid.y > 1 || c.grid.z > 1))
    return Status::failure("a flat kernel ignores blockIdx.y and z, so gridDim " + to_string(c.grid) +
                               " repeats the same indices " + std::to_string(static_cast<ull>(c.grid.y) * c.grid.z) +
                               " times",
                           "use gridDim (n / T, 1, 1)", "check_scheme");
  if ((s.kind == Kind::Grid2D || s.kind == Kind::Grid2DTransposed) && (c.block.z > 1 || c.grid.z > 1))
    return Status::failure("a 2D kernel ignores z, so blockDim.z = " + std::to_string(c.block.z) + " and gridDim.z = " +
                               std::to_string(c.grid.z) + " make threads compute the same element again",
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

unsigned warps_per_block(const LaunchConfig& c) { return static_cast<unsigned>(ceil_div(c.block.volume(), kWarpSize)); }

std::optional<ThreadCoord> describe_thread(const IndexScheme& s, const LaunchConfig& c, ll w, ll h, Dim3 block,
                                           Dim3 thread) {
  if (!valid_shape(c) || !inside(block, c.grid) || !inside(thread, c.block)) return std::nullopt;
  ThreadCoord t;
  t.block = block;
  t.thread = thread;
  t.linear_block = linear_in(block, c.grid);
  t.linear_thread_in_block = linear_in(thread, c.block);
  t.global_linear_thread = t.linear_block * c.block.volume() + t.linear_thread_in_block;
  t.warp_in_block = static_cast<unsigned>(t.linear_thread_in_block / kWarpSize);
  t.lane = static_cast<unsigned>(t.linear_thread_in_block % kWarpSize);
  t.block_is_partial = block_partial(s, c, w, h, block);
  switch (s.kind) {
    case Kind::Flat: {
      const Flat f(s, c, w, h);
      const ll tt = static_cast<ll>(t.linear_thread_in_block), b = block.x;
      const ll g = b * f.T + tt;
      t.flat_index = f.body_begin + f.chunk(0, b, 0, tt) * f.V;
      if (g < f.head) {
        t.in_range = true;
        t.flat_index = g;
      } else if (f.owns_something(b, tt)) {
        t.in_range = true;
        if (f.chunk(0, b, 0, tt) >= f.chunks) t.flat_index = f.n - f.tail + g;  // tail only
      }
      if (t.in_range && w > 0) {
        t.x = t.flat_index % w;
        t.y = t.flat_index / w;
      }
      return t;
    }
    case Kind::Grid2D:
    case Kind::Grid2DTransposed: {
      const ll gx = static_cast<ll>(block.x) * c.block.x + thread.x;
      const ll gy = static_cast<ll>(block.y) * c.block.y + thread.y;
      const ll col = s.kind == Kind::Grid2D ? gx : gy;
      const ll row = s.kind == Kind::Grid2D ? gy : gx;
      t.in_range = col < w && row < h;
      if (t.in_range) {
        t.flat_index = row * w + col;
        t.x = col;
        t.y = row;
      }
      return t;
    }
    case Kind::Tiled: {
      if (s.tiles_loop) {  // persistent: a block works while tiles remain; its tiles are the lab's to say
        const ll tiles = ((w + s.tile_w - 1) / std::max(1u, s.tile_w)) * ((h + s.tile_h - 1) / std::max(1u, s.tile_h));
        t.in_range = static_cast<ll>(linear_block_id(block, c.grid)) < tiles;
        return t;
      }
      const ElementRect r = patches_closed_form(s)
                                ? clip(tiled_patch(s, block, t.linear_thread_in_block), w, h)
                                : clip(ElementRect{static_cast<ll>(block.x) * s.tile_w,
                                                   static_cast<ll>(block.y) * s.tile_h, s.tile_w, s.tile_h},
                                       w, h);
      t.in_range = r.w > 0;
      if (t.in_range && patches_closed_form(s)) {
        t.x = r.x;
        t.y = r.y;
        t.flat_index = r.y * w + r.x;
      }
      return t;
    }
    case Kind::Recorded: return t;
  }
  return t;
}

std::vector<ElementRect> thread_elements(const IndexScheme& s, const LaunchConfig& c, ll w, ll h, Dim3 block,
                                         Dim3 thread, std::size_t max_rects) {
  std::vector<ElementRect> out;
  if (!valid_shape(c) || !inside(block, c.grid) || !inside(thread, c.block) || w <= 0 || h <= 0) return out;
  switch (s.kind) {
    case Kind::Flat: {
      const Flat f(s, c, w, h);
      const ll b = block.x, t = static_cast<ll>(linear_in(thread, c.block)), g = b * f.T + t;
      for (ll e = g; e < f.head && out.size() < max_rects; e += f.stride ? f.G : f.n + 1)
        append_flat_run(out, e, e + 1, w);
      for (ll p = 0; p < f.passes() && out.size() < max_rects; ++p)
        for (ll j = 0; j < f.K && out.size() < max_rects; ++j) {
          const ll ch = f.chunk(p, b, j, t);
          if (ch >= f.chunks) break;
          const auto [e0, e1] = f.chunk_elements(ch);
          append_flat_run(out, e0, e1, w);
        }
      for (ll e = g; e < f.tail && out.size() < max_rects; e += f.stride ? f.G : f.n + 1)
        append_flat_run(out, f.n - f.tail + e, f.n - f.tail + e + 1, w);
      if (out.size() > max_rects) out.resize(max_rects);
      return out;
    }
    case Kind::Grid2D:
    case Kind::Grid2DTransposed: {
      auto t = describe_thread(s, c, w, h, block, thread);
      if (t && t->in_range) out.push_back(ElementRect{t->x, t->y, 1, 1});
      return out;
    }
    case Kind::Tiled: {
      if (!patches_closed_form(s)) return out;
      const ElementRect r = clip(tiled_patch(s, block, linear_in(thread, c.block)), w, h);
      if (r.w > 0) out.push_back(r);
      return out;
    }
    case Kind::Recorded: return out;
  }
  return out;
}

std::optional<ElementOwner> owner_of(const IndexScheme& s, const LaunchConfig& c, ll w, ll h, ll x, ll y,
                                     bool with_owned) {
  if (!valid_shape(c) || x < 0 || y < 0 || x >= w || y >= h) return std::nullopt;
  ElementOwner o;
  Dim3 block, thread;
  switch (s.kind) {
    case Kind::Flat: {
      const Flat f(s, c, w, h);
      const ll e = y * w + x;
      ll g = 0;
      if (e < f.head) {
        g = f.scalar_owner(e);
        o.scalar_edge = true;
      } else if (e >= f.n - f.tail) {
        g = f.scalar_owner(e - (f.n - f.tail));
        o.scalar_edge = true;
      } else {
        const ll ch = (e - f.body_begin) / f.V;
        o.vector_lane = static_cast<unsigned>((e - f.body_begin) % f.V);
        o.pass = ch / f.per_pass();
        if (o.pass > 0 && !f.stride) return std::nullopt;  // beyond what the grid covers
        const ll q = ch % f.per_pass();
        const ll b = q / (f.T * f.K);
        o.slot = static_cast<unsigned>((q / f.T) % f.K);
        g = b * f.T + q % f.T;
      }
      if (g >= f.G) return std::nullopt;
      block = Dim3{static_cast<unsigned>(g / f.T), 0, 0};
      thread = thread_from_linear(static_cast<ull>(g % f.T), c.block);
      break;
    }
    case Kind::Grid2D:
    case Kind::Grid2DTransposed: {
      const ull gx = static_cast<ull>(s.kind == Kind::Grid2D ? x : y);
      const ull gy = static_cast<ull>(s.kind == Kind::Grid2D ? y : x);
      block = Dim3{static_cast<unsigned>(std::min<ull>(gx / c.block.x, 0xffffffffull)),
                   static_cast<unsigned>(std::min<ull>(gy / c.block.y, 0xffffffffull)), 0};
      thread = Dim3{static_cast<unsigned>(gx % c.block.x), static_cast<unsigned>(gy % c.block.y), 0};
      break;
    }
    case Kind::Tiled: {
      if (!patches_closed_form(s)) return std::nullopt;
      const ll bx = x / s.tile_w, by = y / s.tile_h;
      const ll per_row = std::max<ll>(1, s.tile_w / s.thread_w);
      const ll t = ((y % s.tile_h) / s.thread_h) * per_row + (x % s.tile_w) / s.thread_w;
      block = Dim3{static_cast<unsigned>(bx), static_cast<unsigned>(by), 0};
      if (static_cast<ull>(t) >= c.block.volume()) return std::nullopt;
      thread = thread_from_linear(static_cast<ull>(t), c.block);
      break;
    }
    case Kind::Recorded: return std::nullopt;
  }
  auto t = describe_thread(s, c, w, h, block, thread);
  if (!t) return std::nullopt;
  o.thread = *t;
  if (with_owned) o.owns = thread_elements(s, c, w, h, block, thread);
  return o;
}

std::optional<ThreadCoord> thread_for_pixel(const IndexScheme& s, const LaunchConfig& c, ll w, ll h, ll x, ll y) {
  auto o = owner_of(s, c, w, h, x, y, false);
  if (!o) return std::nullopt;
  return o->thread;
}

std::vector<RowSpan> block_footprint(const IndexScheme& s, const LaunchConfig& c, ll w, ll h, Dim3 b) {
  std::vector<RowSpan> out;
  if (!valid_shape(c) || !inside(b, c.grid) || w <= 0 || h <= 0) return out;
  auto rect = [&](ll x0, ll x1, ll y0, ll y1) {
    x0 = std::max<ll>(0, x0), y0 = std::max<ll>(0, y0);
    x1 = std::min(w, x1), y1 = std::min(h, y1);
    for (ll y = y0; x0 < x1 && y < y1; ++y) out.push_back(RowSpan{y, x0, x1});
  };
  switch (s.kind) {
    case Kind::Flat: {
      const Flat f(s, c, w, h);
      std::vector<RowSpan> runs;
      // Head and tail elements of this block's threads, then its chunk range in each pass.
      const ll g0 = static_cast<ll>(b.x) * f.T, g1 = g0 + f.T;
      auto scalar_spans = [&](ll count, ll offset) {
        if (!f.stride) {
          if (g0 < count) append_flat_spans(runs, offset + g0, offset + std::min(g1, count), w);
          return;
        }
        for (ll first = g0; first < count; first += f.G)
          append_flat_spans(runs, offset + first, offset + std::min(first + f.T, count), w);
      };
      scalar_spans(f.head, 0);
      for (ll p = 0; p < f.passes(); ++p) {
        const ll c0 = f.chunk(p, b.x, 0, 0), c1 = std::min(f.chunks, c0 + f.T * f.K);
        if (c0 >= f.chunks) break;
        append_flat_spans(runs, f.chunk_elements(c0).first, f.chunk_elements(c1 - 1).second, w);
      }
      scalar_spans(f.tail, f.n - f.tail);
      std::sort(runs.begin(), runs.end(),
                [](const RowSpan& a, const RowSpan& c2) { return a.y != c2.y ? a.y < c2.y : a.x_begin < c2.x_begin; });
      for (const RowSpan& r : runs) {  // merge touching runs of a row
        if (!out.empty() && out.back().y == r.y && out.back().x_end >= r.x_begin)
          out.back().x_end = std::max(out.back().x_end, r.x_end);
        else out.push_back(r);
      }
      return out;
    }
    case Kind::Grid2D: {
      const ll x0 = static_cast<ll>(b.x) * c.block.x, y0 = static_cast<ll>(b.y) * c.block.y;
      rect(x0, x0 + c.block.x, y0, y0 + c.block.y);
      return out;
    }
    case Kind::Grid2DTransposed: {
      const ll r0 = static_cast<ll>(b.x) * c.block.x, c0 = static_cast<ll>(b.y) * c.block.y;
      rect(c0, c0 + c.block.y, r0, r0 + c.block.x);
      return out;
    }
    case Kind::Tiled: {
      const ll x0 = static_cast<ll>(b.x) * s.tile_w, y0 = static_cast<ll>(b.y) * s.tile_h;
      rect(x0, x0 + s.tile_w, y0, y0 + s.tile_h);
      return out;
    }
    case Kind::Recorded: return out;
  }
  return out;
}

std::vector<RowSpan> warp_footprint(const IndexScheme& s, const LaunchConfig& c, ll w, ll h, Dim3 b, unsigned warp) {
  std::vector<RowSpan> out;
  if (!valid_shape(c) || !inside(b, c.grid)) return out;
  const ull T = c.block.volume();
  std::vector<RowSpan> runs;
  for (ull l = static_cast<ull>(warp) * kWarpSize; l < T && l < (static_cast<ull>(warp) + 1) * kWarpSize; ++l)
    for (const ElementRect& r : thread_elements(s, c, w, h, b, thread_from_linear(l, c.block)))
      for (ll y = r.y; y < r.y + r.h; ++y) runs.push_back(RowSpan{y, r.x, r.x + r.w});
  std::sort(runs.begin(), runs.end(),
            [](const RowSpan& a, const RowSpan& c2) { return a.y != c2.y ? a.y < c2.y : a.x_begin < c2.x_begin; });
  for (const RowSpan& r : runs) {
    if (!out.empty() && out.back().y == r.y && out.back().x_end >= r.x_begin)
      out.back().x_end = std::max(out.back().x_end, r.x_end);
    else out.push_back(r);
  }
  return out;
}

}  // namespace bs::mapping
