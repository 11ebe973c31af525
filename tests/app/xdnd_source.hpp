// A drag source that speaks XDND (version 5, https://www.freedesktop.org/wiki/Specifications/XDND/)
// the way a file manager does, written with Xlib for the tests: it drops file URIs on a real
// window through the X server, so the whole path a user's drop takes (GLFW's XDND code, the
// selection transfer, the drop callback, the loader) is exercised, not a shortcut into the app.
//
//   std::string why;
//   auto source = bs::test::xdnd::Source::open(&why);           // its own X connection
//   unsigned long target = source->find_window("blockscope", pid);
//   auto outcome = source->drop(target, uri_list({file_uri(path)}), 5s);
//   ASSERT_TRUE(outcome.ok()) << outcome.error;
//
// One drop, step by step: a real server timestamp (a property change on the source window,
// read back from its PropertyNotify); XdndSelection owned at that time; XdndEnter offering
// text/uri-list; XdndPosition over the middle of the target; wait for XdndStatus; XdndDrop with
// the same time (GLFW requests the data with the XdndDrop time); answer the SelectionRequest
// with the URI list; wait for XdndFinished. Every wait has a deadline, so a target that dies or
// hangs fails the test instead of hanging it.
//
// For the drag source that goes away mid-drag there are the separate steps begin(), send_drop()
// and vanish() (destroy the source window and close the connection, as a crashing source does).
//
// XdndSelection is one per display, so one drag at a time per display: tests that drop run
// serially (ctest RESOURCE_LOCK), and a source that loses the selection says so.
//
// XIDs are unsigned long here so that including this header does not pull in Xlib's macros
// (Status, None, Bool...) next to blockscope's own names.
#pragma once
#include <sys/types.h>  // pid_t

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace bs::test::xdnd {

// What the target did during one drop.
struct DropOutcome {
  bool got_status = false;         // XdndStatus arrived after XdndPosition
  bool accepted = false;           // its accept bit (data.l[1] & 1)
  bool copy_action = false;        // it chose XdndActionCopy (data.l[4])
  bool data_requested = false;     // it asked for text/uri-list and got the list
  unsigned long drop_time = 0;     // the server time owned with and sent in XdndDrop
  unsigned long request_time = 0;  // the time in its SelectionRequest (GLFW: the XdndDrop time)
  std::size_t bytes_sent = 0;      // the URI list's length
  bool finished = false;           // XdndFinished arrived
  long finished_success = 0;       // its data.l[1]: 1 by the spec, the byte count from GLFW 3.3.8
  bool lost_selection = false;     // another client took XdndSelection meanwhile (a second drag)
  std::string error;               // empty when the drop went through; else which step failed

  bool ok() const { return error.empty(); }
};

// file:// URI of an absolute path, percent-encoding every byte outside RFC 3986's unreserved
// set and '/' (so UTF-8 names travel as %C3%A9...), as file managers send them.
std::string file_uri(const std::filesystem::path& path);

// A text/uri-list: each URI followed by CRLF (RFC 2483).
std::string uri_list(const std::vector<std::string>& uris);

class Source {
 public:
  // Connects to $DISPLAY and creates an unmapped source window; nullptr with *why on failure.
  static std::unique_ptr<Source> open(std::string* why);
  ~Source();
  Source(const Source&) = delete;
  Source& operator=(const Source&) = delete;

  // The top-level window titled `title` whose _NET_WM_PID is `pid` (so parallel tests on one
  // display each find their own app), or 0.
  unsigned long find_window(const std::string& title, pid_t pid);

  // The XDND version the target announces in XdndAware, 0 when it does not.
  int xdnd_version(unsigned long target);

  // Drops `uri_list_bytes` on `target`: the whole protocol, each wait bounded by `step_timeout`.
  DropOutcome drop(unsigned long target, const std::string& uri_list_bytes, std::chrono::milliseconds step_timeout);

  // The first half of a drag, for a source that will not see it through: takes a server time,
  // owns XdndSelection, sends XdndEnter and XdndPosition, and does not wait for anything.
  bool begin(unsigned long target, std::string* why);
  // Waits up to `timeout` for the target's XdndStatus (false: none came).
  bool wait_for_status(std::chrono::milliseconds timeout);
  void send_drop(unsigned long target);
  // Destroys the source window and closes the connection, as a source that crashes or times out
  // does. Idempotent; the destructor calls it.
  void vanish();

  // A hostile peer: any 32-bit ClientMessage (type by atom name) sent to `target`.
  void send_client_message(unsigned long target, const std::string& type, const long (&data)[5]);

  // Asks the target to close as a window manager's close button does (WM_DELETE_WINDOW).
  void request_close(unsigned long target);
  // Presses and releases one key in `target` (an X keysym name such as "F1", "Escape", "o"),
  // with Control and/or Shift held, as synthetic KeyPress/KeyRelease events: what a user's
  // keyboard sends, without needing the input focus (tests/app/test_window_input.cpp).
  bool send_key(unsigned long target, const std::string& keysym, bool ctrl = false, bool shift = false);
  // A left click at (x, y) in `target`: the pointer moves there (apps read its position), then
  // a synthetic press and release.
  bool click(unsigned long target, int x, int y);
  void move_pointer(unsigned long target, int x, int y);

  // What the X server shows of `target` (its area of the root window, so whatever is on top is
  // included), as RGBA8, top row first; empty if it cannot be read.
  std::vector<unsigned char> capture_rgba(unsigned long target, int* width, int* height);

  // X protocol errors this source's connection met (e.g. sending to a window that closed).
  std::size_t x_errors() const;

 private:
  struct Impl;
  explicit Source(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace bs::test::xdnd
