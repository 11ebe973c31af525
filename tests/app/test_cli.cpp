// Every flag maps onto the state it names; bad values are refused with the flag named.
#include <gtest/gtest.h>

#include "cli/options.hpp"
#include "labs/matmul/matmul.hpp"

namespace {

using namespace bs::app;

bs::Result<CliOptions> parse(std::vector<std::string> args) { return parse_command_line(args); }

TEST(Cli, NoArgumentsOpensTheWindowOnTheSample) {
  auto o = parse({});
  ASSERT_TRUE(o.ok());
  EXPECT_FALSE(o->headless);
  EXPECT_TRUE(o->images.empty());
  EXPECT_EQ(o->backend, BackendChoice::Auto);
}

TEST(Cli, HeadlessStateFlagsReachTheState) {
  auto o = parse({"img.png", "--headless", "--frames", "5", "--screenshot", "s.png", "--gray-out",
                  "g.png", "--kernel", "2d", "--block", "32x8", "--backend", "cpu", "--overlay",
                  "warp", "--hover", "12,34", "--pin", "5,6", "--panel", "schedule", "--view",
                  "side", "--zoom", "4", "--center", "100,50", "--window-size", "800x600"});
  ASSERT_TRUE(o.ok()) << o.status().describe();
  EXPECT_TRUE(o->headless);
  EXPECT_EQ(o->frames, 5);
  EXPECT_EQ(o->images, std::vector<std::string>{"img.png"});
  EXPECT_EQ(o->state.gray.kernel, bs::gray::GrayKernel::Grid2D);
  EXPECT_EQ(o->state.gray.block, (bs::Dim3{32, 8, 1}));
  EXPECT_EQ(o->backend, BackendChoice::Cpu);
  EXPECT_EQ(o->state.view.overlay, OverlayMode::ColourByWarp);
  ASSERT_TRUE(o->state.view.hover.has_value());
  EXPECT_EQ(o->state.view.hover->x, 12);
  EXPECT_EQ(o->state.view.hover->y, 34);
  EXPECT_EQ(o->state.view.pinned->x, 5);
  EXPECT_EQ(o->state.panel, Panel::Schedule);
  EXPECT_EQ(o->state.view.compare, CompareMode::SideBySide);
  EXPECT_FLOAT_EQ(o->state.view.zoom, 4.0f);
  EXPECT_EQ(o->width, 800);
  EXPECT_EQ(o->height, 600);
}

TEST(Cli, StatusFileWorksInTheWindowAndHeadless) {
  auto window = parse({"--status-file", "state.json"});
  ASSERT_TRUE(window.ok()) << window.status().describe();
  EXPECT_EQ(window->status_file_path, "state.json");
  EXPECT_FALSE(window->headless);
  auto headless = parse({"--headless", "--status-file", "/tmp/s t.json"});
  ASSERT_TRUE(headless.ok()) << headless.status().describe();
  EXPECT_EQ(headless->status_file_path, "/tmp/s t.json");
}

TEST(Cli, BlockParsingAcceptsOneToThreeDimensions) {
  EXPECT_EQ(parse_block("256").value(), (bs::Dim3{256, 1, 1}));
  EXPECT_EQ(parse_block("16x16").value(), (bs::Dim3{16, 16, 1}));
  EXPECT_EQ(parse_block("8x8x4").value(), (bs::Dim3{8, 8, 4}));
  // Zero is the launcher's to refuse (with CUDA's reason), not the parser's.
  EXPECT_EQ(parse_block("0x4").value(), (bs::Dim3{0, 4, 1}));
  for (const char* bad : {"", "x", "16x", "a", "1x2x3x4", "-5", "16*16"})
    EXPECT_FALSE(parse_block(bad).ok()) << bad;
}

TEST(Cli, BenchOptions) {
  auto o = parse({"bench", "gray", "--size", "8192x8192", "--size", "1023x767", "--block", "256",
                  "--block", "16x16", "--json", "out.json", "--repeats", "7"});
  ASSERT_TRUE(o.ok()) << o.status().describe();
  ASSERT_TRUE(o->bench.has_value());
  EXPECT_EQ(o->bench->what, "gray");
  EXPECT_EQ(o->bench->gray_sizes.size(), 2u);
  EXPECT_EQ(o->bench->blocks.size(), 2u);
  EXPECT_EQ(o->bench->json_path, "out.json");
  EXPECT_EQ(o->bench->repeats, 7);
  auto m = parse({"bench", "matmul", "--size", "4096x4096x4096", "--backend", "cuda"});
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->bench->matmul_sizes.size(), 1u);
  EXPECT_EQ(m->bench->matmul_sizes[0][2], 4096);
}

TEST(Cli, BadInputNamesTheProblem) {
  struct Case {
    std::vector<std::string> args;
    const char* expect;
  };
  const Case cases[] = {{{"--frames"}, "--frames"},
                        {{"--frames", "0"}, "--frames"},
                        {{"--backend", "opencl"}, "opencl"},
                        {{"--kernel", "3d"}, "3d"},
                        {{"--bogus"}, "--bogus"},
                        {{"--hover", "1"}, "X,Y"},
                        {{"--screenshot", "x.png"}, "--headless"},
                        {{"bench"}, "gray"},
                        {{"bench", "gray", "--size", "12"}, "WxH"},
                        {{"bench", "matmul", "--size", "12x12"}, "MxNxK"},
                        {{"--size", "3x3"}, "bench"},
                        {{"--split", "2"}, "--split"},
                        {{"--status-file"}, "--status-file"},
                        {{"bench", "gray", "--status-file", "s.json"}, "--status-file"}};
  for (const auto& c : cases) {
    auto o = parse(c.args);
    ASSERT_FALSE(o.ok()) << c.args[0];
    EXPECT_NE(o.status().message.find(c.expect), std::string::npos)
        << "'" << o.status().message << "' should mention " << c.expect;
  }
}

