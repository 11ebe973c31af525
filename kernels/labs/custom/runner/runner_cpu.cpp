// The CPU backend of blockscope-kernel-runner: loads the user's kernel compiled into a shared
// object (codegen.hpp's CPU unit) and runs it on the grid simulator, one call of bs_cpu_thread per
// simulated thread, with the simulator's barrier behind __syncthreads.
//
// What it adds to the simulator:
//   - fresh __shared__ storage per block: the unit's thread-local block is refilled with 0xFF
//     before each block's first thread (see cpu_prelude.h, section 2);
//   - out-of-bounds accesses: the views call out_of_bounds(), which throws OutOfBoundsStop; the
//     first one is kept (block, thread, buffer, index, size) and the launch is cancelled;
//   - owners: stores through an output view write the storing thread's id (cpu_prelude.h).
#include <cxxabi.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

#include "labs/custom/prelude/custom_abi.h"
#include "labs/custom/runner/runner.hpp"
#include "simulator/grid_simulator.hpp"
#include "simulator/shared_recorder.hpp"

namespace bs::custom::runner {

void reset_outputs(const ProblemMaps& maps, bool owners) {
  for (unsigned i = 0; i < maps.head.nbuffers; ++i) {
    const wire::BufferDesc& b = maps.head.buffers[i];
    if (!b.is_output) continue;
    std::memset(maps.buffer(i), b.fill, static_cast<std::size_t>(b.count) * b.elem_size);
    if (owners && b.has_owners) std::memset(maps.owners(i), 0xFF, static_cast<std::size_t>(b.count) * sizeof(unsigned));
  }
}

namespace {

using CpuThreadFn = void (*)(const bs_thread_ctx*, const bs_launch_args*);

struct OutOfBoundsStop : std::runtime_error {
  explicit OutOfBoundsStop(const wire::OutOfBounds& r) : std::runtime_error("out-of-bounds access"), report(r) {}
  wire::OutOfBounds report;
};

// Called by the views in the kernel's unit; unwinds the kernel's frames back to the runner.
void out_of_bounds(const bs_thread_ctx* ctx, int buffer, long long index, long long count, int access) {
  wire::OutOfBounds r;
  r.valid = 1;
  r.buffer = buffer;
  r.index = index;
  r.count = count;
  r.access = access;
  if (ctx) {
    r.block[0] = ctx->blockIdx.x, r.block[1] = ctx->blockIdx.y, r.block[2] = ctx->blockIdx.z;
    r.thread[0] = ctx->threadIdx.x, r.thread[1] = ctx->threadIdx.y, r.thread[2] = ctx->threadIdx.z;
  }
  throw OutOfBoundsStop(r);
}

void barrier(void* host) { static_cast<const sim::HostCtx*>(host)->sync(); }
void warp_sync(void* host, unsigned mask) { static_cast<const sim::HostCtx*>(host)->sync_warp(mask); }
unsigned char* warp_exchange(void* host, unsigned warp) {
  static_assert(sim::HostCtx::kWarpScratchBytes >= BS_WARP_EXCHANGE_BYTES);
  return static_cast<const sim::HostCtx*>(host)->warp_scratch_of(warp);
}

// Called by the prelude for a misuse it can name; stops the launch like an out-of-bounds access.
struct KernelFailStop : std::runtime_error {
  explicit KernelFailStop(std::string m) : std::runtime_error(std::move(m)) {}
};
void fail(const bs_thread_ctx* ctx, const char* message) {
  std::string m = message ? message : "the kernel stopped";
  if (ctx)
    m = "block (" + std::to_string(ctx->blockIdx.x) + ", " + std::to_string(ctx->blockIdx.y) + ", " +
        std::to_string(ctx->blockIdx.z) + "), thread (" + std::to_string(ctx->threadIdx.x) + ", " +
        std::to_string(ctx->threadIdx.y) + ", " + std::to_string(ctx->threadIdx.z) + "): " + m;
  throw KernelFailStop(m);
}

struct TlsLookup {
  std::size_t modid;
  std::size_t memsz = 0;
};

int find_tls(dl_phdr_info* info, std::size_t, void* data) {
  auto* q = static_cast<TlsLookup*>(data);
  if (info->dlpi_tls_modid != q->modid) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_TLS) q->memsz = info->dlpi_phdr[i].p_memsz;
  return 1;
}

// ---------------------------------------------------------------------------------------------
// Recording shared-memory accesses (RecordShared)
// ---------------------------------------------------------------------------------------------
// The recording build's hooks (shared_recording.cpp) call shared_hook() for every load and store
// the kernel's unit makes. The ones inside the block's __shared__ variables (thread_local in the
// unit: this worker's TLS block of the unit, from t_shared_tls) made by the recorded warp are kept.

// A __shared__ variable of the unit: where its storage is in the unit's TLS block, where the
// recording places it (variables in the unit's order, each at a 128-byte boundary).
struct SharedVariable {
  std::string name;
  long long tls_offset = 0, bytes = 0, offset = 0;
};

struct SharedRecording {
  std::vector<SharedVariable> variables;
  unsigned warp = 0;
  unsigned max_per_lane = 4096;
  const char* load_base = nullptr;
  std::mutex mutex;  // one block runs, on one worker; the lock only guards against surprises
  std::vector<wire::SharedAccessRow> rows;
  unsigned per_lane[32] = {};
  bool truncated = false;
};

std::atomic<SharedRecording*> g_recording{nullptr};
thread_local unsigned char* t_shared_tls = nullptr;  // this worker's TLS block of the unit

void shared_hook(const void* p, unsigned bytes, int write, const void* pc, const bs_thread_ctx* ctx) {
  SharedRecording* rec = g_recording.load(std::memory_order_relaxed);
  if (!rec || !t_shared_tls) return;
  const long long off = static_cast<const unsigned char*>(p) - t_shared_tls;
  const SharedVariable* var = nullptr;
  for (const SharedVariable& v : rec->variables)
    if (off >= v.tls_offset && off < v.tls_offset + v.bytes) var = &v;
  if (!var) return;  // not a __shared__ variable (the prelude's own thread_locals, the stack, ...)
  // Only inside a __shared__ variable is ctx certain to be the running thread's.
  const unsigned long long lin =
      ctx->threadIdx.x + static_cast<unsigned long long>(ctx->blockDim.x) *
                             (ctx->threadIdx.y + static_cast<unsigned long long>(ctx->blockDim.y) * ctx->threadIdx.z);
  if (lin / 32 != rec->warp) return;
  const unsigned lane = static_cast<unsigned>(lin % 32);
  std::lock_guard lock(rec->mutex);
  if (rec->per_lane[lane] >= rec->max_per_lane) {
    rec->truncated = true;
    return;
  }
  wire::SharedAccessRow row;
  row.lane = lane;
  row.index = rec->per_lane[lane]++;
  row.offset = var->offset + (off - var->tls_offset);
  row.bytes = bytes;
  row.write = write ? 1 : 0;
  // The return address is just after the hook's call: one byte back is inside the access's
  // instruction sequence, so addr2line names its line.
  row.pc = static_cast<std::uint64_t>(static_cast<const char*>(pc) - rec->load_base - 1);
  row.variable = static_cast<std::int32_t>(var - rec->variables.data());
  rec->rows.push_back(row);
}

// The thread-local symbols of the shared object at `path` (its .symtab, else .dynsym): every one
// but the prelude's own (bs_tls_*) is a __shared__ variable of the user's source. st_value of a
// TLS symbol is its offset in the module's TLS block.
std::vector<SharedVariable> shared_variables(const std::string& path, std::string& error) {
  std::vector<SharedVariable> out;
  std::ifstream f(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (bytes.size() < sizeof(Elf64_Ehdr) || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0 ||
      bytes[EI_CLASS] != ELFCLASS64) {
    error = "the recording build " + path + " is not a 64-bit ELF shared object";
    return out;
  }
  Elf64_Ehdr eh;
  std::memcpy(&eh, bytes.data(), sizeof eh);
  auto section = [&](unsigned i) {
    Elf64_Shdr sh{};
    const std::size_t at = eh.e_shoff + static_cast<std::size_t>(i) * eh.e_shentsize;
    if (at + sizeof sh <= bytes.size()) std::memcpy(&sh, bytes.data() + at, sizeof sh);
    return sh;
  };
  for (const unsigned type : {static_cast<unsigned>(SHT_SYMTAB), static_cast<unsigned>(SHT_DYNSYM)}) {
    for (unsigned i = 0; i < eh.e_shnum; ++i) {
      const Elf64_Shdr sh = section(i);
      if (sh.sh_type != type || sh.sh_entsize != sizeof(Elf64_Sym)) continue;
      const Elf64_Shdr strtab = section(sh.sh_link);
      for (std::size_t k = 0; k < sh.sh_size / sizeof(Elf64_Sym); ++k) {
        Elf64_Sym sym;
        const std::size_t at = sh.sh_offset + k * sizeof(Elf64_Sym);
        if (at + sizeof sym > bytes.size()) break;
        std::memcpy(&sym, bytes.data() + at, sizeof sym);
        if (ELF64_ST_TYPE(sym.st_info) != STT_TLS || sym.st_size == 0) continue;
        if (strtab.sh_offset + sym.st_name >= bytes.size()) continue;
        const std::string raw(bytes.c_str() + strtab.sh_offset + sym.st_name);
        if (raw.find("bs_tls_") != std::string::npos) continue;
        // "_ZZ19tiled_matmul_kernelPfS_S_iiiE2Ms" -> "tiled_matmul_kernel(...)::Ms" -> "Ms"
        std::string name = raw;
        int st = 0;
        if (char* d = abi::__cxa_demangle(raw.c_str(), nullptr, nullptr, &st)) {
          name = d;
          std::free(d);
        }
        if (const auto colons = name.rfind("::"); colons != std::string::npos) name = name.substr(colons + 2);
        out.push_back({name, static_cast<long long>(sym.st_value), static_cast<long long>(sym.st_size), 0});
      }
      if (!out.empty()) break;
    }
    if (!out.empty()) break;
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.tls_offset < b.tls_offset; });
  long long next = 0;
  for (SharedVariable& v : out) {
    v.offset = (next + 127) / 128 * 128;
    next = v.offset + v.bytes;
  }
  return out;
}

class CpuBackend final : public Backend {
 public:
  CpuBackend() : sim_(std::max(1u, std::thread::hardware_concurrency())) {}
  ~CpuBackend() override {
    if (handle_) dlclose(handle_);
  }

