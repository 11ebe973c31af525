// The proof that user kernels are a capability of every lab, not of the two that ship: the
// test-only vector-add lab offers a spec written in this folder (vadd_user_spec.cpp) and, with
// no change outside it, takes the user's own kernel as the built-in labs do: compiled for the CPU
// simulator, run through the lab interface, timed by the lab's policy, checked by the lab's
// check against a sum computed here, an off-by-one named down to the thread, a wrong kernel
// named with the thread that stored its first wrong element, and a dropped source found to be
// this lab's by its signature.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "lab/catalog.hpp"
#include "lab/user_kernel_spec.hpp"
#include "labs/custom/user_kernel_lab.hpp"
#include "vadd_lab.hpp"

namespace {

using namespace bs;

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    char tmpl[] = "/tmp/bs-vadd-user-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

class VaddUser : public ::testing::Test {
 protected:
  void SetUp() override {
    auto v = test::vadd_lab_entry().create(lab::cpu_simulation(2, "test"));
    ASSERT_TRUE(v.ok()) << v.status().describe();
    const std::string n = std::to_string(4001 + 2 * (std::random_device{}() % 48));  // odd, fresh
    ASSERT_TRUE((*v)->set_random_problem(n).ok());
    lab_ = custom::with_user_kernels(std::move(v.value()), book_);
    user_ = lab::layer<custom::UserKernelLab>(*lab_);
    ASSERT_NE(user_, nullptr) << "the vadd lab offers a spec, so it is wrapped";
    vadd_ = lab::layer<test::VaddLab>(*lab_);
  }

  // The editor's Compile: the source's form, the lab's data for it, compile and one verified
  // launch, then installed when it ran.
  custom::TrialResult compile(const std::string& source) {
    custom::TrialRequest req;
    req.source = source;
    req.forms = user_->spec().forms();
    req.target = custom::Target::Cpu;
    if (const lab::UserForm* f = user_->form_of(source)) {
      auto p = user_->user_problem(*f);
      EXPECT_TRUE(p.ok()) << p.status().describe();
      if (p) req.problem = *p;
    }
    req.time_limit_s = 5;
    custom::TrialResult t = custom::compile_and_try(*engine_, req);
    if (t.runs()) user_->book().install(t.kernel, t.compile.kernel);
    return t;
  }

  TempDir cache_;
  std::shared_ptr<custom::Engine> engine_ = [this] {
    custom::EngineOptions o;
    o.cache_dir = cache_.path;
    return std::make_shared<custom::Engine>(o);
  }();
  std::shared_ptr<const custom::UserLabs> labs_ =
      std::make_shared<const custom::UserLabs>(custom::user_labs_of({test::vadd_lab_entry()}));
  std::shared_ptr<custom::UserKernelBook> book_ = std::make_shared<custom::UserKernelBook>(engine_, labs_);
  std::unique_ptr<lab::Lab> lab_;
  custom::UserKernelLab* user_ = nullptr;
  test::VaddLab* vadd_ = nullptr;
};

constexpr const char* kVadd = R"(__global__ void my_add(const float* __restrict__ a, const float* b, float* c, int n) {
    int i = blockIdx.x*blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
)";

