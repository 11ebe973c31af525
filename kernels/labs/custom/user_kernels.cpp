// Sections
//   0. the labs that take user kernels
//   1. the book: entries, builds on demand, snapshots
//   2. diagnostics as the command line and the editor print them
//   3. compile_and_try: the editor's Compile
#include "labs/custom/user_kernels.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "core/timing.hpp"
#include "labs/custom/source_parse.hpp"

namespace bs::custom {

namespace {

using Clock = std::chrono::steady_clock;

int target_index(Target t) { return t == Target::Gpu ? 1 : 0; }

}  // namespace

// ---------------------------------------------------------------------------------------------
// 0. the labs that take user kernels
// ---------------------------------------------------------------------------------------------

const UserLab* UserLabs::find(std::string_view id) const {
  for (const UserLab& l : labs)
    if (l.id == id) return &l;
  return nullptr;
}

const UserLab* UserLabs::lab_of_source(std::string_view source, std::string_view prefer) const {
  auto takes = [&](const UserLab& l) { return l.spec && parse_kernel_source(source, l.spec->forms()).ok(); };
  if (const UserLab* p = find(prefer); p && takes(*p)) return p;
  for (const UserLab& l : labs)
    if (takes(l)) return &l;
  return nullptr;
}

GridRule launch_grid(const UserKernel& k, unsigned sm_count) {
  if (k.fixed_blocks_per_sm > 0) return GridRule::fixed_grid({k.fixed_blocks_per_sm * std::max(1u, sm_count), 1, 1});
  return k.grid;
}

// ---------------------------------------------------------------------------------------------
// 1. the book
// ---------------------------------------------------------------------------------------------

UserKernelBook::UserKernelBook(std::shared_ptr<Engine> engine, std::shared_ptr<const UserLabs> labs)
    : engine_(std::move(engine)), labs_(labs ? std::move(labs) : std::make_shared<const UserLabs>()) {}

UserKernelBook::Entry* UserKernelBook::find_locked(std::string_view id) {
  for (Entry& e : entries_)
    if (e.kernel.id == id) return &e;
  return nullptr;
}

void UserKernelBook::install(UserKernel k, std::shared_ptr<CustomKernel> build) {
  std::lock_guard lock(mutex_);
  Entry fresh;
  fresh.kernel = std::move(k);
  if (build && build->source() == fresh.kernel.source)
    fresh.builds[target_index(build->info().target)] = std::move(build);
  if (Entry* e = find_locked(fresh.kernel.id)) {
    // The same source keeps its other build (e.g. the CPU build a GPU lab derives owners from).
    if (e->kernel.source == fresh.kernel.source)
      for (int t = 0; t < 2; ++t)
        if (!fresh.builds[t]) fresh.builds[t] = e->builds[t];
    *e = std::move(fresh);
  } else {
    entries_.push_back(std::move(fresh));
  }
  ++version_;
}

void UserKernelBook::add_build(std::string_view id, std::shared_ptr<CustomKernel> build) {
  if (!build) return;
  std::lock_guard lock(mutex_);
  Entry* e = find_locked(id);
  if (!e || e->kernel.source != build->source()) return;
  e->builds[target_index(build->info().target)] = std::move(build);
}

bool UserKernelBook::remove(std::string_view id) {
  std::lock_guard lock(mutex_);
  auto it = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.kernel.id == id; });
  if (it == entries_.end()) return false;
  entries_.erase(it);
  ++version_;
  return true;
}

bool UserKernelBook::set_launch(std::string_view id, Dim3 block, GridRule grid, unsigned per_sm) {
  std::lock_guard lock(mutex_);
  Entry* e = find_locked(id);
  if (!e) return false;
  e->kernel.block = block;
  e->kernel.grid = grid;
  e->kernel.fixed_blocks_per_sm = per_sm;
  ++version_;
  return true;
}

std::vector<UserKernel> UserKernelBook::kernels() const {
  std::lock_guard lock(mutex_);
  std::vector<UserKernel> out;
  for (const Entry& e : entries_) out.push_back(e.kernel);
  return out;
}

std::optional<UserKernel> UserKernelBook::find(std::string_view id) const {
  std::lock_guard lock(mutex_);
  for (const Entry& e : entries_)
    if (e.kernel.id == id) return e.kernel;
  return std::nullopt;
}

std::uint64_t UserKernelBook::version() const {
  std::lock_guard lock(mutex_);
  return version_;
}

std::shared_ptr<CustomKernel> UserKernelBook::stored_build(std::string_view id, Target target) const {
  std::lock_guard lock(mutex_);
  for (const Entry& e : entries_)
    if (e.kernel.id == id) return e.builds[target_index(target)];
  return nullptr;
}