TEST(Cli, HelpDocumentsEveryFlagAndTheExitCodes) {
  const std::string help = help_text();
  for (const char* flag : {"--backend", "--device", "--kernel", "--block", "--headless", "--frames",
                           "--screenshot", "--gray-out", "--schedule-json", "--overlay", "--hover",
                           "--pin", "--panel", "--view", "--split", "--zoom", "--center",
                           "--window-size", "--size", "--json", "--repeats", "--warmup", "--status-file",
                           "AUTOMATION", "EXIT CODES"})
    EXPECT_NE(help.find(flag), std::string::npos) << flag;
}


TEST(Cli, MatmulFlagsReachTheMatmulState) {
  auto o = parse({"--headless", "--lab", "matmul", "--matmul-size", "129x67x131", "--matmul-kernel",
                  "k5_blocktile_2d", "--matmul-config", "2", "--matmul-pattern", "structured",
                  "--matmul-seed", "77", "--matmul-phase", "3", "--hover", "37,70"});
  ASSERT_TRUE(o.ok()) << o.status().describe();
  const MatmulState& m = o->state.matmul;
  EXPECT_EQ(o->state.lab, Lab::Matmul);
  EXPECT_EQ(m.M, 129);
  EXPECT_EQ(m.N, 67);
  EXPECT_EQ(m.K, 131);
  EXPECT_EQ(m.kernel, "k5_blocktile_2d");
  EXPECT_EQ(m.config_index, 2);
  EXPECT_FALSE(m.block.has_value());
  EXPECT_EQ(m.pattern_a, "structured");
  EXPECT_EQ(m.pattern_b, "structured");
  EXPECT_EQ(m.seed, 77u);
  EXPECT_EQ(m.phase, 3);
  ASSERT_TRUE(o->state.view.hover.has_value());  // column 37, row 70 of C
  EXPECT_EQ(o->state.view.hover->x, 37);
  EXPECT_EQ(o->state.view.hover->y, 70);

  // A rung number names the same kernel as its id, for every rung of the registry.
  const auto& ladder = bs::matmul::matmul_kernels();
  ASSERT_EQ(ladder.size(), 7u);
  for (std::size_t r = 0; r < ladder.size(); ++r) {
    auto by_number = parse({"--matmul-kernel", std::to_string(r + 1)});
    auto by_id = parse({"--matmul-kernel", ladder[r].id});
    ASSERT_TRUE(by_number.ok() && by_id.ok()) << ladder[r].id;
    EXPECT_EQ(by_number->state.matmul.kernel, ladder[r].id);
    EXPECT_EQ(by_id->state.matmul.kernel, ladder[r].id);
  }
  // A blockDim (rungs 1-3) rather than an index; odd and zero shapes are the lab's to refuse.
  auto b = parse({"--matmul-config", "16x8"});
  ASSERT_TRUE(b.ok()) << b.status().describe();
  ASSERT_TRUE(b->state.matmul.block.has_value());
  EXPECT_EQ(*b->state.matmul.block, (bs::Dim3{16, 8, 1}));
  EXPECT_EQ(b->state.matmul.config_index, 0);
  auto z = parse({"--matmul-config", "0x5x2"});
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(*z->state.matmul.block, (bs::Dim3{0, 5, 2}));
  // Nothing given: the lab picks the backend's defaults.
  auto d = parse({});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->state.matmul.M, 0);
  EXPECT_TRUE(d->state.matmul.kernel.empty());
}

TEST(Cli, BadMatmulFlagsNameTheProblem) {
  struct Case {
    std::vector<std::string> args;
    const char* expect;
  };
  const Case cases[] = {{{"--matmul-size", "12x12"}, "MxNxK"},
                        {{"--matmul-size", "0x4x4"}, "MxNxK"},
                        {{"--matmul-size", "4x-4x4"}, "MxNxK"},
                        {{"--matmul-kernel", "k9_magic"}, "k9_magic"},
                        {{"--matmul-kernel", "8"}, "'8'"},
                        {{"--matmul-kernel", "0"}, "'0'"},
                        {{"--matmul-config", "16*8"}, "--matmul-config"},
                        {{"--matmul-config", "-1"}, "--matmul-config"},
                        {{"--matmul-pattern", "plaid"}, "--matmul-pattern"},
                        {{"--matmul-seed", "-3"}, "--matmul-seed"},
                        {{"--matmul-phase", "first"}, "--matmul-phase"},
                        {{"--matmul-size"}, "--matmul-size"}};
  for (const auto& c : cases) {
    auto o = parse(c.args);
    ASSERT_FALSE(o.ok()) << c.args[0] << " " << (c.args.size() > 1 ? c.args[1] : "");
    EXPECT_NE(o.status().message.find(c.expect), std::string::npos)
        << "'" << o.status().message << "' should mention " << c.expect;
  }
  const std::string help = help_text();
  for (const char* flag : {"--matmul-size", "--matmul-kernel", "--matmul-config", "--matmul-pattern",
                           "--matmul-seed", "--matmul-phase", "--lab"})
    EXPECT_NE(help.find(flag), std::string::npos) << flag;
}

}  // namespace
