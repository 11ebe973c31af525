// `blockscope-selftest soak` (see soak.hpp for what it checks and why).
//
// Section index:
//   1. a window that also delivers the soak's drops (the same queue GLFW's drop callback fills)
//   2. measurements: host RSS, device memory
//   3. random trials: blocks (valid and each invalid kind), images, hostile files
//   4. the expected outcome of a launch, from CUDA's rules and the device's limits
//   5. the soak loop and its report
#include "soak.hpp"

#include <epoxy/gl.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "device/cuda_device.hpp"
#include "image/image_loader.hpp"
#include "platform/forwarding_window.hpp"
#include "labs/catalog.hpp"
#include "labs/grayscale/gray_reference.hpp"
#include "platform/png.hpp"
#include "shell/app.hpp"
#include "shell/compute_session.hpp"

namespace bs::selftest {
namespace {
namespace fs = std::filesystem;
using namespace bs::app;
using Clock = std::chrono::steady_clock;

// ---------------------------------------------------------------------------------------------
// 1. the drop window
// ---------------------------------------------------------------------------------------------

// Forwards everything to the headless window and hands out the soak's paths from
// take_dropped_paths(), so dropped files reach the app exactly as a GLFW drop does: App::frame
// takes them, queues them on the background loader, and installs or reports each outcome.
class DropWindow final : public ForwardingWindow {
 public:
  using ForwardingWindow::ForwardingWindow;
  void drop(std::vector<std::string> paths) {
    for (auto& p : paths) pending_.push_back(std::move(p));
  }
  std::vector<std::string> take_dropped_paths() override {
    std::vector<std::string> paths = inner_.take_dropped_paths();
    for (auto& p : pending_) paths.push_back(std::move(p));
    pending_.clear();
    return paths;
  }

 private:
  std::vector<std::string> pending_;
};

// ---------------------------------------------------------------------------------------------
// 2. measurements
// ---------------------------------------------------------------------------------------------

#if defined(__SANITIZE_ADDRESS__)
#define BS_SOAK_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BS_SOAK_UNDER_ASAN 1
#endif
#endif
#ifdef BS_SOAK_UNDER_ASAN
// AddressSanitizer's allocator statistics (sanitizer/allocator_interface.h, not installed here).
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
#endif

// Resident set size from /proc/self/statm (pages resident, second field).
std::size_t host_rss_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t size_pages = 0, resident_pages = 0;
  statm >> size_pages >> resident_pages;
  return resident_pages * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

// Under AddressSanitizer freed memory waits in its quarantine (256 MiB by default), so RSS grows
// whatever the app does; there the bound applies to the live heap (bytes allocated and not yet
// freed), which a leak grows just the same. Elsewhere the bound applies to RSS, which also sees
// what the GL driver and CUDA map outside malloc.
constexpr bool kHostBoundOnLiveHeap =
#ifdef BS_SOAK_UNDER_ASAN
    true;
#else
    false;
#endif

std::size_t live_heap_bytes() {
#ifdef BS_SOAK_UNDER_ASAN
  return __sanitizer_get_current_allocated_bytes();
#else
  return 0;
#endif
}

struct MemorySample {
  std::size_t rss = 0;
  std::size_t heap = 0;  // live heap, under AddressSanitizer only
  bool has_device = false;
  std::size_t device_used = 0;
};

// Both samples are taken the same way: GL work finished (the driver frees what it deferred),
// free heap pages handed back to the OS (so the comparison sees live memory, not what glibc
// keeps cached after a large image was freed), then the reading.
MemorySample sample_memory(int cuda_device) {
  glFinish();
  malloc_trim(0);
  MemorySample m;
  m.rss = host_rss_bytes();
  m.heap = live_heap_bytes();
  if (cuda_device >= 0) {
    if (auto info = device_memory_info(cuda_device); info) {
      m.has_device = true;
      m.device_used = info->second - info->first;
    }
  }
  return m;
}

double mib(std::size_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }
double mib_delta(std::size_t before, std::size_t after) {
  return after >= before ? mib(after - before) : -mib(before - after);
}

// ---------------------------------------------------------------------------------------------
// 3. random trials
// ---------------------------------------------------------------------------------------------

enum class BlockKind { Valid, Zero, TooManyThreads, ZOver64, XYOver1024, Depth2D, Huge, kCount };
constexpr const char* kBlockKindNames[] = {"valid",          "zero dimension",   "over 1024 threads",
                                           "z over 64",      "x or y over 1024", "2D with z > 1",
                                           "huge dimensions"};

class Randomness {
 public:
  explicit Randomness(unsigned long long seed) : rng_(seed) {}
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  unsigned u(unsigned lo, unsigned hi) { return std::uniform_int_distribution<unsigned>(lo, hi)(rng_); }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  std::uint8_t byte() { return static_cast<std::uint8_t>(rng_() & 0xff); }
  std::mt19937_64& engine() { return rng_; }

