// The parts of user kernels that need no compiler and no process: finding the kernel and matching
// its signature, grid rules, diagnostics parsing and column mapping, the generated units, and the
// GPU prelude's restated block record against kernels/trace/trace_record.hpp.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "custom_test_support.hpp"
#include "labs/custom/codegen.hpp"
#include "labs/custom/diagnostics.hpp"
#include "toolchain/nvrtc_target.hpp"
#include "labs/custom/source_parse.hpp"

namespace bs::custom {
namespace {

using namespace test;
using namespace toolchain;  // NVRTC and its target choice

TEST(CustomParse, LectureGray1DMatchesWithItsNameAndForm) {
  const auto r = parse_kernel_source(template_source("gray_1d"), gray_forms());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.kernel->name, "rgb_to_grayscale_kernel");
  EXPECT_EQ(r.kernel->form.id, "gray_1d");
  EXPECT_EQ(r.kernel->pos.line, 4);
  EXPECT_FALSE(r.kernel->uses_barriers);
  ASSERT_EQ(r.kernel->params.size(), 3u);
  EXPECT_EQ(r.kernel->params[0].name, "x");
  EXPECT_EQ(r.kernel->params[1].type, "unsigned char");
  EXPECT_TRUE(r.kernel->params[1].pointer);
  EXPECT_EQ(r.kernel->params[2].type, "int");
}

TEST(CustomParse, Lecture2DAndMatmulAndTiledMatch) {
  auto g2 = parse_kernel_source(template_source("gray_2d"), gray_forms());
  ASSERT_TRUE(g2.ok());
  EXPECT_EQ(g2.kernel->form.id, "gray_2d");
  auto mm = parse_kernel_source(template_source("matmul_naive"), matmul_forms());
  ASSERT_TRUE(mm.ok());
  EXPECT_EQ(mm.kernel->name, "matmul_k");
  auto tiled = parse_kernel_source(template_source("matmul_tiled"), matmul_forms());
  ASSERT_TRUE(tiled.ok());
  EXPECT_TRUE(tiled.kernel->uses_barriers);
  EXPECT_TRUE(tiled.kernel->uses_shared);
}

TEST(CustomParse, QualifiersCommentsAndSpacingAreIgnored) {
  const std::string src =
      "// a comment with __global__ void fake(int)\n"
      "/* __global__ void fake2(float* a) */\n"
      "__global__ void __launch_bounds__(256) k(const float * __restrict__ a,\n"
      "    const float* __restrict__ b, float *out, int h, unsigned w, int k) { }\n";
  const auto r = parse_kernel_source(src, matmul_forms());
  ASSERT_TRUE(r.ok()) << (r.diagnostics.empty() ? "" : r.diagnostics[0].message);
  EXPECT_EQ(r.kernel->name, "k");
  EXPECT_EQ(r.kernel->pos.line, 3);
  EXPECT_TRUE(r.kernel->params[0].is_const);
  EXPECT_EQ(r.kernel->params[0].name, "a");
  EXPECT_EQ(r.kernel->params[4].type, "unsigned");
}

TEST(CustomParse, WrongSignatureSaysWhichParameterAndWhatIsAccepted) {
  const std::string src =
      "#include <whatever>\n"
      "__global__ void matmul_k(float* m, float* n, float* out, int h, int w, float k) {}\n";
  const auto r = parse_kernel_source(src, matmul_forms());
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.diagnostics.size(), 1u);
  const Diagnostic& d = r.diagnostics[0];
  EXPECT_TRUE(d.is_error());
  EXPECT_EQ(d.line, 2);
  EXPECT_EQ(d.column, 17);  // the name
  EXPECT_NE(d.message.find("parameter 6 `float k` should be `int k`"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("(float* m, float* n, float* out, int h, int w, int k)"), std::string::npos);
  EXPECT_NE(d.message.find("ceil(w / blockDim.x), ceil(h / blockDim.y)"), std::string::npos);
}

TEST(CustomParse, ConstOutputTemplateAndDynamicSharedAreRefusedClearly) {
  auto c = parse_kernel_source("__global__ void g(unsigned char* x, const unsigned char* out, int n) {}", gray_forms());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.diagnostics[0].message.find("not const"), std::string::npos);

