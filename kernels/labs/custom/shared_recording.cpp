#include "labs/custom/shared_recording.hpp"

#include <cstdio>
#include <mutex>
#include <set>
#include <sstream>

#include "labs/custom/diagnostics.hpp"
#include "toolchain/process.hpp"
#include "toolchain/files.hpp"

namespace bs::custom {
namespace {

// Uninstrumented (no_sanitize) definitions of every function -fsanitize=thread makes a unit call.
// Loads and stores go to the runner's hook; atomics do what they say (seq_cst, the strongest);
// the rest do nothing. A function missing here is a link error naming it (-z defs).
constexpr const char* kHooks = R"(
#line 1 "blockscope-shared-recorder"
typedef void (*bs_shared_hook_fn)(const void*, unsigned, int, const void*, const bs_thread_ctx*);
static bs_shared_hook_fn bs_shared_hook;
#define BS_NOSAN extern "C" __attribute__((no_sanitize("thread"), visibility("default")))
BS_NOSAN void bs_set_shared_hook(bs_shared_hook_fn f) { bs_shared_hook = f; }
#define BS_HOOK(name, n, w)                                                              \
  BS_NOSAN void name(void* p) {                                                          \
    if (bs_shared_hook) bs_shared_hook(p, n, w, __builtin_return_address(0), bs_tls_ctx); \
  }
BS_HOOK(__tsan_read1, 1, 0) BS_HOOK(__tsan_read2, 2, 0) BS_HOOK(__tsan_read4, 4, 0)
BS_HOOK(__tsan_read8, 8, 0) BS_HOOK(__tsan_read16, 16, 0)
BS_HOOK(__tsan_write1, 1, 1) BS_HOOK(__tsan_write2, 2, 1) BS_HOOK(__tsan_write4, 4, 1)
BS_HOOK(__tsan_write8, 8, 1) BS_HOOK(__tsan_write16, 16, 1)
BS_HOOK(__tsan_unaligned_read2, 2, 0) BS_HOOK(__tsan_unaligned_read4, 4, 0)
BS_HOOK(__tsan_unaligned_read8, 8, 0) BS_HOOK(__tsan_unaligned_read16, 16, 0)
BS_HOOK(__tsan_unaligned_write2, 2, 1) BS_HOOK(__tsan_unaligned_write4, 4, 1)
BS_HOOK(__tsan_unaligned_write8, 8, 1) BS_HOOK(__tsan_unaligned_write16, 16, 1)
BS_HOOK(__tsan_volatile_read1, 1, 0) BS_HOOK(__tsan_volatile_read2, 2, 0) BS_HOOK(__tsan_volatile_read4, 4, 0)
BS_HOOK(__tsan_volatile_read8, 8, 0) BS_HOOK(__tsan_volatile_read16, 16, 0)
BS_HOOK(__tsan_volatile_write1, 1, 1) BS_HOOK(__tsan_volatile_write2, 2, 1) BS_HOOK(__tsan_volatile_write4, 4, 1)
BS_HOOK(__tsan_volatile_write8, 8, 1) BS_HOOK(__tsan_volatile_write16, 16, 1)
#undef BS_HOOK
BS_NOSAN void __tsan_read_range(void*, unsigned long) {}
BS_NOSAN void __tsan_write_range(void*, unsigned long) {}
BS_NOSAN void __tsan_init(void) {}
BS_NOSAN void __tsan_func_entry(void*) {}
BS_NOSAN void __tsan_func_exit(void) {}
BS_NOSAN void __tsan_vptr_read(void**) {}
BS_NOSAN void __tsan_vptr_update(void**, void*) {}
BS_NOSAN void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
BS_NOSAN void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
#define BS_ATOMICS(n, T)                                                                           \
  BS_NOSAN T __tsan_atomic##n##_load(const volatile T* a, int) { return __atomic_load_n(a, 5); }  \
  BS_NOSAN void __tsan_atomic##n##_store(volatile T* a, T v, int) { __atomic_store_n(a, v, 5); }  \
  BS_NOSAN T __tsan_atomic##n##_exchange(volatile T* a, T v, int) { return __atomic_exchange_n(a, v, 5); } \
  BS_NOSAN T __tsan_atomic##n##_fetch_add(volatile T* a, T v, int) { return __atomic_fetch_add(a, v, 5); } \
  BS_NOSAN T __tsan_atomic##n##_fetch_sub(volatile T* a, T v, int) { return __atomic_fetch_sub(a, v, 5); } \
  BS_NOSAN T __tsan_atomic##n##_fetch_and(volatile T* a, T v, int) { return __atomic_fetch_and(a, v, 5); } \
  BS_NOSAN T __tsan_atomic##n##_fetch_or(volatile T* a, T v, int) { return __atomic_fetch_or(a, v, 5); }   \
  BS_NOSAN T __tsan_atomic##n##_fetch_xor(volatile T* a, T v, int) { return __atomic_fetch_xor(a, v, 5); } \
  BS_NOSAN T __tsan_atomic##n##_fetch_nand(volatile T* a, T v, int) { return __atomic_fetch_nand(a, v, 5); } \
  BS_NOSAN int __tsan_atomic##n##_compare_exchange_strong(volatile T* a, T* c, T v, int, int) {   \
    return __atomic_compare_exchange_n(a, c, v, false, 5, 5);                                      \
  }                                                                                                \
  BS_NOSAN int __tsan_atomic##n##_compare_exchange_weak(volatile T* a, T* c, T v, int, int) {     \
    return __atomic_compare_exchange_n(a, c, v, true, 5, 5);                                       \
  }                                                                                                \
  BS_NOSAN T __tsan_atomic##n##_compare_exchange_val(volatile T* a, T c, T v, int, int) {         \
    __atomic_compare_exchange_n(a, &c, v, false, 5, 5);                                            \
    return c;                                                                                      \
  }
