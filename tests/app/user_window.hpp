// The headless window with a user's input and drops queued by the test, all delivered at once
// (as GLFW delivers what was typed between two slow frames). The window of the in-process App
// tests that drive it as a user would (app_in_process.hpp).
#pragma once
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <string>
#include <vector>

#include "platform/forwarding_window.hpp"

namespace bs::app::test {

class UserWindow final : public ForwardingWindow {
 public:
  using ForwardingWindow::ForwardingWindow;
  using Event = Window::InputEvent;
  std::vector<Event> events;
  std::vector<std::string> drops;
  std::vector<Event> take_input_events() override {
    std::vector<Event> e;
    e.swap(events);
    return e;
  }
  std::vector<std::string> take_dropped_paths() override {
    std::vector<std::string> d;
    d.swap(drops);
    return d;
  }
  void key(int code, int mods = 0) {
    events.push_back({Event::Kind::Key, code, Event::Press, mods, 0, 0});
    events.push_back({Event::Kind::Key, code, Event::Release, mods, 0, 0});
  }
  // What GLFW gives for typing `text`: each character's key press, the character, the release.
  void type(const std::string& text) {
    for (char c : text) {
      const int code = c >= '0' && c <= '9' ? GLFW_KEY_0 + (c - '0') : GLFW_KEY_A + (c - 'a');
      events.push_back({Event::Kind::Key, code, Event::Press, 0, 0, 0});
      events.push_back({Event::Kind::Char, c, Event::Press, 0, 0, 0});
      events.push_back({Event::Kind::Key, code, Event::Release, 0, 0, 0});
    }
  }
};

}  // namespace bs::app::test