  auto t = parse_kernel_source("template <int tw>\n__global__ void g(unsigned char* x, unsigned char* out, int n) {}",
                               gray_forms());
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.diagnostics[0].message.find("template"), std::string::npos);
  EXPECT_EQ(t.diagnostics[0].line, 2);

  auto d = parse_kernel_source(
      "__global__ void g(unsigned char* x, unsigned char* out, int n) {\n"
      "  extern __shared__ float s[];\n}\n",
      gray_forms());
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.diagnostics[0].line, 2);
  EXPECT_EQ(d.diagnostics[0].column, 3);

  auto none = parse_kernel_source("int main() {}", gray_forms());
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.diagnostics[0].message.find("no `__global__` kernel"), std::string::npos);
}

TEST(CustomParse, PicksTheFirstMatchingKernelAndNotesTheOthers) {
  const std::string src =
      "__global__ void helper(float* p) {}\n"
      "__global__ void mine(unsigned char* x, unsigned char* out, int w, int h) {}\n";
  const auto r = parse_kernel_source(src, gray_forms());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.kernel->name, "mine");
  EXPECT_EQ(r.kernel->form.id, "gray_2d");
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].severity, Diagnostic::Severity::Note);
  EXPECT_EQ(r.diagnostics[0].line, 1);
}

// The forms' grid rules, from the sizes the labs pack, against the lecture's ceil-divisions
// written out here; and the rule's text and the signature, made from the same data.
TEST(CustomForms, GridRulesAreTheLecturesCeilDivisionsOfThePackedSizes) {
  const PlanarImage img = random_image(517, 301, fresh_seed());
  auto g1 = gray_problem(img, "gray_1d");
  auto g2 = gray_problem(img, "gray_2d");
  ASSERT_TRUE(g1.ok() && g2.ok());
  const lab::UserForm& f1 = *gray::user_kernel_spec().find_form("gray_1d");
  const lab::UserForm& f2 = *gray::user_kernel_spec().find_form("gray_2d");
  EXPECT_EQ(*lab::user_grid(f1, g1->spec(), {256, 1, 1}), (Dim3{(517 * 301 + 255) / 256, 1, 1}));
  EXPECT_EQ(*lab::user_grid(f2, g2->spec(), {16, 8, 1}), (Dim3{33, 38, 1}));
  EXPECT_FALSE(lab::user_grid(f1, g1->spec(), {0, 1, 1}).ok());
  EXPECT_EQ(g2->spec().size("w"), 517);
  EXPECT_EQ(g2->spec().size("h"), 301);
  EXPECT_EQ(g1->spec().size("n"), 517 * 301);
  const auto m = random_matrix(70, 19, 1), n = random_matrix(19, 33, 2);
  auto mm = matmul_problem(m, n, 70, 33, 19);  // h 70, w 33, k 19
  ASSERT_TRUE(mm.ok()) << mm.status().describe();
  const lab::UserForm& fm = matmul_forms().front();
  EXPECT_EQ(*lab::user_grid(fm, mm->spec(), {16, 16, 1}), (Dim3{3, 5, 1}));
  EXPECT_EQ(f1.grid_rule(), "gridDim = (ceil(n / blockDim.x), 1, 1)");
  EXPECT_EQ(fm.grid_rule(), "gridDim = (ceil(w / blockDim.x), ceil(h / blockDim.y), 1)");
  EXPECT_EQ(fm.signature(), "(float* m, float* n, float* out, int h, int w, int k)");
  // A form whose block covers a fixed tile (a warp's 16 x 8 of C, as an mma.sync kernel's):
  // the grid follows the tile, not blockDim.
  lab::UserForm tile = fm;
  tile.grid_tile = {8, 16, 0};
  EXPECT_EQ(*lab::user_grid(tile, mm->spec(), {32, 1, 1}), (Dim3{5, 5, 1}));
  EXPECT_EQ(tile.grid_rule(), "gridDim = (ceil(w / 8), ceil(h / 16), 1)");
  // A size the problem lacks is a Status, not a zero grid.
  lab::UserForm odd = fm;
  odd.grid_extent = {"q", "", ""};
  EXPECT_FALSE(lab::user_grid(odd, mm->spec(), {32, 1, 1}).ok());
}

