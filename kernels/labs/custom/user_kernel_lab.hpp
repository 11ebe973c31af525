// The user's kernels as first-class kernels of a lab: a lab::Lab that wraps any lab offering a
// user-kernel spec (Lab::user_kernel_spec(), lab/user_kernel_spec.hpp) and adds the kernels of
// its UserKernelBook to the lab's own, so the window's views, the timings beside the copy ceiling
// or cuBLAS, launch statistics, the schedule, bench, sweeps and exports all work on them through
// the one lab interface.
//
//   auto lab = with_user_kernels(std::move(gray_lab), book);   // any lab with a spec
//   lab->kernels();                      // the ladder, then "custom: rgb_to_grayscale_kernel"
//   lab->run("custom:rgb_to_grayscale_kernel", {Dim3{256, 1, 1}}, options);
//   lab::layer<gray::GrayLab>(*lab)->set_image(...);   // the view reaches the lab it draws
//
// Why a wrapper and not a hook in every lab: what the user's kernels need of a lab is its spec
// (its forms, its data packed for them, its check and its counts), so a lab gets them by writing
// that spec in its own folder, without knowing about compilers, runner processes or the book,
// and its own code paths stay as they were. This wrapper names no lab.
//
// What a run of a user kernel does (kernels/labs/custom/README.md has the engine's side):
//   - the build for this backend (compiled on first use after a switch of compute), launched in
//     its runner process with the book's time limit; timed with RunOptions::timing through
//     lab::measure exactly as the lab's own kernels are; checked with the lab's own check; its
//     bytes and FLOPs are the lab's own counts;
//   - its output arrives as host bytes: copied into RunOptions::output (a CUDA-mapped GL buffer
//     on the CUDA backend, host memory on the CPU), and kept for download_output();
//   - who stores what: the CPU simulator records every store's thread. When those owners are
//     exactly one of the closed-form mappings (the lecture's 1D, a grid-stride loop, 2D, 2D
//     transposed), the record says that scheme and every view draws it as for built-in kernels;
//     else the record keeps the recorded owners (IndexScheme::Recorded) for the inspector. The GPU
//     records none, so on the CUDA backend the same source's CPU build is run once per launch
//     shape on the same data (when that is small enough) and its owners give the scheme; when
//     that cannot be done the record says Recorded with no owners and the views say so. In the
//     window that build and replay run on a worker (set_findings_in_background, cpu_findings.hpp):
//     the GPU record is shown at once, without owners, and owners_note() says they are being
//     recorded; take_findings() says when they arrived, and the next run uses them;
//   - an out-of-bounds access stops a CPU launch with its block and thread. On the GPU a small
//     overrun does not fault (it lands in memory nobody checks), so the CPU replay above also
//     catches it, and the GPU record fails with the replay's report;
//   - a GPU fault is the runner's: the record's Status is sticky with FaultOwner::Child, so the
//     shell keeps its own GPU context and a sweep goes on to the next point;
//   - the first wrong element and the thread that stored it go into the check's note.
//   - memory accesses (warp_accesses) are not known for user kernels: blockscope cannot see a
//     user kernel's loads. The list is empty and the kernel's teaching note says why.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lab/catalog.hpp"
#include "lab/lab.hpp"
#include "lab/user_kernel_spec.hpp"
#include "labs/custom/cpu_findings.hpp"
#include "labs/custom/user_kernels.hpp"

namespace bs::custom {

// Whether the recorded owners of a launch are exactly one of the closed-form schemes; nullopt
// when none matches (the owners then stay IndexScheme::Recorded).
std::optional<IndexScheme> closed_form_scheme(const LaunchConfig& config, const OwnerMap& owners);

class UserKernelLab final : public lab::Lab {
 public:
  // `inner` must offer a spec (with_user_kernels checks).
  UserKernelLab(std::unique_ptr<lab::Lab> inner, std::shared_ptr<UserKernelBook> book);
  ~UserKernelLab() override;

  UserKernelBook& book() { return *book_; }
  const std::shared_ptr<UserKernelBook>& shared_book() const { return book_; }
  const lab::UserKernelSpec& spec() const { return *spec_; }
  Target target() const;  // the CUDA backend compiles for the GPU, the simulator for the CPU
  // The form the source's kernel takes among the lab's (nullptr: none; compiling says why).
  const lab::UserForm* form_of(std::string_view source) const;
  // The lab's current data packed for `form` (packed once per change of the data), or why there
  // is none: no data yet, or the lab's settings rule the form out.
  Result<Problem> user_problem(const lab::UserForm& form);
  // The template an edit of `kernel` starts from ("" for a user kernel: its own source).
  std::string template_for(std::string_view kernel) const;
  // How the last user kernel's owners were found ("recorded by the CPU simulator: flat", "owners
  // from the CPU simulator's run of the same source: 2D", or why there are none).
  const std::string& owners_note() const { return owners_note_; }

  // CUDA backend: the CPU build and replay that find a new launch shape's owners and stray
  // accesses run on a worker, so a run returns its GPU result without waiting for them (the
  // window; issue 32). Off (the default: bench, sweeps' forks, tests): a run makes them first.
  void set_findings_in_background(bool on) { findings_in_background_ = on; }
  bool findings_in_background() const { return findings_in_background_; }
  // A CPU build or replay is in hand for a launch that already returned, or its findings wait
  // for take_findings (the run modes must not stop between the two).
  bool findings_pending() const { return findings_worker_ && findings_worker_->busy(); }
  // Keeps the findings that arrived since the last call; how many. The next run of their launch
  // shape uses them (its record gets the mapping, or fails with the replay's out-of-bounds
  // report), so a caller showing a user kernel relaunches when this is not 0.
  std::size_t take_findings();
  // Blocks until no findings are pending, then takes them (tools and tests, never the UI thread).
  std::size_t wait_for_findings();

