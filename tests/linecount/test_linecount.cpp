// Executions per line of the built-in rungs on the CPU simulator (kernels/linecount): the counter
// process's counts checked against counts made here from the rungs' own loop bounds and guards,
// on odd sizes of fresh random data; gcov's text parsed by hand-made examples; the refusals
// (no counter, a rung the simulator cannot run) with their reasons.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "lab/catalog.hpp"
#include "labs/grayscale/gray_lab.hpp"
#include "labs/matmul/matmul_lab.hpp"
#include "linecount/count_lines.hpp"
#include "measured/profile_lines.hpp"
#include "skips.hpp"

namespace bs::linecount {
namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::uint32_t fresh_seed() { return std::random_device{}(); }

lab::Backend cpu_backend() { return lab::cpu_simulation(2, "test"); }

std::unique_ptr<lab::Lab> gray_lab(const std::string& size) {
  auto l = gray::GrayLab::create(cpu_backend());
  if (!l || !(*l)->set_random_problem(size)) return nullptr;
  return std::unique_ptr<lab::Lab>(std::move(l.value()));
}

std::unique_ptr<lab::Lab> matmul_lab(const std::string& size) {
  auto l = matmul::MatmulLab::create(cpu_backend());
  if (!l || !(*l)->set_random_problem(size)) return nullptr;
  return std::unique_ptr<lab::Lab>(std::move(l.value()));
}

// The 1-based number of the one line of `file` (from the source tree's root) that contains
// `text`; 0 (and a test failure) when none or several do. The rungs' lines are found by what they
// say, not by numbers that move when a comment is added.
int line_of(const std::string& file, const std::string& text) {
  std::ifstream f(std::string(BS_SOURCE_DIR) + "/" + file);
  EXPECT_TRUE(f) << file;
  std::string line;
  int n = 0, found = 0, hits = 0;
  while (std::getline(f, line)) {
    ++n;
    if (contains(line, text)) found = n, ++hits;
  }
  EXPECT_EQ(hits, 1) << "'" << text << "' in " << file;
  return hits == 1 ? found : 0;
}

// Executions of `line` of `file` in the profile; -1 when the profile has no such line.
long long executions(const LineProfile& p, const std::string& file, int line) {
  for (const LineSamples& l : p.lines)
    if (l.line == line && l.file == file) return l.samples;
  return -1;
}

#ifdef BS_HAVE_LINE_COUNTER
#define SKIP_WITHOUT_COUNTER() (void)0
#else
#define SKIP_WITHOUT_COUNTER() BS_SKIP() << "this build has no blockscope-line-counter (BLOCKSCOPE_LINE_COUNTER=OFF)"
#endif

void expect_consistent(const LineProfile& p) {
  EXPECT_EQ(p.measure, LineMeasure::Executions);
  EXPECT_TRUE(contains(p.measure_note, "gcov of blockscope-line-counter")) << p.measure_note;
  EXPECT_EQ(p.launches, 1);
  long long total = 0;
  double share = 0;
  for (const LineSamples& l : p.lines) total += l.samples, share += l.share_pct;
  EXPECT_EQ(total, p.total_samples);
  EXPECT_NEAR(share, 100.0, 1e-6);
  ASSERT_FALSE(p.lines.empty());
  EXPECT_GE(p.lines.front().samples, p.lines.back().samples) << "most executions first";
}

// ---- counted launches ------------------------------------------------------------------------

// gray_1d_flat: i = blockIdx.x * threads + thread; `if (i < n)` on every launched thread, the
// pixel's store and gray_value on the n = w * h threads past it.
TEST(LineCounter, Gray1dFlatCountsEveryLaunchedThreadAndEveryPixel) {
  SKIP_WITHOUT_COUNTER();
  const std::uint32_t seed = fresh_seed();
  std::mt19937 rng(seed);
  const int w = 37 + 2 * static_cast<int>(rng() % 20), h = 23 + 2 * static_cast<int>(rng() % 15);  // odd
  auto lab = gray_lab(std::to_string(w) + "x" + std::to_string(h));
  ASSERT_TRUE(lab);
  const unsigned bx = 96;
  const long long n = static_cast<long long>(w) * h, launched = (n + bx - 1) / bx * bx;
  ASSERT_TRUE(measured::lines_refusal(*lab, "gray_1d_flat").ok());
  auto got = count_lines(*lab, "gray_1d_flat", KernelConfig{Dim3{bx, 1, 1}});
  ASSERT_TRUE(got) << got.status().describe();
  const LineProfile& p = *got;
  expect_consistent(p);
  const std::string rung = "kernels/labs/grayscale/gray_1d_flat.hpp";
  const std::string common = "kernels/labs/grayscale/gray_common.hpp";
  EXPECT_EQ(executions(p, rung, line_of(rung, "const int threads_per_block =")), launched) << w << "x" << h;
  EXPECT_EQ(executions(p, rung, line_of(rung, "if (i < a.n) a.out[i] = gray_value(a.planar_rgb[i]")), launched);
  EXPECT_EQ(executions(p, rung, line_of(rung, "if (i < a.n) a.out[i] = gray_value(a.rgba")), 0)
      << "the RGBA layout's line (another instantiation) did not run";
  EXPECT_EQ(executions(p, common, line_of(common, "const float v = fmaf(kBlueWeight")), n);
}

// gray_2d with 32x8 blocks: c, r and the guard on every launched thread, the pixel on w * h; with
// layout=rgba the other store runs instead (the setting reaches the counter).
TEST(LineCounter, Gray2dCountsTheGuardOnTheGridAndTheStoreOnTheImage) {
  SKIP_WITHOUT_COUNTER();
  const std::uint32_t seed = fresh_seed();
  std::mt19937 rng(seed);
  const int w = 37 + 2 * static_cast<int>(rng() % 30), h = 23 + 2 * static_cast<int>(rng() % 20);
  auto lab = gray_lab(std::to_string(w) + "x" + std::to_string(h));
  ASSERT_TRUE(lab);
  const long long n = static_cast<long long>(w) * h;
  const long long launched = static_cast<long long>((w + 31) / 32 * 32) * ((h + 7) / 8 * 8);
  const std::string rung = "kernels/labs/grayscale/gray_2d.hpp";
  const int guard = line_of(rung, "if (c < a.width && r < a.height)");
  const int index = line_of(rung, "const int i = r * a.width + c;");
  const int planar = line_of(rung, "a.out[i] = gray_value(a.planar_rgb[i]");
  const int rgba = line_of(rung, "a.out[i] = gray_value(a.rgba[4ll * i]");
  for (const char* layout : {"planar", "rgba"}) {
    ASSERT_TRUE(lab->set_setting("layout", layout));
    auto got = count_lines(*lab, "gray_2d", KernelConfig{Dim3{32, 8, 1}});
    ASSERT_TRUE(got) << got.status().describe();
    const LineProfile& p = *got;
    expect_consistent(p);
    EXPECT_EQ(executions(p, rung, line_of(rung, "const int c = static_cast<int>(t.blockIdx.x")), launched)
        << layout << " " << w << "x" << h;
    EXPECT_EQ(executions(p, rung, guard), launched);
    EXPECT_EQ(executions(p, rung, index), n);
    const bool is_planar = std::string(layout) == "planar";
    EXPECT_EQ(executions(p, rung, planar), is_planar ? n : 0) << layout;
    EXPECT_EQ(executions(p, rung, rgba), is_planar ? 0 : n) << layout;
  }
}

// k3 with T = 16 at an odd size: each of the ceil(N/T) * ceil(M/T) blocks' T*T threads runs
// ceil(K/T) tiles of T multiply-adds, zero-padded past the edges; the inner product's line runs
// that many times, the two shared loads (core/shared_access.hpp) twice that.
TEST(LineCounter, K3InnerProductRunsTilesTimesTheTileOnEveryThread) {
  SKIP_WITHOUT_COUNTER();
  const std::uint32_t seed = fresh_seed();
  std::mt19937 rng(seed);
  const int M = 33 + 2 * static_cast<int>(rng() % 10), N = 29 + 2 * static_cast<int>(rng() % 10),
            K = 21 + 2 * static_cast<int>(rng() % 10);
  const std::string size = std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
  auto lab = matmul_lab(size);
  ASSERT_TRUE(lab);
  const lab::KernelInfo* k3 = lab->find_kernel("k3_smem_tiled");
  ASSERT_TRUE(k3);
  int config = -1;
  for (std::size_t i = 0; i < k3->configs.size(); ++i)
    if (k3->configs[i].block.x == 16) config = static_cast<int>(i);
  ASSERT_GE(config, 0);
  KernelConfig kc;
  kc.compiled = config;
  constexpr long long T = 16;
  const long long launched = ((N + T - 1) / T) * ((M + T - 1) / T) * T * T;
  const long long tiles = (K + T - 1) / T;
  auto got = count_lines(*lab, "k3_smem_tiled", kc);
  ASSERT_TRUE(got) << got.status().describe() << " " << size;
  const LineProfile& p = *got;
  expect_consistent(p);
  const std::string rung = "kernels/labs/matmul/k3_smem_tiled.hpp";
  const std::string access = "kernels/core/shared_access.hpp";
  EXPECT_EQ(executions(p, rung, line_of(rung, "const int row = static_cast<int>(t.blockIdx.y) * T + ty;")), launched)
      << size;
  EXPECT_EQ(executions(p, rung, line_of(rung, "shared_store(t, s.As[ty][tx]")), launched * tiles);
  EXPECT_EQ(executions(p, rung, line_of(rung, "sum += x * y;")), launched * tiles * T) << size;
  EXPECT_EQ(executions(p, rung, line_of(rung, "if (row < a.M && col < a.N) a.C[")), launched);
  EXPECT_EQ(executions(p, access, line_of(access, "  return ref;")), 2 * launched * tiles * T)
      << "the rung's loads run inside shared_access.hpp";
  // The hottest line is the rung's: the inner product (or a load it makes).
  EXPECT_TRUE(p.lines.front().file == rung || p.lines.front().file == access) << p.lines.front().file;
}

// Issue 36 item 11: T1 (WMMA) counted on the CPU. The simulator's lane-by-lane WMMA and mma.sync
// (tc_warp_ops.hpp, and the fragment layouts of tc_common.hpp that only they call) fold into T1's
// own lines, so the hottest lines are the rung's: its mma line holds most of the executions.
TEST(LineCounter, T1sHottestLinesAreTheRungsWithTheTensorCoreStandInsFoldedIn) {
  SKIP_WITHOUT_COUNTER();
  std::mt19937 rng(fresh_seed());
  const int M = 33 + 2 * static_cast<int>(rng() % 20), N = 31 + 2 * static_cast<int>(rng() % 20),
            K = 17 + 2 * static_cast<int>(rng() % 20);
  const std::string size = std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
  auto lab = matmul_lab(size);
  ASSERT_TRUE(lab);
  ASSERT_TRUE(lab->set_setting("precision", "bf16")) << size;
  KernelConfig kc;
  kc.compiled = 0;
  auto got = count_lines(*lab, "tc1_wmma", kc);
  ASSERT_TRUE(got) << got.status().describe() << " " << size;
  const LineProfile& p = *got;
  expect_consistent(p);
  const std::string rung = "kernels/labs/matmul/tc1_wmma.hpp";
  for (const LineSamples& l : p.lines) {
    EXPECT_NE(l.file, "kernels/labs/matmul/tc_warp_ops.hpp") << "line " << l.line << " was not folded";
    if (l.file != rung) { EXPECT_EQ(l.folded, 0) << l.file << ":" << l.line; }
  }
  for (int i = 0; i < 3 && i < static_cast<int>(p.lines.size()); ++i)
    EXPECT_EQ(p.lines[static_cast<std::size_t>(i)].file, rung) << "hot line " << i;
  const int mma = line_of(rung, "wmma_mma(t, acc[i][j], fa[i], fb[j]);");
  const LineSamples* mma_line = nullptr;
  for (const LineSamples& l : p.lines)
    if (l.file == rung && l.line == mma) mma_line = &l;
  ASSERT_TRUE(mma_line);
  EXPECT_EQ(&p.lines.front(), mma_line) << "the mma line is the hottest";
  EXPECT_GT(mma_line->folded, 0);
  EXPECT_GT(mma_line->samples - mma_line->folded, 0) << "its own executions are still counted";
  EXPECT_GT(mma_line->share_pct, 50.0);
  EXPECT_TRUE(contains(p.measure_note, "counted on the kernel lines that call them")) << p.measure_note;
}

// Through measured::profile_lines, as the Source tab and bench --lines reach it: the CPU backend
// counts a rung, and names the backend.
TEST(LineCounter, ProfileLinesOnTheCpuCountsARung) {
  SKIP_WITHOUT_COUNTER();
  auto lab = gray_lab("41x19");
  ASSERT_TRUE(lab);
  auto got = measured::profile_lines(*lab, "gray_2d", KernelConfig{Dim3{16, 16, 1}}, sampling::SamplerHandle{});
  ASSERT_TRUE(got) << got.status().describe();
  EXPECT_EQ(got->measure, LineMeasure::Executions);
  EXPECT_EQ(got->kernel, "gray_2d");
  EXPECT_EQ(got->device, "CPU simulation (2 workers, test)");
  const std::string rung = "kernels/labs/grayscale/gray_2d.hpp";
  EXPECT_EQ(executions(*got, rung, line_of(rung, "if (c < a.width && r < a.height)")), 48 * 32);
}

// ---- refusals --------------------------------------------------------------------------------

TEST(LineCounter, AMissingCounterIsRefusedWithWhereItLookedAndTheFix) {
  auto lab = gray_lab("37x23");
  ASSERT_TRUE(lab);
  const std::filesystem::path nowhere = "/nonexistent/blockscope-line-counter";
  const Status s = count_refusal(*lab, "gray_2d", nowhere);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message, "blockscope-line-counter, which was not found")) << s.describe();
  EXPECT_TRUE(contains(s.message, nowhere.string())) << s.describe();
  EXPECT_TRUE(contains(s.hint, "BLOCKSCOPE_LINE_COUNTER")) << s.hint;
  CountOptions options;
  options.counter = nowhere;
  auto got = count_lines(*lab, "gray_2d", KernelConfig{Dim3{32, 8, 1}}, options);
  ASSERT_FALSE(got);
  EXPECT_EQ(got.status().message, s.message);
}

