// Shared-memory banks of user kernels (issue 20): a user kernel's shared accesses recorded on the
// CPU simulator (labs/custom/shared_recording.hpp: the kernel built with access hooks, one block
// run alone), through the lab interface the Memory tab asks. Checked against addresses computed
// here from the kernel's index expressions, at an odd block size; the lecture's tiled matmul is
// conflict-free, the editor's conflicting template 32-way; a kernel without __shared__ and a warp
// outside the block are statuses with the reason.
#include <gtest/gtest.h>

#include <random>

#include "custom_test_support.hpp"
#include "lab/catalog.hpp"
#include "labs/custom/user_kernel_lab.hpp"
#include "labs/grayscale/gray_lab.hpp"
#include "labs/matmul/matmul_lab.hpp"
#include "mapping/shared_banks.hpp"
#include "skips.hpp"

namespace bs::custom {
namespace {

using namespace test;

// Line numbers below are this source's (kernel.cu).
constexpr const char* kBanks = R"(__global__ void banks(unsigned char* x, unsigned char* out, int n) {
    __shared__ float s[32 * 32];
    __shared__ int flag;
    int t = threadIdx.x, i = blockIdx.x*blockDim.x + t;
    s[t % 32] = 1.0f;
    s[(t % 32) * 32] = 2.0f;
    if (t == 0) flag = 7;
    __syncthreads();
    float v = s[5];
    v += flag;
    if (i < n) out[i] = 0.2989f*x[i] + 0.5870f*x[i+n] + 0.1140f*x[i+2*n] + v * 0;
}
)";

unsigned line_of(const std::string& source, const std::string& text) {
  const auto at = source.find(text);
  EXPECT_NE(at, std::string::npos) << text;
  return static_cast<unsigned>(std::count(source.begin(), source.begin() + static_cast<long>(at), '\n') + 1);
}

class UserBanks : public ::testing::Test {
 protected:
  TempDir cache;
  std::shared_ptr<Engine> engine = std::make_shared<Engine>(options_with_cache(cache.path));
  std::shared_ptr<const UserLabs> labs = std::make_shared<const UserLabs>(
      UserLabs{{{"gray", "Grayscale", &gray::user_kernel_spec()}, {"matmul", "Matmul", &matmul::user_kernel_spec()}}});
  std::shared_ptr<UserKernelBook> book = std::make_shared<UserKernelBook>(engine, labs);

  TrialResult compile_into(lab::Lab& lab, const std::string& source, Dim3 block) {
    auto* user = lab::layer<UserKernelLab>(lab);
    EXPECT_NE(user, nullptr);
    TrialRequest req;
    req.source = source;
    req.forms = user->spec().forms();
    req.target = Target::Cpu;
    if (const lab::UserForm* form = user->form_of(source)) {
      auto p = user->user_problem(*form);
      EXPECT_TRUE(p.ok()) << p.status().describe();
      if (p) req.problem = *p;
    }
    req.block = block;
    req.time_limit_s = user->book().time_limit_s();
    TrialResult t = compile_and_try(*engine, req);
    if (t.runs()) user->book().install(t.kernel, t.compile.kernel);
    return t;
  }

  std::unique_ptr<lab::Lab> matmul_lab(int M, int N, int K) {
    auto m = matmul::MatmulLab::create(lab::cpu_simulation(2, "test"));
    EXPECT_TRUE(m.ok());
    matmul::MatrixSpec spec;
    spec.M = M, spec.N = N, spec.K = K;
    spec.seed = fresh_seed();
    EXPECT_TRUE((*m)->set_matrices(spec).ok());
    return with_user_kernels(std::move(m.value()), book);
  }
};

// The one thing this machine may lack for recording: addr2line (binutils), which names each
// access's line; without it the recording says so (its call "shared recording") and the case
// skips by the suite's policy (skips.hpp), saying why. Anything else that stops the recording,
// the recording build itself included (the host compiler's -fsanitize=thread), is a failure.
#define SKIP_IF_NO_ADDR2LINE(r) \
  if (!(r).ok() && (r).status().call == "shared recording") BS_SKIP() << (r).status().describe()

