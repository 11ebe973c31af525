// The XDND drag source for the tests (see xdnd_source.hpp for the protocol it follows).
//
// Section index:
//   1. URIs
//   2. the connection: atoms, errors, waiting for events with a deadline
//   3. finding the target
//   4. the drop, and its halves for a source that vanishes
#include "xdnd_source.hpp"

#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>  // XGetPixel, XDestroyImage
#include <poll.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

namespace bs::test::xdnd {
namespace {

using Clock = std::chrono::steady_clock;

// ---------------------------------------------------------------------------------------------
// 1. URIs
// ---------------------------------------------------------------------------------------------

bool unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_' || c == '~' || c == '/';
}

// ---------------------------------------------------------------------------------------------
// 2. the connection
// ---------------------------------------------------------------------------------------------

// Xlib's error handler is one per process and takes no user pointer; the sources count their
// errors per connection here. The default handler would exit the test on the first BadWindow
// (a source must survive a target that closed, as the app must survive a source that did).
std::mutex g_errors_mutex;
std::map<Display*, std::size_t> g_errors;

int count_error(Display* display, XErrorEvent*) {
  std::lock_guard<std::mutex> lock(g_errors_mutex);
  ++g_errors[display];
  return 0;
}

}  // namespace

std::string file_uri(const std::filesystem::path& path) {
  static const char* hex = "0123456789ABCDEF";
  std::string uri = "file://";
  for (unsigned char c : path.string()) {
    if (unreserved(c)) {
      uri += static_cast<char>(c);
    } else {
      uri += '%';
      uri += hex[c >> 4];
      uri += hex[c & 15];
    }
  }
  return uri;
}

std::string uri_list(const std::vector<std::string>& uris) {
  std::string list;
  for (const auto& u : uris) list += u + "\r\n";
  return list;
}

struct Source::Impl {
  Display* display = nullptr;
  ::Window root = 0;
  ::Window window = 0;
  std::string uri_list;  // what the current drop offers

  Atom XdndAware, XdndSelection, XdndEnter, XdndPosition, XdndStatus, XdndLeave, XdndDrop, XdndFinished, XdndActionCopy,
      XdndTypeList, text_uri_list, TARGETS, NET_WM_PID, NET_WM_NAME, UTF8_STRING, timestamp_property;

  // Outcome of the drop under way, filled as events arrive.
  DropOutcome outcome;
  ::Window target = 0;
  Time owned_since = 0;  // when we took XdndSelection for the drop under way; 0: not owned

  Atom atom(const char* name) { return XInternAtom(display, name, False); }

  void intern_atoms() {
    XdndAware = atom("XdndAware");
    XdndSelection = atom("XdndSelection");
    XdndEnter = atom("XdndEnter");
    XdndPosition = atom("XdndPosition");
    XdndStatus = atom("XdndStatus");
    XdndLeave = atom("XdndLeave");
    XdndDrop = atom("XdndDrop");
    XdndFinished = atom("XdndFinished");
    XdndActionCopy = atom("XdndActionCopy");
    XdndTypeList = atom("XdndTypeList");
    text_uri_list = atom("text/uri-list");
    TARGETS = atom("TARGETS");
    NET_WM_PID = atom("_NET_WM_PID");
    NET_WM_NAME = atom("_NET_WM_NAME");
    UTF8_STRING = atom("UTF8_STRING");
    timestamp_property = atom("BLOCKSCOPE_TEST_XDND_TIMESTAMP");
  }

  // The next event, or nullopt once `deadline` passes. Selection requests are answered here,
  // whatever the caller waits for, since the target may ask for the data at any time.
  std::optional<XEvent> next_event(Clock::time_point deadline) {
    for (;;) {
      while (XPending(display) > 0) {
        XEvent ev;
        XNextEvent(display, &ev);
        if (ev.type == SelectionRequest) {
          answer(ev.xselectionrequest);
          continue;
        }
        if (ev.type == SelectionClear && ev.xselectionclear.selection == XdndSelection) {
          // Another client took XdndSelection (another drag on this display): the target's data
          // request would now go to it. Say so rather than time out mysteriously. The clear our
          // own disowning after the previous drop causes carries that drop's older time.
          if (owned_since != 0 && ev.xselectionclear.time >= owned_since) outcome.lost_selection = true;
          continue;
        }
        return ev;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) return std::nullopt;
      pollfd fd{ConnectionNumber(display), POLLIN, 0};
      ::poll(&fd, 1, static_cast<int>(left.count()));
    }
  }

