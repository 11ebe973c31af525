// X protocol errors caused by other clients must not end the app (platform/x11_errors.hpp):
// with a real GLFW window (under xvfb-run), an X request that fails with BadWindow is survived
// and reported through take_platform_warnings(); when something puts Xlib's default handler
// back (which would exit), poll_events() re-installs the reporter; closing the window restores
// the handler that was there before. A failure here shows as this test process exiting with
// Xlib's "X Error of failed request" instead of a gtest report.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "platform/window.hpp"  // before Xlib: its macros (Status, None) must not reach bs names
#include "skips.hpp"

#include <X11/Xlib.h>

// GLFW's X connection. Declared here rather than through <GLFW/glfw3native.h>, which with
// GLFW_EXPOSE_NATIVE_X11 also includes Xrandr's headers (a package blockscope does not need);
// the app itself never calls it (the handler gets the Display from Xlib).
extern "C" Display* glfwGetX11Display(void);

namespace {

bool has_display() {
  const char* d = std::getenv("DISPLAY");
  return d && *d;
}

// Sends a ClientMessage to a window that does not exist, on GLFW's own connection, and waits
// for the server's answer: exactly what GLFW does when it answers a drag source that quit.
void provoke_bad_window(Display* display) {
  XEvent ev{};
  ev.xclient.type = ClientMessage;
  ev.xclient.window = 0x7ffffff0;  // far above any XID handed out in a test run
  ev.xclient.message_type = XInternAtom(display, "XdndStatus", False);
  ev.xclient.format = 32;
  XSendEvent(display, 0x7ffffff0, False, NoEventMask, &ev);
  XSync(display, False);  // the error arrives and is handled here
}

int probe_handler(Display*, XErrorEvent*) { return 0; }

std::string joined(const std::vector<std::string>& lines) {
  std::string all;
  for (const auto& l : lines) all += l + "\n";
  return all;
}

TEST(X11Errors, ABadWindowFromAnotherClientIsSurvivedAndReported) {
  if (!has_display()) BS_SKIP_NO_GL() << "no DISPLAY (run under xvfb-run to test the X error handler)";
  // What was installed before the window: put back when the window closes.
  XSetErrorHandler(&probe_handler);
  {
    auto window = bs::make_glfw_window(200, 120, "blockscope x11 errors test");
    ASSERT_TRUE(window.ok()) << window.status().describe();
    Display* display = glfwGetX11Display();
    ASSERT_NE(display, nullptr);
    EXPECT_TRUE((*window)->take_platform_warnings().empty());

    provoke_bad_window(display);
    auto lines = (*window)->take_platform_warnings();
    ASSERT_EQ(lines.size(), 1u) << joined(lines);
    EXPECT_NE(lines[0].find("BadWindow"), std::string::npos) << lines[0];
    EXPECT_NE(lines[0].find("X_SendEvent"), std::string::npos) << lines[0];
    EXPECT_NE(lines[0].find("0x7ffffff0"), std::string::npos) << lines[0];
    EXPECT_TRUE((*window)->take_platform_warnings().empty()) << "taken once";

    // Something puts Xlib's default handler back (it would exit on the next error); the next
    // poll re-installs the reporter.
    XSetErrorHandler(nullptr);
    (*window)->poll_events();
    provoke_bad_window(display);
    lines = (*window)->take_platform_warnings();
    ASSERT_EQ(lines.size(), 1u) << joined(lines);

    // A flood is bounded: 32 lines kept between takes, then one line counting the rest.
    for (int i = 0; i < 100; ++i) provoke_bad_window(display);
    lines = (*window)->take_platform_warnings();
    ASSERT_EQ(lines.size(), 33u);
    EXPECT_NE(lines.back().find("68 more"), std::string::npos) << lines.back();
  }
  // The window is gone: the handler found before it is back.
  EXPECT_EQ(XSetErrorHandler(nullptr), &probe_handler);
}

}  // namespace
