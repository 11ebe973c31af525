// The background loader: order, the keep-latest policy, 1000 files dropped at once (bounded
// memory, every failure explained, the last good image delivered), cancellation, progress.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "fixtures.hpp"
#include "image/async_image_loader.hpp"
#include "test_support.hpp"
#include "wait_until.hpp"

namespace bs::test {
namespace {

using namespace std::chrono_literals;

bool wait_until_idle(const AsyncImageLoader& loader, std::chrono::seconds timeout = 60s) {
  return wait_until([&] { return !loader.busy(); }, timeout, 1ms);
}

#if defined(__SANITIZE_ADDRESS__)
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();  // sanitizer/allocator_interface.h
#endif

// Memory in use. Under AddressSanitizer freed blocks wait in its quarantine (256 MiB), so RSS
// grows whatever the loader does; there the live heap (allocated, not yet freed) is what grows
// if decoded images pile up.
std::size_t resident_bytes() {
#if defined(__SANITIZE_ADDRESS__)
  return __sanitizer_get_current_allocated_bytes();
#endif
  std::ifstream statm("/proc/self/statm");
  std::size_t total_pages = 0, resident_pages = 0;
  statm >> total_pages >> resident_pages;
  return resident_pages * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

class AsyncImageLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override { rng_.seed(seed_); }

  // A small valid PNG with fresh random pixels; returns what a correct load gives.
  Bytes write_png(const std::filesystem::path& path, int w, int h) {
    const PngImage image = random_png_image(w, h, PngColor::rgba, 8, rng_);
    write_file(path, encode_png(image));
    return expected_rgba(image);
  }

  const std::uint32_t seed_ = test_seed();
  const ::testing::ScopedTrace trace_{__FILE__, __LINE__, seed_note(seed_)};
  std::mt19937 rng_;
  TempDir dir_;
};

TEST_F(AsyncImageLoaderTest, KeepingAllDeliversEveryOutcomeInOrder) {
  AsyncImageLoader loader({}, /*max_kept_images=*/0);
  std::vector<std::filesystem::path> paths;
  std::vector<Bytes> expected;
  for (int i = 0; i < 24; ++i) {
    const auto path = dir_ / ("file" + std::to_string(i) + ".png");
    if (i % 3 == 2) {
      expected.push_back({});  // missing: an error outcome in its place
    } else {
      expected.push_back(write_png(path, 5 + i, 3 + i % 7));
    }
    paths.push_back(path);
  }
  loader.enqueue(paths);
  ASSERT_TRUE(wait_until_idle(loader));
  const auto outcomes = loader.take_finished();
  ASSERT_EQ(outcomes.size(), paths.size());
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    SCOPED_TRACE("file " + std::to_string(i));
    EXPECT_EQ(outcomes[i].path, paths[i]);
    if (expected[i].empty()) {
      ASSERT_FALSE(outcomes[i].image.ok());
      EXPECT_EQ(outcomes[i].image.status().code, load_error::not_found);
    } else {
      ASSERT_TRUE(outcomes[i].image.ok()) << outcomes[i].image.status().describe();
      EXPECT_TRUE(same_pixels(expected[i], outcomes[i].image->rgba, outcomes[i].image->width));
    }
  }
  EXPECT_TRUE(loader.take_finished().empty());
  EXPECT_EQ(loader.superseded_count(), 0u);
}

TEST_F(AsyncImageLoaderTest, OlderImagesAreSupersededBeyondTheKeptCount) {
  AsyncImageLoader loader({}, /*max_kept_images=*/2);
  std::vector<std::filesystem::path> paths;
  std::vector<Bytes> expected;
  for (int i = 0; i < 4; ++i) {
    paths.push_back(dir_ / ("img" + std::to_string(i) + ".png"));
    expected.push_back(write_png(paths.back(), 7, 5));
  }
  loader.enqueue(paths);
  ASSERT_TRUE(wait_until_idle(loader));
  const auto outcomes = loader.take_finished();
  ASSERT_EQ(outcomes.size(), 4u);
  EXPECT_TRUE(outcomes[0].superseded());
  EXPECT_TRUE(outcomes[1].superseded());
  EXPECT_NE(outcomes[0].image.status().message.find("img0.png"), std::string::npos);
  ASSERT_TRUE(outcomes[2].image.ok());
  ASSERT_TRUE(outcomes[3].image.ok());
  EXPECT_TRUE(same_pixels(expected[2], outcomes[2].image->rgba, 7));
  EXPECT_TRUE(same_pixels(expected[3], outcomes[3].image->rgba, 7));
  EXPECT_EQ(loader.superseded_count(), 2u);
}

// The drop-1000-files scenario: a mix of large valid JPEGs and every kind of bad file, taken
// only at the end. All 200 decoded JPEGs kept would be 600 MiB; the policy keeps one.
TEST_F(AsyncImageLoaderTest, ThousandFilesDroppedAtOnce) {
  constexpr int kFiles = 1000, kJpegW = 1024, kJpegH = 768;
  const Bytes jpeg = encode_baseline_jpeg(kJpegW, kJpegH, 3, smooth_rgb(kJpegW, kJpegH, rng_), 85);
  Bytes truncated_png = encode_png(random_png_image(50, 50, PngColor::rgb, 8, rng_));
  truncated_png.resize(truncated_png.size() / 2);
  const std::string text = "not an image\n";
  std::filesystem::create_directory(dir_ / "a folder.png");

  std::vector<std::filesystem::path> paths;
  std::vector<bool> valid;
  for (int i = 0; i < kFiles - 1; ++i) {
    const auto path = dir_ / ("drop" + std::to_string(i) + (i % 5 == 0 ? ".jpg" : ".png"));
    bool ok = false;
    switch (i % 10) {
      case 0:
      case 5:
        write_file(path, jpeg);
        ok = true;
        break;
      case 1: write_file(path, truncated_png); break;
      case 2: write_file(path, {}); break;
      case 3: write_file(path, Bytes(text.begin(), text.end())); break;
      case 4: break;  // missing
      case 6:
        paths.push_back(dir_ / "a folder.png");
        valid.push_back(false);
        continue;
      case 7: write_file(path, png_header_only(65535, 65535)); break;
      case 8: {
        Bytes junk = random_bytes(300, rng_);
        junk[1] = 0x7E;
        write_file(path, junk);
        break;
      }  // never a plausible TGA
      case 9: {
        Bytes j = jpeg;
        j.resize(j.size() * 2 / 3);
        write_file(path, j);
        break;
      }
    }
    paths.push_back(path);
    valid.push_back(ok);
  }
  const auto last = dir_ / "last.png";
  const Bytes last_expected = write_png(last, 97, 61);
  paths.push_back(last);
  valid.push_back(true);
  ASSERT_EQ(paths.size(), std::size_t(kFiles));

  AsyncImageLoader loader;  // default policy: keep the latest image only
  const std::size_t baseline = resident_bytes();
  std::size_t peak = baseline;
  const auto start = std::chrono::steady_clock::now();
  loader.enqueue(paths);
  EXPECT_TRUE(loader.busy());
  while (loader.busy()) {
    peak = std::max(peak, resident_bytes());
    const AsyncLoadProgress p = loader.progress();
    EXPECT_EQ(p.files_total, std::size_t(kFiles));
    EXPECT_LE(p.files_done, p.files_total);
    ASSERT_LT(std::chrono::steady_clock::now() - start, 120s) << "loader stuck";
    std::this_thread::sleep_for(2ms);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::size_t growth = peak > baseline ? peak - baseline : 0;
  std::printf("[ info     ] 1000 files in %.2f s; resident memory grew by %.1f MiB at peak\n", seconds,
              double(growth) / (1 << 20));
  EXPECT_LT(growth, std::size_t(160) << 20) << "decoded images are piling up";

  const auto outcomes = loader.take_finished();
  ASSERT_EQ(outcomes.size(), std::size_t(kFiles));
  std::size_t delivered = 0, superseded = 0;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    SCOPED_TRACE(paths[i].filename().string());
    ASSERT_EQ(outcomes[i].path, paths[i]);
    const auto& image = outcomes[i].image;
    if (!valid[i]) {
      ASSERT_FALSE(image.ok());
      EXPECT_FALSE(outcomes[i].superseded());
      const Status s = image.status();
      EXPECT_FALSE(s.code.empty());
      EXPECT_NE(s.message.find(display_name(paths[i])), std::string::npos) << s.message;
    } else if (image.ok()) {
      ++delivered;
    } else {
      EXPECT_TRUE(outcomes[i].superseded()) << image.status().describe();
      ++superseded;
    }
  }
  EXPECT_EQ(delivered, 1u);
  EXPECT_EQ(superseded, loader.superseded_count());
  ASSERT_TRUE(outcomes.back().image.ok());
  EXPECT_EQ(outcomes.back().image->name, "last.png");
  EXPECT_TRUE(same_pixels(last_expected, outcomes.back().image->rgba, 97));
  const AsyncLoadProgress done = loader.progress();
  EXPECT_FALSE(done.busy);
  EXPECT_EQ(done.files_done, std::size_t(kFiles));
  EXPECT_FLOAT_EQ(done.fraction(), 1.0f);
}

TEST_F(AsyncImageLoaderTest, CancelAllDropsTheQueueAndTheLoaderStaysUsable) {
  const auto big = dir_ / "big.png";
  write_png(big, 600, 400);
  AsyncImageLoader loader;
  loader.enqueue(std::vector<std::filesystem::path>(1000, big));
  // Cancelled mid-queue: once the loader has decoded its first file.
  ASSERT_TRUE(bs::test::wait_until([&] { return loader.progress().files_done > 0; })) << "the loader never started";
  loader.cancel_all();
  ASSERT_TRUE(wait_until_idle(loader, 10s));
  const std::size_t before_cancel = loader.take_finished().size();
  EXPECT_LT(before_cancel, 1000u) << "cancel_all did not drop the queue";

  const auto small = dir_ / "small.png";
  const Bytes expected = write_png(small, 9, 4);
  loader.enqueue({small});
  ASSERT_TRUE(wait_until_idle(loader));
  const auto outcomes = loader.take_finished();
  ASSERT_EQ(outcomes.size(), 1u);
  ASSERT_TRUE(outcomes[0].image.ok()) << outcomes[0].image.status().describe();
  EXPECT_TRUE(same_pixels(expected, outcomes[0].image->rgba, 9));
  // A new batch after idling: progress counts it from zero.
  EXPECT_EQ(loader.progress().files_total, 1u);
}

TEST_F(AsyncImageLoaderTest, DestructorDoesNotWorkThroughTheQueue) {
  const auto big = dir_ / "big.png";
  write_png(big, 800, 600);
  const auto start = std::chrono::steady_clock::now();
  {
    AsyncImageLoader loader;
    loader.enqueue(std::vector<std::filesystem::path>(1000, big));
    // Destroyed mid-queue: once the loader has decoded its first file.
    ASSERT_TRUE(bs::test::wait_until([&] { return loader.progress().files_done > 0; })) << "the loader never started";
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
}

TEST_F(AsyncImageLoaderTest, LimitsApplyToFilesLoadedAfterwards) {
  const auto path = dir_ / "wide.png";
  write_png(path, 300, 2);
  AsyncImageLoader loader;
  LoadLimits limits;
  limits.max_side = 256;
  limits.side_limit_reason = "GL_MAX_TEXTURE_SIZE on this GPU";
  loader.set_limits(limits);
  loader.enqueue({path});
  ASSERT_TRUE(wait_until_idle(loader));
  auto outcomes = loader.take_finished();
  ASSERT_EQ(outcomes.size(), 1u);
  ASSERT_FALSE(outcomes[0].image.ok());
  EXPECT_EQ(outcomes[0].image.status().message,
            "wide.png is 300 x 2 pixels; the largest side blockscope accepts is 256 "
            "(GL_MAX_TEXTURE_SIZE on this GPU)");
}

TEST_F(AsyncImageLoaderTest, ProgressOfABatch) {
  AsyncImageLoader loader;
  EXPECT_FALSE(loader.busy());
  EXPECT_EQ(loader.progress().files_total, 0u);
  EXPECT_FLOAT_EQ(loader.progress().fraction(), 1.0f);
  std::vector<std::filesystem::path> paths;
  for (int i = 0; i < 3; ++i) {
    paths.push_back(dir_ / ("p" + std::to_string(i) + ".png"));
    write_png(paths.back(), 40, 40);
  }
  loader.enqueue(paths);
  EXPECT_EQ(loader.progress().files_total, 3u);
  ASSERT_TRUE(wait_until_idle(loader));
  const AsyncLoadProgress p = loader.progress();
  EXPECT_EQ(p.files_done, 3u);
  EXPECT_TRUE(p.current_file.empty());
  EXPECT_GT(p.current_bytes_total, 0u);
  EXPECT_EQ(p.current_bytes_read, p.current_bytes_total);
}

}  // namespace
}  // namespace bs::test
