// Fragment tags (fragment_record.hpp): the probes, the model, the comparison, and the CPU
// simulator's record of T1 and T2.
//
// Sections: 1. probes and empty records  2. the model  3. the comparison  4. the simulator's record
#include "labs/matmul/fragment_record.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

#include "labs/matmul/matmul_owner.hpp"
#include "simulator/grid_simulator.hpp"

namespace bs::matmul {

// ---------------------------------------------------------------------------------------------
// 1. Probes and empty records
// ---------------------------------------------------------------------------------------------
namespace {
int probe_k(int K) { return std::max(K, kOperandK); }
}  // namespace

FragmentProbe make_fragment_probe(int M, int N, int K) {
  FragmentProbe p;
  p.M = M, p.N = N, p.K = probe_k(K), p.ld = bf16_row_pitch(p.K);
  p.a.assign(static_cast<std::size_t>(M) * p.ld, Bf16{});
  p.bt.assign(static_cast<std::size_t>(N) * p.ld, Bf16{});
  for (int i = 0; i < M; ++i) {
    p.a[static_cast<std::size_t>(i) * p.ld] = float_to_bf16(static_cast<float>(i % kProbeRowPeriod + 1));
    p.a[static_cast<std::size_t>(i) * p.ld + 1] = float_to_bf16(1.0f);
  }
  for (int j = 0; j < N; ++j) {
    p.bt[static_cast<std::size_t>(j) * p.ld] = float_to_bf16(256.0f);
    p.bt[static_cast<std::size_t>(j) * p.ld + 1] = float_to_bf16(static_cast<float>(j % kProbeColPeriod));
  }
  return p;
}

FragmentProbe make_operand_probe(int M, int N, int K) {
  FragmentProbe p;
  p.M = M, p.N = N, p.K = probe_k(K), p.ld = bf16_row_pitch(p.K);
  p.a.assign(static_cast<std::size_t>(M) * p.ld, Bf16{});
  p.bt.assign(static_cast<std::size_t>(N) * p.ld, Bf16{});
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < kOperandK; ++k) p.a[static_cast<std::size_t>(i) * p.ld + k] = Bf16{operand_code(i, k)};
  for (int j = 0; j < N; ++j)
    for (int k = 0; k < kOperandK; ++k) p.bt[static_cast<std::size_t>(j) * p.ld + k] = Bf16{operand_code(j, k)};
  return p;
}

std::pair<int, int> operand_probe_size(MatmulKernel kernel, const MatmulConfig& config, int M, int N) {
  const MatmulGeometry g = matmul_geometry(kernel, config);
  return {std::max(M, g.block_rows), std::max(N, g.block_cols)};
}

std::string fragment_note(MatmulKernel kernel) {
  std::string note;
  with_rung(kernel, [&]<class R>() { note = R::kFragmentNote; });
  return note;
}

bool has_fragment_record(MatmulKernel kernel) {
  bool on = false;
  with_rung(kernel, [&]<class R>() { on = R::kFragments; });
  return on;
}

FragmentRecord empty_fragment_record(MatmulKernel kernel, const MatmulConfig& config, const LaunchConfig& lc, int M,
                                     int N, int K) {
  FragmentRecord r;
  r.kernel = matmul_kernel_info(kernel).id;
  r.config_label = config.label;
  r.M = M, r.N = N, r.K = probe_k(K);
  const std::size_t mn = static_cast<std::size_t>(M) * N;
  r.c.assign(mn, FragmentTag{});
  r.hits.assign(mn, 0u);
  const MatmulGeometry g = matmul_geometry(kernel, config);
  r.tile_rows = g.block_rows, r.tile_cols = g.block_cols;
  if (r.tile_rows > 0 && r.tile_cols > 0)
    r.tile_block.assign(static_cast<std::size_t>(ceil_div_u(M, r.tile_rows)) * ceil_div_u(N, r.tile_cols), -1);
  r.launch = lc;
  with_rung(kernel, [&]<class R>() {
    if constexpr (R::kOperandWarps > 0) {
      OperandRecord& o = r.operands;
      o.warps = R::kOperandWarps, o.rows = g.warp_rows, o.cols = g.warp_cols;
      for (int w = 0; w < o.warps; ++w) {
        o.first_row.push_back(R::operand_first_row(w, g));
        o.first_col.push_back(R::operand_first_col(w, g));
      }
      o.a.assign(static_cast<std::size_t>(o.warps) * o.rows * kOperandK, FragmentTag{});
      o.b.assign(static_cast<std::size_t>(o.warps) * kOperandK * o.cols, FragmentTag{});
    }
  });
  return r;
}

