// User-written kernels: CUDA source typed into the app, compiled, run, timed and verified. The
// engine knows no lab: a lab's spec (lab/user_kernel_spec.hpp) gives the kernel forms it accepts
// and packs its problem; the engine compiles an entry point for the matching form and runs it on
// those buffers with a grid and a block, one launch at a time.
//
//   Engine engine;                                            // one per app
//   auto problem = Problem::create(*spec.pack(lab, form));    // the lab's data, once
//   CompileResult c = engine.compile(source, spec.forms(), Target::Gpu);
//   for (const Diagnostic& d : c.diagnostics) ...            // errors and warnings at line:column
//   if (c.ok()) {                                             // keep the last good kernel until then
//     RunOutcome r = c.kernel->run(*problem, {.block = {256, 1, 1}, .trace = true});
//     r.record   // LaunchRecord: grid, block, timing, attributes, the lab's check and counts
//     r.wrong    // the first wrong elements and the block and thread that wrote them
//     r.out_of_bounds   // CPU: the first bad index, its buffer and size, block and thread
//   }
//
// How it works (reasons in kernels/labs/custom/README.md):
//   - the source is checked against the lab's forms first (source_parse.hpp);
//   - GPU: NVRTC compiles it for the device's exact architecture (sm_90a on Hopper; codegen.hpp's
//     GPU unit: a plain entry and a traced one around the same body); CPU: the host compiler
//     builds the same source with a prelude of CUDA's built-ins into a cached shared object;
//   - every compiled kernel runs in its own blockscope-kernel-runner process, so a fault, a
//     crash, an endless loop or a crashing compiler costs that process only: the parent kills it
//     after the time limit (default 2 s per launch), reports what happened, keeps its data, and
//     the next run starts a fresh runner transparently. A spare runner is kept started (CUDA
//     context and NVRTC ready) so a recompile does not wait for a process and a context;
//   - the runner launches once per request and times that launch alone; the repeats, warm-up, L2
//     flushes, confidence target, budget and cancel are this process's, with lab::measure, the
//     one timing loop every lab uses. The schedule and the owners come from one more, untimed
//     launch.
#pragma once
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/launch_counters.hpp"
#include "core/launch_record.hpp"
#include "counters/counters.hpp"
#include "core/line_profile.hpp"
#include "core/timing.hpp"
#include "labs/custom/diagnostics.hpp"
#include "lab/user_kernel_spec.hpp"
#include "labs/custom/problem.hpp"

namespace bs::custom {

enum class Target { Cpu, Gpu };

// How the grid follows from the data: the form's rule (the lecture's ceil-divisions) or a fixed
// grid the user chose (grid-stride loops, or to see what a too-small grid leaves undone).
struct GridRule {
  enum class Kind { Form, Fixed };
  Kind kind = Kind::Form;
  Dim3 fixed{1, 1, 1};