  wire::Info info() override {
    wire::Info i;
    i.head.backend = wire::Backend::Cpu;
    i.head.hw_threads = sim_.workers();
    i.device_name = "CPU simulation";
    return i;
  }

  wire::Compiled compile_gpu(const std::string&) override {
    wire::Compiled c;
    c.log = "this runner simulates on the CPU; it does not compile for the GPU";
    return c;
  }
  wire::Loaded load_gpu(const std::string&, bool) override {
    wire::Loaded l;
    l.message = "this runner simulates on the CPU; it cannot load GPU code";
    return l;
  }

  wire::Loaded load_cpu(const std::string& path, bool uses_barriers) override {
    wire::Loaded l;
    const auto t0 = Clock::now();
    if (handle_) {
      dlclose(handle_);
      handle_ = nullptr;
    }
    handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) {
      const char* e = dlerror();
      l.message = std::string("cannot load the compiled kernel: ") + (e ? e : "dlopen failed");
      return l;
    }
    auto version = reinterpret_cast<int (*)()>(dlsym(handle_, "bs_abi_version"));
    thread_fn_ = reinterpret_cast<CpuThreadFn>(dlsym(handle_, "bs_cpu_thread"));
    touch_ = reinterpret_cast<void* (*)()>(dlsym(handle_, "bs_tls_touch"));
    if (!version || !thread_fn_ || !touch_ || version() != BS_CUSTOM_ABI_VERSION) {
      l.message = "the compiled kernel does not have blockscope's entry points (stale cache?)";
      dlclose(handle_);
      handle_ = nullptr;
      return l;
    }
    TlsLookup q{0};
    if (dlinfo(handle_, RTLD_DI_TLS_MODID, &q.modid) == 0 && q.modid != 0) dl_iterate_phdr(&find_tls, &q);
    tls_bytes_ = q.memsz;
    // The kernel's static __shared__ as CUDA allocates it: its own variables' bytes, without the
    // prelude's thread-locals (the unit's TLS block holds both; issue 36 item 7: the Launch tab
    // said 0 B and its occupancy ignored the kernel's tiles).
    {
      std::string unused;
      std::uint64_t bytes = 0;
      for (const SharedVariable& v : shared_variables(path, unused)) bytes += static_cast<std::uint64_t>(v.bytes);
      l.head.plain.static_shared = bytes;
    }
    uses_barriers_ = uses_barriers;
    loaded_path_ = path;
    ++generation_;
    l.head.ok = 1;
    l.head.tls_bytes = tls_bytes_;
    l.head.load_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    return l;
  }