// ---------------------------------------------------------------------------------------------
// 2. The model
// ---------------------------------------------------------------------------------------------
Result<FragmentModel> fragment_model(MatmulKernel kernel, const MatmulConfig& config, const LaunchConfig& lc, int M,
                                     int N) {
  if (!has_fragment_record(kernel))
    return Status::failure(matmul_kernel_info(kernel).id + " holds C in no tensor-core fragments",
                           "pick a tensor-core rung (T1..T6)", "fragment_model");
  const MatmulGeometry g = matmul_geometry(kernel, config);
  if (g.block_rows <= 0 || g.block_cols <= 0 || M <= 0 || N <= 0)
    return Status::failure("an empty tile or problem", "", "fragment_model");
  // Who holds each element of one block tile: the same for every tile (the traits' owner of the
  // first tile, whose thread and register do not depend on the tile; where the owner is the lane
  // that stores rather than holds, kOwnerHolds false (T1), the traits' fragment layout). The owner
  // search is slow per element, so it runs once here, not per lookup.
  const int tr = g.block_rows, tc = g.block_cols;
  static std::mutex cache_mutex;  // the tables, once per rung and configuration
  static std::map<std::pair<int, std::string>, std::shared_ptr<const std::vector<FragmentTag>>> cache;
  const auto key = std::make_pair(static_cast<int>(kernel), config.label);
  std::shared_ptr<const std::vector<FragmentTag>> cached;
  {
    std::lock_guard<std::mutex> lock(cache_mutex);
    if (auto it = cache.find(key); it != cache.end()) cached = it->second;
  }
  auto table = std::make_shared<std::vector<FragmentTag>>(cached ? 0 : static_cast<std::size_t>(tr) * tc);
  const bool persistent = matmul_kernel_info(kernel).persistent;
  bool owner_holds = true;
  with_rung(kernel, [&]<class R>() { owner_holds = R::kOwnerHolds; });
  for (int r = 0; !cached && r < tr; ++r)
    for (int c = 0; c < tc; ++c) {
      FragmentTag& t = (*table)[static_cast<std::size_t>(r) * tc + c];
      if (!owner_holds) {
        auto p = fragment_place(kernel, r, c);
        if (!p) return p.status();
        t = {static_cast<std::int16_t>(p->thread), static_cast<std::int16_t>(p->reg)};
        continue;
      }
      // A tile-sized problem, so the first tile is whole whatever M and N are.
      const LaunchConfig tile_lc = persistent ? matmul_launch_config(kernel, config, tr, tc, 16) : lc;
      auto o = element_owner(kernel, config, tr, tc, r, c, &tile_lc);
      if (!o) return o.status();
      t = {static_cast<std::int16_t>(o->linear_thread), static_cast<std::int16_t>(o->reg)};
    }
  if (!cached) {
    std::lock_guard<std::mutex> lock(cache_mutex);
    cache[key] = table;
    cached = table;
  }
  // The block of each tile: the traits' owner of its first element (persistent rungs: from the
  // launch's grid).
  const int tiles_n = static_cast<int>(ceil_div_u(N, tc)), tiles_m = static_cast<int>(ceil_div_u(M, tr));
  auto blocks = std::make_shared<std::vector<int>>(static_cast<std::size_t>(tiles_m) * tiles_n, -1);
  for (int bm = 0; bm < tiles_m; ++bm)
    for (int bn = 0; bn < tiles_n; ++bn) {
      auto o = element_owner(kernel, config, M, N, bm * tr, bn * tc, &lc);
      if (!o) return o.status();
      (*blocks)[static_cast<std::size_t>(bm) * tiles_n + bn] = static_cast<int>(o->block.x + lc.grid.x * o->block.y);
    }
  return FragmentModel([table = cached, blocks, tr, tc, tiles_n](int row, int col) {
    ModelTag m;
    m.tag = (*table)[static_cast<std::size_t>(row % tr) * tc + col % tc];
    m.block = (*blocks)[static_cast<std::size_t>(row / tr) * tiles_n + col / tc];
    return m;
  });
}

