// Source import (kernels/labs/custom/source_import.hpp): kernels found in notebooks and Python
// files, extracted with what they use, and the lecture-style sample notebook's kernels compiled
// and run on the CPU simulator, verified against references computed here.
#include <gtest/gtest.h>

#include <fstream>

#include "custom_test_support.hpp"
#include "toolchain/json_reader.hpp"
#include "labs/custom/source_import.hpp"
#include "labs/custom/source_parse.hpp"

namespace bs::custom {
namespace {
using namespace test;
using namespace toolchain;  // the JSON reader
namespace fs = std::filesystem;

// A notebook with these code cells (each a list of lines, as Jupyter saves them).
std::string notebook(const std::vector<std::string>& cells) {
  auto quote = [](const std::string& s) {
    std::string q = "\"";
    for (char c : s) {
      if (c == '"' || c == '\\') q += '\\';
      if (c == '\n') q += "\\n";
      else q += c;
    }
    return q + "\"";
  };
  std::string j = "{\"cells\": [";
  for (std::size_t c = 0; c < cells.size(); ++c) {
    j += std::string(c ? "," : "") + "{\"cell_type\": \"code\", \"metadata\": {}, \"outputs\": [], \"source\": [";
    std::size_t p = 0;
    bool first = true;
    while (p < cells[c].size()) {
      std::size_t e = cells[c].find('\n', p);
      e = e == std::string::npos ? cells[c].size() : e + 1;
      j += (first ? "" : ", ") + quote(cells[c].substr(p, e - p));
      first = false;
      p = e;
    }
    j += "]}";
  }
  return j + "], \"metadata\": {}, \"nbformat\": 4, \"nbformat_minor\": 5}";
}

const ImportedKernel* find(const ImportResult& r, std::string_view name) {
  for (const ImportedKernel& k : r.kernels)
    if (k.name == name) return &k;
  return nullptr;
}

bool has_note(const std::vector<std::string>& notes, std::string_view part) {
  for (const std::string& n : notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

constexpr const char* kPrelude = R"PY(cuda_begin = r'''
#include <torch/extension.h>
#include <stdio.h>
#include <c10/cuda/CUDAException.h>
#define CHECK_CUDA(x) TORCH_CHECK(x.device().is_cuda(), #x " must be a CUDA tensor")
#define CHECK_INPUT(x) CHECK_CUDA(x)
inline unsigned int cdiv(unsigned int a, unsigned int b) { return (a + b - 1) / b; }
'''
)PY";

// ---------------------------------------------------------------------------------------------
// The JSON reader
// ---------------------------------------------------------------------------------------------

TEST(JsonReader, ReadsNestedValuesEscapesAndSurrogatePairs) {
  auto v = parse_json(R"( {"a": [1, -2.5e2, true, null, "x\n\"\u00e9\ud83d\ude00"], "b": {}} )");
  ASSERT_TRUE(v) << v.status().message;
  const JsonValue& a = v->at("a");
  ASSERT_EQ(a.items.size(), 5u);
  EXPECT_EQ(a.items[0].number, 1);
  EXPECT_EQ(a.items[1].number, -250);
  EXPECT_TRUE(a.items[2].boolean);
  EXPECT_EQ(a.items[3].kind, JsonValue::Kind::Null);
  EXPECT_EQ(a.items[4].str, "x\n\"\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_TRUE(v->at("b").is_object());
  EXPECT_EQ(v->at("missing").at("deeper").kind, JsonValue::Kind::Null);
}

TEST(JsonReader, NamesTheLineAndColumnWhereItStopped) {
  auto v = parse_json("{\n  \"a\": [1, 2\n  \"b\": 3\n}");
  ASSERT_FALSE(v);
  EXPECT_NE(v.status().message.find("line 3, column 3"), std::string::npos) << v.status().message;
  for (const char* bad : {"", "{", "[1,]", "{\"a\" 1}", "\"tab\there\"", "01", "[1] 2", "tru", "\"\\ud800\""})
    EXPECT_FALSE(parse_json(bad)) << bad;
  std::string deep(100000, '[');
  EXPECT_FALSE(parse_json(deep));  // refused, not a stack overflow
}

// ---------------------------------------------------------------------------------------------
// Python strings and calls
// ---------------------------------------------------------------------------------------------

TEST(SourceImport, FollowsLiteralsPrefixesEscapesAndConcatenation) {
  const std::string py = std::string(kPrelude) + R"PY(
tail = "}\n"
body = ('__global__ void k1(float* m, float* n, float* out, int h, int w, int k) {'
        " out[0] = m[0]; \t"  # adjacent literals are one string
        + tail)
src = cuda_begin + body
src += b'\n'
ext = load_inline(name="x", cpp_sources="", cuda_sources=[src], functions=["f"])
other = load_inline("y", "", u"__global__ void k2(unsigned char* x, unsigned char* out, int n) { out[0] = x[0]; }")
)PY";
  auto r = import_kernel_sources(py, "/some/where/two.py");
  ASSERT_TRUE(r) << r.status().message;
  ASSERT_EQ(r->kernels.size(), 2u);
  const ImportedKernel* k1 = find(*r, "k1");
  ASSERT_TRUE(k1);
  EXPECT_NE(k1->source.find("{ out[0] = m[0]; \t}\n"), std::string::npos) << k1->source;
  EXPECT_EQ(k1->line, 11);  // the literal's line in the file
  EXPECT_EQ(k1->origin, "line 11");
  EXPECT_NE(k1->source.find("from two.py, line 11 (load_inline's cuda_sources)"), std::string::npos);
  // What the torch prelude held is left out, each with its note; cdiv is not used.
  EXPECT_EQ(k1->source.find("torch"), std::string::npos) << k1->source;
  EXPECT_EQ(k1->source.find("stdio"), std::string::npos);
  EXPECT_EQ(k1->source.find("cdiv"), std::string::npos);
  EXPECT_TRUE(has_note(k1->notes, "#include <torch/extension.h>: PyTorch's header"));
  EXPECT_TRUE(has_note(k1->notes, "the macro CHECK_INPUT: the kernel does not use it"));
  EXPECT_TRUE(k1->error.empty());
  const ImportedKernel* k2 = find(*r, "k2");
  ASSERT_TRUE(k2);  // load_inline's third positional argument
  EXPECT_EQ(k2->line, 17);
}

TEST(SourceImport, KeepsWhatTheKernelUsesTransitivelyAndDropsTheLauncher) {
  const std::string cuda = R"CU(
#include <torch/extension.h>
#include <cuda_fp16.h>
#define TILE 8
#define SQ(x) ((x) * (x))
#define UNUSED_MACRO 3
struct Pair { float a, b; };
__constant__ float scale[2];
__device__ float sq(float v) { return SQ(v) * scale[0]; }
__device__ Pair pair_of(float v) { return Pair{sq(v), v}; }
__device__ float unused_helper(float v) { return v; }
__global__ void kern(float* m, float* n, float* out, int h, int w, int k) {
  __shared__ float t[TILE];
  out[0] = pair_of(m[0]).a;  // the launcher below is not called from here
}
torch::Tensor launch(torch::Tensor m) {
  kern<<<1, 1>>>(m.data_ptr<float>(), nullptr, nullptr, 1, 1, 1);
  return m;
}
void plain_launch(float* p) { kern<<<1, 32>>>(p, p, p, 1, 1, 1); }
PYBIND11_MODULE(ext, m) { m.def("launch", &launch); }
)CU";
  const std::string py = "import cupy as cp\ncode = r'''" + cuda + "'''\nk = cp.RawKernel(code, 'kern')\n";
  auto r = import_kernel_sources(py, "t.py");
  ASSERT_TRUE(r) << r.status().message;
  ASSERT_EQ(r->kernels.size(), 1u);
  const ImportedKernel& k = r->kernels[0];
  for (const char* kept :
       {"#include <cuda_fp16.h>", "#define TILE 8", "#define SQ(x)", "struct Pair", "__constant__ float scale",
        "__device__ float sq", "__device__ Pair pair_of", "__global__ void kern"})
    EXPECT_NE(k.source.find(kept), std::string::npos) << kept << "\n" << k.source;
  for (const char* dropped : {"torch", "UNUSED_MACRO", "unused_helper", "plain_launch", "PYBIND11", "<<<"})
    EXPECT_EQ(k.source.find(dropped), std::string::npos) << dropped << "\n" << k.source;
  // Definitions keep the file's order, so each comes before its use.
  EXPECT_LT(k.source.find("#define SQ"), k.source.find("__device__ float sq"));
  EXPECT_LT(k.source.find("__device__ float sq"), k.source.find("pair_of"));
  EXPECT_TRUE(has_note(k.notes, "launch(): host-side launcher"));
  EXPECT_TRUE(has_note(k.notes, "plain_launch(): host-side launcher"));
  EXPECT_TRUE(has_note(k.notes, "unused_helper(): the kernel does not use it"));
  EXPECT_TRUE(k.error.empty());
  // Through the engine's own signature check it is the matmul form.
  const ParseResult p = parse_kernel_source(k.source, matmul_forms());
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.kernel->name, "kern");
}

TEST(SourceImport, RawModuleFStringsFallbackAndLoadFilesAreNoted) {
  const std::string py = R"PY(
import cupy as cp
mod = cp.RawModule(code="""extern "C" __global__ void a(unsigned char* x, unsigned char* out, int n) { }""")
fs = f"__global__ void b(unsigned char* x, unsigned char* out, int n) {{ out[0] = {1}; }}"
ext = load(name="e", sources=["matmul.cu", "bind.cpp"])
)PY";
  auto r = import_kernel_sources(py, "f.py");
  ASSERT_TRUE(r) << r.status().message;
  EXPECT_TRUE(find(*r, "a"));
  // A string not passed to a call is not a source while a call gave one...
  EXPECT_FALSE(find(*r, "b"));
  EXPECT_TRUE(has_note(r->notes, "load() compiles the files matmul.cu, bind.cpp"));
  // ... and is the fallback when none did: an f-string, taken literally.
  auto only = import_kernel_sources(
      "x = 3\nsrc = make(x)\nlib = load_inline('n', '', cuda_sources=src)\n"
      "s = f'__global__ void b(unsigned char* x, unsigned char* out, int n) {{ out[0] = 1; }}'\n",
      "g.py");
  ASSERT_TRUE(only) << only.status().message;
  const ImportedKernel* b = find(*only, "b");
  ASSERT_TRUE(b);
  EXPECT_NE(b->source.find("{ out[0] = 1; }"), std::string::npos) << b->source;
  EXPECT_TRUE(has_note(b->notes, "f-string"));
  EXPECT_TRUE(has_note(only->notes, "line 3: load_inline's cuda_sources is built in a way blockscope does not follow"));
}

// ---------------------------------------------------------------------------------------------
// Bad input: a message naming the file and what is wrong
// ---------------------------------------------------------------------------------------------

TEST(SourceImportBadInput, ANotebookWithNoCudaSaysSo) {
  auto r = import_kernel_sources(notebook({"import torch\nx = 'hello'\n", "print(x)\n"}), "plain.ipynb");
  ASSERT_FALSE(r);
  EXPECT_NE(r.status().message.find("plain.ipynb holds no CUDA kernel"), std::string::npos) << r.status().message;
}

TEST(SourceImportBadInput, ANotebookThatIsNotJsonGivesWhereTheParseFailed) {
  std::string nb = notebook({"x = 1\n"});
  nb.insert(nb.find("\"metadata\""), "oops ");
  auto r = import_kernel_sources(nb, "/tmp/broken.ipynb");
  ASSERT_FALSE(r);
  EXPECT_NE(r.status().message.find("broken.ipynb is not JSON: line 1, column "), std::string::npos)
      << r.status().message;
  auto not_nb = import_kernel_sources("{\"a\": 1}", "other.ipynb");
  ASSERT_FALSE(not_nb);
  EXPECT_NE(not_nb.status().message.find("other.ipynb is JSON but not a Jupyter notebook"), std::string::npos);
}

TEST(SourceImportBadInput, AFileOverTheLimitIsRefusedBeforeReading) {
  TempDir dir;
  const fs::path big = dir.path / "huge.py";
  { std::ofstream(big) << "x = 1\n"; }
  fs::resize_file(big, 50u << 20);  // 50 MiB, sparse: nothing is written or read
  auto r = import_kernel_file(big);
  ASSERT_FALSE(r);
  EXPECT_NE(r.status().message.find("huge.py is 50 MiB"), std::string::npos) << r.status().message;
  EXPECT_NE(r.status().message.find("limit is 16 MiB"), std::string::npos);
  auto missing = import_kernel_file(dir.path / "nope.ipynb");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.status().message.find("nope.ipynb"), std::string::npos);
}

TEST(SourceImportBadInput, TorchInDeviceCodeIsAnErrorNamingIt) {
  const std::string py = std::string(kPrelude) + R"PY(src = cuda_begin + r'''
__device__ float first(torch::Tensor t) { return t.data_ptr<float>()[0]; }
__global__ void uses_torch(float* m, float* n, float* out, int h, int w, int k) { out[0] = at::exp(m[0]); }
__global__ void fine(float* m, float* n, float* out, int h, int w, int k) { out[0] = m[0]; }
'''
load_inline('t', '', cuda_sources=src)
)PY";
  auto r = import_kernel_sources(py, "torchy.py");
  ASSERT_TRUE(r) << r.status().message;
  const ImportedKernel* bad = find(*r, "uses_torch");
  ASSERT_TRUE(bad);
  EXPECT_NE(bad->error.find("torchy.py, line "), std::string::npos) << bad->error;
  EXPECT_NE(bad->error.find("torch's API (torch::Tensor, at::, c10::) does not exist in device code"),
            std::string::npos);
  const ImportedKernel* ok = find(*r, "fine");
  ASSERT_TRUE(ok);
  EXPECT_TRUE(ok->error.empty()) << ok->error;
}

// An unterminated string in one cell skips that cell only, with a note.
TEST(SourceImportBadInput, ACellPythonCannotTokenizeIsSkippedWithANote) {
  auto r =
      import_kernel_sources(notebook({"s = 'never closed\n",
                                      "k = r'''__global__ void g(unsigned char* x, unsigned char* out, int n) { }'''\n"
                                      "load_inline('n', '', cuda_sources=k)\n"}),
                            "half.ipynb");
  ASSERT_TRUE(r) << r.status().message;
  EXPECT_TRUE(find(*r, "g"));
  EXPECT_TRUE(has_note(r->notes, "cell 1, line 1: a string that does not end on its line"));
}

class SourceImportCpu : public ::testing::Test {
 protected:
  TempDir cache;
  Engine engine{options_with_cache(cache.path)};
};

// Four kernels, the third with a syntax error: all four are found; three compile and run, the
// third gets the compiler's error at its own line.
TEST_F(SourceImportCpu, ASyntaxErrorInTheThirdOfFourKernelsLeavesTheOthersWorking) {
  std::vector<std::string> cells{kPrelude};
  const char* bodies[] = {"out[i] = x[i];", "out[i] = x[i + n];", "out[i] = x[i + 2 * n]  // no semicolon\n",
                          "out[i] = 7;"};
  for (int k = 0; k < 4; ++k)
    cells.push_back(
        "src = cuda_begin + r'''\n__global__ void k" + std::to_string(k) +
        "(unsigned char* x, unsigned char* out, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (i < n) { " +
        bodies[k] + " }\n}\n'''\nmod = load_inline('m', '', cuda_sources=src)\n");
  auto r = import_kernel_sources(notebook(cells), "four.ipynb");
  ASSERT_TRUE(r) << r.status().message;
  ASSERT_EQ(r->kernels.size(), 4u);
  const PlanarImage img = random_image(67, 43, fresh_seed());
  for (int k = 0; k < 4; ++k) {
    const ImportedKernel& ik = r->kernels[static_cast<std::size_t>(k)];
    EXPECT_EQ(ik.name, "k" + std::to_string(k));
    EXPECT_EQ(ik.cell, k + 2);
    CompileResult c = engine.compile(ik.source, gray_forms(), Target::Cpu);
    if (k == 2) {
      ASSERT_FALSE(c.ok());
      ASSERT_FALSE(c.diagnostics.empty());
      EXPECT_TRUE(c.diagnostics.front().is_error()) << describe(c.diagnostics.front());
      continue;
    }
    ASSERT_TRUE(c.ok()) << ik.name << ": " << diagnostics_text(c);
    auto problem = gray_problem(img);
    ASSERT_TRUE(problem.ok());
    RunRequest req;
    req.block = {128, 1, 1};
    RunOutcome out = c.kernel->run(*problem, req);
    ASSERT_TRUE(out.record.ok()) << out.record.status.describe();
    // Each copies one plane (or writes 7): checked here, not by the lab's gray check.
    const std::size_t n = static_cast<std::size_t>(img.w) * img.h;
    ASSERT_EQ(out.output.size(), n);
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_EQ(out.output[i], k == 3 ? 7 : img.planar[i + (k == 1 ? n : 0)]) << ik.name << " pixel " << i;
  }
}

// The sample notebook in the lecture's style: each kernel, as imported, compiles for the CPU
// simulator with its lab's forms and verifies against a reference computed here, at odd sizes.
TEST_F(SourceImportCpu, TheLectureStyleNotebooksKernelsVerifyUnchanged) {
  auto r = import_kernel_file(fs::path(source_dir()) / "assets/notebooks/lecture_kernels.ipynb");
  ASSERT_TRUE(r) << r.status().message;
  ASSERT_EQ(r->kernels.size(), 4u);
  const std::uint32_t seed = fresh_seed();
  const PlanarImage img = random_image(101, 59, seed);
  struct Want {
    const char* name;
    const char* form;
    Dim3 block;
  };
  for (const Want& w : {Want{"rgb_to_grayscale_kernel", "gray_1d", {256, 1, 1}},
                        Want{"rgb_to_grayscale_2d_kernel", "gray_2d", {16, 16, 1}}}) {
    const ImportedKernel* k = find(*r, w.name);
    ASSERT_TRUE(k) << w.name;
    EXPECT_TRUE(k->error.empty());
    EXPECT_EQ(k->source.find("torch"), std::string::npos) << k->source;
    CompileResult c = engine.compile(k->source, gray_forms(), Target::Cpu);
    ASSERT_TRUE(c.ok()) << w.name << ": " << diagnostics_text(c);
    EXPECT_EQ(c.kernel->info().form.id, w.form);
    EXPECT_FALSE(engine.compile(k->source, matmul_forms(), Target::Cpu).ok());  // not a matmul kernel
    auto problem = gray_problem(img, w.form);
    ASSERT_TRUE(problem.ok());
    RunRequest req;
    req.block = w.block;
    RunOutcome out = c.kernel->run(*problem, req);
    ASSERT_TRUE(out.record.ok()) << out.record.status.describe();
    EXPECT_TRUE(out.record.check.passed()) << w.name << ": " << out.record.check.summary() << " seed " << seed;
    const auto ref = gray_in_double(img);
    ASSERT_EQ(out.output.size(), ref.size());
    for (std::size_t i = 0; i < ref.size(); ++i)
      ASSERT_LE(std::abs(int(out.output[i]) - int(ref[i])), 1) << w.name << " pixel " << i << " seed " << seed;
    ASSERT_TRUE(out.record.owners);  // mapped: every pixel has the thread that stored it
  }
  const int h = 45, wd = 38, kk = 70;  // no multiple of the 16-wide tile
  const auto m = random_matrix(h, kk, seed), n = random_matrix(kk, wd, seed + 1);
  const auto want = product_in_double(m, n, h, wd, kk);
  for (const char* name : {"matmul_k", "matmul_tiled_k"}) {
    const ImportedKernel* k = find(*r, name);
    ASSERT_TRUE(k) << name;
    CompileResult c = engine.compile(k->source, matmul_forms(), Target::Cpu);
    ASSERT_TRUE(c.ok()) << name << ": " << diagnostics_text(c) << "\n" << k->source;
    EXPECT_EQ(c.kernel->info().form.id, "matmul");
    auto problem = matmul_problem(m, n, h, wd, kk);
    ASSERT_TRUE(problem.ok());
    RunRequest req;
    req.block = {16, 16, 1};
    RunOutcome out = c.kernel->run(*problem, req);
    ASSERT_TRUE(out.record.ok()) << out.record.status.describe();
    EXPECT_TRUE(out.record.check.passed()) << name << ": " << out.record.check.summary();
    const auto got = floats_of(out.output);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t e = 0; e < want.size(); ++e) ASSERT_NEAR(got[e], want[e], 1e-4 * kk) << name << " " << e;
  }
  // The tiled kernel kept the helpers it calls, and the notebook's own cdiv.
  const ImportedKernel* tiled = find(*r, "matmul_tiled_k");
  EXPECT_NE(tiled->source.find("#define TILE 16"), std::string::npos);
  EXPECT_NE(tiled->source.find("tile_or_zero"), std::string::npos);
  EXPECT_NE(tiled->source.find("inline unsigned int cdiv"), std::string::npos);
}

TEST_F(SourceImportCpu, TheCupyFilesKernelsVerify) {
  auto r = import_kernel_file(fs::path(source_dir()) / "assets/notebooks/cupy_kernels.py");
  ASSERT_TRUE(r) << r.status().message;
  ASSERT_EQ(r->kernels.size(), 2u);
  const PlanarImage img = random_image(53, 31, fresh_seed());
  CompileResult g = engine.compile(find(*r, "gray_1d")->source, gray_forms(), Target::Cpu);
  ASSERT_TRUE(g.ok()) << diagnostics_text(g);
  auto gp = gray_problem(img);
  ASSERT_TRUE(gp.ok());
  RunRequest req;
  req.block = {64, 1, 1};
  RunOutcome go = g.kernel->run(*gp, req);
  ASSERT_TRUE(go.record.ok()) << go.record.status.describe();
  EXPECT_TRUE(go.record.check.passed()) << go.record.check.summary();
  const int h = 33, w = 21, k = 17;
  const auto m = random_matrix(h, k, fresh_seed()), n = random_matrix(k, w, fresh_seed());
  CompileResult mm = engine.compile(find(*r, "mm")->source, matmul_forms(), Target::Cpu);
  ASSERT_TRUE(mm.ok()) << diagnostics_text(mm);
  auto mp = matmul_problem(m, n, h, w, k);
  ASSERT_TRUE(mp.ok());
  req.block = {8, 8, 1};
  RunOutcome mo = mm.kernel->run(*mp, req);
  ASSERT_TRUE(mo.record.ok()) << mo.record.status.describe();
  EXPECT_TRUE(mo.record.check.passed()) << mo.record.check.summary();
}

}  // namespace
}  // namespace bs::custom
