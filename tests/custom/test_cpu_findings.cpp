// Issue 32: on the CUDA backend the CPU build of a user kernel and its replay of a launch (who
// stores what; an overrun the GPU does not fault on) run on a worker after the GPU result. These
// run here without a GPU: the worker and find_on_cpu on the CPU simulator, with a host compiler
// that waits at a gate the test opens, so "the result exists while the CPU build does not" is a
// fact of the ordering, not of timing. The lab's use of them on the GPU is in test_custom_gpu
// (UserLabGpu.TheGpuResultComesFirstAndTheCpuFindingsUpdateItsRecord).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <random>

#include "custom_test_support.hpp"
#include "lab/catalog.hpp"
#include "labs/custom/cpu_findings.hpp"
#include "labs/custom/user_kernel_lab.hpp"
#include "labs/grayscale/gray_lab.hpp"

namespace bs::custom {
namespace {

using namespace test;

// A host compiler that answers --version at once and compiles only once `gate` exists (30 s at
// most, so a mistake fails the test instead of hanging it).
std::filesystem::path gated_compiler(const std::filesystem::path& dir, const std::filesystem::path& gate) {
  const std::filesystem::path script = dir / "gated-g++";
  std::ofstream(script) << "#!/bin/sh\n"
                        << "case \" $* \" in *\" --version \"*) exec g++ \"$@\";; esac\n"
                        << "n=0\n"
                        << "while [ ! -e '" << gate.string()
                        << "' ] && [ $n -lt 1500 ]; do sleep 0.02; n=$((n+1)); done\n"
                        << "exec g++ \"$@\"\n";
  chmod(script.c_str(), 0755);
  return script;
}

struct Fixture {
  TempDir dir;
  std::filesystem::path gate = dir.path / "open";
  std::shared_ptr<Engine> engine;
  std::shared_ptr<UserKernelBook> book;
  std::unique_ptr<lab::Lab> lab;
  UserKernelLab* user = nullptr;

  Fixture(int w, int h) {
    EngineOptions o = options_with_cache(dir.path / "cache");
    o.host_compiler = gated_compiler(dir.path, gate).string();
    engine = std::make_shared<Engine>(o);
    book = std::make_shared<UserKernelBook>(engine, nullptr);
    auto g = gray::GrayLab::create(lab::cpu_simulation(2));
    EXPECT_TRUE(g.ok());
    std::mt19937 rng(fresh_seed());
    std::vector<std::uint8_t> rgba(static_cast<std::size_t>(w) * h * 4);
    for (auto& v : rgba) v = static_cast<std::uint8_t>(rng());
    EXPECT_TRUE((*g)->set_image(rgba.data(), w, h, "random").ok());
    lab = with_user_kernels(std::move(g.value()), book);
    user = lab::layer<UserKernelLab>(*lab);
  }

