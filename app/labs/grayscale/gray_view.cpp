// Section index
//   1. creation, moving to another backend, installing images
//   2. launching into GL (zero-copy interop, host-copy fallback, CPU)
//   3. the left panel: the image, the view options
//   4. the data view: the image view with the overlay, input, the inspector
//   5. the memory tab
//   6. outputs
#include "labs/grayscale/gray_view.hpp"

#include <epoxy/gl.h>
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "device/nvtx_range.hpp"
#include "labs/custom/user_kernel_lab.hpp"
#include "mapping/explain.hpp"
#include "mapping/schedule.hpp"
#include "platform/png.hpp"
#include "ui/panels.hpp"
#include "ui/widgets.hpp"

namespace bs::app {

// ---------------------------------------------------------------------------------------------
// 1. creation
// ---------------------------------------------------------------------------------------------

Result<std::unique_ptr<LabView>> GrayView::create(std::unique_ptr<lab::Lab> lab, const LabViewSetup& setup,
                                                  ViewContext&) {
  std::unique_ptr<GrayView> v(new GrayView());
  // The lab may be wrapped (the user's kernels added to it): the view draws the grayscale lab
  // inside and runs everything through the whole stack.
  auto* gray = lab::layer<gray::GrayLab>(*lab);
  if (!gray) return Status::failure("the grayscale view needs the grayscale lab", "", "GrayView::create");
  v->stack_ = std::move(lab);
  v->lab_ = gray;
  for (auto* slot : {&v->renderer_, &v->second_renderer_}) {
    auto r = ImageViewRenderer::create();
    if (!r) return r.status();
    slot->emplace(std::move(r.value()));
  }
  v->view_ = setup.view;
  return std::unique_ptr<LabView>(std::move(v));
}

GrayView::~GrayView() = default;

Status GrayView::build_shown(Rgba8Image image, ViewContext& ctx, Shown* out) {
  const bool simulated = lab_->backend().kind == BackendKind::CpuSimulation;
  out->windowed = simulated && image.pixel_count() > full_texture_limit_;
  if (!out->windowed) {
    auto original = GlTexture::create_rgba8(image.width, image.height, image.rgba.data());
    if (!original) return original.status();
    auto result = GlTexture::create_r8(image.width, image.height);
    if (!result) return result.status();
    out->original = std::move(original.value());
    out->result = std::move(result.value());
  }
  if (lab_->backend().kind == BackendKind::Cuda) {
    auto pbo = InteropPixelBuffer::create(image.width, image.height, 1);
    if (!pbo) return pbo.status();
    if (!pbo->interop_active())
      ctx.messages.warn("CUDA-GL interop is off: results go through host memory",
                        pbo->registration_status().describe());
    out->pixel_buffer.emplace(std::move(pbo.value()));
  }
  // Reserved, not yet touched: install_image sizes it once the lab holds the pixels and the
  // decoded RGBA is gone, so a huge image's load peak does not hold both (issue 34).
  try {
    if (simulated || (out->pixel_buffer && !out->pixel_buffer->interop_active()))
      out->host_result.reserve(image.pixel_count());
  } catch (const std::bad_alloc&) {
    return Status::failure(
        "not enough memory to show a " + std::to_string(image.width) + " x " + std::to_string(image.height) + " result",
        "choose a smaller image", "GrayView::build_shown");
  }
  out->image = std::move(image);
  return Status::success();
}

// A windowed view's textures: made again from the lab's image (sampled at the window's step)
// and from host_result when the view shows what they do not hold, or the result changed.
void GrayView::hold_window(ImageViewParams& params, ViewContext* ctx) {
  if (!shown_ || !shown_->windowed) return;
  Shown& img = *shown_;
  const TextureWindow visible = visible_window(params);
  const bool move = !img.window.holds(visible);
  if (move || img.result_stale) {
    const TextureWindow w = move ? padded_window(visible, img.image.width, img.image.height) : img.window;
    if (w.empty()) return;
    const std::size_t texels = static_cast<std::size_t>(w.width) * w.height;
    Status st = Status::success();
    if (move) {
      std::vector<std::uint8_t> rgba(4 * texels);
      lab_->sample_rgba(w.x0, w.y0, w.step, w.width, w.height, rgba.data());
      auto t = GlTexture::create_rgba8(w.width, w.height, rgba.data());
      if (t) img.original = std::move(t.value());
      else st = t.status();
    }
    std::vector<std::uint8_t> gray(texels);
    const long long W = img.image.width, H = img.image.height;
    for (int j = 0; j < w.height; ++j) {
      const long long y = std::min(H - 1, w.y0 + 1LL * j * w.step);
      const std::uint8_t* row = img.host_result.data() + y * W;
      for (int i = 0; i < w.width; ++i) gray[1LL * j * w.width + i] = row[std::min(W - 1, w.x0 + 1LL * i * w.step)];
    }
    if (st) {
      if (move || img.result.width() != w.width || img.result.height() != w.height) {
        auto t = GlTexture::create_r8(w.width, w.height, gray.data());
        if (t) img.result = std::move(t.value());
        else st = t.status();
      } else {
        st = img.result.upload(gray.data());
      }
    }
    if (!st) {
      if (ctx) ctx->messages.error(st);
      return;
    }
    img.window = w;
    img.result_stale = false;
  }
  params.texture_x0 = img.window.x0;
  params.texture_y0 = img.window.y0;
  params.texture_step = img.window.step;
}

Status GrayView::upload_result() {
  ++output_generation_;
  Shown& img = *shown_;
  if (img.windowed) {
    img.result_stale = true;  // the next frame samples its window
    return Status::success();
  }
  return img.result.upload(img.host_result.data());
}

// Everything that can fail happens before the old image is released, so a failure leaves the
// previous image loaded and on screen.
Status GrayView::install_image(Rgba8Image image, ViewContext& ctx) {
  Shown next;
  if (Status s = build_shown(std::move(image), ctx, &next); !s) return s;
  const Rgba8Image& img = next.image;
  if (Status s = lab_->set_image(img.rgba.data(), img.width, img.height, img.name); !s) {
    s.message = "could not load " + img.name + " into the compute backend: " + s.message;
    return s;
  }
  // The lab holds the pixels now (once): the view reads them there.
  std::vector<std::uint8_t>().swap(next.image.rgba);
  next.host_result.resize(next.host_result.capacity() > 0 ? img.pixel_count() : 0);  // reserved: cannot throw
  ctx.messages.info("Loaded " + img.name + " (" + std::to_string(img.width) + " x " + std::to_string(img.height) +
                    ", " + img.format + ")");
  const bool first = !shown_.has_value();
  shown_ = std::move(next);
  ++output_generation_;
  texel_ = {};  // another image: no value read from the old texture stands
  sm_of_block_ = GlTexture();
  sm_texture_for_.clear();
  if (!first || view_.center_x < 0) {
    view_.center_x = shown_->image.width / 2.0f;
    view_.center_y = shown_->image.height / 2.0f;
  }
  if (!first) {
    view_.zoom = 0;  // a new image opens fitted
    view_.pinned.reset();
  }
  return Status::success();
}

Status GrayView::set_lab(std::unique_ptr<lab::Lab> lab, ViewContext& ctx) {
  auto* gray = lab::layer<gray::GrayLab>(*lab);
  if (!gray) return Status::failure("the grayscale view needs the grayscale lab", "", "GrayView::set_lab");
  std::optional<Rgba8Image> keep;
  if (shown_) {
    // The pixels, from the old lab, for the new one.
    keep = std::move(shown_->image);
    try {
      keep->rgba.resize(4 * keep->pixel_count());
      lab_->copy_rgba(keep->rgba.data());
    } catch (const std::bad_alloc&) {
      return Status::failure("not enough memory to move the image to the other backend", "choose a smaller image",
                             "GrayView::set_lab");
    }
  }
  shown_.reset();  // its CUDA-registered buffer belongs to the old backend
  texel_ = {};
  stack_ = std::move(lab);
  lab_ = gray;
  sm_of_block_ = GlTexture();
  sm_texture_for_.clear();
  if (keep) return install_image(std::move(*keep), ctx);
  return Status::success();
}

bool GrayView::update(ViewContext&) { return false; }

// ---------------------------------------------------------------------------------------------
// 2. launching into GL
// ---------------------------------------------------------------------------------------------

LaunchRecord GrayView::launch(const std::string& kernel, const KernelConfig& config, const lab::RunOptions& base,
                              ViewContext&) {
  LaunchRecord rec;
  if (!shown_) {
    rec = stack_->plan(kernel, config);
    rec.refused = true;
    return rec;
  }
  lab::RunOptions options = base;
  Shown& img = *shown_;
  // The view's own steps beside the lab's (LaunchRecord::steps): the frame phases itemise them.
  StepTimes view_steps;
  const auto run = [&] {
    NvtxRange range("launch " + kernel);
    LaunchRecord r = stack_->run(kernel, config, options);
    view_steps.mark = StepTimes::Clock::now();
    return r;
  };
  if (img.pixel_buffer && img.pixel_buffer->interop_active()) {
    // No host copy: the kernel writes the interop buffer's device memory, which CUDA copies into
    // the result texture.
    // NVTX ranges name blockscope's phases for a user profiling it with Nsight Systems.
    auto ptr = [&] {
      NvtxRange range("map");
      return img.pixel_buffer->map();
    }();
    view_steps.end("interop map");
    if (!ptr) {
      rec = stack_->plan(kernel, config);
      rec.status = ptr.status();
      return rec;
    }
    options.output = ptr.value();
    rec = run();
    {
      NvtxRange unmap_range("unmap");
      if (Status s = img.pixel_buffer->unmap(); !s && rec.ok()) rec.status = s;
    }
    view_steps.end("interop unmap");
    if (rec.ok())
      if (Status s = img.pixel_buffer->upload_to(img.result); !s) rec.status = s;
    view_steps.end("buffer to texture");
  } else if (lab_->backend().kind == BackendKind::Cuda) {
    rec = run();
    if (rec.ok())
      if (Status s = stack_->download_output(img.host_result.data()); !s) rec.status = s;
    view_steps.end("download");
    if (rec.ok())
      if (Status s = upload_result(); !s) rec.status = s;
    view_steps.end("host to texture");
  } else {
    options.output = img.host_result.data();
    rec = run();
    if (rec.ok())
      if (Status s = upload_result(); !s) rec.status = s;
    view_steps.end("host to texture");
  }
  rec.steps.add(view_steps);
  take_schedule(rec);
  return rec;
}

// The per-block SM (or worker) ids of a traced launch, for colour by SM.
void GrayView::take_schedule(const LaunchRecord& rec) {
  if (!rec.ok() || rec.schedule.empty()) return;
  const auto units = mapping::unit_per_block(rec.schedule, rec.config.grid);
  std::vector<uint32_t> u(units.begin(), units.end());
  if (auto tex = make_sm_of_block_texture(u); tex) {
    sm_of_block_ = std::move(tex.value());
    sm_texture_for_ = rec.kernel + "|" + rec.config_label;
  }
}

// A run a worker thread made on a fork of this lab (CPU simulation): its output is the gray
// image in host memory, uploaded as launch() uploads its own.
bool GrayView::show_result(const LaunchRecord& rec, const std::vector<std::uint8_t>& output, ViewContext& ctx) {
  if (!shown_ || shown_->host_result.empty() || output.size() != shown_->host_result.size()) return false;
  std::copy(output.begin(), output.end(), shown_->host_result.begin());
  if (Status s = upload_result(); !s) {
    ctx.messages.error(s);
    return true;
  }
  take_schedule(rec);
  return true;
}

void GrayView::zoom_by(float factor) {
  if (!shown_) return;
  if (view_.zoom <= 0) {
    view_.zoom = drawn_zoom_ > 0 ? drawn_zoom_ : 1.0f;
    view_.center_x = shown_->image.width / 2.0f;
    view_.center_y = shown_->image.height / 2.0f;
  }
  view_.zoom = std::clamp(view_.zoom * factor, 0.02f, 256.0f);
}

// ---------------------------------------------------------------------------------------------
// 3. the left panel
// ---------------------------------------------------------------------------------------------

void GrayView::draw_problem(ViewContext&, ViewRequests& requests) {
  ui::wrapped_text(ui::kDimColour, "out = 0.2989 R + 0.5870 G + 0.1140 B");
  if (shown_) {
    const Rgba8Image& im = shown_->image;
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(im.name.c_str());
    ImGui::TextColored(ui::kDimColour, "%d x %d px, %s, %d channel%s, %d bit", im.width, im.height, im.format.c_str(),
                       im.source_channels, im.source_channels == 1 ? "" : "s", im.source_bits_per_channel);
    ImGui::PopTextWrapPos();
  } else {
    ImGui::TextColored(ui::kDimColour, "no image loaded");
  }
  if (ImGui::Button("Open image...")) requests.open_image = true;
  ui::item_tooltip("Ctrl+O");
  const char* drop = "or drop files here";
  if (ImGui::GetContentRegionAvail().x - ImGui::GetItemRectSize().x - ImGui::GetStyle().ItemSpacing.x >=
      ImGui::CalcTextSize(drop).x)
    ImGui::SameLine();
  ImGui::TextColored(ui::kDimColour, "%s", drop);
}

void GrayView::draw_view_options(ViewContext&, ViewRequests&) {
  const char* compare[] = {"Split", "Side by side", "Result only", "Original only"};
  int cm = static_cast<int>(view_.compare);
  const float w = ImGui::GetContentRegionAvail().x * 0.6f;
  ImGui::SetNextItemWidth(w);
  if (ImGui::Combo("compare", &cm, compare, 4)) view_.compare = static_cast<CompareMode>(cm);
  if (view_.compare == CompareMode::Split) {
    ImGui::SetNextItemWidth(w);
    ImGui::SliderFloat("split", &view_.split, 0.0f, 1.0f, "%.2f");
  }
  const char* overlays[] = {"Off", "Block lines", "Colour by block", "Colour by warp", "Colour by SM"};
  int om = static_cast<int>(view_.overlay);
  ImGui::SetNextItemWidth(w);
  if (ImGui::Combo("overlay", &om, overlays, 5)) view_.overlay = static_cast<OverlayMode>(om);
  ImGui::SetNextItemWidth(w);
  ImGui::SliderFloat("opacity", &view_.overlay_opacity, 0.0f, 1.0f, "%.2f");
  const bool fit = view_.zoom <= 0;
  if (fit) ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.30f, 0.50f, 0.30f, 1));
  if (ImGui::Button("Fit")) view_.zoom = 0;
  if (fit) ImGui::PopStyleColor();
  ImGui::SameLine();
  if (ImGui::Button("1:1")) view_.zoom = 1;
  ImGui::SameLine();
  if (view_.zoom > 0) ImGui::TextColored(ui::kDimColour, "zoom %.2fx", view_.zoom);
  else ImGui::TextColored(ui::kDimColour, "zoom: fit");
  if (view_.pinned) {
    ImGui::Text("pinned pixel (%lld, %lld)", view_.pinned->x, view_.pinned->y);
    ImGui::SameLine();
    if (ImGui::SmallButton("unpin")) view_.pinned.reset();
  }
}

