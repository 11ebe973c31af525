// Which thread computes which data element, and back: the arithmetic behind the grid overlay,
// the hover readout and the block/warp highlights.
//
// Everything here is a pure function of the LaunchConfig the launcher REPORTS it launched
// (LaunchRecord::config) and the data shape, never of what the UI asked for: if the two ever
// disagree, the overlay must show what really ran.
//
// Data coordinates: (x, y) = (column, row) of a width x height row-major array. For images that
// is the pixel; for matmul's C (M rows, N columns) pass width = N, height = M, x = col, y = row.
//
// Section index
//   IndexScheme, MatmulMapping   how a kernel turns (blockIdx, threadIdx) into a data index
//   ThreadCoord, RowSpan         what the hover shows; row runs the UI outlines
//   describe_thread              one thread of the launch, as the kernel sees it
//   thread_for_pixel             pixel -> the thread that computes it
//   pixel_for_thread             thread -> the pixel it computes (if any)
//   block_footprint              the pixels one block covers, as row runs
//   warp_footprint               the pixels one warp covers, as row runs
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/dim.hpp"
#include "core/launch.hpp"
#include "core/status.hpp"

namespace bs::mapping {

// Every CUDA GPU so far has 32 lanes per warp; warps are formed from consecutive linear thread
// ids of a block (x fastest, then y, then z).
inline constexpr unsigned kWarpSize = 32;

enum class IndexScheme {
  // i = blockIdx.x * T + linear thread in block, T = blockDim.x*y*z;
  // pixel = (i % width, i / width) (gray_1d_flat). Blocks are runs of flattened indices that wrap across rows. blockIdx.y/z are
  // not part of i: a grid with y or z extent repeats the same indices.
  Flat1D,
  // x = blockIdx.x*blockDim.x + threadIdx.x (column), y = blockIdx.y*blockDim.y + threadIdx.y
  // (row). (gray_2d; matmul with the row taken from y). blockDim.z must be 1 (and gridDim.z 1):
  // extra z threads compute the same element again.
  Grid2D,
  // The transposed 2D mapping: the global x index picks the ROW and y the column
  // (SGEMM_CUDA's naive kernel). Consecutive lanes then walk down a column of a row-major array.
  Grid2DTransposed,
};
const char* to_string(IndexScheme s);

// Matmul thread mappings, named by where the row of C comes from.
enum class MatmulMapping {
  RowFromY,  // col = global x, row = global y: consecutive lanes read consecutive B and C elements
  RowFromX,  // row = global x, col = global y: consecutive lanes stride through A and C by rows
};
const char* to_string(MatmulMapping m);
constexpr IndexScheme scheme_for(MatmulMapping m) {
  return m == MatmulMapping::RowFromY ? IndexScheme::Grid2D : IndexScheme::Grid2DTransposed;
}

// One thread of a launch as the hover panel shows it.
struct ThreadCoord {
  Dim3 block;   // blockIdx
  Dim3 thread;  // threadIdx
  // blockIdx.x + gridDim.x*(blockIdx.y + gridDim.y*blockIdx.z)
  unsigned long long linear_block = 0;
  // threadIdx.x + blockDim.x*(threadIdx.y + blockDim.y*threadIdx.z)
  unsigned long long linear_thread_in_block = 0;
  // linear_block * threads per block + linear_thread_in_block
  unsigned long long global_linear_thread = 0;
  unsigned warp_in_block = 0;  // linear_thread_in_block / 32
  unsigned lane = 0;           // linear_thread_in_block % 32
  // The index the kernel computes: Flat1D's i (computed before its bounds check, so it may be
  // >= width*height); for the 2D schemes y*width + x, or -1 when the thread's x or y is outside
  // the data (the kernel's guard returns before computing it).
  long long flat_index = -1;
  // Not every thread of this block does work (an edge block; also a block entirely off the data).
  bool block_is_partial = false;
  // This thread's index falls inside the data, so it computes an element.
  bool in_range = false;
  // The element it computes when in_range (x = column, y = row), else -1.
  int x = -1, y = -1;
};

// A rectangle of data elements: columns [x, x + w) of rows [y, y + h).
struct ElementRect {
  long long x = 0, y = 0, w = 0, h = 0;
  friend bool operator==(const ElementRect&, const ElementRect&) = default;
};

// Who stores an element of a launch's data, and what else that thread stores: what the hover
// readouts, the inspectors and the "one thread's pixels" highlight show (Lab::owner).
struct ElementOwner {
  ThreadCoord thread;          // blockIdx, threadIdx, warp and lane, linear ids
  long long pass = 0;          // grid-stride loops: the pass of the loop that reaches it
  unsigned slot = 0;           // which of the thread's per-thread chunks (IndexScheme::per_thread)
  unsigned vector_lane = 0;    // its place in a vector access (0..vector-1)
  bool scalar_edge = false;    // a vectorized kernel's scalar head or tail
  std::vector<ElementRect> owns;  // every element the thread stores, clipped to the data
  ElementRect warp_tile;       // the warp's tile where a kernel has one (w == 0 elsewhere)
};

// A run of pixels [x_begin, x_end) on row y.
struct RowSpan {
  int y = 0;
  int x_begin = 0;
  int x_end = 0;
  friend bool operator==(const RowSpan&, const RowSpan&) = default;
};

// Says when a config does something the scheme's kernel would not expect (duplicated work from
// blockDim.z > 1 in 2D, from gridDim.y/z > 1 in 1D), or when dimensions are empty. The functions
// below still answer for such configs, reporting exactly what the kernel would do.
Status check_scheme(IndexScheme scheme, const LaunchConfig& config, int width, int height);

// Linear block id (x fastest) and back; the trace and the schedule index blocks this way.
unsigned long long linear_block_id(Dim3 block, Dim3 grid);
Dim3 block_from_linear(unsigned long long linear, Dim3 grid);
Dim3 thread_from_linear(unsigned long long linear, Dim3 block_dim);

// Thread `thread` of block `block`; nullopt when either lies outside the launch.
std::optional<ThreadCoord> describe_thread(IndexScheme scheme, const LaunchConfig& config,
                                           int width, int height, Dim3 block, Dim3 thread);

// The thread that computes pixel (x, y). nullopt when the pixel is outside the data or the grid
// does not cover it. Where several threads compute the same pixel (see check_scheme), the one
// with the smallest blockIdx.y/z and threadIdx.z is returned.
std::optional<ThreadCoord> thread_for_pixel(IndexScheme scheme, const LaunchConfig& config,
                                            int width, int height, int x, int y);

// The pixel (x, y) that thread `thread` of block `block` computes; nullopt for idle threads and
// for threads outside the launch.
std::optional<std::pair<int, int>> pixel_for_thread(IndexScheme scheme, const LaunchConfig& config,
                                                    int width, int height, Dim3 block, Dim3 thread);

// The pixels block `block` computes, as row runs sorted by (y, x_begin); empty for a block off
// the data or outside the grid. For Flat1D this is the block's run of flattened indices: a tail
// of one row, whole rows, the head of another (this is how a 1D block wraps across the image).
std::vector<RowSpan> block_footprint(IndexScheme scheme, const LaunchConfig& config, int width,
                                     int height, Dim3 block);

// The pixels warp `warp` of block `block` computes (its lanes' elements), as sorted row runs.
std::vector<RowSpan> warp_footprint(IndexScheme scheme, const LaunchConfig& config, int width,
                                    int height, Dim3 block, unsigned warp);

// Warps per block: ceil(threads per block / 32).
unsigned warps_per_block(const LaunchConfig& config);

}  // namespace bs::mapping