  // lab::Lab
  lab::Lab* wrapped() override { return inner_.get(); }
  // Changes when a user kernel is installed or rebuilt, and when the wrapped lab's own list
  // changes (the matmul precision swaps its ladder).
  std::uint64_t kernels_version() const override { return book_->version() + (inner_->kernels_version() << 32); }
  const lab::Lab* wrapped() const override { return inner_.get(); }
  std::string_view id() const override { return inner_->id(); }
  std::string_view title() const override { return inner_->title(); }
  const lab::Backend& backend() const override { return inner_->backend(); }
  const std::vector<lab::KernelInfo>& kernels() const override;
  lab::ProblemInfo problem() const override { return inner_->problem(); }
  LaunchRecord plan(std::string_view kernel, const KernelConfig& config) override;
  LaunchRecord run(std::string_view kernel, const KernelConfig& config, const lab::RunOptions& options) override;
  std::size_t output_bytes() const override { return inner_->output_bytes(); }
  Status download_output(void* host) override;
  std::optional<mapping::ElementOwner> owner(const LaunchRecord& launch, long long x, long long y) const override;
  std::vector<mapping::WarpAccess> warp_accesses(const LaunchRecord& launch, Dim3 block, unsigned warp,
                                                 int step) const override;
  Result<std::unique_ptr<lab::Lab>> fork() const override;
  std::optional<Result<LineProfile>> profile_lines_elsewhere(std::string_view kernel, const KernelConfig& config,
                                                             const LineSampling& sampling) override;
  // A user kernel's counters, read in its runner (CustomKernel::profile_counters), with the
  // planned record of the profiled launch for the model half.
  std::optional<Result<CountersElsewhere>> profile_counters_elsewhere(std::string_view kernel,
                                                                      const KernelConfig& config,
                                                                      const CounterRequest& request) override;
  std::optional<Result<SharedRequests>> recorded_shared_requests_elsewhere(const LaunchRecord& launch, Dim3 block,
                                                                           unsigned warp,
                                                                           unsigned max_requests) override;
  Status set_random_problem(std::string_view size) override { return inner_->set_random_problem(size); }
  std::string size_syntax() const override { return inner_->size_syntax(); }
  std::vector<std::string> default_sizes() const override { return inner_->default_sizes(); }
  std::vector<lab::Setting> settings() const override { return inner_->settings(); }
  // The lab's own kernels ask the lab they are in; a user kernel has no suggestion here.
  const lab::UserKernelSpec* user_kernel_spec() const override { return spec_; }
  std::optional<lab::BlockSuggestion> suggested_block(std::string_view kernel) override {
    return is_user_kernel_id(kernel) ? std::nullopt : inner_->suggested_block(kernel);
  }
  Status set_setting(std::string_view key, std::string_view value) override { return inner_->set_setting(key, value); }

 private:
  LaunchRecord base_record(std::string_view kernel, const KernelConfig& config) const;
  LaunchRecord plan_user(const UserKernel& k, const KernelConfig& config, std::shared_ptr<CustomKernel>* build,
                         std::optional<Problem>* problem);
  // The CPU findings of a launch shape (GPU backend): made now, or known already; nullopt while
  // they are being made on the worker.
  std::optional<CpuFindings> cpu_findings(const UserKernel& k, const Problem& problem, const LaunchConfig& launched,
                                          const RunRequest& req);
  Status copy_output(const std::vector<std::uint8_t>& bytes, void* output) const;
  // The spec's generation and the lab's settings: what a pack depends on.
  std::string problem_key() const;

  std::unique_ptr<lab::Lab> inner_;
  const lab::UserKernelSpec* spec_;
  std::shared_ptr<UserKernelBook> book_;
  mutable std::vector<lab::KernelInfo> kernels_;  // the inner lab's, then the book's
  mutable std::uint64_t kernels_version_ = 0;
  // The lab's data packed per form id, for the data and settings in problem_key_.
  std::map<std::string, Problem> problems_;
  std::string problem_key_;
  std::vector<std::uint8_t> last_output_;  // the last user kernel's result (download_output)
  bool last_was_user_ = false;
  std::string owners_note_;
  std::map<std::string, CpuFindings> derived_;  // source hash | block | grid | generation
  bool findings_in_background_ = false;
  // Last: destroyed first, so its job in hand finishes while the rest of the lab still exists.
  std::unique_ptr<CpuFindingsWorker> findings_worker_;
};

// Wraps `inner` with the kernels of `book` when it offers a user-kernel spec (what the catalog
// does for every lab); returns `inner` as it is when it offers none.
std::unique_ptr<lab::Lab> with_user_kernels(std::unique_ptr<lab::Lab> inner, std::shared_ptr<UserKernelBook> book);

// The labs of a catalog that take the user's kernels (CatalogEntry::user_kernels), as the book
// knows them: which lab a dropped .cu belongs to.
UserLabs user_labs_of(const lab::Catalog& catalog);

// `catalog` with the user's kernels: one engine (its spare runner processes, its compile cache)
// and one book per lab that offers a spec, shared by that lab's objects on every backend (so a
// switch of compute keeps them); each such entry's create wraps its lab (with_user_kernels).
lab::Catalog with_user_kernels(lab::Catalog catalog, std::shared_ptr<Engine> engine);

// Copies `bytes` host bytes to `dst`, which is device memory on the CUDA backend (a mapped GL
// buffer or a lab's device buffer) and host memory on the CPU.
Status copy_to_output(void* dst, const void* src, std::size_t bytes, BackendKind backend);

}  // namespace bs::custom