Result<OperandRecord> operand_model(MatmulKernel kernel) {
  int warps = 0;
  with_rung(kernel, [&]<class R>() { warps = R::kOperandWarps; });
  if (warps == 0)
    return Status::failure(matmul_kernel_info(kernel).id +
                               ": the operand record is T2's (ldmatrix into mma.sync "
                               "registers); wgmma reads its operands from shared memory",
                           "", "operand_model");
  FragmentRecord shape = empty_fragment_record(kernel, matmul_kernel_info(kernel).configs.front(), {}, 1, 1, 16);
  OperandRecord o = std::move(shape.operands);
  for (int w = 0; w < o.warps; ++w)
    for (int lane = 0; lane < 32; ++lane) {
      const auto thread = static_cast<std::int16_t>(w * 32 + lane);
      for (int e = 0; e < 32; ++e) {  // A: mma tile i = e / 8, fragment element e % 8
        const FragCoord f = mma_a_coord(lane, e % 8);
        const int r = (e / 8) * 16 + f.row;
        o.a[(static_cast<std::size_t>(w) * o.rows + r) * kOperandK + f.col] = {thread, static_cast<std::int16_t>(e)};
      }
      for (int e = 0; e < 16; ++e) {  // B: mma tile j = e / 4, fragment element e % 4 = {k, n}
        const FragCoord f = mma_b_coord(lane, e % 4);
        const int n = (e / 4) * 8 + f.col;
        o.b[(static_cast<std::size_t>(w) * kOperandK + f.row) * o.cols + n] = {thread, static_cast<std::int16_t>(e)};
      }
    }
  return o;
}

std::vector<FedElement> fed_by(const OperandRecord& o, int thread) {
  std::vector<FedElement> v;
  const int w = thread / 32;
  if (w < 0 || w >= o.warps || o.a.empty() || o.b.empty()) return v;
  for (int r = 0; r < o.rows; ++r)
    for (int k = 0; k < kOperandK; ++k)
      if (const FragmentTag& t = o.a[(static_cast<std::size_t>(w) * o.rows + r) * kOperandK + k]; t.thread == thread)
        v.push_back({true, o.first_row[static_cast<std::size_t>(w)] + r, k, t.reg});
  for (int k = 0; k < kOperandK; ++k)
    for (int n = 0; n < o.cols; ++n)
      if (const FragmentTag& t = o.b[(static_cast<std::size_t>(w) * kOperandK + k) * o.cols + n]; t.thread == thread)
        v.push_back({false, k, o.first_col[static_cast<std::size_t>(w)] + n, t.reg});
  return v;
}

RecordedFeed recorded_feed(const OperandRecord& record, const FragmentPlace& p, long long block_row0,
                           long long block_col0, int step, const FedOperands& model) {
  RecordedFeed f;
  auto inside = [](const CRect& t, long long r, long long c) {
    return r >= t.row && r < t.row + t.rows && c >= t.col && c < t.col + t.cols;
  };
  const long long k0 = static_cast<long long>(kOperandK) * step;
  for (const FedElement& e : fed_by(record, static_cast<int>(p.thread))) {
    const long long r = e.a ? block_row0 + e.row : k0 + e.row, c = e.a ? k0 + e.col : block_col0 + e.col;
    if (inside(e.a ? model.a_tile : model.b_tile, r, c)) (e.a ? f.a : f.b).push_back({r, c, 1, 1});
  }
  auto cells = [](const std::vector<CRect>& v) {
    std::vector<std::pair<long long, long long>> out;
    for (const CRect& r : v)
      for (long long i = 0; i < r.rows; ++i)
        for (long long j = 0; j < r.cols; ++j) out.push_back({r.row + i, r.col + j});
    std::sort(out.begin(), out.end());
    return out;
  };
  f.agrees = !f.a.empty() && cells(f.a) == cells(model.a) && cells(f.b) == cells(model.b);
  return f;
}

