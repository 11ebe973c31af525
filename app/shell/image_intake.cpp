#include "shell/image_intake.hpp"

#include "image/image_loader.hpp"
#include "shell/sample_image.hpp"

namespace bs::app {
namespace fs = std::filesystem;

ImageIntake::ImageIntake(LabHost& host, MessageLog& messages)
    : host_(host), messages_(messages), loader_(LoadLimits{}, 1) {}

ImageIntake::~ImageIntake() {
  if (!recent_path_.empty()) save_recent_files(recent_, recent_path_);
}

void ImageIntake::limit_side(int max_side, std::string reason) {
  if (max_side <= 0 || max_side >= limits_.max_side) return;
  limits_.max_side = max_side;
  limits_.side_limit_reason = std::move(reason);
  loader_.set_limits(limits_);
}

void ImageIntake::keep_recent_in(const fs::path& file) {
  recent_path_ = file;
  recent_ = load_recent_files(recent_path_);
}

fs::path ImageIntake::recent_folder() const {
  return recent_.paths.empty() ? fs::path() : recent_.paths.front().parent_path();
}

Status ImageIntake::load_at_start(const std::vector<std::string>& images) {
  // Named images go to the open lab only; the sample to the first lab that takes images.
  LabSlot* image_slot = nullptr;
  for (LabSlot& s : host_.slots()) {
    if (s.id() != host_.current().id() && !images.empty()) continue;
    if (Status st = host_.ensure_view(s); !st) continue;
    if (s.view->accepts_images()) {
      image_slot = &s;
      break;
    }
  }
  if (!image_slot) {
    if (!images.empty()) {
      messages_.warn("The images named are not loaded: no lab takes images");
      had_load_failure_ = true;
    }
    return Status::success();
  }
  bool any = false;
  for (const auto& path : images) {
    auto img = load_image_file(fs::path(path), limits_);
    if (!img) {
      messages_.error(img.status());
      had_load_failure_ = true;
      continue;
    }
    ViewContext ctx = host_.context();
    if (Status s = image_slot->view->install_image(std::move(img.value()), ctx); !s) {
      messages_.error(s);
      had_load_failure_ = true;
      continue;
    }
    remember_file(recent_, fs::path(path));
    any = true;
  }
  if (any) return Status::success();
  auto sample = load_image_memory(sample_image_png(), kSampleImageName, limits_);
  if (!sample) return sample.status();
  ViewContext ctx = host_.context();
  return image_slot->view->install_image(std::move(sample.value()), ctx);
}

void ImageIntake::enqueue(std::vector<fs::path> paths) {
  if (paths.empty()) return;
  if (paths.size() > 1)
    messages_.info("Loading " + std::to_string(paths.size()) + " files; the last one that loads is shown");
  loader_.enqueue(std::move(paths));
}

void ImageIntake::take_loaded() {
  for (auto& outcome : loader_.take_finished()) {
    if (outcome.superseded()) continue;
    if (!outcome.image) {
      messages_.error(outcome.image.status());
      had_load_failure_ = true;
      continue;
    }
    if (Status s = host_.install_image(std::move(outcome.image.value())); !s) {
      messages_.error(s);
      had_load_failure_ = true;
      continue;
    }
    remember_file(recent_, outcome.path);
  }
}

Status ImageIntake::install_sample() {
  auto sample = load_image_memory(sample_image_png(), kSampleImageName, limits_);
  if (!sample) return sample.status();
  return host_.install_image(std::move(sample.value()));
}

}  // namespace bs::app
