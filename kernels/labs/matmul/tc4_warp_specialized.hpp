// Tensor-core rung 4 (BF16, Hopper): warp specialization. A producer warpgroup keeps the copy
// engine busy while two consumer warpgroups keep the tensor cores busy, handing shared-memory
// stages to each other through mbarriers.
//
// What changes from rung 3:
//   - a larger block tile, 128 x 256: two consumer warpgroups, each multiplying its 64 rows by all
//     256 columns (wgmma m64n256k16, 128 FP32 accumulators a thread), so each B byte brought in
//     feeds twice as many multiply-adds;
//   - four stages of 48 KB (A 128 x 64, Bt 256 x 64), each with a "full" barrier (the producer
//     announces the bytes, TMA counts them in) and an "empty" barrier (each consumer arrives when
//     its wgmmas on the stage are done); the producer runs up to four K slices ahead;
//   - setmaxnreg moves registers to where they are used: the producer, which only issues TMA,
//     gives its warpgroup's down to 40 a thread, the consumers take 232.
// Why it should help: loads and multiplies overlap completely; while one consumer waits for its
// wgmma group, the other's is in the tensor cores.
// Launch: block (384, 1, 1) = 3 warpgroups, grid (ceil(N / 256), ceil(M / 128)), 193 KB dynamic
// shared memory, one block per SM; sm_90a.
#pragma once
#include "labs/matmul/tc3_wgmma.hpp"
#if defined(BS_MATMUL_HOPPER_TU)
#include "labs/matmul/pipeline_probe.cuh"
#endif