Result<std::shared_ptr<CustomKernel>> UserKernelBook::build(std::string_view id, Target target) {
  if (auto b = stored_build(id, target)) return b;
  // Compiles outside mutex_ (a compile takes 0.1 to 1 s; readers must not wait for it), one at
  // a time so two threads asking for the same build compile it once.
  std::lock_guard building(build_mutex_);
  if (auto b = stored_build(id, target)) return b;
  std::optional<UserKernel> k = find(id);
  if (!k)
    return Status::failure("there is no user kernel '" + std::string(id) + "'", "compile it in the editor first",
                           "UserKernelBook::build");
  CompileOptions options;
  options.kernel_name = k->name;
  // Against its own form: the one it was installed with.
  CompileResult c = engine_->compile(k->source, std::span<const lab::UserForm>(&k->form, 1), target, options);
  if (!c.ok())
    return Status::failure(k->name + " does not compile for the " + to_string(target) + ": " +
                               first_error(c, k->origin.empty() ? "kernel.cu" : k->origin),
                           "fix it in the editor", "compile", c.status.code);
  add_build(id, c.kernel);
  return c.kernel;
}

double UserKernelBook::time_limit_s() const {
  std::lock_guard lock(mutex_);
  return time_limit_s_;
}

void UserKernelBook::set_time_limit_s(double seconds) {
  std::lock_guard lock(mutex_);
  time_limit_s_ = std::clamp(seconds, 0.05, 600.0);
}

std::shared_ptr<UserKernelBook> UserKernelBook::snapshot() const {
  auto copy = std::make_shared<UserKernelBook>(engine_, labs_);
  std::lock_guard lock(mutex_);
  copy->entries_ = entries_;
  // Without the builds: a build is one runner process whose runs take turns, so a sweep's fork
  // sharing it would make the window wait for the sweep. The fork builds its own on first use
  // (the CPU build from the compile cache, in a fraction of a millisecond; NVRTC in ~30 ms).
  for (Entry& e : copy->entries_) e.builds[0] = e.builds[1] = nullptr;
  copy->version_ = version_;
  copy->time_limit_s_ = time_limit_s_;
  return copy;
}

// ---------------------------------------------------------------------------------------------
// 2. diagnostics
// ---------------------------------------------------------------------------------------------

std::string describe_at(const Diagnostic& d, std::string_view file) { return describe(d, file); }

std::string first_error(const CompileResult& c, std::string_view file) {
  for (const Diagnostic& d : c.diagnostics)
    if (d.is_error() && d.line > 0) return describe_at(d, file);
  for (const Diagnostic& d : c.diagnostics)
    if (d.is_error()) return describe_at(d, file);
  return c.status.describe();
}

std::string describe_wrong(const WrongElement& w, std::string_view what) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%.*s (%lld, %lld): got %.6g, want %.6g", static_cast<int>(what.size()), what.data(),
                w.x, w.y, w.got, w.want);
  std::string s = buf;
  if (!w.owner_known) return s + " (who wrote it is recorded on the CPU simulator only)";
  if (!w.written) return s + ", written by no thread";
  return s + ", stored by thread " + to_string(w.thread) + " of block " + to_string(w.block);
}

// ---------------------------------------------------------------------------------------------
// 3. compile_and_try
// ---------------------------------------------------------------------------------------------

TrialResult compile_and_try(Engine& engine, const TrialRequest& r) {
  TrialResult out;
  const auto t0 = Clock::now();
  out.compile = engine.compile(r.source, r.forms, r.target);
  out.compile_ms = ms_since(t0);
  if (!out.compile.ok()) {
    out.total_ms = out.compile_ms;
    return out;
  }
  const CompiledInfo& info = out.compile.kernel->info();
  UserKernel& k = out.kernel;
  k.name = info.name;
  k.id = user_kernel_id(info.name);
  k.source = r.source;
  k.origin = r.origin;
  k.form = info.form;
  k.uses_barriers = info.uses_barriers;
  k.block = r.block.x > 0 ? r.block : info.form.default_block;
  k.grid = r.grid;
  k.fixed_blocks_per_sm = r.fixed_blocks_per_sm;
  if (r.problem) {
    RunRequest req;
    req.block = k.block;
    req.grid = launch_grid(k, info.limits.sm_count);
    req.time_limit_s = r.time_limit_s;
    req.verify = true;
    req.record_owners = true;
    out.run = out.compile.kernel->run(*r.problem, req);
  }
  out.total_ms = ms_since(t0);
  return out;
}

std::string TrialResult::summary(std::string_view file) const {
  char buf[256];
  if (!compile.ok()) return first_error(compile, file);
  const CompiledInfo& info = compile.kernel->info();
  std::snprintf(buf, sizeof buf, "%s compiled for the %s in %.0f ms%s", info.name.c_str(), to_string(info.target),
                compile_ms, info.cache_hit ? " (cached)" : "");
  std::string s = buf;
  if (!run) return s;
  const LaunchRecord& rec = run->record;
  if (!rec.ok()) return s + "; its launch failed: " + rec.status.message;
  const std::string& element = info.form.element;
  std::snprintf(buf, sizeof buf, "; block %s, grid %s: %.3f ms, ", block_text(rec.config.block).c_str(),
                block_text(rec.config.grid).c_str(), rec.timing.median_ms);
  s += buf;
  if (rec.check.passed()) return s + "correct";
  if (!rec.check.failed()) return s + rec.check.summary();
  std::snprintf(buf, sizeof buf, "WRONG: %llu of %llu %ss over the limit", rec.check.mismatches, rec.check.checked,
                element.c_str());
  s += buf;
  if (!run->wrong.empty()) s += "; first: " + describe_wrong(run->wrong.front(), element);
  return s;
}

}  // namespace bs::custom