  std::string set_problem(const ProblemMaps&) override { return {}; }

  wire::Launched launch(const wire::LaunchHead& launch, const ProblemMaps& maps) override {
    wire::Launched result;
    if (!handle_) {
      result.message = "no kernel loaded";
      return result;
    }
    // Owners are recorded by the observing launch only: a timed launch does the kernel's work
    // and nothing else.
    const bool owners = launch.observe && launch.record_owners;
    bs_launch_args args{};
    for (unsigned i = 0; i < maps.head.nbuffers; ++i) {
      args.buffers[i].data = maps.buffer(i);
      args.buffers[i].count = maps.head.buffers[i].count;
      args.buffers[i].owners = owners ? maps.owners(i) : nullptr;
    }
    for (unsigned i = 0; i < maps.head.nints && i < BS_CUSTOM_MAX_INTS; ++i) args.ints[i] = maps.head.ints[i];
    args.barrier = &barrier;
    args.out_of_bounds = &out_of_bounds;
    args.warp_sync = &warp_sync;
    args.warp_exchange = &warp_exchange;
    args.fail = &fail;

    std::atomic<bool> stop{false};
    std::mutex oob_mutex;
    wire::OutOfBounds first_oob;
    std::string first_fail;
    const CpuThreadFn fn = thread_fn_;
    void* handle = handle_;
    void* (*touch)() = touch_;
    const std::size_t tls_bytes = tls_bytes_;
    const unsigned generation = generation_;

    auto body = [&](const sim::HostCtx& t) {
      bs_thread_ctx c;
      c.blockIdx = {t.blockIdx.x, t.blockIdx.y, t.blockIdx.z};
      c.threadIdx = {t.threadIdx.x, t.threadIdx.y, t.threadIdx.z};
      c.blockDim = {t.blockDim.x, t.blockDim.y, t.blockDim.z};
      c.gridDim = {t.gridDim.x, t.gridDim.y, t.gridDim.z};
      const unsigned long long lin_thread =
          t.threadIdx.x + static_cast<unsigned long long>(t.blockDim.x) *
                              (t.threadIdx.y + static_cast<unsigned long long>(t.blockDim.y) * t.threadIdx.z);
      const unsigned long long lin_block =
          t.blockIdx.x + static_cast<unsigned long long>(t.gridDim.x) *
                             (t.blockIdx.y + static_cast<unsigned long long>(t.gridDim.y) * t.blockIdx.z);
      c.global_thread = lin_block * t.blockDim.volume() + lin_thread;
      c.host = const_cast<sim::HostCtx*>(&t);
      if (lin_thread == 0 && tls_bytes > 0) fresh_shared(handle, touch, tls_bytes, generation);
      try {
        fn(&c, &args);
      } catch (const OutOfBoundsStop& e) {
        {
          std::lock_guard lock(oob_mutex);
          if (!first_oob.valid) first_oob = e.report;
        }
        stop = true;
        if (!t.barrier) throw;  // plain loop: stop the block here (the simulator catches it)
        // As a fiber, return: the block's other threads then fail at their barrier, and the
        // launch stops; nothing may unwind past the fiber's entry.
      } catch (const KernelFailStop& e) {
        {
          std::lock_guard lock(oob_mutex);
          if (first_fail.empty()) first_fail = e.what();
        }
        stop = true;
        if (!t.barrier) throw;
      }
    };

    sim::SimOptions options;
    options.workers = launch.workers;
    options.uses_barriers = uses_barriers_;
    options.cancel = &stop;
    options.record_schedule = launch.observe && launch.trace;
    std::optional<sim::SharedRecorder> only;  // RecordShared: the recorded block alone
    if (only_block_) {
      only.emplace(std::vector<unsigned long long>{*only_block_}, 1);
      only->run_only_recorded = true;
      options.shared_recorder = &*only;
    }
    LaunchConfig config;
    config.grid = Dim3{launch.grid[0], launch.grid[1], launch.grid[2]};
    config.block = Dim3{launch.block[0], launch.block[1], launch.block[2]};

    reset_outputs(maps, owners);
    const sim::SimResult r = sim_.run(config, body, options);
    if (first_oob.valid) {
      result.head.oob = first_oob;
      result.message = "out-of-bounds access";
      result.code = "out_of_bounds";
      return result;
    }
    if (!first_fail.empty()) {
      result.message = first_fail;
      result.code = "simulator";
      return result;
    }
    if (!r.status.ok()) {
      result.message = r.status.message;
      result.hint = r.status.hint;
      result.code = r.status.code.empty() ? "simulator" : r.status.code;
      return result;
    }
    result.head.ok = 1;
    result.head.ms = launch.observe ? 0 : r.elapsed_ms;
    result.head.workers_used = r.workers_used;
    result.clock = "steady_clock, CPU simulation (" + std::to_string(r.workers_used) +
                   (r.workers_used == 1 ? " worker)" : " workers)");
    if (options.record_schedule) {
      result.head.trace_kind = 1;
      for (const BlockTrace& b : r.schedule) {
        wire::TraceRow row;
        row.start_ns = b.start_ns;
        row.end_ns = b.end_ns;
        row.unit = b.unit;
        row.writes = 1;
        row.block[0] = b.block.x, row.block[1] = b.block.y, row.block[2] = b.block.z;
        result.trace.push_back(row);
      }
    }
    return result;
  }

