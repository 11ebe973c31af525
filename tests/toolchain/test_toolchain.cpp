// The toolchain (kernels/toolchain), on this machine's own tools: gcov's annotated text read per
// line (the one reader the rungs' counter and the user's counted launch share), a temporary folder
// that goes when its owner does, and a unit built into a shared object in one by the real host
// compiler, loaded and run on fresh random data against a sum taken here; a unit that does not
// compile fails naming its line and leaves no folder behind.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "skips.hpp"
#include "toolchain/gcov.hpp"
#include "toolchain/host_compiler.hpp"
#include "toolchain/files.hpp"

namespace bs::toolchain {
namespace {

namespace fs = std::filesystem;

// ---- gcov's text ---------------------------------------------------------------------------

TEST(GcovText, EveryFileIsReadAndATemplatesLinesCountOnce) {
  // As gcov -t writes it: a header whose template has two instantiations (listed again after the
  // summed line), a unit, and a header none of whose code ran.
  const std::string text =
      "        -:    0:Source:kernels/a.hpp\n"
      "        -:    0:Graph:/tmp/x/a.gcno\n"
      "        -:    0:Runs:1\n"
      "        -:    1:template <class T>\n"
      "       12:    2:T add(T a, T b) {\n"
      "      12*:    3:  return a + b;\n"
      "------------------\n"
      "_Z3addIiET_S0_S0_:\n"
      "        7:    2:T add(T a, T b) {\n"
      "        7:    3:  return a + b;\n"
      "------------------\n"
      "_Z3addIdET_S0_S0_:\n"
      "        5:    2:T add(T a, T b) {\n"
      "        5:    3:  return a + b;\n"
      "------------------\n"
      "    #####:    4:  never();\n"
      "        -:    0:Source:kernels/b.cpp\n"
      "        1:    9:int main() {\n"
      "    =====:   10:  throw;\n"
      "       40:   11:  for (;;) x:y;\n"
      "        -:    0:Source:kernels/cold.hpp\n"
      "    #####:    3:  cold();\n";
  auto got = parse_gcov_sources(text);
  ASSERT_TRUE(got) << got.status().describe();
  const std::vector<LineSamples>& lines = *got;
  auto find = [&](const std::string& file, int line) -> const LineSamples* {
    for (const LineSamples& l : lines)
      if (l.file == file && l.line == line) return &l;
    return nullptr;
  };
  ASSERT_TRUE(find("kernels/a.hpp", 2));
  EXPECT_EQ(find("kernels/a.hpp", 2)->samples, 12);  // the sum, not 12 + 7 + 5
  EXPECT_EQ(find("kernels/a.hpp", 3)->samples, 12);
  ASSERT_TRUE(find("kernels/a.hpp", 4));
  EXPECT_EQ(find("kernels/a.hpp", 4)->samples, 0);
  EXPECT_FALSE(find("kernels/a.hpp", 1)) << "a line without code";
  ASSERT_TRUE(find("kernels/b.cpp", 11));
  EXPECT_EQ(find("kernels/b.cpp", 11)->samples, 40);
  EXPECT_EQ(find("kernels/b.cpp", 10)->samples, 0);
  EXPECT_FALSE(find("kernels/cold.hpp", 3)) << "a file that did not run is left out";
  EXPECT_EQ(lines.size(), 6u);
  EXPECT_EQ(lines.front().samples, 40);
  const double total = 12 + 12 + 1 + 40;
  EXPECT_NEAR(find("kernels/b.cpp", 11)->share_pct, 100.0 * 40 / total, 1e-9);
  EXPECT_FALSE(parse_gcov_sources("no gcov here\n"));
}

// gcov's annotated text, as `gcov -t` prints it for two sources: the counts of kernel.cu's lines
// only, "#####" as 0, "1*" as 1, lines without code left out.
TEST(GcovText, OneFilesCountsAreThatFilesOnly) {
  const std::string text =
      "        -:    0:Source:kernel.cu\n"
      "        -:    0:Graph:./unit.gcno\n"
      "        -:    0:Runs:1\n"
      "     6767:    2:    int i = blockIdx.x;\n"
      "    #####:    3:    dead();\n"
      "       1*:    4:    if (x) y();\n"
      "        -:    5:}\n"
      "   123456:    9:  hot();\n"
      "        -:    0:Source:unit.cpp\n"
      "       99:    2:extern int other;\n";
  auto lines = parse_gcov_text(text, "kernel.cu");
  ASSERT_TRUE(lines) << lines.status().describe();
  ASSERT_EQ(lines->size(), 4u);
  EXPECT_EQ((*lines)[0].line, 9);
  EXPECT_EQ((*lines)[0].samples, 123456);
  EXPECT_EQ((*lines)[1].line, 2);
  EXPECT_EQ((*lines)[1].samples, 6767);
  EXPECT_EQ((*lines)[2].line, 4);
  EXPECT_EQ((*lines)[2].samples, 1);
  EXPECT_EQ((*lines)[3].line, 3);
  EXPECT_EQ((*lines)[3].samples, 0);
  EXPECT_NEAR((*lines)[0].share_pct, 100.0 * 123456 / (123456 + 6767 + 1), 1e-9);
  EXPECT_FALSE(parse_gcov_text(text, "missing.cu")) << "a file gcov did not name is an error";
}

// ---- temporary folders ---------------------------------------------------------------------

// The simulator's stand-ins for warp instructions (a file with kFoldMarker) fold into the kernel
// lines that call them, in proportion to how often each line ran, through a helper of another
// file that only they call; a helper the kernel calls itself stays where it is.
TEST(GcovText, StandInsFoldIntoTheKernelLinesThatCallThem) {
  const std::string text =
      "        -:    0:Source:kernels/k.hpp\n"
      "        -:    1:template <class Ctx>\n"
      "       10:    2:void kernel(const Ctx& t) {\n"
      "       30:    3:  for (int i = 0; i < 3; ++i) mma(t, a);\n"
      "       10:    4:  mma(t, b);\n"
      "       10:    5:  int x = helper(1);\n"
      "       10:    6:}\n"
      "        -:    0:Source:kernels/ops.hpp\n"
      "        -:    1:// linecount: fold into the calling line.\n"
      "        -:    2:template <class Ctx>\n"
      "       40:    3:void mma(const Ctx& t, int v) {\n"
      "      640:    4:  for (int k = 0; k < 16; ++k) emulate(v, k);\n"
      "       40:    5:}\n"
      "      600:    6:void emulate(int v, int k) { acc += layout(k) * v; }\n"
      "        -:    0:Source:kernels/common.hpp\n"
      "      600:    1:int layout(int e) {\n"
      "      600:    2:  return e * 2;\n"
      "      600:    3:}\n"
      "       10:    4:int helper(int e) { return e; }\n";
  auto got = parse_gcov_sources(text);
  ASSERT_TRUE(got) << got.status().describe();
  auto find = [&](const std::string& file, int line) -> const LineSamples* {
    for (const LineSamples& l : *got)
      if (l.file == file && l.line == line) return &l;
    return nullptr;
  };
  // By hand: layout (1800, called only by the stand-in emulate) and emulate (600) fold into mma
  // (40 + 640 + 40 of its own): 3120, split 30 : 10 between the kernel's lines 3 and 4.
  ASSERT_TRUE(find("kernels/k.hpp", 3) && find("kernels/k.hpp", 4));
  EXPECT_EQ(find("kernels/k.hpp", 3)->folded, 2340);
  EXPECT_EQ(find("kernels/k.hpp", 4)->folded, 780);
  EXPECT_EQ(find("kernels/k.hpp", 3)->samples, 30 + 2340);
  EXPECT_EQ(find("kernels/k.hpp", 4)->samples, 10 + 780);
  EXPECT_EQ(find("kernels/k.hpp", 2)->folded, 0);
  for (int l = 3; l <= 6; ++l) EXPECT_FALSE(find("kernels/ops.hpp", l)) << "stand-in line " << l << " folded away";
  for (int l = 1; l <= 3; ++l) EXPECT_FALSE(find("kernels/common.hpp", l)) << "a helper only the stand-ins call";
  ASSERT_TRUE(find("kernels/common.hpp", 4)) << "a helper the kernel calls keeps its line";
  EXPECT_EQ(find("kernels/common.hpp", 4)->samples, 10);
  long long sum = 0;
  double share = 0;
  for (const LineSamples& l : *got) sum += l.samples, share += l.share_pct;
  EXPECT_NEAR(share, 100.0, 1e-6);
  EXPECT_EQ(got->front().file, "kernels/k.hpp") << "the hottest line is the kernel's";
  EXPECT_EQ(got->front().line, 3);
  const long long raw = 10 + 30 + 10 + 10 + 10 + 40 + 640 + 40 + 600 + 3 * 600 + 10;
  EXPECT_EQ(sum, raw) << "folding moves executions, it neither loses nor adds any";
  // Without the marker nothing folds: the stand-in's loop is the hottest line, as gcov counts it.
  std::string plain = text;
  plain.replace(plain.find("linecount: fold"), 15, "an ordinary one");
  auto unfolded = parse_gcov_sources(plain);
  ASSERT_TRUE(unfolded);
  long long unfolded_sum = 0;
  for (const LineSamples& l : *unfolded) {
    unfolded_sum += l.samples;
    EXPECT_EQ(l.folded, 0);
  }
  EXPECT_EQ(unfolded_sum, raw);
  EXPECT_EQ(unfolded->front().file, "kernels/ops.hpp");
}

TEST(TempFolder, IsMadeEmptyAndGoesWithItsOwnerUnlessReleased) {
  fs::path gone, kept;
  {
    auto folder = TempFolder::make("bs-toolchain-test");
    ASSERT_TRUE(folder) << folder.status().describe();
    gone = folder->path();
    ASSERT_TRUE(fs::is_directory(gone));
    EXPECT_TRUE(fs::is_empty(gone));
    EXPECT_NE(gone.filename().string().find("bs-toolchain-test-"), std::string::npos);
    std::ofstream(gone / "a.txt") << "something";
    TempFolder moved = std::move(*folder);  // the new owner removes it, once
    EXPECT_EQ(moved.path(), gone);
    EXPECT_TRUE(folder->path().empty());
    auto other = TempFolder::make("bs-toolchain-test");
    ASSERT_TRUE(other);
    kept = other->release();
  }
  EXPECT_FALSE(fs::exists(gone));
  ASSERT_TRUE(fs::is_directory(kept)) << "a released folder is the caller's";
  remove_folder(kept);
  EXPECT_FALSE(fs::exists(kept));
}

// The folders of `prefix` under the temporary folder now.
std::vector<fs::path> folders_named(const std::string& prefix) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(fs::temp_directory_path()))
    if (e.path().filename().string().rfind(prefix + "-", 0) == 0) out.push_back(e.path());
  return out;
}

