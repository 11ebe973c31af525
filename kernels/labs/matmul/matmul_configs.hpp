// The compiled set: every (kernel, tile parameters) pair that exists as machine code, on the GPU
// and in the CPU simulator alike. A configuration outside these tables is refused before launch
// (check_matmul_config says why and lists what is compiled). Adding a row here adds an
// instantiation for the simulator and the GPU (matmul_registry.hpp, with_config); nothing else
// changes.
#pragma once
#include <cstddef>
#include <utility>

namespace bs::matmul {

// A kernel's real parameters: block tile BM x BN, k-step BK, thread tile TM x TN, warp tile
// WM x WN (0 where the kernel has no such level), and for rung 7 the occupancy the compiler is
// told to guarantee, MB blocks per SM (__launch_bounds__(threads, MB)): 2 blocks of 256 threads
// cap a thread at 128 registers, 1 lets it use up to 255 (0: no such knob).
struct TileParams {
  int BM = 0, BN = 0, BK = 0, TM = 0, TN = 0, WM = 0, WN = 0, MB = 0;
  friend constexpr bool operator==(const TileParams&, const TileParams&) = default;
};

// Rung 3: the tile is the square block, T x T threads.
inline constexpr int kK3Tiles[] = {8, 16, 32};

// Rung 4: BM, BN, BK, TM (TN = 1); (BM / TM) * BN threads.
inline constexpr TileParams kK4Params[] = {
    {64, 64, 8, 8, 1, 0, 0},     // 512 threads, the classic 1D blocktiling shape
    {128, 64, 16, 16, 1, 0, 0},  // 512 threads, more reuse per B value
    {32, 32, 8, 4, 1, 0, 0},     // 256 threads, small matrices
};

// Rung 5: BM, BN, BK, TM, TN; (BM / TM) * (BN / TN) threads.
inline constexpr TileParams kK5Params[] = {
    {128, 128, 8, 8, 8, 0, 0},  // 256 threads, 64 outputs each
    {64, 64, 8, 4, 4, 0, 0},    // 256 threads, 16 outputs each
    {64, 64, 16, 8, 8, 0, 0},   // 64 threads
};

// Rung 6: as rung 5, with TM, TN, BK multiples of 4 (float4 paths).
inline constexpr TileParams kK6Params[] = {
    {128, 128, 8, 8, 8, 0, 0},
    {128, 128, 16, 8, 8, 0, 0},
    {64, 64, 8, 4, 4, 0, 0},
};

// Rung 7: BM, BN, BK, TM, TN, WM, WN, MB; (BM / WM) * (BN / WN) warps, (WM / TM) * (WN / TN) == 32.
inline constexpr TileParams kK7Params[] = {
    {128, 128, 8, 8, 8, 64, 32, 2},    // 8 warps, 2 blocks per SM at <= 128 registers
    {128, 128, 8, 8, 8, 64, 32, 1},    // the same tile, 1 block per SM, registers uncapped
    {128, 128, 16, 8, 8, 64, 32, 1},   // longer k-step: half the barriers
    {128, 128, 16, 8, 16, 64, 64, 2},  // 4 warps x 128 outputs, 2 blocks per SM: the fastest
                                       // at 4096^3 on an H200 (NOTES.md, "Measured")
    {128, 256, 8, 8, 16, 64, 64, 1},   // 8 warps x 128 outputs, 1 block per SM
    {256, 128, 8, 16, 8, 64, 64, 1},   // the same, transposed
    {128, 64, 8, 8, 8, 64, 32, 2},     // 4 warps: more blocks for mid-sized matrices
    {64, 64, 8, 8, 4, 32, 32, 4},      // 4 warps, small matrices
};

// The row of kK7Params measured fastest at 4096^3 on an H200 (93.9% of cuBLAS, NOTES.md): the
// matmul lab opens on it on a GPU.
inline constexpr int kK7FastestConfig = 3;
static_assert(kK7Params[kK7FastestConfig] == TileParams{128, 128, 16, 8, 16, 64, 64, 2});

template <class T, std::size_t Count>
constexpr int find_in(const T (&table)[Count], const T& value) {
  for (std::size_t i = 0; i < Count; ++i)
    if (table[i] == value) return static_cast<int>(i);
  return -1;
}

}  // namespace bs::matmul