namespace bs::matmul {

inline constexpr int kTc4BM = 128, kTc4BN = 256, kTc4BK = 64, kTc4Stages = 4;
inline constexpr int kProducerRegs = 40, kConsumerRegs = 232;  // 128 x 40 + 256 x 232 <= 64K

struct Tc4Smem {
  Bf16 A[kTc4Stages][kTc4BM * kTc4BK];  // 16 KB a stage
  Bf16 B[kTc4Stages][kTc4BN * kTc4BK];  // 32 KB a stage
  std::uint64_t full[kTc4Stages], empty[kTc4Stages];
};
inline constexpr unsigned kTc4StageBytes = (kTc4BM + kTc4BN) * kTc4BK * sizeof(Bf16);

#if defined(BS_MATMUL_HOPPER_TU)
// `sink`: NoFragmentSink for the rung, TagFragments for its tagged variant; `probe`:
// NoPipelineProbe for the rung (empty calls: the same machine code as without them),
// PipelineProbe for its pipeline-traced variant (pipeline_probe.cuh).
template <class Sink = NoFragmentSink, class Probe = NoPipelineProbe>
__device__ __forceinline__ void tc4_ws_block(const CUtensorMap* map_a, const CUtensorMap* map_b, const Bf16Args& a,
                                             unsigned char* raw, const Sink& sink = Sink{}, Probe probe = {}) {
  using namespace hopper;
  using Ev = PipelineEventKind;
  Tc4Smem* s = align_1024<Tc4Smem>(raw);
  const int warpgroup = static_cast<int>(threadIdx.x / 128), tid = static_cast<int>(threadIdx.x % 128);
  const int tile = static_cast<int>(blockIdx.x + gridDim.x * blockIdx.y);
  probe.bind(warpgroup);
  const int row0 = static_cast<int>(blockIdx.y) * kTc4BM, col0 = static_cast<int>(blockIdx.x) * kTc4BN;
  if (threadIdx.x == 0) {
    for (int st = 0; st < kTc4Stages; ++st) {
      mbar_init(&s->full[st], 1);
      mbar_init(&s->empty[st], 2);  // one arrival per consumer warpgroup
    }
    mbar_init_fence();
  }
  __syncthreads();
  const int slices = (a.K + kTc4BK - 1) / kTc4BK;

  if (warpgroup == 0) {  // producer
    warpgroup_regs_down<kProducerRegs>();
    if (tid == 0) {
      for (int kt = 0; kt < slices; ++kt) {
        const int st = kt % kTc4Stages;
        probe.template stamp<Ev::EmptyWaitBegin>();
        if (kt >= kTc4Stages) mbar_wait(&s->empty[st], static_cast<unsigned>((kt / kTc4Stages - 1) & 1));
        probe.template stamp<Ev::EmptyWaitEnd>();
        mbar_arrive_expect_tx(&s->full[st], kTc4StageBytes);
        tma_load_2d(s->A[st], map_a, &s->full[st], kt * kTc4BK, row0);
        tma_load_2d(s->B[st], map_b, &s->full[st], kt * kTc4BK, col0);
        probe.template write<Ev::EmptyWaitBegin, Ev::EmptyWaitEnd>(st, kt, tile);
        probe.template now<Ev::TmaIssued>(st, kt, tile);
      }
    }
  } else {  // consumers 0 and 1: rows 64 c .. 64 c + 63 of the block tile
    warpgroup_regs_up<kConsumerRegs>();
    const int c = warpgroup - 1;
    float d[kTc4BN / 2];
    probe.template stamp<Ev::FullWaitBegin>();  // later slices: stamped with the wait before
    for (int kt = 0; kt < slices; ++kt) {
      const int st = kt % kTc4Stages;
      mbar_wait(&s->full[st], static_cast<unsigned>((kt / kTc4Stages) & 1));
      probe.template stamp<Ev::FullWaitEnd>();
      wgmma_fence();
      const std::uint64_t da = sw128_descriptor(s->A[st] + c * 64 * kTc4BK), db = sw128_descriptor(s->B[st]);
#pragma unroll
      for (int k = 0; k < kTc4BK / 16; ++k) wgmma_m64nNk16<kTc4BN>(d, da + 2 * k, db + 2 * k, kt > 0 || k > 0);
      wgmma_commit();
      // The tensor cores work: the probe writes what it stamped (pipeline_probe.cuh).
      if (kt > 0) probe.template write<Ev::WgmmaWaitEnd, Ev::EmptyArrive>((kt - 1) % kTc4Stages, kt - 1, tile);
      probe.template write<Ev::FullWaitBegin, Ev::FullWaitEnd>(st, kt, tile);
      probe.template now<Ev::WgmmaCommit>(st, kt, tile);
      wgmma_wait<0>();
      // One clock reading: the products are in; the arrive and the next slice's wait follow at once.
      probe.template stamp<Ev::WgmmaWaitEnd, Ev::EmptyArrive, Ev::FullWaitBegin>();
      if (tid == 0) mbar_arrive(&s->empty[st]);
    }
    if (slices > 0)
      probe.template write<Ev::WgmmaWaitEnd, Ev::EmptyArrive>((slices - 1) % kTc4Stages, slices - 1, tile);
    probe.template now<Ev::EpilogueBegin>(0, slices, tile);
    tag_wgmma_tile<kTc4BN>(sink, d, row0, col0, 0);
    store_wgmma_tile<kTc4BN>(d, a, row0 + 64 * c, col0);
    probe.template now<Ev::EpilogueEnd>(0, slices, tile);
  }
  probe.finish();
}
#endif  // BS_MATMUL_HOPPER_TU

// ---------------------------------------------------------------------------------------------
// The rung, to the lab (matmul_rung.hpp)
// ---------------------------------------------------------------------------------------------
// Consumer c (threads 128 (c + 1) .. 128 (c + 1) + 127) holds rows 64 c .. 64 c + 63 of a
// 128 x 256 tile at (row0, col0).
inline Result<ElementOwner> tc4_tile_owner(ElementOwner o, long long row0, long long col0, int r, int c) {
  const int consumer = r / 64;
  auto w = warpgroup_owner(o, row0 + 64 * consumer, col0, kTc4BN, r % 64, c, 128u * (1 + consumer));
  return w;
}

// The fragment layout (fragment_place.hpp) of T4..T6's block tile 128 x 256: warpgroup 0
// produces (TMA), consumer c = warpgroup c + 1 holds rows 64 c .. 64 c + 63 as one m64n256k16
// accumulator.
inline Result<FragmentPlace> tc4_fragment_place(int r, int c) {
  if (r < 0 || c < 0 || r >= kTc4BM || c >= kTc4BN) return fragment_outside(r, c, kTc4BM, kTc4BN);
  const int consumer = r / 64;
  FragmentPlace p =
      wgmma_place(kTc4BN, 64 * consumer, 0, r % 64, c, 1 + consumer, 128u * static_cast<unsigned>(1 + consumer), 0);
  p.producer = true;
  p.mma_index = 0, p.mma_count = 1;
  p.owner_r = 64 * consumer, p.owner_c = 0, p.owner_rows = 64, p.owner_cols = kTc4BN;
  return p;
}

inline MatmulGeometry tc4_geometry(int block_rows) {
  MatmulGeometry g;
  g.block_rows = block_rows, g.block_cols = kTc4BN, g.k_step = kTc4BK, g.stages = kTc4Stages;
  g.warp_rows = 64, g.warp_cols = kTc4BN;
  g.thread_cols = 2;
  return g;
}

struct Tc4WarpSpecialized : HopperRungBase {
  static constexpr bool kPipeline = true;  // block_probed below
  static constexpr unsigned kThreads = 384;
  static constexpr std::size_t kSmemBytes = kAlignedSmemBytes<Tc4Smem>;
  static constexpr int kBRows = 256;
  static constexpr const char* kConfig =
      "128 x 256 tile, producer + 2 consumer warpgroups, BK=64, 4 stages | 384 threads";
  static MatmulKernelInfo info() {
    MatmulKernelInfo i = hopper_info();
    i.id = "tc4_warp_specialized";
    i.label = "T4. warp-specialized, 4-stage mbarrier pipeline";
    i.teaches =
        "a producer warpgroup keeps TMA four stages ahead while two consumer warpgroups "
        "(m64n256 each) keep the tensor cores busy; full/empty mbarriers hand the stages "
        "over, setmaxnreg moves registers to the consumers";
    i.file = "kernels/labs/matmul/tc4_warp_specialized.hpp";
    i.configs = one_config(Dim3{kThreads, 1, 1}, kConfig);
    i.grid_rule = "grid = (ceil(N / 256), ceil(M / 128))";
    return i;
  }
  static std::string describe(const MatmulConfig&) { return kConfig; }
  static LaunchConfig launch_config(const MatmulConfig&, int M, int N, int) {
    LaunchConfig lc{Dim3{ceil_div_u(N, kTc4BN), ceil_div_u(M, kTc4BM), 1}, Dim3{kThreads, 1, 1}};
    lc.dynamic_shared_bytes = kSmemBytes;
    return lc;
  }
  static MatmulGeometry geometry(const MatmulConfig&) { return tc4_geometry(kTc4BM); }
  static std::size_t shared_bytes(const MatmulConfig&) { return kSmemBytes; }
  static IndexScheme scheme(const MatmulConfig&) { return IndexScheme::tiled(kTc4BN, kTc4BM); }
  static Result<ElementOwner> owner(const MatmulConfig& c, int row, int col) {
    auto cell = block_cell(geometry(c), row, col);
    if (!cell) return cell.status();
    ElementOwner o;
    o.block = cell->block;
    return tc4_tile_owner(o, cell->row0, cell->col0, cell->r, cell->c);
  }
  static Result<FragmentPlace> fragment_place(int r, int c) { return tc4_fragment_place(r, c); }
#if defined(BS_MATMUL_HOPPER_TU)
  __device__ static void block(const CUtensorMap* a, const CUtensorMap* b, const Bf16Args& args, unsigned char* smem) {
    tc4_ws_block(a, b, args, smem);
  }
  __device__ static void block_tagged(const CUtensorMap* a, const CUtensorMap* b, const Bf16Args& args,
                                      unsigned char* smem, const TagFragments& sink) {
    tc4_ws_block(a, b, args, smem, sink);
  }
  // The pipeline-traced variant (MatmulLab::trace_pipeline): the same body with a recording probe.
  __device__ static void block_probed(const CUtensorMap* a, const CUtensorMap* b, const Bf16Args& args,
                                      unsigned char* smem, PipelineProbe probe) {
    tc4_ws_block(a, b, args, smem, NoFragmentSink{}, probe);
  }
#endif
};

}  // namespace bs::matmul
