// Sections
//   1. closed-form schemes from recorded owners
//   2. the kernel list
//   3. plan and run of a user kernel (the output copy, owners, who wrote the wrong elements)
//   4. owner, memory accesses, output, fork
#include "labs/custom/user_kernel_lab.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>

#include "labs/custom/shared_recording.hpp"
#include "labs/custom/source_parse.hpp"
#include "labs/custom/wrong_elements.hpp"
#include "mapping/thread_map.hpp"
#include "measured/profile_launch.hpp"

namespace bs::custom {

namespace {

std::string file_name(const std::string& path) {
  return path.empty() ? std::string() : std::filesystem::path(path).filename().string();
}

std::string grid_rule_text(const UserKernel& k) {
  if (k.fixed_blocks_per_sm > 0)
    return "fixed grid: " + std::to_string(k.fixed_blocks_per_sm) + " blocks per SM (the kernel must loop)";
  if (k.grid.kind == GridRule::Kind::Fixed) return "fixed grid " + to_string(k.grid.fixed) + " (the kernel must loop)";
  return k.form.grid_rule();
}

// The CPU simulator replays a GPU launch for its owners only when that costs well under a second
// (on a worker in the window; where findings are not in the background the run waits for it, once
// per launch shape): 2^24 thread-steps (lab::UserProblem's
// replay_work: 2^22 pixels of grayscale, 2^24 multiply-adds of matmul).
constexpr double kReplayWorkCap = 1 << 24;

}  // namespace

// ---------------------------------------------------------------------------------------------
// 1. closed-form schemes
// ---------------------------------------------------------------------------------------------

std::optional<IndexScheme> closed_form_scheme(const LaunchConfig& c, const OwnerMap& owners) {
  const long long w = owners.width, h = owners.height, n = w * h;
  if (n <= 0 || owners.thread.size() != static_cast<std::size_t>(n) || c.block.volume() == 0 || c.grid.volume() == 0)
    return std::nullopt;
  constexpr std::uint32_t nobody = OwnerMap::kNobody;
  const unsigned long long T = c.block.volume();
  const std::uint32_t* id = owners.thread.data();
  // Every element owned by someone, and nobody owning more than it should, is checked by
  // comparing each element's recorded owner with the scheme's.
  auto matches = [&](auto&& want) {  // want(x, y): the owner the scheme gives element (x, y)
    for (long long y = 0; y < h; ++y)
      for (long long x = 0; x < w; ++x)
        if (id[y * w + x] != want(x, y)) return false;
    return true;
  };
  if (c.grid.y == 1 && c.grid.z == 1) {
    // The lecture's 1D: element e belongs to global thread e (when the grid reaches it).
    const unsigned long long G = c.grid.x * T;
    if (matches([&](long long x, long long y) {
          const unsigned long long e = static_cast<unsigned long long>(y * w + x);
          return e < G ? static_cast<std::uint32_t>(e) : nobody;
        }))
      return IndexScheme::flat();
    // A grid-stride loop: element e belongs to thread e mod G.
    if (G < static_cast<unsigned long long>(n) && matches([&](long long x, long long y) {
          return static_cast<std::uint32_t>(static_cast<unsigned long long>(y * w + x) % G);
        })) {
      IndexScheme s = IndexScheme::flat();
      s.grid_stride = true;
      return s;
    }
  }
  if (c.block.z == 1 && c.grid.z == 1) {
    const unsigned long long bx = c.block.x, by = c.block.y;
    // (column, row) of the grid's 2D index -> the thread that has it, or nobody.
    auto thread_at = [&](unsigned long long gx, unsigned long long gy) -> std::uint32_t {
      if (gx >= c.grid.x * bx || gy >= c.grid.y * by) return nobody;
      const unsigned long long block = gx / bx + c.grid.x * (gy / by);
      return static_cast<std::uint32_t>(block * T + gx % bx + bx * (gy % by));
    };
    if (matches([&](long long x, long long y) { return thread_at(x, y); })) return IndexScheme::grid2d();
    if (matches([&](long long x, long long y) { return thread_at(y, x); })) return IndexScheme::grid2d_transposed();
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// 2. the kernel list
// ---------------------------------------------------------------------------------------------

UserKernelLab::UserKernelLab(std::unique_ptr<lab::Lab> inner, std::shared_ptr<UserKernelBook> book)
    : inner_(std::move(inner)), spec_(inner_->user_kernel_spec()), book_(std::move(book)) {}

UserKernelLab::~UserKernelLab() = default;

Target UserKernelLab::target() const { return inner_->backend().kind == BackendKind::Cuda ? Target::Gpu : Target::Cpu; }

const std::vector<lab::KernelInfo>& UserKernelLab::kernels() const {
  const std::uint64_t v = kernels_version();
  if (v == kernels_version_ && !kernels_.empty()) return kernels_;
  kernels_ = inner_->kernels();
  for (const UserKernel& k : book_->kernels()) {
    const lab::UserForm& spec = k.form;
    lab::KernelInfo i;
    i.id = k.id;
    i.label = "custom: " + k.name;
    i.teaches = "Your kernel" +
                (k.origin.empty() ? std::string(", typed in the editor") : ", from " + file_name(k.origin)) + ": " +
                spec.signature() + ", launched with " + grid_rule_text(k) +
                ". Who stores each element is recorded by the CPU simulator; blockscope cannot see your "
                "kernel's loads, so the Memory tab lists no requests for it.";
    i.file = k.origin.empty() ? "(the editor)" : k.origin;
    i.group = KernelGroup::Custom;
    i.style = lab::ConfigStyle::FreeBlock;
    i.block_rank = spec.block_rank;
    i.default_block = k.block;
    i.presets = spec.presets;
    if (std::find(i.presets.begin(), i.presets.end(), k.block) == i.presets.end())
      i.presets.insert(i.presets.begin(), k.block);
    i.grid_rule = grid_rule_text(k);
    i.fixed_grid_allowed = true;
    i.uses_barriers = k.uses_barriers;
    kernels_.push_back(std::move(i));
  }
  kernels_version_ = v;
  return kernels_;
}

std::string UserKernelLab::template_for(std::string_view kernel) const {
  if (is_user_kernel_id(kernel)) return {};
  return spec_->template_for(kernel);
}

const lab::UserForm* UserKernelLab::form_of(std::string_view source) const {
  const ParseResult parsed = parse_kernel_source(source, spec_->forms());
  return parsed.ok() ? spec_->find_form(parsed.kernel->form.id) : nullptr;
}

std::string UserKernelLab::problem_key() const {
  std::string key = std::to_string(spec_->generation(*inner_));
  for (const auto& [k, v] : inner_->setting_values()) key += "|" + k + "=" + v;
  return key;
}

Result<Problem> UserKernelLab::user_problem(const lab::UserForm& form) {
  if (std::string key = problem_key(); key != problem_key_) {
    problems_.clear();
    derived_.clear();
    problem_key_ = std::move(key);
  }
  if (auto it = problems_.find(form.id); it != problems_.end()) return it->second;
  auto packed = spec_->pack(*inner_, form);
  if (!packed) return packed.status();
  auto p = Problem::create(std::move(packed.value()));
  if (!p) return p.status();
  problems_.emplace(form.id, *p);
  return p;
}

// ---------------------------------------------------------------------------------------------
// 3. plan and run
// ---------------------------------------------------------------------------------------------

LaunchRecord UserKernelLab::base_record(std::string_view kernel, const KernelConfig& config) const {
  LaunchRecord rec;
  // The problem's spelling is the wrapped lab's own, so timings, runs and exports put user
  // kernels beside the built-in ones on the same data.
  const auto& own = inner_->kernels();
  if (!own.empty()) rec = inner_->plan(own.front().id, inner_->default_config(own.front()));
  LaunchRecord out;
  out.lab = std::string(id());
  out.kernel = std::string(kernel);
  out.request = config;
  out.backend = inner_->backend().kind;
  out.problem = rec.problem;
  out.settings = setting_values();
  out.data_width = rec.data_width;
  out.data_height = rec.data_height;
  out.scheme = IndexScheme::recorded();
  return out;
}

LaunchRecord UserKernelLab::plan_user(const UserKernel& k, const KernelConfig& config,
                                      std::shared_ptr<CustomKernel>* build_out, std::optional<Problem>* problem_out) {
  LaunchRecord rec = base_record(k.id, config);
  rec.config_label = "block " + block_text(config.block);
  auto fail = [&](Status s, bool refused) {
    rec.status = std::move(s);
    rec.refused = refused;
    return rec;
  };
  const lab::ProblemInfo info = inner_->problem();
  if (!info.ready) return fail(info.status, true);
  auto problem = user_problem(k.form);  // no data, or the lab's settings rule the form out
  if (!problem) return fail(problem.status(), true);
  auto build = book_->build(k.id, target());
  if (!build) return fail(build.status(), false);  // a compile error is a failure, not a refusal
  const CompiledInfo& ci = (*build)->info();
  RunRequest req;
  req.block = config.block;
  req.grid = config.fixed_grid() ? GridRule::fixed_grid(config.grid) : launch_grid(k, ci.limits.sm_count);
  auto grid = (*build)->grid_for(*problem, req);
  if (!grid) return fail(grid.status(), true);
  rec.config.grid = *grid;
  rec.config.block = config.block;
  rec.config_label = "block " + block_text(config.block) + ", grid " + block_text(*grid) +
                     (req.grid.kind == GridRule::Kind::Fixed ? " (fixed)" : "");
  rec.attributes = ci.attributes;
  rec.attributes_measured = ci.attributes_measured;
  // The lab's own counts (its spec packs the ones plan() gives its built-in kernels).
  rec.bytes_moved = problem->spec().bytes_moved;
  rec.bytes_note = problem->spec().bytes_note;
  rec.flops = problem->spec().flops;
  if (Status s = validate_launch(rec.config, ci.limits, ci.attributes_measured ? &ci.attributes : nullptr); !s)
    return fail(s, true);
  if (build_out) *build_out = *build;
  if (problem_out) *problem_out = *problem;
  return rec;
}

LaunchRecord UserKernelLab::plan(std::string_view kernel, const KernelConfig& config) {
  if (!is_user_kernel_id(kernel)) return inner_->plan(kernel, config);
  const auto k = book_->find(kernel);
  if (!k) {
    LaunchRecord rec = base_record(kernel, config);
    rec.status = Status::failure("there is no user kernel '" + std::string(kernel) + "'",
                                 "open or write it in the kernel editor (Edit kernel)", "UserKernelLab::plan");
    return rec;
  }
  return plan_user(*k, config, nullptr, nullptr);
}

std::optional<CpuFindings> UserKernelLab::cpu_findings(const UserKernel& k, const Problem& problem,
                                                       const LaunchConfig& launched, const RunRequest& gpu_request) {
  const std::string key = std::to_string(std::hash<std::string>{}(k.source)) + "|" + block_text(launched.block) + "|" +
                          block_text(launched.grid) + "|" + problem_key_;
  take_findings();  // those that arrived meanwhile
  if (auto it = derived_.find(key); it != derived_.end()) return it->second;
  if (problem.spec().replay_work > kReplayWorkCap) {
    CpuFindings d;
    d.note = "the data is too large to replay on the CPU simulator for owners";
    return derived_[key] = d;
  }
  // Copies of what it reads: the job may run on the worker while this lab goes on.
  auto job = [book = book_, k, problem, launched, workers = gpu_request.workers, limit = book_->time_limit_s()] {
    return find_on_cpu(*book, k, problem, launched, workers, limit);
  };
  if (!findings_in_background_) return derived_[key] = job();
  if (!findings_worker_) findings_worker_ = std::make_unique<CpuFindingsWorker>();
  findings_worker_->submit(key, std::move(job));
  return std::nullopt;
}

std::size_t UserKernelLab::take_findings() {
  if (!findings_worker_) return 0;
  auto arrived = findings_worker_->take();
  for (auto& [key, found] : arrived) derived_[key] = std::move(found);
  return arrived.size();
}

std::size_t UserKernelLab::wait_for_findings() {
  if (findings_worker_) findings_worker_->wait_idle();
  return take_findings();
}

std::optional<Result<LineProfile>> UserKernelLab::profile_lines_elsewhere(std::string_view kernel,
                                                                          const KernelConfig& config,
                                                                          const LineSampling& sampling) {
  if (!is_user_kernel_id(kernel)) return inner_->profile_lines_elsewhere(kernel, config, sampling);
  const auto k = book_->find(kernel);
  if (!k) return Result<LineProfile>(plan(kernel, config).status);
  std::shared_ptr<CustomKernel> build;
  std::optional<Problem> problem;
  LaunchRecord planned = plan_user(*k, config, &build, &problem);
  if (!planned.ok()) return Result<LineProfile>(planned.status);
  RunRequest req;
  req.block = config.block;
  req.grid = GridRule::fixed_grid(planned.config.grid);
  req.time_limit_s = book_->time_limit_s();
  req.workers = inner_->backend().sim_workers;
  req.sample_lines = &sampling;
  RunOutcome out = build->run(*problem, req);
  if (!out.record.lines) return Result<LineProfile>(out.record.status);
  LineProfile p = *out.record.lines;
  p.kernel = planned.kernel;
  if (!p.ok()) return Result<LineProfile>(p.status);
  return Result<LineProfile>(std::move(p));
}

std::optional<Result<lab::Lab::CountersElsewhere>> UserKernelLab::profile_counters_elsewhere(
    std::string_view kernel, const KernelConfig& config, const CounterRequest& request) {
  using R = Result<CountersElsewhere>;
  if (!is_user_kernel_id(kernel)) return inner_->profile_counters_elsewhere(kernel, config, request);
  const auto k = book_->find(kernel);
  if (!k) return R(plan(kernel, config).status);
  std::shared_ptr<CustomKernel> build;
  std::optional<Problem> problem;
  LaunchRecord planned = plan_user(*k, config, &build, &problem);
  if (!planned.ok()) return R(planned.status);
  RunRequest req;
  req.block = config.block;
  req.grid = GridRule::fixed_grid(planned.config.grid);  // what plan computed, rule or fixed
  req.time_limit_s = book_->time_limit_s();
  req.workers = inner_->backend().sim_workers;
  auto m = build->profile_counters(*problem, req, request);
  if (!m) return R(m.status());
  CountersElsewhere out;
  out.counters = measured::from_measurement(*m);
  out.launch = std::move(planned);
  return R(std::move(out));
}

std::optional<Result<lab::Lab::SharedRequests>> UserKernelLab::recorded_shared_requests_elsewhere(
    const LaunchRecord& launch, Dim3 block, unsigned warp, unsigned max_requests) {
  using R = Result<SharedRequests>;
  if (!is_user_kernel_id(launch.kernel))
    return inner_->recorded_shared_requests_elsewhere(launch, block, warp, max_requests);
  const auto k = book_->find(launch.kernel);
  if (!k) return R(Status::failure("there is no user kernel '" + launch.kernel + "'", "", "record_shared"));
  auto problem = user_problem(k->form);
  if (!problem) return R(problem.status());
  // Recorded on the CPU simulator whatever the backend: the same source, the launch's own grid.
  auto cpu = book_->build(k->id, Target::Cpu);
  if (!cpu)
    return R(Status::failure("the CPU build (which records shared memory) failed: " + cpu.status().message,
                             cpu.status().hint, "record_shared"));
  RunRequest req;
  req.block = launch.config.block;
  req.grid = GridRule::fixed_grid(launch.config.grid);
  req.time_limit_s = book_->time_limit_s();
  auto got = (*cpu)->record_shared(*problem, req, block, warp, max_requests);
  if (!got) return R(got.status());
  SharedRequests out;
  out.requests = std::move(got->requests);
  out.variables = std::move(got->variables);
  out.truncated = got->truncated;
  out.note = std::move(got->note);
  return R(std::move(out));
}

LaunchRecord UserKernelLab::run(std::string_view kernel, const KernelConfig& config, const lab::RunOptions& options) {
  if (!is_user_kernel_id(kernel)) {
    last_was_user_ = false;
    return inner_->run(kernel, config, options);
  }
  const auto k = book_->find(kernel);
  if (!k) {
    LaunchRecord rec = plan(kernel, config);
    rec.refused = true;
    return rec;
  }
  std::shared_ptr<CustomKernel> build;
  std::optional<Problem> problem;
  LaunchRecord planned = plan_user(*k, config, &build, &problem);
  if (!planned.ok()) return planned;
  RunRequest req;
  req.block = config.block;
  req.grid = GridRule::fixed_grid(planned.config.grid);  // what plan computed, rule or fixed
  req.timing = options.timing;                           // the lab's one timing policy, applied by lab::measure
  req.cancel = options.cancel;
  req.trace = options.trace_schedule;
  req.record_owners = true;
  req.verify = options.verify;
  req.time_limit_s = book_->time_limit_s();
  req.workers = inner_->backend().sim_workers;
  RunOutcome out = build->run(*problem, req);
  LaunchRecord rec = std::move(out.record);
  rec.lab = planned.lab;
  rec.kernel = planned.kernel;
  rec.request = config;
  rec.problem = planned.problem;
  rec.settings = planned.settings;
  rec.config_label = planned.config_label;
  rec.bytes_moved = planned.bytes_moved;
  rec.bytes_note = planned.bytes_note;
  rec.flops = planned.flops;
  rec.scheme = IndexScheme::recorded();
  // A GPU fault here is the runner's (Status::owner is Child): the shell keeps its own context.
  if (!rec.ok()) return rec;

  // Who stores what.
  if (rec.owners) {
    auto s = closed_form_scheme(rec.config, *rec.owners);
    if (s) rec.scheme = *s;
    owners_note_ = s ? "recorded by the CPU simulator: " + describe(*s)
                     : "recorded by the CPU simulator: no closed-form mapping, the inspector reads the record";
  } else if (target() == Target::Gpu) {
    const std::optional<CpuFindings> d = cpu_findings(*k, *problem, rec.config, req);
    if (!d) {
      owners_note_ =
          "being recorded: the CPU simulator is building the same source and replaying this launch (the "
          "mapping, and any out-of-bounds access the GPU did not fault on, arrive when it is done)";
    } else {
      if (d->scheme) rec.scheme = *d->scheme;
      owners_note_ = d->note;
      if (d->out_of_bounds) {
        // The GPU finished (a small overrun does not fault), but the kernel is wrong: say where.
        rec.status = Status::failure(
            "out-of-bounds (found by replaying this launch on the CPU simulator): " + d->out_of_bounds->describe(),
            "the GPU did not fault: the stray access landed in memory nothing checks. Check the kernel's guard "
            "(i < n, not i <= n) and its index arithmetic",
            "run", "out_of_bounds");
        return rec;
      }
    }
  }
  // The first wrong element and the thread that stored it.
  if (rec.check.failed() && !out.wrong.empty()) {
    WrongElement w = out.wrong.front();
    const std::string& element = k->form.element;
    std::string note = "first wrong " + describe_wrong(w, element);
    if (!w.owner_known && rec.scheme.kind != IndexScheme::Kind::Recorded) {
      // GPU: the mapping the CPU simulator recorded for the same source names the thread.
      note = "first wrong " + element + " (" + std::to_string(w.x) + ", " + std::to_string(w.y) + ")";
      if (auto o = mapping::thread_for_pixel(rec.scheme, rec.config, rec.data_width, rec.data_height, w.x, w.y))
        note += ": by the mapping the CPU simulator recorded, thread " + to_string(o->thread) + " of block " +
                to_string(o->block) + " stores it";
      else note += ": no thread of this mapping stores it";
    }
    rec.check.note = rec.check.note.empty() ? note : note + "; " + rec.check.note;
  }
  last_output_ = std::move(out.output);
  last_was_user_ = true;
  if (options.output)
    if (Status s = copy_output(last_output_, options.output); !s) rec.status = s;
  return rec;
}

Status UserKernelLab::copy_output(const std::vector<std::uint8_t>& bytes, void* output) const {
  const std::size_t want = inner_->output_bytes();
  if (bytes.size() != want)
    return Status::failure(
        "the kernel's output has " + std::to_string(bytes.size()) + " bytes, the view expects " + std::to_string(want),
        "", "UserKernelLab::run");
  return copy_to_output(output, bytes.data(), bytes.size(), inner_->backend().kind);
}

// ---------------------------------------------------------------------------------------------
// 4. owner, memory accesses, output, fork
// ---------------------------------------------------------------------------------------------

std::optional<mapping::ElementOwner> UserKernelLab::owner(const LaunchRecord& r, long long x, long long y) const {
  if (!is_user_kernel_id(r.kernel)) return inner_->owner(r, x, y);
  if (r.scheme.kind != IndexScheme::Kind::Recorded)
    return mapping::owner_of(r.scheme, r.config, r.data_width, r.data_height, x, y);
  if (!r.owners || x < 0 || y < 0 || x >= r.owners->width || y >= r.owners->height) return std::nullopt;
  const long long w = r.owners->width;
  const std::uint32_t id = r.owners->thread[static_cast<std::size_t>(y * w + x)];
  if (id == OwnerMap::kNobody) return std::nullopt;
  Dim3 block, thread;
  split_thread_id(id, r.config.grid, r.config.block, block, thread);
  auto t = mapping::describe_thread(r.scheme, r.config, r.data_width, r.data_height, block, thread);
  if (!t) return std::nullopt;
  mapping::ElementOwner o;
  o.thread = *t;
  o.thread.in_range = true;
  o.thread.x = x;
  o.thread.y = y;
  o.thread.flat_index = y * w + x;
  // Everything else it stores, as row runs (a scan of the recorded owners).
  const auto& ids = r.owners->thread;
  for (long long row = 0; row < r.owners->height && o.owns.size() < 4096; ++row) {
    long long run_start = -1;
    for (long long col = 0; col <= w; ++col) {
      const bool mine = col < w && ids[static_cast<std::size_t>(row * w + col)] == id;
      if (mine && run_start < 0) run_start = col;
      if (!mine && run_start >= 0) {
        o.owns.push_back({run_start, row, col - run_start, 1});
        run_start = -1;
      }
    }
  }
  return o;
}

std::vector<mapping::WarpAccess> UserKernelLab::warp_accesses(const LaunchRecord& r, Dim3 block, unsigned warp,
                                                              int step) const {
  if (is_user_kernel_id(r.kernel)) return {};  // blockscope cannot see a user kernel's loads
  return inner_->warp_accesses(r, block, warp, step);
}

Status UserKernelLab::download_output(void* host) {
  if (!last_was_user_) return inner_->download_output(host);
  if (last_output_.size() != inner_->output_bytes())
    return Status::failure("no result of this kernel on the current data", "", "download_output");
  std::copy(last_output_.begin(), last_output_.end(), static_cast<std::uint8_t*>(host));
  return Status::success();
}

Result<std::unique_ptr<lab::Lab>> UserKernelLab::fork() const {
  auto inner = inner_->fork();
  if (!inner) return inner.status();
  auto copy = std::make_unique<UserKernelLab>(std::move(inner.value()), book_->snapshot());
  if (!problems_.empty() && problem_key() == problem_key_) {
    // The fork has the same data: it shares these copies of it (one memfd each, mapped by each
    // runner) instead of making others.
    copy->problems_ = problems_;
    copy->problem_key_ = copy->problem_key();
  }
  return std::unique_ptr<lab::Lab>(std::move(copy));
}

std::unique_ptr<lab::Lab> with_user_kernels(std::unique_ptr<lab::Lab> inner, std::shared_ptr<UserKernelBook> book) {
  if (!inner || !inner->user_kernel_spec()) return inner;
  return std::make_unique<UserKernelLab>(std::move(inner), std::move(book));
}

UserLabs user_labs_of(const lab::Catalog& catalog) {
  UserLabs labs;
  for (const lab::CatalogEntry& e : catalog)
    if (e.user_kernels) labs.labs.push_back(UserLab{e.id, e.title, e.user_kernels});
  return labs;
}

lab::Catalog with_user_kernels(lab::Catalog catalog, std::shared_ptr<Engine> engine) {
  auto labs = std::make_shared<const UserLabs>(user_labs_of(catalog));
  for (lab::CatalogEntry& e : catalog) {
    if (!e.user_kernels) continue;
    auto book = std::make_shared<UserKernelBook>(engine, labs);
    e.create = [create = std::move(e.create), book](const lab::Backend& b) -> Result<std::unique_ptr<lab::Lab>> {
      auto l = create(b);
      if (!l) return l.status();
      return with_user_kernels(std::move(l.value()), book);
    };
  }
  return catalog;
}

}  // namespace bs::custom
