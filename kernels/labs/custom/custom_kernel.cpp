// Sections
//   1. The engine's shared state: options, spare runners, the host compiler
//   2. Engine: available_compilers, compile: the signature, then the kernel's CPU or GPU build
//   3. CustomKernel::run: runner and problem; the record's plan; the launches, timed with
//      lab::measure; the observing launch; the output and its check
#include "labs/custom/custom_kernel.hpp"

#include <algorithm>
#include <sys/mman.h>
#include <unistd.h>

#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "labs/custom/codegen.hpp"
#include "labs/custom/counters_wire.hpp"
#include "toolchain/host_compiler.hpp"
#include "labs/custom/line_counts.hpp"
#include "labs/custom/shared_recording.hpp"
#include "labs/custom/runner_client.hpp"
#include "labs/custom/source_parse.hpp"
#include "labs/custom/wrong_elements.hpp"
#include "lab/measure.hpp"
#include "simulator/grid_simulator.hpp"
#include "trace/trace_record.hpp"

namespace bs::custom {

const char* to_string(Target t) { return t == Target::Gpu ? "GPU" : "CPU simulator"; }

namespace {

// The launch shape every request to the runner carries (a run, a shared-memory recording, a
// counter profile).
wire::LaunchHead launch_head(Dim3 grid, Dim3 block, unsigned workers) {
  wire::LaunchHead h;
  h.grid[0] = grid.x, h.grid[1] = grid.y, h.grid[2] = grid.z;
  h.block[0] = block.x, h.block[1] = block.y, h.block[2] = block.z;
  h.workers = workers;
  return h;
}

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", s);
  return buf;
}

wire::Backend backend_of(Target t) { return t == Target::Gpu ? wire::Backend::Gpu : wire::Backend::Cpu; }

DeviceLimits limits_from(const wire::Info& info) {
  if (info.head.backend == wire::Backend::Cpu) return sim::simulator_limits(info.head.hw_threads);
  const wire::InfoHead& h = info.head;
  DeviceLimits l;
  l.name = info.device_name;
  l.compute_major = h.cc_major;
  l.compute_minor = h.cc_minor;
  l.max_threads_per_block = h.max_threads_per_block;
  l.max_block = Dim3{h.max_block[0], h.max_block[1], h.max_block[2]};
  l.max_grid = Dim3{h.max_grid[0], h.max_grid[1], h.max_grid[2]};
  l.warp_size = h.warp_size;
  l.shared_per_block = h.shared_per_block;
  l.shared_per_block_optin = h.shared_per_block_optin;
  l.shared_per_sm = h.shared_per_sm;
  l.reserved_shared_per_block = h.reserved_shared_per_block;
  l.regs_per_block = h.regs_per_block;
  l.regs_per_sm = h.regs_per_sm;
  l.max_threads_per_sm = h.max_threads_per_sm;
  l.max_blocks_per_sm = h.max_blocks_per_sm;
  l.sm_count = h.sm_count;
  l.total_global_bytes = h.total_global_bytes;
  l.clock_khz = h.clock_khz;
  l.memory_clock_khz = h.memory_clock_khz;
  l.memory_bus_bits = h.memory_bus_bits;
  return l;
}

KernelAttributes attributes_from(const wire::Attr& a) {
  KernelAttributes k;
  k.max_threads_per_block = a.max_threads_per_block ? a.max_threads_per_block : 1024;
  k.registers_per_thread = a.registers;
  k.static_shared_bytes = a.static_shared;
  k.local_bytes_per_thread = a.local_bytes;
  k.ptx_version = a.ptx_version;
  k.binary_version = a.binary_version;
  return k;
}

int count_errors(const std::vector<Diagnostic>& ds) {
  return static_cast<int>(std::count_if(ds.begin(), ds.end(), [](const Diagnostic& d) { return d.is_error(); }));
}

// "3 errors compiling for the GPU": a compile that failed, counted from its diagnostics.
Status compile_errors(const std::vector<Diagnostic>& ds, const std::string& target, std::string call) {
  const int errors = count_errors(ds);
  return Status::failure(std::to_string(errors) + (errors == 1 ? " error" : " errors") + " compiling for " + target, "",
                         std::move(call), "compile_error");
}

Status compile_stopped(const std::string& compiler, std::string call, double limit_s) {
  return Status::failure(compiler + " did not finish within " + seconds_text(limit_s) + " s and was stopped", "",
                         std::move(call), "compile_timeout");
}

Diagnostic backend_diagnostic(const Status& s, std::string origin) {
  return {.line = 0, .message = s.message + (s.hint.empty() ? "" : " (" + s.hint + ")"), .origin = std::move(origin)};
}

// A build made once and kept for the kernel's life; its folder is removed with it.
template <class T>
std::shared_ptr<const T> kept_for_life(T&& made, void (*remove)(const T&)) {
  return std::shared_ptr<const T>(new T(std::move(made)), [remove](const T* o) {
    remove(*o);
    delete o;
  });
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// 1. The engine's shared state
// ---------------------------------------------------------------------------------------------

struct EngineState {
  EngineOptions options;
  std::mutex mutex;
  std::unique_ptr<RunnerProcess> spare[2];
  std::optional<toolchain::HostCompiler> host;  // found once; a miss is asked again next time

  Result<std::filesystem::path> runner_path() { return find_runner(options.runner); }

  void start_spare_locked(wire::Backend b) {
    auto& s = spare[static_cast<int>(b)];
    if (s && s->alive()) return;
    s.reset();
    auto path = runner_path();
    if (!path) return;
    auto r = RunnerProcess::start(*path, b, options.cuda_device);
    if (r) s = std::move(*r);
  }

  // A started runner for `b`: the spare when there is one (its CUDA context and NVRTC are already
  // up), else a new one; then the next spare is started.
  Result<std::unique_ptr<RunnerProcess>> take(wire::Backend b) {
    std::lock_guard lock(mutex);
    std::unique_ptr<RunnerProcess> r = std::move(spare[static_cast<int>(b)]);
    if (!r || !r->alive()) {
      r.reset();
      auto path = runner_path();
      if (!path) return path.status();
      auto started = RunnerProcess::start(*path, b, options.cuda_device);
      if (!started) return started.status();
      r = std::move(*started);
    }
    if (options.keep_spare_runners) start_spare_locked(b);
    return r;
  }

  Result<toolchain::HostCompiler> host_compiler() {
    std::lock_guard lock(mutex);
    if (host) return *host;
    auto found = toolchain::find_host_compiler(options.host_compiler);
    if (found) host = *found;
    return found;
  }
};

// ---------------------------------------------------------------------------------------------
// 2. Engine
// ---------------------------------------------------------------------------------------------

Engine::Engine(EngineOptions options) : state_(std::make_shared<EngineState>()) {
  if (options.cache_dir.empty()) options.cache_dir = toolchain::default_cache_dir();
  state_->options = std::move(options);
}

Engine::~Engine() = default;

const EngineOptions& Engine::options() const { return state_->options; }

void Engine::prepare(Target target) {
  std::lock_guard lock(state_->mutex);
  state_->start_spare_locked(backend_of(target));
}

std::vector<CompilerStatus> Engine::available_compilers() {
  std::vector<CompilerStatus> out;
  const auto runner = state_->runner_path();

  CompilerStatus cpu;
  cpu.target = Target::Cpu;
  if (auto hc = state_->host_compiler(); !hc) {
    cpu.message = hc.status().message + " (" + hc.status().hint + ")";
  } else if (!runner) {
    cpu.message = runner.status().message + " (" + runner.status().hint + ")";
  } else {
    cpu.available = true;
    cpu.compiler = hc->version;
  }
  out.push_back(cpu);

  CompilerStatus gpu;
  gpu.target = Target::Gpu;
#if !defined(BLOCKSCOPE_HAS_CUDA)
  gpu.message =
      "this blockscope was built without CUDA (no nvcc when it was configured): rebuild it with "
      "the CUDA toolkit on PATH to compile and run kernels on the GPU";
#else
  if (!runner) {
    gpu.message = runner.status().message + " (" + runner.status().hint + ")";
  } else {
    std::lock_guard lock(state_->mutex);
    state_->start_spare_locked(wire::Backend::Gpu);
    auto& spare = state_->spare[static_cast<int>(wire::Backend::Gpu)];
    auto info = spare ? spare->info(state_->options.start_time_limit_s)
                      : Result<wire::Info>(Status::failure("the GPU runner did not start"));
    if (!info) {
      gpu.message = "the GPU backend cannot start: " + info.status().message;
    } else if (!info->head.cuda_ok) {
      gpu.message = "the GPU backend cannot run kernels: " + info->cuda_message;
    } else if (!info->head.nvrtc_ok) {
      gpu.message = "the GPU backend cannot compile: " + info->nvrtc_message;
    } else {
      gpu.available = true;
      gpu.compiler = "NVRTC " + std::to_string(info->head.nvrtc_major) + "." + std::to_string(info->head.nvrtc_minor) +
                     " for compute capability " + std::to_string(info->head.cc_major) + "." +
                     std::to_string(info->head.cc_minor) + " (" + info->device_name + ")";
    }
  }
#endif
  out.push_back(gpu);
  return out;
}

CompileResult Engine::compile(std::string_view source, std::span<const lab::UserForm> accepted, Target target,
                              const CompileOptions& options) {
  const auto t0 = Clock::now();
  CompileResult res;
  auto finish = [&](Status s) {
    res.status = std::move(s);
    res.ms = ms_since(t0);
    return std::move(res);
  };

  ParseResult parsed = parse_kernel_source(source, accepted, options.kernel_name);
  res.diagnostics = parsed.diagnostics;
  if (!parsed.ok()) {
    const auto first =
        std::find_if(res.diagnostics.begin(), res.diagnostics.end(), [](const Diagnostic& d) { return d.is_error(); });
    return finish(Status::failure(first != res.diagnostics.end() ? first->message : "no kernel the lab can launch", "",
                                  "parse_kernel_source", "signature"));
  }
  const ParsedKernel& pk = *parsed.kernel;

  std::shared_ptr<CustomKernel> k(new CustomKernel());
  k->engine_ = state_;
  k->source_ = std::string(source);
  for (const KernelParam& p : pk.params) k->param_names_.push_back(p.name);
  CompiledInfo& info = k->info_;
  info.name = pk.name;
  info.form = pk.form;
  info.target = target;
  info.line = pk.pos.line;
  info.uses_barriers = pk.uses_barriers;
  info.uses_shared = pk.uses_shared;
  if (Status s = target == Target::Cpu ? k->build_cpu(pk, res) : k->build_gpu(pk, res); !s) return finish(s);
  info.total_ms = ms_since(t0);
  k->diagnostics_ = res.diagnostics;
  res.kernel = std::move(k);
  return finish(Status::success());
}

Result<wire::Info> CustomKernel::take_runner(std::unique_ptr<RunnerProcess>& runner) {
  auto taken = engine_->take(backend_of(info_.target));
  if (!taken) return taken.status();
  auto rinfo = (*taken)->info(engine_->options.start_time_limit_s);
  if (!rinfo) return rinfo.status();
  info_.device = rinfo->device_name;
  info_.limits = limits_from(*rinfo);
  runner = std::move(*taken);
  return rinfo;
}

Result<wire::Loaded> CustomKernel::load_into(RunnerProcess& runner) {
  const bool cpu = info_.target == Target::Cpu;
  wire::Writer w;
  if (cpu) w(so_.string(), static_cast<std::uint32_t>(info_.uses_barriers));
  else w(image_, static_cast<std::uint32_t>(image_is_ptx_));
  auto f = runner.call(cpu ? wire::Msg::LoadCpu : wire::Msg::LoadGpu, w.bytes(), wire::Msg::Loaded,
                       engine_->options.start_time_limit_s);
  if (!f) return f.status();
  wire::Loaded loaded;
  if (!wire::decode(f->payload, loaded)) loaded.head.ok = 0;
  return loaded;
}

Status CustomKernel::build_cpu(const ParsedKernel& pk, CompileResult& res) {
  const EngineOptions& opt = engine_->options;
  auto refused = [&](const Status& s) {
    res.diagnostics.push_back(backend_diagnostic(s, "blockscope"));
    return s;
  };
  auto hc = engine_->host_compiler();
  if (!hc) return refused(hc.status());
  const GeneratedUnit unit = make_cpu_unit(source_, pk);
  if (!unit.refusals.empty()) {
    for (const Diagnostic& d : unit.refusals) res.diagnostics.push_back(d);
    return Status::failure(unit.refusals.front().message, "", "blockscope", "cpu_unsupported");
  }
  auto so =
      toolchain::build_shared_object(*hc, unit.text, opt.cache_dir, opt.cpu_optimisation, opt.compile_time_limit_s);
  if (!so) return refused(so.status());
  for (Diagnostic& d : parse_host_compiler_log(so->log, hc->name, unit.columns, Anchor{pk.pos.line, pk.pos.column}))
    res.diagnostics.push_back(std::move(d));
  info_.compiler = hc->name + " " + opt.cpu_optimisation + " (" + hc->version + ")";
  info_.cache_hit = so->cache_hit;
  info_.compile_ms = so->ms;
  if (!so->ok) {
    if (so->timed_out) return compile_stopped("the host compiler", hc->name, opt.compile_time_limit_s);
    if (!so->exit.exited)
      return Status::failure(hc->name + " crashed: it " + so->exit.describe(), "", hc->name, "compiler_crashed");
    return compile_errors(res.diagnostics, "the CPU simulator", hc->name);
  }
  so_ = so->path;
  cpu_unit_ = unit.text;
  std::unique_ptr<RunnerProcess> runner;
  if (auto rinfo = take_runner(runner); !rinfo) return rinfo.status();
  auto loaded = load_into(*runner);
  if (!loaded) return loaded.status();
  if (!loaded->head.ok)
    return Status::failure(loaded->message.empty() ? "the runner could not load the kernel" : loaded->message, "",
                           "LoadCpu", "load");
  info_.load_ms = loaded->head.load_ms;
  info_.cpu_shared_bytes = loaded->head.tls_bytes;
  // What CUDA would allocate for the kernel's __shared__ variables (the runner reads them from
  // the unit's symbols): the Launch tab's shared / block and its occupancy use it.
  info_.attributes.static_shared_bytes = static_cast<std::size_t>(loaded->head.plain.static_shared);
  runner_ = std::move(runner);
  return Status::success();
}

Status CustomKernel::build_gpu(const ParsedKernel& pk, CompileResult& res) {
  const double limit = engine_->options.compile_time_limit_s;
  auto refused = [&](const Status& s) {
    res.diagnostics.push_back(backend_diagnostic(s, "blockscope"));
    return s;
  };
  std::unique_ptr<RunnerProcess> runner;
  auto rinfo = take_runner(runner);
  if (!rinfo) return rinfo.status();
  if (!rinfo->head.cuda_ok)
    return refused(Status::failure("the GPU backend cannot run kernels: " + rinfo->cuda_message,
                                   "the CPU simulator still compiles and runs it", "cuda", "no_gpu"));
  if (!rinfo->head.nvrtc_ok)
    return refused(Status::failure("the GPU backend cannot compile: " + rinfo->nvrtc_message,
                                   "the built-in kernels and the CPU simulator still work", "nvrtc", "no_nvrtc"));
  const GeneratedUnit unit = make_gpu_unit(source_, pk);
  auto f = runner->call(wire::Msg::CompileGpu, wire::Writer{}(unit.text).bytes(), wire::Msg::Compiled, limit);
  if (!f) {
    if (f.status().code == "timeout") return compile_stopped("NVRTC", "NVRTC", limit);
    return Status::failure("NVRTC crashed: " + f.status().message, "", "NVRTC", "compiler_crashed");
  }
  wire::Compiled c;
  if (!wire::decode(f->payload, c))
    return Status::failure("the GPU runner sent a malformed answer", "", "CompileGpu", "protocol");
  const Anchor anchor{pk.pos.line, pk.pos.column};
  for (Diagnostic& d : parse_nvrtc_log(c.log, anchor)) res.diagnostics.push_back(std::move(d));
  info_.compile_ms = c.head.compile_ms;
  info_.compiler = "NVRTC " + std::to_string(rinfo->head.nvrtc_major) + "." + std::to_string(rinfo->head.nvrtc_minor) +
                   ", " + c.arch;
  if (!c.head.ok) {
    if (count_errors(res.diagnostics) == 0)
      res.diagnostics.push_back({.line = anchor.line,
                                 .column = anchor.column,
                                 .message = c.log.empty() ? "NVRTC failed without a message" : c.log,
                                 .origin = "NVRTC"});
    return compile_errors(res.diagnostics, "the GPU", "NVRTC");
  }
  if (!c.head.loaded) return Status::failure(c.load_message, "", "cudaLibraryLoadData", "load");
  info_.load_ms = c.head.load_ms;
  info_.attributes = attributes_from(c.head.plain);
  info_.traced_attributes = attributes_from(c.head.traced);
  info_.attributes_measured = c.head.plain.valid != 0;
  image_ = std::move(c.image);
  image_is_ptx_ = c.head.is_ptx != 0;
  runner_ = std::move(runner);
  return Status::success();
}

// ---------------------------------------------------------------------------------------------
// 3. CustomKernel::run
// ---------------------------------------------------------------------------------------------

std::string OutOfBoundsReport::describe() const {
  const std::string what = access == "read" ? "read" : access == "write" ? "wrote" : "accessed";
  return "thread " + to_string(thread) + " of block " + to_string(block) + " " + what + " " + buffer + "[" +
         std::to_string(index) + "], but " + buffer + " has " + std::to_string(count) +
         " elements (valid indices 0 to " + std::to_string(count - 1) + ")";
}

CustomKernel::~CustomKernel() {
  runner_.reset();
  if (output_map_) munmap(output_map_, output_bytes_);
  if (output_fd_ >= 0) close(output_fd_);
}

Result<Dim3> CustomKernel::grid_for(const Problem& problem, const RunRequest& request) const {
  if (request.grid.kind == GridRule::Kind::Fixed) {
    const Dim3 g = request.grid.fixed;
    if (request.block.x == 0 || request.block.y == 0 || request.block.z == 0)
      return Status::failure("blockDim " + to_string(request.block) + " has a zero dimension",
                             "every block dimension must be at least 1", "grid_for");
    if (g.x == 0 || g.y == 0 || g.z == 0)
      return Status::failure("the fixed grid " + to_string(g) + " has a zero dimension",
                             "every grid dimension must be at least 1", "grid_for");
    return g;
  }
  return lab::user_grid(info_.form, problem.spec(), request.block);
}

void CustomKernel::drop_runner() {
  runner_.reset();
  problem_.reset();
}

Status CustomKernel::ensure_runner(bool& restarted) {
  if (runner_ && runner_->alive()) return Status::success();
  restarted = true;
  drop_runner();
  auto r = engine_->take(backend_of(info_.target));
  if (!r) return r.status();
  auto loaded = load_into(**r);
  if (!loaded) return loaded.status();
  if (!loaded->head.ok)
    return Status::failure("a fresh runner could not load the kernel: " + loaded->message, "", "Load", "load");
  runner_ = std::move(*r);
  return Status::success();
}

// A runner holding `problem`: a runner that cannot take it is dropped (the next request starts a
// fresh one).
Status CustomKernel::ready_for(const Problem& problem, bool& restarted) {
  if (Status s = ensure_runner(restarted); !s) return s;
  if (Status s = ensure_problem(problem); !s) {
    drop_runner();
    return s;
  }
  return Status::success();
}

Status CustomKernel::ensure_problem(const Problem& problem) {
  const auto& d = problem.data();
  if (problem_ == d) return Status::success();
  problem_.reset();
  const lab::UserProblem& spec = d->spec;
  const lab::UserForm& form = info_.form;
  auto refuse = [&](const std::string& why) {
    return Status::failure("form " + form.id + " cannot take the problem packed for it: " + why,
                           "the lab's user-kernel spec and its forms disagree", "SetProblem");
  };
  const lab::UserParam* out_param = form.output();
  if (!out_param || out_param->elem_size == 0) return refuse("it has no output parameter with an element size");
  // The output region: out, then its owners (one u32 per element).
  const std::size_t out_bytes = static_cast<std::size_t>(spec.output_count) * out_param->elem_size;
  const std::size_t owners_offset = page_align(out_bytes);
  const std::size_t total = owners_offset + page_align(static_cast<std::size_t>(spec.output_count) * 4);
  if (total != output_bytes_) {
    if (output_map_) munmap(output_map_, output_bytes_);
    if (output_fd_ >= 0) close(output_fd_);
    output_map_ = nullptr;
    output_bytes_ = 0;
    output_fd_ = memfd_create("blockscope-output", MFD_CLOEXEC);
    if (output_fd_ < 0 || ftruncate(output_fd_, static_cast<off_t>(total)) != 0)
      return Status::failure("cannot create shared memory for the kernel's output", "", "memfd_create");
    void* p = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_SHARED, output_fd_, 0);
    if (p == MAP_FAILED) return Status::failure("cannot map the kernel's output", "", "mmap");
    output_map_ = static_cast<unsigned char*>(p);
    output_bytes_ = total;
  }
  owners_offset_ = owners_offset;

  wire::SetProblemHead h;
  h.input_bytes = d->bytes;
  h.output_bytes = output_bytes_;
  std::size_t next_input = 0;
  for (const lab::UserParam& fp : form.params) {
    if (fp.role == lab::UserParam::Role::Int) {
      const auto v = spec.size(fp.name);
      if (!v) return refuse("no size '" + fp.name + "'");
      if (*v < INT_MIN || *v > INT_MAX)
        return Status::failure(fp.name + " = " + std::to_string(*v) + " does not fit the kernel's int " + fp.name,
                               "choose a smaller problem", "SetProblem");
      if (h.nints == std::size(h.ints)) return refuse("more than 4 integer parameters");
      h.ints[h.nints++] = static_cast<std::int32_t>(*v);
      continue;
    }
    if (h.nbuffers == std::size(h.buffers)) return refuse("more than 4 pointer parameters");
    if (fp.elem_size == 0) return refuse("parameter " + fp.name + " has no element size");
    wire::BufferDesc& b = h.buffers[h.nbuffers++];
    if (fp.role == lab::UserParam::Role::Output) {
      b.in_output_region = 1;
      b.offset = 0;
      b.count = spec.output_count;
      b.elem_size = fp.elem_size;
      b.is_output = 1;
      b.fill = spec.output_fill;
      b.has_owners = 1;
      b.owners_offset = owners_offset;
    } else {
      if (next_input >= d->inputs.size()) return refuse("no data for input " + fp.name);
      const InputBuffer& in = d->inputs[next_input++];
      if (in.bytes % fp.elem_size != 0) return refuse(fp.name + "'s bytes are not whole elements");
      b.offset = in.offset;
      b.count = static_cast<std::int64_t>(in.bytes / fp.elem_size);
      b.elem_size = fp.elem_size;
    }
  }
  auto f = runner_->call(wire::Msg::SetProblem, wire::Writer{}(h).bytes(), wire::Msg::Ack,
                         engine_->options.start_time_limit_s, {d->memfd, output_fd_});
  if (!f) return f.status();
  bool ok = false;
  std::string message;
  if (!wire::decode_ack(f->payload, ok, message) || !ok)
    return Status::failure("the runner could not take the problem: " + message, "", "SetProblem");
  problem_ = d;
  return Status::success();
}

RunOutcome CustomKernel::run(const Problem& problem, const RunRequest& request) {
  std::lock_guard lock(mutex_);
  const auto t0 = Clock::now();
  RunOutcome out;
  LaunchRecord& rec = out.record;
  auto done = [&](Status s) {
    rec.status = std::move(s);
    out.wall_ms = ms_since(t0);
    return std::move(out);
  };
  if (Status s = plan_record(problem, request, rec); !s) return done(s);
  const bool cpu = info_.target == Target::Cpu;
  // Owner ids are 32-bit (OwnerMap): a grid with more threads than that records none.
  const bool owners = cpu && request.record_owners && rec.config.total_threads() < OwnerMap::kNobody;
  if (Status s = ready_for(problem, out.runner_restarted); !s) return done(s);

  wire::LaunchHead h = launch_head(rec.config.grid, request.block, request.workers);
  h.record_bytes = sizeof(trace::DeviceBlockRecord);
  if (request.sample_lines) return done(sample_lines(h, request, out));
  rec.timing.simulated = cpu;
  if (request.timed)
    if (Status s = time_launches(h, request, out); !s) return done(s);
  // The observing launch, untimed: the schedule (GPU: the traced entry) and the owners (CPU).
  if (request.trace || owners || !request.timed)
    if (Status s = observe(h, request, owners, out); !s) return done(s);
  return done(read_output(problem.spec(), request, owners, out));
}

// The record's fields known before any launch (kernel, problem, the lab's counts, the launch
// configuration), and whether that launch may run.
Status CustomKernel::plan_record(const Problem& problem, const RunRequest& request, LaunchRecord& rec) const {
  const lab::UserForm& form = info_.form;
  rec.kernel = "custom:" + info_.name;
  rec.backend = info_.target == Target::Cpu ? BackendKind::CpuSimulation : BackendKind::Cuda;
  rec.problem = problem.summary();
  rec.request.block = request.block;
  if (request.grid.kind == GridRule::Kind::Fixed) rec.request.grid = request.grid.fixed;
  rec.attributes = info_.attributes;
  rec.attributes_measured = info_.attributes_measured;
  rec.scheme = IndexScheme::recorded();
  if (!problem.data()) return Status::failure("no problem to run on", "", "run");
  if (problem.form() != form.id)
    return Status::failure("this kernel takes form " + form.id + ", the problem is packed for " +
                               (problem.form().empty() ? std::string("none") : problem.form()),
                           "", "run");
  const lab::UserProblem& spec = problem.spec();
  rec.data_width = spec.out_width;
  rec.data_height = spec.out_height;
  // The lab's own counts, the ones plan() gives its built-in kernels.
  rec.bytes_moved = spec.bytes_moved;
  rec.bytes_note = spec.bytes_note;
  rec.flops = spec.flops;
  auto grid = grid_for(problem, request);
  if (!grid) return grid.status();
  rec.config.grid = *grid;
  rec.config.block = request.block;
  rec.config_label = "block " + block_text(request.block) + ", grid " + block_text(*grid) +
                     (request.grid.kind == GridRule::Kind::Fixed ? " (fixed)" : "");
  return validate_launch(rec.config, info_.limits, info_.attributes_measured ? &info_.attributes : nullptr);
}

// One launch in the runner. A failure is the Status the record carries, in the user's terms;
// what the runner reports structurally (an out-of-bounds access) goes into `out`.
Result<wire::Launched> CustomKernel::launch(const wire::LaunchHead& h, double time_limit_s, RunOutcome& out) {
  auto f = runner_->call(wire::Msg::Launch, wire::Writer{}(h).bytes(), wire::Msg::Launched, time_limit_s);
  if (!f) {
    out.runner_failed = true;
    drop_runner();
    if (f.status().code == "timeout") {
      out.timed_out = true;
      return Status::failure(
          "stopped after " + seconds_text(time_limit_s) + " s: the kernel did not finish (endless loop?)",
          "the kernel's process was killed; the next run starts a fresh one. Raise the "
          "time limit if the kernel is just slow",
          "run", "timeout");
    }
    return Status::failure("the kernel crashed its process: " + f.status().message,
                           "blockscope and its data are unaffected; the next run starts a fresh process", "run",
                           "runner_died");
  }
  wire::Launched r;
  if (!wire::decode(f->payload, r)) {
    drop_runner();
    return Status::failure("the kernel runner sent a malformed Launched", "", "run", "protocol");
  }
  if (r.head.ok) return r;
  if (r.head.oob.valid) {
    out.out_of_bounds = out_of_bounds(r.head.oob);
    return Status::failure("out-of-bounds: " + out.out_of_bounds->describe(),
                           "check the kernel's guard (i < n, not i <= n) and its index arithmetic; the launch "
                           "was stopped",
                           "run", "out_of_bounds");
  }
  Status s = Status::failure(r.message, r.hint, "run", r.code);
  if (r.head.fatal) {
    // The fault is the runner's: its context is gone with it, blockscope's is untouched.
    out.runner_failed = true;
    drop_runner();
    s = Status::failure("your kernel faulted on the GPU: " + r.message,
                        "only its own process was ended; blockscope's GPU context and data are "
                        "unaffected, and the next run starts a fresh process. The CPU simulator names "
                        "the block, thread and index of a bad access",
                        "run", r.code);
    s.sticky = true;
  }
  s.owner = FaultOwner::Child;
  return s;
}

OutOfBoundsReport CustomKernel::out_of_bounds(const wire::OutOfBounds& b) const {
  const lab::UserForm& form = info_.form;
  OutOfBoundsReport o;
  // The runner numbers pointer arguments; map back to the parameter.
  int seen = -1;
  for (std::size_t i = 0; i < form.params.size(); ++i)
    if (form.params[i].pointer() && ++seen == b.buffer) {
      o.param = static_cast<int>(i);
      break;
    }
  const auto p = static_cast<std::size_t>(o.param);
  o.buffer = o.param >= 0 && p < param_names_.size() && !param_names_[p].empty() ? param_names_[p]
             : o.param >= 0                                                      ? form.params[p].name
                                                                                 : std::string("?");
  o.index = b.index;
  o.count = b.count;
  o.access = b.access == 1 ? "read" : b.access == 2 ? "write" : "access";
  o.block = Dim3{b.block[0], b.block[1], b.block[2]};
  o.thread = Dim3{b.thread[0], b.thread[1], b.thread[2]};
  return o;
}

// One request; the runner launches until the sampling has enough (one launch at least). Its
// limit: the sampling's time, one more launch's, and CUPTI's first load in that process.
Status CustomKernel::sample_lines(const wire::LaunchHead& h, const RunRequest& request, RunOutcome& out) {
  const bool cpu = info_.target == Target::Cpu;
  const LineSampling& want = *request.sample_lines;
  wire::SampleLinesHead sl;
  sl.launch = h;
  sl.period = want.period;
  sl.min_samples = want.min_samples;
  sl.max_launches = want.max_launches;
  sl.max_seconds = want.max_seconds;
  // CPU: the kernel's counting build (made once, kept for the kernel's life), counters cleared.
  const auto t_lines = Clock::now();
  if (cpu && !counting_) {
    auto hc = engine_->host_compiler();
    if (!hc) return hc.status();
    auto made = build_counting_object(*hc, cpu_unit_, source_, engine_->options.compile_time_limit_s);
    if (!made) return made.status();
    counting_ = kept_for_life(std::move(*made), remove_counting_object);
  }
  if (cpu) clear_line_counts(*counting_);
  const double limit = want.max_seconds + 2 * request.time_limit_s + 15;
  auto f = runner_->call(wire::Msg::SampleLines,
                         wire::Writer{}(sl, cpu ? counting_->library.string() : std::string()).bytes(),
                         wire::Msg::Lines, limit);
  wire::Lines lines;
  if (!f) {
    out.runner_failed = true;
    out.timed_out = f.status().code == "timeout";
    drop_runner();
    return Status::failure("sampling the kernel ended its process: " + f.status().message,
                           "blockscope and its data are unaffected; the next run starts a fresh process", "SampleLines",
                           f.status().code);
  }
  if (!wire::decode(f->payload, lines)) {
    drop_runner();
    return Status::failure("the kernel runner sent a malformed Lines", "", "SampleLines", "protocol");
  }
  if (lines.head.fatal) {
    out.runner_failed = true;
    drop_runner();
  }
  if (cpu && lines.profile.ok()) {
    auto counted = read_line_counts(*counting_, engine_->options.compile_time_limit_s);
    if (!counted) return counted.status();
    counted->device = lines.profile.device;
    lines.profile = std::move(*counted);
    lines.profile.profile_ms = ms_since(t_lines);
  }
  lines.profile.kernel = out.record.kernel;
  Status status = lines.profile.status;
  if (!status) status.owner = FaultOwner::Child;
  status.sticky = lines.head.fatal != 0;
  out.record.lines = std::make_shared<const LineProfile>(std::move(lines.profile));
  return status;
}

// The repeats: lab::measure, one Launch per warm-up and repeat, a FlushL2 before each timed one
// when the policy asks. The simulator has no L2: its record says not flushed.
Status CustomKernel::time_launches(const wire::LaunchHead& h, const RunRequest& request, RunOutcome& out) {
  const bool cpu = info_.target == Target::Cpu;
  TimingPolicy policy = request.timing;
  if (cpu) policy.flush_l2 = false;
  std::string clock = cpu ? "steady_clock, CPU simulation" : "CUDA events";
  auto timed_once = [&]() -> Result<double> {
    auto r = launch(h, request.time_limit_s, out);
    if (!r) return r.status();
    if (!r->clock.empty()) clock = r->clock;
    return r->head.ms;
  };
  auto flush = [&]() -> Status {
    auto f = runner_->call(wire::Msg::FlushL2, {}, wire::Msg::Ack, request.time_limit_s);
    bool ok = false;
    std::string message;
    if (f && wire::decode_ack(f->payload, ok, message) && ok) return Status::success();
    if (!f) drop_runner();
    return Status::failure("the L2 could not be flushed before a timed launch: " + (f ? message : f.status().message),
                           "no timing is recorded as cold-cache without a flush; free GPU memory or turn the "
                           "L2 flush off",
                           "L2 flush", "l2_flush");
  };
  if (Status s = lab::measure(policy, out.record.timing, timed_once, flush, request.cancel); !s) return s;
  out.record.timing.clock = clock;
  return Status::success();
}

// The untimed launch that records the schedule (CPU: the simulator's; GPU: the traced entry's
// block records) and the owners.
Status CustomKernel::observe(const wire::LaunchHead& h, const RunRequest& request, bool owners, RunOutcome& out) {
  LaunchRecord& rec = out.record;
  wire::LaunchHead o = h;
  o.observe = 1;
  o.trace = request.trace;
  o.record_owners = owners;
  auto r = launch(o, request.time_limit_s, out);
  if (!r) return r.status();
  if (r->head.trace_kind == 1) {
    for (const wire::TraceRow& row : r->trace)
      rec.schedule.push_back(
          BlockTrace{Dim3{row.block[0], row.block[1], row.block[2]}, row.unit, row.start_ns, row.end_ns});
    rec.schedule_simulated = true;
  } else if (r->head.trace_kind == 2) {
    std::vector<trace::DeviceBlockRecord> raw(rec.config.grid.volume());
    if (r->records.size() != raw.size() * sizeof(trace::DeviceBlockRecord))
      return Status::failure(
          "the traced kernel's records do not have the layout of "
          "kernels/trace/trace_record.hpp",
          "update prelude/gpu_prelude.cuh's bs_block_record", "trace");
    std::memcpy(raw.data(), r->records.data(), r->records.size());
    auto schedule = trace::records_to_trace(raw, rec.config.grid, info_.limits.sm_count);
    if (!schedule) return schedule.status();
    rec.schedule = std::move(*schedule);
    rec.schedule_simulated = false;
  }
  return Status::success();
}

// The output of the last launch, its owners, and the lab's check of it.
Status CustomKernel::read_output(const lab::UserProblem& spec, const RunRequest& request, bool owners,
                                 RunOutcome& out) {
  LaunchRecord& rec = out.record;
  auto f = runner_->call(wire::Msg::Fetch, {}, wire::Msg::Ack, request.time_limit_s);
  bool ok = false;
  std::string message;
  if (!f || !wire::decode_ack(f->payload, ok, message) || !ok) {
    drop_runner();
    out.runner_failed = true;
    return Status::failure("the kernel's output could not be read back: " + (f ? message : f.status().message),
                           "the next run starts a fresh process", "Fetch", "fetch");
  }
  const std::size_t out_bytes = static_cast<std::size_t>(spec.output_count) * info_.form.output()->elem_size;
  out.output.assign(output_map_, output_map_ + out_bytes);
  if (owners) {
    auto map = std::make_shared<OwnerMap>();
    map->width = spec.out_width;
    map->height = spec.out_height;
    const auto* ids = reinterpret_cast<const std::uint32_t*>(output_map_ + owners_offset_);
    map->thread.assign(ids, ids + spec.output_count);
    rec.owners = std::move(map);
  }
  if (request.verify && spec.verify) {
    rec.check = spec.verify(out.output.data());
    out.wrong = wrong_elements(rec.check, rec.owners.get(), rec.config.grid, rec.config.block);
  }
  return Status::success();
}

Result<SharedRecordingResult> CustomKernel::record_shared(const Problem& problem, const RunRequest& request, Dim3 block,
                                                          unsigned warp, unsigned max_per_lane) {
  std::lock_guard lock(mutex_);
  if (info_.target != Target::Cpu)
    return Status::failure("shared-memory accesses are recorded on the CPU simulator; this is the GPU build",
                           "record with the kernel's CPU build", "record_shared");
  if (!problem.data()) return Status::failure("no problem to run on", "", "record_shared");
  if (problem.form() != info_.form.id)
    return Status::failure("this kernel takes form " + info_.form.id + ", the problem is packed for another", "",
                           "record_shared");
  auto grid = grid_for(problem, request);
  if (!grid) return grid.status();
  LaunchConfig config{*grid, request.block};
  if (Status s = validate_launch(config, info_.limits, nullptr); !s) return s;
  if (!recording_) {
    auto hc = engine_->host_compiler();
    if (!hc) return hc.status();
    auto made = build_recording_object(*hc, cpu_unit_, engine_->options.compile_time_limit_s);
    if (!made) return made.status();
    recording_ = kept_for_life(std::move(*made), remove_recording_object);
  }
  bool restarted = false;
  if (Status s = ready_for(problem, restarted); !s) return s;
  wire::RecordSharedHead h;
  h.launch = launch_head(*grid, request.block, 1);
  h.block[0] = block.x, h.block[1] = block.y, h.block[2] = block.z;
  h.warp = warp;
  h.max_per_lane = max_per_lane;
  // One block with a call per access: well within a launch's limit for the lecture's sizes; the
  // recording build's first load is in it too.
  auto f = runner_->call(wire::Msg::RecordShared, wire::Writer{}(h, recording_->library.string()).bytes(),
                         wire::Msg::SharedRecorded, 2 * request.time_limit_s + 10);
  if (!f) {
    drop_runner();
    return Status::failure(
        "recording the block's shared-memory accesses ended the kernel's process: " + f.status().message,
        "blockscope and its data are unaffected; the next run starts a fresh process", "RecordShared", f.status().code);
  }
  wire::SharedRecorded got;
  if (!wire::decode(f->payload, got)) {
    drop_runner();
    return Status::failure("the kernel runner sent a malformed SharedRecorded", "", "RecordShared", "protocol");
  }
  if (!got.head.ok) return Status::failure(got.message, got.hint, "RecordShared", "shared_recording");
  // The lines of the pcs, with one addr2line call.
  std::vector<unsigned long long> pcs;
  for (const wire::SharedAccessRow& a : got.accesses) pcs.push_back(a.pc);
  std::sort(pcs.begin(), pcs.end());
  pcs.erase(std::unique(pcs.begin(), pcs.end()), pcs.end());
  auto lines = lines_of_pcs(*recording_, pcs, engine_->options.compile_time_limit_s);
  if (!lines) return lines.status();
  SharedRecordingResult out;
  out.lanes = got.head.lanes;
  out.truncated = got.head.truncated != 0;
  for (std::size_t i = 0; i < got.variables.size(); ++i)
    out.variables.push_back(got.variable_names[i] + " at byte " + std::to_string(got.variables[i].offset) + ", " +
                            std::to_string(got.variables[i].bytes) + " bytes");
  std::vector<std::vector<SharedAccess>> lanes(32);
  for (const wire::SharedAccessRow& a : got.accesses) {
    if (a.lane >= 32) continue;
    SharedAccess s;
    s.index = a.index;
    s.offset = a.offset;
    s.bytes = a.bytes;
    s.op = a.write ? SharedOp::Store : SharedOp::Load;
    const SourceLine& where = (*lines)[a.pc];
    const std::string var = a.variable >= 0 && static_cast<std::size_t>(a.variable) < got.variable_names.size()
                                ? got.variable_names[static_cast<std::size_t>(a.variable)]
                                : std::string("?");
    s.site = SharedSite{interned(var), interned(where.file), where.line};
    lanes[a.lane].push_back(s);  // rows come in each lane's program order
  }
  out.requests = group_requests(lanes);
  out.note = "recorded by the CPU simulator: block (" + std::to_string(block.x) + ", " + std::to_string(block.y) +
             ", " + std::to_string(block.z) + ") run alone, the kernel built with access hooks (" +
             recording_->compiler + ")";
  return out;
}

Result<counters::Measurement> CustomKernel::profile_counters(const Problem& problem, const RunRequest& request,
                                                             const CounterRequest& what) {
  std::lock_guard lock(mutex_);
  if (!problem.data()) return Status::failure("no problem to run on", "", "profile_counters");
  if (problem.form() != info_.form.id)
    return Status::failure("this kernel takes form " + info_.form.id + ", the problem is packed for another", "",
                           "profile_counters");
  auto grid = grid_for(problem, request);
  if (!grid) return grid.status();
  LaunchConfig config{*grid, request.block};
  if (Status s = validate_launch(config, info_.limits, info_.attributes_measured ? &info_.attributes : nullptr); !s)
    return s;
  bool restarted = false;
  if (Status s = ready_for(problem, restarted); !s) return s;
  wire::ProfileCountersHead h;
  h.launch = launch_head(*grid, request.block, request.workers);
  h.stall_reasons = what.stall_reasons ? 1 : 0;
  h.throughput = what.throughput ? 1 : 0;
  h.flush_l2 = what.flush_l2 ? 1 : 0;
  h.eviction = what.evict_read_only ? 1 : 0;
  // About 15 passes of one launch each, CUPTI's first load and the session's setup in that
  // process: each pass within the launch limit, and 30 s for the profiler's own work.
  const double limit = 20 * request.time_limit_s + 30;
  auto f = runner_->call(wire::Msg::ProfileCounters, wire::Writer{}(h, what.cupti_library).bytes(), wire::Msg::Counters,
                         limit);
  if (!f) {
    drop_runner();
    Status s = Status::failure("profiling the kernel ended its process: " + f.status().message,
                               "blockscope and its data are unaffected; the next run starts a fresh process",
                               "ProfileCounters", f.status().code);
    s.owner = FaultOwner::Child;
    return s;
  }
  wire::Counters got;
  if (!wire::decode(f->payload, got)) {
    drop_runner();
    return Status::failure("the kernel runner sent malformed Counters", "", "ProfileCounters", "protocol");
  }
  if (got.head.fatal) drop_runner();  // its context is gone; the next run starts a fresh one
  if (!got.head.ok) {
    Status s = got.status.ok() ? Status::failure("no counters were read", "", "ProfileCounters") : got.status;
    s.owner = FaultOwner::Child;
    s.sticky = got.head.fatal != 0;
    return s;
  }
  return std::move(got.measurement);
}

}  // namespace bs::custom