 private:
  std::mt19937_64 rng_;
};

// A block of the given kind for the given kernel. Valid shapes are the UI's presets or random
// shapes within 1024 threads; each invalid kind breaks exactly the rule it names (the huge kind
// uses powers of two up to 2^31, whose product can wrap 64 bits to zero).
// The soak drives the lecture's two kernels, whose grids it computes itself (expected_outcome).
enum class SoakKernel { Flat1D, Grid2D };
const char* kernel_id(SoakKernel k) { return k == SoakKernel::Flat1D ? "gray_1d_flat" : "gray_2d"; }

Dim3 random_block(Randomness& r, SoakKernel k, const std::vector<Dim3>& presets, BlockKind kind) {
  const bool flat = k == SoakKernel::Flat1D;
  switch (kind) {
    case BlockKind::Valid: {
      if (r.chance(0.4) && !presets.empty()) return presets[r.uniform(0, static_cast<int>(presets.size()) - 1)];
      const unsigned x = r.u(1, 1024);
      const unsigned y = r.u(1, 1024 / x);
      const unsigned z = flat ? r.u(1, std::min(64u, 1024 / (x * y))) : 1;
      return Dim3{x, y, z};
    }
    case BlockKind::Zero: {
      Dim3 b{r.u(0, 64), r.u(0, 16), flat ? r.u(0, 4) : 1};
      switch (r.uniform(0, 2)) {
        case 0: b.x = 0; break;
        case 1: b.y = 0; break;
        default:
          if (flat) b.z = 0;
          else b.x = 0;
          break;
      }
      return b;
    }
    case BlockKind::TooManyThreads: {
      const unsigned x = r.u(2, 1024);
      const unsigned y = std::min(1024u, 1024 / x + r.u(1, 8));
      return Dim3{x, y, 1};
    }
    case BlockKind::ZOver64: return Dim3{r.u(1, 4), r.u(1, 4), r.u(65, 4096)};
    case BlockKind::XYOver1024:
      return r.chance(0.5) ? Dim3{r.u(1025, 1u << 20), 1, 1} : Dim3{1, r.u(1025, 1u << 20), 1};
    case BlockKind::Depth2D: return Dim3{r.u(1, 16), r.u(1, 16), r.u(2, 4)};
    case BlockKind::Huge:
    default: {
      auto power = [&] { return r.chance(0.8) ? 1u << r.uniform(11, 31) : r.u(1u << 11, 0xffffffffu); };
      return Dim3{power(), power(), flat ? power() : 1};
    }
  }
}

struct SoakImage {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgba;
};

SoakImage random_image(Randomness& r, int width, int height) {
  SoakImage img{width, height, {}};
  img.rgba.resize(static_cast<std::size_t>(width) * height * 4);
  for (auto& v : img.rgba) v = r.byte();
  return img;
}

// Odd sizes, with the lopsided ones launch arithmetic gets wrong: single rows and columns.
std::pair<int, int> random_size(Randomness& r, int max_side) {
  auto odd = [&](int hi) { return 2 * r.uniform(0, (hi - 1) / 2) + 1; };
  switch (r.uniform(0, 9)) {
    case 0: return {1, odd(std::min(4 * max_side, 16383))};
    case 1: return {odd(std::min(4 * max_side, 16383)), 1};
    case 2: return {r.uniform(1, max_side), r.uniform(1, max_side)};  // any parity
    default: return {odd(max_side), odd(max_side)};
  }
}

Rgba8Image to_rgba8(const SoakImage& img, std::string name) {
  Rgba8Image out;
  out.width = img.width;
  out.height = img.height;
  out.rgba = img.rgba;
  out.name = std::move(name);
  out.source_channels = 4;
  out.source_bits_per_channel = 8;
  out.format = "random";
  return out;
}

enum class FileKind { ValidPng, TruncatedPng, Empty, TextNamedPng, Directory, Missing, kCount };
constexpr const char* kFileKindNames[] = {"valid PNG",       "truncated PNG", "empty file",
                                          "text named .png", "directory",     "missing path"};

struct DroppedFile {
  std::string path;
  FileKind kind;
  SoakImage image;                            // ValidPng only
  std::uintmax_t bytes = 0, whole_bytes = 0;  // on disk; TruncatedPng: before the cut
};

// "truncated PNG (412 of 520 bytes)": what a failure report names.
std::string describe(const DroppedFile& f) {
  std::string s = kFileKindNames[static_cast<int>(f.kind)];
  if (f.kind == FileKind::TruncatedPng)
    s += " (" + std::to_string(f.bytes) + " of " + std::to_string(f.whole_bytes) + " bytes)";
  else if (f.kind == FileKind::ValidPng)
    s += " (" + std::to_string(f.image.width) + "x" + std::to_string(f.image.height) + ")";
  return s;
}

// Writes one file of the given kind under `dir`. A valid PNG that cannot be written makes the
// soak fail (the Status says why); hostile ones are whatever bytes land on disk.
Result<DroppedFile> make_file(Randomness& r, const fs::path& dir, int serial, FileKind kind, int max_side) {
  DroppedFile f;
  f.kind = kind;
  const fs::path base = dir / ("drop_" + std::to_string(serial));
  switch (kind) {
    case FileKind::ValidPng:
    case FileKind::TruncatedPng: {
      auto [w, h] = random_size(r, std::min(max_side, 257));
      SoakImage img = random_image(r, w, h);
      const fs::path p = base.string() + ".png";
      if (Status s = write_png(p, w, h, 4, img.rgba.data()); !s) return s;
      f.bytes = f.whole_bytes = fs::file_size(p);
      if (kind == FileKind::TruncatedPng) {
        // Anywhere short of the image's end: inside the signature, IHDR, the data or IEND's
        // header. Not inside IEND's CRC: a PNG missing only that holds the whole image, and the
        // loader shows it (image/image_loader.hpp, kPngTailThatMayBeMissing); such a "hostile"
        // file once loaded, replaced the drop's valid image and was one load error short.
        f.bytes = r.u(1, static_cast<unsigned>(f.whole_bytes - kPngTailThatMayBeMissing - 1));
        fs::resize_file(p, f.bytes);
      } else {
        f.image = std::move(img);
      }
      f.path = p.string();
      return f;
    }
    case FileKind::Empty:
      f.path = base.string() + ".png";
      std::ofstream(f.path, std::ios::binary).flush();
      return f;
    case FileKind::TextNamedPng: {
      f.path = base.string() + ".png";
      std::ofstream out(f.path, std::ios::binary);
      const int lines = r.uniform(1, 40);
      for (int i = 0; i < lines; ++i) out << "not an image, line " << i << " " << r.u(0, ~0u) << "\n";
      return f;
    }
    case FileKind::Directory:
      f.path = base.string() + ".png";
      fs::create_directories(f.path);
      return f;
    case FileKind::Missing:
    default: f.path = (base.string() + "_missing.png"); return f;
  }
}

// ---------------------------------------------------------------------------------------------
// 4. expected outcomes
// ---------------------------------------------------------------------------------------------

// The rule a launch breaks, in the order CUDA (and blockscope's launcher) reports them, and a
// phrase its message must contain.
struct Expected {
  bool refused = false;
  const char* rule = "";
  const char* phrase = "";
  Dim3 grid{};  // for an accepted launch: the grid that covers the image
};

Expected expected_outcome(SoakKernel k, Dim3 b, int width, int height, const DeviceLimits& limits,
                          unsigned kernel_max_threads) {
  const bool flat = k == SoakKernel::Flat1D;
  if (!flat && b.z != 1) return {true, "2D kernel with blockDim.z != 1", "maps x and y only"};
  if (b.x == 0 || b.y == 0 || b.z == 0) return {true, "zero block dimension", "zero dimension"};
  if (b.x > limits.max_block.x || b.y > limits.max_block.y || b.z > limits.max_block.z)
    return {true, "per-dimension block limit", "per-dimension limit"};
  const unsigned long long threads = static_cast<unsigned long long>(b.x) * b.y * b.z;  // each <= 1024
  if (threads > limits.max_threads_per_block) return {true, "threads per block", "a block may have at most"};
  if (threads > kernel_max_threads) return {true, "kernel's own thread limit", "this kernel can run at most"};
  const unsigned long long w = width, h = height;
  const unsigned long long gx = flat ? (w * h + threads - 1) / threads : (w + b.x - 1) / b.x;
  const unsigned long long gy = flat ? 1 : (h + b.y - 1) / b.y;
  if (gx > limits.max_grid.x || gy > limits.max_grid.y) return {true, "grid limit", "grid limit"};
  return {false, "", "", Dim3{static_cast<unsigned>(gx), static_cast<unsigned>(gy), 1}};
}

// ---------------------------------------------------------------------------------------------
// 5. the soak
// ---------------------------------------------------------------------------------------------

struct Counters {
  long long launches = 0;
  long long refusals_expected = 0, refusals_observed = 0;
  long long installs = 0, install_refusals_expected = 0, install_refusals_observed = 0;
  long long drops = 0, files = 0, load_errors_expected = 0, load_errors_observed = 0;
  long long outputs_verified = 0;
  long long by_kind[static_cast<int>(BlockKind::kCount)] = {};
  long long files_by_kind[static_cast<int>(FileKind::kCount)] = {};
};

class Soak {
 public:
  Soak(const SoakOptions& soak, App& app, DropWindow& window, const DeviceLimits& limits, unsigned max_threads_1d,
       unsigned max_threads_2d, int cuda_device, fs::path dir, unsigned long long seed)
      : soak_(soak),
        app_(app),
        window_(window),
        limits_(limits),
        cuda_device_(cuda_device),
        dir_(std::move(dir)),
        seed_(seed),
        rng_(seed) {
    kernel_max_threads_[0] = max_threads_1d;
    kernel_max_threads_[1] = max_threads_2d;
    for (SoakKernel k : {SoakKernel::Flat1D, SoakKernel::Grid2D})
      if (const lab::KernelInfo* info = app_.current_view()->lab().find_kernel(kernel_id(k)))
        presets_[static_cast<int>(k)] = info->presets;
    GLint max_texture = 0;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_texture);
    max_texture_ = max_texture > 0 ? max_texture : 16384;
    // The CPU simulation runs each block's threads on fibers: a megapixel launch of one-thread
    // blocks takes seconds there, so its images stay smaller. The GPU gets the full range.
    max_side_ = cuda_device_ >= 0 ? 1025 : 301;
  }

