// The user's kernels as first-class kernels of a lab: a lab::Lab that wraps a lab (grayscale,
// matmul) and adds the kernels of its UserKernelBook to the lab's own, so the window's views, the
// timings beside the copy ceiling or cuBLAS, launch statistics, the schedule, bench, sweeps and
// exports all work on them through the one lab interface.
//
//   auto lab = with_user_kernels(std::move(gray_lab), gray_adapter(), book);
//   lab->kernels();                      // the ladder, then "custom: rgb_to_grayscale_kernel"
//   lab->run("custom:rgb_to_grayscale_kernel", {Dim3{256, 1, 1}}, options);
//   lab::layer<gray::GrayLab>(*lab)->set_image(...);   // the view reaches the lab it draws
//
// Why a wrapper and not a hook in every lab: the user's kernels need only what an adapter gives
// (the lab's data as a custom::Problem, a number that changes with it, and which template
// starts an edit of each built-in kernel), so a lab gets them without knowing about compilers,
// runner processes or the book, and the labs' own code paths stay as they were.
//
// What a run of a user kernel does (kernels/labs/custom/README.md has the engine's side):
//   - the build for this backend (compiled on first use after a switch of compute), launched in
//     its runner process with the book's time limit, verified against the lab's reference;
//   - its output arrives as host bytes: copied into RunOptions::output (a CUDA-mapped GL buffer
//     on the CUDA backend, host memory on the CPU), and kept for download_output();
//   - who stores what: the CPU simulator records every store's thread. When those owners are
//     exactly one of the closed-form mappings (the lecture's 1D, a grid-stride loop, 2D, 2D
//     transposed), the record says that scheme and every view draws it as for built-in kernels;
//     else the record keeps the recorded owners (IndexScheme::Recorded) for the inspector. The GPU
//     records none, so on the CUDA backend the same source's CPU build is run once per launch
//     shape on the same data (when that is small enough) and its owners give the scheme; when
//     that cannot be done the record says Recorded with no owners and the views say so;
//   - an out-of-bounds access stops a CPU launch with its block and thread. On the GPU a small
//     overrun does not fault (it lands in memory nobody checks), so the CPU replay above also
//     catches it, and the GPU record fails with the replay's report;
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

#include "lab/lab.hpp"
#include "labs/custom/user_kernels.hpp"

namespace bs::custom {

// What a lab gives its user kernels.
struct LabAdapter {
  // Changes whenever the lab's data changes.
  std::function<std::uint64_t(const lab::Lab&)> generation;
  // The lab's data as user kernels receive it.
  std::function<Result<Problem>(const lab::Lab&)> problem;
  // Why user kernels cannot run with the lab's current settings (success when they can).
  std::function<Status(const lab::Lab&)> settings_check;
  // The template (templates.hpp) an edit of built-in kernel `id` starts from.
  std::function<std::string(std::string_view id)> template_for;
};

LabAdapter gray_adapter();    // gray::GrayLab: planar RGB; refuses layout=rgba
LabAdapter matmul_adapter();  // matmul::MatmulLab: A (M x K), B (K x N)

// Whether the recorded owners of a launch are exactly one of the closed-form schemes; nullopt
// when none matches (the owners then stay IndexScheme::Recorded).
std::optional<IndexScheme> closed_form_scheme(const LaunchConfig& config, const OwnerMap& owners);

class UserKernelLab final : public lab::Lab {
 public:
  UserKernelLab(std::unique_ptr<lab::Lab> inner, LabAdapter adapter, std::shared_ptr<UserKernelBook> book);
  ~UserKernelLab() override;

  UserKernelBook& book() { return *book_; }
  const std::shared_ptr<UserKernelBook>& shared_book() const { return book_; }
  Target target() const;  // the CUDA backend compiles for the GPU, the simulator for the CPU
  // The lab's current data as user kernels receive it (copied once per change of the data).
  Result<Problem> user_problem();
  Status settings_check() const { return adapter_.settings_check ? adapter_.settings_check(*inner_) : Status::success(); }
  // The template an edit of `kernel` starts from ("" for a user kernel: its own source).
  std::string template_for(std::string_view kernel) const;
  // How the last user kernel's owners were found ("recorded by the CPU simulator: flat", "owners
  // from the CPU simulator's run of the same source: 2D", or why there are none).
  const std::string& owners_note() const { return owners_note_; }

  // lab::Lab
  lab::Lab* wrapped() override { return inner_.get(); }
  std::uint64_t kernels_version() const override { return book_->version(); }
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
  Status set_random_problem(std::string_view size) override { return inner_->set_random_problem(size); }
  std::string size_syntax() const override { return inner_->size_syntax(); }
  std::vector<std::string> default_sizes() const override { return inner_->default_sizes(); }
  std::vector<lab::Setting> settings() const override { return inner_->settings(); }
  // The lab's own kernels ask the lab they are in; a user kernel has no suggestion here.
  std::optional<lab::BlockSuggestion> suggested_block(std::string_view kernel) override {
    return is_user_kernel_id(kernel) ? std::nullopt : inner_->suggested_block(kernel);
  }
  Status set_setting(std::string_view key, std::string_view value) override {
    return inner_->set_setting(key, value);
  }

 private:
  // Owners of a launch shape derived from the CPU build (GPU backend), per problem generation.
  struct DerivedOwners {
    std::optional<IndexScheme> scheme;  // nullopt: no closed form, or could not be derived
    std::string note;
    std::optional<OutOfBoundsReport> out_of_bounds;  // the replay hit a stray access
  };
  LaunchRecord base_record(std::string_view kernel, const KernelConfig& config) const;
  LaunchRecord plan_user(const UserKernel& k, const KernelConfig& config, std::shared_ptr<CustomKernel>* build);
  DerivedOwners derive_owners_on_cpu(const UserKernel& k, const LaunchConfig& launched, const RunRequest& req);
  Status copy_output(const std::vector<std::uint8_t>& bytes, void* output) const;

  std::unique_ptr<lab::Lab> inner_;
  LabAdapter adapter_;
  std::shared_ptr<UserKernelBook> book_;
  mutable std::vector<lab::KernelInfo> kernels_;  // the inner lab's, then the book's
  mutable std::uint64_t kernels_version_ = 0;
  std::optional<Problem> problem_;
  std::uint64_t problem_generation_ = 0;
  std::vector<std::uint8_t> last_output_;  // the last user kernel's result (download_output)
  bool last_was_user_ = false;
  std::string owners_note_;
  std::map<std::string, DerivedOwners> derived_;  // source hash | block | grid | generation
};

// Wraps `inner` with the kernels of `book` (what the catalog does for every lab that has an
// adapter).
std::unique_ptr<lab::Lab> with_user_kernels(std::unique_ptr<lab::Lab> inner, LabAdapter adapter,
                                            std::shared_ptr<UserKernelBook> book);

// Copies `bytes` host bytes to `dst`, which is device memory on the CUDA backend (a mapped GL
// buffer or a lab's device buffer) and host memory on the CPU.
Status copy_to_output(void* dst, const void* src, std::size_t bytes, BackendKind backend);

}  // namespace bs::custom