// Block 80 (odd: its warp 2 has 16 lanes), block 1 of the grid: each request's addresses as the
// index expressions give them. s[t % 32] is one word a lane, 1 wavefront; s[(t % 32) * 32] puts
// every lane in bank 0, 16 distinct words, 16 wavefronts; s[5] and flag are one word for all, a
// broadcast. Lane 0 of warp 0 stores flag; warp 2 does not.
TEST_F(UserBanks, AUserKernelsRequestsAreTheAddressesItsIndexExpressionsGive) {
  const std::uint32_t seed = fresh_seed();
  std::mt19937 rng(seed);
  const int w = 41 + static_cast<int>(rng() % 20), h = 7;
  auto g = gray::GrayLab::create(lab::cpu_simulation(2, "test"));
  ASSERT_TRUE(g.ok());
  std::vector<std::uint8_t> rgba(static_cast<std::size_t>(w) * h * 4);
  for (auto& v : rgba) v = static_cast<std::uint8_t>(rng());
  ASSERT_TRUE((*g)->set_image(rgba.data(), w, h, "random").ok());
  auto lab = with_user_kernels(std::move(g.value()), book);
  const Dim3 block{80, 1, 1};
  TrialResult t = compile_into(*lab, kBanks, block);
  ASSERT_TRUE(t.runs()) << t.summary();
  KernelConfig cfg;
  cfg.block = block;
  const LaunchRecord rec = lab->run("custom:banks", cfg, {});
  ASSERT_TRUE(rec.ok()) << rec.status.describe();
  EXPECT_TRUE(rec.check.passed()) << rec.check.summary();

  auto got = lab->recorded_shared_requests_elsewhere(rec, {1, 0, 0}, 2, 4096);
  ASSERT_TRUE(got.has_value());
  SKIP_IF_NO_ADDR2LINE(*got);
  ASSERT_TRUE(got->ok()) << got->status().describe();
  const auto& reqs = (*got)->requests;
  ASSERT_EQ(reqs.size(), 4u);
  const long long s0 = reqs[0].lane_offset[0];
  EXPECT_EQ(s0 % 128, 0) << "each __shared__ array starts at a 128-byte boundary";
  const std::string src = kBanks;
  struct Want {
    SharedOp op;
    const char* what;
    const char* line;
    unsigned wavefronts;
  };
  const Want want[] = {{SharedOp::Store, "s", "s[t % 32] = 1.0f;", 1},
                       {SharedOp::Store, "s", "s[(t % 32) * 32] = 2.0f;", 16},
                       {SharedOp::Load, "s", "float v = s[5];", 1},
                       {SharedOp::Load, "flag", "v += flag;", 1}};
  const long long flag_offset = reqs[3].lane_offset[0];
  for (std::size_t r = 0; r < 4; ++r) {
    SCOPED_TRACE(want[r].line);
    EXPECT_EQ(reqs[r].op, want[r].op);
    EXPECT_STREQ(reqs[r].site.what, want[r].what);
    EXPECT_STREQ(reqs[r].site.file, "kernel.cu");
    EXPECT_EQ(reqs[r].site.line, line_of(src, want[r].line));
    EXPECT_EQ(reqs[r].bytes, 4u);
    for (unsigned lane = 0; lane < 32; ++lane) {
      const unsigned tid = 64 + lane;  // warp 2
      long long expect = kNoSharedAccess;
      if (tid < block.x) {
        switch (r) {
          case 0: expect = s0 + 4LL * (tid % 32); break;
          case 1: expect = s0 + 4LL * (tid % 32) * 32; break;
          case 2: expect = s0 + 4LL * 5; break;
          case 3: expect = flag_offset; break;
        }
      }
      EXPECT_EQ(reqs[r].lane_offset[lane], expect) << "lane " << lane;
    }
    const mapping::BankRequest b = mapping::bank_request(reqs[r]);
    EXPECT_EQ(b.active_lanes, 16u);
    EXPECT_EQ(b.wavefronts, want[r].wavefronts);
    EXPECT_EQ(b.ideal_wavefronts, 1u);
  }
  // flag lies outside s (its own array, at its own 128-byte boundary).
  EXPECT_TRUE(flag_offset < s0 || flag_offset >= s0 + 4096) << flag_offset;
  EXPECT_EQ(flag_offset % 128, 0);
  ASSERT_EQ((*got)->variables.size(), 2u);
}