  // A ClientMessage of `type` addressed to the source window, or nullopt at the deadline.
  std::optional<XClientMessageEvent> wait_client_message(Atom type, Clock::time_point deadline) {
    while (auto ev = next_event(deadline)) {
      if (ev->type == ClientMessage && ev->xclient.message_type == type && ev->xclient.window == window)
        return ev->xclient;
    }
    return std::nullopt;
  }

  // A real server time: change a property on our own window and read the time from the
  // PropertyNotify. CurrentTime will not do: selection owners and requestors compare times.
  std::optional<Time> server_time(Clock::time_point deadline) {
    XChangeProperty(display, window, timestamp_property, XA_STRING, 8, PropModeAppend, nullptr, 0);
    XFlush(display);
    while (auto ev = next_event(deadline)) {
      if (ev->type == PropertyNotify && ev->xproperty.window == window && ev->xproperty.atom == timestamp_property)
        return ev->xproperty.time;
    }
    return std::nullopt;
  }

  void answer(const XSelectionRequestEvent& req) {
    XSelectionEvent reply{};
    reply.type = SelectionNotify;
    reply.display = display;
    reply.requestor = req.requestor;
    reply.selection = req.selection;
    reply.target = req.target;
    reply.time = req.time;
    // ICCCM: a requestor that names no property (obsolete clients) means the target atom.
    reply.property = req.property != None ? req.property : req.target;
    if (req.selection != XdndSelection) {
      reply.property = None;
    } else if (req.target == TARGETS) {
      const Atom targets[] = {TARGETS, text_uri_list};
      XChangeProperty(display, req.requestor, reply.property, XA_ATOM, 32, PropModeReplace,
                      reinterpret_cast<const unsigned char*>(targets), 2);
    } else if (req.target == text_uri_list) {
      XChangeProperty(display, req.requestor, reply.property, text_uri_list, 8, PropModeReplace,
                      reinterpret_cast<const unsigned char*>(uri_list.data()), static_cast<int>(uri_list.size()));
      outcome.data_requested = true;
      outcome.request_time = req.time;
      outcome.bytes_sent = uri_list.size();
    } else {
      reply.property = None;  // a type we do not offer: refused
    }
    XSendEvent(display, req.requestor, False, NoEventMask, reinterpret_cast<XEvent*>(&reply));
    XFlush(display);
  }

  void send(::Window to, Atom type, long l0, long l1, long l2, long l3, long l4) {
    XEvent ev{};
    ev.xclient.type = ClientMessage;
    ev.xclient.display = display;
    ev.xclient.window = to;
    ev.xclient.message_type = type;
    ev.xclient.format = 32;
    ev.xclient.data.l[0] = l0;
    ev.xclient.data.l[1] = l1;
    ev.xclient.data.l[2] = l2;
    ev.xclient.data.l[3] = l3;
    ev.xclient.data.l[4] = l4;
    XSendEvent(display, to, False, NoEventMask, &ev);
    XFlush(display);
  }

  // -------------------------------------------------------------------------------------------
  // 3. finding the target
  // -------------------------------------------------------------------------------------------

  std::optional<unsigned long> cardinal(::Window w, Atom property) {
    Atom type = None;
    int format = 0;
    unsigned long items = 0, after = 0;
    unsigned char* data = nullptr;
    std::optional<unsigned long> value;
    if (XGetWindowProperty(display, w, property, 0, 1, False, XA_CARDINAL, &type, &format, &items, &after, &data) ==
            Success &&
        type == XA_CARDINAL && format == 32 && items == 1)
      value = *reinterpret_cast<unsigned long*>(data);  // Xlib hands 32-bit items as longs
    if (data) XFree(data);
    return value;
  }

  std::string title(::Window w) {
    std::string name;
    Atom type = None;
    int format = 0;
    unsigned long items = 0, after = 0;
    unsigned char* data = nullptr;
    if (XGetWindowProperty(display, w, NET_WM_NAME, 0, 1024, False, UTF8_STRING, &type, &format, &items, &after,
                           &data) == Success &&
        type == UTF8_STRING && format == 8 && data)
      name.assign(reinterpret_cast<char*>(data), items);
    if (data) XFree(data);
    if (name.empty()) {
      char* old = nullptr;
      if (XFetchName(display, w, &old) && old) name = old;
      if (old) XFree(old);
    }
    return name;
  }