// ---------------------------------------------------------------------------------------------
// 4. the data view
// ---------------------------------------------------------------------------------------------

ImageViewParams GrayView::view_params(int out_w, int out_h) const {
  ImageViewParams p;
  const auto& img = shown_->image;
  p.texture_a = shown_->original.id();
  p.a_is_gray = false;
  p.texture_b = shown_->result.id();
  p.b_is_gray = true;
  p.image_width = img.width;
  p.image_height = img.height;
  p.output_width = out_w;
  p.output_height = out_h;
  // Zoom 0 is "fit", recomputed for every frame's size: a resized window stays fitted.
  p.zoom = view_.zoom > 0 ? view_.zoom : zoom_to_fit(img.width, img.height, out_w, out_h);
  p.centre_x = view_.zoom > 0 && view_.center_x >= 0 ? view_.center_x : img.width / 2.0f;
  p.centre_y = view_.zoom > 0 && view_.center_y >= 0 ? view_.center_y : img.height / 2.0f;
  switch (view_.compare) {
    case CompareMode::Split: p.split_fraction = view_.split; break;
    case CompareMode::ResultOnly:
      p.split_fraction = 0.0f;
      p.draw_split_line = false;
      break;
    case CompareMode::OriginalOnly:
      p.split_fraction = 1.0f;
      p.draw_split_line = false;
      break;
    case CompareMode::SideBySide: p.split_fraction = 0.5f; break;  // drawn as two views
  }
  return p;
}