TEST(LineCounter, ACounterThatFailsSaysWhyInItsOwnWords) {
  SKIP_WITHOUT_COUNTER();
  auto lab = gray_lab("37x23");
  ASSERT_TRUE(lab);
  // The counter refuses a block CUDA would refuse, and the reason comes back.
  auto got = count_lines(*lab, "gray_2d", KernelConfig{Dim3{64, 32, 1}});
  ASSERT_FALSE(got);
  EXPECT_TRUE(contains(got.status().message, "2048")) << got.status().describe();
  EXPECT_EQ(got.status().call, "blockscope-line-counter");
}

TEST(LineCounter, ARungTheSimulatorCannotRunIsRefusedWithItsReason) {
  auto lab = matmul_lab("64x64x64");
  ASSERT_TRUE(lab);
  ASSERT_TRUE(lab->set_setting("precision", "bf16"));
  const lab::KernelInfo* t3 = lab->find_kernel("tc3_wgmma");
  ASSERT_TRUE(t3);
  ASSERT_FALSE(t3->unavailable.empty());
  const Status s = measured::lines_refusal(*lab, "tc3_wgmma");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message, t3->unavailable);
  EXPECT_FALSE(measured::lines_refusal(*lab, "no_such_kernel").ok());
}

}  // namespace
}  // namespace bs::linecount
