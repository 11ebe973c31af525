// The matmul lab's backend-neutral half: the kernel list (the ladder and, on the GPU, cuBLAS as
// the library anchor), the matrices, planning a launch (configuration, grid, refusals, scheme,
// FLOPs) and running it through the engine with the one timing policy and the tolerance check.
#include "labs/matmul/matmul_lab.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <random>

#include "lab/catalog.hpp"
#include "lab/measure.hpp"
#include "lab/size_text.hpp"
#include "labs/matmul/matmul_engine.hpp"
#include "labs/matmul/matmul_owner.hpp"
#include "labs/matmul/matmul_registry.hpp"
#include "mapping/thread_map.hpp"
#include "simulator/cancellable.hpp"

namespace bs::matmul {
namespace {

bool free_block(MatmulKernel k) { return matmul_kernel_info(k).any_block; }

// The library anchors of a precision: id, label, note, file, group, and which cuBLAS call.
struct Anchor {
  const char* id;
  const char* label;
  const char* teaches;
  const char* file;
  KernelGroup group;
  Library library;
};
const std::vector<Anchor>& anchors(Precision p) {
  static const std::vector<Anchor> fp32 = {
      {kCublasId, "cuBLAS SGEMM (the library)",
       "NVIDIA's FP32 GEMM with tensor cores off: the anchor the ladder is measured against; its grid "
       "is cuBLAS's own, so there is nothing of ours to draw",
       "cublasSgemm (CUBLAS_DEFAULT_MATH)", KernelGroup::Library, Library::Sgemm}};
  static const std::vector<Anchor> bf16 = {
      {kCublasBf16Id, "cuBLAS BF16 (the library)",
       "NVIDIA's GEMM on the same BF16 matrices, FP32 accumulation and output: the anchor the "
       "tensor-core ladder is measured against",
       "cublasGemmEx (CUDA_R_16BF in, CUDA_R_32F out, CUBLAS_COMPUTE_32F)", KernelGroup::Library, Library::Bf16},
      {kCublasTf32Id, "cuBLAS TF32 (ceiling)",
       "the tensor cores' reduced-precision FP32 mode on the FP32 copies: what FP32 data gets from "
       "tensor cores",
       "cublasGemmEx (CUBLAS_COMPUTE_32F_FAST_TF32)", KernelGroup::Ceiling, Library::Tf32},
      {kCublasSgemmCeilingId, "cuBLAS SGEMM (ceiling)",
       "FP32 on the FP32 lanes, tensor cores off: what the FP32 ladder reaches at best",
       "cublasSgemm (CUBLAS_DEFAULT_MATH)", KernelGroup::Ceiling, Library::Sgemm}};
  return p == Precision::Bf16 ? bf16 : fp32;
}
const Anchor* find_anchor(Precision p, std::string_view id) {
  for (const Anchor& a : anchors(p))
    if (id == a.id) return &a;
  return nullptr;
}

std::vector<lab::KernelInfo> build_kernel_list(Precision precision, bool gpu, bool library,
                                               const MatmulEngine& engine) {
  std::vector<lab::KernelInfo> out;
  for (const MatmulKernelInfo& k : matmul_kernels(precision)) {
    lab::KernelInfo i;
    if (Status s = engine.can_run(k); !s) i.unavailable = s.describe();
    i.id = k.id;
    i.label = k.label;
    i.teaches = k.teaches;
    i.file = k.file;
    i.group = k.lecture ? KernelGroup::Lecture : KernelGroup::Ladder;
    i.uses_barriers = k.uses_barriers;
    i.grid_rule = k.grid_rule;
    if (k.any_block) {
      i.style = lab::ConfigStyle::FreeBlock;
      i.block_rank = 2;
      for (const MatmulConfig& c : k.configs) i.presets.push_back(c.block);
      i.default_block = k.configs.front().block;
    } else {
      i.style = lab::ConfigStyle::Compiled;
      for (const MatmulConfig& c : k.configs) i.configs.push_back({c.label, c.block});
      i.default_config = gpu ? k.gpu_default_config : 0;
      i.default_block = k.configs[static_cast<std::size_t>(i.default_config)].block;
    }
    out.push_back(std::move(i));
  }
  if (library)
    for (const Anchor& a : anchors(precision)) {
      lab::KernelInfo c;
      c.id = a.id;
      c.label = a.label;
      c.teaches = a.teaches;
      c.file = a.file;
      c.group = a.group;
      c.style = lab::ConfigStyle::Compiled;
      c.configs.push_back({"cuBLAS's own choice", Dim3{0, 0, 0}});
      c.timed_only = true;
      // The FP32 cuBLAS runs beside the BF16 ladder are comparisons: BF16 kernels beat them.
      c.bounds_others = a.group != KernelGroup::Ceiling || precision != Precision::Bf16;
      out.push_back(std::move(c));
    }
  return out;
}

std::string size_text(const MatrixSpec& s) {
  return std::to_string(s.M) + "x" + std::to_string(s.N) + "x" + std::to_string(s.K);
}

// The record's problem: the size, and the precision where it is not the FP32 default (records
// of the two ladders rank and compare apart).
std::string problem_text(const MatrixSpec& s, Precision p) {
  return size_text(s) + (p == Precision::Bf16 ? " bf16" : "");
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

double physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0.0;
}

}  // namespace

Check to_check(const Verification& v) {
  Check c;
  c.against = "";
  c.measure = "worst error / its tolerance";
  c.limit = 1;
  c.worst = v.max_tolerance_ratio;
  c.checked = v.checked;
  c.mismatches = v.mismatches;
  if (v.first_bad_row >= 0)
    c.first_bad.push_back({v.first_bad_col, v.first_bad_row, v.first_bad_got, v.first_bad_want});
  char buf[160];
  std::snprintf(buf, sizeof buf, "max abs error %.3g; tolerance per element %s", v.max_abs,
                v.tolerance.c_str());
  c.note = buf;
  c.state = v.checked == 0 ? Check::State::NotChecked
                           : (v.passed ? Check::State::Passed : Check::State::Failed);
  return c;
}

struct MatmulLab::FragmentCache {
  std::mutex mutex;       // guards `entries` (and one recording at a time)
  std::mutex recording;
  std::vector<std::pair<std::string, std::shared_ptr<const FragmentRecord>>> entries;  // newest last
};

MatmulLab::MatmulLab(lab::Backend backend, std::unique_ptr<MatmulEngine> engine)
    : backend_(std::move(backend)), engine_(std::move(engine)), fragments_(std::make_shared<FragmentCache>()) {
  rebuild_kernel_list();
  status_ = Status::failure("no matrices yet", "choose M, N and K", "matmul lab");
}

void MatmulLab::rebuild_kernel_list() {
  kernels_ = build_kernel_list(precision_, backend_.kind == BackendKind::Cuda, engine_->has_library(), *engine_);
  ++kernels_version_;
  peak_gflops_ = engine_->peak_gflops(precision_, &peak_note_);
  if (peak_gflops_ <= 0)
    peak_note_ = std::string("no ") + (precision_ == Precision::Bf16 ? "tensor-core" : "FP32") +
                 " peak on the CPU simulation: it runs every thread's code one by one";
}

std::vector<lab::Setting> MatmulLab::settings() const {
  lab::Setting p;
  p.key = "precision";
  p.label = "precision";
  p.help = "fp32: the FP32 ladder on the FP32 lanes; bf16: the tensor-core ladder, A and B "
           "rounded to BF16 (the same patterns and seeds), FP32 accumulation and C";
  p.choices = {"fp32", "bf16"};
  p.value = to_string(precision_);
  return {p};
}

Status MatmulLab::set_setting(std::string_view key, std::string_view value) {
  if (key != "precision") return Lab::set_setting(key, value);
  Precision p;
  if (!precision_from_string(value, p)) return lab::check_setting_value(settings().front(), value);
  if (p == precision_) return Status::success();
  precision_ = p;
  rebuild_kernel_list();
  if (!spec_.M) return Status::success();  // no matrices yet
  return set_matrices(spec_);              // the same matrices, rounded (or not) and re-packed
}

MatmulLab::~MatmulLab() = default;

Result<std::unique_ptr<MatmulLab>> MatmulLab::create(const lab::Backend& backend) {
  auto engine = lab::make_engine(backend, make_cuda_engine, make_cpu_engine);
  if (!engine) return engine.status();
  return std::unique_ptr<MatmulLab>(new MatmulLab(backend, std::move(engine.value())));
}

lab::ProblemInfo MatmulLab::problem() const {
  lab::ProblemInfo p;
  p.throughput_unit = ThroughputUnit::GflopPerS;
  if (!ready_) {
    p.status = status_;
    return p;
  }
  p.ready = true;
  p.made = made_;
  p.name = "A x B (" + size_text(spec_) + (precision_ == Precision::Bf16 ? ", BF16" : "") + ")";
  p.width = spec_.N;
  p.height = spec_.M;
  p.summary = "C (" + std::to_string(spec_.M) + " x " + std::to_string(spec_.N) + ") = A (" +
              std::to_string(spec_.M) + " x " + std::to_string(spec_.K) + ", " +
              to_string(spec_.a) + ") * B (" + std::to_string(spec_.K) + " x " +
              std::to_string(spec_.N) + ", " + to_string(spec_.b) + "), seed " +
              std::to_string(spec_.seed) +
              (precision_ == Precision::Bf16 ? ", A and B in BF16, FP32 accumulation" : "");
  // On the GPU: cuBLAS SGEMM as timed when it made the reference for these matrices, and the FP32
  // peak from the device's SMs and clock. The CPU simulation has neither (its reference is a
  // plain loop, and a simulator has no peak).
  const double flops = matmul_flops(spec_.M, spec_.N, spec_.K);
  const bool bf16 = precision_ == Precision::Bf16;
  // The hardware's peak for this precision comes first: it is the table's %ceil (a ceiling no
  // kernel of this precision can pass); cuBLAS is a speed to reach, not a ceiling. Each bounds
  // this problem's records only (a bench over sizes and precisions lists them all).
  const std::string for_problem = problem_text(spec_, precision_);
  if (peak_gflops_ > 0)
    p.ceilings.push_back({bf16 ? "BF16 tensor-core peak" : "FP32 peak", peak_gflops_, ThroughputUnit::GflopPerS, peak_note_,
                          for_problem});
  if (backend_.kind == BackendKind::Cuda && reference_ms_ > 0)
    p.ceilings.push_back({bf16 ? "cuBLAS BF16" : "cuBLAS SGEMM", flops / (reference_ms_ * 1e6), ThroughputUnit::GflopPerS,
                          reference_note_ + " timed when it made the reference: median " +
                              std::to_string(reference_ms_) + " ms",
                          for_problem});
  return p;
}

std::optional<std::pair<MatmulKernel, MatmulConfig>> MatmulLab::resolve(
    std::string_view kernel, const KernelConfig& config) const {
  const MatmulKernelInfo* info = find_matmul_kernel(kernel);
  if (!info) return std::nullopt;
  if (free_block(info->kernel)) return std::pair{info->kernel, make_block_config(info->kernel, config.block)};
  if (config.compiled < 0 || config.compiled >= static_cast<int>(info->configs.size()))
    return std::nullopt;
  return std::pair{info->kernel, info->configs[static_cast<std::size_t>(config.compiled)]};
}

LaunchRecord MatmulLab::plan(std::string_view kernel, const KernelConfig& config) {
  LaunchRecord rec;
  rec.lab = std::string(id());
  rec.kernel = std::string(kernel);
  rec.request = config;
  rec.backend = backend_.kind;
  rec.problem = problem_text(spec_, precision_);
  rec.settings = setting_values();
  rec.data_width = spec_.N;
  rec.data_height = spec_.M;
  rec.flops = matmul_flops(spec_.M, spec_.N, spec_.K);
  rec.bytes_moved = matmul_compulsory_bytes(spec_.M, spec_.N, spec_.K, precision_);
  rec.bytes_note = precision_ == Precision::Bf16
                       ? "A and B read once in BF16 (rows padded to 16 bytes), C written once in FP32 "
                         "(the least any kernel must move)"
                       : "A and B read once, C written once (the least any kernel must move)";
  if (!ready_) {
    rec.status = status_;
    return rec;
  }
  if (find_anchor(precision_, kernel) && engine_->has_library()) {
    rec.config_label = "cuBLAS's own choice";
    rec.scheme = IndexScheme::tiled(0, 0);
    return rec;
  }
  const MatmulKernelInfo* info = find_matmul_kernel(kernel);
  if (info && info->precision != precision_) {
    rec.status = Status::failure(info->id + " multiplies " + (info->precision == Precision::Bf16 ? "BF16" : "FP32") +
                                     " matrices; the problem is " + to_string(precision_),
                                 std::string("pick a kernel of the ") + to_string(precision_) + " list, or set precision=" +
                                     to_string(info->precision) + " to run it",
                                 "MatmulLab::plan");
    return rec;
  }
  if (!info) {
    rec.status = Status::failure("the matmul lab has no kernel '" + std::string(kernel) + "'",
                                 "pick one of the kernel list", "MatmulLab::plan");
    return rec;
  }
  if (!free_block(info->kernel) &&
      (config.compiled < 0 || config.compiled >= static_cast<int>(info->configs.size()))) {
    rec.status = Status::failure(
        info->id + " has no configuration " + std::to_string(config.compiled) + " (it lists 0.." +
            std::to_string(info->configs.size() - 1) + ")",
        "pick one of its compiled configurations", "check_matmul_config");
    return rec;
  }
  const auto [k, mc] = *resolve(kernel, config);
  rec.config_label = mc.label;
  rec.config = matmul_launch_config(k, mc, spec_.M, spec_.N, spec_.K);
  rec.scheme = matmul_scheme(k, mc);
  if (config.fixed_grid()) {
    rec.status = Status::failure("the ladder's kernels compute their grid from M and N; a fixed "
                                 "grid would leave parts of C uncomputed",
                                 "leave the grid to the kernel's rule", "check_matmul_config");
    return rec;
  }
  rec.status = engine_->can_run(*info);
  if (!rec.ok()) return rec;
  rec.status = check_matmul_config(k, mc, spec_.M, spec_.N, spec_.K, backend_.limits);
  if (!rec.ok()) return rec;
  const bool clustered = rec.config.cluster.volume() > 1;
  if (info->persistent || clustered) {
    // The GPU's own count of whole clusters that fit at once (cudaOccupancyMaxActiveClusters).
    auto resident = engine_->resident_clusters(k, mc, rec.config);
    if (clustered) {
      rec.clusters.max_active_clusters = resident ? *resident : 0;
      rec.clusters.note = resident ? "cudaOccupancyMaxActiveClusters" : resident.status().message;
    }
    if (info->persistent) {
      if (!resident) {
        rec.status = resident.status();
        return rec;
      }
      // As many clusters as fit on the device at once, never more than there are tiles.
      const unsigned cluster = rec.config.cluster.volume();
      rec.config.grid.x = std::min(rec.config.grid.x, cluster * static_cast<unsigned>(std::max(1, *resident)));
    }
  }
  auto attrs = engine_->attributes(k, mc, &rec.attributes_measured);
  if (!attrs) {
    rec.status = attrs.status();
    return rec;
  }
  rec.attributes = attrs.value();
  if (rec.attributes_measured)
    rec.status = validate_launch(rec.config, backend_.limits, &rec.attributes);
  return rec;
}

LaunchRecord MatmulLab::run(std::string_view kernel, const KernelConfig& config,
                            const lab::RunOptions& options) {
  LaunchRecord rec = plan(kernel, config);
  if (!rec.ok()) {
    rec.refused = true;
    return rec;
  }
  float* out = options.output ? static_cast<float*>(options.output) : engine_->own_output();
  rec.timing.clock = engine_->clock();
  rec.timing.simulated = engine_->simulated();
  const Anchor* anchor = find_anchor(precision_, kernel);
  const bool library = anchor != nullptr;
  std::optional<std::pair<MatmulKernel, MatmulConfig>> what;
  if (!library) what = resolve(kernel, config);
  // A simulated launch stops between blocks once the run is cancelled (its traced one too).
  const sim::CancelScope<MatmulEngine> cancellable(engine_.get(), options.cancel);
  Status timed = lab::measure(
      options.timing, rec.timing,
      [&]() -> Result<double> {
        if (library) return engine_->library_timed(anchor->library, out);
        return engine_->launch_timed(what->first, what->second, rec.config, out);
      },
      [&] { return engine_->flush_l2(); }, options.cancel);
  if (!timed) {
    rec.status = timed;
    return rec;
  }
  if (options.trace_schedule && !library) {
    auto schedule = engine_->launch_traced(what->first, what->second, rec.config, out);
    if (!schedule) {
      rec.status = schedule.status();
      return rec;
    }
    rec.schedule = std::move(schedule.value());
    rec.schedule_simulated = engine_->simulated();
  }
  if (options.verify) {
    std::vector<float> got(static_cast<std::size_t>(spec_.M) * spec_.N);
    Status s = Status::success();
    // The lab's own output buffer may be passed explicitly (the view does, so a kernel of a
    // wrapping lab writes where the heatmaps read).
    const bool own = !options.output || options.output == engine_->own_output();
    if (options.output && !own && backend_.kind == BackendKind::CpuSimulation)
      std::copy(out, out + got.size(), got.begin());
    else if (own)
      s = engine_->download(got.data());
    else
      s = Status::failure("cannot verify an external GPU output buffer", "", "MatmulLab::run");
    if (!s) {
      rec.check.note = s.describe();
    } else {
      rec.check = to_check(verify(got.data(), reference_.data(), spec_.M, spec_.N, scale_));
      rec.check.against = reference_note_;
      if (precision_ == Precision::Bf16)
        rec.check.note += "; both sides multiply the same BF16 numbers, so the inputs' rounding "
                          "(up to 2^-9 relative each) cancels and what remains is FP32 accumulation";
    }
  }
  return rec;
}

bool MatmulLab::has_pipeline(std::string_view kernel) {
  const MatmulKernelInfo* info = find_matmul_kernel(kernel);
  return info && info->pipeline;
}

Result<MatmulLab::PipelineRun> MatmulLab::trace_pipeline(std::string_view kernel, const KernelConfig& config,
                                                         const PipelineCapture& capture) {
  if (!has_pipeline(kernel))
    return Status::failure("'" + std::string(kernel) + "' has no pipeline to record: the Pipeline view shows the "
                               "warp-specialized rungs' producer and consumers",
                           "pick T4 (tc4_warp_specialized), T5 or T6 with precision=bf16", "trace_pipeline");
  if (backend_.kind != BackendKind::Cuda)
    return engine_->launch_pipeline_traced(MatmulKernel{}, MatmulConfig{}, LaunchConfig{}, nullptr, 0).status();
  PipelineRun run;
  run.plan = plan(kernel, config);
  if (!run.plan.ok()) return run.plan.status;
  const auto [k, mc] = *resolve(kernel, config);
  const MatmulKernelInfo& info = matmul_kernel_info(k);
  const std::uint32_t capacity = pipeline_capacity(run.plan, capture);
  // As before each timed launch: the L2 flushed, so the recording starts from the state the
  // timings do, and its CUDA events start once the flush is done, with the launch already queued
  // (on an idle GPU they would also time the host's launch call, a few percent of 0.2 ms).
  if (Status s = engine_->flush_l2(); !s) return s;
  auto raw = engine_->launch_pipeline_traced(k, mc, run.plan.config, engine_->own_output(), capacity);
  if (!raw) return raw.status();
  run.raw = std::move(raw.value());
  run.raw.kernel = info.id;
  run.raw.config = mc.label;
  run.raw.M = spec_.M, run.raw.N = spec_.N, run.raw.K = spec_.K;
  run.raw.stages = kTc4Stages;
  run.raw.persistent = info.persistent;
  std::vector<float> got(static_cast<std::size_t>(spec_.M) * spec_.N);
  if (Status s = engine_->download(got.data()); !s) return s;
  run.check = to_check(verify(got.data(), reference_.data(), spec_.M, spec_.N, scale_));
  run.check.against = reference_note_;
  return run;
}

Result<Timing> MatmulLab::time_pipeline_traced(std::string_view kernel, const KernelConfig& config,
                                               const TimingPolicy& policy, const PipelineCapture& capture) {
  if (!has_pipeline(kernel) || backend_.kind != BackendKind::Cuda) {
    auto r = trace_pipeline(kernel, config, capture);  // the same refusal, with its reason
    if (!r) return r.status();
  }
  const LaunchRecord planned = plan(kernel, config);
  if (!planned.ok()) return planned.status;
  const auto [k, mc] = *resolve(kernel, config);
  const std::uint32_t capacity = pipeline_capacity(planned, capture);
  Timing t;
  t.clock = engine_->clock();
  Status s = lab::measure(
      policy, t,
      [&]() -> Result<double> {
        return engine_->time_pipeline_launch(k, mc, planned.config, engine_->own_output(), capacity);
      },
      [&] { return engine_->flush_l2(); });
  if (!s) return s;
  return t;
}

Result<MatmulLab::PipelineCost> MatmulLab::pipeline_cost(std::string_view kernel, const KernelConfig& config,
                                                          const TimingPolicy& policy, const PipelineCapture& capture) {
  auto traced = time_pipeline_traced(kernel, config, policy, capture);  // refuses with the reason first
  if (!traced) return traced.status();
  const LaunchRecord planned = plan(kernel, config);
  const auto [k, mc] = *resolve(kernel, config);
  PipelineCost cost;
  cost.traced = traced.value();
  cost.plain.clock = engine_->clock();
  Status s = lab::measure(
      policy, cost.plain,
      [&]() -> Result<double> { return engine_->launch_timed(k, mc, planned.config, engine_->own_output()); },
      [&] { return engine_->flush_l2(); });
  if (!s) return s;
  return cost;
}

std::uint32_t MatmulLab::pipeline_capacity(const LaunchRecord& planned, const PipelineCapture& capture) const {
  const MatmulKernelInfo* info = find_matmul_kernel(planned.kernel);
  // The events each warpgroup will write: slices per tile x tiles per block (persistent rungs:
  // the tiles of the grouped order dealt round-robin to the clusters resident).
  const LaunchConfig& lc = planned.config;
  const int slices = (spec_.K + kTc4BK - 1) / kTc4BK;
  int tiles = 1;
  if (info && info->persistent) {
    const int cs = static_cast<int>(std::max(1u, lc.cluster.x));
    const long long all = static_cast<long long>((spec_.M + kTc4BM * cs - 1) / (kTc4BM * cs)) *
                          ((spec_.N + kTc4BN - 1) / kTc4BN);
    const long long clusters = std::max(1u, lc.grid.x / static_cast<unsigned>(cs));
    tiles = static_cast<int>((all + clusters - 1) / clusters);
  }
  const std::uint32_t needed = std::max(pipeline_events_needed(0, slices, tiles), pipeline_events_needed(1, slices, tiles));
  return std::max(1u, std::min(needed, capture.max_events_per_warpgroup));
}

std::size_t MatmulLab::output_bytes() const {
  return static_cast<std::size_t>(spec_.M) * spec_.N * sizeof(float);
}

Status MatmulLab::download_output(void* host) {
  if (!ready_) return status_;
  return engine_->download(static_cast<float*>(host));
}

std::optional<mapping::ElementOwner> MatmulLab::owner(const LaunchRecord& r, long long x,
                                                      long long y) const {
  const auto what = resolve(r.kernel, r.request);
  if (!what || !ready_) return std::nullopt;
  auto o = element_owner(what->first, what->second, spec_.M, spec_.N, static_cast<int>(y),
                         static_cast<int>(x), &r.config);
  if (!o) return std::nullopt;
  mapping::ElementOwner out;
  auto t = mapping::describe_thread(r.scheme, r.config, r.data_width, r.data_height, o->block,
                                    o->thread);
  if (!t) return std::nullopt;
  out.thread = *t;
  out.thread.warp_in_block = o->warp;
  out.thread.lane = o->lane;
  for (const CRect& c : o->outputs) {
    const long long x0 = std::max(0LL, c.col), y0 = std::max(0LL, c.row);
    const long long x1 = std::min<long long>(spec_.N, c.col + c.cols);
    const long long y1 = std::min<long long>(spec_.M, c.row + c.rows);
    if (x1 > x0 && y1 > y0) out.owns.push_back({x0, y0, x1 - x0, y1 - y0});
  }
  if (o->warp_tile.rows > 0)
    out.warp_tile = {o->warp_tile.col, o->warp_tile.row, o->warp_tile.cols, o->warp_tile.rows};
  return out;
}

// The tensor-core rungs with per-thread loads (T1, T2) stage the BF16 A and Bt tiles in 16-byte
// chunks (8 BF16): thread tid copies chunks tid, tid + T, ... of the block_rows x k_step tile of A
// and of Bt (plain loads in T1, cp.async in T2), rows ld = bf16_row_pitch(K) elements apart; the
// chunks past the matrix are zero-filled, not loaded. Then each lane's first store of C (from the
// owner map). The Hopper rungs load whole boxes through TMA, issued by one thread: no per-lane
// addresses to show.
std::vector<mapping::WarpAccess> MatmulLab::bf16_loader_accesses(MatmulKernel kern, const MatmulConfig& mc,
                                                                 Dim3 block, unsigned warp, int k) const {
  using mapping::kNoAccess;
  using mapping::kWarpSize;
  std::vector<mapping::WarpAccess> out;
  const MatmulKernelInfo& info = matmul_kernel_info(kern);
  const MatmulGeometry g = matmul_geometry(kern, mc);
  if (!info.simulated || g.k_step <= 0) return out;
  const long long M = spec_.M, N = spec_.N, ld = bf16_row_pitch(spec_.K), threads = mc.block.volume();
  const long long k0 = (k / g.k_step) * g.k_step, per_row = g.k_step / 8;
  const long long row0 = static_cast<long long>(block.y) * g.block_rows, col0 = static_cast<long long>(block.x) * g.block_cols;
  auto loads = [&](const char* name, const char* buffer, long long first_row, long long rows_total, long long tile_rows) {
    const long long items = tile_rows * per_row, per = (items + threads - 1) / threads;
    for (long long j = 0; j < per; ++j) {
      std::vector<long long> at(kWarpSize, kNoAccess);
      bool any = false;
      for (unsigned l = 0; l < kWarpSize; ++l) {
        const long long i = static_cast<long long>(warp) * kWarpSize + l + j * threads;
        if (i >= items || static_cast<long long>(warp) * kWarpSize + l >= threads) continue;
        const long long r = first_row + i / per_row, c = k0 + (i % per_row) * 8;
        if (r >= rows_total || c >= ld) continue;  // zero-filled
        at[l] = (r * ld + c) * static_cast<long long>(sizeof(Bf16));
        any = true;
      }
      if (any)
        out.push_back(mapping::make_warp_access(std::string(name) + (per > 1 ? " (" + std::to_string(j + 1) + " of " + std::to_string(per) + ")" : ""),
                                                buffer, false, 16, std::move(at)));
    }
  };
  loads("load  A tile (16 B chunks) to shared", "A", row0, M, g.block_rows);
  loads("load  Bt tile (16 B chunks) to shared", "B", col0, N, g.block_cols);
  std::vector<std::pair<long long, long long>> first(kWarpSize, {-1, -1});
  for (long long r = row0; r < std::min(M, row0 + g.block_rows); ++r)
    for (long long cc = col0; cc < std::min(N, col0 + g.block_cols); ++cc) {
      auto o = element_owner(kern, mc, spec_.M, spec_.N, static_cast<int>(r), static_cast<int>(cc));
      if (!o || o->warp != warp || o->block.x != block.x || o->block.y != block.y) continue;
      if (first[o->lane].first < 0) first[o->lane] = {r, cc};
    }
  std::vector<long long> c(kWarpSize, kNoAccess);
  bool any = false;
  for (unsigned l = 0; l < kWarpSize; ++l)
    if (first[l].first >= 0) c[l] = (first[l].first * N + first[l].second) * static_cast<long long>(sizeof(float)), any = true;
  if (any) out.push_back(mapping::make_warp_access("store C (first per lane)", "C", true, sizeof(float), std::move(c)));
  return out;
}

// Rungs 4-7 stage A and B through shared memory: in the phase holding k, the block's threads
// copy the BM x BK tile of A and the BK x BN tile of B, thread tid taking items tid, tid + T,
// tid + 2T, ... (one load instruction each), scalar in rungs 4-5, float4 in rungs 6-7 (the
// index expressions of k4_blocktile_1d.hpp ... k7_warptile.hpp). Then the epilogue's first store
// of C per lane (rung 7: the first float4 of the lane's first fragment, from element_owner).
std::vector<mapping::WarpAccess> MatmulLab::tile_loader_accesses(MatmulKernel kern, const MatmulConfig& mc,
                                                                 Dim3 block, unsigned warp, int k) const {
  using mapping::kNoAccess;
  using mapping::kWarpSize;
  std::vector<mapping::WarpAccess> out;
  GlobalLoads kind = GlobalLoads::Direct;
  int width_floats = 1;
  bool store_from_owner = false;
  with_rung(kern, [&]<class R>() {
    kind = R::kGlobalLoads, width_floats = R::kLoadFloats, store_from_owner = R::kStoreFromOwner;
  });
  if (kind == GlobalLoads::Bf16Chunks) return bf16_loader_accesses(kern, mc, block, warp, k);
  const TileParams& t = mc.tile;
  if (t.BM <= 0 || t.BN <= 0 || t.BK <= 0) return out;
  const long long M = spec_.M, N = spec_.N, K = spec_.K;
  constexpr long long F = sizeof(float);
  const long long threads = mc.block.volume();
  const bool vec = width_floats > 1;
  const long long width = width_floats;  // floats per item
  const long long k0 = (k / t.BK) * t.BK;
  const long long row0 = static_cast<long long>(block.y) * t.BM, col0 = static_cast<long long>(block.x) * t.BN;
  auto loads = [&](const char* name, const char* buffer, long long items, long long per_row, bool is_a) {
    const long long per = (items + threads - 1) / threads;
    for (long long j = 0; j < per; ++j) {
      std::vector<long long> at(kWarpSize, kNoAccess);
      bool any = false;
      for (unsigned l = 0; l < kWarpSize; ++l) {
        const long long tid = static_cast<long long>(warp) * kWarpSize + l;
        const long long i = tid + j * threads;
        if (tid >= threads || i >= items) continue;
        const long long r = i / per_row, c = (i % per_row) * width;
        const long long gr = is_a ? row0 + r : k0 + r, gc = is_a ? k0 + c : col0 + c;
        const long long rows = is_a ? M : K, cols = is_a ? K : N;
        if (gr >= rows || gc >= cols) continue;  // guarded: no load
        at[l] = (gr * cols + gc) * F;
        any = true;
      }
      if (!any) continue;
      const std::string label = std::string(name) + (per > 1 ? " (" + std::to_string(j + 1) + " of " + std::to_string(per) + ")" : "");
      out.push_back(mapping::make_warp_access(label, buffer, false, static_cast<unsigned>(width * F), std::move(at)));
    }
  };
  loads(vec ? "load  A tile (float4) to shared" : "load  A tile to shared", "A", t.BM * t.BK / width, t.BK / width, true);
  loads(vec ? "load  B tile (float4) to shared" : "load  B tile to shared", "B", t.BK * t.BN / width, t.BN / width, false);
  // The epilogue's first store per lane.
  std::vector<long long> c(kWarpSize, kNoAccess);
  bool any = false;
  const int tn = std::max(1, t.TN);
  for (unsigned l = 0; l < kWarpSize; ++l) {
    const long long tid = static_cast<long long>(warp) * kWarpSize + l;
    if (tid >= threads) continue;
    long long row = -1, col = -1;
    if (store_from_owner) {
      continue;  // filled below from the owner map
    } else {
      const long long per_row = t.BN / tn;
      row = row0 + (tid / per_row) * t.TM;
      col = col0 + (tid % per_row) * tn;
    }
    if (row < M && col < N) c[l] = (row * N + col) * F, any = true;
  }
  if (store_from_owner) {
    // Scan the block's tile once for the first output of each lane of this warp.
    std::vector<std::pair<long long, long long>> first(kWarpSize, {-1, -1});
    for (long long r = row0; r < std::min(M, row0 + t.BM); ++r)
      for (long long cc = col0; cc < std::min(N, col0 + t.BN); ++cc) {
        auto o = element_owner(kern, mc, spec_.M, spec_.N, static_cast<int>(r), static_cast<int>(cc));
        if (!o || o->warp != warp || o->block.x != block.x || o->block.y != block.y) continue;
        if (first[o->lane].first < 0) first[o->lane] = {r, cc};
      }
    for (unsigned l = 0; l < kWarpSize; ++l)
      if (first[l].first >= 0) c[l] = (first[l].first * N + first[l].second) * F, any = true;
  }
  if (any)
    out.push_back(mapping::make_warp_access(vec ? "store C (first float4 per lane)" : "store C (first per lane)", "C",
                                            true, static_cast<unsigned>((vec ? 4 : 1) * F), std::move(c)));
  return out;
}

std::vector<mapping::WarpAccess> MatmulLab::warp_accesses(const LaunchRecord& r, Dim3 block,
                                                          unsigned warp, int k) const {
  using mapping::kNoAccess;
  using mapping::kWarpSize;
  std::vector<mapping::WarpAccess> out;
  const auto what = resolve(r.kernel, r.request);
  if (!what || !ready_ || k < 0 || k >= spec_.K) return out;
  const MatmulKernel kern = what->first;
  GlobalLoads kind = GlobalLoads::Direct;
  with_rung(kern, [&]<class R>() { kind = R::kGlobalLoads; });
  const bool tiled = kind == GlobalLoads::PhaseTile;
  if (kind != GlobalLoads::Direct && !tiled) return tile_loader_accesses(kern, what->second, block, warp, k);
  const auto lanes = mapping::warp_lanes(r.scheme, r.config, spec_.N, spec_.M, block, warp);
  if (!lanes[0]) return out;
  const long long M = spec_.M, N = spec_.N, K = spec_.K;
  constexpr long long F = sizeof(float);
  std::vector<long long> a(kWarpSize, kNoAccess), b(kWarpSize, kNoAccess), c(kWarpSize, kNoAccess);
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!lanes[l]) continue;
    if (tiled) {
      // Phase k / T: thread (tx, ty) loads A[row][k0 + tx] and B[k0 + ty][col].
      const long long T = r.config.block.x, k0 = (k / T) * T;
      const long long tx = lanes[l]->thread.x, ty = lanes[l]->thread.y;
      const long long row = static_cast<long long>(block.y) * T + ty;
      const long long col = static_cast<long long>(block.x) * T + tx;
      if (row < M && k0 + tx < K) a[l] = (row * K + k0 + tx) * F;
      if (k0 + ty < K && col < N) b[l] = ((k0 + ty) * N + col) * F;
      if (row < M && col < N) c[l] = (row * N + col) * F;
      continue;
    }
    if (!lanes[l]->in_range) continue;
    const long long row = lanes[l]->y, col = lanes[l]->x;
    a[l] = (row * K + k) * F;
    b[l] = (static_cast<long long>(k) * N + col) * F;
    c[l] = (row * N + col) * F;
  }
  out.push_back(mapping::make_warp_access(tiled ? "load  A[row][k0 + tx] to shared" : "load  A[row][k]",
                                          "A", false, F, std::move(a)));
  out.push_back(mapping::make_warp_access(tiled ? "load  B[k0 + ty][col] to shared" : "load  B[k][col]",
                                          "B", false, F, std::move(b)));
  out.push_back(mapping::make_warp_access("store C[row][col]", "C", true, F, std::move(c)));
  return out;
}

