// Tensor-core rung 7 (BF16, Hopper): rung 6 with its epilogue off the critical path, and the last
// wave split across every cluster.
//
// What changes from rung 6:
//   - the store of C goes through shared memory and TMA. A consumer writes its accumulators, 32
//     columns at a time, into a small staging buffer (8 KB boxes of 64 rows x 32 FP32 columns, in
//     the 128-byte swizzle, so a warp's writes are conflict-free) and one thread hands each box to
//     TMA (cp.async.bulk.tensor, shared -> global). The copy engine writes C while the consumer
//     goes on with the next box and then the next tile's wgmmas; it waits only where a staging box
//     is still being read. In rung 6 the consumers stored 64 KB each from registers, and the tensor
//     cores of the SM had nothing to do until the last store instruction was issued;
//   - the consumer keeps one wgmma group in flight: it issues slice k + 1's wgmmas before waiting
//     for slice k's (wgmma.wait_group 1), and frees slice k's stage then, so one warpgroup never
//     leaves the tensor cores empty between two of its slices (measured: the same speed as
//     wait_group 0, where the other consumer's wgmmas already fill that gap);
//   - a last wave that is at most 3/4 full is split (stream-K): with T cluster tiles on P resident
//     clusters, the first floor(T / P) x P tiles are done whole, and the k-slices of the R
//     remaining ones are shared out evenly, at most ceil(R x slices / P) to a cluster. A split
//     tile's first piece (k from 0) is stored plainly and its flag raised; the other pieces wait
//     for the flag and add themselves to C with TMA's reduce-add (cp.reduce.async.bulk.tensor
//     .add, done in L2). At 8192^3 (T = 1024, P = 66) the 16th wave holds 34 tiles: split, it
//     takes 66 of 128 slices. At 4096^3 (256 tiles, a 4th wave of 58) the split cost more than
//     it saved, so it stays whole.
// Why it should help: in rung 6 every tile ends with the SM's tensor cores idle for the length of
// the store (64 KB per consumer, all SMs at once); the split turns a half-empty last wave into a
// full, shorter one.
// Measured (H200, cuBLAS BF16 in the same process; NOTES.md "T7"): 4096^3 0.1816 ms, 98.4% of
// cuBLAS (T6 96.1%); 8192^3 1.3508 ms, 103.1% (T6 100.7%), 104.5% in a second call. Kept from
// the variants tried: grouped order by 8 tile rows (16 rows and a Hilbert curve lost up to 0.8
// points at 8192^3), wait_group 1 (wait_group 0 measured the same), the split only for a last
// wave at most 3/4 full.
// What still limits it (diagnostic builds, NOTES.md "Where T7's last points go"): the epilogue
// costs about 7 points at 4096^3 and 4 at 8192^3 (with no C stored at all: 106% at both). The TMA
// stores cost more of it than the staging; neither an L2 evict_first hint on the stores nor twice
// the staging boxes (which cost a stage: 4-7 points lost) won anything back.
// The flags: one word per split tile and consumer, set to the launch's epoch (a counter the
// launcher increments), so no launch has to clear them.
// C through TMA needs a row pitch of a multiple of 16 bytes (N % 4 == 0) and a 16-byte aligned C;
// otherwise the consumers store from registers as rung 6 does and no tile is split.
// Launch: block (384, 1, 1), cluster (2, 1, 1), grid (2 x min(cluster tiles, clusters resident),
// 1, 1), 225 KB of dynamic shared memory (4 stages of 48 KB, 2 x 2 staging boxes); sm_90a.
#pragma once
#include "labs/matmul/tc6_cluster_multicast.hpp"