std::optional<PixelPos> GrayView::inspected() const {
  std::optional<PixelPos> p = mouse_pixel_;
  if (!p) p = view_.pinned;
  if (!p) p = view_.hover;
  if (!p || !shown_ || p->x < 0 || p->y < 0 || p->x >= shown_->image.width || p->y >= shown_->image.height)
    return std::nullopt;
  return p;
}

OverlayParams GrayView::overlay_params(const LaunchRecord& rec) const {
  OverlayParams o;
  if (!rec.ok() || rec.kernel.empty() || !shown_ || rec.config.grid.x == 0) return o;
  // The shader's mappings (gfx/image_view.hpp) are the schemes with a closed form over pixels; the
  // rung's traits chose the scheme (the library anchor and the copy have none to draw).
  int mapping = -1;
  if (rec.scheme.kind == IndexScheme::Kind::Flat) mapping = 0;
  if (rec.scheme.kind == IndexScheme::Kind::Grid2D) mapping = 1;
  if (rec.scheme.kind == IndexScheme::Kind::Grid2DTransposed) mapping = 2;
  if (mapping < 0) return o;
  switch (view_.overlay) {
    case OverlayMode::Off: o.mode = OverlayParams::Off; break;
    case OverlayMode::BlockLines: o.mode = OverlayParams::BlockLines; break;
    case OverlayMode::ColourByBlock: o.mode = OverlayParams::ColourByBlock; break;
    case OverlayMode::ColourByWarp: o.mode = OverlayParams::ColourByWarp; break;
    case OverlayMode::ColourBySm: o.mode = OverlayParams::ColourBySm; break;
  }
  o.mapping = mapping;
  o.vector = rec.scheme.vector;
  o.per_thread = rec.scheme.per_thread;
  o.grid_stride = rec.scheme.grid_stride;
  o.head = static_cast<unsigned>(rec.scheme.head);
  o.tail = static_cast<unsigned>(rec.scheme.tail);
  o.block[0] = rec.config.block.x, o.block[1] = rec.config.block.y, o.block[2] = rec.config.block.z;
  o.grid[0] = rec.config.grid.x, o.grid[1] = rec.config.grid.y, o.grid[2] = rec.config.grid.z;
  o.image_w = shown_->image.width;
  o.image_h = shown_->image.height;
  o.opacity = view_.overlay_opacity;
  if (sm_texture_for_ == rec.kernel + "|" + rec.config_label) o.sm_of_block_texture = sm_of_block_.id();
  if (auto px = inspected()) {
    if (auto owner = stack_->owner(rec, px->x, px->y)) {
      o.highlight_block_linear = static_cast<int>(owner->thread.linear_block);
      o.highlight_thread = static_cast<long long>(owner->thread.global_linear_thread);
    }
  }
  return o;
}