  // The simulator has no L2 to flush: the parent never asks it (its timings say not flushed).
  std::string flush_l2(const ProblemMaps&) override { return "the CPU simulator has no L2 cache to flush"; }
  // The simulator writes the shared output memory itself.
  std::string fetch(const ProblemMaps&) override { return {}; }
  wire::Lines sample_lines(const wire::SampleLinesHead& request, const std::string& counting_object,
                           const ProblemMaps& maps) override {
    wire::Lines out;
    if (counting_object.empty() || loaded_path_.empty()) {
      out.profile.status = Status::failure("no counting build of the kernel was given", "", "SampleLines");
      return out;
    }
    // The counting build in place of the kernel for one launch, then the kernel back. Its
    // counters are written (bs_coverage_dump) before it is unloaded.
    const std::string kernel = loaded_path_;
    const bool barriers = uses_barriers_;
    wire::Loaded counting = load_cpu(counting_object, barriers);
    if (!counting.head.ok) {
      out.profile.status = Status::failure("the counting build of the kernel could not be loaded: " + counting.message,
                                           "", "SampleLines");
      load_cpu(kernel, barriers);
      return out;
    }
    wire::LaunchHead h = request.launch;
    h.observe = 0;
    const wire::Launched ran = launch(h, maps);
    auto dump = reinterpret_cast<void (*)()>(dlsym(handle_, "bs_coverage_dump"));
    if (dump) dump();
    const wire::Loaded back = load_cpu(kernel, barriers);
    if (!ran.head.ok) {
      out.profile.status = Status::failure(ran.message, ran.hint, "SampleLines", ran.code);
      return out;
    }
    if (!dump) {
      out.profile.status = Status::failure("the counting build has no bs_coverage_dump", "", "SampleLines");
      return out;
    }
    if (!back.head.ok) {
      out.head.fatal = 1;  // the kernel itself is gone: the parent starts a fresh runner
      out.profile.status = Status::failure("the kernel could not be loaded again: " + back.message);
      return out;
    }
    out.profile.launches = 1;
    out.profile.profile_ms = ran.head.ms;
    out.profile.device = "CPU simulation";
    return out;
  }

