// The helpers the rungs' traits share (gray_rung.hpp: grid rules, checks, the default access
// model, the byte counts) and the ladder's look-ups (gray_ladder.hpp). Nothing here names a rung.
#include "labs/grayscale/gray_ladder.hpp"

#include <algorithm>
#include <climits>

#include "mapping/occupancy.hpp"

namespace bs::gray {
namespace {

unsigned clamp_u32(unsigned long long v) {
  return static_cast<unsigned>(std::min<unsigned long long>(v, 0xffffffffull));
}

// Threads per block as the flattened kernels count them, saturating (a typed 32-bit Dim3 can
// overflow 64 bits; such a block is refused by validation, its grid only has to exist).
unsigned long long flat_threads(Dim3 b) {
  const unsigned long long xy = static_cast<unsigned long long>(b.x) * b.y;
  return xy > ~0ull / b.z ? ~0ull : xy * b.z;
}

}  // namespace

const std::vector<Dim3>& gray_flat_presets() {
  static const std::vector<Dim3> flat{{32, 1, 1}, {64, 1, 1}, {128, 1, 1}, {256, 1, 1}, {512, 1, 1}, {1024, 1, 1}};
  return flat;
}

const std::vector<Dim3>& gray_2d_presets() {
  static const std::vector<Dim3> grid{{8, 8, 1},  {16, 16, 1}, {32, 8, 1},  {32, 32, 1},
                                      {64, 4, 1}, {256, 1, 1}, {1, 256, 1}, {32, 4, 1}};
  return grid;
}

LaunchConfig gray_flat_launch_config(Dim3 block, int width, int height, unsigned vector, unsigned per_thread,
                                     bool grid_stride, const DeviceLimits& limits, const KernelAttributes& kernel) {
  LaunchConfig c;
  c.block = block;
  const unsigned long long w = width > 0 ? width : 0, h = height > 0 ? height : 0;
  const unsigned long long n = w * h;
  if (block.x == 0 || block.y == 0 || block.z == 0 || n == 0) {
    c.grid = Dim3{0, 0, 0};  // the check names the zero dimension, or that there is no image
    return c;
  }
  // Every chunk owned, and the scalar head and tail (each fewer than 2 chunks of pixels,
  // GrayVecPlan) within the first threads.
  const unsigned long long threads = flat_threads(block), P = vector, K = per_thread;
  const unsigned long long chunks = ceil_div(n, P);
  const unsigned long long scalar = std::min<unsigned long long>(n, 2 * P);
  const unsigned long long per_block = threads > ~0ull / K ? ~0ull : threads * K;
  const unsigned long long needed =
      std::max<unsigned long long>({ceil_div(chunks, per_block), ceil_div(scalar, threads), 1});
  if (grid_stride) {
    const mapping::Occupancy occ = mapping::compute_occupancy(threads, 0, kernel, limits);
    const unsigned long long resident =
        static_cast<unsigned long long>(std::max(1u, limits.sm_count)) * std::max(1u, occ.active_blocks_per_sm);
    c.grid = Dim3{clamp_u32(std::min(resident, needed)), 1, 1};
    return c;
  }
  c.grid = Dim3{clamp_u32(needed), 1, 1};
  return c;
}

LaunchConfig gray_2d_launch_config(Dim3 block, int width, int height, bool x_over_rows) {
  LaunchConfig c;
  c.block = block;
  const unsigned long long w = width > 0 ? width : 0, h = height > 0 ? height : 0;
  if (block.x == 0 || block.y == 0 || block.z == 0 || w * h == 0) {
    c.grid = Dim3{0, 0, 0};
    return c;
  }
  const unsigned long long along_x = x_over_rows ? h : w, along_y = x_over_rows ? w : h;
  c.grid = Dim3{clamp_u32(ceil_div(along_x, block.x)), clamp_u32(ceil_div(along_y, block.y)), 1};
  return c;
}

Status refuse_grid_extent(const LaunchConfig& config) {
  if (config.grid.y != 1 || config.grid.z != 1)
    return Status::failure("gridDim " + to_string(config.grid) +
                               " has y or z extent, but this kernel numbers its threads by blockIdx.x alone: every "
                               "extra row of blocks would redo the same pixels",
                           "use a grid of (x, 1, 1)", "check_gray_rung_launch");
  return Status::success();
}

Status refuse_small_grid(std::string_view id, const LaunchConfig& rule, const LaunchConfig& config, int width,
                         int height) {
  if (config.grid.x < rule.grid.x || config.grid.y < rule.grid.y)
    return Status::failure("gridDim " + to_string(config.grid) + " is too small: " + std::string(id) + " needs " +
                               to_string(rule.grid) + " blocks of " + to_string(config.block) + " to cover a " +
                               std::to_string(width) + " x " + std::to_string(height) + " image, and it does not loop",
                           "use the kernel's own grid, or a grid-stride rung for a fixed grid",
                           "check_gray_rung_launch");
  return Status::success();
}

Status check_gray_2d_launch(std::string_view id, const LaunchConfig& config, int width, int height,
                            const DeviceLimits& limits, const KernelAttributes* kernel, bool x_over_rows) {
  if (config.block.z != 1)
    return Status::failure("the 2D kernel maps x and y only; blockDim.z = " + std::to_string(config.block.z) +
                               " would make every pixel be computed " + std::to_string(config.block.z) + " times",
                           "set blockDim.z to 1 (or use a 1D kernel, which flattens x*y*z)", "check_gray_rung_launch");
  if (Status s = validate_launch(config, limits, kernel); !s) {
    if (config.grid.y > limits.max_grid.y) {
      const int along_y = x_over_rows ? width : height;
      s.hint = "this image is " + std::to_string(along_y) + (x_over_rows ? " columns wide" : " rows tall") +
               ": blockDim.y >= " + std::to_string(ceil_div(along_y, limits.max_grid.y)) +
               " keeps gridDim.y within 65535, or use a 1D kernel";
    }
    return s;
  }
  return refuse_small_grid(id, gray_2d_launch_config(config.block, width, height, x_over_rows), config, width, height);
}

std::vector<mapping::WarpAccess> gray_warp_accesses(const LaunchRecord& r, GrayLayout layout, Dim3 block, unsigned warp,
                                                    int step) {
  using mapping::kNoAccess;
  using mapping::kWarpSize;
  std::vector<mapping::WarpAccess> out;
  const long long n = r.data_width * r.data_height;
  // first[l]: the first pixel lane l handles in this request (-1: none); `pixels` per lane.
  std::vector<long long> first(kWarpSize, -1);
  unsigned pixels = 1;
  if (r.scheme.kind == IndexScheme::Kind::Flat) {
    // Every lane's chunk of this pass (step) and its first slot; vector accesses move `vector`
    // pixels per lane.
    const auto lanes = mapping::flat_lane_chunks(r.scheme, r.config, r.data_width, r.data_height, block, warp, step, 0);
    pixels = std::max(1u, r.scheme.vector);
    for (unsigned l = 0; l < kWarpSize; ++l)
      if (lanes[l].count > 0) first[l] = lanes[l].first;
  } else if (r.scheme.kind == IndexScheme::Kind::Grid2D || r.scheme.kind == IndexScheme::Kind::Grid2DTransposed) {
    const auto lanes = mapping::warp_lanes(r.scheme, r.config, r.data_width, r.data_height, block, warp);
    for (unsigned l = 0; l < kWarpSize; ++l)
      if (lanes[l] && lanes[l]->in_range) first[l] = lanes[l]->y * r.data_width + lanes[l]->x;
  } else {
    return out;  // the library anchor and the copy: not our accesses
  }
  bool any = false;
  for (long long f : first) any |= f >= 0;
  if (!any) return out;
  // Byte offsets in a buffer of `stride` bytes per pixel (plus `base`), `piece` bytes into each
  // lane's run.
  auto offsets = [&](long long base, long long stride, long long piece) {
    std::vector<long long> a(kWarpSize, kNoAccess);
    for (unsigned l = 0; l < kWarpSize; ++l)
      if (first[l] >= 0) a[l] = base + stride * first[l] + piece;
    return a;
  };
  if (layout == GrayLayout::Planar) {
    out.push_back(mapping::make_warp_access("read R  x[i]", "planar_rgb", false, pixels, offsets(0, 1, 0)));
    out.push_back(mapping::make_warp_access("read G  x[i + n]", "planar_rgb", false, pixels, offsets(n, 1, 0)));
    out.push_back(mapping::make_warp_access("read B  x[i + 2n]", "planar_rgb", false, pixels, offsets(2 * n, 1, 0)));
  } else {
    // 4 bytes per pixel: a lane's run of `pixels` pixels is 4 * pixels bytes, read 16 at a time
    // when it is wider than one 16-byte access.
    const unsigned bytes = 4 * pixels;
    const unsigned piece = std::min(bytes, 16u);
    for (unsigned p = 0; p < bytes; p += piece) {
      const std::string label = bytes <= 16 ? "read RGBA  x[4i]" : "read RGBA  x[4i + " + std::to_string(p) + "]";
      out.push_back(mapping::make_warp_access(label, "rgba", false, piece, offsets(0, 4, p)));
    }
  }
  out.push_back(mapping::make_warp_access("write   out[i]", "out", true, pixels, offsets(0, 1, 0)));
  return out;
}

double gray_bytes_moved(GrayLayout l, int width, int height) {
  return bytes_per_pixel(l) * static_cast<double>(width) * static_cast<double>(height);
}

double gray_flops(int width, int height) { return 5.0 * width * height; }

std::string gray_bytes_note(GrayLayout l) {
  return l == GrayLayout::Planar ? "3 bytes read (R, G, B planes) + 1 written per pixel"
                                 : "4 bytes read (one RGBA8 word) + 1 written per pixel";
}

const GrayRung* find_gray_rung(const std::vector<GrayRung>& ladder, std::string_view id) {
  for (const GrayRung& r : ladder)
    if (r.info.id == id) return &r;
  return nullptr;
}

const GrayRung& gray_rung(GrayKernel k) { return gray_rungs()[static_cast<std::size_t>(k)]; }

std::optional<GrayLayout> gray_layout_from_name(std::string_view name) {
  for (GrayLayout l : kGrayLayouts)
    if (name == to_string(l)) return l;
  return std::nullopt;
}

Status check_gray_rung_launch(const GrayRung& rung, GrayLayout l, const LaunchConfig& config, int width, int height,
                              const DeviceLimits& limits, const KernelAttributes* kernel) {
  if (width <= 0 || height <= 0)
    return Status::failure("no image loaded", "drop an image on the window", "gray launch");
  if (static_cast<long long>(width) * height > INT_MAX)
    return Status::failure(
        "a " + std::to_string(width) + " x " + std::to_string(height) + " image has more than 2^31 - 1 pixels",
        "the grayscale kernels index pixels with int, as the lecture's do: use a smaller image",
        "check_gray_rung_launch");
  return rung.check(l, config, width, height, limits, kernel);
}

}  // namespace bs::gray