  // The kernel as the editor installs it after its GPU result: no CPU build yet.
  UserKernel install(const std::string& source, Dim3 block) {
    UserKernel k;
    k.name = "rgb_to_grayscale_kernel";
    k.id = user_kernel_id(k.name);
    k.source = source;
    const lab::UserForm* form = user->form_of(source);
    EXPECT_NE(form, nullptr);
    if (form) k.form = *form;
    k.block = block;
    k.grid = GridRule{};
    book->install(k);
    return k;
  }
  Problem problem(const UserKernel& k) {
    auto p = user->user_problem(k.form);
    EXPECT_TRUE(p.ok()) << p.status().describe();
    return *p;
  }
};

LaunchConfig launch_1d(long long n, unsigned block) {
  LaunchConfig c;
  c.block = {block, 1, 1};
  c.grid = {static_cast<unsigned>((n + block - 1) / block), 1, 1};
  return c;
}

TEST(CpuFindings, TheyArriveFromTheWorkerAfterTheCallerWentOnAndGiveTheMapping) {
  const int w = 203, h = 67;  // 13601 pixels: an odd size, the last block partly idle
  Fixture f(w, h);
  const UserKernel k = f.install(kLectureGray1D, {128, 1, 1});
  const Problem p = f.problem(k);
  const LaunchConfig launched = launch_1d(static_cast<long long>(w) * h, 128);
  CpuFindingsWorker worker;
  auto job = [&, book = f.book] { return find_on_cpu(*book, k, p, launched, 2, 2.0); };
  worker.submit("shape", job);
  worker.submit("shape", job);  // the same launch shape again: not queued twice
  // The compiler waits at the gate: the caller has gone on, and nothing is built or found yet.
  EXPECT_TRUE(worker.pending("shape"));
  EXPECT_TRUE(worker.pending());
  EXPECT_FALSE(worker.pending("another"));
  EXPECT_TRUE(worker.take().empty());
  EXPECT_EQ(f.book->stored_build(k.id, Target::Cpu), nullptr);

  EXPECT_TRUE(worker.busy());
  std::ofstream(f.gate) << "open\n";
  worker.wait_idle();
  EXPECT_FALSE(worker.pending());
  EXPECT_TRUE(worker.busy()) << "finished, not yet taken";
  const auto found = worker.take();
  EXPECT_FALSE(worker.busy());
  ASSERT_EQ(found.size(), 1u) << "one job per launch shape";
  EXPECT_EQ(found[0].first, "shape");
  const CpuFindings& d = found[0].second;
  EXPECT_FALSE(d.out_of_bounds) << d.out_of_bounds->describe();
  // The lecture's 1D kernel stores element i from global thread i: the flat scheme.
  ASSERT_TRUE(d.scheme) << d.note;
  EXPECT_EQ(d.scheme->kind, IndexScheme::flat().kind);
  EXPECT_FALSE(d.scheme->grid_stride);
  EXPECT_NE(d.note.find("owners from the CPU simulator"), std::string::npos) << d.note;
  // The build it made joined the book (the Memory tab's recording and later replays reuse it).
  const auto built = f.book->stored_build(k.id, Target::Cpu);
  ASSERT_NE(built, nullptr);
  EXPECT_EQ(built->source(), k.source);
}

TEST(CpuFindings, AnOverrunTheGpuWouldMissIsFoundWithItsBlockThreadAndIndex) {
  const int w = 61, h = 37, n = w * h;  // 2257 pixels: thread n exists with block 384
  Fixture f(w, h);
  std::ofstream(f.gate) << "open\n";
  std::string src = kLectureGray1D;
  src.replace(src.find("i<n"), 3, "i<=n");
  const UserKernel k = f.install(src, {384, 1, 1});
  const CpuFindings d = find_on_cpu(*f.book, k, f.problem(k), launch_1d(n, 384), 2, 2.0);
  ASSERT_TRUE(d.out_of_bounds) << d.note;
  // Thread i = n reads x[i + 2n] = x[3n], one past the 3n input bytes.
  const std::string want = "thread (" + std::to_string(n % 384) + ", 0, 0) of block (" + std::to_string(n / 384) +
                           ", 0, 0) accessed x[" + std::to_string(3 * n) + "]";
  EXPECT_NE(d.out_of_bounds->describe().find(want), std::string::npos) << d.out_of_bounds->describe();
  EXPECT_FALSE(d.scheme);
}

TEST(CpuFindings, ABuildOfANewerSourceIsNotUsedForAnOlderLaunch) {
  // The user edited again while the findings of the older source were waiting: the replay must
  // build and run exactly the source its launch ran (else its mapping would be the newer one's).
  const int w = 40, h = 30;
  Fixture f(w, h);
  std::ofstream(f.gate) << "open\n";
  const UserKernel older = f.install(kLectureGray1D, {64, 1, 1});
  // The newer one stores element i from thread i + 1 (thread 0 stores nothing): no closed form.
  std::string newer_src = kLectureGray1D;
  newer_src.replace(newer_src.find("int i = blockIdx.x*blockDim.x + threadIdx.x;"),
                    std::string("int i = blockIdx.x*blockDim.x + threadIdx.x;").size(),
                    "int i = blockIdx.x*blockDim.x + threadIdx.x - 1; if (i < 0) return;");
  const UserKernel newer = f.install(newer_src, {64, 1, 1});
  const Problem p = f.problem(newer);
  ASSERT_TRUE(find_on_cpu(*f.book, newer, p, launch_1d(w * h + 1, 64), 2, 2.0).note.find("no closed-form") !=
              std::string::npos);
  const CpuFindings d = find_on_cpu(*f.book, older, p, launch_1d(w * h, 64), 2, 2.0);
  ASSERT_TRUE(d.scheme) << d.note;
  EXPECT_EQ(d.scheme->kind, IndexScheme::flat().kind);
  // The book keeps the newer source's build: the older one's is not handed to it.
  ASSERT_NE(f.book->stored_build(newer.id, Target::Cpu), nullptr);
  EXPECT_EQ(f.book->stored_build(newer.id, Target::Cpu)->source(), newer_src);
}

}  // namespace
}  // namespace bs::custom
