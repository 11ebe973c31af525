// The window's input queue (shell/input_queue.hpp) and frame pacer (shell/frame_pacer.hpp),
// without a window: issue 24's items 1 (the window idles) and 3 (no keystroke lost at low frame
// rates). The queue is fed what GLFW delivers for fast typing, and each frame's share is checked
// against what ImGui 1.86 can see in one frame; the pacer runs on a clock the test moves.
#include <gtest/gtest.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <random>
#include <string>

#include "shell/frame_pacer.hpp"
#include "shell/input_queue.hpp"

namespace bs::app {
namespace {

using Event = Window::InputEvent;
using Kind = Event::Kind;

Event key(int code, int action, int mods = 0) { return {Kind::Key, code, action, mods, 0, 0}; }
Event chr(char c) { return {Kind::Char, c, Event::Press, 0, 0, 0}; }

// What GLFW delivers for one key typed: the press, its character (printable keys), the release.
void type(std::vector<Event>& out, int code, char c = 0) {
  out.push_back(key(code, Event::Press));
  if (c) out.push_back(chr(c));
  out.push_back(key(code, Event::Release));
}

// "32 Tab 8 Enter" typed between two frames.
std::vector<Event> typed_32_tab_8_enter() {
  std::vector<Event> e;
  type(e, GLFW_KEY_3, '3');
  type(e, GLFW_KEY_2, '2');
  type(e, GLFW_KEY_TAB);
  type(e, GLFW_KEY_8, '8');
  type(e, GLFW_KEY_ENTER);
  return e;
}

// Keys that reach a field only as characters: letters, digits, punctuation, the keypad's digits
// and operators, without Ctrl, Alt or Super.
bool is_plain_key(const Event& e) {
  const bool printable =
      e.code < GLFW_KEY_ESCAPE || (e.code >= GLFW_KEY_KP_0 && e.code <= GLFW_KEY_KP_ADD) || e.code == GLFW_KEY_KP_EQUAL;
  return e.kind == Kind::Key && printable && !(e.mods & (GLFW_MOD_CONTROL | GLFW_MOD_ALT | GLFW_MOD_SUPER));
}

// What one frame of ImGui 1.86 can take: no key it reads (nor a mouse button) changes twice, and
// characters never share a frame with a press of such a key in the wrong order.
void expect_one_frame_worth(const std::vector<Event>& batch) {
  std::vector<int> keys, buttons;
  bool typed = false, acted = false;
  for (const Event& e : batch) {
    if (e.kind == Kind::Key && !is_plain_key(e)) {
      EXPECT_EQ(std::count(keys.begin(), keys.end(), e.code), 0) << "key " << e.code << " changed twice in a frame";
      keys.push_back(e.code);
      const bool modifier = e.code >= GLFW_KEY_LEFT_SHIFT && e.code <= GLFW_KEY_RIGHT_SUPER;
      if (e.action == Event::Press && !modifier) {
        EXPECT_FALSE(typed) << "key " << e.code << " pressed after characters in the same frame";
        acted = true;
      }
    } else if (e.kind == Kind::Char) {
      EXPECT_FALSE(acted) << "character '" << static_cast<char>(e.code) << "' after a key press in the same frame";
      typed = true;
    } else if (e.kind == Kind::MouseButton) {
      EXPECT_EQ(std::count(buttons.begin(), buttons.end(), e.code), 0);
      buttons.push_back(e.code);
    }
  }
}

// Frame after frame: each one a frame's worth, and the frame after a key press ImGui acts on (or
// a click) takes no characters (the field it activates would drop them); no frame is empty
// unless it is such a frame.
bool acts_or_clicks(const std::vector<Event>& batch) {
  for (const Event& e : batch) {
    const bool modifier = e.code >= GLFW_KEY_LEFT_SHIFT && e.code <= GLFW_KEY_RIGHT_SUPER;
    if (e.kind == Kind::Key && !is_plain_key(e) && e.action == Event::Press && !modifier) return true;
    if (e.kind == Kind::MouseButton && e.action == Event::Press) return true;
  }
  return false;
}
void expect_frames_worth(const std::vector<std::vector<Event>>& frames) {
  for (std::size_t i = 0; i < frames.size(); ++i) {
    expect_one_frame_worth(frames[i]);
    const bool after_act = i > 0 && acts_or_clicks(frames[i - 1]);
    if (after_act)
      for (const Event& e : frames[i])
        EXPECT_NE(e.kind, Kind::Char) << "a character in the frame after a key press, frame " << i;
    else EXPECT_FALSE(frames[i].empty()) << "frame " << i << " took nothing while events waited";
  }
}

std::string describe(const std::vector<Event>& batch) {
  std::string s;
  for (const Event& e : batch) {
    if (e.kind == Kind::Char) s += static_cast<char>(e.code);
    else if (e.kind == Kind::Key && e.code == GLFW_KEY_TAB) s += e.action ? "<Tab>" : "</Tab>";
    else if (e.kind == Kind::Key && e.code == GLFW_KEY_ENTER) s += e.action ? "<Enter>" : "</Enter>";
  }
  return s;
}

TEST(InputQueue, TypingBetweenTwoFramesReachesImGuiInOrderAFrameAtATime) {
  InputQueue q;
  const std::vector<Event> typed = typed_32_tab_8_enter();
  q.push(typed);
  std::vector<std::vector<Event>> frames;
  while (q.pending()) {
    frames.push_back(q.next_frame());
    ASSERT_LT(frames.size(), 50u);
  }
  // Nothing lost, nothing reordered.
  std::vector<Event> all;
  for (const auto& f : frames) all.insert(all.end(), f.begin(), f.end());
  ASSERT_EQ(all.size(), typed.size());
  for (std::size_t i = 0; i < typed.size(); ++i) {
    EXPECT_EQ(all[i].kind, typed[i].kind) << i;
    EXPECT_EQ(all[i].code, typed[i].code) << i;
    EXPECT_EQ(all[i].action, typed[i].action) << i;
  }
  expect_frames_worth(frames);
  // The field sees "32", then Tab, then "8" in a later frame, then Enter in a later one still.
  std::vector<std::string> seen;
  for (const auto& f : frames) seen.push_back(describe(f));
  std::string joined;
  for (const auto& s : seen) joined += "[" + s + "]";
  // "8" waits a frame after the Tab's: the y field becomes active in that frame, and ImGui drops
  // the characters a field gets in the frame it is activated.
  EXPECT_EQ(joined, "[32][<Tab>][</Tab>][8][<Enter>][</Enter>]");
}

TEST(InputQueue, QuickEndBackspaceBackspaceIsThreePressesInThreeFrames) {
  InputQueue q;
  std::vector<Event> e;
  type(e, GLFW_KEY_END);
  type(e, GLFW_KEY_BACKSPACE);
  type(e, GLFW_KEY_BACKSPACE);
  q.push(e);
  int presses = 0, frames = 0;
  std::vector<std::vector<Event>> all;
  while (q.pending()) {
    all.push_back(q.next_frame());
    for (const Event& x : all.back()) presses += x.action == Event::Press;
    ++frames;
  }
  expect_frames_worth(all);
  EXPECT_EQ(presses, 3);
  EXPECT_GE(frames, 5);  // End down, End up + Backspace down, up, down, up
}

TEST(InputQueue, ShortcutsWithModifiersKeepTheirModifierDownInTheirFrame) {
  InputQueue q;
  // Ctrl+W then Ctrl+W again (start, cancel) in one burst: each W press is in a frame where
  // Ctrl is down, and the two presses are in different frames.
  std::vector<Event> e{
      key(GLFW_KEY_LEFT_CONTROL, Event::Press),          key(GLFW_KEY_W, Event::Press, GLFW_MOD_CONTROL),
      key(GLFW_KEY_W, Event::Release, GLFW_MOD_CONTROL), key(GLFW_KEY_W, Event::Press, GLFW_MOD_CONTROL),
      key(GLFW_KEY_W, Event::Release, GLFW_MOD_CONTROL), key(GLFW_KEY_LEFT_CONTROL, Event::Release)};
  q.push(e);
  bool ctrl = false;
  int w_presses_with_ctrl = 0, frames = 0;
  while (q.pending()) {
    int w_presses = 0;
    for (const Event& x : q.next_frame()) {
      if (x.code == GLFW_KEY_LEFT_CONTROL) ctrl = x.action == Event::Press;
      if (x.code == GLFW_KEY_W && x.action == Event::Press) {
        ++w_presses;
        w_presses_with_ctrl += ctrl;
      }
    }
    EXPECT_LE(w_presses, 1);
    ++frames;
  }
  EXPECT_EQ(w_presses_with_ctrl, 2);
}

// Issue 36, item 13: Ctrl+Enter typed within a few milliseconds inserted a newline. With Ctrl
// pressed in an earlier frame, the frame that took Enter's press also took Ctrl's release, so
// ImGui saw Enter without Ctrl. The frame of a key press sees the modifiers of its moment.
TEST(InputQueue, AModifierLetGoJustAfterAKeyStaysDownInThatKeysFrame) {
  InputQueue q;
  q.push({key(GLFW_KEY_LEFT_CONTROL, Event::Press)});
  (void)q.next_frame();  // Ctrl down, a frame drawn
  q.push({key(GLFW_KEY_ENTER, Event::Press, GLFW_MOD_CONTROL),
          key(GLFW_KEY_LEFT_CONTROL, Event::Release, GLFW_MOD_CONTROL), key(GLFW_KEY_ENTER, Event::Release),
          key(GLFW_KEY_LEFT_CONTROL, Event::Press), key(GLFW_KEY_A, Event::Press, GLFW_MOD_CONTROL),
          key(GLFW_KEY_LEFT_CONTROL, Event::Release, GLFW_MOD_CONTROL), key(GLFW_KEY_A, Event::Release)});
  bool ctrl = true;
  int presses = 0, presses_with_ctrl = 0;
  std::vector<std::vector<Event>> frames;
  while (q.pending()) {
    frames.push_back(q.next_frame());
    ASSERT_LT(frames.size(), 20u);
    // ImGui reads the modifiers once a frame: as they are at the frame's end.
    bool ctrl_at_end = ctrl;
    for (const Event& x : frames.back())
      if (x.code == GLFW_KEY_LEFT_CONTROL) ctrl_at_end = x.action == Event::Press;
    for (const Event& x : frames.back())
      if ((x.code == GLFW_KEY_ENTER || x.code == GLFW_KEY_A) && x.action == Event::Press) {
        ++presses;
        presses_with_ctrl += ctrl_at_end;
      }
    ctrl = ctrl_at_end;
  }
  EXPECT_EQ(presses, 2);
  EXPECT_EQ(presses_with_ctrl, 2) << "Ctrl+Enter and Ctrl+A each reach ImGui with Ctrl down in their frame";
  EXPECT_FALSE(ctrl);
}

TEST(InputQueue, RandomTypingIsNeverLostNorReorderedAndRepeatsAreImGuis) {
  std::mt19937 rng(std::random_device{}());
  const int keys[] = {GLFW_KEY_A,         GLFW_KEY_1,          GLFW_KEY_TAB,          GLFW_KEY_ENTER,
                      GLFW_KEY_BACKSPACE, GLFW_KEY_LEFT_SHIFT, GLFW_KEY_LEFT_CONTROL, GLFW_KEY_END,
                      GLFW_KEY_KP_5};
  for (int round = 0; round < 200; ++round) {
    InputQueue q;
    std::vector<Event> pushed, kept;
    const int n = std::uniform_int_distribution<int>(1, 40)(rng);
    for (int i = 0; i < n; ++i) {
      const int k = keys[std::uniform_int_distribution<int>(0, std::size(keys) - 1)(rng)];
      const int action = std::uniform_int_distribution<int>(0, 2)(rng);
      const int mods = std::uniform_int_distribution<int>(0, 3)(rng) == 0 ? GLFW_MOD_CONTROL : 0;
      pushed.push_back(key(k, action, mods));
      if (action != Event::Repeat) kept.push_back(pushed.back());
      if (std::uniform_int_distribution<int>(0, 2)(rng) == 0) {
        pushed.push_back(chr('a' + static_cast<char>(i % 26)));
        kept.push_back(pushed.back());
      }
      if (std::uniform_int_distribution<int>(0, 5)(rng) == 0) {
        pushed.push_back({Kind::MouseButton, 0, action == Event::Release ? 0 : 1, 0, 0, 0});
        kept.push_back(pushed.back());
      }
    }
    q.push(pushed);
    std::vector<Event> out;
    std::vector<std::vector<Event>> all;
    while (q.pending()) {
      all.push_back(q.next_frame());
      out.insert(out.end(), all.back().begin(), all.back().end());
      ASSERT_LE(all.size(), 200u);
    }
    expect_frames_worth(all);
    ASSERT_EQ(out.size(), kept.size()) << "round " << round;
    for (std::size_t i = 0; i < out.size(); ++i) {
      EXPECT_EQ(out[i].kind, kept[i].kind);
      EXPECT_EQ(out[i].code, kept[i].code);
      EXPECT_EQ(out[i].action, kept[i].action);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The frame pacer
// ---------------------------------------------------------------------------------------------

using Clock = FramePacer::Clock;
Clock::time_point at(double s) {
  return Clock::time_point{} + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

TEST(FramePacer, AnIdleWindowSleepsAndWakesForInputLaunchesAndProgress) {
  FramePacer p;
  FramePacer::Needs idle;
  // The first frames settle (ImGui lays out the window over a few frames).
  double t = 100;
  for (int i = 0; i < FramePacer::kSettleFrames; ++i) {
    EXPECT_EQ(p.wait_s(idle, at(t)), 0.0) << "settling frame " << i;
    p.drew(at(t), false);
    t += 0.1;
  }
  // Nothing changes: it sleeps (the safety net's period), at no cost.
  EXPECT_GE(p.wait_s(idle, at(t)), FramePacer::kIdleS - 0.2);
  // Input waiting in the queue: at once.
  FramePacer::Needs input;
  input.input_pending = true;
  EXPECT_EQ(p.wait_s(input, at(t)), 0.0);
  // A frame that handled input: the next frames settle, then sleep again.
  p.drew(at(t), true);
  EXPECT_EQ(p.wait_s(idle, at(t + 0.01)), 0.0);
  for (int i = 0; i < FramePacer::kSettleFrames; ++i) p.drew(at(t += 0.05), false);  // 0.15 s
  EXPECT_EQ(p.wait_s(idle, at(t)), 0.0) << "still within kSettleS of the input";
  t += FramePacer::kSettleS;
  EXPECT_GT(p.wait_s(idle, at(t)), 1.0);
  // A launch due or continuous runs: every frame, at most kMaxFps a second.
  FramePacer::Needs busy;
  busy.every_frame = true;
  p.drew(at(t), false);
  EXPECT_NEAR(p.wait_s(busy, at(t)), 1.0 / FramePacer::kMaxFps, 1e-6);
  EXPECT_EQ(p.wait_s(busy, at(t + 0.5)), 0.0);
  // Progress of a sweep: one frame a second, no more.
  FramePacer::Needs sweep;
  sweep.progress_period_s = 1.0;
  EXPECT_NEAR(p.wait_s(sweep, at(t + 0.25)), 0.75, 1e-6);
  EXPECT_EQ(p.wait_s(sweep, at(t + 1.5)), 0.0);
  // Something on screen due to change (a message that fades): then.
  FramePacer::Needs deadline;
  deadline.deadline_s = 2.5;
  EXPECT_NEAR(p.wait_s(deadline, at(t)), 2.5, 1e-6);
}

}  // namespace
}  // namespace bs::app