// The lecture's tiled matmul (16 x 16 tiles) is conflict-free in every request of a warp; the
// editor's conflicting template (the n tile stored transposed, 32-float rows) is 32-way at its
// two nt lines and conflict-free at its ms lines. Odd sizes; the request count is the kernel's
// loop: per phase 2 stores and 2 loads per i.
TEST_F(UserBanks, TheLecturesTiledMatmulIsConflictFreeAndTheConflictTemplate32Way) {
  auto lab = matmul_lab(37, 45, 29);
  const std::string tiled = matmul::user_kernel_spec().templates()[1].source;
  ASSERT_NE(tiled.find("matmul_ks"), std::string::npos);
  ASSERT_TRUE(compile_into(*lab, tiled, {16, 16, 1}).runs());
  KernelConfig cfg;
  cfg.block = {16, 16, 1};
  const LaunchRecord rec = lab->run("custom:matmul_ks", cfg, {});
  ASSERT_TRUE(rec.ok()) << rec.status.describe();
  auto got = lab->recorded_shared_requests_elsewhere(rec, {2, 1, 0}, 5, 4096);
  ASSERT_TRUE(got.has_value());
  SKIP_IF_NO_ADDR2LINE(*got);
  ASSERT_TRUE(got->ok()) << got->status().describe();
  const int phases = (29 + 15) / 16;
  ASSERT_EQ((*got)->requests.size(), static_cast<std::size_t>(phases * (2 + 2 * 16)));
  for (const SharedRequest& r : (*got)->requests) {
    const mapping::BankRequest b = mapping::bank_request(r);
    EXPECT_EQ(b.active_lanes, 32u);
    EXPECT_EQ(b.conflicts(), 0u) << r.label();
  }

  std::string conflict;
  for (const auto& t : matmul::user_kernel_spec().templates())
    if (t.id == "matmul_tiled_conflict") conflict = t.source;
  ASSERT_FALSE(conflict.empty());
  ASSERT_TRUE(compile_into(*lab, conflict, {32, 32, 1}).runs());
  cfg.block = {32, 32, 1};
  const LaunchRecord bad = lab->run("custom:matmul_conflict", cfg, {});
  ASSERT_TRUE(bad.ok()) << bad.status.describe();
  EXPECT_TRUE(bad.check.passed()) << bad.check.summary();
  auto rb = lab->recorded_shared_requests_elsewhere(bad, {1, 0, 0}, 3, 4096);
  ASSERT_TRUE(rb.has_value() && rb->ok());
  const unsigned nt_store = line_of(conflict, "nt[tc][tr] ="),
                 nt_read = line_of(conflict, "p += ms[tr][i] * nt[tc][i]");
  const int phases32 = (29 + 31) / 32;
  ASSERT_EQ((*rb)->requests.size(), static_cast<std::size_t>(phases32 * (2 + 2 * 32)));
  unsigned conflicting = 0;
  for (const SharedRequest& r : (*rb)->requests) {
    const mapping::BankRequest b = mapping::bank_request(r);
    const bool nt = std::string(r.site.what) == "nt";
    EXPECT_EQ(b.wavefronts, nt ? 32u : 1u) << r.label();
    if (nt) {
      EXPECT_TRUE(r.site.line == nt_store || r.site.line == nt_read) << r.label();
      ++conflicting;
    }
  }
  EXPECT_EQ(conflicting, static_cast<unsigned>(phases32 * (1 + 32)));
}

// A kernel without __shared__ memory has no requests to show, and says so; a warp past the
// block's threads and a block outside the grid are refused with the reason. The lab's own rungs
// are not recorded this way (nullopt: the matmul lab records them itself).
TEST_F(UserBanks, NoSharedMemoryAndAWarpOutsideTheBlockAreStatuses) {
  auto lab = matmul_lab(19, 23, 11);
  const std::string naive = matmul::user_kernel_spec().templates()[0].source;
  ASSERT_TRUE(compile_into(*lab, naive, {16, 8, 1}).runs());
  KernelConfig cfg;
  cfg.block = {16, 8, 1};
  const LaunchRecord rec = lab->run("custom:matmul_k", cfg, {});
  ASSERT_TRUE(rec.ok()) << rec.status.describe();
  auto none = lab->recorded_shared_requests_elsewhere(rec, {0, 0, 0}, 0, 4096);
  ASSERT_TRUE(none.has_value());
  SKIP_IF_NO_ADDR2LINE(*none);
  ASSERT_FALSE(none->ok());
  EXPECT_NE(none->status().message.find("no __shared__"), std::string::npos) << none->status().describe();
  EXPECT_FALSE(none->status().hint.empty());

  const std::string tiled = matmul::user_kernel_spec().templates()[1].source;
  ASSERT_TRUE(compile_into(*lab, tiled, {16, 16, 1}).runs());
  cfg.block = {16, 16, 1};
  const LaunchRecord t = lab->run("custom:matmul_ks", cfg, {});
  ASSERT_TRUE(t.ok());
  auto past = lab->recorded_shared_requests_elsewhere(t, {0, 0, 0}, 8, 4096);  // 256 threads: warps 0-7
  ASSERT_TRUE(past.has_value());
  ASSERT_FALSE(past->ok());
  EXPECT_NE(past->status().message.find("warp 8 is outside the block"), std::string::npos) << past->status().describe();
  auto outside = lab->recorded_shared_requests_elsewhere(t, {5, 0, 0}, 0, 4096);  // grid 2 x 2
  ASSERT_TRUE(outside.has_value());
  EXPECT_FALSE(outside->ok());
  // And the kernel still runs afterwards (the recording build was swapped back out).
  EXPECT_TRUE(lab->run("custom:matmul_ks", cfg, {}).check.passed());

  KernelConfig rung;
  rung.block = {16, 16, 1};
  const LaunchRecord k1 = lab->run("k1_naive", rung, {});
  EXPECT_FALSE(lab->recorded_shared_requests_elsewhere(k1, {0, 0, 0}, 0, 16).has_value());
}

}  // namespace
}  // namespace bs::custom
