// Listings of real kernels: every built-in rung's file is embedded and equals the file on disk
// now (a real check of the embed: edit a rung and forget to rebuild, and this fails); the CPU
// backend's listing of a rung says why there is no PTX or SASS; a user kernel's PTX through NVRTC
// maps its loads, arithmetic and store to the lines of its three-line body (skips visibly without
// NVRTC), and its SASS too where the toolkit's nvdisasm exists (else the listing says what to
// install). The GPU test (label gpu) lists a rung's SASS out of this executable.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "labs/grayscale/gray_ladder.hpp"
#include "labs/grayscale/gray_user_spec.hpp"
#include "labs/matmul/matmul.hpp"
#include "skips.hpp"
#include "source/listing.hpp"
#include "source/listing_parse.hpp"
#include "source/toolkit.hpp"

namespace {

using namespace bs::source;
using namespace bs::toolchain;  // the CUDA toolkit's tools, found

std::string read_repo_file(const std::string& rel) {
  std::ifstream in(std::string(BS_SOURCE_DIR) + "/" + rel, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

int line_count(const std::string& text) {
  int n = 1;
  for (char c : text) n += c == '\n';
  return n;
}

std::set<std::string> rung_files() {
  std::set<std::string> files;
  for (const auto& r : bs::gray::gray_rungs())
    if (r.body) files.insert(r.info.file);
  for (auto p : {bs::matmul::Precision::Fp32, bs::matmul::Precision::Bf16})
    for (const auto& k : bs::matmul::matmul_kernels(p)) files.insert(k.file);
  return files;
}

TEST(EmbeddedSources, EveryRungsFileIsEmbeddedAndEqualsTheFileOnDisk) {
  const std::set<std::string> files = rung_files();
  ASSERT_GE(files.size(), 10u);
  EXPECT_TRUE(files.count("kernels/labs/grayscale/gray_1d_flat.hpp"));
  EXPECT_TRUE(files.count("kernels/labs/matmul/k3_smem_tiled.hpp"));
  for (const std::string& f : files) {
    const std::string disk = read_repo_file(f);
    ASSERT_FALSE(disk.empty()) << f << " is not on disk";
    EXPECT_EQ(std::string(embedded_source(f)), disk) << f << ": the embedded text differs from the file";
  }
  EXPECT_TRUE(embedded_source("kernels/labs/nope.hpp").empty());
}

TEST(BuiltInListing, OnTheCpuBackendTheSourceShowsAndPtxAndSassSayWhyNot) {
  ListingRequest r;
  r.kind = ListingRequest::Kind::BuiltIn;
  r.kernel = "k3_smem_tiled";
  r.source_file = "kernels/labs/matmul/k3_smem_tiled.hpp";
  r.ran_on_gpu = false;
  const bs::KernelListing l = make_listing(r);
  EXPECT_TRUE(l.source_status.ok());
  EXPECT_EQ(l.source, read_repo_file(r.source_file));
  EXPECT_EQ(l.source_file, r.source_file);
  ASSERT_FALSE(l.ptx_status.ok());
  ASSERT_FALSE(l.sass_status.ok());
  EXPECT_NE(l.sass_status.message.find("CPU simulator"), std::string::npos) << l.sass_status.describe();
  EXPECT_FALSE(l.sass_status.hint.empty());
  EXPECT_TRUE(l.ptx.empty());
  EXPECT_TRUE(l.sass.empty());
}

TEST(BuiltInListing, AFileThatIsNotEmbeddedAndALibraryKernelSayWhy) {
  ListingRequest r;
  r.kernel = "nope";
  r.source_file = "kernels/labs/nope.hpp";
  const bs::KernelListing missing = make_listing(r);
  EXPECT_FALSE(missing.source_status.ok());
  EXPECT_NE(missing.source_status.message.find("not embedded"), std::string::npos);
  r.kind = ListingRequest::Kind::Library;
  r.kernel = "cublas_sgemm";
  const bs::KernelListing lib = make_listing(r);
  EXPECT_FALSE(lib.source_status.ok());
  EXPECT_NE(lib.source_status.message.find("library"), std::string::npos);
}

// The lecture's 1D grayscale, its body three lines: loads (4), arithmetic (5), store (6).
constexpr const char* kUserGray =
    "__global__ void gray3(unsigned char* x, unsigned char* out, int n) {\n"  // 1
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"                      // 2
    "  if (i >= n) return;\n"                                                 // 3
    "  float r = x[i], g = x[i + n], b = x[i + 2 * n];\n"                     // 4
    "  float y = 0.2989f * r + 0.5870f * g + 0.1140f * b;\n"                  // 5
    "  out[i] = (unsigned char)y;\n"                                          // 6
    "}\n";                                                                    // 7

ListingRequest user_request() {
  ListingRequest r;
  r.kind = ListingRequest::Kind::User;
  r.kernel = "custom:gray3";
  r.user_source = kUserGray;
  r.forms = bs::gray::user_kernel_spec().forms();
  return r;
}

TEST(UserListing, NvrtcsPtxMapsTheLoadsArithmeticAndStoreToTheirLinesOfTheBody) {
  const bs::KernelListing l = make_listing(user_request());
  if (!l.ptx_status.ok() && l.ptx_status.call == "dlopen") BS_SKIP() << "no NVRTC here: " << l.ptx_status.describe();
  ASSERT_TRUE(l.ptx_status.ok()) << l.ptx_status.describe();
  EXPECT_EQ(l.source, kUserGray);
  EXPECT_EQ(l.source_file, "kernel.cu");
  EXPECT_EQ(l.function, "bs_entry");
  ASSERT_FALSE(l.ptx.empty());
  const int lines = line_count(kUserGray);
  int loads = 0, stores = 0, maths = 0, in_user = 0;
  for (const bs::ListedInstruction& i : l.ptx) {
    EXPECT_EQ(i.pc_offset, 0u);
    if (!same_source_file(i.file, l.source_file)) continue;  // the generated entry's own lines
    ++in_user;
    EXPECT_GE(i.line, 1) << i.text;
    EXPECT_LE(i.line, lines) << i.text;
    if (i.text.rfind("ld.global", 0) == 0) {
      ++loads;
      EXPECT_EQ(i.line, 4) << i.text;
    }
    if (i.text.rfind("st.global", 0) == 0) {
      ++stores;
      EXPECT_EQ(i.line, 6) << i.text;
    }
    if (i.text.rfind("fma.rn.f32", 0) == 0 || i.text.rfind("mul.f32", 0) == 0 || i.text.rfind("mul.rn.f32", 0) == 0) {
      ++maths;
      EXPECT_EQ(i.line, 5) << i.text;
    }
  }
  EXPECT_EQ(loads, 3);
  EXPECT_EQ(stores, 1);
  EXPECT_GE(maths, 1);
  EXPECT_GT(in_user, 8);
  // The traced twin of the entry is not listed: every global load of the body appears once.
  EXPECT_NE(l.ptx_origin.find("NVRTC"), std::string::npos);

  // SASS: from the toolkit's nvdisasm where it exists, else the listing says what to install.
  if (find_toolkit().nvdisasm.empty()) {
    EXPECT_FALSE(l.sass_status.ok());
    EXPECT_NE(l.sass_status.message.find("nvdisasm"), std::string::npos) << l.sass_status.describe();
    EXPECT_NE(l.sass_status.hint.find("CUDA_HOME"), std::string::npos);
    return;
  }
  ASSERT_TRUE(l.sass_status.ok()) << l.sass_status.describe();
  ASSERT_FALSE(l.sass.empty());
  int ldg = 0, stg = 0;
  for (const bs::ListedInstruction& i : l.sass) {
    if (!same_source_file(i.file, l.source_file)) continue;
    EXPECT_GE(i.line, 1) << i.text;
    EXPECT_LE(i.line, lines) << i.text;
    if (i.text.rfind("LDG", 0) == 0) {
      ++ldg;
      EXPECT_EQ(i.line, 4) << i.text;
    }
    if (i.text.rfind("STG", 0) == 0) {
      ++stg;
      EXPECT_EQ(i.line, 6) << i.text;
    }
  }
  EXPECT_EQ(ldg, 3);
  EXPECT_EQ(stg, 1);
  // Register pressure, where this nvdisasm prints life ranges (else the listing says why).
  if (!l.live_status.ok()) {
    EXPECT_NE(l.live_status.message.find("life ranges"), std::string::npos) << l.live_status.describe();
    return;
  }
  const LivePeak peak = peak_live(l.sass);
  EXPECT_GT(peak.regs, 2);
  EXPECT_LT(peak.regs, 255);
  const std::vector<int> per_line = max_live_per_line(l.sass, l.source_file, lines);
  int top = -1;
  for (int v : per_line) top = std::max(top, v);
  EXPECT_LE(top, peak.regs);  // a line's maximum is at most the kernel's
  EXPECT_GE(per_line[4], 1);  // the loads' line holds at least an address
}

TEST(UserListing, ASourceNoFormAcceptsSaysSoAndKeepsTheText) {
  ListingRequest r = user_request();
  r.user_source = "__global__ void f(double* a) {}\n";
  const bs::KernelListing l = make_listing(r);
  EXPECT_EQ(l.source, r.user_source);
  EXPECT_FALSE(l.ptx_status.ok());
  EXPECT_FALSE(l.sass_status.ok());
}

}  // namespace