BS_ATOMICS(8, unsigned char) BS_ATOMICS(16, unsigned short) BS_ATOMICS(32, unsigned)
BS_ATOMICS(64, unsigned long long)
#undef BS_ATOMICS
#undef BS_NOSAN
)";

// The addr2line beside the compiler (binutils), else on PATH.
std::filesystem::path addr2line_for(const toolchain::HostCompiler& compiler) {
  std::error_code ec;
  if (auto beside = compiler.path.parent_path() / "addr2line"; std::filesystem::exists(beside, ec)) return beside;
  return toolchain::find_executable("addr2line");
}

}  // namespace

const char* interned(std::string_view s) {
  static std::mutex m;
  static std::set<std::string, std::less<>> pool;
  std::lock_guard lock(m);
  auto it = pool.find(s);
  if (it == pool.end()) it = pool.emplace(s).first;
  return it->c_str();
}

Result<RecordingObject> build_recording_object(const toolchain::HostCompiler& compiler, std::string_view unit_text,
                                               double time_limit_s) {
  RecordingObject o;
  o.addr2line = addr2line_for(compiler);
  if (o.addr2line.empty())
    return Status::failure(
        "recording shared-memory accesses needs addr2line (to name each access's line), which "
        "is not installed",
        "install binutils (Debian: apt install binutils)", "shared recording");
  // Compiled with the instrumentation, linked without its runtime (the hooks stand in for it): a
  // link with -fsanitize=thread would pull in libtsan, which cannot be loaded into a process that
  // did not start with it. DWARF 4: binutils 2.40's addr2line names some DWARF 5 line entries by
  // the unit's file, not the #line one.
  toolchain::TempFolderBuild spec;
  spec.what = "the recording build";
  spec.prefix = "blockscope-shared";
  spec.unit = std::string(unit_text) + kHooks;
  spec.optimisation = "-O1";
  spec.compile_flags = {"-gdwarf-4", "-fsanitize=thread"};
  spec.link_flags = {"-Wl,-z,defs"};
  spec.library = "recording.so";
  spec.failure_note = " (-fsanitize=thread, for its shared-memory accesses)";
  spec.failure_hint = "this needs GCC 8+ or Clang 9+";
  spec.failure_code = "shared_recording_build";
  auto built = toolchain::build_in_temp_folder(compiler, spec, time_limit_s);
  if (!built) return built.status();
  o.dir = built->dir;
  o.library = o.dir / "recording.so";
  o.compiler = compiler.name + " -O1 -fsanitize=thread, without its runtime (" + compiler.version + ")";
  return o;
}

void remove_recording_object(const RecordingObject& object) { toolchain::remove_folder(object.dir); }

Result<std::map<unsigned long long, SourceLine>> lines_of_pcs(const RecordingObject& object,
                                                              const std::vector<unsigned long long>& pcs,
                                                              double time_limit_s) {
  std::map<unsigned long long, SourceLine> out;
  if (pcs.empty()) return out;
  std::vector<std::string> argv = {object.addr2line.string(), "-e", object.library.string()};
  for (unsigned long long pc : pcs) {
    char hex[32];
    std::snprintf(hex, sizeof hex, "0x%llx", pc);
    argv.push_back(hex);
  }
  auto r = toolchain::run_command(argv, time_limit_s, {});
  if (!r) return r.status();
  if (r->timed_out || !r->exit.exited || r->exit.code != 0)
    return Status::failure("addr2line could not read the recording build: " + r->output.substr(0, 1000), "",
                           "addr2line", "shared_recording");
  // One line per address: "/tmp/.../kernel.cu:12" or "kernel.cu:12 (discriminator 3)" or "??:0".
  std::istringstream in(r->output);
  std::string line;
  std::size_t i = 0;
  while (std::getline(in, line) && i < pcs.size()) {
    SourceLine s;
    if (const auto paren = line.find(" ("); paren != std::string::npos) line.resize(paren);
    if (const auto colon = line.rfind(':'); colon != std::string::npos) {
      s.file = line.substr(0, colon);
      s.line = static_cast<unsigned>(std::strtoul(line.c_str() + colon + 1, nullptr, 10));
    }
    if (const auto slash = s.file.find_last_of('/'); slash != std::string::npos) s.file = s.file.substr(slash + 1);
    out[pcs[i++]] = s;
  }
  return out;
}

}  // namespace bs::custom
