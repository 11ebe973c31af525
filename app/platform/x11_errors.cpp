#include "platform/x11_errors.hpp"

#include <X11/Xlib.h>

#include <cstdio>
#include <mutex>

namespace bs::x11 {
namespace {

constexpr std::size_t kKeptReports = 32;  // between two take_reports() calls
constexpr std::size_t kPrinted = 20;      // to stderr, per reporter

// The one static store Xlib's pointer-less handler can reach (see the header).
struct Store {
  std::mutex mutex;
  bool active = false;
  XErrorHandler previous = nullptr;
  std::vector<std::string> reports;
  std::size_t unreported = 0;  // errors past kKeptReports since the last take
  std::size_t survived = 0;
};

Store& store() {
  static Store s;
  return s;
}

// "BadWindow (invalid Window parameter)", "X_SendEvent": the texts Xlib's own handler prints,
// from the same calls (both are safe inside an error handler: no protocol requests).
std::string describe(Display* display, const XErrorEvent& e) {
  char error_text[256] = "";
  XGetErrorText(display, e.error_code, error_text, sizeof error_text);
  std::string request;
  if (e.request_code < 128) {
    char number[16];
    std::snprintf(number, sizeof number, "%d", e.request_code);
    char name[128] = "";
    XGetErrorDatabaseText(display, "XRequest", number, "", name, sizeof name);
    request = *name ? name : std::string("request ") + number;
  } else {
    request = "extension request " + std::to_string(e.request_code) + "." + std::to_string(e.minor_code);
  }
  char resource[32];
  std::snprintf(resource, sizeof resource, "0x%lx", e.resourceid);
  std::string line = std::string("The X server reported ") + (*error_text ? error_text : "an error") + " for " +
                     request + " (resource " + resource + "); blockscope carried on";
  if (e.error_code == BadWindow)
    line += ". A window it was talking to no longer exists, such as a drag source that quit mid-drag";
  return line;
}

int on_protocol_error(Display* display, XErrorEvent* event) {
  const std::string line = describe(display, *event);
  Store& s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  ++s.survived;
  if (s.survived <= kPrinted) std::fprintf(stderr, "blockscope: %s\n", line.c_str());
  else if (s.survived == kPrinted + 1)
    std::fprintf(stderr, "blockscope: further X errors go to the message log only\n");
  if (s.reports.size() < kKeptReports) s.reports.push_back(line);
  else ++s.unreported;
  return 0;  // Xlib ignores the value; returning is what survives the error
}

}  // namespace

// Xlib is called outside the store's mutex: the handler takes that mutex, and Xlib may hold its
// own locks while it runs the handler.
std::unique_ptr<ProtocolErrorReporter> ProtocolErrorReporter::install() {
  Store& s = store();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.active) return nullptr;
    s.active = true;
    s.reports.clear();
    s.unreported = 0;
    s.survived = 0;
  }
  const XErrorHandler previous = XSetErrorHandler(&on_protocol_error);
  std::lock_guard<std::mutex> lock(s.mutex);
  s.previous = previous;
  return std::unique_ptr<ProtocolErrorReporter>(new ProtocolErrorReporter());
}

ProtocolErrorReporter::~ProtocolErrorReporter() {
  Store& s = store();
  XErrorHandler previous = nullptr;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    previous = s.previous;
  }
  XSetErrorHandler(previous);  // Xlib's default again when that is what we found
  std::lock_guard<std::mutex> lock(s.mutex);
  s.previous = nullptr;
  s.active = false;
}

bool ProtocolErrorReporter::ensure_installed() {
  // XSetErrorHandler returns the handler it replaces: ours, unless something swapped it out.
  return XSetErrorHandler(&on_protocol_error) != &on_protocol_error;
}

std::vector<std::string> ProtocolErrorReporter::take_reports() {
  Store& s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  std::vector<std::string> out;
  out.swap(s.reports);
  if (s.unreported > 0) {
    out.push_back("... and " + std::to_string(s.unreported) +
                  " more X errors, each survived (the first ones are printed on stderr)");
    s.unreported = 0;
  }
  return out;
}

std::size_t ProtocolErrorReporter::survived() const {
  Store& s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.survived;
}

}  // namespace bs::x11
