// Errors as values. Every failure a user can cause or a device can report becomes a Status
// the UI shows (message, the call that failed, CUDA's error name, a hint); nothing in blockscope
// calls exit() or aborts on bad input.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace bs {

// Whose a device fault is: blockscope's own CUDA context, or a child process's (a user kernel's
// runner, labs/custom), which dies with its fault and leaves blockscope's context untouched.
enum class FaultOwner : unsigned char { App, Child };

struct Status {
  std::string message;  // what went wrong, in the user's terms; empty means success
  std::string call;     // the API call or stage that failed, e.g. "cudaMalloc"
  std::string code;     // the library's error name, e.g. "cudaErrorMemoryAllocation"
  std::string hint;     // what the user can do about it
  // Set where the error is made (cuda::to_status, the user-kernel runner), never read from
  // `code`: the context that reported it is unusable until its process ends, and whose it is.
  bool sticky = false;
  FaultOwner owner = FaultOwner::App;

  bool ok() const { return message.empty(); }
  // blockscope's own CUDA context is gone: stop using the device (the shell moves to the CPU).
  bool sticky_app_fault() const { return !ok() && sticky && owner == FaultOwner::App; }
  explicit operator bool() const { return ok(); }

  static Status success() { return {}; }
  static Status failure(std::string message, std::string hint = {}, std::string call = {}, std::string code = {}) {
    return Status{std::move(message), std::move(call), std::move(code), std::move(hint)};
  }

  // One line for logs and the status bar: "message [call: code] (hint)".
  std::string describe() const {
    if (ok()) return "ok";
    std::string s = message;
    if (!call.empty() || !code.empty()) {
      s += " [";
      s += call;
      if (!call.empty() && !code.empty()) s += ": ";
      s += code;
      s += "]";
    }
    if (!hint.empty()) s += " (" + hint + ")";
    return s;
  }
};

// A value or the Status saying why there is none.
template <class T>
class Result {
 public:
  Result(T value) : state_(std::move(value)) {}
  Result(Status error) : state_(std::move(error)) {}

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<T>(state_); }
  const T& value() const& { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  Status status() const { return ok() ? Status::success() : std::get<Status>(state_); }

 private:
  std::variant<T, Status> state_;
};

}  // namespace bs