  int run();

 private:
  void problem(const std::string& what);
  bool time_is_up() const {
    return soak_.seconds > 0 && std::chrono::duration<double>(Clock::now() - start_).count() >= soak_.seconds;
  }
  // One frame = one relaunch with the current state, checked against the expectation. In the
  // frames of a drop the image may change inside the frame, so the model is checked after it.
  void launch_frame(bool in_drop = false);
  void set_random_config();
  void install_random_image();
  void drop_random_files();
  void drop_files(const std::vector<FileKind>& kinds);
  void verify_output();
  void check_model();
  MemorySample probe_and_sample();
  // The size of the image the lab holds now (what the next launch runs on).
  std::pair<int, int> image_size() const {
    const lab::ProblemInfo p = app_.current_view()->lab().problem();
    return {static_cast<int>(p.width), static_cast<int>(p.height)};
  }
  void select(SoakKernel k, Dim3 block) {
    kernel_ = k;
    block_ = block;
    if (Status st = app_.select(kernel_id(k), KernelConfig{block}); !st) problem("cannot select: " + st.describe());
  }

  const SoakOptions& soak_;
  App& app_;
  DropWindow& window_;
  DeviceLimits limits_;
  unsigned kernel_max_threads_[2] = {1024, 1024};
  int cuda_device_;
  fs::path dir_;
  unsigned long long seed_;
  Randomness rng_;
  int max_texture_ = 16384;
  int max_side_ = 301;
  std::vector<Dim3> presets_[2];
  SoakKernel kernel_ = SoakKernel::Grid2D;
  Dim3 block_{16, 16, 1};