  static GridRule form_rule() { return {}; }
  static GridRule fixed_grid(Dim3 g) { return GridRule{Kind::Fixed, g}; }
  friend bool operator==(const GridRule&, const GridRule&) = default;
};
const char* to_string(Target t);  // "CPU simulator", "GPU"

struct CompilerStatus {
  Target target = Target::Cpu;
  bool available = false;
  std::string compiler;  // "g++ (Debian 12.2.0-14) 12.2.0", "NVRTC 13.0 for sm_90 (NVIDIA H200)"
  std::string message;   // when not available: which backend cannot compile and what to install
};

struct EngineOptions {
  std::filesystem::path runner;     // empty: find_runner's search (runner_client.hpp)
  std::filesystem::path cache_dir;  // empty: toolchain::default_cache_dir() (toolchain/host_compiler.hpp)
  std::string host_compiler;        // empty: $BLOCKSCOPE_CXX, else c++, g++, clang++ on PATH
  std::string cpu_optimisation = "-O2";
  int cuda_device = 0;
  bool keep_spare_runners = true;    // start the next runner before it is needed
  double compile_time_limit_s = 60;  // NVRTC or the host compiler; killed after that
  double start_time_limit_s = 60;    // a GPU runner's CUDA context and NVRTC
};

struct CompileOptions {
  std::string kernel_name;  // empty: the first __global__ function the lab accepts
};

// What compiling produced, for the editor's status line and the Launch panel.
struct CompiledInfo {
  std::string name;    // the kernel's function name
  lab::UserForm form;  // the lab's form it matched
  Target target = Target::Cpu;
  int line = 0;  // of the kernel's name
  bool uses_barriers = false, uses_shared = false;
  std::string compiler;  // "g++ 12.2.0 -O2" / "NVRTC 13.0, sm_90a"
  bool cache_hit = false;
  double compile_ms = 0;  // the compiler's own time (NVRTC; the host compiler's process)
  double load_ms = 0;     // module load / dlopen
  double total_ms = 0;    // from source to a kernel ready to run
  // GPU: cudaFuncGetAttributes of the plain entry (registers, static shared memory, local bytes
  // = spills and stack) and of the traced one; CPU: defaults (attributes_measured false).
  KernelAttributes attributes, traced_attributes;
  bool attributes_measured = false;
  std::size_t cpu_shared_bytes = 0;  // CPU: the unit's thread-local block (its __shared__)
  std::string device;                // "NVIDIA H200" / "CPU simulation"
  DeviceLimits limits;               // what launches are validated against
};

class CustomKernel;

struct CompileResult {
  std::shared_ptr<CustomKernel> kernel;  // null when it did not compile
  std::vector<Diagnostic> diagnostics;   // at the user's lines: errors, warnings, notes
  Status status;                         // why there is no kernel, in one line
  double ms = 0;                         // the whole compile, wall time
  bool ok() const { return kernel != nullptr; }
};

struct RunRequest {
  Dim3 block{256, 1, 1};
  GridRule grid;  // the form's rule, or a fixed grid
  // The one timing policy (lab/measure.hpp), applied here a launch at a time. The L2 flush is a
  // GPU's: on the CPU simulator the record says not flushed.
  TimingPolicy timing = TimingPolicy::once();
  const std::atomic<bool>* cancel = nullptr;  // stops the repeats (what was measured is kept)
  bool timed = true;                          // false: no timed launch, only the observing one (a replay that
                                              // wants the owners, not a time: the record has no timing)
  bool trace = false;                         // the real schedule, from one more, untimed launch
  bool record_owners = true;                  // CPU: which thread stored each element (IndexScheme::Recorded),
                                              // from that untimed launch too
  bool verify = true;                         // with the lab's own check (lab::UserProblem::verify)
  double time_limit_s = 2.0;                  // per launch; past it the runner is killed and the run reported
  unsigned workers = 0;                       // CPU: simulator workers (0: every core)
  // Set: instead of timing, the runner samples launches of the kernel per source line (GPU: CUPTI
  // PC sampling in its own process) and the record's `lines` holds what it found (lines->status
  // says why not); nothing is timed, traced, fetched or verified.
  const LineSampling* sample_lines = nullptr;
};

// One wrong element and, when owners were recorded, the thread that stored it.
struct WrongElement {
  long long x = 0, y = 0;  // column and row of out
  double got = 0, want = 0;
  bool owner_known = false;  // false: no thread stored it (or owners were not recorded)
  bool written = false;      // a thread stored it (owner_known only)
  unsigned long long thread_id = 0;
  Dim3 block, thread;
};

struct OutOfBoundsReport {
  int param = -1;      // which parameter (0-based)
  std::string buffer;  // its name in the user's kernel, e.g. "x"
  long long index = 0, count = 0;
  std::string access;  // "read", "write", "access" (through an input)
  Dim3 block, thread;
  // "thread (255, 0, 0) of block (1023, 0, 0) read x[786432], but x has 786432 elements (valid
  // indices 0 to 786431)"
  std::string describe() const;
};

struct RunOutcome {
  LaunchRecord record;               // what ran and what it measured, as the built-in kernels'
  std::vector<std::uint8_t> output;  // out's bytes (output_count elements of its type)
  std::vector<WrongElement> wrong;   // the first wrong elements, with their writers
  std::optional<OutOfBoundsReport> out_of_bounds;
  bool timed_out = false;         // stopped at the time limit
  bool runner_failed = false;     // the runner died or was killed (next run: a fresh one)
  bool runner_restarted = false;  // this run started a fresh runner first
  double wall_ms = 0;             // the whole run() call
};

class Engine;
class RunnerProcess;
struct ParsedKernel;
namespace wire {
struct Info;
struct Loaded;
struct Launched;
struct LaunchHead;
struct OutOfBounds;
}  // namespace wire
struct CountingObject;
struct RecordingObject;
struct SharedRecordingResult;
struct EngineState;

class CustomKernel {
 public:
  const CompiledInfo& info() const { return info_; }
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  const std::string& source() const { return source_; }

  // Launches on `problem` (the lab's data, packed for this kernel's form) as the request's timing
  // policy asks, then once more untimed when the schedule or the owners are wanted, fetches the
  // output and checks it with the lab's check. Never throws, never takes the caller down: a
  // refusal, a fault (Status::sticky, owner Child), a timeout or a dead runner is record.status;
  // the kernel stays usable afterwards. Thread-safe (runs are serialised per kernel).
  RunOutcome run(const Problem& problem, const RunRequest& request);