void GrayView::draw_data(const LaunchRecord& shown, bool selection_ran, ViewContext& ctx, ViewRequests&) {
  if (!shown_) {
    ImGui::TextColored(ui::kDimColour, "Drop an image here, or use File > Open image.");
    return;
  }
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 size = ImGui::GetContentRegionAvail();
  const ImVec2 fb_scale = ImGui::GetIO().DisplayFramebufferScale;
  const OverlayParams overlay = overlay_params(shown);
  mouse_pixel_.reset();
  // Side by side: two views of half the width sharing one centre and zoom (original left,
  // result right); otherwise one view, split or single.
  const bool side_by_side = view_.compare == CompareMode::SideBySide;
  const int panes = side_by_side ? 2 : 1;
  const float gap = side_by_side ? 4.0f : 0.0f;
  const ImVec2 pane_size((size.x - gap * (panes - 1)) / panes, size.y);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (int pane = 0; pane < panes; ++pane) {
    ImageViewRenderer& renderer = pane == 0 ? *renderer_ : *second_renderer_;
    const ImVec2 pane_origin(origin.x + pane * (pane_size.x + gap), origin.y);
    const int out_w = std::max(1, static_cast<int>(pane_size.x * fb_scale.x));
    const int out_h = std::max(1, static_cast<int>(pane_size.y * fb_scale.y));
    ImageViewParams params = view_params(out_w, out_h);
    if (side_by_side) {
      params.split_fraction = pane == 0 ? 1.0f : 0.0f;
      params.draw_split_line = false;
    }
    ImGui::SetCursorScreenPos(pane_origin);
    handle_input(pane_origin, pane_size, params);
    drawn_zoom_ = params.zoom;
    hold_window(params, &ctx);
    if (Status s = renderer.render(params, overlay); !s) {
      ui::status_text(s);
      return;
    }
    ImGui::SetCursorScreenPos(pane_origin);
    ImGui::Image(ui::gl_texture(renderer.texture()), pane_size);
  }
  const ImU32 label = IM_COL32(230, 230, 235, 220);
  if (view_.compare == CompareMode::Split) {
    const float sx = origin.x + size.x * view_.split;
    dl->AddText(ImVec2(origin.x + 8, origin.y + 6), label, "original");
    dl->AddText(ImVec2(sx + 8, origin.y + 6), label, "kernel result");
  } else if (side_by_side) {
    dl->AddText(ImVec2(origin.x + 8, origin.y + 6), label, "original");
    dl->AddText(ImVec2(origin.x + pane_size.x + gap + 8, origin.y + 6), label, "kernel result");
  }
  // The overlay's legend: what its colours mean (warps and SMs have no natural order to read).
  const char* legend = nullptr;
  if (overlay.mode == OverlayParams::ColourByWarp)
    legend = "colour: the warp (32 consecutive threads of a block) that computes each pixel";
  else if (overlay.mode == OverlayParams::ColourBySm)
    legend = shown.schedule.empty()
                 ? "colour by SM: no schedule recorded for this launch (View > Record the block schedule)"
             : shown.schedule_simulated ? "colour: the CPU worker thread that simulated each block (hover: its number)"
                                        : "colour: the SM that ran each block (hover a pixel: its SM)";
  else if (overlay.mode == OverlayParams::ColourByBlock) legend = "colour: the block that computes each pixel";
  if (legend) {
    const ImVec2 ts = ImGui::CalcTextSize(legend);
    const ImVec2 at(std::max(origin.x + 8, origin.x + size.x - ts.x - 10),
                    origin.y + size.y - ts.y - 8);  // clear of the card
    dl->AddRectFilled({at.x - 4, at.y - 2}, {at.x + ts.x + 4, at.y + ts.y + 2}, IM_COL32(20, 22, 28, 220), 3);
    dl->AddText(at, IM_COL32(220, 225, 235, 255), legend);
  }
  if (!selection_ran && shown.ok()) {
    const std::string note = "overlay: the last launch that ran (" + shown.kernel + ", " + shown.config_label + ")";
    const ImVec2 ts = ImGui::CalcTextSize(note.c_str());
    const ImVec2 at(origin.x + size.x - ts.x - 10, origin.y + 6);
    dl->AddRectFilled({at.x - 4, at.y - 2}, {at.x + ts.x + 4, at.y + ts.y + 2}, IM_COL32(60, 40, 10, 220), 3);
    dl->AddText(at, IM_COL32(255, 205, 90, 255), note.c_str());
  }
  if (auto px = inspected(); px && shown.ok()) {
    const bool pinned = view_.pinned.has_value() && !mouse_pixel_;
    if (mouse_pixel_) {
      ImGui::BeginTooltip();
      draw_inspector(shown, *px, false);
      ImGui::EndTooltip();
    } else {
      // Forced hover or pinned pixel: a fixed card in the view's corner, for screenshots too.
      const float em = ImGui::GetFontSize();
      const float card_h = std::min(size.y - em, em * 15.0f);
      ImGui::SetCursorScreenPos(ImVec2(origin.x + 10, origin.y + size.y - card_h - 10));
      // Opaque, so the split line and the overlay do not run through its text; its lines wrap at
      // its edge rather than being cut ("gray out 136, reference 136").
      ImGui::PushStyleColor(ImGuiCol_ChildBg, ImVec4(0.06f, 0.07f, 0.09f, 1.0f));
      ImGui::BeginChild("inspector_card", ImVec2(std::min(size.x - 20, em * 23), card_h), true);
      ImGui::PushTextWrapPos(0.0f);
      draw_inspector(shown, *px, pinned);
      ImGui::PopTextWrapPos();
      ImGui::EndChild();
      ImGui::PopStyleColor();
    }
  }
}