// ---------------------------------------------------------------------------------------------
// 3. The comparison
// ---------------------------------------------------------------------------------------------
namespace {
std::string tag_text(const FragmentTag& t, int block) {
  if (t.thread < 0) return "nobody";
  std::string s = (block >= 0 ? "block " + std::to_string(block) + " " : std::string()) + "thread " +
                  std::to_string(t.thread) + " (warp " + std::to_string(t.thread / 32) + " lane " +
                  std::to_string(t.thread % 32) + ") reg " + std::to_string(t.reg);
  return s;
}
}  // namespace

FragmentComparison compare_with_model(const FragmentRecord& record, const FragmentModel& model,
                                      std::size_t max_differences) {
  FragmentComparison cmp;
  const bool blocks = !record.tile_block.empty() && record.tile_rows > 0 && record.tile_cols > 0;
  const int tiles_n = blocks ? static_cast<int>(ceil_div_u(record.N, record.tile_cols)) : 0;
  for (int row = 0; row < record.M; ++row)
    for (int col = 0; col < record.N; ++col) {
      ++cmp.elements;
      const std::size_t e = static_cast<std::size_t>(row) * record.N + col;
      const FragmentTag& got = record.c[e];
      const unsigned hits = record.hits.empty() ? 1u : record.hits[e];
      if (hits == 0) ++cmp.untagged;
      if (hits > 1) ++cmp.multiple;
      const ModelTag want = model(row, col);
      const int got_block =
          blocks
              ? record.tile_block[static_cast<std::size_t>(row / record.tile_rows) * tiles_n + col / record.tile_cols]
              : -1;
      const bool ok = hits == 1 && got == want.tag && (!blocks || want.block < 0 || got_block == want.block);
      if (ok) {
        ++cmp.agree;
      } else if (cmp.first.size() < max_differences) {
        cmp.first.push_back({row, col, got, want, got_block, hits});
      }
    }
  return cmp;
}

std::string FragmentComparison::summary() const {
  std::string s = std::to_string(agree) + " of " + std::to_string(elements) + " elements agree with the model";
  if (untagged > 0) s += "; " + std::to_string(untagged) + " untagged";
  if (multiple > 0) s += "; " + std::to_string(multiple) + " named by two or more registers";
  if (!first.empty()) {
    const FragmentDifference& d = first.front();
    s += "; first difference C[" + std::to_string(d.row) + "][" + std::to_string(d.col) + "]: recorded " +
         tag_text(d.recorded, d.recorded_block) + ", model " + tag_text(d.model.tag, d.model.block);
  }
  return s;
}

OperandComparison compare_operands(const OperandRecord& record, const OperandRecord& model) {
  OperandComparison c;
  auto side = [&](const std::vector<FragmentTag>& got, const std::vector<FragmentTag>& want) {
    for (std::size_t i = 0; i < want.size(); ++i) {
      ++c.elements;
      if (i < got.size() && got[i] == want[i]) ++c.agree;
    }
  };
  side(record.a, model.a);
  side(record.b, model.b);
  return c;
}

std::string OperandComparison::summary() const {
  return std::to_string(agree) + " of " + std::to_string(elements) + " operand elements agree with the model";
}