Result<std::unique_ptr<lab::Lab>> MatmulLab::fork() const {
  auto engine = engine_->clone();
  if (!engine) return engine.status();
  std::unique_ptr<MatmulLab> copy(new MatmulLab(backend_, std::move(engine.value())));
  if (copy->precision_ != precision_) {
    copy->precision_ = precision_;
    copy->rebuild_kernel_list();
  }
  if (ready_)
    if (Status s = copy->set_matrices(spec_); !s) return s;
  return std::unique_ptr<lab::Lab>(std::move(copy));
}

std::optional<lab::BlockSuggestion> MatmulLab::suggested_block(std::string_view kernel) {
  const MatmulKernelInfo* info = find_matmul_kernel(kernel);
  if (!info || !free_block(info->kernel)) return std::nullopt;
  auto s = engine_->suggested_block(info->kernel);
  if (!s || s->second <= 0) return std::nullopt;
  lab::BlockSuggestion out;
  out.min_grid = static_cast<unsigned>(s->first);
  out.threads = static_cast<unsigned>(s->second);
  out.source = "cudaOccupancyMaxPotentialBlockSize (" + info->id + ", no dynamic shared memory)";
  return out;
}

Status MatmulLab::set_random_problem(std::string_view size) {
  auto d = lab::parse_dims(size, 1, 3);
  if (!d || d->size() == 2 || std::any_of(d->begin(), d->end(), [](long long v) { return v < 1; }))
    return Status::failure("'" + std::string(size) + "' is not a matmul size MxNxK or N (e.g. 4096x4096x4096)",
                           "", "size");
  MatrixSpec s;
  s.M = static_cast<int>((*d)[0]);
  s.N = static_cast<int>(d->size() == 3 ? (*d)[1] : (*d)[0]);
  s.K = static_cast<int>(d->size() == 3 ? (*d)[2] : (*d)[0]);
  s.seed = std::random_device{}() & 0xffffffffu;  // fresh data each run; the seed is reported
  return set_matrices(s);
}

