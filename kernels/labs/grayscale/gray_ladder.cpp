#include "labs/grayscale/gray_ladder.hpp"

#include <algorithm>
#include <climits>

#include "labs/grayscale/gray_grid_stride.hpp"
#include "labs/grayscale/gray_ilp4.hpp"
#include "labs/grayscale/gray_vec16.hpp"
#include "mapping/occupancy.hpp"

namespace bs::gray {

const std::vector<GrayRungInfo>& gray_rungs() {
  static const std::vector<GrayRungInfo> rungs{
      {GrayRung::Flat1D, "gray_1d_flat", "1. 1D over flattened pixels (lecture)",
       "One thread per flattened pixel, one byte per load: the baseline, far from the memory "
       "limit because each thread has only three bytes in flight.",
       "kernels/labs/grayscale/gray_1d_flat.hpp", KernelGroup::Lecture, 1, Dim3{256, 1, 1},
       "ceil(n / (blockDim.x*y*z))", false, false},
      {GrayRung::Grid2D, "gray_2d", "2. 2D blocks over (x, y) (lecture)",
       "Blocks are rectangles of the image; partial blocks line the right and bottom edges.",
       "kernels/labs/grayscale/gray_2d.hpp", KernelGroup::Lecture, 2, Dim3{16, 16, 1},
       "(ceil(width / blockDim.x), ceil(height / blockDim.y))", false, false},
      {GrayRung::Ilp4, "gray_ilp4", "3. 4 pixels per thread",
       "Each thread loads 4 pixels (T apart, still coalesced) before using any: 4x the bytes in "
       "flight per thread and 4x fewer blocks.",
       "kernels/labs/grayscale/gray_ilp4.hpp", KernelGroup::Ladder, 1, Dim3{256, 1, 1},
       "ceil(n / (4 * blockDim.x*y*z))", false, false},
      {GrayRung::Vec16, "gray_vec16", "4. 16-byte loads and stores",
       "Each thread converts 16 pixels with 16-byte accesses (aligned on the output, misaligned "
       "planes funnel-shifted), with a scalar head and tail for any width and alignment.",
       "kernels/labs/grayscale/gray_vec16.hpp", KernelGroup::Ladder, 1, Dim3{256, 1, 1},
       "ceil(n / (16 * blockDim.x*y*z))", false, false},
      {GrayRung::GridStride, "gray_grid_stride", "5. grid-stride loop, grid from the device",
       "One wave of blocks (SMs x resident blocks) loops over the image in 16-pixel chunks: the "
       "form production kernels use, with a grid that no longer depends on the image.",
       "kernels/labs/grayscale/gray_grid_stride.hpp", KernelGroup::Ladder, 1, Dim3{256, 1, 1},
       "min(SMs x resident blocks per SM, blocks the image needs)", true, false},
      {GrayRung::CubTransform, "cub_transform", "CUB DeviceTransform (library anchor)",
       "cub::DeviceTransform::Transform computing the same pixels: what the CUDA toolkit's own "
       "library reaches on this device.",
       "kernels/labs/grayscale/gray_cub.cu", KernelGroup::Library, 1, Dim3{256, 1, 1},
       "chosen by CUB", true, true},
  };
  return rungs;
}

const GrayRungInfo& rung_info(GrayRung r) { return gray_rungs()[static_cast<int>(r)]; }

std::optional<GrayRung> gray_rung_from_id(std::string_view id) {
  for (const auto& r : gray_rungs())
    if (r.id == id) return r.rung;
  return std::nullopt;
}

std::optional<GrayLayout> gray_layout_from_name(std::string_view name) {
  for (GrayLayout l : kGrayLayouts)
    if (name == to_string(l)) return l;
  return std::nullopt;
}

const std::vector<Dim3>& gray_rung_presets(GrayRung r) {
  static const std::vector<Dim3> flat{{32, 1, 1},  {64, 1, 1},  {128, 1, 1},
                                      {256, 1, 1}, {512, 1, 1}, {1024, 1, 1}};
  static const std::vector<Dim3> grid{{8, 8, 1},  {16, 16, 1}, {32, 8, 1},  {32, 32, 1},
                                      {64, 4, 1}, {256, 1, 1}, {1, 256, 1}, {32, 4, 1}};
  static const std::vector<Dim3> none{};
  if (r == GrayRung::Grid2D) return grid;
  if (r == GrayRung::CubTransform) return none;
  return flat;
}

unsigned gray_rung_vector(GrayRung r, GrayLayout l) {
  switch (r) {
    case GrayRung::Vec16:
    case GrayRung::GridStride:
      return l == GrayLayout::Planar ? kVecPixels<GrayLayout::Planar>
                                     : kVecPixels<GrayLayout::Rgba>;
    default:
      return 1;
  }
}

unsigned gray_rung_per_thread(GrayRung r) {
  switch (r) {
    case GrayRung::Ilp4: return kIlpPixels;
    case GrayRung::GridStride: return kGridStrideChunks;
    default: return 1;
  }
}

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

// Blocks a non-looping flattened rung needs: every chunk owned, and the scalar head and tail
// (each fewer than 2 chunks of pixels, GrayVecPlan) within the first threads.
unsigned long long blocks_needed(GrayRung r, GrayLayout l, unsigned long long threads,
                                 unsigned long long n) {
  const unsigned long long P = gray_rung_vector(r, l), K = gray_rung_per_thread(r);
  const unsigned long long chunks = ceil_div(n, P);
  const unsigned long long scalar = std::min<unsigned long long>(n, 2 * P);
  const unsigned long long per_block = threads > ~0ull / (K) ? ~0ull : threads * K;
  return std::max<unsigned long long>({ceil_div(chunks, per_block), ceil_div(scalar, threads), 1});
}

}  // namespace