  SoakImage model_;  // what the app should be showing
  Counters c_;
  std::vector<std::string> problems_;
  long long problem_count_ = 0;
  bool verify_next_valid_ = false;
  int serial_ = 0;
  Clock::time_point start_;
  std::vector<std::unique_ptr<char[]>> held_;  // --leak-bytes-per-launch
};

void Soak::problem(const std::string& what) {
  ++problem_count_;
  if (problems_.size() < 20) {
    std::fprintf(stderr, "soak: launch %lld: %s\n", c_.launches, what.c_str());
    problems_.push_back(what);
  }
}

void Soak::launch_frame(bool in_drop) {
  if (!in_drop) check_model();
  const std::size_t errors_before = app_.messages().errors();
  app_.request_relaunch();  // as the lab panel does after a change: a refusal is reported again
  const auto logged_after = std::chrono::system_clock::now();
  app_.frame();
  ++c_.launches;
  // The launch ran on the image installed by then (a drop's outcome is taken before it).
  const auto [w, h] = image_size();
  const SoakKernel k = kernel_;
  const Dim3 b = block_;
  const Expected want = expected_outcome(k, b, w, h, limits_, kernel_max_threads_[k == SoakKernel::Flat1D ? 0 : 1]);
  if (soak_.leak_bytes_per_launch > 0) {
    held_.emplace_back(new char[static_cast<std::size_t>(soak_.leak_bytes_per_launch)]);
    std::memset(held_.back().get(), 1, static_cast<std::size_t>(soak_.leak_bytes_per_launch));
  }

  // Messages logged during this frame, newest last (the log keeps the last 500).
  const auto& all = app_.messages().all();
  const Message* refusal_message = nullptr;
  for (auto it = all.rbegin(); it != all.rend() && it->when >= logged_after; ++it)
    if (it->level == Message::Warning && it->text.rfind("Launch refused: ", 0) == 0) refusal_message = &*it;

  const LaunchRecord& rec = app_.last_launch();
  const std::string what =
      std::string(kernel_id(k)) + " block " + to_string(b) + " on " + std::to_string(w) + "x" + std::to_string(h);
  if (app_.device_faulted()) {
    problem("the device faulted: " + rec.status.describe());
  } else if (want.refused) {
    ++c_.refusals_expected;
    if (rec.ok()) {
      problem("launched " + what + " although it breaks the rule: " + want.rule);
    } else if (!refusal_message) {
      problem("refused " + what + " without a \"Launch refused\" message: " + rec.status.describe());
    } else if (refusal_message->text.find(want.phrase) == std::string::npos) {
      problem("refused " + what + " for another reason than '" + want.rule + "': " + refusal_message->text);
    } else {
      ++c_.refusals_observed;
    }
  } else if (!rec.ok()) {
    problem("refused or failed a valid launch " + what + ": " + rec.status.describe());
    if (refusal_message) ++c_.refusals_observed;  // counted so the totals show the mismatch too
  } else if (rec.config.grid != want.grid || rec.config.block != b) {
    problem("launched " + what + " with another shape: grid " + to_string(rec.config.grid) + " block " +
            to_string(rec.config.block));
  }
  // Errors this frame that are not load errors: a launch failing at run time.
  const std::size_t new_errors = app_.messages().errors() - errors_before;
  if (!want.refused && !rec.ok() && new_errors > 0) c_.load_errors_observed -= 1;
  c_.load_errors_observed += static_cast<long long>(new_errors);

  if (!in_drop && !want.refused && rec.ok() && (verify_next_valid_ || c_.launches % 97 == 0)) {
    verify_output();
    verify_next_valid_ = false;
  }
  app_.present();
}

void Soak::check_model() {
  const auto [w, h] = image_size();
  if (w != model_.width || h != model_.height)
    problem("the app shows a " + std::to_string(w) + "x" + std::to_string(h) + " image, expected " +
            std::to_string(model_.width) + "x" + std::to_string(model_.height));
}

void Soak::set_random_config() {
  SoakKernel k = rng_.chance(0.5) ? SoakKernel::Flat1D : SoakKernel::Grid2D;
  // The first launches try every way to be invalid once, so a short run covers them all whatever
  // the seed; then about 60 % valid, the rest spread over the invalid kinds.
  BlockKind kind = BlockKind::Valid;
  constexpr int kInvalidKinds = static_cast<int>(BlockKind::kCount) - 1;
  if (c_.launches < kInvalidKinds) {
    kind = static_cast<BlockKind>(1 + c_.launches);
    if (kind == BlockKind::Depth2D) k = SoakKernel::Grid2D;
  } else if (rng_.chance(0.4)) {
    kind = static_cast<BlockKind>(rng_.uniform(1, static_cast<int>(BlockKind::kCount) - 1));
    if (kind == BlockKind::Depth2D) k = SoakKernel::Grid2D;
  }
  ++c_.by_kind[static_cast<int>(kind)];
  select(k, random_block(rng_, k, presets_[static_cast<int>(k)], kind));
}

void Soak::install_random_image() {
  ++c_.installs;
  // Now and then an image taller than GL_MAX_TEXTURE_SIZE: its 2D launch would need more than
  // 65535 blocks in y with short blocks, but the app must refuse it at install (it cannot be
  // shown), say so with its size, and keep the current image.
  const bool too_tall = rng_.chance(0.04);
  int w = 0, h = 0;
  if (too_tall) {
    w = rng_.uniform(1, 3);
    h = rng_.uniform(max_texture_ + 1, std::max(max_texture_ + 1, 70000));
  } else if (rng_.chance(0.03)) {
    w = 1;
    h = max_texture_;  // the tallest image that fits: gridDim.y = rows / blockDim.y
  } else {
    std::tie(w, h) = random_size(rng_, max_side_);
  }
  SoakImage img = random_image(rng_, w, h);
  const std::string name = "random_" + std::to_string(w) + "x" + std::to_string(h);
  Status s = app_.install_image_for_test(to_rgba8(img, name));
  if (too_tall) {
    ++c_.install_refusals_expected;
    if (s.ok()) {
      problem("installed " + name + ", taller than GL_MAX_TEXTURE_SIZE " + std::to_string(max_texture_));
      model_ = std::move(img);
    } else if (s.message.find(std::to_string(h)) == std::string::npos) {
      problem("refused " + name + " without naming its size: " + s.describe());
    } else {
      ++c_.install_refusals_observed;
    }
  } else if (!s.ok()) {
    problem("could not install " + name + ": " + s.describe());
  } else {
    model_ = std::move(img);
    verify_next_valid_ = true;
  }
}

void Soak::drop_random_files() {
  std::vector<FileKind> kinds(rng_.uniform(1, 4));
  for (auto& kind : kinds)
    kind = rng_.chance(0.35) ? FileKind::ValidPng
                             : static_cast<FileKind>(rng_.uniform(1, static_cast<int>(FileKind::kCount) - 1));
  drop_files(kinds);
}

void Soak::drop_files(const std::vector<FileKind>& kinds) {
  ++c_.drops;
  const int count = static_cast<int>(kinds.size());
  std::vector<DroppedFile> files;
  std::vector<std::string> paths;
  long long hostile = 0;
  for (FileKind kind : kinds) {
    auto f = make_file(rng_, dir_, serial_++, kind, max_side_);
    if (!f) {
      problem("could not write a test file: " + f.status().describe());
      return;
    }
    ++c_.files;
    ++c_.files_by_kind[static_cast<int>(kind)];
    if (kind != FileKind::ValidPng) ++hostile;
    paths.push_back(f->path);
    files.push_back(std::move(f.value()));
  }
  c_.load_errors_expected += hostile;
  window_.drop(std::move(paths));
  // The drop frame queues the files; the loader works on its own thread; the next frame takes
  // every outcome. Both frames are launches like any other.
  const long long observed_before = c_.load_errors_observed;
  const auto dropped_at = std::chrono::system_clock::now();  // the log keeps only its newest 500
  launch_frame(true);
  const auto waited_from = Clock::now();
  while (app_.loading()) {
    if (Clock::now() - waited_from > std::chrono::seconds(60)) {
      problem("the loader is still busy 60 s after a drop of " + std::to_string(count) + " files");
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  // The app shows the last file of the drop that loaded; failures keep what was there.
  for (auto& f : files)
    if (f.kind == FileKind::ValidPng) model_ = std::move(f.image), verify_next_valid_ = true;
  launch_frame(true);
  check_model();
  const long long observed = c_.load_errors_observed - observed_before;
  if (observed != hostile) {
    // Each file as made, and what the app said during the drop's two frames, so a failure can be
    // read without replaying it.
    std::string kinds, said;
    for (const auto& f : files) kinds += std::string(kinds.empty() ? "" : ", ") + describe(f);
    for (const Message& m : app_.messages().all())
      if (m.when >= dropped_at)
        said += std::string("\n    ") +
                (m.level == Message::Error     ? "error: "
                 : m.level == Message::Warning ? "warning: "
                                               : "info: ") +
                m.text;
    problem("a drop of [" + kinds + "] gave " + std::to_string(observed) + " load errors, expected " +
            std::to_string(hostile) + "; the app said:" + said);
  }
  for (const auto& f : files) {
    std::error_code ec;
    fs::remove_all(f.path, ec);
  }
}

// The kernel's output as the view shows it (read back from the GL texture, through interop or
// the host copy) against the CPU reference of the pixels the soak made: at most 1 apart, and
// off by one on at most 1 % of pixels (float rounding next to an integer).
void Soak::verify_output() {
  const fs::path out = dir_ / "output.png";
  if (Status s = app_.write_output(out); !s) {
    problem("could not read the output back: " + s.describe());
    return;
  }
  // The soak installs images up to the GL texture limit (32768 on some GPUs), past the loader's
  // default 16384 for dropped files, so its own output is read back with room for them.
  LoadLimits own_output;
  own_output.max_side = 1 << 16;
  own_output.max_pixels = 1ull << 32;
  auto got = load_image_file(out, own_output);
  if (!got) {
    problem("could not read the output file: " + got.status().describe());
    return;
  }
  if (got->width != model_.width || got->height != model_.height) {
    problem("the output is " + std::to_string(got->width) + "x" + std::to_string(got->height));
    return;
  }
  std::vector<std::uint8_t> ref(static_cast<std::size_t>(model_.width) * model_.height);
  gray::gray_reference(model_.rgba.data(), model_.width, model_.height, ref.data());
  std::size_t off_by_one = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const int d = std::abs(int(got->rgba[4 * i]) - int(ref[i]));
    if (d > 1) {
      problem("output pixel " + std::to_string(i % model_.width) + "," + std::to_string(i / model_.width) + " is " +
              std::to_string(got->rgba[4 * i]) + ", the reference says " + std::to_string(ref[i]));
      return;
    }
    off_by_one += d;
  }
  if (off_by_one > ref.size() / 100 + 1) {
    problem(std::to_string(off_by_one) + " output pixels are off by one");
    return;
  }
  ++c_.outputs_verified;
}

// The same probe (641 x 479, fresh pixels, the 2D kernel with 16 x 16 blocks) before each
// sample, so both samples hold the same buffers, then two frames so the UI settles on it.
MemorySample Soak::probe_and_sample() {
  ++c_.installs;
  SoakImage probe = random_image(rng_, 641, 479);
  if (Status s = app_.install_image_for_test(to_rgba8(probe, "probe_641x479")); !s)
    problem("could not install the probe image: " + s.describe());
  else model_ = std::move(probe);
  select(SoakKernel::Grid2D, Dim3{16, 16, 1});
  verify_next_valid_ = true;
  launch_frame();
  launch_frame();
  return sample_memory(cuda_device_);
}

int Soak::run() {
  start_ = Clock::now();
  const long long total = soak_.launches;
  const long long warmup = std::min<long long>(200, std::max<long long>(total / 5, 1));
  std::printf(
      "soak: %lld launches (%lld warm-up), %s, framebuffer %dx%d, GL_MAX_TEXTURE_SIZE %d, images up to %d per side\n",
      total, warmup, app_.backend_label().c_str(), soak_.width, soak_.height, max_texture_, max_side_);
  std::fflush(stdout);

  // The app starts on the built-in sample; the soak's own image replaces it so every output
  // can be checked against pixels the soak knows.
  {
    SoakImage first = random_image(rng_, 333, 211);
    if (Status s = app_.install_image_for_test(to_rgba8(first, "first_333x211")); !s) {
      std::fprintf(stderr, "soak: cannot install an image: %s\n", s.describe().c_str());
      return kExitFailure;
    }
    model_ = std::move(first);
    ++c_.installs;
  }
  select(SoakKernel::Grid2D, Dim3{16, 16, 1});  // the app opens on its own default kernel
  // One drop of every kind of file first (hostile ones around a valid one), so each run tries
  // them all whatever the seed; random drops follow.
  drop_files({FileKind::TruncatedPng, FileKind::Empty, FileKind::ValidPng, FileKind::TextNamedPng, FileKind::Directory,
              FileKind::Missing});

  MemorySample before{}, after{};
  bool sampled = false;
  bool stopped_by_time = false;
  const long long report_every = std::max<long long>(total / 10, 1);
  long long next_report = report_every;
  const long long loop_end = std::max<long long>(total - 2, 1);  // the last 2: the final probe
  while (c_.launches < loop_end) {
    if (!sampled && c_.launches >= warmup) {
      held_.clear();
      before = probe_and_sample();
      sampled = true;
      continue;
    }
    if (time_is_up()) {
      stopped_by_time = true;
      break;
    }
    // Per launch: 2 % a drop (two frames of its own), 8 % a new image, and always a new
    // kernel and block.
    const double action = std::uniform_real_distribution<double>(0, 1)(rng_.engine());
    if (action < 0.02 && c_.launches + 2 <= loop_end) {
      drop_random_files();
      continue;
    }
    if (action < 0.10) install_random_image();
    set_random_config();
    launch_frame();
    if (c_.launches >= next_report) {
      std::printf("soak: %lld/%lld launches, %lld refused, %lld problems, rss %.1f MiB, %.1f s\n", c_.launches, total,
                  c_.refusals_observed, problem_count_, mib(host_rss_bytes()),
                  std::chrono::duration<double>(Clock::now() - start_).count());
      std::fflush(stdout);
      next_report += report_every;
    }
  }
  if (!sampled) {
    held_.clear();
    before = probe_and_sample();
  }
  after = probe_and_sample();
  held_.clear();
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();

  // Verdicts on the totals (each single failure was reported as it happened).
  std::vector<std::string> failures;
  if (problem_count_ > 0) failures.push_back(std::to_string(problem_count_) + " problems (first ones above)");
  if (c_.refusals_expected != c_.refusals_observed)
    failures.push_back("refusals: expected " + std::to_string(c_.refusals_expected) + ", observed " +
                       std::to_string(c_.refusals_observed));
  if (c_.load_errors_expected != c_.load_errors_observed)
    failures.push_back("load errors: expected " + std::to_string(c_.load_errors_expected) + ", observed " +
                       std::to_string(c_.load_errors_observed));
  if (c_.install_refusals_expected != c_.install_refusals_observed)
    failures.push_back("install refusals: expected " + std::to_string(c_.install_refusals_expected) + ", observed " +
                       std::to_string(c_.install_refusals_observed));
  const std::size_t host_before = kHostBoundOnLiveHeap ? before.heap : before.rss;
  const std::size_t host_after = kHostBoundOnLiveHeap ? after.heap : after.rss;
  if (host_after > host_before + kSoakHostGrowthBound)
    failures.push_back(std::string("host memory (") + (kHostBoundOnLiveHeap ? "live heap" : "RSS") + ") grew by " +
                       std::to_string(mib_delta(host_before, host_after)) + " MiB (bound " +
                       std::to_string(mib(kSoakHostGrowthBound)) + " MiB)");
  if (cuda_device_ >= 0 && !(before.has_device && after.has_device))
    failures.push_back("device memory could not be read");
  if (before.has_device && after.has_device && after.device_used > before.device_used + kSoakDeviceGrowthBound)
    failures.push_back("device memory grew by " + std::to_string(mib_delta(before.device_used, after.device_used)) +
                       " MiB (bound " + std::to_string(mib(kSoakDeviceGrowthBound)) + " MiB)");
  if (c_.outputs_verified == 0) failures.push_back("no output was verified against the reference");

  std::string kinds;
  for (int i = 0; i < static_cast<int>(BlockKind::kCount); ++i)
    kinds += std::string(i ? ", " : "") + kBlockKindNames[i] + " " + std::to_string(c_.by_kind[i]);
  std::string file_kinds;
  for (int i = 0; i < static_cast<int>(FileKind::kCount); ++i)
    file_kinds += std::string(i ? ", " : "") + kFileKindNames[i] + " " + std::to_string(c_.files_by_kind[i]);
  std::printf("soak: blocks tried: %s\n", kinds.c_str());
  std::printf("soak: files dropped: %s\n", file_kinds.c_str());
  std::printf("soak: gridDim.y over 65535 %s: images taller than GL_MAX_TEXTURE_SIZE %d are refused at install\n",
              max_texture_ < 65535 ? "cannot be reached through the app" : "is reachable", max_texture_);
  char host_bound[160];
  if (kHostBoundOnLiveHeap)
    std::snprintf(host_bound, sizeof host_bound,
                  "not bounded under AddressSanitizer, whose quarantine keeps freed memory; live heap %.1f -> %.1f MiB "
                  "(%+.1f, bound %.0f)",
                  mib(before.heap), mib(after.heap), mib_delta(before.heap, after.heap), mib(kSoakHostGrowthBound));
  else std::snprintf(host_bound, sizeof host_bound, "bound %.0f", mib(kSoakHostGrowthBound));
  char device[160] = "device memory n/a (CPU backend)";
  if (before.has_device && after.has_device)
    std::snprintf(device, sizeof device, "device used %.1f -> %.1f MiB (%+.1f, bound %.0f)", mib(before.device_used),
                  mib(after.device_used), mib_delta(before.device_used, after.device_used),
                  mib(kSoakDeviceGrowthBound));
  std::printf(
      "soak summary: launches %lld%s, refusals expected %lld observed %lld, installs %lld (refusals expected "
      "%lld observed %lld), drops %lld of %lld files (load errors expected %lld observed %lld), outputs "
      "verified %lld, host RSS %.1f -> %.1f MiB (%+.1f, %s), %s, elapsed %.1f s, backend %s, seed %llu\n",
      c_.launches, stopped_by_time ? " (stopped by --seconds)" : "", c_.refusals_expected, c_.refusals_observed,
      c_.installs, c_.install_refusals_expected, c_.install_refusals_observed, c_.drops, c_.files,
      c_.load_errors_expected, c_.load_errors_observed, c_.outputs_verified, mib(before.rss), mib(after.rss),
      mib_delta(before.rss, after.rss), host_bound, device, elapsed, app_.backend_label().c_str(), seed_);
  if (failures.empty()) {
    std::printf("soak: PASSED\n");
    return kExitOk;
  }
  std::printf("soak: FAILED\n");
  for (const auto& f : failures) std::printf("  - %s\n", f.c_str());
  return kExitFailure;
}

}  // namespace

int run_soak(const SoakOptions& soak) {
  const unsigned long long seed =
      soak.seed ? *soak.seed : std::random_device{}() * 0x100000001ull + std::random_device{}();
  std::printf("soak: seed %llu (reproduce with --seed %llu)\n", seed, seed);

  auto headless = make_headless_window(soak.width, soak.height, soak.cuda_device);
  if (!headless) {
    std::fprintf(stderr, "blockscope-selftest: cannot create a headless OpenGL context: %s\n",
                 headless.status().describe().c_str());
    return kExitFailure;
  }
  DropWindow window(**headless);
  const int preferred = soak.cuda_device >= 0 ? soak.cuda_device : window.egl_cuda_device();
  auto session = open_compute_session(soak.backend, preferred, false);
  if (!session) {
    std::fprintf(stderr, "blockscope-selftest: cannot use CUDA: %s\n", session.status().describe().c_str());
    return kExitNoBackend;
  }
  const DeviceLimits limits = session->backend.limits;
  const int cuda_device = session->backend.kind == BackendKind::Cuda ? session->backend.cuda_device : -1;

  CliOptions app_options;
  app_options.headless = true;
  app_options.frames = 1;
  app_options.width = soak.width;
  app_options.height = soak.height;
  app_options.backend = soak.backend;
  app_options.state.lab = "gray";
  auto app = App::create(window, app_options, std::move(session.value()), built_in_labs());
  if (!app) {
    std::fprintf(stderr, "blockscope-selftest: cannot start: %s\n", app.status().describe().c_str());
    return kExitFailure;
  }
  if (Status s = (*app)->open_lab("gray"); !s) {
    std::fprintf(stderr, "blockscope-selftest: cannot open the grayscale lab: %s\n", s.describe().c_str());
    return kExitFailure;
  }
  // The model of expected refusals needs each kernel's own thread limit (registers): what the
  // compiled kernel reports (cudaFuncGetAttributes), read through a plan.
  lab::Lab& gray = (*app)->current_view()->lab();
  const unsigned max_1d = gray.plan("gray_1d_flat", KernelConfig{Dim3{32, 1, 1}}).attributes.max_threads_per_block;
  const unsigned max_2d = gray.plan("gray_2d", KernelConfig{Dim3{32, 1, 1}}).attributes.max_threads_per_block;

  const fs::path dir = fs::temp_directory_path() / ("blockscope-soak-" + std::to_string(::getpid()));
  std::error_code ec;
  fs::create_directories(dir, ec);
  int rc = kExitFailure;
  {
    Soak s(soak, **app, window, limits, max_1d, max_2d, cuda_device, dir, seed);
    rc = s.run();
  }
  fs::remove_all(dir, ec);
  return rc;
}

}  // namespace bs::selftest