std::vector<std::string> MatmulLab::default_sizes() const {
  return {backend_.kind == BackendKind::Cuda ? "4096x4096x4096" : "256x256x256"};
}

Status MatmulLab::set_matrices(const MatrixSpec& spec) {
  const bool gpu = backend_.kind == BackendKind::Cuda;
  ++generation_;
  ready_ = false;
  spec_ = spec;
  a_.clear(), b_.clear(), reference_.clear();
  auto fail = [&](Status s) {
    status_ = s;
    return s;
  };
  if (Status s = check_matmul_sizes(spec.M, spec.N, spec.K); !s) return fail(s);
  const double mnk = static_cast<double>(spec.M) * spec.N * spec.K;
  if (!gpu && mnk > static_cast<double>(kSimMaxMultiplyAdds)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g", mnk);
    return fail(Status::failure(
        size_text(spec) + " is " + buf + " multiply-adds, above the CPU simulator's cap of "
            "2^27 = 134217728 per launch",
        "the simulator runs every thread's code one by one: stay at or below 512^3 (or "
        "1024 x 1024 x 128, the MNIST layer 10000 x 10 x 784, ...), or use the CUDA backend",
        "check_matmul_sizes"));
  }
  // Host memory: A, B, the reference and a host copy of C.
  const double host_bytes = 4.0 * (static_cast<double>(spec.M) * spec.K +
                                   static_cast<double>(spec.K) * spec.N + 2.0 * spec.M * spec.N);
  if (const double phys = physical_memory_bytes(); phys > 0 && host_bytes > 0.5 * phys)
    return fail(Status::failure("the matrices need " + fixed(host_bytes / (1 << 20), 0) +
                                    " MiB of host memory, more than half of this machine's " +
                                    fixed(phys / (1 << 20), 0) + " MiB",
                                "choose smaller sizes", "check_matmul_sizes"));
  StepTimes made;
  HostVector<float> a, b;
  try {
    a.resize(static_cast<std::size_t>(spec.M) * spec.K);
    b.resize(static_cast<std::size_t>(spec.K) * spec.N);
  } catch (const std::bad_alloc&) {
    return fail(Status::failure("not enough host memory for A and B", "choose smaller sizes",
                                "generate_matrix"));
  }
  fill_matrix(a.data(), spec.M, spec.K, spec.a, spec.seed);
  fill_matrix(b.data(), spec.K, spec.N, spec.b, spec.seed + 1);
  if (precision_ == Precision::Bf16) round_to_bf16(a), round_to_bf16(b);
  made.end("generate on the host");
  if (Status s = engine_->set_matrices(a, b, spec.M, spec.N, spec.K, precision_); !s) return fail(s);
  made.end("upload");
  a_ = std::move(a);
  b_ = std::move(b);
  if (Status s = engine_->reference(reference_, &reference_ms_, &reference_note_); !s)
    return fail(s);
  made.end(gpu ? "cuBLAS reference" : "CPU reference");
  scale_ = matmul::error_scale(a_.data(), b_.data(), spec.M, spec.N, spec.K);
  made.end("error scale on the host");
  made_ = std::move(made);
  ready_ = true;
  status_ = Status::success();
  return Status::success();
}

