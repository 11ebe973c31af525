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

// Encoding (the runner and the parent both use these).
inline std::string encode(const Info& m) {
  Writer w;
  w.pod(m.head).str(m.cuda_message).str(m.device_name).str(m.nvrtc_message);
  return w.bytes();
}
inline bool decode(std::string_view b, Info& m) {
  Reader r(b);
  m.head = r.pod<InfoHead>();
  m.cuda_message = r.str();
  m.device_name = r.str();
  m.nvrtc_message = r.str();
  return r.ok();
}
inline std::string encode(const Compiled& m) {
  Writer w;
  w.pod(m.head).str(m.log).str(m.arch).str(m.image).str(m.load_message);
  return w.bytes();
}
inline bool decode(std::string_view b, Compiled& m) {
  Reader r(b);
  m.head = r.pod<CompiledHead>();
  m.log = r.str();
  m.arch = r.str();
  m.image = r.str();
  m.load_message = r.str();
  return r.ok();
}
inline std::string encode(const Loaded& m) {
  Writer w;
  w.pod(m.head).str(m.message);
  return w.bytes();
}
inline bool decode(std::string_view b, Loaded& m) {
  Reader r(b);
  m.head = r.pod<LoadedHead>();
  m.message = r.str();
  return r.ok();
}
inline std::string encode_ack(bool ok, std::string_view message) {
  Writer w;
  w.pod(AckHead{ok ? 1u : 0u}).str(message);
  return w.bytes();
}
inline bool decode_ack(std::string_view b, bool& ok, std::string& message) {
  Reader r(b);
  ok = r.pod<AckHead>().ok != 0;
  message = r.str();
  return r.ok();
}
inline std::string encode(const Launched& m) {
  Writer w;
  w.pod(m.head).str(m.message).str(m.code).str(m.hint).str(m.clock).vec(m.trace).str(m.records);
  return w.bytes();
}
inline bool decode(std::string_view b, Launched& m) {
  Reader r(b);
  m.head = r.pod<LaunchedHead>();
  m.message = r.str();
  m.code = r.str();
  m.hint = r.str();
  m.clock = r.str();
  m.trace = r.vec<TraceRow>();
  m.records = r.str();
  return r.ok();
}

inline void put(Writer& w, const Status& s) {
  w.str(s.message).str(s.call).str(s.code).str(s.hint).pod(static_cast<std::uint8_t>(s.sticky));
}
inline Status get_status(Reader& r) {
  Status s;
  s.message = r.str();
  s.call = r.str();
  s.code = r.str();
  s.hint = r.str();
  s.sticky = r.pod<std::uint8_t>() != 0;
  return s;
}
inline void put(Writer& w, const std::vector<StallSamples>& stalls) {
  w.pod(static_cast<std::uint64_t>(stalls.size()));
  for (const StallSamples& s : stalls) w.str(s.reason).pod(s.samples);
}
inline std::vector<StallSamples> get_stalls(Reader& r) {
  std::vector<StallSamples> v;
  const auto n = r.pod<std::uint64_t>();
  for (std::uint64_t i = 0; r.ok() && i < n; ++i) {
    StallSamples s;
    s.reason = r.str();
    s.samples = r.pod<long long>();
    v.push_back(std::move(s));
  }
  return v;
}
inline std::string encode(const Lines& m) {
  Writer w;
  const LineProfile& p = m.profile;
  w.pod(m.head).pod(p.measure).str(p.measure_note);
  put(w, p.status);
  put(w, p.lines_status);
  w.str(p.kernel).str(p.function).str(p.device);
  w.pod(p.sampling_period).pod(p.total_samples).pod(p.dropped_samples).pod(p.launches).pod(p.profile_ms);
  w.pod(static_cast<std::uint64_t>(p.instructions.size()));
  for (const InstructionSamples& i : p.instructions) {
    w.pod(i.pc_offset).str(i.file).pod(i.line).pod(i.samples).pod(i.sass);
    put(w, i.stalls);
  }
  w.pod(static_cast<std::uint64_t>(p.lines.size()));
  for (const LineSamples& l : p.lines) {
    w.str(l.file).pod(l.line).pod(l.samples).pod(l.share_pct).pod(l.sass);
    put(w, l.stalls);
  }
  put(w, p.sass_status);
  w.pod(static_cast<std::uint8_t>(p.sass_has_threads)).pod(static_cast<std::uint8_t>(p.sass_has_shared));
  w.pod(p.sass_total).pod(p.sass_ms);
  return w.bytes();
}
inline bool decode(std::string_view b, Lines& m) {
  Reader r(b);
  LineProfile& p = m.profile;
  m.head = r.pod<LinesHead>();
  p.measure = r.pod<LineMeasure>();
  p.measure_note = r.str();
  p.status = get_status(r);
  p.lines_status = get_status(r);
  p.kernel = r.str();
  p.function = r.str();
  p.device = r.str();
  p.sampling_period = r.pod<int>();
  p.total_samples = r.pod<long long>();
  p.dropped_samples = r.pod<long long>();
  p.launches = r.pod<long long>();
  p.profile_ms = r.pod<double>();
  const auto ni = r.pod<std::uint64_t>();
  for (std::uint64_t k = 0; r.ok() && k < ni; ++k) {
    InstructionSamples i;
    i.pc_offset = r.pod<unsigned long long>();
    i.file = r.str();
    i.line = r.pod<int>();
    i.samples = r.pod<long long>();
    i.sass = r.pod<SassCounts>();
    i.stalls = get_stalls(r);
    p.instructions.push_back(std::move(i));
  }
  const auto nl = r.pod<std::uint64_t>();
  for (std::uint64_t k = 0; r.ok() && k < nl; ++k) {
    LineSamples l;
    l.file = r.str();
    l.line = r.pod<int>();
    l.samples = r.pod<long long>();
    l.share_pct = r.pod<double>();
    l.sass = r.pod<SassCounts>();
    l.stalls = get_stalls(r);
    p.lines.push_back(std::move(l));
  }
  p.sass_status = get_status(r);
  p.sass_has_threads = r.pod<std::uint8_t>() != 0;
  p.sass_has_shared = r.pod<std::uint8_t>() != 0;
  p.sass_total = r.pod<SassCounts>();
  p.sass_ms = r.pod<double>();
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
inline std::string encode(const SharedRecorded& m) {
  Writer w;
  w.pod(m.head).str(m.message).str(m.hint).pod(static_cast<std::uint64_t>(m.variable_names.size()));
  for (const std::string& n : m.variable_names) w.str(n);
  w.vec(m.variables).vec(m.accesses);
  return w.bytes();
}
inline bool decode(std::string_view b, SharedRecorded& m) {
  Reader r(b);
  m.head = r.pod<SharedRecordedHead>();
  m.message = r.str();
  m.hint = r.str();
  const auto n = r.pod<std::uint64_t>();
  for (std::uint64_t i = 0; r.ok() && i < n && i < 4096; ++i) m.variable_names.push_back(r.str());
  m.variables = r.vec<SharedVariableRow>();
  m.accesses = r.vec<SharedAccessRow>();
  return r.ok() && m.variables.size() == m.variable_names.size();
}

}  // namespace bs::custom::wire