// The architecture NVRTC compiles for: the device's exact one, the arch-specific variant where
// it exists (sm_90a on Hopper: wgmma, TMA, setmaxnreg), PTX for a device newer than NVRTC.
TEST(CustomNvrtcTarget, TheDevicesExactArchitectureWithItsArchSpecificVariant) {
  const std::vector<int> nvrtc_13 = {75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121};
  const NvrtcTarget hopper = nvrtc_target(90, nvrtc_13);
  EXPECT_TRUE(hopper.ok);
  EXPECT_FALSE(hopper.ptx);
  EXPECT_EQ(hopper.option, "--gpu-architecture=sm_90a");
  EXPECT_EQ(hopper.arch, "sm_90a");
  EXPECT_EQ(hopper.fallback, "--gpu-architecture=sm_90");
  const NvrtcTarget ampere = nvrtc_target(86, nvrtc_13);
  EXPECT_EQ(ampere.option, "--gpu-architecture=sm_86");
  EXPECT_TRUE(ampere.fallback.empty());
  EXPECT_EQ(nvrtc_target(89, nvrtc_13).arch, "sm_89");  // Ada has no arch-specific variant
  EXPECT_EQ(nvrtc_target(100, nvrtc_13).arch, "sm_100a");
  // An NVRTC that does not know the device: the newest virtual architecture below it, as PTX.
  const NvrtcTarget newer = nvrtc_target(90, std::vector<int>{70, 75, 80, 86, 89});
  EXPECT_TRUE(newer.ok);
  EXPECT_TRUE(newer.ptx);
  EXPECT_EQ(newer.option, "--gpu-architecture=compute_89");
  EXPECT_FALSE(nvrtc_target(60, std::vector<int>{75, 80}).ok);
}

TEST(CustomDiagnostics, HostCompilerLinesMapToTheUsersLinesAndColumns) {
  ColumnMap cols;
  // "float* m" (8 bytes at column 20) became "bs_in<float> m" (14): +6 after it.
  cols.add_edit(3, 20, 7, 13);
  const std::string log =
      "kernel.cu: In function 'void k(bs_in<float>, ...)':\n"
      "kernel.cu:3:40: error: expected ';' before '}' token\n"
      "kernel.cu:5:9: warning: unused variable 'q' [-Wunused-variable]\n"
      "blockscope-entry:4:3: error: too few arguments to function\n"
      "kernel.cu:3:22: note: inside the rewritten type\n";
  const auto ds = parse_host_compiler_log(log, "g++", cols, Anchor{3, 17});
  ASSERT_EQ(ds.size(), 4u);
  EXPECT_EQ(ds[0].line, 3);
  EXPECT_EQ(ds[0].column, 34);
  EXPECT_TRUE(ds[0].is_error());
  EXPECT_EQ(ds[1].severity, Diagnostic::Severity::Warning);
  EXPECT_EQ(ds[1].column, 9);  // another line: unchanged
  EXPECT_EQ(ds[2].line, 3);    // the launcher's error lands on the signature
  EXPECT_NE(ds[2].message.find("launcher"), std::string::npos);
  EXPECT_EQ(ds[3].column, 20);  // inside the replacement: its start
}

TEST(CustomDiagnostics, NvrtcLogsGiveTheCaretsColumn) {
  const std::string log =
      "kernel.cu(18): error: expected a \";\"\n"
      "      out[i] = p\n"
      "                ^\n"
      "\n"
      "kernel.cu(4): warning #177-D: variable \"unused\" was declared but never referenced\n"
      "      int unused;\n"
      "          ^\n"
      "\n"
      "Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n"
      "\n"
      "1 error detected in the compilation of \"blockscope-kernel.cu\".\n";
  const auto ds = parse_nvrtc_log(log, Anchor{});
  ASSERT_EQ(ds.size(), 2u);
  EXPECT_EQ(ds[0].line, 18);
  EXPECT_EQ(ds[0].column, 15);
  EXPECT_TRUE(ds[0].is_error());
  EXPECT_EQ(ds[1].line, 4);
  EXPECT_EQ(ds[1].column, 9);
  EXPECT_EQ(ds[1].severity, Diagnostic::Severity::Warning);
}