LaunchConfig gray_rung_launch_config(GrayRung r, GrayLayout l, Dim3 block, int width, int height,
                                     const DeviceLimits& limits, const KernelAttributes& kernel) {
  LaunchConfig c;
  c.block = block;
  const unsigned long long w = width > 0 ? width : 0, h = height > 0 ? height : 0;
  const unsigned long long n = w * h;
  if (r == GrayRung::CubTransform) {
    c.grid = Dim3{0, 0, 0};
    c.block = Dim3{0, 0, 0};
    return c;
  }
  if (block.x == 0 || block.y == 0 || block.z == 0 || n == 0) {
    c.grid = Dim3{0, 0, 0};  // the check names the zero dimension, or that there is no image
    return c;
  }
  if (r == GrayRung::Grid2D) {
    c.grid = Dim3{clamp_u32(ceil_div(w, block.x)), clamp_u32(ceil_div(h, block.y)), 1};
    return c;
  }
  const unsigned long long threads = flat_threads(block);
  if (r == GrayRung::Flat1D) {
    c.grid = Dim3{clamp_u32(ceil_div(n, threads)), 1, 1};
    return c;
  }
  const unsigned long long needed = blocks_needed(r, l, threads, n);
  if (rung_info(r).grid_stride) {
    const mapping::Occupancy occ = mapping::compute_occupancy(threads, 0, kernel, limits);
    const unsigned long long resident =
        static_cast<unsigned long long>(std::max(1u, limits.sm_count)) *
        std::max(1u, occ.active_blocks_per_sm);
    c.grid = Dim3{clamp_u32(std::min(resident, needed)), 1, 1};
    return c;
  }
  c.grid = Dim3{clamp_u32(needed), 1, 1};
  return c;
}

