// Which thread computes which data element, and back: the arithmetic behind the grid overlay,
// the hover readout, the "one thread's elements" highlight and the block/warp outlines.
//
// Everything here is a pure function of the LaunchConfig the lab REPORTS it launched
// (LaunchRecord::config) and of the IndexScheme it reports (core/index_scheme.hpp, which
// defines each scheme's arithmetic), never of what the UI asked for: if the two ever disagree,
// the overlay must show what really ran. tests/mapping/brute_force.hpp restates the schemes by
// enumerating threads one by one, and the labs' tests check the schemes against what the kernels
// really store (run on the simulator, recording who wrote each element).
//
// Data coordinates: (x, y) = (column, row) of a width x height row-major array. For images that
// is the pixel; for matmul's C (M rows, N columns) pass width = N, height = M, x = col, y = row.
//
// Section index
//   ThreadCoord, ElementRect, ElementOwner, RowSpan   what the readouts and outlines show
//   check_scheme                    configurations a scheme's kernel would not expect
//   describe_thread                 one thread of the launch, as the kernel sees it
//   thread_elements                 thread -> every element it stores
//   owner_of / thread_for_pixel     element -> the thread that stores it
//   block_footprint, warp_footprint the elements of a block, of a warp, as row runs
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/dim.hpp"
#include "core/index_scheme.hpp"
#include "core/launch.hpp"
#include "core/status.hpp"

namespace bs::mapping {

// Every CUDA GPU so far has 32 lanes per warp; warps are formed from consecutive linear thread
// ids of a block (x fastest, then y, then z).
inline constexpr unsigned kWarpSize = 32;

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
  // The index the kernel computes for its first element: Flat's index (computed before its
  // bounds check, so it may be >= width*height); for the 2D schemes y*width + x, or -1 when the
  // thread's x or y is outside the data (the kernel's guard returns before computing it).
  long long flat_index = -1;
  // Not every thread of this block does work (an edge block; also a block entirely off the data).
  bool block_is_partial = false;
  // This thread stores at least one element of the data.
  bool in_range = false;
  // Its first element when in_range (x = column, y = row), else -1.
  long long x = -1, y = -1;
};

// A rectangle of data elements: columns [x, x + w) of rows [y, y + h).
struct ElementRect {
  long long x = 0, y = 0, w = 0, h = 0;
  friend bool operator==(const ElementRect&, const ElementRect&) = default;
};

// Who stores an element of a launch's data, and what else that thread stores: what the hover
// readouts, the inspectors and the "one thread's elements" highlight show (Lab::owner).
struct ElementOwner {
  ThreadCoord thread;             // blockIdx, threadIdx, warp and lane, linear ids
  long long pass = 0;             // grid-stride loops: the pass of the loop that reaches it
  unsigned slot = 0;              // which of the thread's per-thread chunks (IndexScheme::per_thread)
  unsigned vector_lane = 0;       // its place in a vector access (0..vector-1)
  bool scalar_edge = false;       // a vectorized kernel's scalar head or tail
  std::vector<ElementRect> owns;  // every element the thread stores, clipped to the data
  ElementRect warp_tile;          // the warp's tile where a kernel has one (w == 0 elsewhere)
};

// A run of elements [x_begin, x_end) on row y.
struct RowSpan {
  long long y = 0;
  long long x_begin = 0;
  long long x_end = 0;
  friend bool operator==(const RowSpan&, const RowSpan&) = default;
};

// Says when a config does something the scheme's kernel would not expect (duplicated work from
// blockDim.z > 1 in 2D, from gridDim.y/z > 1 in a flat scheme), or when dimensions are empty.
// The functions below still answer for such configs, reporting exactly what the kernel would do.
Status check_scheme(const IndexScheme& scheme, const LaunchConfig& config, long long width, long long height);

// Linear block id (x fastest) and back; the trace and the schedule index blocks this way.
unsigned long long linear_block_id(Dim3 block, Dim3 grid);
Dim3 block_from_linear(unsigned long long linear, Dim3 grid);
Dim3 thread_from_linear(unsigned long long linear, Dim3 block_dim);

// Thread `thread` of block `block`; nullopt when either lies outside the launch. For Tiled
// schemes without a closed-form patch (thread_w == 0) in_range says whether the block's tile
// meets the data.
std::optional<ThreadCoord> describe_thread(const IndexScheme& scheme, const LaunchConfig& config, long long width,
                                           long long height, Dim3 block, Dim3 thread);

// Every element thread `thread` of block `block` stores, as row runs (h == 1) or rectangles,
// clipped to the data, in the order the thread stores them (pass, then slot). At most
// `max_rects` are returned (grid-stride loops over huge data); empty for an idle thread.
std::vector<ElementRect> thread_elements(const IndexScheme& scheme, const LaunchConfig& config, long long width,
                                         long long height, Dim3 block, Dim3 thread, std::size_t max_rects = 4096);

// The thread that stores element (x, y), with its pass, slot and vector lane and (when
// with_owned) everything else it stores. nullopt when the element is outside the data, the grid
// does not reach it, or the scheme cannot say (Tiled without a patch, Recorded: ask the lab).
// Where several threads store the same element (see check_scheme), the one with the smallest
// blockIdx.y/z and threadIdx.z is returned.
std::optional<ElementOwner> owner_of(const IndexScheme& scheme, const LaunchConfig& config, long long width,
                                     long long height, long long x, long long y, bool with_owned = true);
// owner_of(...)->thread, without the owned list.
std::optional<ThreadCoord> thread_for_pixel(const IndexScheme& scheme, const LaunchConfig& config, long long width,
                                            long long height, long long x, long long y);

// The elements block `block` stores, as row runs sorted by (y, x_begin); empty for a block off
// the data or outside the grid. For flat schemes a block's run of flattened indices wraps across
// rows (a tail of one row, whole rows, the head of another); per pass of a grid-stride loop.
std::vector<RowSpan> block_footprint(const IndexScheme& scheme, const LaunchConfig& config, long long width,
                                     long long height, Dim3 block);

// The elements warp `warp` of block `block` stores, as sorted row runs.
std::vector<RowSpan> warp_footprint(const IndexScheme& scheme, const LaunchConfig& config, long long width,
                                    long long height, Dim3 block, unsigned warp);

// Warps per block: ceil(threads per block / 32).
unsigned warps_per_block(const LaunchConfig& config);

}  // namespace bs::mapping
