// Every flag maps onto the state it names; bad values are refused with the flag named.
#include <gtest/gtest.h>

#include "cli/options.hpp"

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
                        {{"--split", "2"}, "--split"}};
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
                           "--window-size", "--size", "--json", "--repeats", "--warmup", "EXIT CODES"})
    EXPECT_NE(help.find(flag), std::string::npos) << flag;
}

}  // namespace
