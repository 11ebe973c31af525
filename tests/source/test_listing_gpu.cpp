// A built-in rung's listing on the GPU (label gpu): cuobjdump + nvdisasm list the SASS of the
// function compiled from the rung's file out of this executable with each instruction's line in the rung's file; the
// PTX is listed where the build embeds it, else ptx_status says why; its live registers (nvdisasm's
// life ranges) peak within the registers the launch was allocated. Skips visibly without a
// device, and without the toolkit's tools.
#include <gtest/gtest.h>

#include "device/cuda_device.hpp"
#include "gpu_skip.hpp"
#include "labs/grayscale/gray_lab.hpp"
#include "source/listing.hpp"
#include "source/listing_parse.hpp"
#include "source/toolkit.hpp"

namespace {

using namespace bs::source;
using namespace bs::toolchain;  // the CUDA toolkit's tools, found

TEST(BuiltInListingOnGpu, Gray1dSassComesFromThisExecutableWithLinesOfItsFile) {
  BS_SKIP_WITHOUT_GPU();
  auto limits = bs::cuda_device_limits(0);
  ASSERT_TRUE(limits.ok()) << limits.status().describe();
  bs::lab::Backend b;
  b.kind = bs::BackendKind::Cuda;
  b.cuda_device = 0;
  b.limits = limits.value();
  auto lab = bs::gray::GrayLab::create(b);
  ASSERT_TRUE(lab.ok()) << lab.status().describe();
  std::vector<unsigned char> rgba(37 * 29 * 4, 100);
  ASSERT_TRUE((*lab)->set_image(rgba.data(), 37, 29, "t").ok());
  const bs::LaunchRecord rec = (*lab)->run("gray_1d_flat", bs::KernelConfig{}, {});
  ASSERT_TRUE(rec.ok()) << rec.status.describe();

  const Toolkit tk = find_toolkit();
  if (tk.cuobjdump.empty() || tk.nvdisasm.empty())
    BS_SKIP() << "no cuobjdump/nvdisasm (looked in " << tk.searched << ")";
  ListingRequest r;
  r.kind = ListingRequest::Kind::BuiltIn;
  r.kernel = rec.kernel;
  r.source_file = "kernels/labs/grayscale/gray_1d_flat.hpp";
  r.function = "";  // the record does not name it yet: found by the line table
  r.cc = static_cast<int>(b.limits.compute_major * 10 + b.limits.compute_minor);
  r.ran_on_gpu = true;
  const bs::KernelListing l = make_listing(r);
  ASSERT_TRUE(l.sass_status.ok()) << l.sass_status.describe();
  ASSERT_FALSE(l.sass.empty());
  const int lines = [&] {
    int n = 1;
    for (char c : l.source) n += c == '\n';
    return n;
  }();
  int in_file = 0, ldg = 0, stg = 0;
  for (const bs::ListedInstruction& i : l.sass) {
    if (!same_source_file(i.file, r.source_file)) continue;
    ++in_file;
    EXPECT_GE(i.line, 1);
    EXPECT_LE(i.line, lines);
    ldg += i.text.rfind("LDG", 0) == 0;
    stg += i.text.rfind("STG", 0) == 0;
  }
  EXPECT_GT(in_file, 0) << "no SASS instruction has a line in " << r.source_file;
  EXPECT_GE(ldg, 1);
  EXPECT_GE(stg, 1);
  std::printf("gray_1d_flat: %zu SASS instructions (%d in its file), %zu PTX; %s; ptx: %s\n", l.sass.size(), in_file,
              l.ptx.size(), l.sass_origin.c_str(),
              l.ptx_status.ok() ? l.ptx_origin.c_str() : l.ptx_status.describe().c_str());
  if (!l.ptx_status.ok()) { EXPECT_NE(l.ptx_status.message.find("PTX"), std::string::npos); }
  // Register pressure: nvdisasm's life ranges, within what cudaFuncGetAttributes says the launch
  // was allocated (the allocator never keeps more values live than it has registers).
  ASSERT_TRUE(l.live_status.ok()) << l.live_status.describe();
  const LivePeak peak = peak_live(l.sass);
  std::printf("gray_1d_flat: peak %d live registers at %s:%d; %u allocated\n", peak.regs, peak.file.c_str(), peak.line,
              rec.attributes.registers_per_thread);
  EXPECT_GT(peak.regs, 2);
  EXPECT_LE(peak.regs, static_cast<int>(rec.attributes.registers_per_thread));
  int counted = 0;
  for (const bs::ListedInstruction& i : l.sass) counted += i.live_regs >= 0;
  EXPECT_GT(counted, static_cast<int>(l.sass.size()) / 2) << "most instructions should have a live count";
}

}  // namespace