Status check_gray_rung_launch(GrayRung r, GrayLayout l, const LaunchConfig& config, int width,
                              int height, const DeviceLimits& limits,
                              const KernelAttributes* kernel) {
  if (width <= 0 || height <= 0)
    return Status::failure("no image loaded", "drop an image on the window", "gray launch");
  if (static_cast<long long>(width) * height > INT_MAX)
    return Status::failure("a " + std::to_string(width) + " x " + std::to_string(height) +
                               " image has more than 2^31 - 1 pixels",
                           "the grayscale kernels index pixels with int, as the lecture's do: "
                           "use a smaller image",
                           "check_gray_rung_launch");
  if (r == GrayRung::CubTransform) return Status::success();  // CUB validates its own launch
  if (r == GrayRung::Grid2D && config.block.z != 1)
    return Status::failure("the 2D kernel maps x and y only; blockDim.z = " +
                               std::to_string(config.block.z) +
                               " would make every pixel be computed " +
                               std::to_string(config.block.z) + " times",
                           "set blockDim.z to 1 (or use a 1D kernel, which flattens x*y*z)",
                           "check_gray_rung_launch");
  if (Status s = validate_launch(config, limits, kernel); !s) {
    if (r == GrayRung::Grid2D && config.grid.y > limits.max_grid.y)
      s.hint = "this image is " + std::to_string(height) + " rows tall: blockDim.y >= " +
               std::to_string(ceil_div(height, limits.max_grid.y)) +
               " keeps gridDim.y within 65535, or use a 1D kernel";
    return s;
  }
  if (r != GrayRung::Grid2D && (config.grid.y != 1 || config.grid.z != 1))
    return Status::failure("gridDim " + to_string(config.grid) +
                               " has y or z extent, but this kernel numbers its threads by "
                               "blockIdx.x alone: every extra row of blocks would redo the same "
                               "pixels",
                           "use a grid of (x, 1, 1)", "check_gray_rung_launch");
  if (!rung_info(r).grid_stride) {
    const LaunchConfig rule = gray_rung_launch_config(r, l, config.block, width, height, limits,
                                                      kernel ? *kernel : KernelAttributes{});
    if (config.grid.x < rule.grid.x || config.grid.y < rule.grid.y)
      return Status::failure("gridDim " + to_string(config.grid) + " is too small: " +
                                 std::string(rung_info(r).id) + " needs " +
                                 to_string(rule.grid) + " blocks of " +
                                 to_string(config.block) + " to cover a " +
                                 std::to_string(width) + " x " + std::to_string(height) +
                                 " image, and it does not loop",
                             "use the kernel's own grid, or a grid-stride rung for a fixed grid",
                             "check_gray_rung_launch");
  }
  (void)l;
  return Status::success();
}

GrayVecPlan gray_rung_plan(GrayRung r, GrayLayout l, const GrayArgs& a) {
  switch (r) {
    case GrayRung::Vec16:
    case GrayRung::GridStride:
      return l == GrayLayout::Planar
                 ? gray_vec_plan<GrayLayout::Planar, kVecPixels<GrayLayout::Planar>>(a)
                 : gray_vec_plan<GrayLayout::Rgba, kVecPixels<GrayLayout::Rgba>>(a);
    default: {
      GrayVecPlan p;
      p.head = a.n;
      return p;
    }
  }
}

std::optional<IndexScheme> gray_rung_scheme(GrayRung r, GrayLayout l, const GrayArgs& a) {
  switch (r) {
    case GrayRung::CubTransform: return std::nullopt;
    case GrayRung::Grid2D: return IndexScheme::grid2d();
    case GrayRung::Flat1D: return IndexScheme::flat();
    case GrayRung::Ilp4: {
      IndexScheme s = IndexScheme::flat();
      s.per_thread = kIlpPixels;
      return s;
    }
    case GrayRung::Vec16:
    case GrayRung::GridStride: {
      const GrayVecPlan plan = gray_rung_plan(r, l, a);
      IndexScheme s = IndexScheme::flat();
      s.vector = gray_rung_vector(r, l);
      s.per_thread = gray_rung_per_thread(r);
      s.grid_stride = rung_info(r).grid_stride;
      s.head = plan.head;
      s.tail = plan.tail;
      return s;
    }
  }
  return std::nullopt;
}

double gray_bytes_moved(GrayLayout l, int width, int height) {
  return bytes_per_pixel(l) * static_cast<double>(width) * static_cast<double>(height);
}

double gray_flops(int width, int height) { return 5.0 * width * height; }

std::string gray_bytes_note(GrayLayout l) {
  return l == GrayLayout::Planar ? "3 bytes read (R, G, B planes) + 1 written per pixel"
                                 : "4 bytes read (one RGBA8 word) + 1 written per pixel";
}

}  // namespace bs::gray
