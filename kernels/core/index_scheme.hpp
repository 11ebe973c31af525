// How a kernel maps its threads onto the elements of its data: the one description the overlay
// shader, the hover readout, the launch statistics and the memory view all read, filled by the
// lab for the launch it really made (LaunchRecord::scheme).
//
// Data coordinates: the data is a width x height row-major array (an image; matmul's C with
// width = N columns and height = M rows); element e = y * width + x.
//
// Kinds
//   Flat      The data is flattened to n = width * height elements. With T threads per block,
//             g = blockIdx.x * T + (linear thread in block) and G = gridDim.x * T:
//               head     elements [0, head): one each, element e belongs to thread g = e
//               body     elements [head, n - tail): in chunks of `vector` consecutive elements.
//                        Chunk c (counted from head) belongs to
//                          pass p = c / (G * per_thread)         (grid_stride kernels only)
//                          block b = (c / (T * per_thread)) % gridDim.x
//                          slot j = (c / T) % per_thread         (the thread's j-th chunk)
//                          thread t = c % T
//                        i.e. a block's threads take consecutive chunks (coalesced), a thread's
//                        per_thread chunks lie T chunks apart, and a grid-stride kernel starts
//                        its next pass a whole grid further on.
//               tail     elements [n - tail, n): one each, element e belongs to g = e - (n - tail)
//             In grid_stride kernels the head and tail loops stride by G too: head element e
//             belongs to g = e mod G (pass e / G), tail element e to g = (e - (n - tail)) mod G;
//             the same as above whenever G exceeds them (any grid of 32 threads or more, since
//             heads and tails are shorter than 2 chunks).
//             The lecture's 1D kernel is Flat with vector = per_thread = 1, no head or tail.
//             blockIdx.y and .z are not part of g: a grid with y or z extent repeats the work.
//   Grid2D    column x = blockIdx.x * blockDim.x + threadIdx.x, row y = blockIdx.y * blockDim.y +
//             threadIdx.y (the lecture's 2D kernel; matmul's naive kernel). blockDim.z must be 1.
//   Grid2DTransposed
//             the global x index picks the ROW and y the column (matmul rung 2): consecutive lanes
//             walk down a column of a row-major array.
//   Tiled     block (bx, by) owns the tile_w x tile_h tile of elements at (bx * tile_w,
//             by * tile_h). With thread_w, thread_h > 0 each thread stores one thread_w x
//             thread_h patch of its tile, patches numbered row-major by the linear thread id
//             (register-blocked matmul rungs 4-6); with 0, a thread's outputs are spread (warp
//             tiling, rung 7) and only the lab can say which thread stores an element
//             (Lab::owner). With tiles_loop (persistent kernels: the tensor-core rungs T5, T6) the
//             grid has fewer blocks than there are tiles and each block loops over tiles in the
//             kernel's order: every block works while tiles remain, and which block took a tile
//             depends on the launch (Lab::owner says).
//   Recorded  no closed form: the owners were recorded by running the kernel's own code on the
//             simulator (user-written kernels); LaunchRecord::owners holds them.
#pragma once
#include <cstdint>
#include <string>

namespace bs {

struct IndexScheme {
  enum class Kind : std::uint8_t { Flat, Grid2D, Grid2DTransposed, Tiled, Recorded };
  Kind kind = Kind::Flat;

  // Flat
  unsigned vector = 1;       // consecutive elements per access (16: one 16-byte access of bytes)
  unsigned per_thread = 1;   // chunks per thread per pass, T chunks apart
  bool grid_stride = false;  // passes repeat a whole grid further on until the data ends
  long long head = 0;        // leading elements done one per thread before the vector body
  long long tail = 0;        // trailing elements done one per thread after it

  // Tiled
  unsigned tile_w = 0, tile_h = 0;
  unsigned thread_w = 0, thread_h = 0;  // a thread's patch; 0: not a closed form
  bool tiles_loop = false;              // persistent: blocks loop over the tiles

  static IndexScheme flat() { return IndexScheme{}; }
  static IndexScheme grid2d() { return {.kind = Kind::Grid2D}; }
  static IndexScheme grid2d_transposed() { return {.kind = Kind::Grid2DTransposed}; }
  static IndexScheme tiled(unsigned w, unsigned h, unsigned thread_w = 0, unsigned thread_h = 0) {
    return {.kind = Kind::Tiled, .tile_w = w, .tile_h = h, .thread_w = thread_w, .thread_h = thread_h};
  }
  static IndexScheme recorded() { return {.kind = Kind::Recorded}; }

  // Elements one thread stores in one pass: vector * per_thread (Flat), its patch (Tiled), else 1.
  unsigned long long elements_per_thread_pass() const {
    if (kind == Kind::Flat) return static_cast<unsigned long long>(vector) * per_thread;
    if (kind == Kind::Tiled && thread_w > 0 && thread_h > 0)
      return static_cast<unsigned long long>(thread_w) * thread_h;
    return 1;
  }
  friend bool operator==(const IndexScheme&, const IndexScheme&) = default;
};

inline const char* to_string(IndexScheme::Kind k) {
  switch (k) {
    case IndexScheme::Kind::Flat: return "flat";
    case IndexScheme::Kind::Grid2D: return "2D";
    case IndexScheme::Kind::Grid2DTransposed: return "2D, x to rows";
    case IndexScheme::Kind::Tiled: return "tiles";
    case IndexScheme::Kind::Recorded: return "recorded";
  }
  return "?";
}

// One line for the UI and JSON, e.g. "flat, 16 per access, 4 per thread, grid-stride".
inline std::string describe(const IndexScheme& s) {
  std::string d = to_string(s.kind);
  if (s.kind == IndexScheme::Kind::Flat) {
    if (s.vector > 1) d += ", " + std::to_string(s.vector) + " per access";
    if (s.per_thread > 1) d += ", " + std::to_string(s.per_thread) + " accesses per thread";
    if (s.grid_stride) d += ", grid-stride";
    if (s.head > 0 || s.tail > 0)
      d += ", scalar head " + std::to_string(s.head) + " and tail " + std::to_string(s.tail);
  } else if (s.kind == IndexScheme::Kind::Tiled) {
    d += " of " + std::to_string(s.tile_w) + " x " + std::to_string(s.tile_h);
    if (s.thread_w > 0 && s.thread_h > 0)
      d += ", " + std::to_string(s.thread_w) + " x " + std::to_string(s.thread_h) + " per thread";
  }
  return d;
}

}  // namespace bs