  wire::SharedRecorded record_shared(const wire::RecordSharedHead& request, const std::string& recording_object,
                                     const ProblemMaps& maps) override {
    wire::SharedRecorded out;
    if (recording_object.empty() || loaded_path_.empty()) {
      out.message = "no recording build of the kernel was given";
      return out;
    }
    SharedRecording rec;
    std::string error;
    rec.variables = shared_variables(recording_object, error);
    if (!error.empty()) {
      out.message = error;
      return out;
    }
    if (rec.variables.empty()) {
      out.message = "this kernel declares no __shared__ memory: there are no shared-memory requests to show";
      out.hint =
          "the bank view shows kernels that stage data in __shared__ arrays, such as the lecture's tiled "
          "matmul (Edit kernel > templates)";
      return out;
    }
    const wire::LaunchHead& h = request.launch;
    for (int d = 0; d < 3; ++d)
      if (request.block[d] >= h.grid[d]) {
        out.message = "block (" + std::to_string(request.block[0]) + ", " + std::to_string(request.block[1]) + ", " +
                      std::to_string(request.block[2]) + ") is outside the grid";
        return out;
      }
    const unsigned long long threads = 1ull * h.block[0] * h.block[1] * h.block[2];
    if (request.warp * 32ull >= threads) {
      out.message =
          "warp " + std::to_string(request.warp) + " is outside the block (" + std::to_string(threads) + " threads)";
      return out;
    }
    out.head.lanes = static_cast<std::uint32_t>(std::min<unsigned long long>(32, threads - request.warp * 32ull));
    rec.warp = request.warp;
    rec.max_per_lane = std::max(1u, request.max_per_lane);
    // The recording build in place of the kernel for one launch of one block, then the kernel back.
    const std::string kernel = loaded_path_;
    const bool barriers = uses_barriers_;
    wire::Loaded recording = load_cpu(recording_object, barriers);
    auto set_hook = recording.head.ok
                        ? reinterpret_cast<void (*)(decltype(&shared_hook))>(dlsym(handle_, "bs_set_shared_hook"))
                        : nullptr;
    if (!set_hook) {
      out.message = recording.head.ok ? "the recording build has no bs_set_shared_hook"
                                      : "the recording build of the kernel could not be loaded: " + recording.message;
      load_cpu(kernel, barriers);
      return out;
    }
    Dl_info where{};
    dladdr(reinterpret_cast<void*>(set_hook), &where);
    rec.load_base = static_cast<const char*>(where.dli_fbase);
    only_block_ =
        request.block[0] + static_cast<unsigned long long>(h.grid[0]) *
                               (request.block[1] + static_cast<unsigned long long>(h.grid[1]) * request.block[2]);
    g_recording = &rec;
    set_hook(&shared_hook);
    wire::LaunchHead one = h;
    one.observe = 0;
    one.workers = 1;
    const wire::Launched ran = launch(one, maps);
    set_hook(nullptr);
    g_recording = nullptr;
    only_block_.reset();
    const wire::Loaded back = load_cpu(kernel, barriers);
    if (!ran.head.ok) {
      out.message = "the recorded block did not finish: " + ran.message;
      out.hint = ran.hint;
      return out;
    }
    if (!back.head.ok) {
      out.message = "the kernel could not be loaded again: " + back.message;
      return out;
    }
    for (const SharedVariable& v : rec.variables) {
      out.variable_names.push_back(v.name);
      out.variables.push_back({v.offset, v.bytes});
    }
    out.accesses = std::move(rec.rows);
    out.head.truncated = rec.truncated ? 1 : 0;
    out.head.ok = 1;
    return out;
  }

 private:
  // Refills the calling OS thread's TLS block of the kernel's unit: the block's __shared__.
  static void fresh_shared(void* handle, void* (*touch)(), std::size_t bytes, unsigned generation) {
    thread_local void* tls = nullptr;
    thread_local unsigned tls_generation = 0;
    if (tls_generation != generation) {
      touch();  // the block exists once the unit's code has touched it on this thread
      tls = nullptr;
      if (dlinfo(handle, RTLD_DI_TLS_DATA, &tls) != 0) tls = nullptr;
      tls_generation = generation;
    }
    if (tls) std::memset(tls, 0xFF, bytes);
    t_shared_tls = static_cast<unsigned char*>(tls);
  }

  sim::GridSimulator sim_;
  void* handle_ = nullptr;
  CpuThreadFn thread_fn_ = nullptr;
  void* (*touch_)() = nullptr;
  std::size_t tls_bytes_ = 0;
  bool uses_barriers_ = false;
  std::string loaded_path_;                       // the shared object loaded now
  std::optional<unsigned long long> only_block_;  // RecordShared: run this linear block alone
  unsigned generation_ = 0;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace bs::custom::runner
