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
#include "labs/custom/forms.hpp"
#include "labs/custom/source_parse.hpp"
#include "labs/custom/templates.hpp"

namespace bs::custom {
namespace {

const std::vector<Form> kGray(lab_forms("gray").begin(), lab_forms("gray").end());
const std::vector<Form> kMatmul(lab_forms("matmul").begin(), lab_forms("matmul").end());

TEST(CustomParse, LectureGray1DMatchesWithItsNameAndForm) {
  const auto r = parse_kernel_source(find_template("gray_1d")->source(), kGray);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.kernel->name, "rgb_to_grayscale_kernel");
  EXPECT_EQ(r.kernel->form, Form::Gray1D);
  EXPECT_EQ(r.kernel->pos.line, 4);
  EXPECT_FALSE(r.kernel->uses_barriers);
  ASSERT_EQ(r.kernel->params.size(), 3u);
  EXPECT_EQ(r.kernel->params[0].name, "x");
  EXPECT_EQ(r.kernel->params[1].type, "unsigned char");
  EXPECT_TRUE(r.kernel->params[1].pointer);
  EXPECT_EQ(r.kernel->params[2].type, "int");
}

TEST(CustomParse, Lecture2DAndMatmulAndTiledMatch) {
  auto g2 = parse_kernel_source(find_template("gray_2d")->source(), kGray);
  ASSERT_TRUE(g2.ok());
  EXPECT_EQ(g2.kernel->form, Form::Gray2D);
  auto mm = parse_kernel_source(find_template("matmul_naive")->source(), kMatmul);
  ASSERT_TRUE(mm.ok());
  EXPECT_EQ(mm.kernel->name, "matmul_k");
  auto tiled = parse_kernel_source(find_template("matmul_tiled")->source(), kMatmul);
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
  const auto r = parse_kernel_source(src, kMatmul);
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
  const auto r = parse_kernel_source(src, kMatmul);
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
  auto c = parse_kernel_source(
      "__global__ void g(unsigned char* x, const unsigned char* out, int n) {}", kGray);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.diagnostics[0].message.find("not const"), std::string::npos);

  auto t = parse_kernel_source(
      "template <int tw>\n__global__ void g(unsigned char* x, unsigned char* out, int n) {}", kGray);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.diagnostics[0].message.find("template"), std::string::npos);
  EXPECT_EQ(t.diagnostics[0].line, 2);

  auto d = parse_kernel_source(
      "__global__ void g(unsigned char* x, unsigned char* out, int n) {\n"
      "  extern __shared__ float s[];\n}\n",
      kGray);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.diagnostics[0].line, 2);
  EXPECT_EQ(d.diagnostics[0].column, 3);

  auto none = parse_kernel_source("int main() {}", kGray);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.diagnostics[0].message.find("no `__global__` kernel"), std::string::npos);
}

TEST(CustomParse, PicksTheFirstMatchingKernelAndNotesTheOthers) {
  const std::string src =
      "__global__ void helper(float* p) {}\n"
      "__global__ void mine(unsigned char* x, unsigned char* out, int w, int h) {}\n";
  const auto r = parse_kernel_source(src, kGray);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.kernel->name, "mine");
  EXPECT_EQ(r.kernel->form, Form::Gray2D);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].severity, Diagnostic::Severity::Note);
  EXPECT_EQ(r.diagnostics[0].line, 1);
}

TEST(CustomForms, GridRulesAreTheLecturesCeilDivisionsOrAFixedGrid) {
  const Shape img{517, 301, 0};
  EXPECT_EQ(*grid_for(Form::Gray1D, img, {256, 1, 1}, {}), (Dim3{(517 * 301 + 255) / 256, 1, 1}));
  EXPECT_EQ(*grid_for(Form::Gray2D, img, {16, 8, 1}, {}), (Dim3{33, 38, 1}));
  const Shape mm{33, 70, 19};  // w 33, h 70
  EXPECT_EQ(*grid_for(Form::Matmul, mm, {16, 16, 1}, {}), (Dim3{3, 5, 1}));
  EXPECT_EQ(*grid_for(Form::Gray1D, img, {256, 1, 1}, GridRule::fixed_grid({264, 1, 1})),
            (Dim3{264, 1, 1}));
  EXPECT_FALSE(grid_for(Form::Gray1D, img, {0, 1, 1}, {}).ok());
  EXPECT_EQ(int_args(Form::Gray2D, img), (std::vector<int>{517, 301}));
  EXPECT_EQ(int_args(Form::Matmul, mm), (std::vector<int>{70, 33, 19}));
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
  const std::string src(find_template("gray_1d")->source());
  const auto parsed = parse_kernel_source(src, kGray);
  ASSERT_TRUE(parsed.ok());
  const GeneratedUnit gpu = make_gpu_unit(src, *parsed.kernel);
  EXPECT_NE(gpu.text.find("#line 1 \"kernel.cu\"\n" + src), std::string::npos);
  EXPECT_NE(gpu.text.find("extern \"C\" __global__ void bs_entry(unsigned char* bs_a0, unsigned char* "
                          "bs_a1, int bs_a2)"),
            std::string::npos);
  EXPECT_NE(gpu.text.find("bs_block_recorder bs_recorder(bs_records);\n  rgb_to_grayscale_kernel("),
            std::string::npos);
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
    const std::regex field(R"((\w+)\s+(\w+);)");
    for (std::sregex_iterator it(body.begin(), body.end(), field), end; it != end; ++it)
      names.push_back((*it)[2]);
    return names;
  };
  EXPECT_EQ(fields(trace, "DeviceBlockRecord"), fields(prelude, "bs_block_record"));
  EXPECT_EQ(fields(prelude, "bs_block_record"),
            (std::vector<std::string>{"start_ns", "end_ns", "smid", "writes", "threads", "unused"}));
}

TEST(CustomTemplates, EveryTemplateParsesAsItsForm) {
  for (const KernelTemplate& t : kernel_templates()) {
    ASSERT_FALSE(t.source().empty()) << t.id;
    const std::vector<Form> forms(lab_forms(form_spec(t.form).lab).begin(),
                                  lab_forms(form_spec(t.form).lab).end());
    const auto r = parse_kernel_source(t.source(), forms);
    ASSERT_TRUE(r.ok()) << t.id;
    EXPECT_EQ(r.kernel->form, t.form) << t.id;
  }
}

}  // namespace
}  // namespace bs::custom