TEST(BuildInTempFolder, TheHostCompilersSharedObjectRunsAndABrokenUnitNamesItsLine) {
  auto compiler = find_host_compiler();
  if (!compiler) BS_SKIP() << "no host C++ compiler here: " << compiler.status().describe();
  const std::string prefix = "bs-toolchain-build-" + std::to_string(::getpid());
  TempFolderBuild spec;
  spec.what = "the test build";
  spec.prefix = prefix;
  spec.optimisation = "-O1";
  spec.unit =
      "#include \"weights.h\"\n"
      "extern \"C\" __attribute__((visibility(\"default\"))) long long bs_weighted_sum(const int* v, int n) {\n"
      "  long long s = 0;\n"
      "  for (int i = 0; i < n; ++i) s += (long long)v[i] * (i % kWeights + 1);\n"
      "  return s;\n"
      "}\n";
  spec.more_files = {{"weights.h", "constexpr int kWeights = 3;\n"}};
  spec.library = "probe.so";
  spec.failure_code = "test_build";
  auto built = build_in_temp_folder(*compiler, spec, 120);
  ASSERT_TRUE(built) << built.status().describe();
  EXPECT_EQ(built->library, built->dir / "probe.so");
  ASSERT_TRUE(fs::exists(built->library));
  EXPECT_TRUE(fs::exists(built->dir / "unit.cpp"));
  {
    void* lib = dlopen(built->library.c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(lib, nullptr) << dlerror();
    using Fn = long long (*)(const int*, int);
    auto fn = reinterpret_cast<Fn>(dlsym(lib, "bs_weighted_sum"));
    ASSERT_NE(fn, nullptr);
    std::mt19937 rng(std::random_device{}());
    const int n = 2 * std::uniform_int_distribution<int>(50, 500)(rng) + 1;
    std::vector<int> v(static_cast<std::size_t>(n));
    for (int& x : v) x = std::uniform_int_distribution<int>(-1000, 1000)(rng);
    long long want = 0;  // the weights 1, 2, 3, 1, 2, 3, ... taken here another way
    const int weights[3] = {1, 2, 3};
    for (std::size_t i = 0; i < v.size(); ++i) want += static_cast<long long>(v[i]) * weights[i % 3];
    EXPECT_EQ(fn(v.data(), n), want);
    dlclose(lib);
  }
  remove_folder(built->dir);
  EXPECT_FALSE(fs::exists(built->dir));

  spec.unit = "int fine = 1;\nint broken = ;\n";
  auto failed = build_in_temp_folder(*compiler, spec, 120);
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.status().code, "test_build");
  EXPECT_NE(failed.status().message.find("the test build of the kernel failed"), std::string::npos)
      << failed.status().message;
  EXPECT_NE(failed.status().message.find("unit.cpp:2"), std::string::npos) << failed.status().message;
  EXPECT_TRUE(folders_named(prefix).empty()) << "a failed build leaves no folder";
}

}  // namespace
}  // namespace bs::toolchain