TEST_F(VaddUser, AUserKernelJoinsTheLabAndIsVerifiedTimedAndCountedAsItsOwn) {
  custom::TrialResult t = compile(kVadd);
  ASSERT_TRUE(t.runs()) << t.summary();
  EXPECT_EQ(t.compile.kernel->info().form.id, "vadd");
  ASSERT_NE(lab_->find_kernel("custom:my_add"), nullptr);
  EXPECT_EQ(lab_->find_kernel("custom:my_add")->group, KernelGroup::Custom);

  lab::RunOptions o;
  o.timing = TimingPolicy::until_stable(1e-12, 60000, 3, 7, 1);  // a target no timing meets: 7
  o.trace_schedule = true;
  std::vector<float> c(vadd_->a().size(), -1.0f);
  o.output = c.data();
  const LaunchRecord rec = lab_->run("custom:my_add", {Dim3{96, 1, 1}}, o);
  ASSERT_TRUE(rec.ok()) << rec.status.describe();
  EXPECT_TRUE(rec.check.passed()) << rec.check.summary();
  EXPECT_EQ(rec.lab, "vadd");
  const std::size_t n = vadd_->a().size();
  EXPECT_EQ(rec.config.grid, (Dim3{static_cast<unsigned>((n + 95) / 96), 1, 1}));
  EXPECT_EQ(rec.timing.repeats(), 7);
  EXPECT_EQ(rec.timing.warmup, 1);
  EXPECT_EQ(rec.schedule.size(), (n + 95) / 96);
  // The lab's own counts, as its plan() gives its own kernel.
  const LaunchRecord own = lab_->plan("vadd", {Dim3{96, 1, 1}});
  EXPECT_DOUBLE_EQ(rec.flops, own.flops);
  EXPECT_DOUBLE_EQ(rec.bytes_moved, own.bytes_moved);
  EXPECT_DOUBLE_EQ(rec.flops, static_cast<double>(n));
  // The output, where the view asked, against a sum computed here.
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_EQ(c[i], static_cast<float>(static_cast<double>(vadd_->a()[i]) + vadd_->b()[i])) << i;
  // Element 1000 is stored by global thread 1000: the recorded owners are the 1D mapping.
  EXPECT_EQ(rec.scheme.kind, IndexScheme::Kind::Flat);
  auto owner = lab_->owner(rec, 1000, 0);
  ASSERT_TRUE(owner);
  EXPECT_EQ(owner->thread.block, (Dim3{1000 / 96, 0, 0}));
  EXPECT_EQ(owner->thread.thread, (Dim3{1000 % 96, 0, 0}));
  // The lab's own kernel still runs through the same lab.
  EXPECT_TRUE(lab_->run("vadd", {Dim3{256, 1, 1}}, {}).check.passed());
}

TEST_F(VaddUser, AnOffByOneIsNamedDownToTheThreadAndAWrongKernelByItsFirstWrongElement) {
  const std::size_t n = vadd_->a().size();
  custom::TrialResult off = compile(R"(__global__ void add(float* a, float* b, float* c, int n) {
    int i = blockIdx.x*blockDim.x + threadIdx.x;
    if (i <= n) c[i] = a[i] + b[i];
}
)");
  ASSERT_TRUE(off.compile.ok());
  EXPECT_FALSE(off.runs());
  ASSERT_TRUE(off.run && off.run->out_of_bounds);
  const custom::OutOfBoundsReport& o = *off.run->out_of_bounds;
  EXPECT_EQ(o.buffer, "a");  // a[n] is read first
  EXPECT_EQ(o.index, static_cast<long long>(n));
  EXPECT_EQ(o.block, (Dim3{static_cast<unsigned>(n / 256), 0, 0}));
  EXPECT_EQ(o.thread, (Dim3{static_cast<unsigned>(n % 256), 0, 0}));
  EXPECT_EQ(lab_->find_kernel("custom:add"), nullptr) << "a kernel whose launch fails does not join";

  custom::TrialResult wrong = compile(R"(__global__ void sub(float* a, float* b, float* c, int n) {
    int i = blockIdx.x*blockDim.x + threadIdx.x;
    if (i < n) c[i] = i == 77 ? a[i] - b[i] : a[i] + b[i];
}
)");
  ASSERT_TRUE(wrong.runs()) << wrong.summary();
  const LaunchRecord rec = lab_->run("custom:sub", {Dim3{32, 1, 1}}, {});
  ASSERT_TRUE(rec.ok());
  ASSERT_TRUE(rec.check.failed());
  EXPECT_EQ(rec.check.mismatches, 1u);
  EXPECT_NE(rec.check.note.find("first wrong element (77, 0)"), std::string::npos) << rec.check.note;
  EXPECT_NE(rec.check.note.find("stored by thread (13, 0, 0) of block (2, 0, 0)"), std::string::npos) << rec.check.note;
}

TEST_F(VaddUser, ASourceIsFoundToBeThisLabsByItsSignature) {
  const custom::UserLab* l = labs_->lab_of_source(kVadd);
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->id, "vadd");
  EXPECT_EQ(labs_->lab_of_source("__global__ void k(int* a, int n) {}"), nullptr);
  ASSERT_EQ(user_->spec().templates().size(), 1u);
  custom::TrialResult t = compile(user_->spec().templates().front().source);
  EXPECT_TRUE(t.runs()) << t.summary();
  EXPECT_NE(t.summary().find("correct"), std::string::npos) << t.summary();
}

}  // namespace