std::string GrayView::gl_output_value(const LaunchRecord& shown, PixelPos px) {
  std::string launch =
      shown.kernel + "|" + shown.config_label + "|" + shown.problem + "|" + std::to_string(stack_->kernels_version());
  for (const auto& [k, v] : shown.settings) launch += "|" + k + "=" + v;
  if (!(texel_.px == px) || texel_.launch != launch) {
    const auto v = read_texel_r8(shown_->result, static_cast<int>(px.x), static_cast<int>(px.y));
    texel_ = {px, std::move(launch), v ? std::to_string(*v) : "-"};
  }
  return texel_.value;
}

void GrayView::draw_inspector(const LaunchRecord& shown, PixelPos px, bool pinned) {
  ImGui::Text("pixel (%lld, %lld)%s", px.x, px.y, pinned ? "  [pinned]" : "");
  const auto& img = shown_->image;
  const std::size_t i = static_cast<std::size_t>(px.y) * img.width + px.x;
  const auto rgba = lab_->pixel(px.x, px.y);
  const bool ran = !shown.kernel.empty();
  std::string out = "-";
  if (ran && !shown_->host_result.empty()) out = std::to_string(shown_->host_result[i]);
  else if (ran) out = gl_output_value(shown, px);  // the GPU wrote it straight into GL (interop)
  ImGui::TextColored(ui::kDimColour, "RGB in (%u, %u, %u) -> gray out %s, reference %u", rgba[0], rgba[1], rgba[2],
                     out.c_str(), lab_->reference_at(px.x, px.y));
  if (!ran) {
    ImGui::TextColored(ui::kDimColour, "no launch has run on this image yet");
    return;
  }
  auto owner = stack_->owner(shown, px.x, px.y);
  if (!owner && shown.scheme.kind == IndexScheme::Kind::Recorded && !shown.owners) {
    // A user kernel on the GPU: nothing records its stores there; the CPU simulator's replay of
    // the launch may still be on its way (labs/custom/cpu_findings.hpp).
    const auto* user = lab::layer<custom::UserKernelLab>(*stack_);
    ImGui::TextColored(ui::kDimColour, "%s",
                       user && user->findings_pending()
                           ? "who stores it is being recorded: the CPU simulator is replaying this launch"
                           : "who stores it is not recorded for this launch (run it on the CPU simulator)");
    return;
  }
  if (!owner) {
    ImGui::TextColored(ui::kWarnColour, "no thread of this launch computes it");
    return;
  }
  ui::draw_owner(*owner, shown);
  if (shown.scheme.kind == IndexScheme::Kind::Flat && shown.scheme.vector == 1 && shown.scheme.per_thread == 1 &&
      !shown.scheme.grid_stride) {
    const unsigned long long t = shown.config.block.volume();
    const unsigned long long first = owner->thread.linear_block * t;
    const unsigned long long n = static_cast<unsigned long long>(img.width) * img.height;
    const unsigned long long last = std::min(first + t, n) - 1;
    ImGui::TextColored(ui::kDimColour, "block covers i = %llu .. %llu", first, last);
    const unsigned long long row0 = first / img.width, row1 = last / img.width;
    if (row0 == row1) ImGui::TextColored(ui::kDimColour, "(part of row %llu)", row0);
    else ImGui::TextColored(ui::kDimColour, "(rows %llu to %llu: it wraps across rows)", row0, row1);
  }
}