  // CPU builds: the shared-memory accesses of warp `warp` of block `block` of the launch `request`
  // makes on `problem`, as requests (the i-th access of every lane) with the user's source line
  // (shared_recording.hpp: the kernel built once more with access hooks, that block run alone).
  // A kernel without __shared__ variables, a block or warp outside the launch, a GPU build: a
  // Status saying so.
  Result<SharedRecordingResult> record_shared(const Problem& problem, const RunRequest& request, Dim3 block,
                                              unsigned warp, unsigned max_per_lane = 4096);

  // GPU: the range profiler's counters of one launch of the kernel on `problem` (its grid and
  // block from `request`), read in its runner process by kernels/counters' CounterSession
  // (ProfileCounters, counters_wire.hpp). The CPU build answers that counters are the GPU's. A
  // fault while profiling ends the runner as a fault in a launch does (sticky, FaultOwner::Child).
  Result<counters::Measurement> profile_counters(const Problem& problem, const RunRequest& request,
                                                 const CounterRequest& what);

  // The grid `request` launches on `problem`.
  Result<Dim3> grid_for(const Problem& problem, const RunRequest& request) const;

  ~CustomKernel();

 private:
  friend class Engine;
  CustomKernel() = default;
  Status ensure_runner(bool& restarted);
  Status ensure_problem(const Problem& problem);
  Status ready_for(const Problem& problem, bool& restarted);  // both of the above
  void drop_runner();
  // Engine::compile's steps: the kernel's build for its target, loaded into a runner of its own.
  Status build_cpu(const ParsedKernel& pk, CompileResult& res);
  Status build_gpu(const ParsedKernel& pk, CompileResult& res);
  Result<wire::Info> take_runner(std::unique_ptr<RunnerProcess>& runner);  // sets the device and limits
  Result<wire::Loaded> load_into(RunnerProcess& runner);                   // the CPU object or GPU image
  // run's steps, in order.
  Status plan_record(const Problem& problem, const RunRequest& request, LaunchRecord& rec) const;
  Result<wire::Launched> launch(const wire::LaunchHead& h, double time_limit_s, RunOutcome& out);
  OutOfBoundsReport out_of_bounds(const wire::OutOfBounds& b) const;
  Status sample_lines(const wire::LaunchHead& h, const RunRequest& request, RunOutcome& out);
  Status time_launches(const wire::LaunchHead& h, const RunRequest& request, RunOutcome& out);
  Status observe(const wire::LaunchHead& h, const RunRequest& request, bool owners, RunOutcome& out);
  Status read_output(const lab::UserProblem& spec, const RunRequest& request, bool owners, RunOutcome& out);

  std::shared_ptr<EngineState> engine_;
  CompiledInfo info_;
  std::vector<Diagnostic> diagnostics_;
  std::string source_;
  std::vector<std::string> param_names_;
  std::string image_;  // GPU: the cubin or PTX, to reload into a fresh runner
  bool image_is_ptx_ = false;
  std::filesystem::path so_;                        // CPU: the shared object
  std::string cpu_unit_;                            // CPU: the unit it was built from (a counting build is made of it)
  std::shared_ptr<const CountingObject> counting_;  // CPU: made at the first line count
  std::shared_ptr<const RecordingObject> recording_;  // CPU: made at the first shared recording

  std::mutex mutex_;
  std::unique_ptr<RunnerProcess> runner_;
  std::shared_ptr<Problem::Data> problem_;  // the problem the runner holds
  int output_fd_ = -1;                      // out and its owners, shared with the runner
  std::size_t output_bytes_ = 0;
  unsigned char* output_map_ = nullptr;
  std::size_t owners_offset_ = 0;
};

class Engine {
 public:
  explicit Engine(EngineOptions options = {});
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Which backends can compile here, and what to install where one cannot. The GPU answer comes
  // from a runner (it starts one, which then serves as the spare).
  std::vector<CompilerStatus> available_compilers();

  // `accepted`: the lab's forms (its spec's forms()); the kernel takes the first that matches.
  CompileResult compile(std::string_view source, std::span<const lab::UserForm> accepted, Target target,
                        const CompileOptions& options = {});

  // Starts a spare runner for `target` now (e.g. when the editor opens), so the first compile
  // does not wait for a process and a CUDA context.
  void prepare(Target target);

  const EngineOptions& options() const;

 private:
  std::shared_ptr<EngineState> state_;
};

}  // namespace bs::custom
