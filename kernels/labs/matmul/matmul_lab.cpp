// The matmul lab's backend-neutral half: the kernel list (the ladder and, on the GPU, cuBLAS as
// the library anchor), the matrices, planning a launch (configuration, grid, refusals, scheme,
// FLOPs) and running it through the engine with the one timing policy and the tolerance check.
#include "labs/matmul/matmul_lab.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
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

// The library anchors of a precision: id, label, note, file, group, which library call, the
// label of its one configuration, and whether a ceiling bounds the other kernels (their %ceil).
struct Anchor {
  const char* id;
  const char* label;
  const char* teaches;
  const char* file;
  KernelGroup group;
  Library library;
  const char* config = "cuBLAS's own choice";
  bool bounds_others = true;
};
// The cuBLASLt ceilings: a run's record names the algorithm kept in its configuration label
// (MatmulLab::run); they are comparisons, not bounds: %ceil stays the hardware's peak, and
// %lib stays cuBLAS's anchor (a ceiling is no library kernel).
constexpr const char* kLtConfig = "best of cuBLASLt's heuristic candidates";
constexpr const char* kLtTeaches =
    " cuBLASLt's heuristic (cublasLtMatmulAlgoGetHeuristic) proposes up to 8 algorithms for "
    "this problem; on the first run each is timed here (interleaved rounds, each launch after an "
    "L2 flush, the median of each) and the fastest "
    "is kept for the problem: what 'beats cuBLAS' has to beat. The record's configuration names "
    "it (algo id, tile, stages, split-K, swizzle, cluster)";
const std::vector<Anchor>& anchors(Precision p) {
  static const std::string lt_sgemm_teaches =
      std::string(
          "the same FP32 product as cuBLAS SGEMM, full FP32 (CUBLAS_COMPUTE_32F_PEDANTIC: no "
          "TF32, no tensor cores).") +
      kLtTeaches;
  static const std::string lt_bf16_teaches =
      std::string("the same BF16 product as cuBLAS BF16 (BF16 A and B, FP32 accumulation and C).") + kLtTeaches;
  static const std::vector<Anchor> fp32 = {
      {kCublasId, "cuBLAS SGEMM (the library)",
       "NVIDIA's FP32 GEMM with tensor cores off: the anchor the ladder is measured against; its grid "
       "is cuBLAS's own, so there is nothing of ours to draw",
       "cublasSgemm (CUBLAS_DEFAULT_MATH)", KernelGroup::Library, Library::Sgemm},
      {kCublasLtSgemmId, "cuBLASLt SGEMM, best of N (ceiling)", lt_sgemm_teaches.c_str(),
       "cublasLtMatmul (CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC), best of cublasLtMatmulAlgoGetHeuristic's",
       KernelGroup::Ceiling, Library::LtSgemm, kLtConfig, false}};
  static const std::vector<Anchor> bf16 = {
      {kCublasBf16Id, "cuBLAS BF16 (the library)",
       "NVIDIA's GEMM on the same BF16 matrices, FP32 accumulation and output: the anchor the "
       "tensor-core ladder is measured against",
       "cublasGemmEx (CUDA_R_16BF in, CUDA_R_32F out, CUBLAS_COMPUTE_32F)", KernelGroup::Library, Library::Bf16},
      {kCublasLtBf16Id, "cuBLASLt BF16, best of N (ceiling)", lt_bf16_teaches.c_str(),
       "cublasLtMatmul (CUDA_R_16BF in, CUDA_R_32F out, CUBLAS_COMPUTE_32F), best of "
       "cublasLtMatmulAlgoGetHeuristic's",
       KernelGroup::Ceiling, Library::LtBf16, kLtConfig, false},
      {kCublasTf32Id, "cuBLAS TF32 (ceiling)",
       "the tensor cores' reduced-precision FP32 mode on the FP32 copies: what FP32 data gets from "
       "tensor cores",
       "cublasGemmEx (CUBLAS_COMPUTE_32F_FAST_TF32)", KernelGroup::Ceiling, Library::Tf32, "cuBLAS's own choice",
       false},
      {kCublasSgemmCeilingId, "cuBLAS SGEMM (ceiling)",
       "FP32 on the FP32 lanes, tensor cores off: what the FP32 ladder reaches at best",
       "cublasSgemm (CUBLAS_DEFAULT_MATH)", KernelGroup::Ceiling, Library::Sgemm, "cuBLAS's own choice", false}};
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
      c.configs.push_back({a.config, Dim3{0, 0, 0}});
      c.timed_only = true;
      // The FP32 cuBLAS runs beside the BF16 ladder are comparisons: BF16 kernels beat them; so
      // are the cuBLASLt ceilings (a speed to reach, not a bound).
      c.bounds_others = a.bounds_others;
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
  std::snprintf(buf, sizeof buf, "max abs error %.3g; tolerance per element %s", v.max_abs, v.tolerance.c_str());
  c.note = buf;
  c.state = v.checked == 0 ? Check::State::NotChecked : (v.passed ? Check::State::Passed : Check::State::Failed);
  return c;
}

