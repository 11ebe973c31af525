// Images in: the ones named on the command line (loaded before the first frame, so headless runs
// and screenshots show them), files dropped on the window or chosen in the file browser (decoded
// on the background loader, image/async_image_loader.hpp, and installed when they finish), the
// built-in sample, and the recent files. GL-free: the lab host decides which lab takes an image.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "image/async_image_loader.hpp"
#include "shell/lab_host.hpp"
#include "state/recent_files.hpp"
#include "ui/messages.hpp"

namespace bs::app {

class ImageIntake {
 public:
  ImageIntake(LabHost& host, MessageLog& messages);
  ~ImageIntake();  // keeps the recent files, where this run keeps them
  ImageIntake(const ImageIntake&) = delete;
  ImageIntake& operator=(const ImageIntake&) = delete;

  // No image wider or taller than `max_side` loads (the GL context's GL_MAX_TEXTURE_SIZE).
  void limit_side(int max_side, std::string reason);
  // Recent files are read from and kept in `file` (window runs; headless runs keep none).
  void keep_recent_in(const std::filesystem::path& file);

  // Before the first frame: the images named go to the open lab when it takes images (the last
  // one that loads is shown); with none named, or none that loaded, the built-in sample goes to
  // the first lab that takes images. A failure to load the sample is returned.
  Status load_at_start(const std::vector<std::string>& images);
  // Queues files on the background loader (drops, the file browser, File > Open recent).
  void enqueue(std::vector<std::filesystem::path> paths);
  // Installs what the loader finished since the last call; failures are said and kept.
  void take_loaded();
  // File > Built-in sample.
  Status install_sample();

  bool busy() const { return loader_.busy(); }
  AsyncLoadProgress progress() const { return loader_.progress(); }
  void cancel_all() { loader_.cancel_all(); }
  const RecentFiles& recent() const { return recent_; }
  // The folder of the most recent file (where the file browser opens), or empty.
  std::filesystem::path recent_folder() const;
  // Some image named or dropped did not load (headless runs exit 1).
  bool had_load_failure() const { return had_load_failure_; }

 private:
  LabHost& host_;
  MessageLog& messages_;
  LoadLimits limits_;
  AsyncImageLoader loader_;
  RecentFiles recent_;
  std::filesystem::path recent_path_;
  bool had_load_failure_ = false;
};

}  // namespace bs::app
