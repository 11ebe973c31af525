// The messages of protocol.hpp, field by field. Each has a trivially copyable head (sent as one
// POD, so both sides agree by construction: the parent and the runner are built from this
// header together) and its strings and arrays after it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/line_profile.hpp"
#include "labs/custom/protocol.hpp"

namespace bs::custom::wire {

enum class Backend : std::uint32_t { Cpu = 0, Gpu = 1 };

struct InfoHead {
  std::uint32_t protocol_version = kProtocolVersion;  // first, always: see protocol.hpp
  Backend backend = Backend::Cpu;
  std::uint32_t cuda_ok = 0;  // GPU runner: a device and a context
  std::int32_t cc_major = 0, cc_minor = 0;
  std::uint32_t sm_count = 0;
  std::uint32_t max_threads_per_block = 1024;
  std::uint32_t max_block[3] = {1024, 1024, 64};
  std::uint32_t max_grid[3] = {2147483647u, 65535u, 65535u};
  std::uint64_t shared_per_block = 48 * 1024, shared_per_block_optin = 48 * 1024;
  std::uint64_t shared_per_sm = 64 * 1024, reserved_shared_per_block = 0;
  std::uint32_t regs_per_block = 65536, regs_per_sm = 65536;
  std::uint32_t max_threads_per_sm = 1024, max_blocks_per_sm = 16, warp_size = 32;
  std::uint64_t l2_bytes = 0, total_global_bytes = 0;
  double clock_khz = 0, memory_clock_khz = 0;
  std::int32_t memory_bus_bits = 0;
  std::uint32_t nvrtc_ok = 0;
  std::int32_t nvrtc_major = 0, nvrtc_minor = 0;
  std::int32_t runtime_version = 0, driver_version = 0;
  std::uint32_t hw_threads = 1;
  double init_ms = 0;  // how long the runner took to get ready (CUDA context, NVRTC)
};
struct Info {
  InfoHead head;
  std::string cuda_message;  // why the GPU is not usable
  std::string device_name;
  std::string nvrtc_message;  // why NVRTC is not usable, or which library was loaded
};

struct Attr {  // cudaFuncGetAttributes of one entry
  std::uint32_t registers = 0, max_threads_per_block = 0;
  std::uint64_t static_shared = 0, local_bytes = 0, const_bytes = 0;
  std::int32_t ptx_version = 0, binary_version = 0;
  std::uint32_t valid = 0;
};

struct CompiledHead {
  std::uint32_t ok = 0;      // NVRTC compiled it
  std::uint32_t is_ptx = 0;  // the image is PTX (NVRTC does not know the device's architecture)
  std::uint32_t loaded = 0;  // and it was loaded, entries found
  double compile_ms = 0, load_ms = 0;
  Attr plain, traced;
};
struct Compiled {
  CompiledHead head;
  std::string log;           // NVRTC's log (warnings even on success)
  std::string arch;          // "sm_90" or "compute_90 (PTX, JIT-compiled by the driver)"
  std::string image;         // the cubin or PTX, kept by the parent to reload after a restart
  std::string load_message;  // why loading failed
};

struct LoadedHead {
  std::uint32_t ok = 0;
  double load_ms = 0;
  Attr plain, traced;
  std::uint64_t tls_bytes = 0;  // CPU: the unit's thread-local block (__shared__ variables)
};
struct Loaded {
  LoadedHead head;
  std::string message;
};

struct BufferDesc {
  std::uint32_t in_output_region = 0;  // 0: the problem's input memfd; 1: the kernel's output memfd
  std::uint64_t offset = 0;            // bytes into that region
  std::int64_t count = 0;              // elements
  std::uint32_t elem_size = 1;
  std::uint32_t is_output = 0;
  std::uint8_t fill = 0;            // outputs: the byte every element starts from
  std::uint32_t has_owners = 0;     // outputs: owners[count] (u32) at owners_offset
  std::uint64_t owners_offset = 0;  // bytes into the output region
};
struct SetProblemHead {
  std::uint32_t nbuffers = 0;
  BufferDesc buffers[4];
  std::uint32_t nints = 0;
  std::int32_t ints[4] = {};
  std::uint64_t input_bytes = 0, output_bytes = 0;  // region sizes (the two memfds passed along)
};

struct AckHead {
  std::uint32_t ok = 0;
};

// One launch. Every launch starts from fresh outputs (each filled with its fill byte). A timed
// launch runs the plain entry and measures it alone (GPU: CUDA events around it; CPU: the
// simulator's steady_clock); the observing one is untimed and records what the timed ones must
// not pay for: the schedule (GPU: the traced entry; CPU: the simulator's) and the owners (CPU).
struct LaunchHead {
  std::uint32_t grid[3] = {1, 1, 1};
  std::uint32_t block[3] = {1, 1, 1};
  std::uint32_t observe = 0;        // 0: timed; 1: untimed, records the schedule and owners
  std::uint32_t trace = 0;          // observe: the schedule
  std::uint32_t record_owners = 0;  // observe, CPU: fill the owners arrays
  std::uint32_t workers = 0;        // CPU: simulator workers (0: all)
  std::uint32_t record_bytes = 0;   // GPU: sizeof(trace::DeviceBlockRecord), one per block
};

struct OutOfBounds {
  std::uint32_t valid = 0;
  std::int32_t buffer = -1;  // pointer argument index
  std::int64_t index = 0, count = 0;
  std::int32_t access = 0;  // BS_ACCESS_* of custom_abi.h
  std::uint32_t block[3] = {}, thread[3] = {};
};

struct TraceRow {  // CPU: one BlockTrace (GPU records travel as raw bytes, Launched::records)
  std::uint64_t start_ns = 0, end_ns = 0;
  std::uint32_t unit = 0, writes = 0;
  std::uint32_t block[3] = {};
};

struct LaunchedHead {
  std::uint32_t ok = 0;
  std::uint32_t fatal = 0;  // the runner cannot be used again (a GPU fault poisons its context)
  std::uint32_t workers_used = 0;
  std::uint32_t trace_kind = 0;  // 0 none, 1 CPU schedule (trace), 2 GPU records (records)
  double ms = 0;                 // a timed launch: its time
  OutOfBounds oob;
};
struct Launched {
  LaunchedHead head;
  std::string message, code, hint;
  std::string clock;  // "CUDA events" / "steady_clock, CPU simulation (2 workers)"
  std::vector<TraceRow> trace;
  std::string records;  // GPU: the traced entry's records as the device wrote them
};

// Samples of the loaded kernel per source line (GPU: CUPTI PC sampling of timed-entry launches,
// each on fresh outputs, as many as `sampling` asks for).
struct SampleLinesHead {
  LaunchHead launch;
  std::int32_t period = 0;
  std::int64_t min_samples = 20000;
  std::int32_t max_launches = 32;
  double max_seconds = 1.0;
};
struct LinesHead {
  std::uint32_t fatal = 0;  // a launch faulted: the runner's context is gone (it exits)
};
struct Lines {
  LinesHead head;
  LineProfile profile;  // profile.status: why there are none
};

// Encoding (the runner and the parent both use these): each message's fields, listed once.
void fields(auto& io, Of<Info> auto& m) { io(m.head, m.cuda_message, m.device_name, m.nvrtc_message); }
void fields(auto& io, Of<Compiled> auto& m) { io(m.head, m.log, m.arch, m.image, m.load_message); }
void fields(auto& io, Of<Loaded> auto& m) { io(m.head, m.message); }
void fields(auto& io, Of<Launched> auto& m) { io(m.head, m.message, m.code, m.hint, m.clock, m.trace, m.records); }
void fields(auto& io, Of<Status> auto& s) { io(s.message, s.call, s.code, s.hint, s.sticky); }
void fields(auto& io, Of<StallSamples> auto& s) { io(s.reason, s.samples); }
void fields(auto& io, Of<InstructionSamples> auto& i) { io(i.pc_offset, i.file, i.line, i.samples, i.sass, i.stalls); }
void fields(auto& io, Of<LineSamples> auto& l) { io(l.file, l.line, l.samples, l.share_pct, l.sass, l.stalls); }
void fields(auto& io, Of<LineProfile> auto& p) {
  io(p.measure, p.measure_note, p.status, p.lines_status, p.kernel, p.function, p.device, p.sampling_period);
  io(p.total_samples, p.dropped_samples, p.launches, p.profile_ms, p.instructions, p.lines, p.sass_status);
  io(p.sass_has_threads, p.sass_has_shared, p.sass_total, p.sass_ms);
}
void fields(auto& io, Of<Lines> auto& m) { io(m.head, m.profile); }

template <class M>
std::string encode(const M& m) {
  return Writer{}(m).bytes();
}
template <class M>
bool decode(std::string_view b, M& m) {
  Reader r(b);
  return r(m).ok();
}
inline std::string encode_ack(bool ok, std::string_view message) {
  return Writer{}(AckHead{ok ? 1u : 0u}, message).bytes();
}
inline bool decode_ack(std::string_view b, bool& ok, std::string& message) {
  Reader r(b);
  AckHead head;
  r(head, message);
  ok = head.ok != 0;
  return r.ok();
}

// One warp's shared-memory accesses in one block (CPU: the kernel's recording build, see
// shared_recording.hpp). The runner runs that block alone and keeps, per lane, the accesses that
// fall in the block's __shared__ variables, in program order.
struct RecordSharedHead {
  LaunchHead launch;
  std::uint32_t block[3] = {0, 0, 0};
  std::uint32_t warp = 0;
  std::uint32_t max_per_lane = 4096;
};
struct SharedAccessRow {
  std::uint32_t lane = 0;
  std::uint32_t index = 0;  // the lane's count of shared accesses before this one
  std::int64_t offset = 0;  // bytes from the block's shared base (the runner's layout)
  std::uint32_t bytes = 4;
  std::uint32_t write = 0;
  std::uint64_t pc = 0;        // the access's address in the recording build, from its load base
  std::int32_t variable = -1;  // index into SharedRecorded::variables
  std::uint32_t pad = 0;
};
struct SharedVariableRow {
  std::int64_t offset = 0;  // where the runner laid it out (a 128-byte boundary each)
  std::int64_t bytes = 0;
};
struct SharedRecordedHead {
  std::uint32_t ok = 0;
  std::uint32_t truncated = 0;  // a lane made more than max_per_lane accesses
  std::uint32_t lanes = 0;      // lanes the warp has in this block
  std::uint32_t pad = 0;
};
struct SharedRecorded {
  SharedRecordedHead head;
  std::string message, hint;
  std::vector<std::string> variable_names;  // the user's names ("Ms")
  std::vector<SharedVariableRow> variables;
  std::vector<SharedAccessRow> accesses;
};
void fields(auto& io, Of<SharedRecorded> auto& m) {
  io(m.head, m.message, m.hint, m.variable_names, m.variables, m.accesses);
}
inline bool decode(std::string_view b, SharedRecorded& m) {
  return decode<SharedRecorded>(b, m) && m.variables.size() == m.variable_names.size();
}

}  // namespace bs::custom::wire