void GrayView::handle_input(const ImVec2& origin, const ImVec2& size, ImageViewParams& params) {
  ImGuiIO& io = ImGui::GetIO();
  const bool hovered = ImGui::IsWindowHovered() && io.MousePos.x >= origin.x && io.MousePos.y >= origin.y &&
                       io.MousePos.x < origin.x + size.x && io.MousePos.y < origin.y + size.y;
  if (!hovered) return;
  const ImVec2 fb = io.DisplayFramebufferScale;
  const double mx = (io.MousePos.x - origin.x) * fb.x, my = (io.MousePos.y - origin.y) * fb.y;
  auto [ix, iy] = output_to_image(params, mx, my);
  bool moved = false;
  if (io.MouseWheel != 0) {
    // Zoom about the cursor: the image point under it stays under it.
    const float factor = std::pow(1.2f, io.MouseWheel);
    const float zoom = std::clamp(params.zoom * factor, 0.02f, 256.0f);
    params.centre_x = static_cast<float>(ix - (ix - params.centre_x) * params.zoom / zoom);
    params.centre_y = static_cast<float>(iy - (iy - params.centre_y) * params.zoom / zoom);
    params.zoom = zoom;
    moved = true;
  }
  if (ImGui::IsMouseDragging(ImGuiMouseButton_Left) || ImGui::IsMouseDragging(ImGuiMouseButton_Right)) {
    params.centre_x -= io.MouseDelta.x * fb.x / params.zoom;
    params.centre_y -= io.MouseDelta.y * fb.y / params.zoom;
    moved = moved || io.MouseDelta.x != 0 || io.MouseDelta.y != 0;
  }
  // Only a real zoom or pan leaves "fit"; hovering keeps it, so a resized window stays fitted.
  if (moved) {
    view_.zoom = params.zoom;
    view_.center_x = params.centre_x;
    view_.center_y = params.centre_y;
  }
  std::tie(ix, iy) = output_to_image(params, mx, my);
  const long long px = static_cast<long long>(std::floor(ix)), py = static_cast<long long>(std::floor(iy));
  if (px >= 0 && py >= 0 && px < shown_->image.width && py < shown_->image.height) {
    mouse_pixel_ = PixelPos{px, py};
    if (ImGui::IsMouseReleased(ImGuiMouseButton_Left) && ImGui::GetMouseDragDelta(ImGuiMouseButton_Left).x == 0 &&
        ImGui::GetMouseDragDelta(ImGuiMouseButton_Left).y == 0) {
      if (view_.pinned && *view_.pinned == *mouse_pixel_) view_.pinned.reset();
      else view_.pinned = mouse_pixel_;
    }
  }
}