TEST(CustomCodegen, UnitsKeepTheUsersSourceBehindLineDirectives) {
  const std::string src(template_source("gray_1d"));
  const auto parsed = parse_kernel_source(src, gray_forms());
  ASSERT_TRUE(parsed.ok());
  const GeneratedUnit gpu = make_gpu_unit(src, *parsed.kernel);
  EXPECT_NE(gpu.text.find("#line 1 \"kernel.cu\"\n" + src), std::string::npos);
  EXPECT_NE(gpu.text.find("extern \"C\" __global__ void bs_entry(unsigned char* bs_a0, unsigned char* "
                          "bs_a1, int bs_a2)"),
            std::string::npos);
  EXPECT_NE(gpu.text.find("bs_block_recorder bs_recorder(bs_records);\n  rgb_to_grayscale_kernel("), std::string::npos);
  const GeneratedUnit cpu = make_cpu_unit(src, *parsed.kernel);
  EXPECT_NE(cpu.text.find("rgb_to_grayscale_kernel(bs_in<unsigned char> x, bs_out<unsigned char> out, int n)"),
            std::string::npos);
  // Columns after the rewritten types map back to the user's.
  const int user_col_of_n = static_cast<int>(src.substr(src.find("__global__")).find("int n")) + 1;
  const int gen_col_of_n = user_col_of_n + 6 + 7;  // "bs_in<unsigned char> ", "bs_out<unsigned char> "
  EXPECT_EQ(cpu.columns.to_user(4, gen_col_of_n), user_col_of_n);
}

// The GPU prelude restates the block record of kernels/trace (NVRTC cannot include it): the
// fields must be the same, in the same order.
TEST(CustomCodegen, GpuPreludesRecordMatchesTheTraceRooms) {
  std::ifstream f(test::source_dir() + "/kernels/trace/trace_record.hpp");
  ASSERT_TRUE(f) << "cannot read trace_record.hpp";
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string trace = ss.str();
  const std::string prelude(embedded_text("gpu_prelude.cuh"));
  auto fields = [](const std::string& text, const std::string& struct_name) {
    const std::size_t at = text.find("struct " + struct_name + " {");
    const std::string body = text.substr(at, text.find("};", at) - at);
    std::vector<std::string> names;
    const std::regex field(R"((\w+)\s+(\w+)(\[\d\])?;)");
    for (std::sregex_iterator it(body.begin(), body.end(), field), end; it != end; ++it) names.push_back((*it)[2]);
    return names;
  };
  EXPECT_EQ(fields(trace, "DeviceBlockRecord"), fields(prelude, "bs_block_record"));
  EXPECT_EQ(fields(prelude, "bs_block_record"),
            (std::vector<std::string>{"start_ns", "end_ns", "smid", "writes", "threads", "cluster_flags", "cluster_id",
                                      "cluster_rank", "cluster_count", "cluster_blocks"}));
}

TEST(CustomTemplates, EveryLabsTemplatesParseAsTheirForm) {
  for (const lab::UserKernelSpec* spec : {&gray::user_kernel_spec(), &matmul::user_kernel_spec()}) {
    ASSERT_FALSE(spec->templates().empty());
    for (const lab::UserTemplate& t : spec->templates()) {
      ASSERT_FALSE(t.source.empty()) << t.id;
      ASSERT_NE(spec->find_form(t.form), nullptr) << t.id;
      const auto r = parse_kernel_source(t.source, spec->forms());
      ASSERT_TRUE(r.ok()) << t.id;
      EXPECT_EQ(r.kernel->form.id, t.form) << t.id;
      EXPECT_NE(spec->find_template(spec->template_for(t.id)), nullptr);
    }
  }
}

}  // namespace
}  // namespace bs::custom
