// The --status-file snapshot: FNV-1a 64 against the published test vectors, the JSON read back
// by a reader written separately (json_reader.hpp), absent parts left out, and the writer's
// promises: it writes only when something but the frame number changed, it replaces the file
// whole (no .tmp left behind), and a folder that does not exist is a Status, not a crash. Then
// the file the App in-process writes (app_in_process.hpp): every tab named with the word the
// command line takes for it, and no old error once a new launch ran.
#include <gtest/gtest.h>

#include <unistd.h>  // getpid

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "app_in_process.hpp"
#include "cli/options.hpp"
#include "json_reader.hpp"
#include "labs/catalog.hpp"
#include "shell/run_modes.hpp"
#include "shell/status_report.hpp"

namespace {

namespace fs = std::filesystem;
using bs::app::StatusFileWriter;
using bs::app::StatusReport;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::uint64_t fnv_of(std::string_view s) {
  return bs::app::fnv1a64(reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
}

TEST(StatusReport, Fnv1a64MatchesThePublishedVectors) {
  // From the FNV reference test suite (Fowler, Noll, Vo): 64-bit FNV-1a.
  EXPECT_EQ(fnv_of(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(fnv_of("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(fnv_of("foobar"), 0x85944171f73967e8ull);
}

StatusReport sample_report() {
  StatusReport r;
  r.frame = 42;
  r.lab = "gray";
  r.data = StatusReport::Data{"caf\xc3\xa9 \"quoted\"\\.png", 333, 217};
  r.launch = StatusReport::Launch{"gray_2d", {21, 28, 1}, {16, 8, 1}, true, ""};
  r.output = StatusReport::Output{0x00000000deadbeefull, 333, 217};
  r.status_message = "Loaded it\nnext line";
  r.errors = 3;
  r.messages = {{"info", "one"}, {"error", "two\ttab"}};
  return r;
}

TEST(StatusReport, JsonReadsBackWithEveryField) {
  auto v = bs::test::parse_json(bs::app::status_report_json(sample_report()));
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->at("frame").number, 42);
  EXPECT_EQ(v->at("lab").str, "gray");
  EXPECT_FALSE(v->at("loading").boolean);
  EXPECT_EQ(v->at("data").at("name").str, "caf\xc3\xa9 \"quoted\"\\.png");
  EXPECT_EQ(v->at("data").at("width").number, 333);
  EXPECT_EQ(v->at("data").at("height").number, 217);
  EXPECT_EQ(v->at("launch").at("kernel").str, "gray_2d");
  EXPECT_EQ(v->at("launch").at("grid").at(0).number, 21);
  EXPECT_EQ(v->at("launch").at("grid").at(1).number, 28);
  EXPECT_EQ(v->at("launch").at("block").at(1).number, 8);
  EXPECT_TRUE(v->at("launch").at("ok").boolean);
  EXPECT_EQ(v->at("output").at("fnv1a64").str, "00000000deadbeef");  // 16 hex digits, leading zeros
  EXPECT_EQ(v->at("status_message").str, "Loaded it\nnext line");
  EXPECT_EQ(v->at("errors").number, 3);
  ASSERT_EQ(v->at("messages").items.size(), 2u);
  EXPECT_EQ(v->at("messages").at(1).at("level").str, "error");
  EXPECT_EQ(v->at("messages").at(1).at("text").str, "two\ttab");
}

TEST(StatusReport, AbsentPartsAreLeftOut) {
  StatusReport r;
  r.lab = "matmul";
  auto v = bs::test::parse_json(bs::app::status_report_json(r, false));
  ASSERT_TRUE(v.has_value());
  EXPECT_FALSE(v->has("frame"));
  EXPECT_FALSE(v->has("data"));
  EXPECT_FALSE(v->has("launch"));
  EXPECT_FALSE(v->has("output"));
  EXPECT_TRUE(v->has("messages"));
}

TEST(StatusReport, WriterWritesOnlyChangesAndReplacesTheFileWhole) {
  const fs::path dir = fs::temp_directory_path() / ("bs_status_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "state.json";
  StatusFileWriter writer(file);
  StatusReport r = sample_report();
  ASSERT_TRUE(writer.update(r).ok());
  EXPECT_EQ(bs::test::parse_json(slurp(file))->at("frame").number, 42);
  EXPECT_FALSE(fs::exists(dir / "state.json.tmp"));

  r.frame = 43;  // nothing else changed: the file keeps frame 42
  ASSERT_TRUE(writer.update(r).ok());
  EXPECT_EQ(bs::test::parse_json(slurp(file))->at("frame").number, 42);

  r.frame = 44;
  r.status_message = "something new";
  ASSERT_TRUE(writer.update(r).ok());
  auto v = bs::test::parse_json(slurp(file));
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->at("frame").number, 44);
  EXPECT_EQ(v->at("status_message").str, "something new");
  fs::remove_all(dir);
}

TEST(StatusReport, AMissingFolderIsAStatus) {
  StatusFileWriter writer("/nonexistent-blockscope-folder/state.json");
  bs::Status s = writer.update(sample_report());
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message.find("state.json"), std::string::npos) << s.describe();
  EXPECT_EQ(s.call, "--status-file");
}

// ---- the App's own status file ---------------------------------------------------------------

using namespace bs;
using namespace bs::app;

class StatusFileOfTheApp : public bs::app::test::AppInProcess {};

// The status file names the tabs shown with the word the command line takes for them (the
// Measured tab was "other" while the status file kept its own copy of the names). The matmul lab
// is open: it adds Memory and Pipeline, so every side tab exists.
TEST_F(StatusFileOfTheApp, NamesEveryTabAsTheCommandLineDoes) {
  start();
  ASSERT_TRUE(app_->open_lab("matmul").ok());
  steps(1);
  const std::vector<LabFlags> flags = lab_flags(built_in_labs());
  // The words `blockscope --help` documents for --panel.
  for (const char* word : {"timings", "launch", "schedule", "memory", "runs", "measured", "pipeline"}) {
    SCOPED_TRACE(word);
    auto parsed = parse_command_line({"--headless", "--panel", word}, flags);
    ASSERT_TRUE(parsed.ok()) << parsed.status().describe();
    app_->state().panel = parsed->state.panel;
    steps(1);
    EXPECT_EQ(status().at("ui").at("panel").str, word);
  }
  for (const char* word : {"sweep", "compare", "source", "data"}) {
    SCOPED_TRACE(word);
    auto parsed = parse_command_line({"--headless", "--panel", word}, flags);
    ASSERT_TRUE(parsed.ok()) << parsed.status().describe();
    app_->state().centre = parsed->state.centre;
    steps(1);
    EXPECT_EQ(status().at("ui").at("centre").str, word);
  }
}

// After a refused shape, a shape that runs: the status file's message is no longer the refusal.
TEST_F(StatusFileOfTheApp, ForgetsAnOldErrorOnceANewLaunchRan) {
  start();
  ASSERT_TRUE(app_->select("gray_2d", KernelConfig{Dim3{33, 33, 1}}).ok());
  steps(2);
  EXPECT_NE(status().at("status_message").str.find("refused"), std::string::npos) << status_text();
  ASSERT_TRUE(app_->select("gray_2d", KernelConfig{Dim3{32, 8, 1}}).ok());
  steps(2);
  ASSERT_TRUE(app_->last_launch().ok());
  EXPECT_EQ(status().at("status_message").str.find("refused"), std::string::npos) << status_text();
}

}  // namespace