  ::Window search(::Window w, const std::string& want, pid_t pid, int depth) {
    if (auto p = cardinal(w, NET_WM_PID); p && *p == static_cast<unsigned long>(pid) && title(w) == want) return w;
    if (depth == 0) return 0;
    ::Window root_return = 0, parent = 0, *children = nullptr;
    unsigned int count = 0;
    if (!XQueryTree(display, w, &root_return, &parent, &children, &count)) return 0;
    ::Window found = 0;
    for (unsigned int i = 0; i < count && !found; ++i) found = search(children[i], want, pid, depth - 1);
    if (children) XFree(children);
    return found;
  }
};

// ---------------------------------------------------------------------------------------------
// 4. the drop
// ---------------------------------------------------------------------------------------------

Source::Source(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Source::~Source() { vanish(); }

std::unique_ptr<Source> Source::open(std::string* why) {
  auto impl = std::make_unique<Impl>();
  // An Xvfb started without -noreset resets when its last client leaves, and refuses connections
  // for that moment; parallel tests come and go, so a refusal is retried for a few seconds.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!(impl->display = XOpenDisplay(nullptr)) && std::getenv("DISPLAY") &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  if (!impl->display) {
    *why = "cannot open the X display (DISPLAY is not set or not reachable)";
    return nullptr;
  }
  XSetErrorHandler(&count_error);
  impl->root = DefaultRootWindow(impl->display);
  // An unmapped 1x1 window: a source needs a window to own the selection and receive replies,
  // not one on screen.
  impl->window = XCreateSimpleWindow(impl->display, impl->root, 0, 0, 1, 1, 0, 0, 0);
  XSelectInput(impl->display, impl->window, PropertyChangeMask);
  impl->intern_atoms();
  const Atom version = 5;
  XChangeProperty(impl->display, impl->window, impl->XdndAware, XA_ATOM, 32, PropModeReplace,
                  reinterpret_cast<const unsigned char*>(&version), 1);
  XSync(impl->display, False);
  return std::unique_ptr<Source>(new Source(std::move(impl)));
}

void Source::vanish() {
  if (!impl_ || !impl_->display) return;
  XDestroyWindow(impl_->display, impl_->window);
  XSync(impl_->display, False);
  {
    std::lock_guard<std::mutex> lock(g_errors_mutex);
    g_errors.erase(impl_->display);
  }
  XCloseDisplay(impl_->display);
  impl_->display = nullptr;
  impl_->window = 0;
}

std::size_t Source::x_errors() const {
  std::lock_guard<std::mutex> lock(g_errors_mutex);
  auto it = g_errors.find(impl_->display);
  return it == g_errors.end() ? 0 : it->second;
}

unsigned long Source::find_window(const std::string& title, pid_t pid) {
  if (!impl_->display) return 0;
  // Top-level windows are children of the root, or grandchildren under a reparenting window
  // manager's frames: three levels are plenty.
  return impl_->search(impl_->root, title, pid, 3);
}

int Source::xdnd_version(unsigned long target) {
  if (!impl_->display) return 0;
  Atom type = None;
  int format = 0;
  unsigned long items = 0, after = 0;
  unsigned char* data = nullptr;
  int version = 0;
  if (XGetWindowProperty(impl_->display, target, impl_->XdndAware, 0, 1, False, XA_ATOM, &type, &format, &items, &after,
                         &data) == Success &&
      type == XA_ATOM && format == 32 && items == 1)
    version = static_cast<int>(*reinterpret_cast<unsigned long*>(data));
  if (data) XFree(data);
  return version;
}

bool Source::begin(unsigned long target, std::string* why) {
  Impl& s = *impl_;
  if (!s.display) {
    *why = "the source is closed";
    return false;
  }
  s.outcome = DropOutcome{};
  s.target = target;
  auto time = s.server_time(Clock::now() + std::chrono::seconds(5));
  if (!time) {
    *why = "no PropertyNotify for the timestamp property within 5 s";
    return false;
  }
  s.outcome.drop_time = *time;
  XSetSelectionOwner(s.display, s.XdndSelection, s.window, *time);
  if (XGetSelectionOwner(s.display, s.XdndSelection) != s.window) {
    *why = "could not own XdndSelection";
    return false;
  }
  s.owned_since = *time;
  XChangeProperty(s.display, s.window, s.XdndTypeList, XA_ATOM, 32, PropModeReplace,
                  reinterpret_cast<const unsigned char*>(&s.text_uri_list), 1);

  // XdndEnter: version 5 in the top byte, no type list bit (one type, in data.l[2]).
  s.send(target, s.XdndEnter, static_cast<long>(s.window), 5L << 24, static_cast<long>(s.text_uri_list), 0, 0);

  // XdndPosition over the middle of the target, in root coordinates.
  XWindowAttributes attributes{};
  int x = 0, y = 0;
  ::Window child = 0;
  if (XGetWindowAttributes(s.display, target, &attributes))
    XTranslateCoordinates(s.display, target, s.root, attributes.width / 2, attributes.height / 2, &x, &y, &child);
  s.send(target, s.XdndPosition, static_cast<long>(s.window), 0, (static_cast<long>(x) << 16) | (y & 0xffff),
         static_cast<long>(*time), static_cast<long>(s.XdndActionCopy));
  return true;
}

