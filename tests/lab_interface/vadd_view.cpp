#include "vadd_view.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "labs/catalog.hpp"
#include "platform/png.hpp"
#include "ui/panels.hpp"
#include "ui/widgets.hpp"

namespace bs::test {

using namespace bs::app;

Result<std::unique_ptr<LabView>> VaddView::create(std::unique_ptr<lab::Lab> lab, const LabViewSetup& setup,
                                                  ViewContext&) {
  std::unique_ptr<VaddView> v(new VaddView());
  v->lab_ = std::move(lab);
  v->view_ = setup.view;
  return std::unique_ptr<LabView>(std::move(v));
}

Status VaddView::set_lab(std::unique_ptr<lab::Lab> lab, ViewContext&) {
  lab_ = std::move(lab);
  host_.clear();
  return Status::success();
}

LaunchRecord VaddView::launch(const std::string& kernel, const KernelConfig& config, const lab::RunOptions& base,
                              ViewContext&) {
  host_.assign(lab_->output_bytes() / sizeof(float), 0.0f);
  lab::RunOptions options = base;
  options.output = host_.data();
  return lab_->run(kernel, config, options);
}

void VaddView::draw_problem(ViewContext&, ViewRequests&) {
  ImGui::TextColored(ui::kDimColour, "c[i] = a[i] + b[i], %lld floats", lab_->problem().width);
}

void VaddView::draw_view_options(ViewContext&, ViewRequests&) {
  const char* overlays[] = {"Off", "Block lines", "Colour by block", "Colour by warp", "Colour by SM"};
  int om = static_cast<int>(view_.overlay);
  if (ImGui::Combo("overlay", &om, overlays, 5)) view_.overlay = static_cast<OverlayMode>(om);
}

std::optional<PixelPos> VaddView::inspected() const {
  std::optional<PixelPos> p = mouse_ ? mouse_ : view_.pinned ? view_.pinned : view_.hover;
  if (!p || p->x < 0 || p->x >= lab_->problem().width || p->y != 0) return std::nullopt;
  return p;
}

void VaddView::draw_data(const LaunchRecord& shown, bool, ViewContext&, ViewRequests&) {
  const long long n = lab_->problem().width;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 size = ImGui::GetContentRegionAvail();
  const long long rows = (n + kRow - 1) / kRow;
  const float cell = std::max(1.0f, std::min(size.x / kRow, size.y / static_cast<float>(rows)));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  mouse_.reset();
  const ImVec2 m = ImGui::GetIO().MousePos;
  for (long long i = 0; i < n; ++i) {
    const float x0 = origin.x + (i % kRow) * cell, y0 = origin.y + (i / kRow) * cell;
    if (y0 > origin.y + size.y) break;
    ImU32 colour = IM_COL32(60, 60, 70, 255);
    if (shown.ok() && view_.overlay != OverlayMode::Off) {
      const unsigned long long T = shown.config.block.volume();
      const unsigned long long key = view_.overlay == OverlayMode::ColourByWarp ? i / 32 : i / std::max(1ull, T);
      const unsigned h = static_cast<unsigned>(key * 2654435761u);
      colour = IM_COL32(80 + (h & 127), 80 + ((h >> 8) & 127), 80 + ((h >> 16) & 127), 255);
    }
    dl->AddRectFilled(ImVec2(x0, y0), ImVec2(x0 + cell, y0 + cell), colour);
    if (m.x >= x0 && m.x < x0 + cell && m.y >= y0 && m.y < y0 + cell && ImGui::IsWindowHovered())
      mouse_ = PixelPos{i, 0};
  }
  ImGui::Dummy(size);
  if (auto px = inspected(); px && shown.ok()) {
    if (auto owner = lab_->owner(shown, px->x, 0)) {
      ImGui::SetCursorScreenPos(ImVec2(origin.x + 10, origin.y + size.y - 200));
      ImGui::BeginChild("vadd_inspector", ImVec2(360, 190), true);
      ImGui::Text("element %lld: c = %.4f", px->x, px->x < static_cast<long long>(host_.size()) ? host_[px->x] : 0.0f);
      ui::draw_owner(*owner, shown);
      ImGui::EndChild();
    }
  }
}

std::vector<app::Tab> VaddView::tabs() {
  return {app::Tab{
      .panel = app::Panel::Memory, .draw = [this](app::TabContext& c) { draw_memory(c.shown); }, .needs_launch = true}};
}

void VaddView::draw_memory(const LaunchRecord& shown) {
  const auto px = inspected();
  if (!px || !shown.ok()) {
    ImGui::TextColored(ui::kDimColour, "Hover an element to see its warp's requests.");
    return;
  }
  auto owner = lab_->owner(shown, px->x, 0);
  if (!owner) return;
  for (const auto& a : lab_->warp_accesses(shown, owner->thread.block, owner->thread.warp_in_block, 0))
    ui::draw_warp_request(a);
}

Status VaddView::write_output_png(const std::filesystem::path& path) {
  int w = 0, h = 0;
  const auto bytes = read_output(&w, &h);
  if (bytes.empty()) return Status::failure("no result yet", "", "write_output_png");
  return write_png(path, w, h, 1, bytes.data());
}

// One byte per element: (c + 2) * 63.75, so -2..2 spans 0..255.
std::vector<std::uint8_t> VaddView::read_output(int* width, int* height) {
  if (host_.empty()) return {};
  *width = static_cast<int>(host_.size());
  *height = 1;
  std::vector<std::uint8_t> out(host_.size());
  for (std::size_t i = 0; i < host_.size(); ++i)
    out[i] = static_cast<std::uint8_t>(std::clamp((host_[i] + 2.0f) * 63.75f, 0.0f, 255.0f));
  return out;
}

LabEntry vadd_entry() { return app::with_views({vadd_lab_entry()}, {{"vadd", &VaddView::create}}).front(); }

}  // namespace bs::test