// ---------------------------------------------------------------------------------------------
// Fragment tags (fragment_record.hpp)
// ---------------------------------------------------------------------------------------------

std::string MatmulLab::fragment_key(const LaunchRecord& r) const {
  const LaunchConfig& lc = r.config;
  return r.kernel + "|" + r.config_label + "|" + std::to_string(r.data_height) + "x" + std::to_string(r.data_width) +
         "x" + std::to_string(spec_.K) + "|" + to_string(lc.grid) + "|" + to_string(lc.cluster);
}

std::shared_ptr<const FragmentRecord> MatmulLab::cached_fragment_record(const LaunchRecord& r) const {
  const std::string key = fragment_key(r);
  std::lock_guard<std::mutex> lock(fragments_->mutex);
  for (const auto& [k, rec] : fragments_->entries)
    if (k == key) return rec;
  return nullptr;
}

Result<std::shared_ptr<const FragmentRecord>> MatmulLab::fragment_record(const LaunchRecord& r) {
  if (auto hit = cached_fragment_record(r)) return hit;
  const auto what = resolve(r.kernel, r.request);
  if (!what || !ready_ || !r.ok())
    return Status::failure("no launch of a tensor-core rung to record", "run one of T1..T6 first", "fragment_record");
  if (!has_fragment_record(what->first))
    return Status::failure(r.kernel + " holds C in no tensor-core fragments: its threads keep plain registers",
                           "pick a tensor-core rung (precision=bf16, T1..T6)", "fragment_record");
  std::lock_guard<std::mutex> one_at_a_time(fragments_->recording);
  if (auto hit = cached_fragment_record(r)) return hit;  // recorded while this call waited
  auto rec = engine_->record_fragments(what->first, what->second, r.config, static_cast<int>(r.data_height),
                                       static_cast<int>(r.data_width), spec_.K);
  if (!rec) return rec.status();
  auto shared = std::make_shared<const FragmentRecord>(std::move(rec.value()));
  std::lock_guard<std::mutex> lock(fragments_->mutex);
  auto& entries = fragments_->entries;
  entries.emplace_back(fragment_key(r), shared);
  if (entries.size() > 4) entries.erase(entries.begin());
  return std::shared_ptr<const FragmentRecord>(shared);
}