// ---------------------------------------------------------------------------------------------
// 4. The simulator's record
// ---------------------------------------------------------------------------------------------
namespace {

// One probe through the tagged body on the simulator, tags into `rec`.
Status simulate_probe(sim::GridSimulator& simulator, MatmulKernel kernel, const MatmulConfig& config,
                      const LaunchConfig& lc, const FragmentProbe& probe, FragmentRecord& rec, bool operands) {
  std::vector<float> C(static_cast<std::size_t>(probe.M) * probe.N, 0.0f);
  const Bf16Args args{probe.a.data(), probe.bt.data(), C.data(), probe.M, probe.N, probe.K, probe.ld};
  unsigned counters[2] = {0, 0};
  TagFragments sink;
  FragmentSink& s = sink.s;
  s.M = probe.M, s.N = probe.N;
  s.counters = counters;
  if (operands) {
    s.a_fed = rec.operands.a.data(), s.b_fed = rec.operands.b.data();
    s.warp_rows = rec.operands.rows, s.warp_cols = rec.operands.cols;
  } else {
    s.c = rec.c.data(), s.hits = rec.hits.data();
    s.tile_block = rec.tile_block.empty() ? nullptr : rec.tile_block.data();
    s.tile_rows = rec.tile_rows, s.tile_cols = rec.tile_cols;
    s.tiles_n = static_cast<int>(ceil_div_u(probe.N, rec.tile_cols));
  }
  sim::SimOptions o;
  o.uses_barriers = true;
  sim::SimResult result;
  result.status = Status::failure(matmul_kernel_info(kernel).id + " has no body the simulator runs with tags",
                                  "the GPU records the Hopper rungs (CUDA backend)", "simulate_fragment_record");
  with_config(kernel, config, [&]<class R, std::size_t I>() {
    if constexpr (R::kFragments) {
      using At = typename R::template At<I>;
      result = simulator.run_with_shared<typename At::Smem>(
          lc, [&](const sim::HostCtx& t, typename At::Smem& sm) { At::tagged_body(t, sm, args, sink); }, o);
    }
  });
  if (!result.status) return result.status;
  if (!operands) rec.undecodable += counters[0], rec.tile_conflicts += counters[1];
  else rec.undecodable += counters[0];
  return Status::success();
}

}  // namespace

Result<FragmentRecord> simulate_fragment_record(MatmulKernel kernel, const MatmulConfig& config, int M, int N, int K,
                                                unsigned workers) {
  const MatmulKernelInfo& info = matmul_kernel_info(kernel);
  if (!has_fragment_record(kernel))
    return Status::failure(info.id + " holds C in no tensor-core fragments", "pick a tensor-core rung",
                           "record_fragments");
  if (!info.simulated)
    return Status::failure(info.id + "'s fragments are recorded on the GPU: the CPU simulator has no wgmma to run",
                           "use the CUDA backend on an H100 or H200; the model still draws here", "record_fragments");
  if (Status s = check_matmul_sizes(M, N, K); !s) return s;
  const int Kp = probe_k(K);
  const long double work = static_cast<long double>(M) * N * Kp;
  if (work > static_cast<long double>(kSimMaxMultiplyAdds))
    return Status::failure("recording " + std::to_string(M) + " x " + std::to_string(N) + " x " + std::to_string(Kp) +
                               " on the simulator is above its cap of 2^27 multiply-adds",
                           "use sizes up to 512^3 here, or the CUDA backend", "record_fragments");
  const LaunchConfig lc = matmul_launch_config(kernel, config, M, N, Kp);
  FragmentRecord rec = empty_fragment_record(kernel, config, lc, M, N, K);
  sim::GridSimulator simulator(workers);
  if (Status s = simulate_probe(simulator, kernel, config, lc, make_fragment_probe(M, N, K), rec, false); !s) return s;
  if (!rec.operands.a.empty()) {
    const auto [Mo, No] = operand_probe_size(kernel, config, M, N);
    const LaunchConfig olc = matmul_launch_config(kernel, config, Mo, No, Kp);
    if (Status s = simulate_probe(simulator, kernel, config, olc, make_operand_probe(Mo, No, K), rec, true); !s)
      return s;
  }
  rec.on_gpu = false;
  rec.how = "Recorded by the CPU simulator running " + info.id +
            "'s own body on probe operands whose product encodes each element's place in its block tile "
            "(C = 256 (row mod 128 + 1) + col mod 256); every simulated lane decoded the values its accumulator "
            "registers held. The simulator's warp operations follow the PTX ISA layouts, so this checks the "
            "body's index arithmetic and the simulator; the GPU's record checks the hardware." +
            fragment_note(kernel) +
            (Kp != K ? " K was raised to " + std::to_string(Kp) + " for the probe (one full k-step)." : std::string());
  return rec;
}

}  // namespace bs::matmul
