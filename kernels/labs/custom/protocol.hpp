// The wire between blockscope and blockscope-kernel-runner: framed binary messages over a Unix
// stream socket, with a file descriptor passed alongside where shared memory travels.
//
//   frame = u32 magic 'BSKR', u32 type, u64 payload bytes, payload
//   payload = the message's fields in order (little-endian PODs, strings as u64 length + bytes)
//
// The parent asks, the runner answers; one request is one step: a compile, a load, one launch,
// one L2 flush. The runner has no loop of its own: the parent drives warm-up, repeats, flushes,
// the confidence target, the budget and cancel with lab::measure, one Launch at a time, so its
// time limit is per launch. Every read in the parent has a deadline, and every write uses
// MSG_NOSIGNAL, so a dead or hung runner is a Status, never a signal or a blocked UI.
//
// Versioned: Hello carries the parent's kProtocolVersion and Info the runner's, as the first
// field (runners from before versioning answer 0 or 1 there); the parent refuses a runner that
// speaks another version, naming both (a stale runner left next to a newer blockscope).
#pragma once
#include <chrono>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/status.hpp"
#include "toolchain/process.hpp"

namespace bs::custom {
// The clock of the wire's deadlines and of every time the engine and the runner measure.
using Clock = std::chrono::steady_clock;
}  // namespace bs::custom

namespace bs::custom::wire {

// 5: ProfileCounters (the range profiler's counters of one launch, counters_wire.hpp, issue 32);
// 4: RecordShared (one warp's shared-memory accesses, for the bank view); 3: SampleLines (stall samples per source line
// of the loaded kernel); 2: one launch per request (Launch, FlushL2, Fetch), the parent's timing policy; 1 and before:
// the runner's own repeat loop (Run).
inline constexpr std::uint32_t kProtocolVersion = 5;

enum class Msg : std::uint32_t {
  Hello = 1,   // parent: its protocol version -> Info
  Info,        // runner: its protocol version, backend, device, limits, NVRTC
  CompileGpu,  // parent: NVRTC this unit, load it -> Compiled
  Compiled,
  LoadGpu,  // parent: load this cubin/PTX -> Loaded
  LoadCpu,  // parent: dlopen this shared object -> Loaded
  Loaded,
  SetProblem,  // parent: buffers in the passed memfds -> Ack
  Ack,
  Launch,  // parent: one launch (timed, or the untimed one that records) -> Launched
  Launched,
  FlushL2,      // parent: overwrite the L2 before the next timed launch -> Ack (GPU)
  Fetch,        // parent: the outputs into the shared output memory -> Ack
  SampleLines,  // parent: sample launches per source line (GPU: CUPTI PC sampling) -> Lines
  Lines,
  RecordShared,  // parent: one block of the recording build, one warp's shared accesses -> SharedRecorded
  SharedRecorded,
  ProfileCounters,  // parent: one launch profiled by the range profiler (GPU) -> Counters
  Counters,
};

const char* to_string(Msg m);

// A message's fields are listed once, in `void fields(auto& io, Of<M> auto& m)` as
// `io(m.a, m.b, ...)`: a Writer appends them, a Reader reads them back into m in the same order.
// A field with `fields` of its own travels as those; a string (or what views as one) and a vector
// of PODs as u64 length + bytes; a vector of other structs as u64 count + each element; a bool as
// one byte; any other field must be trivially copyable and travels as its bytes.
template <class M, class T>
concept Of = std::same_as<std::remove_const_t<M>, T>;
template <class T>
inline constexpr bool kIsVector = false;
template <class T>
inline constexpr bool kIsVector<std::vector<T>> = true;

class Writer {
 public:
  template <class... T>
  Writer& operator()(const T&... vs) {
    (put(vs), ...);
    return *this;
  }
  template <class T>
  Writer& pod(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    const char* p = reinterpret_cast<const char*>(&v);
    buf_.append(p, sizeof(T));
    return *this;
  }
  Writer& str(std::string_view s) {
    pod(static_cast<std::uint64_t>(s.size()));
    buf_.append(s.data(), s.size());
    return *this;
  }
  template <class T>
  Writer& vec(const std::vector<T>& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    pod(static_cast<std::uint64_t>(v.size()));
    if (!v.empty()) buf_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
    return *this;
  }
  const std::string& bytes() const { return buf_; }

 private:
  template <class T>
  void put(const T& v) {
    if constexpr (requires { fields(*this, v); }) fields(*this, v);
    else if constexpr (std::is_convertible_v<const T&, std::string_view>) str(v);
    else if constexpr (std::is_same_v<T, bool>) pod(static_cast<std::uint8_t>(v));
    else if constexpr (kIsVector<T>) {
      if constexpr (std::is_trivially_copyable_v<typename T::value_type>) vec(v);
      else {
        pod(static_cast<std::uint64_t>(v.size()));
        for (const auto& e : v) put(e);
      }
    } else pod(v);
  }
  std::string buf_;
};

class Reader {
 public:
  explicit Reader(std::string_view b) : b_(b) {}
  template <class... T>
  Reader& operator()(T&... vs) {
    (get(vs), ...);
    return *this;
  }
  template <class T>
  T pod() {
    static_assert(std::is_trivially_copyable_v<T>);
    T v{};
    if (b_.size() < sizeof(T)) {
      ok_ = false;
      return v;
    }
    std::memcpy(&v, b_.data(), sizeof(T));
    b_.remove_prefix(sizeof(T));
    return v;
  }
  std::string str() {
    const auto n = pod<std::uint64_t>();
    if (!ok_ || n > b_.size()) {
      ok_ = false;
      return {};
    }
    std::string s(b_.substr(0, n));
    b_.remove_prefix(n);
    return s;
  }
  template <class T>
  std::vector<T> vec() {
    const auto n = pod<std::uint64_t>();
    if (!ok_ || n > b_.size() / sizeof(T)) {
      ok_ = false;
      return {};
    }
    std::vector<T> v(n);
    if (n) std::memcpy(v.data(), b_.data(), n * sizeof(T));
    b_.remove_prefix(n * sizeof(T));
    return v;
  }
  bool ok() const { return ok_; }

 private:
  template <class T>
  void get(T& v) {
    if constexpr (requires { fields(*this, v); }) fields(*this, v);
    else if constexpr (std::is_same_v<T, std::string>) v = str();
    else if constexpr (std::is_same_v<T, bool>) v = pod<std::uint8_t>() != 0;
    else if constexpr (kIsVector<T>) {
      if constexpr (std::is_trivially_copyable_v<typename T::value_type>) v = vec<typename T::value_type>();
      else
        for (std::uint64_t i = 0, n = pod<std::uint64_t>(); ok_ && i < n; ++i) get(v.emplace_back());
    } else v = pod<T>();
  }
  std::string_view b_;
  bool ok_ = true;
};

struct Frame {
  Msg type{};
  std::string payload;
  std::vector<int> fds;  // received descriptors (the receiver owns and closes them)
};

// Sends one frame (and up to 4 descriptors). Never raises SIGPIPE.
Status send(int socket, Msg type, const std::string& payload, const std::vector<int>& fds = {});

// Receives one frame. With a deadline, gives up then (Status code "timeout"); a closed socket is
// Status code "closed".
Result<Frame> receive(int socket, std::optional<Clock::time_point> deadline = std::nullopt);

}  // namespace bs::custom::wire
