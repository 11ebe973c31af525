#include "shell/input_queue.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>  // key codes and modifier bits

#include <algorithm>

namespace bs::app {
namespace {

bool is_modifier(int key) { return key >= GLFW_KEY_LEFT_SHIFT && key <= GLFW_KEY_RIGHT_SUPER; }

// A key that reaches a text field as a character (letters, digits, punctuation, the keypad's
// digits and operators) when no Ctrl, Alt or Super is held: ImGui does nothing with the key itself.
bool plain(const Window::InputEvent& e) {
  const bool printable =
      e.code < GLFW_KEY_ESCAPE || (e.code >= GLFW_KEY_KP_0 && e.code <= GLFW_KEY_KP_ADD) || e.code == GLFW_KEY_KP_EQUAL;
  return printable && !(e.mods & (GLFW_MOD_CONTROL | GLFW_MOD_ALT | GLFW_MOD_SUPER));
}

}  // namespace

void InputQueue::push(const std::vector<Event>& events) {
  for (const Event& e : events)
    if (!(e.kind == Event::Kind::Key && e.action == Event::Repeat)) queue_.push_back(e);
  while (queue_.size() > kMaxEvents) queue_.pop_front();
}

std::vector<InputQueue::Event> InputQueue::next_frame() {
  std::vector<Event> out;
  std::vector<int> keys_changed, buttons_changed;
  bool typed = false, acted = false;  // characters, key presses ImGui acts on, in this frame
  // The frame after a key press ImGui acts on, or a click, takes no characters: the field that
  // Tab (or the click) gives the keyboard becomes active in that frame, and ImGui 1.86 drops the
  // characters a field receives in the frame it is activated ("32 Tab 8 Enter" typed faster
  // than the frames left blockDim.y as it was).
  const bool hold_chars = hold_chars_;
  hold_chars_ = false;
  auto seen = [](const std::vector<int>& v, int code) { return std::find(v.begin(), v.end(), code) != v.end(); };
  while (!queue_.empty()) {
    const Event& e = queue_.front();
    if (e.kind == Event::Kind::Key && !plain(e)) {
      if (seen(keys_changed, e.code)) break;  // its second change: the next frame
      const bool acts = e.action == Event::Press && !is_modifier(e.code);
      if (acts && typed) break;  // after the characters typed before it
      // A modifier that changes after a key press in the frame waits for the next one: ImGui
      // reads the modifiers once a frame, so Ctrl let go just after Enter (Ctrl pressed a frame
      // earlier) made that Enter a plain one, a newline instead of a compile.
      if (acted && is_modifier(e.code)) break;
      keys_changed.push_back(e.code);
      acted = acted || acts;
      hold_chars_ = hold_chars_ || acts;
    } else if (e.kind == Event::Kind::Char) {
      if (acted || hold_chars) break;  // after the key pressed before it (Tab, Enter, Backspace...)
      typed = true;
    } else if (e.kind == Event::Kind::MouseButton) {
      if (seen(buttons_changed, e.code)) break;
      buttons_changed.push_back(e.code);
      if (e.action == Event::Press) hold_chars_ = true;
    }
    out.push_back(e);
    queue_.pop_front();
  }
  return out;
}

}  // namespace bs::app