Result<FragmentModel> MatmulLab::fragment_model(const LaunchRecord& r) const {
  const auto what = resolve(r.kernel, r.request);
  if (!what) return Status::failure("no launch of a tensor-core rung", "", "fragment_model");
  return matmul::fragment_model(what->first, what->second, r.config, static_cast<int>(r.data_height),
                                static_cast<int>(r.data_width));
}

const float* MatmulLab::device_a() const { return engine_->device_a(); }
const float* MatmulLab::device_b() const { return engine_->device_b(); }
const float* MatmulLab::device_reference() const { return engine_->device_reference(); }
float* MatmulLab::device_output() {
  return backend_.kind == BackendKind::Cuda ? engine_->own_output() : nullptr;
}

// ---------------------------------------------------------------------------------------------
// Shared-memory requests (the bank view, matmul_shared.hpp)
// ---------------------------------------------------------------------------------------------

Result<std::vector<SharedRequest>> MatmulLab::recorded_shared_requests(const LaunchRecord& r, Dim3 block,
                                                                       unsigned warp, unsigned max_requests) const {
  auto job = shared_replay_job(r, block, warp, max_requests);
  if (!job) return job.status();
  return (*job)();
}

Result<MatmulLab::SharedReplay> MatmulLab::shared_replay_job(const LaunchRecord& r, Dim3 block, unsigned warp,
                                                             unsigned max_requests) const {
  const auto what = resolve(r.kernel, r.request);
  if (!what || !ready_) return Status::failure("no matmul launch of the ladder to record", "", "recorded_shared_requests");
  const auto [k, mc] = *what;
  const MatmulKernelInfo& info = matmul_kernel_info(k);
  if (!has_shared_model(k))
    return Status::failure(info.id + ": the bank view records k3..k7 and T2 (the rungs whose shared memory goes "
                                     "through the load/store pipe and that the simulator runs)",
                           info.simulated ? "" : "this rung runs on Hopper GPUs only: its tiles are written by TMA",
                           "recorded_shared_requests");
  const int M = spec_.M, N = spec_.N, K = spec_.K;
  // Only this block runs (record_shared), so the matrices are allocated at full size but left
  // untouched except for the rows of A and columns of B the block reads and its tile of C:
  // malloc'd, not value-initialised, so the untouched pages cost nothing (at 8192^3 that saved
  // about 290 MB of resident memory; the seconds a T2 block takes are its simulation over all of
  // K, which is why the Memory tab runs this job on a worker). The copies are the job's own: the
  // lab may change its matrices while the job runs.
  const MatmulGeometry g = matmul_geometry(k, mc);
  const int r0 = std::min(M, static_cast<int>(block.y) * g.block_rows), r1 = std::min(M, r0 + g.block_rows);
  const int c0 = std::min(N, static_cast<int>(block.x) * g.block_cols), c1 = std::min(N, c0 + g.block_cols);
  struct Scratch {
    struct Free {
      void operator()(void* p) const { std::free(p); }
    };
    std::unique_ptr<void, Free> a, b, c, a16, bt16;
    static std::unique_ptr<void, Free> make(std::size_t bytes) {
      return std::unique_ptr<void, Free>(std::malloc(std::max<std::size_t>(bytes, 1)));
    }
  };
  auto s = std::make_shared<Scratch>();
  const std::size_t MK = static_cast<std::size_t>(M) * K, KN = static_cast<std::size_t>(K) * N;
  s->a = Scratch::make(MK * sizeof(float));
  s->b = Scratch::make(KN * sizeof(float));
  s->c = Scratch::make(static_cast<std::size_t>(M) * N * sizeof(float));
  if (!s->a || !s->b || !s->c)
    return Status::failure("no host memory for the bank view's replay", "", "recorded_shared_requests");
  float* const A = static_cast<float*>(s->a.get());
  float* const B = static_cast<float*>(s->b.get());
  for (int row = r0; row < r1; ++row)
    std::copy_n(a_.data() + static_cast<std::size_t>(row) * K, K, A + static_cast<std::size_t>(row) * K);
  for (int kk = 0; kk < K; ++kk)
    std::copy(b_.data() + static_cast<std::size_t>(kk) * N + c0, b_.data() + static_cast<std::size_t>(kk) * N + c1,
              B + static_cast<std::size_t>(kk) * N + c0);
  MatmulBuffers bufs;
  bufs.f32 = MatmulArgs{A, B, static_cast<float*>(s->c.get()), M, N, K};
  if (info.precision == Precision::Bf16) {
    const std::size_t ld = static_cast<std::size_t>(bf16_row_pitch(K));
    s->a16 = Scratch::make(static_cast<std::size_t>(M) * ld * sizeof(Bf16));
    s->bt16 = Scratch::make(static_cast<std::size_t>(N) * ld * sizeof(Bf16));
    if (!s->a16 || !s->bt16)
      return Status::failure("no host memory for the bank view's replay", "", "recorded_shared_requests");
    pack_bf16_rows_into(A, K, r0, r1, static_cast<Bf16*>(s->a16.get()));
    pack_bf16_transposed_into(B, K, N, c0, c1, static_cast<Bf16*>(s->bt16.get()));
    bufs.bf16 = Bf16Args{static_cast<Bf16*>(s->a16.get()), static_cast<Bf16*>(s->bt16.get()),
                         static_cast<float*>(s->c.get()), M, N, K, static_cast<int>(ld)};
  }
  const LaunchConfig lc = matmul_launch_config(k, mc, M, N, K);
  const unsigned long long lin = block.x + static_cast<unsigned long long>(lc.grid.x) * block.y;
  return SharedReplay([s, bufs, k = k, mc = mc, M, N, K, block, lin, warp,
                       max_requests]() -> Result<std::vector<SharedRequest>> {
    auto rec = record_shared(k, mc, bufs, M, N, K, {block}, max_requests);
    if (!rec) return rec.status();
    return group_requests((*rec)->warp_lanes(lin, warp));
  });
}

Result<std::vector<SharedRequest>> MatmulLab::modelled_shared_requests(const LaunchRecord& r, Dim3 block, unsigned warp,
                                                                       const SharedModelOptions& options) const {
  const auto what = resolve(r.kernel, r.request);
  if (!what || !ready_) return Status::failure("no matmul launch of the ladder to model", "", "modelled_shared_requests");
  auto lanes = model_shared_lanes(what->first, what->second, spec_.M, spec_.N, spec_.K, block, warp, options);
  if (!lanes) return lanes.status();
  return group_requests(*lanes);
}

std::optional<mapping::SharedTotals> MatmulLab::shared_memory_model(const LaunchRecord& r, std::string* sample) const {
  const auto what = resolve(r.kernel, r.request);
  if (!what || !ready_ || !has_shared_model(what->first)) return std::nullopt;
  auto m = model_shared_launch(what->first, what->second, spec_.M, spec_.N, spec_.K);
  if (!m) return std::nullopt;
  if (sample) *sample = m->sample;
  return m->totals;
}

}  // namespace bs::matmul
