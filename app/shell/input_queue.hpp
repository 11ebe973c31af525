// The window's input events, handed to ImGui a frame's worth at a time. ImGui 1.86 has no input
// queue: it reads once a frame whether each key is down, so a key pressed and released between
// two frames never happened, and characters typed after a Tab land in the field Tab should have
// left (at 3 frames a second, "32 Tab 8 Enter" left "328"). The queue keeps every event in
// order and releases, per frame, the longest run of them in which
//   - no key that ImGui reads as a key (Tab, Enter, Backspace, arrows, Home, End, Escape, the
//     modifiers, any key with Ctrl, Alt or Super) and no mouse button changes twice: each frame
//     sees each press and each release;
//   - no modifier changes after such a key's press: the frame sees the modifiers as they were
//     when the key went down (Ctrl+Enter stays Ctrl+Enter however quickly Ctrl is let go);
//   - typed characters and those keys' presses do not mix: a field takes "8" before it sees the
//     Enter that follows it, and a Tab before the characters meant for the next field;
//   - the frame after such a key press or a click takes no characters: the field the keyboard
//     moved to becomes active in it, and ImGui drops what a field types in its first frame.
// Printable keys without Ctrl, Alt or Super reach a field as characters, so they pass freely.
// Key repeats are dropped: ImGui repeats a held key itself. No keystroke is lost at any frame
// rate; what is left waits for the next frame, which the app draws at once (pending()).
// GL-free and ImGui-free: tests/app/test_shell_rooms feeds it.
#pragma once
#include <cstddef>
#include <deque>
#include <vector>

#include "platform/window.hpp"

namespace bs::app {

class InputQueue {
 public:
  using Event = Window::InputEvent;

  // Appends events as the window delivered them (oldest first). At most kMaxEvents wait; beyond
  // that the oldest go (a frame loop that stopped reading them).
  void push(const std::vector<Event>& events);
  // The events for the next frame (see above), oldest first; empty when none wait.
  std::vector<Event> next_frame();
  // Events still wait for a frame.
  bool pending() const { return !queue_.empty(); }

  static constexpr std::size_t kMaxEvents = 4096;

 private:
  std::deque<Event> queue_;
  bool hold_chars_ = false;  // the last frame handed over a key press ImGui acts on, or a click
};

}  // namespace bs::app
