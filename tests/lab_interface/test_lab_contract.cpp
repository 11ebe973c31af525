// The lab contract, checked on every lab the same way: every lab of the catalog and the test-only
// vector-add lab, each on the CPU simulation with fresh random data of odd sizes.
// For every kernel (library anchors excepted: they have no grid of ours) and each configuration
// tried, a run must
//   - launch exactly what plan() said, and name its lab, kernel and settings;
//   - pass the lab's own reference check;
//   - be traced with one record per block, each block once, and a census of threads that equals
//     grid x block (the simulator counts the body calls it makes, not what the record claims);
//   - give owners inside the launch for sampled elements, each owner's list containing the
//     element;
//   - describe warp requests with real addresses;
//   - give the same bytes from a fork() of the lab;
// and a refused configuration must leave the output untouched.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <set>

#include "lab/catalog.hpp"
#include "lab/size_text.hpp"
#include "labs/built_in_labs.hpp"
#include "vadd_lab.hpp"

namespace {

using namespace bs;

// Every lab of the catalog (labs/built_in_labs.hpp), and the test-only vector add through its
// registry line of the same shape.
lab::Catalog every_lab() {
  lab::Catalog c = labs::built_in_labs();
  c.push_back(test::vadd_lab_entry());
  return c;
}

// A fresh random size of odd extents in the lab's own syntax, with as many extents as its first
// default size has ("4099": N; "1024x768": WxH; "512x512x512": MxNxK).
std::string odd_size(const lab::Lab& l) {
  std::mt19937 rng(std::random_device{}());
  auto odd = [&](int lo, int hi) { return 2 * std::uniform_int_distribution<int>(lo / 2, hi / 2)(rng) + 1; };
  const auto dims = lab::parse_dims(l.default_sizes().front(), 1, 3);
  switch (dims ? dims->size() : 0) {
    case 1: return std::to_string(odd(301, 1201));
    case 2: return std::to_string(odd(21, 61)) + "x" + std::to_string(odd(9, 31));
    default: return std::to_string(odd(17, 41)) + "x" + std::to_string(odd(17, 41)) + "x" + std::to_string(odd(5, 19));
  }
}

// The configurations tried: the default and, for free blocks, the last preset (or a compiled
// kernel's last configuration).
std::vector<KernelConfig> configs_of(const lab::Lab& l, const lab::KernelInfo& k) {
  std::vector<KernelConfig> out{l.default_config(k)};
  if (k.style == lab::ConfigStyle::FreeBlock && !k.presets.empty()) {
    KernelConfig c;
    c.block = k.presets.back();
    out.push_back(c);
  } else if (k.style == lab::ConfigStyle::Compiled && k.configs.size() > 1) {
    KernelConfig c;
    c.compiled = static_cast<int>(k.configs.size()) - 1;
    c.block = k.configs.back().block;
    out.push_back(c);
  }
  return out;
}

void check_every_kernel(lab::Lab& l, const lab::ProblemInfo& problem, int& kernels_run);

class LabContract : public ::testing::TestWithParam<int> {};

TEST_P(LabContract, EveryKernelKeepsTheContract) {
  const lab::CatalogEntry entry = every_lab()[static_cast<std::size_t>(GetParam())];
  auto made = entry.create(lab::cpu_simulation(2, "contract test"));
  ASSERT_TRUE(made.ok()) << made.status().describe();
  lab::Lab& l = *made.value();
  EXPECT_EQ(l.id(), entry.id) << "the registry line names its lab";
  EXPECT_EQ(l.title(), entry.title);
  EXPECT_EQ(l.user_kernel_spec(), entry.user_kernels) << "the line offers what the lab offers";
  const std::string size = odd_size(l);
  SCOPED_TRACE(entry.id + " at " + size);
  ASSERT_TRUE(l.set_random_problem(size).ok());
  const lab::ProblemInfo problem = l.problem();
  ASSERT_TRUE(problem.ready);
  ASSERT_GT(problem.width, 0);
  ASSERT_GT(problem.height, 0);
  int kernels_run = 0;
  check_every_kernel(l, problem, kernels_run);
  // Every other choice of every setting (the grayscale layout, the matmul precision, which swaps
  // the ladder): the same contract, on the same problem.
  for (const lab::Setting& set : l.settings())
    for (const std::string& choice : set.choices) {
      if (choice == set.value) continue;
      SCOPED_TRACE(set.key + "=" + choice);
      ASSERT_TRUE(l.set_setting(set.key, choice).ok());
      check_every_kernel(l, l.problem(), kernels_run);
      ASSERT_TRUE(l.set_setting(set.key, set.value).ok());
    }
  EXPECT_GE(kernels_run, 2);
}

void check_every_kernel(lab::Lab& l, const lab::ProblemInfo& problem, int& kernels_run) {
  auto fork = l.fork();
  ASSERT_TRUE(fork.ok()) << fork.status().describe();
  std::mt19937 rng(std::random_device{}());
  for (const lab::KernelInfo& k : l.kernels()) {
    if (k.timed_only) continue;
    if (!k.unavailable.empty()) {  // listed with the reason, refused with it
      const LaunchRecord r = l.run(k.id, l.default_config(k), {});
      EXPECT_TRUE(r.refused) << k.id;
      EXPECT_NE(r.status.message.find(k.id), std::string::npos) << r.status.describe();
      continue;
    }
    for (const KernelConfig& cfg : configs_of(l, k)) {
      SCOPED_TRACE(k.id + " " + to_string(cfg.block));
      const LaunchRecord planned = l.plan(k.id, cfg);
      ASSERT_TRUE(planned.ok()) << planned.status.describe();
      lab::RunOptions opt;
      opt.timing = TimingPolicy::once();
      opt.trace_schedule = true;
      const LaunchRecord r = l.run(k.id, cfg, opt);
      ASSERT_TRUE(r.ok()) << r.status.describe();
      ++kernels_run;
      EXPECT_EQ(r.lab, std::string(l.id()));
      EXPECT_EQ(r.kernel, k.id);
      EXPECT_EQ(r.settings, l.setting_values());
      EXPECT_EQ(r.config.grid, planned.config.grid);
      EXPECT_EQ(r.config.block, planned.config.block);
      EXPECT_TRUE(r.check.passed()) << r.check.summary();
      EXPECT_GT(r.timing.median_ms, 0);
      // The trace: each block once, and the simulator's own count of threads.
      ASSERT_EQ(r.schedule.size(), r.config.grid.volume());
      std::set<unsigned long long> blocks;
      unsigned long long threads = 0;
      for (const BlockTrace& b : r.schedule) {
        blocks.insert(mapping::linear_block_id(b.block, r.config.grid));
        threads += b.threads;
      }
      EXPECT_EQ(blocks.size(), r.config.grid.volume());
      EXPECT_EQ(threads, r.config.grid.volume() * r.config.block.volume());
      // Owners of sampled elements (and every corner) are threads of this launch that own them.
      std::vector<std::pair<long long, long long>> xs = {
          {0, 0}, {problem.width - 1, 0}, {0, problem.height - 1}, {problem.width - 1, problem.height - 1}};
      for (int i = 0; i < 12; ++i)
        xs.push_back({std::uniform_int_distribution<long long>(0, problem.width - 1)(rng),
                      std::uniform_int_distribution<long long>(0, problem.height - 1)(rng)});
      for (auto [x, y] : xs) {
        auto o = l.owner(r, x, y);
        ASSERT_TRUE(o.has_value()) << "no owner for (" << x << ", " << y << ")";
        EXPECT_LT(o->thread.block.x, r.config.grid.x);
        EXPECT_LT(o->thread.block.y, r.config.grid.y);
        EXPECT_LT(o->thread.thread.x, r.config.block.x);
        EXPECT_LT(o->thread.thread.y, r.config.block.y);
        bool listed = false;
        for (const auto& rect : o->owns)
          listed |= x >= rect.x && x < rect.x + rect.w && y >= rect.y && y < rect.y + rect.h;
        EXPECT_TRUE(listed) << "(" << x << ", " << y << ") is not among its owner's elements";
        // The memory model of the owner's warp names real addresses.
        const auto accesses = l.warp_accesses(r, o->thread.block, o->thread.warp_in_block, static_cast<int>(o->pass));
        EXPECT_FALSE(accesses.empty());
        for (const auto& a : accesses)
          for (long long addr : a.lane_address) EXPECT_TRUE(addr == mapping::kNoAccess || addr >= 0);
      }
      // The same kernel on the fork gives the same bytes.
      std::vector<std::uint8_t> mine(l.output_bytes()), theirs(l.output_bytes());
      ASSERT_TRUE(l.download_output(mine.data()).ok());
      const LaunchRecord fr = fork.value()->run(k.id, cfg, {});
      ASSERT_TRUE(fr.ok()) << fr.status.describe();
      ASSERT_EQ(fork.value()->output_bytes(), theirs.size());
      ASSERT_TRUE(fork.value()->download_output(theirs.data()).ok());
      EXPECT_TRUE(mine == theirs) << "the fork computed other bytes";
    }
    // A configuration no kernel can take is refused and writes nothing.
    std::vector<std::uint8_t> poison(l.output_bytes(), 0xA5);
    lab::RunOptions opt;
    opt.output = poison.data();
    KernelConfig bad;
    bad.block = Dim3{0, 4, 1};
    const LaunchRecord refused = l.run(k.id, bad, opt);
    EXPECT_FALSE(refused.ok());
    EXPECT_TRUE(refused.refused);
    EXPECT_FALSE(refused.status.message.empty());
    EXPECT_TRUE(std::all_of(poison.begin(), poison.end(), [](std::uint8_t v) { return v == 0xA5; }));
  }
}

INSTANTIATE_TEST_SUITE_P(Labs, LabContract, ::testing::Range(0, static_cast<int>(every_lab().size())),
                         [](const auto& info) { return every_lab()[static_cast<std::size_t>(info.param)].id; });

}  // namespace
