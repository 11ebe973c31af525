// Recent files: MRU order, capacity, persistence round trip, tolerance of garbage, XDG rules.
#include <gtest/gtest.h>

#include <fstream>

#include "state/recent_files.hpp"
#include "test_support.hpp"

namespace bs::test {
namespace {

std::vector<std::filesystem::path> random_paths(std::mt19937& rng, int count) {
  std::vector<std::filesystem::path> paths;
  for (int i = 0; i < count; ++i)
    paths.push_back(std::filesystem::path("/data") /
                    ("photo " + std::to_string(rng() % 100000) + "_" + std::to_string(i) + ".png"));
  return paths;
}

TEST(RecentFiles, MostRecentFirstWithoutDuplicatesAndBounded) {
  const std::uint32_t seed = test_seed();
  SCOPED_TRACE(seed_note(seed));
  std::mt19937 rng(seed);
  const auto paths = random_paths(rng, 14);
  RecentFiles recent;
  for (const auto& p : paths) remember_file(recent, p);
  ASSERT_EQ(recent.paths.size(), kRecentFilesCapacity);
  for (std::size_t i = 0; i < kRecentFilesCapacity; ++i) EXPECT_EQ(recent.paths[i], paths[13 - i]);

  // Re-opening an older file moves it to the front instead of duplicating it; a spelling with
  // "." and ".." is the same file.
  const auto again = paths[8];
  remember_file(recent, again.parent_path() / "." / ".." / "data" / again.filename());
  ASSERT_EQ(recent.paths.size(), kRecentFilesCapacity);
  EXPECT_EQ(recent.paths[0], again);
  EXPECT_EQ(std::count(recent.paths.begin(), recent.paths.end(), again), 1);
  EXPECT_EQ(recent.paths[1], paths[13]);

  forget_file(recent, again);
  EXPECT_EQ(recent.paths.size(), kRecentFilesCapacity - 1);
  EXPECT_EQ(recent.paths[0], paths[13]);
}

TEST(RecentFiles, RelativePathsAreStoredAbsolute) {
  RecentFiles recent;
  remember_file(recent, "some/relative.png");
  ASSERT_EQ(recent.paths.size(), 1u);
  EXPECT_TRUE(recent.paths[0].is_absolute());
  EXPECT_EQ(recent.paths[0], (std::filesystem::current_path() / "some/relative.png").lexically_normal());
}

TEST(RecentFiles, SaveAndLoadRoundTripIncludingNonAsciiNames) {
  const std::uint32_t seed = test_seed();
  SCOPED_TRACE(seed_note(seed));
  std::mt19937 rng(seed);
  TempDir dir;
  RecentFiles recent;
  auto paths = random_paths(rng, 8);
  paths.push_back(std::filesystem::path(u8"/home/zoë/图像/café photo.png"));
  for (const auto& p : paths) remember_file(recent, p);

  const auto file = dir / "nested" / "blockscope" / "recent.txt";  // folders created on save
  const Status saved = save_recent_files(recent, file);
  ASSERT_TRUE(saved.ok()) << saved.describe();
  EXPECT_FALSE(std::filesystem::exists(file.string() + ".tmp"));
  const RecentFiles loaded = load_recent_files(file);
  EXPECT_EQ(loaded.paths, recent.paths);
}

TEST(RecentFiles, MissingFileGivesAnEmptyList) {
  TempDir dir;
  EXPECT_TRUE(load_recent_files(dir / "never-written.txt").paths.empty());
  EXPECT_TRUE(load_recent_files(dir.path()).paths.empty());  // a folder, not a file
}

TEST(RecentFiles, GarbledFileKeepsOnlyValidEntries) {
  const std::uint32_t seed = test_seed();
  SCOPED_TRACE(seed_note(seed));
  std::mt19937 rng(seed);
  TempDir dir;
  const auto file = dir / "recent.txt";
  {
    std::ofstream out(file, std::ios::binary);
    out << "# a comment\n\n";
    out << "/valid/one.png\n";
    out << "relative/not-allowed.png\n";
    out << std::string("/with\0nul.png", 13) << "\n";
    out << "/" << std::string(5000, 'x') << "\n";  // overlong
    std::uniform_int_distribution<int> byte(0, 255);
    for (int i = 0; i < 300; ++i) {  // binary junk; no '/' so no junk line looks like a path
      const int b = byte(rng);
      out << static_cast<char>(b == '/' ? 'x' : b);
    }
    out << "\n/valid/two.png\r\n";  // CRLF from a Windows editor
    out << "/valid/one.png\n";      // duplicate
    for (int i = 0; i < 20; ++i) out << "/many/" << i << ".png\n";
  }
  const RecentFiles loaded = load_recent_files(file);
  ASSERT_EQ(loaded.paths.size(), kRecentFilesCapacity);
  EXPECT_EQ(loaded.paths[0], "/valid/one.png");
  EXPECT_EQ(loaded.paths[1], "/valid/two.png");
  EXPECT_EQ(loaded.paths[2], "/many/0.png");
  for (const auto& p : loaded.paths) EXPECT_TRUE(p.is_absolute()) << p;
}

TEST(RecentFiles, PathsWithLineBreaksAreNotSaved) {
  TempDir dir;
  RecentFiles recent;
  recent.paths = {"/ok.png", "/bad\nname.png"};
  ASSERT_TRUE(save_recent_files(recent, dir / "recent.txt").ok());
  const RecentFiles loaded = load_recent_files(dir / "recent.txt");
  ASSERT_EQ(loaded.paths.size(), 1u);
  EXPECT_EQ(loaded.paths[0], "/ok.png");
}

TEST(RecentFiles, SaveReportsAnUnwritableFolder) {
  TempDir dir;
  const auto blocker = dir / "not-a-folder";
  std::ofstream(blocker) << "x";
  const Status s = save_recent_files(RecentFiles{{"/a.png"}}, blocker / "recent.txt");
  EXPECT_FALSE(s.ok());
  EXPECT_FALSE(s.message.empty());
}

TEST(ConfigDir, FollowsXdgRules) {
  EXPECT_EQ(config_dir_from("/xdg", "/home/u"), std::filesystem::path("/xdg/blockscope"));
  EXPECT_EQ(config_dir_from(nullptr, "/home/u"), std::filesystem::path("/home/u/.config/blockscope"));
  EXPECT_EQ(config_dir_from("", "/home/u"), std::filesystem::path("/home/u/.config/blockscope"));
  // The XDG spec: a relative XDG_CONFIG_HOME is invalid and must be ignored.
  EXPECT_EQ(config_dir_from("relative/dir", "/home/u"), std::filesystem::path("/home/u/.config/blockscope"));
  EXPECT_TRUE(config_dir_from(nullptr, nullptr).empty());
  EXPECT_TRUE(config_dir_from("rel", "also-rel").empty());
}

}  // namespace
}  // namespace bs::test