bool Source::wait_for_status(std::chrono::milliseconds timeout) {
  Impl& s = *impl_;
  if (!s.display) return false;
  return s.wait_client_message(s.XdndStatus, Clock::now() + timeout).has_value();
}

void Source::send_drop(unsigned long target) {
  Impl& s = *impl_;
  if (!s.display) return;
  s.send(target, s.XdndDrop, static_cast<long>(s.window), 0, static_cast<long>(s.outcome.drop_time), 0, 0);
}

DropOutcome Source::drop(unsigned long target, const std::string& uri_list_bytes,
                         std::chrono::milliseconds step_timeout) {
  Impl& s = *impl_;
  if (!s.display) {
    DropOutcome closed;
    closed.error = "the source is closed";
    return closed;
  }
  // One property change carries the whole list; past the server's request size a source would
  // need INCR, which GLFW 3.3 does not read for drops.
  const long max_bytes =
      (XExtendedMaxRequestSize(s.display) > 0 ? XExtendedMaxRequestSize(s.display) : XMaxRequestSize(s.display)) * 4 -
      64;
  if (static_cast<long>(uri_list_bytes.size()) > max_bytes) {
    DropOutcome too_big;
    too_big.error = "the URI list (" + std::to_string(uri_list_bytes.size()) +
                    " bytes) is over the server's request size (" + std::to_string(max_bytes) + ")";
    return too_big;
  }
  s.uri_list = uri_list_bytes;
  std::string why;
  if (!begin(target, &why)) {
    s.outcome.error = why;
    return s.outcome;
  }
  DropOutcome& out = s.outcome;

  auto status = s.wait_client_message(s.XdndStatus, Clock::now() + step_timeout);
  if (!status) {
    out.error = "no XdndStatus within " + std::to_string(step_timeout.count()) + " ms of XdndPosition";
    return out;
  }
  out.got_status = true;
  out.accepted = (status->data.l[1] & 1) != 0;
  out.copy_action = static_cast<Atom>(status->data.l[4]) == s.XdndActionCopy;
  if (!out.accepted) {
    s.send(target, s.XdndLeave, static_cast<long>(s.window), 0, 0, 0, 0);
    out.error = "the target did not accept text/uri-list (XdndStatus accept bit 0)";
    return out;
  }

  send_drop(target);
  auto finished = s.wait_client_message(s.XdndFinished, Clock::now() + step_timeout);
  if (out.lost_selection) {
    out.error = "another client took XdndSelection during the drop (a second drag on this display?)";
    return out;
  }
  if (!finished) {
    out.error = std::string("no XdndFinished within ") + std::to_string(step_timeout.count()) + " ms of XdndDrop" +
                (out.data_requested ? " (the data was sent)" : " (the data was never asked for)");
    return out;
  }
  out.finished = true;
  out.finished_success = finished->data.l[1];
  // The spec's success is bit 0 of data.l[1]; GLFW 3.3.8 puts the number of bytes it read there,
  // so an even-length list clears that bit. Judge success as GTK does (non-zero), and leave the
  // exact value to the test.
  if (finished->data.l[1] == 0) out.error = "XdndFinished says the drop failed (data.l[1] == 0)";
  s.owned_since = 0;
  XSetSelectionOwner(s.display, s.XdndSelection, None, out.drop_time);
  XFlush(s.display);
  return out;
}

void Source::send_client_message(unsigned long target, const std::string& type, const long (&data)[5]) {
  Impl& s = *impl_;
  if (!s.display) return;
  s.send(target, s.atom(type.c_str()), data[0], data[1], data[2], data[3], data[4]);
}

