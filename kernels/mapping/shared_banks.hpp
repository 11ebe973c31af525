// Shared-memory banks: how many wavefronts one warp's shared request needs, which lanes each
// bank serves in each wavefront, and the bank map of a tile before and after a swizzle.
//
// The rule implemented (CUDA C++ Programming Guide, "Compute Capability 5.x and later: Shared
// Memory": 32 banks, successive 32-bit words in successive banks, each bank serves one 32-bit word
// per cycle; lanes reading the same word get it by broadcast, lanes writing the same word cost no
// extra cycle either, one of them wins):
//   * a lane's access covers the 4-byte words from offset / 4 to (offset + bytes - 1) / 4;
//   * accesses of 8 bytes a lane are served in two phases (lanes 0-15, 16-31), of 16 bytes in
//     four (lanes 0-7, 8-15, 16-23, 24-31): one phase moves at most 128 bytes, a wavefront's
//     width; accesses of 1, 2 or 4 bytes are one phase of 32 lanes. ldmatrix .x4 is a 16-byte
//     access of each lane's row address (one 8 x 8 matrix a phase), cp.async 16 likewise;
//   * a phase needs as many wavefronts as the largest number of DISTINCT words any one bank must
//     deliver in it (bank conflicts serialise; same-word accesses do not);
//   * its ideal is ceil(distinct words in the phase / 32): the fewest wavefronts that could move
//     those words if they fell in distinct banks;
//   * conflicts = wavefronts - ideal (what Nsight Compute's l1tex__data_bank_conflicts_* count:
//     wavefronts beyond the ideal), conflict ways = wavefronts / ideal.
// The phase rule for 8- and 16-byte accesses is the hardware's behaviour as NVIDIA describes it
// for LDS.64/LDS.128 and LDSM; it is a model, and the Measured tab shows the hardware's counters
// (l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld/st) beside it.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "core/shared_access.hpp"

namespace bs::mapping {

inline constexpr unsigned kBanks = 32;
inline constexpr unsigned kBankBytes = 4;

inline unsigned bank_of(long long byte_offset) { return static_cast<unsigned>((byte_offset / kBankBytes) % kBanks); }

// One cell of the banks x wavefronts grid: the word the bank delivers in that wavefront and the
// lanes that receive (or write) it; word < 0 where the bank is idle.
struct BankCell {
  long long word = -1;          // byte offset / 4
  std::vector<unsigned> lanes;  // ascending
};

struct BankRequest {
  unsigned phases = 1;  // 1 (<= 4 bytes a lane), 2 (8), 4 (16)
  unsigned lanes_per_phase = 32;
  unsigned active_lanes = 0;
  unsigned wavefronts = 0;
  unsigned ideal_wavefronts = 0;
  std::vector<unsigned> phase_of_row;              // the phase each wavefront belongs to
  std::vector<std::array<BankCell, kBanks>> rows;  // rows[w][bank]
  unsigned conflicts() const { return wavefronts - ideal_wavefronts; }
  double ways() const { return ideal_wavefronts ? static_cast<double>(wavefronts) / ideal_wavefronts : 0.0; }
};

// lane_offset: 32 entries, byte offsets from the block's shared base (kNoSharedAccess: inactive).
BankRequest bank_request(const std::vector<long long>& lane_offset, unsigned bytes);
inline BankRequest bank_request(const SharedRequest& r) { return bank_request(r.lane_offset, r.bytes); }

// Sums over many requests, split as Nsight Compute splits them: loads (ld.shared, ldmatrix) and
// stores (st.shared); cp.async's shared writes are kept apart (the LSU's op_st counters do not
// count LDGSTS).
struct SharedTotals {
  double ld_requests = 0, ld_wavefronts = 0, ld_ideal = 0;
  double st_requests = 0, st_wavefronts = 0, st_ideal = 0;
  double async_requests = 0, async_wavefronts = 0, async_ideal = 0;
  void add(const SharedRequest& r);
  void scale(double factor);
  double ld_conflicts() const { return ld_wavefronts - ld_ideal; }
  double st_conflicts() const { return st_wavefronts - st_ideal; }
};

// A tile's bank map: for each row and each 16-byte chunk of the row as the kernel indexes it,
// the first bank its storage falls in. `chunk_offset(r, c)` is the byte offset of chunk c of row
// r (the swizzle); the identity is r * row_bytes + 16 c.
struct TileBankMap {
  int rows = 0, chunks = 0;
  std::vector<unsigned> first_bank;  // rows * chunks, row-major
  unsigned at(int r, int c) const { return first_bank[static_cast<std::size_t>(r) * chunks + c]; }
};
template <class ChunkOffset>
TileBankMap tile_bank_map(int rows, int chunks, ChunkOffset chunk_offset) {
  TileBankMap m;
  m.rows = rows, m.chunks = chunks;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < chunks; ++c) m.first_bank.push_back(bank_of(chunk_offset(r, c)));
  return m;
}

// The swizzle of TMA's CU_TENSOR_MAP_SWIZZLE_128B (the Hopper rungs' tiles, rows of 128 bytes):
// inside each 1024-byte atom of 8 rows, 16-byte chunk c of row r is stored at chunk c ^ (r % 8).
// A model: the copy engine writes it, and no counter of the load/store pipe sees those writes.
inline long long tma_swizzle_128b(int r, int c) { return static_cast<long long>(r) * 128 + ((c ^ (r & 7)) << 4); }

}  // namespace bs::mapping
