// Shared-memory accesses of a user kernel on the CPU simulator, for the bank view (issue 20).
//
// The built-in rungs report their shared accesses through core/shared_access.hpp; a user's kernel
// indexes plain C arrays, so blockscope instruments it instead. Chosen mechanism: the kernel's
// unit is built once more with the compiler's thread-sanitizer instrumentation
// (-fsanitize=thread) but WITHOUT its runtime: the compiler then calls __tsan_read4(addr),
// __tsan_write8(addr), ... before every load and store the unit makes, and this build defines
// those functions itself (shared_recording.cpp appends them, uninstrumented). Each passes the
// address, the size, load or store, the caller's return address and the simulated thread to a
// hook the runner sets; the runner keeps the accesses that fall inside the block's __shared__
// variables (thread_local in the unit, so this worker's TLS block of it; their names, offsets and
// sizes come from the build's symbol table) made by the chosen warp. The pc becomes the user's
// line with addr2line (the build has -g; the user's source sits behind #line "kernel.cu").
//
// Why this and not rewriting `__shared__` declarations into a recording wrapper type: the
// compiler sees every access however it is written (As[ty][k], *(p + i), a pointer passed to a
// helper, float4 casts, compound assignment), nothing in the user's source changes meaning (a
// wrapper breaks `auto`, `&As[0][0]`, sizeof and passing to templates), and the line of each
// access comes from the debug info for free. Cost: -O1 with a call per access, fine for the one
// block it runs.
//
//   auto build = build_recording_object(compiler, unit_text, user_source, 60);  // once per kernel
//   ... the runner: RecordShared with build->library, block, warp ...
//   auto sites = lines_of_pcs(*build, pcs, 60);                                   // pc -> line
//
// Offsets: each __shared__ variable is placed at a 128-byte boundary, in the order the host
// compiler stored them. The GPU's placement may differ; that moves which bank a variable starts
// in, never a request's wavefronts when the request touches one variable (every request of the
// lecture's kernels does).
#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/shared_access.hpp"
#include "core/status.hpp"
#include "toolchain/host_compiler.hpp"

namespace bs::custom {

struct RecordingObject {
  std::filesystem::path dir;        // a folder of its own (removed by remove_recording_object)
  std::filesystem::path library;    // the recording build of the kernel
  std::filesystem::path addr2line;  // maps its pcs to lines
  std::string compiler;             // "g++ -O1 -fsanitize=thread (no runtime)"
};

Result<RecordingObject> build_recording_object(const toolchain::HostCompiler& compiler, std::string_view unit_text,
                                               double time_limit_s);
void remove_recording_object(const RecordingObject& object);

struct SourceLine {
  std::string file;  // "kernel.cu" for the user's lines
  unsigned line = 0;
};
// The source line of each pc (offsets from the build's load base), with one addr2line call.
Result<std::map<unsigned long long, SourceLine>> lines_of_pcs(const RecordingObject& object,
                                                              const std::vector<unsigned long long>& pcs,
                                                              double time_limit_s);

// A stable C string for a SharedSite (sites hold const char*; user kernels' names and files are
// made at run time). Interned for the process's life: a few short strings per kernel.
const char* interned(std::string_view s);

// What CustomKernel::record_shared gives: warp `warp` of block `block`, one request per i-th
// access of every lane (core/shared_access.hpp's group_requests), each with the user's line.
struct SharedRecordingResult {
  std::vector<SharedRequest> requests;
  std::vector<std::string> variables;  // "Ms at byte 0, 1024 bytes"
  bool truncated = false;
  unsigned lanes = 0;
  std::string note;  // how it was recorded, for the view
};

}  // namespace bs::custom
