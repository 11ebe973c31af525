// The user's kernels as a lab lists them, and the step the editor takes on Compile.
//
//   UserLabs         the labs that take user kernels and their specs (one per app, from the
//                    catalog): which lab a dropped .cu belongs to, titles and templates
//   UserKernelBook   one per lab that takes user kernels, shared by that lab's objects on every
//                    backend: each kernel's source, the lab form it takes, how it is launched
//                    (its block and grid rule) and its builds for the GPU and the CPU simulator.
//                    Switching compute keeps the user's kernels: the first run on the new backend
//                    builds them for it. The time limit for every user kernel's launches lives
//                    here too (default 2 s).
//   compile_and_try  compiles an edited source and runs it once on the lab's data, verified
//                    (the editor runs this off the UI thread): a kernel joins the lab only once it
//                    compiled and a launch of it finished, so the last working kernel keeps
//                    running while a new one fails to compile, loops forever or crashes.
//
// Thread-safe: the UI thread, the editor's worker and a sweep's worker may use one book.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "labs/custom/custom_kernel.hpp"

namespace bs::custom {

// Kernel ids of user kernels: "custom:" + the function's name.
inline constexpr std::string_view kUserKernelPrefix = "custom:";
inline bool is_user_kernel_id(std::string_view id) {
  return id.substr(0, kUserKernelPrefix.size()) == kUserKernelPrefix;
}
inline std::string user_kernel_id(std::string_view name) { return std::string(kUserKernelPrefix) + std::string(name); }

// The labs that take user kernels, each with its spec (lab/user_kernel_spec.hpp), in the
// catalog's order.
struct UserLab {
  std::string id;     // "gray"
  std::string title;  // "Grayscale"
  const lab::UserKernelSpec* spec = nullptr;
};
struct UserLabs {
  std::vector<UserLab> labs;

  const UserLab* find(std::string_view id) const;
  // The lab whose forms the source's first matching __global__ kernel takes (`prefer` first, so
  // a signature two labs accept stays where the user is); nullptr when none matches.
  const UserLab* lab_of_source(std::string_view source, std::string_view prefer = {}) const;
};

struct UserKernel {
  std::string id;         // "custom:rgb_to_grayscale_kernel": LaunchRecord::kernel, --kernel, JSON
  std::string name;       // the __global__ function's name
  std::string source;     // exactly what its builds were compiled from
  std::string origin;     // the .cu file it came from; empty when typed in the editor
  lab::UserForm form;     // the lab's form it takes
  Dim3 block{256, 1, 1};  // the block it opens with
  GridRule grid;          // the form's rule, or a fixed grid
  // > 0: a fixed grid of this many blocks per SM (per simulator worker on the CPU), e.g. for a
  // grid-stride loop; overrides `grid`.
  unsigned fixed_blocks_per_sm = 0;
  bool uses_barriers = false;
};

// The grid rule `k` launches with on a device of `sm_count` SMs (or simulator workers).
GridRule launch_grid(const UserKernel& k, unsigned sm_count);

class UserKernelBook {
 public:
  UserKernelBook(std::shared_ptr<Engine> engine, std::shared_ptr<const UserLabs> labs);

  Engine& engine() const { return *engine_; }
  const UserLabs& labs() const { return *labs_; }
  const std::shared_ptr<const UserLabs>& shared_labs() const { return labs_; }

  // Adds `k`, or replaces the kernel with its id (its builds of an older source are dropped).
  // `build` (may be null) is a build of exactly k.source, for build->info().target.
  void install(UserKernel k, std::shared_ptr<CustomKernel> build = nullptr);
  // Adds a build of an installed kernel; ignored when its source changed since.
  void add_build(std::string_view id, std::shared_ptr<CustomKernel> build);
  bool remove(std::string_view id);
  // Changes the launch settings (block, grid rule) of an installed kernel.
  bool set_launch(std::string_view id, Dim3 block, GridRule grid, unsigned fixed_blocks_per_sm);

  std::vector<UserKernel> kernels() const;
  std::optional<UserKernel> find(std::string_view id) const;
  std::uint64_t version() const;  // changes with every install, removal and launch change

  // The build of `id` for `target`: the stored one, else compiled now (after a switch of
  // compute, the first run on the new backend compiles). A failure names the compiler's first
  // error and its line.
  Result<std::shared_ptr<CustomKernel>> build(std::string_view id, Target target);
  std::shared_ptr<CustomKernel> stored_build(std::string_view id, Target target) const;

  // Every launch of a user kernel is stopped after this long (default 2 s).
  double time_limit_s() const;
  void set_time_limit_s(double seconds);  // clamped to [0.05, 600]

  // An independent copy sharing the builds (a sweep's fork runs the kernels as they were when
  // it started, whatever the editor installs meanwhile).
  std::shared_ptr<UserKernelBook> snapshot() const;

 private:
  struct Entry {
    UserKernel kernel;
    std::shared_ptr<CustomKernel> builds[2];  // by Target
  };
  Entry* find_locked(std::string_view id);

  std::shared_ptr<Engine> engine_;
  std::shared_ptr<const UserLabs> labs_;
  mutable std::mutex mutex_;
  std::mutex build_mutex_;  // one on-demand compile at a time (never held with mutex_ waiting)
  std::vector<Entry> entries_;
  std::uint64_t version_ = 1;
  double time_limit_s_ = 2.0;
};

// "kernel.cu:3:5: error: expected ';' before 'if' (g++)" with `file` for the user's file name.
std::string describe_at(const Diagnostic& d, std::string_view file);
// The first error of a failed compile, or the compile's status when no diagnostic has a line.
std::string first_error(const CompileResult& c, std::string_view file);

// --- the editor's Compile --------------------------------------------------------------------

struct TrialRequest {
  std::string source;
  std::vector<lab::UserForm> forms;  // the lab's: which signatures are accepted
  std::string origin;                // the .cu file, for the installed kernel and messages
  Target target = Target::Cpu;
  // The lab's data packed for the form the source's kernel takes (UserKernelLab::form_of and
  // user_problem, on the caller's thread); nullopt: compile only.
  std::optional<Problem> problem;
  Dim3 block{0, 0, 0};  // 0: the form's default block
  GridRule grid;        // the form's rule or a fixed grid
  unsigned fixed_blocks_per_sm = 0;
  double time_limit_s = 2.0;
};

struct TrialResult {
  CompileResult compile;
  std::optional<RunOutcome> run;  // when it compiled and a problem was given
  UserKernel kernel;              // what to install (valid when compiled)
  double compile_ms = 0;          // source to a loaded kernel
  double total_ms = 0;            // source to the verified result of the first launch
  // Compiled, and its launch finished (correct or wrong): the kernel can join the lab.
  bool runs() const { return compile.ok() && run && run->record.ok(); }
  // One line for the editor's status and the command line: the first error at its line, the
  // launch's failure (out of bounds with block and thread, stopped at the time limit, crashed),
  // or "correct"/"WRONG" with the first wrong element and who wrote it.
  std::string summary(std::string_view file = "kernel.cu") const;
};

TrialResult compile_and_try(Engine& engine, const TrialRequest& request);

// "pixel (3, 7): got 255, want 91, written by no thread" / "... stored by thread (3, 0, 0) of
// block (12, 0, 0)"; `what` is the form's element ("pixel", "element").
std::string describe_wrong(const WrongElement& w, std::string_view what);

}  // namespace bs::custom