struct MatmulLab::FragmentCache {
  std::mutex mutex;  // guards `entries` (and one recording at a time)
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
  p.help =
      "fp32: the FP32 ladder on the FP32 lanes; bf16: the tensor-core ladder, A and B "
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
  p.summary = "C (" + std::to_string(spec_.M) + " x " + std::to_string(spec_.N) + ") = A (" + std::to_string(spec_.M) +
              " x " + std::to_string(spec_.K) + ", " + to_string(spec_.a) + ") * B (" + std::to_string(spec_.K) +
              " x " + std::to_string(spec_.N) + ", " + to_string(spec_.b) + "), seed " + std::to_string(spec_.seed) +
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
    p.ceilings.push_back({bf16 ? "BF16 tensor-core peak" : "FP32 peak", peak_gflops_, ThroughputUnit::GflopPerS,
                          peak_note_, for_problem});
  if (backend_.kind == BackendKind::Cuda && reference_ms_ > 0) {
    // cuBLAS does not say which algorithm it ran: the note names cuBLASLt's first choice.
    const std::string named = engine_->library_note(bf16 ? Library::Bf16 : Library::Sgemm);
    p.ceilings.push_back({bf16 ? "cuBLAS BF16" : "cuBLAS SGEMM", flops / (reference_ms_ * 1e6),
                          ThroughputUnit::GflopPerS,
                          reference_note_ + " timed when it made the reference: median " +
                              std::to_string(reference_ms_) + " ms" + (named.empty() ? "" : "; " + named),
                          for_problem});
  }
  return p;
}

