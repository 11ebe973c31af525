// X protocol errors that must not end the app.
//
// Xlib sends every protocol error (BadWindow, BadAtom, BadMatch...) to one process-wide handler,
// and its default handler prints the error and calls exit(1). Other clients on the display can
// cause such errors at will: a drag source that crashes or closes mid-drag leaves GLFW replying
// to a window that no longer exists (XdndStatus or XdndFinished through XSendEvent), and a
// hostile one can name a bogus window in XdndEnter (GLFW reads its type list with
// XGetWindowProperty). With the default handler each of these kills blockscope and the user's
// work with it.
//
// While a ProtocolErrorReporter lives, protocol errors are recorded, printed to stderr (the
// first few, as Xlib would) and survived; take_reports() hands them to the app, which shows them
// in its message log. Fatal I/O errors (the X server went away) keep Xlib's default path: there
// is no display left to carry on with, and XSetIOErrorHandler is not touched.
//
// GLFW swaps in its own handler around some calls (_glfwGrabErrorHandlerX11) and puts the
// previous one back afterwards (3.3.8 restores what it found), so ours normally survives; but
// any library may set another, or Xlib's default, at any time. ensure_installed() puts ours
// back, and the window calls it before it processes events.
//
// Xlib's handler takes no user pointer, so what it records (and the handler found at install)
// lives in x11_errors.cpp's one static store, behind a mutex. One reporter at a time: install()
// returns nullptr while another lives (blockscope has one window). This header stays free of
// Xlib, whose macros (Status, None, Bool) would collide with blockscope's names.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace bs::x11 {

class ProtocolErrorReporter {
 public:
  // Installs the handler; the destructor puts back the one that was there before.
  static std::unique_ptr<ProtocolErrorReporter> install();
  ~ProtocolErrorReporter();
  ProtocolErrorReporter(const ProtocolErrorReporter&) = delete;
  ProtocolErrorReporter& operator=(const ProtocolErrorReporter&) = delete;

  // Re-installs the handler if something replaced it since; true when it had to.
  bool ensure_installed();

  // One line per error survived since the last call, oldest first, e.g. "The X server reported
  // BadWindow (invalid Window parameter) for X_SendEvent on window 0x600001 and blockscope
  // carried on (a window that closed mid-drag, e.g. a drag source that quit?)". At most 32 are
  // kept between calls; a last line counts the rest.
  std::vector<std::string> take_reports();

  // Errors survived since install().
  std::size_t survived() const;

 private:
  ProtocolErrorReporter() = default;
};

}  // namespace bs::x11