void Source::request_close(unsigned long target) {
  Impl& s = *impl_;
  if (!s.display) return;
  s.send(target, s.atom("WM_PROTOCOLS"), static_cast<long>(s.atom("WM_DELETE_WINDOW")), CurrentTime, 0, 0, 0);
}

bool Source::send_key(unsigned long target, const std::string& keysym, bool ctrl, bool shift) {
  Impl& s = *impl_;
  if (!s.display) return false;
  const KeySym sym = XStringToKeysym(keysym.c_str());
  if (sym == NoSymbol) return false;
  const KeyCode code = XKeysymToKeycode(s.display, sym);
  if (!code) return false;
  XEvent e{};
  e.xkey.display = s.display;
  e.xkey.window = target;
  e.xkey.root = s.root;
  e.xkey.subwindow = None;
  e.xkey.time = CurrentTime;
  e.xkey.same_screen = True;
  e.xkey.keycode = code;
  e.xkey.state = (ctrl ? ControlMask : 0) | (shift ? ShiftMask : 0);
  e.type = KeyPress;
  XSendEvent(s.display, target, True, KeyPressMask, &e);
  e.type = KeyRelease;
  XSendEvent(s.display, target, True, KeyReleaseMask, &e);
  XFlush(s.display);
  return true;
}

bool Source::click(unsigned long target, int x, int y) {
  Impl& s = *impl_;
  if (!s.display) return false;
  XWarpPointer(s.display, None, target, 0, 0, 0, 0, x, y);
  XSync(s.display, False);
  // A click paced as a hand makes it: the pointer arrives, then the button goes down, and comes up
  // a moment later. This is input timing, not a wait for the app (whose state the drag source
  // cannot see): the pauses stay.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the app sees the pointer there first
  XEvent e{};
  e.xbutton.display = s.display;
  e.xbutton.window = target;
  e.xbutton.root = s.root;
  e.xbutton.time = CurrentTime;
  e.xbutton.x = x;
  e.xbutton.y = y;
  e.xbutton.same_screen = True;
  e.xbutton.button = Button1;
  e.type = ButtonPress;
  XSendEvent(s.display, target, True, ButtonPressMask, &e);
  XFlush(s.display);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  e.type = ButtonRelease;
  e.xbutton.state = Button1Mask;
  XSendEvent(s.display, target, True, ButtonReleaseMask, &e);
  XFlush(s.display);
  return true;
}

void Source::move_pointer(unsigned long target, int x, int y) {
  Impl& s = *impl_;
  if (!s.display) return;
  XWarpPointer(s.display, None, target, 0, 0, 0, 0, x, y);
  XSync(s.display, False);
}

std::vector<unsigned char> Source::capture_rgba(unsigned long target, int* width, int* height) {
  Impl& s = *impl_;
  std::vector<unsigned char> rgba;
  *width = *height = 0;
  if (!s.display) return rgba;
  XWindowAttributes attributes{};
  if (!XGetWindowAttributes(s.display, target, &attributes)) return rgba;
  int x = 0, y = 0;
  ::Window child = 0;
  XTranslateCoordinates(s.display, target, s.root, 0, 0, &x, &y, &child);
  XImage* image = XGetImage(s.display, s.root, x, y, static_cast<unsigned>(attributes.width),
                            static_cast<unsigned>(attributes.height), AllPlanes, ZPixmap);
  if (!image) return rgba;
  // Each channel from its mask, so any TrueColor layout reads right.
  auto channel = [](unsigned long pixel, unsigned long mask) -> unsigned char {
    if (!mask) return 0;
    int shift = 0;
    while (!((mask >> shift) & 1)) ++shift;
    const unsigned long max = mask >> shift;
    return static_cast<unsigned char>(((pixel & mask) >> shift) * 255 / max);
  };
  rgba.resize(static_cast<std::size_t>(image->width) * image->height * 4);
  for (int row = 0; row < image->height; ++row)
    for (int col = 0; col < image->width; ++col) {
      const unsigned long p = XGetPixel(image, col, row);
      unsigned char* out = &rgba[(static_cast<std::size_t>(row) * image->width + col) * 4];
      out[0] = channel(p, image->red_mask);
      out[1] = channel(p, image->green_mask);
      out[2] = channel(p, image->blue_mask);
      out[3] = 255;
    }
  *width = image->width;
  *height = image->height;
  XDestroyImage(image);
  return rgba;
}

}  // namespace bs::test::xdnd