std::optional<std::pair<MatmulKernel, MatmulConfig>> MatmulLab::resolve(std::string_view kernel,
                                                                        const KernelConfig& config) const {
  const MatmulKernelInfo* info = find_matmul_kernel(kernel);
  if (!info) return std::nullopt;
  if (free_block(info->kernel)) return std::pair{info->kernel, make_block_config(info->kernel, config.block)};
  if (config.compiled < 0 || config.compiled >= static_cast<int>(info->configs.size())) return std::nullopt;
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
  if (const Anchor* anchor = find_anchor(precision_, kernel); anchor && engine_->has_library()) {
    rec.config_label = anchor->config;
    rec.scheme = IndexScheme::tiled(0, 0);
    return rec;
  }
  const MatmulKernelInfo* info = find_matmul_kernel(kernel);
  if (info && info->precision != precision_) {
    rec.status = Status::failure(info->id + " multiplies " + (info->precision == Precision::Bf16 ? "BF16" : "FP32") +
                                     " matrices; the problem is " + to_string(precision_),
                                 std::string("pick a kernel of the ") + to_string(precision_) +
                                     " list, or set precision=" + to_string(info->precision) + " to run it",
                                 "MatmulLab::plan");
    return rec;
  }
  if (!info) {
    rec.status = Status::failure("the matmul lab has no kernel '" + std::string(kernel) + "'",
                                 "pick one of the kernel list", "MatmulLab::plan");
    return rec;
  }
  if (!free_block(info->kernel) && (config.compiled < 0 || config.compiled >= static_cast<int>(info->configs.size()))) {
    rec.status = Status::failure(info->id + " has no configuration " + std::to_string(config.compiled) +
                                     " (it lists 0.." + std::to_string(info->configs.size() - 1) + ")",
                                 "pick one of its compiled configurations", "check_matmul_config");
    return rec;
  }
  const auto [k, mc] = *resolve(kernel, config);
  rec.config_label = mc.label;
  rec.config = matmul_launch_config(k, mc, spec_.M, spec_.N, spec_.K);
  rec.scheme = matmul_scheme(k, mc);
  if (config.fixed_grid()) {
    rec.status = Status::failure(
        "the ladder's kernels compute their grid from M and N; a fixed "
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
  if (rec.attributes_measured) rec.status = validate_launch(rec.config, backend_.limits, &rec.attributes);
  return rec;
}

LaunchRecord MatmulLab::run(std::string_view kernel, const KernelConfig& config, const lab::RunOptions& options) {
  LaunchRecord rec = plan(kernel, config);
  float* out = options.output ? static_cast<float*>(options.output) : engine_->own_output();
  const Anchor* anchor = find_anchor(precision_, kernel);
  const auto what = anchor ? std::nullopt : resolve(kernel, config);
  const LaunchConfig launch = rec.config;
  // A simulated launch stops between blocks once the run is cancelled (its traced one too).
  const sim::CancelScope<MatmulEngine> cancellable(engine_.get(), options.cancel);
  lab::RunSteps steps;
  steps.clock = engine_->clock();
  steps.simulated = engine_->simulated();
  steps.launch = [&]() -> Result<double> {
    if (anchor) return engine_->library_timed(anchor->library, out);
    return engine_->launch_timed(what->first, what->second, launch, out);
  };
  steps.flush_l2 = [&] { return engine_->flush_l2(); };
  if (!anchor) steps.traced = [&] { return engine_->launch_traced(what->first, what->second, launch, out); };
  steps.verify = [&] { return check_run_output(options, out); };
  LaunchRecord ran = lab::run_planned(std::move(rec), options, steps);
  // A cuBLASLt ceiling's configuration is the algorithm its search kept (made by the first
  // launch above, kept for this problem): the record names it.
  if (anchor && ran.ok() && (anchor->library == Library::LtSgemm || anchor->library == Library::LtBf16))
    if (auto search = engine_->lt_search(anchor->library)) ran.config_label = lt_search_label(*search);
  return ran;
}

// The lab's own output buffer may be passed explicitly (the view does, so a kernel of a wrapping
// lab writes where the heatmaps read): it is downloaded; on the CPU another buffer is read where
// the run wrote it; another GPU buffer cannot be checked.
Check MatmulLab::check_run_output(const lab::RunOptions& options, const float* out) {
  std::vector<float> got(static_cast<std::size_t>(spec_.M) * spec_.N);
  Status s = Status::success();
  const bool own = !options.output || options.output == engine_->own_output();
  if (options.output && !own && backend_.kind == BackendKind::CpuSimulation)
    std::copy(out, out + got.size(), got.begin());
  else if (own) s = engine_->download(got.data());
  else s = Status::failure("cannot verify an external GPU output buffer", "", "MatmulLab::run");
  Check check;
  if (!s) {
    check.note = s.describe();
    return check;
  }
  check = check_against_reference(got.data());
  if (precision_ == Precision::Bf16)
    check.note +=
        "; both sides multiply the same BF16 numbers, so the inputs' rounding "
        "(up to 2^-9 relative each) cancels and what remains is FP32 accumulation";
  return check;
}

std::size_t MatmulLab::output_bytes() const { return static_cast<std::size_t>(spec_.M) * spec_.N * sizeof(float); }

Status MatmulLab::download_output(void* host) {
  if (!ready_) return status_;
  return engine_->download(static_cast<float*>(host));
}

std::optional<mapping::ElementOwner> MatmulLab::owner(const LaunchRecord& r, long long x, long long y) const {
  const auto what = resolve(r.kernel, r.request);
  if (!what || !ready_) return std::nullopt;
  auto o =
      element_owner(what->first, what->second, spec_.M, spec_.N, static_cast<int>(y), static_cast<int>(x), &r.config);
  if (!o) return std::nullopt;
  mapping::ElementOwner out;
  auto t = mapping::describe_thread(r.scheme, r.config, r.data_width, r.data_height, o->block, o->thread);
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
  if (o->warp_tile.rows > 0) out.warp_tile = {o->warp_tile.col, o->warp_tile.row, o->warp_tile.cols, o->warp_tile.rows};
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
    return Status::failure("'" + std::string(size) + "' is not a matmul size MxNxK or N (e.g. 4096x4096x4096)", "",
                           "size");
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
    return fail(Status::failure(size_text(spec) + " is " + buf +
                                    " multiply-adds, above the CPU simulator's cap of "
                                    "2^27 = 134217728 per launch",
                                "the simulator runs every thread's code one by one: stay at or below 512^3 (or "
                                "1024 x 1024 x 128, the MNIST layer 10000 x 10 x 784, ...), or use the CUDA backend",
                                "check_matmul_sizes"));
  }
  // Host memory: A, B, the reference and a host copy of C.
  const double host_bytes =
      4.0 * (static_cast<double>(spec.M) * spec.K + static_cast<double>(spec.K) * spec.N + 2.0 * spec.M * spec.N);
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
    return fail(Status::failure("not enough host memory for A and B", "choose smaller sizes", "generate_matrix"));
  }
  fill_matrix(a.data(), spec.M, spec.K, spec.a, spec.seed);
  fill_matrix(b.data(), spec.K, spec.N, spec.b, spec.seed + 1);
  if (precision_ == Precision::Bf16) round_to_bf16(a), round_to_bf16(b);
  made.end("generate on the host");
  if (Status s = engine_->set_matrices(a, b, spec.M, spec.N, spec.K, precision_); !s) return fail(s);
  made.end("upload");
  a_ = std::move(a);
  b_ = std::move(b);
  if (Status s = engine_->reference(reference_, &reference_ms_, &reference_note_); !s) return fail(s);
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
float* MatmulLab::device_output() { return backend_.kind == BackendKind::Cuda ? engine_->own_output() : nullptr; }

Check MatmulLab::check_against_reference(const float* c) const {
  Check check = to_check(verify(c, reference_.data(), spec_.M, spec_.N, scale_));
  check.against = reference_note_;
  return check;
}

}  // namespace bs::matmul
