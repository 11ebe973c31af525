// User kernels that include CUDA's headers, compiled by NVRTC the way the GPU runner compiles them
// (make_gpu_unit, then NvrtcLibrary::compile with the headers cuda_toolkit.hpp finds), for
// sm_90a: NVRTC needs no device, so this runs on any machine with libnvrtc and skips visibly
// without it. The same kernels run and are verified on a GPU in test_custom_gpu.cpp.
//
// The kernels are files a user could have written: tests/custom/kernels/nvrtc_*.cu.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "custom_test_support.hpp"
#include "labs/custom/codegen.hpp"
#include "labs/custom/diagnostics.hpp"
#include "toolchain/cuda_toolkit.hpp"
#include "toolchain/nvrtc_compile.hpp"
#include "labs/custom/source_parse.hpp"
#include "skips.hpp"

namespace bs::custom {
namespace {

namespace fs = std::filesystem;
using namespace test;
using namespace toolchain;  // NVRTC and the CUDA header search

std::string read_kernel(const std::string& name) {
  std::ifstream f(repo_file(std::string("tests/custom/kernels/") + name));
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

void touch(const fs::path& p) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << "// a stand-in\n";
}

// ---------------------------------------------------------------------------------------------
// Where the headers are found: fake toolkits in a temporary folder.

struct FakeToolkits : ::testing::Test {
  TempDir dir;
  fs::path toolkit(const std::string& name, bool cccl = false) {
    const fs::path root = dir.path / name;
    touch(root / "include" / "cuda_runtime.h");
    if (cccl) fs::create_directories(root / "include" / "cccl" / "cub");
    fs::create_directories(root / "lib64");
    touch(root / "lib64" / "libnvrtc.so.13");
    return root;
  }
};

TEST_F(FakeToolkits, TheOrderIsBlockscopesVariableThenCudaPathCudaHomeTheLoadedNvrtcTheBuildAndUsrLocal) {
  const fs::path a = toolkit("a"), b = toolkit("b"), c = toolkit("c"), d = toolkit("d"), e = toolkit("e");
  CudaHeaderInputs in;
  in.blockscope_cuda_home = a.string();
  in.cuda_path = b.string();
  in.cuda_home = c.string();
  in.nvrtc_library = (d / "lib64" / "libnvrtc.so.13").string();
  in.built_with = {(e / "include").string()};
  auto take = [&](const fs::path& root, const std::string& by) {
    const CudaHeaderSearch s = find_cuda_headers(in);
    EXPECT_EQ(s.include_dir, (root / "include").string());
    EXPECT_NE(s.chosen_by.find(by), std::string::npos) << s.chosen_by;
    ASSERT_FALSE(s.searched.empty());
    EXPECT_NE(s.searched.back().find("taken"), std::string::npos);
  };
  take(a, "BLOCKSCOPE_CUDA_HOME");
  in.blockscope_cuda_home.clear();
  take(b, "CUDA_PATH");
  in.cuda_path.clear();
  take(c, "CUDA_HOME");
  in.cuda_home.clear();
  take(d, "the loaded NVRTC");
  in.nvrtc_library.clear();
  take(e, "built with");
}

TEST_F(FakeToolkits, AFolderWithoutHeadersIsSkippedAndNamedWithTheReason) {
  const fs::path good = toolkit("good", true);
  fs::create_directories(dir.path / "empty" / "include");
  CudaHeaderInputs in;
  in.blockscope_cuda_home = (dir.path / "empty").string();
  in.cuda_home = (dir.path / "nowhere").string();
  in.nvrtc_library = (good / "lib64" / "libnvrtc.so.13").string();
  const CudaHeaderSearch s = find_cuda_headers(in);
  ASSERT_TRUE(s.found());
  EXPECT_EQ(s.include_dir, (good / "include").string());
  // CUDA 13's CCCL folder comes after include/, as nvcc orders them.
  ASSERT_EQ(s.include_dirs.size(), 2u);
  EXPECT_EQ(s.include_dirs[1], (good / "include" / "cccl").string());
  EXPECT_EQ(s.options()[0], "-I" + (good / "include").string());
  ASSERT_EQ(s.searched.size(), 3u);
  EXPECT_EQ(s.searched[0], (dir.path / "empty" / "include").string() + " (BLOCKSCOPE_CUDA_HOME): no cuda_runtime.h");
  EXPECT_EQ(s.searched[1], (dir.path / "nowhere" / "include").string() + " (CUDA_HOME): no such folder");
}

TEST_F(FakeToolkits, TheLoadedNvrtcsRealFolderIsFollowedAndAnIncludeFolderIsAcceptedAsTheHome) {
  // NVIDIA's layout: lib64 -> targets/x86_64-linux/lib, include beside that lib only.
  const fs::path root = dir.path / "cuda-13.0";
  touch(root / "targets" / "x86_64-linux" / "include" / "cuda_runtime.h");
  touch(root / "targets" / "x86_64-linux" / "lib" / "libnvrtc.so.13");
  fs::create_directory_symlink(dir.path / "cuda-13.0" / "targets" / "x86_64-linux" / "lib",
                               dir.path / "cuda-13.0" / "lib64x");
  CudaHeaderInputs in;
  in.nvrtc_library = (root / "lib64x" / "libnvrtc.so.13").string();
  CudaHeaderSearch s = find_cuda_headers(in);
  EXPECT_EQ(s.include_dir, (root / "targets" / "x86_64-linux" / "include").string());
  EXPECT_TRUE(s.include_dirs.size() == 1) << "no cccl folder here";

  CudaHeaderInputs explicit_include;
  explicit_include.blockscope_cuda_home = (root / "targets" / "x86_64-linux" / "include").string();
  s = find_cuda_headers(explicit_include);
  EXPECT_EQ(s.include_dir, explicit_include.blockscope_cuda_home);
}

// ---------------------------------------------------------------------------------------------
// The generated unit: includes outside the __global__ redefinition, lines kept.

TEST(IncludesOutsideGlobal, EachIncludeSeesCudasGlobalAndTheLinesAfterItKeepTheirNumbers) {
  const std::string src =
      "#include <cuda_fp16.h>\n"        // 1
      "/* a comment\n"                  // 2
      "#include <not_a_directive.h>\n"  // 3: inside the comment
      "*/\n"                            // 4
      "#if 0\n"                         // 5
      "  #  include <skipped.h>\n"      // 6
      "#else\n"                         // 7
      "#include <mma.h>\n"              // 8
      "#endif\n"                        // 9
      "__global__ void k() {}\n";       // 10
  const std::string out = with_includes_outside_global(src);
  auto before = [&](const std::string& include) {
    const std::size_t at = out.find(include);
    EXPECT_NE(at, std::string::npos) << include;
    const std::size_t restore = out.rfind("#define __global__ __location__(global)", at);
    const std::size_t redefine = out.rfind("#define __global__ __device__", at);
    return restore != std::string::npos && (redefine == std::string::npos || redefine < restore);
  };
  EXPECT_TRUE(before("#include <cuda_fp16.h>"));
  EXPECT_TRUE(before("  #  include <skipped.h>"));
  EXPECT_TRUE(before("#include <mma.h>"));
  EXPECT_FALSE(before("#include <not_a_directive.h>"));
  EXPECT_NE(out.find("#line 1 \"kernel.cu\"\n#include <cuda_fp16.h>\n"), std::string::npos);
  EXPECT_NE(out.find("#line 8 \"kernel.cu\"\n#include <mma.h>\n"), std::string::npos);
  EXPECT_NE(out.find("#endif\n#line 10 \"kernel.cu\"\n__global__ void k() {}"), std::string::npos) << out;
  // Nothing but directives was added: the user's lines are all there, in order.
  std::string kept;
  std::istringstream lines(out);
  for (std::string l; std::getline(lines, l);)
    if (l.rfind("#line ", 0) != 0 && l.rfind("#undef __global__", 0) != 0 && l.rfind("#define __global__", 0) != 0)
      kept += l + "\n";
  EXPECT_EQ(kept, src);
}

// ---------------------------------------------------------------------------------------------
// The log made readable.

TEST(ExplainNvrtcLog, AMissingHeaderNamesTheFoldersAndHowToChooseAnotherToolkit) {
  CudaHeaderSearch s;
  s.include_dir = "/opt/cuda/include";
  s.include_dirs = {"/opt/cuda/include", "/opt/cuda/include/cccl"};
  s.chosen_by = "the loaded NVRTC, /opt/cuda/lib64/libnvrtc.so.13";
  const std::string log =
      "kernel.cu(3): catastrophic error: cannot open source file \"foo.h\"\n"
      "  #include <foo.h>\n"
      "                  ^\n\n1 catastrophic error detected\n";
  const std::string out = explain_nvrtc_log(log, s);
  const auto ds = parse_nvrtc_log(out, Anchor{7, 1});
  ASSERT_EQ(ds.size(), 1u) << out;
  EXPECT_EQ(ds[0].line, 3);
  EXPECT_EQ(ds[0].column, 17);
  for (const char* part : {"\"foo.h\"", "/opt/cuda/include, /opt/cuda/include/cccl", "the loaded NVRTC",
                           "BLOCKSCOPE_CUDA_HOME=/path/to/cuda"})
    EXPECT_NE(ds[0].message.find(part), std::string::npos) << part << " in " << ds[0].message;

  // No toolkit at all: every place looked at is named.
  CudaHeaderSearch none;
  none.searched = {"/usr/local/cuda/include (the default place): no such folder"};
  const std::string raw =
      "kernel.cu(1): catastrophic error: could not open source file \"mma.h\" (no directories in search list)\n";
  const std::string msg = explain_nvrtc_log(raw, none);
  EXPECT_NE(msg.find("no CUDA toolkit's headers were found"), std::string::npos) << msg;
  EXPECT_NE(msg.find("/usr/local/cuda/include (the default place): no such folder"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("no directories in search list"), std::string::npos) << msg;
  // The standard library is not a toolkit's: another toolkit would not help.
  const std::string vec =
      explain_nvrtc_log("kernel.cu(2): catastrophic error: cannot open source file \"vector\"\n", s);
  EXPECT_NE(vec.find("without the C and C++ standard library"), std::string::npos) << vec;
  EXPECT_NE(vec.find("<cuda/std/array>"), std::string::npos) << vec;
  EXPECT_EQ(vec.find("BLOCKSCOPE_CUDA_HOME"), std::string::npos) << vec;
  const std::string lib =
      explain_nvrtc_log("kernel.cu(2): catastrophic error: cannot open source file \"stdlib.h\"\n", s);
  EXPECT_NE(lib.find("without the C and C++ standard library"), std::string::npos) << lib;
  // Lines that are not about headers pass unchanged.
  const std::string other = "kernel.cu(4): error: identifier \"q\" is undefined\n  q = 1;\n  ^\n";
  EXPECT_EQ(explain_nvrtc_log(other, s), other);
}

// ---------------------------------------------------------------------------------------------
// Real NVRTC.

class Nvrtc : public ::testing::Test {
 protected:
  void SetUp() override {
    lib = NvrtcLibrary::open("/usr/local/cuda/lib64");
    if (!lib.ok()) BS_SKIP() << lib.error();
    headers = find_cuda_headers(cuda_header_inputs_from_environment(lib.path()));
    target = nvrtc_target(90, lib.supported_archs());
    if (!target.ok) BS_SKIP() << "this NVRTC cannot compile for sm_90";
  }

  struct Compiled {
    bool parsed = false;
    NvrtcLibrary::Output out;
    std::vector<Diagnostic> diagnostics;
  };
  Compiled compile(const std::string& source, std::span<const lab::UserForm> forms) {
    Compiled c;
    ParseResult p = parse_kernel_source(source, forms);
    c.parsed = p.ok();
    if (!c.parsed) {
      c.diagnostics = p.diagnostics;
      return c;
    }
    const GeneratedUnit unit = make_gpu_unit(source, *p.kernel);
    c.out = lib.compile(unit.text, target, headers);
    c.diagnostics = parse_nvrtc_log(c.out.log, Anchor{p.kernel->pos.line, p.kernel->pos.column});
    return c;
  }
  static std::string text(const std::vector<Diagnostic>& ds) {
    std::string s;
    for (const Diagnostic& d : ds) s += describe(d) + "\n";
    return s;
  }

  NvrtcLibrary lib;
  CudaHeaderSearch headers;
  NvrtcTarget target;
};

TEST_F(Nvrtc, ThisMachinesToolkitIsFound) {
  ASSERT_TRUE(headers.found()) << "searched: " << (headers.searched.empty() ? "" : headers.searched.front());
  EXPECT_TRUE(fs::exists(fs::path(headers.include_dir) / "mma.h"));
  std::printf("[ headers ] NVRTC %d.%d from %s; -I %s (%s)\n", lib.major(), lib.minor(), lib.path().c_str(),
              headers.folders_text().c_str(), headers.chosen_by.c_str());
}

// The route that needs no variable: the toolkit the loaded libnvrtc belongs to (dladdr).
TEST_F(Nvrtc, TheLoadedNvrtcsOwnToolkitHasTheHeaders) {
  CudaHeaderInputs only_the_library;
  only_the_library.nvrtc_library = lib.path();
  const CudaHeaderSearch s = find_cuda_headers(only_the_library);
  ASSERT_TRUE(s.found()) << lib.path();
  EXPECT_NE(s.chosen_by.find("the loaded NVRTC"), std::string::npos) << s.chosen_by;
  EXPECT_TRUE(fs::exists(fs::path(s.include_dir) / "mma.h"));
  EXPECT_TRUE(fs::exists(fs::path(s.include_dirs.back()) / "cub" / "block" / "block_reduce.cuh"));
}

// Each of the user's kernels that include CUDA's headers compiles to a cubin for sm_90a; the time
// NVRTC took is printed beside the lecture's kernel without includes (README: "Compiling").
TEST_F(Nvrtc, KernelsIncludingCudasHeadersCompileForSm90a) {
  struct Case {
    const char* file;
    bool matmul;  // else gray
  };
  const Case cases[] = {
      {"nvrtc_fp16_gray.cu", false},   {"nvrtc_cuda_std.cu", false}, {"nvrtc_std_headers.cu", false},
      {"nvrtc_bf16_convert.cu", true}, {"nvrtc_wmma_bf16.cu", true}, {"nvrtc_cg_reduce.cu", true},
      {"nvrtc_pipeline.cu", true},     {"nvrtc_barrier.cu", true},   {"nvrtc_cub_reduce.cu", true},
      {"nvrtc_cub_load.cu", true},
  };
  const Compiled base = compile(kLectureGray1D, gray_forms());
  ASSERT_TRUE(base.out.ok) << base.out.log;
  std::printf("[ nvrtc ] %-24s %7.0f ms (no #include)\n", "lecture gray 1D", base.out.ms);
  for (const Case& c : cases) {
    const std::string src = read_kernel(c.file);
    ASSERT_FALSE(src.empty()) << c.file;
    const Compiled k = compile(src, c.matmul ? matmul_forms() : gray_forms());
    ASSERT_TRUE(k.parsed) << c.file << ":\n" << text(k.diagnostics);
    EXPECT_TRUE(k.out.ok) << c.file << ":\n" << k.out.log;
    EXPECT_EQ(k.out.arch, "sm_90a");
    // A cubin is an ELF file.
    ASSERT_GT(k.out.image.size(), 4u) << c.file;
    EXPECT_EQ(k.out.image.substr(0, 4),
              "\x7f"
              "ELF")
        << c.file;
    EXPECT_EQ(k.diagnostics.size(), 0u) << c.file << ":\n" << text(k.diagnostics);
    std::printf("[ nvrtc ] %-24s %7.0f ms\n", c.file, k.out.ms);
  }
}

// A header's own __global__ stays a kernel (an .entry in the PTX), while the user's kernel is
// made a device function that blockscope's entries call.
TEST_F(Nvrtc, AnIncludedHeadersGlobalFunctionStaysAKernel) {
  TempDir dir;
  std::ofstream(dir.path / "bs_test_header.cuh") << "__global__ void header_kernel(int* p) { *p = 42; }\n"
                                                    "__device__ int header_helper(int v) { return v + 1; }\n";
  CudaHeaderSearch with_dir = headers;
  with_dir.include_dirs.push_back(dir.path.string());
  const std::string src =
      "#include <bs_test_header.cuh>\n"
      "int plain_helper(int v) { return 2 * v; }  // no __device__: still callable\n"
      "__global__ void gray(unsigned char* x, unsigned char* out, int n) {\n"
      "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "    if (i < n) out[i] = header_helper(plain_helper(x[i]));\n"
      "}\n";
  ParseResult p = parse_kernel_source(src, gray_forms());
  ASSERT_TRUE(p.ok());
  NvrtcTarget ptx = target;
  ptx.ptx = true;
  ptx.option = "--gpu-architecture=compute_90";
  ptx.fallback.clear();
  const NvrtcLibrary::Output out = lib.compile(make_gpu_unit(src, *p.kernel).text, ptx, with_dir);
  ASSERT_TRUE(out.ok) << out.log;
  EXPECT_NE(out.image.find(".entry _Z13header_kernelPi"), std::string::npos);
  EXPECT_NE(out.image.find(".entry bs_entry("), std::string::npos);
  EXPECT_EQ(out.image.find(".entry _Z4grayPhS_i"), std::string::npos) << "the user's kernel is a device function";
}

TEST_F(Nvrtc, AMissingHeaderIsReportedAtTheUsersLineWithTheFoldersSearched) {
  const Compiled k = compile(read_kernel("nvrtc_missing_header.cu"), gray_forms());
  ASSERT_TRUE(k.parsed);
  EXPECT_FALSE(k.out.ok);
  ASSERT_EQ(k.diagnostics.size(), 1u) << text(k.diagnostics);
  const Diagnostic& d = k.diagnostics[0];
  std::printf("[ message ] %s\n", describe(d).c_str());
  EXPECT_EQ(d.line, 3);
  EXPECT_TRUE(d.is_error());
  for (const std::string& part :
       {std::string("\"no_such_cuda_header.h\""), headers.include_dir, std::string("BLOCKSCOPE_CUDA_HOME=")})
    EXPECT_NE(d.message.find(part), std::string::npos) << part;
}

TEST_F(Nvrtc, TorchsHostApiInAKernelIsNamedAsSuch) {
  const Compiled inc = compile(read_kernel("nvrtc_torch_include.cu"), gray_forms());
  ASSERT_TRUE(inc.parsed);
  EXPECT_FALSE(inc.out.ok);
  ASSERT_EQ(inc.diagnostics.size(), 1u) << text(inc.diagnostics);
  std::printf("[ message ] %s\n", describe(inc.diagnostics[0]).c_str());
  EXPECT_EQ(inc.diagnostics[0].line, 4);
  EXPECT_NE(inc.diagnostics[0].message.find("torch's host API"), std::string::npos);
  EXPECT_NE(inc.diagnostics[0].message.find("torch/extension.h"), std::string::npos);

  const Compiled use = compile(read_kernel("nvrtc_torch_in_kernel.cu"), gray_forms());
  ASSERT_TRUE(use.parsed);
  EXPECT_FALSE(use.out.ok);
  ASSERT_FALSE(use.diagnostics.empty());
  std::printf("[ message ] %s\n", describe(use.diagnostics[0]).c_str());
  EXPECT_EQ(use.diagnostics[0].line, 5);
  EXPECT_NE(use.diagnostics[0].message.find("torch's host API"), std::string::npos);
}

// An error inside a header the user included (here libcu++'s comparison, instantiated by the
// user's `a < a` on a type without `<`) is put at the user's line that reached it.
TEST_F(Nvrtc, AnErrorInsideAnIncludedHeaderIsAtTheUsersLineThatReachedIt) {
  const std::string src =
      "#include <cuda/std/array>\n"
      "struct Pixel { unsigned char v; };\n"
      "__global__ void gray(unsigned char* x, unsigned char* out, int n) {\n"
      "    cuda::std::array<Pixel, 2> a{};\n"
      "    const bool less = a < a;\n"
      "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "    if (i < n) out[i] = less ? 0 : x[i];\n"
      "}\n";
  const Compiled k = compile(src, gray_forms());
  ASSERT_TRUE(k.parsed);
  EXPECT_FALSE(k.out.ok);
  ASSERT_FALSE(k.diagnostics.empty()) << k.out.log;
  const Diagnostic& d = k.diagnostics[0];
  std::printf("[ message ] %s\n", describe(d).c_str());
  EXPECT_TRUE(d.is_error());
  EXPECT_EQ(d.line, 5);
  EXPECT_NE(d.message.find("[in " + headers.include_dirs.back()), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("reached from this line"), std::string::npos) << d.message;
  EXPECT_EQ(d.message.find("blockscope's"), std::string::npos) << "not blockscope's code: " << d.message;
}

// After includes (one inside #if), an error is still at the user's own line.
TEST_F(Nvrtc, ErrorsAfterIncludesAreAtTheUsersLines) {
  const std::string src =
      "#include <cuda_fp16.h>\n"
      "#if defined(__CUDACC_RTC__)\n"
      "#include <cuda/std/cstdint>\n"
      "#endif\n"
      "__global__ void gray(unsigned char* x, unsigned char* out, int n) {\n"
      "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "    if (i < n) out[i] = undefined_name;\n"
      "}\n";
  const Compiled k = compile(src, gray_forms());
  ASSERT_TRUE(k.parsed);
  EXPECT_FALSE(k.out.ok);
  ASSERT_EQ(k.diagnostics.size(), 1u) << text(k.diagnostics);
  EXPECT_EQ(k.diagnostics[0].line, 7);
  EXPECT_EQ(k.diagnostics[0].column, 25);
}

}  // namespace
}  // namespace bs::custom