namespace bs::matmul {

inline constexpr int kTc7Cluster = 2, kTc7TileM = kTc4BM * kTc7Cluster;
inline constexpr int kTc7BoxCols = 32, kTc7Boxes = 2;  // staging boxes per consumer
inline constexpr int kTc7FlagWords = 4 * 256;          // split tiles (< clusters) x 2 blocks x 2 consumers

struct Tc7Smem {
  Bf16 A[kTc4Stages][kTc4BM * kTc4BK];
  Bf16 B[kTc4Stages][kTc4BN * kTc4BK];
  float C[2][kTc7Boxes][64 * kTc7BoxCols];  // a consumer's staging boxes, 8 KB each
  std::uint64_t full[kTc4Stages], empty[kTc4Stages];
};

// One piece of a cluster's work: k-slices [k_begin, k_end) of cluster tile `tile` (grouped order).
struct Tc7Piece {
  int tile = 0, k_begin = 0, k_end = 0;
  bool head = false;  // a split tile's first piece: stored plainly, then its flag raised
  bool adds = false;  // a later piece: waits for the flag, then adds itself to C
};

// Which cluster does what, the same arithmetic on the device (the kernel) and the host (the views).
// The k-slices of the split tiles, units = rest x slices, are numbered tile by tile; cluster cl
// takes units [ceil(cl x units / P), ceil((cl + 1) x units / P)): at most one tile's slices, so at
// most two pieces. Split tile i's first unit then falls to cluster floor(i x P / rest), whatever K
// is, which the views (that know M and N only) rely on.
struct Tc7Schedule {
  int tiles_m = 0, tiles_n = 0, tiles = 0, slices = 0, clusters = 1;
  int whole = 0;  // the tiles done whole: 0 .. whole - 1
  int rest = 0;   // the tiles split: whole .. tiles - 1 (0: nothing split)