// The Compare tab's pane: the same image, zoom and centre as the data view, with `record`'s
// overlay and the thread that stores `inspect` in that launch.
std::optional<PixelPos> GrayView::draw_record(const LaunchRecord& record, int slot, ImVec2 size,
                                              std::optional<PixelPos> inspect, ViewContext& ctx) {
  if (!shown_ || slot < 0 || slot > 1 || size.x < 2 || size.y < 2) {
    ImGui::Dummy(size);
    return std::nullopt;
  }
  std::optional<ImageViewRenderer>& renderer = compare_renderers_[slot];
  if (!renderer) {
    auto r = ImageViewRenderer::create();
    if (!r) {
      ui::status_text(r.status());
      return std::nullopt;
    }
    renderer.emplace(std::move(r.value()));
  }
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 fb = ImGui::GetIO().DisplayFramebufferScale;
  ImageViewParams params =
      view_params(std::max(1, static_cast<int>(size.x * fb.x)), std::max(1, static_cast<int>(size.y * fb.y)));
  if (view_.compare == CompareMode::SideBySide) params.split_fraction = 0.0f, params.draw_split_line = false;
  hold_window(params, &ctx);
  OverlayParams overlay = overlay_params(record);
  overlay.highlight_block_linear = -1;
  overlay.highlight_thread = -1;
  if (inspect)
    if (auto owner = lab_->owner(record, inspect->x, inspect->y)) {
      overlay.highlight_block_linear = static_cast<int>(owner->thread.linear_block);
      overlay.highlight_thread = static_cast<long long>(owner->thread.global_linear_thread);
    }
  if (Status s = renderer->render(params, overlay); !s) {
    ui::status_text(s);
    return std::nullopt;
  }
  ImGui::Image(ui::gl_texture(renderer->texture()), size);
  const ImVec2 m = ImGui::GetIO().MousePos;
  if (!ImGui::IsItemHovered() || m.x < origin.x || m.y < origin.y) return std::nullopt;
  auto [ix, iy] = output_to_image(params, (m.x - origin.x) * fb.x, (m.y - origin.y) * fb.y);
  const long long px = static_cast<long long>(std::floor(ix)), py = static_cast<long long>(std::floor(iy));
  if (px < 0 || py < 0 || px >= shown_->image.width || py >= shown_->image.height) return std::nullopt;
  return PixelPos{px, py};
}

