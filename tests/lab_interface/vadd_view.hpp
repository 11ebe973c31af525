// The test-only lab's view: the vector drawn as rows of cells, coloured by the block (or warp)
// that computes each element, with the hovered element's thread and the memory requests of its
// warp. Written only against LabView and the ui/ panels, as a third lab would be.
#pragma once
#include <memory>
#include <vector>

#include "labs/lab_view.hpp"
#include "vadd_lab.hpp"

namespace bs::test {

class VaddView final : public app::LabView {
 public:
  static Result<std::unique_ptr<app::LabView>> create(std::unique_ptr<lab::Lab> lab, const app::LabViewSetup& setup,
                                                      app::ViewContext& ctx);
  lab::Lab& lab() override { return *lab_; }
  const lab::Lab& lab() const override { return *lab_; }
  Status set_lab(std::unique_ptr<lab::Lab> lab, app::ViewContext& ctx) override;
  bool update(app::ViewContext&) override { return false; }
  LaunchRecord launch(const std::string& kernel, const KernelConfig& config, const lab::RunOptions& options,
                      app::ViewContext& ctx) override;
  void draw_problem(app::ViewContext& ctx, app::ViewRequests& requests) override;
  void draw_view_options(app::ViewContext& ctx, app::ViewRequests& requests) override;
  void draw_data(const LaunchRecord& shown, bool selection_ran, app::ViewContext& ctx,
                 app::ViewRequests& requests) override;
  std::vector<app::Tab> tabs() override;  // Memory: the inspected warp's requests
  void draw_memory(const LaunchRecord& shown);
  std::optional<app::PixelPos> inspected() const override;
  app::ViewState& view_state() override { return view_; }
  Status write_output_png(const std::filesystem::path& path) override;
  std::vector<std::uint8_t> read_output(int* width, int* height) override;
  std::string interop_mode() const override { return "CPU simulation: drawn from host memory"; }

  static constexpr long long kRow = 64;  // elements per drawn row

 private:
  std::unique_ptr<lab::Lab> lab_;
  std::vector<float> host_;  // the last result, as the view shows it
  app::ViewState view_;
  std::optional<app::PixelPos> mouse_;
};

// The catalog entry a test adds next to the built-in labs.
app::LabEntry vadd_entry();

}  // namespace bs::test