  BS_HD static Tc7Schedule make(int M, int N, int K, int clusters, bool split) {
    Tc7Schedule s;
    s.tiles_m = (M + kTc7TileM - 1) / kTc7TileM, s.tiles_n = (N + kTc4BN - 1) / kTc4BN;
    s.tiles = s.tiles_m * s.tiles_n, s.slices = (K + kTc4BK - 1) / kTc4BK;
    s.clusters = clusters > 0 ? clusters : 1;
    // Split only a last wave at most 3/4 full: the split's own cost (a second epilogue per cluster,
    // the head's wait for its stores, the additions in L2) measured about a fifth of a wave on
    // the H200, so at 4096^3 (58 tiles for 66 clusters, 88%) it lost 1 point, at 8192^3 (34 for 66,
    // 52%) it won 1.8.
    const int last = s.tiles % s.clusters;
    s.rest = split && 4 * last <= 3 * s.clusters ? last : 0;
    s.whole = s.tiles - s.rest;
    return s;
  }
  BS_HD long long unit_begin(int cl) const {
    const long long units = static_cast<long long>(rest) * slices;
    return (static_cast<long long>(cl) * units + clusters - 1) / clusters;
  }
  // The split pieces of cluster `cl`, the head (k from 0) first. Returns how many.
  BS_HD int pieces(int cl, Tc7Piece (&out)[2]) const {
    if (rest == 0 || slices == 0) return 0;
    const long long u0 = unit_begin(cl), u1 = unit_begin(cl + 1);
    if (u0 >= u1) return 0;
    const int r0 = static_cast<int>(u0 / slices), r1 = static_cast<int>((u1 - 1) / slices);
    const long long base0 = static_cast<long long>(r0) * slices, base1 = static_cast<long long>(r1) * slices;
    if (r1 == r0) {
      out[0] = piece(r0, static_cast<int>(u0 - base0), static_cast<int>(u1 - base0));
      return 1;
    }
    out[0] = piece(r1, 0, static_cast<int>(u1 - base1));  // constant indices: registers, not a stack
    out[1] = piece(r0, static_cast<int>(u0 - base0), slices);
    return 2;
  }
  BS_HD Tc7Piece piece(int split_tile, int k_begin, int k_end) const {
    Tc7Piece p;
    p.tile = whole + split_tile, p.k_begin = k_begin, p.k_end = k_end;
    p.head = k_begin == 0 && k_end < slices;
    p.adds = k_begin > 0;
    return p;
  }
  // The cluster that stores tile t first (the one that does it whole, or its head piece's).
  BS_HD int first_cluster(int t) const {
    if (t < whole) return t % clusters;
    return static_cast<int>(static_cast<long long>(t - whole) * clusters / rest);
  }
  // f(piece) for every piece of cluster cl, in the order it does them: its whole tiles, then its
  // split pieces. One call site (f is the kernel's whole loop body, inlined once), and the pieces
  // picked by a select, not an index, so they stay in registers.
  template <class F>
  BS_HD void for_each(int cl, F&& f) const {
    Tc7Piece split[2];
    const int n = pieces(cl, split);
    const int whole_here = cl < whole ? (whole - cl + clusters - 1) / clusters : 0;
    for (int i = 0; i < whole_here + n; ++i) {
      Tc7Piece p = i == whole_here ? split[0] : split[1];
      if (i < whole_here) {
        p = Tc7Piece{};
        p.tile = cl + i * clusters, p.k_end = slices;
      }
      f(p);
    }
  }
};

#if defined(BS_MATMUL_HOPPER_TU)
// Consumer thread tid's share of box j (columns 32 j .. 32 j + 31) of its 64 x 256 accumulator
// tile, written into a staging box in the 128-byte swizzle TMA reads it with: 16-byte chunk q of
// row r at chunk q ^ (r % 8). A warp's float2 writes of one register pair then touch every bank
// exactly twice: two wavefronts for 256 bytes, the least there can be.
__device__ __forceinline__ void tc7_stage_box(const float (&d)[kTc4BN / 2], int j, int tid, float* box) {
#pragma unroll
  for (int q = 0; q < kTc7BoxCols / 2; q += 2) {
    const int r = 16 * j + q;
    const FragCoord f = wgmma_d_coord(tid, r);
    const int col = f.col - kTc7BoxCols * j;
    const int offset = f.row * kTc7BoxCols + (((col >> 2) ^ (f.row & 7)) << 2) + (col & 3);
    *reinterpret_cast<float2*>(box + offset) = make_float2(d[r], d[r + 1]);
  }
}

template <class Sink = NoFragmentSink, class Probe = NoPipelineProbe>
__device__ __forceinline__ void tc7_block(const CUtensorMap* map_a, const CUtensorMap* map_b, const Bf16Args& a,
                                          unsigned char* raw, const Sink& sink = Sink{}, Probe probe = {}) {
  using namespace hopper;
  using Ev = PipelineEventKind;
  constexpr int kBRowsPerBlock = kTc4BN / kTc7Cluster;
  Tc7Smem* s = align_1024<Tc7Smem>(raw);
  const int warpgroup = static_cast<int>(threadIdx.x / 128), tid = static_cast<int>(threadIdx.x % 128);
  const unsigned rank = cluster_cta_rank();
  probe.bind(warpgroup);
  if (threadIdx.x == 0) {
    for (int st = 0; st < kTc4Stages; ++st) {
      mbar_init(&s->full[st], 1);
      mbar_init(&s->empty[st], 2 * kTc7Cluster);
    }
    mbar_init_fence();
  }
  cluster_sync();

  const CUtensorMap* map_c = static_cast<const CUtensorMap*>(a.c_map);
  const int clusters = static_cast<int>(gridDim.x) / kTc7Cluster;
  const int cl = static_cast<int>(blockIdx.x) / kTc7Cluster;
  // The tagged variant decodes each element's position from its value, so it splits nothing.
  const Tc7Schedule plan = Tc7Schedule::make(a.M, a.N, a.K, clusters, a.split != 0 && map_c != nullptr && !Sink::kOn);

  if (warpgroup == 0) {
    warpgroup_regs_down<kProducerRegs>();
    if (tid == 0) {
      int it = 0;  // slices issued so far, over all pieces: stage it % 4, use it / 4
      plan.for_each(cl, [&](const Tc7Piece& p) {
        int tm, tn;
        grouped_tile(p.tile, plan.tiles_m, plan.tiles_n, &tm, &tn);
        const int row0 = tm * kTc7TileM + static_cast<int>(rank) * kTc4BM, col0 = tn * kTc4BN;
        for (int kt = p.k_begin; kt < p.k_end; ++kt, ++it) {
          const int st = it % kTc4Stages;
          probe.template stamp<Ev::EmptyWaitBegin>();
          if (it >= kTc4Stages) mbar_wait(&s->empty[st], static_cast<unsigned>((it / kTc4Stages - 1) & 1));
          probe.template stamp<Ev::EmptyWaitEnd>();
          mbar_arrive_expect_tx(&s->full[st], kTc4StageBytes);
          tma_load_2d(s->A[st], map_a, &s->full[st], kt * kTc4BK, row0);
          const int part = static_cast<int>(rank) * kBRowsPerBlock;  // this block's 128 rows of Bt
          tma_load_2d_multicast(s->B[st] + part * kTc4BK, map_b, &s->full[st], kt * kTc4BK, col0 + part,
                                static_cast<std::uint16_t>((1u << kTc7Cluster) - 1));
          probe.template write<Ev::EmptyWaitBegin, Ev::EmptyWaitEnd>(st, kt, p.tile);
          probe.template now<Ev::TmaIssued>(st, kt, p.tile);
        }
      });
    }
  } else {
    warpgroup_regs_up<kConsumerRegs>();
    const int c = warpgroup - 1;
    const int bar_id = 1 + c;  // the named barrier of this consumer's 128 threads
    float d[kTc4BN / 2];
    int it = 0;
    // Frees stage `st` in every block of the cluster: thread b tells block b.
    auto release = [&](int st) {
      if (tid < kTc7Cluster) mbar_arrive_cluster(&s->empty[st], static_cast<unsigned>(tid));
    };
    plan.for_each(cl, [&](const Tc7Piece& p) {
      int tm, tn;
      grouped_tile(p.tile, plan.tiles_m, plan.tiles_n, &tm, &tn);
      const int row0 = tm * kTc7TileM + static_cast<int>(rank) * kTc4BM + 64 * c, col0 = tn * kTc4BN;
      probe.template stamp<Ev::FullWaitBegin>();
      for (int kt = p.k_begin; kt < p.k_end; ++kt, ++it) {
        const int st = it % kTc4Stages;
        mbar_wait(&s->full[st], static_cast<unsigned>((it / kTc4Stages) & 1));
        probe.template stamp<Ev::FullWaitEnd>();
        wgmma_fence();
        const std::uint64_t da = sw128_descriptor(s->A[st] + c * 64 * kTc4BK), db = sw128_descriptor(s->B[st]);
#pragma unroll
        for (int k = 0; k < kTc4BK / 16; ++k)
          wgmma_m64nNk16<kTc4BN>(d, da + 2 * k, db + 2 * k, kt > p.k_begin || k > 0);
        wgmma_commit();
        probe.template write<Ev::FullWaitBegin, Ev::FullWaitEnd>(st, kt, p.tile);
        probe.template now<Ev::WgmmaCommit>(st, kt, p.tile);
        // The slice before this one is done (this one may still run): its stage is free.
        wgmma_wait<1>();
        probe.template stamp<Ev::WgmmaWaitEnd, Ev::EmptyArrive, Ev::FullWaitBegin>();
        if (kt > p.k_begin) {
          release((it - 1) % kTc4Stages);
          probe.template write<Ev::WgmmaWaitEnd, Ev::EmptyArrive>((it - 1) % kTc4Stages, kt - 1, p.tile);
        }
      }
      wgmma_wait<0>();
      if (p.k_end > p.k_begin) {
        probe.template stamp<Ev::WgmmaWaitEnd, Ev::EmptyArrive>();
        release((it - 1) % kTc4Stages);
        probe.template write<Ev::WgmmaWaitEnd, Ev::EmptyArrive>((it - 1) % kTc4Stages, p.k_end - 1, p.tile);
      }
      probe.template now<Ev::EpilogueBegin>(0, p.k_end, p.tile);
      tag_wgmma_tile<kTc4BN>(sink, d, row0 - 64 * c, col0, 0);
      if (map_c == nullptr) {
        store_wgmma_tile<kTc4BN>(d, a, row0, col0);
      } else {
        const int flag = 4 * (p.tile - plan.whole) + 2 * static_cast<int>(rank) + c;  // split tiles only
        if (p.adds && tid == 0) flag_wait(a.flags + flag, a.epoch);
#pragma unroll
        for (int j = 0; j < kTc4BN / kTc7BoxCols; ++j) {
          float* box = s->C[c][j % kTc7Boxes];
          if (tid == 0) bulk_wait_read<kTc7Boxes - 1>();  // the store that used this box last has read it
          named_barrier_sync(bar_id, 128);
          tc7_stage_box(d, j, tid, box);
          fence_proxy_async_shared();
          named_barrier_sync(bar_id, 128);
          if (tid == 0) {
            if (p.adds) tma_reduce_add_2d(map_c, box, col0 + kTc7BoxCols * j, row0);
            else tma_store_2d(map_c, box, col0 + kTc7BoxCols * j, row0);
            bulk_commit();
          }
        }
        if (p.head && tid == 0) {
          bulk_wait<0>();  // the plain stores are in C before anyone adds to it
          flag_release(a.flags + flag, a.epoch);
        }
      }
      probe.template now<Ev::EpilogueEnd>(0, p.k_end, p.tile);
    });
    if (tid == 0) bulk_wait<0>();  // the staging boxes stay until TMA has written them out
  }
  probe.finish();
  __syncwarp();
  cluster_sync();
}
#endif  // BS_MATMUL_HOPPER_TU

// ---------------------------------------------------------------------------------------------
// The rung, to the lab (matmul_rung.hpp)
// ---------------------------------------------------------------------------------------------
struct Tc7TmaStore : PersistentRungBase {
  static constexpr std::size_t kSmemBytes = kAlignedSmemBytes<Tc7Smem>;
  static constexpr bool kStoresC = true;  // the launcher fills in Bf16Args' c_map, flags, epoch
  static constexpr const char* kConfig =
      "clusters of 2: 256 x 256 cluster tiles, Bt multicast, 4 stages, C through TMA, a thin last wave split | 384 "
      "threads";
  static MatmulKernelInfo info() {
    MatmulKernelInfo i = hopper_info();
    i.id = "tc7_tma_store";
    i.label = "T7. TMA store epilogue, split last wave";
    i.teaches =
        "the epilogue goes through shared memory and TMA, so the tensor cores start the next "
        "tile while C is written; one wgmma group stays in flight; a last wave at most 3/4 "
        "full is split along k across every cluster and added in L2";
    i.file = "kernels/labs/matmul/tc7_tma_store.hpp";
    i.configs = one_config(Dim3{kThreads, 1, 1}, kConfig);
    i.persistent = true;
    i.mma_groups_in_flight = 1;  // wgmma.wait_group 1: the pipeline view reads its waits on full accordingly
    i.grid_rule =
        "grid = 2 x min(cluster tiles of 256 x 256, clusters resident at once); where the last wave is at most 3/4 "
        "full, its tiles' k-slices are shared out evenly";
    return i;
  }
  static std::string describe(const MatmulConfig&) { return kConfig; }
  static LaunchConfig launch_config(const MatmulConfig&, int M, int N, int) {
    LaunchConfig lc = persistent_launch(kTc7Cluster, M, N);
    lc.dynamic_shared_bytes = kSmemBytes;
    return lc;
  }
  static std::size_t shared_bytes(const MatmulConfig&) { return kSmemBytes; }
  // Which block stores C[row][col] first: the cluster given by the schedule (a split tile's head
  // piece's), and the block's rank in it. Also the tile's first row and column.
  static Result<Dim3> persistent_block(const LaunchConfig& lc, int M, int N, int row, int col,
                                       long long* row0 = nullptr, long long* col0 = nullptr) {
    const int clusters = static_cast<int>(lc.grid.x) / kTc7Cluster;
    if (clusters <= 0) return Status::failure("the launch has no blocks", "", "element_owner");
    // Tiles are split where C rows can be stored by TMA; which cluster stores a tile first does
    // not depend on K (Tc7Schedule).
    const Tc7Schedule plan = Tc7Schedule::make(M, N, kTc4BK, clusters, N % 4 == 0);
    const int tm = row / kTc7TileM, tn = col / kTc4BN, rank = (row % kTc7TileM) / kTc4BM;
    const int t = grouped_index(tm, tn, plan.tiles_m, plan.tiles_n);
    if (row0) *row0 = static_cast<long long>(tm) * kTc7TileM + rank * kTc4BM;
    if (col0) *col0 = static_cast<long long>(tn) * kTc4BN;
    return Dim3{static_cast<unsigned>(plan.first_cluster(t) * kTc7Cluster + rank), 0, 0};
  }
  static Result<ElementOwner> persistent_owner(const MatmulConfig&, const LaunchConfig& lc, int M, int N, int row,
                                               int col) {
    return owner_through<Tc7TmaStore>(lc, M, N, row, col);
  }
#if defined(BS_MATMUL_HOPPER_TU)
  __device__ static void block(const CUtensorMap* a, const CUtensorMap* b, const Bf16Args& args, unsigned char* smem) {
    tc7_block(a, b, args, smem);
  }
  __device__ static void block_tagged(const CUtensorMap* a, const CUtensorMap* b, const Bf16Args& args,
                                      unsigned char* smem, const TagFragments& sink) {
    tc7_block(a, b, args, smem, sink);
  }
  __device__ static void block_probed(const CUtensorMap* a, const CUtensorMap* b, const Bf16Args& args,
                                      unsigned char* smem, PipelineProbe probe) {
    tc7_block(a, b, args, smem, NoFragmentSink{}, probe);
  }
#endif
};

}  // namespace bs::matmul