// ---------------------------------------------------------------------------------------------
// 5. the memory tab
// ---------------------------------------------------------------------------------------------

std::vector<Tab> GrayView::tabs() {
  return {Tab{.panel = Panel::Memory, .draw = [this](TabContext& c) { draw_memory(c.shown); }, .needs_launch = true}};
}

void GrayView::draw_memory(const LaunchRecord& shown) {
  using mapping::Concept;
  const auto px = inspected();
  if (!px) {
    ImGui::TextColored(ui::kDimColour, "Hover a pixel (or pin one) to see its warp's requests.");
    return;
  }
  auto owner = stack_->owner(shown, px->x, px->y);
  if (!owner) {
    ImGui::TextColored(ui::kDimColour, "%s pixel (%lld, %lld).",
                       shown.scheme.kind == IndexScheme::Kind::Recorded && !shown.owners
                           ? "This launch does not record which thread computes"
                           : "No thread of this launch computes",
                       px->x, px->y);
    return;
  }
  const auto& t = owner->thread;
  ImGui::Text("pixel (%lld, %lld): warp %u of block (%u, %u, %u)", px->x, px->y, t.warp_in_block, t.block.x, t.block.y,
              t.block.z);
  ui::help_marker(mapping::explain(Concept::Coalescing));
  bool rgba = false;
  for (const auto& [k, v] : shown.settings) rgba |= k == "layout" && v == "rgba";
  ImGui::PushTextWrapPos(0);
  ImGui::TextColored(ui::kDimColour, "%s",
                     rgba ? "Each cell is a lane; colour = the 32-byte sector it touches. RGBA source: 4 bytes per "
                            "pixel, so a lane's pixels are 4x as many bytes to read as to write."
                          : "Each cell is a lane; colour = the 32-byte sector it touches. Planar source: the R, G "
                            "and B planes n bytes apart, one request per plane.");
  if (const lab::KernelInfo* k = stack_->find_kernel(shown.kernel))
    ImGui::TextColored(ui::kDimColour, "%s", k->teaches.c_str());
  ImGui::PopTextWrapPos();
  const auto accesses = stack_->warp_accesses(shown, t.block, t.warp_in_block, static_cast<int>(owner->pass));
  unsigned total = 0, ideal = 0, bytes = 0, requests = 0;
  for (const auto& a : accesses) {
    ui::draw_warp_request(a);
    total += a.sectors;
    ideal += a.ideal_sectors;
    bytes += a.active_lanes * a.element_bytes;
    ++requests;
  }
  if (requests > 0) {
    ImGui::Separator();
    char buf[160];
    std::snprintf(buf, sizeof buf, "%u requests, %u sectors (ideal %u), %u bytes moved", requests, total, ideal, bytes);
    ImGui::TextColored(total > ideal ? ui::kWarnColour : ui::kOkColour, "%s", buf);
    const unsigned long long per_thread = shown.scheme.elements_per_thread_pass();
    unsigned read_bytes = 0, write_bytes = 0;
    for (const auto& a : accesses) (a.is_write ? write_bytes : read_bytes) += a.element_bytes;
    ui::wrapped_text(ui::kDimColour,
                     "per thread and pass: %llu pixel%s; %u request%s per warp here, %.1f sectors per request; "
                     "each lane reads %u and writes %u bytes",
                     per_thread, per_thread == 1 ? "" : "s", requests, requests == 1 ? "" : "s",
                     static_cast<double>(total) / requests, read_bytes, write_bytes);
  }
}

// ---------------------------------------------------------------------------------------------
// 6. outputs
// ---------------------------------------------------------------------------------------------

Status GrayView::write_output_png(const std::filesystem::path& path) {
  if (!shown_) return Status::failure("no image loaded", "", "--output");
  // Read back from the GL texture the view shows: this is what the kernel really delivered to
  // GL, through interop or the fallback.
  std::vector<std::uint8_t> gray = shown_->windowed ? shown_->host_result : read_texture_r8(shown_->result);
  if (gray.size() != shown_->image.pixel_count())
    return Status::failure("could not read the result texture back", "", "glGetTexImage");
  return write_png(path, shown_->image.width, shown_->image.height, 1, gray.data());
}

std::vector<std::uint8_t> GrayView::read_output(int* width, int* height) {
  if (!shown_) return {};
  *width = shown_->image.width;
  *height = shown_->image.height;
  // A windowed texture holds part of the result: the whole is the host's, which it was made from.
  return shown_->windowed ? shown_->host_result : read_texture_r8(shown_->result);
}

std::string GrayView::interop_mode() const {
  if (lab_->backend().kind == BackendKind::CpuSimulation) return "CPU simulation: host upload to GL";
  if (shown_ && shown_->pixel_buffer) return shown_->pixel_buffer->mode_description();
  return "no image";
}

}  // namespace bs::app
