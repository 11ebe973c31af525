// The message log: every error or notice the user should read (a file that did not load, a
// refused launch, a device fault), newest last. The status bar shows the latest; the Messages
// window lists them all. Plain data; drawing is in messages.cpp.
#pragma once
#include <chrono>
#include <string>
#include <vector>

#include "core/status.hpp"

namespace bs::app {

struct Message {
  enum Level { Info, Warning, Error };
  Level level = Info;
  std::string text{};
  std::string detail{};  // the hint, then where it came from ("hint [call: code]")
  std::string hint{};    // what to do about it (Status::hint), for the Messages window
  std::string where{};   // the call and its code, for bug reports: shown small, never as the message
  std::chrono::system_clock::time_point when = std::chrono::system_clock::now();
};

class MessageLog {
 public:
  void info(std::string text) { add({.level = Message::Info, .text = std::move(text)}); }
  void warn(std::string text, std::string detail = {}) {
    add({.level = Message::Warning, .text = std::move(text), .detail = std::move(detail)});
  }
  void error(const Status& s) {
    std::string where = s.call;
    if (!s.code.empty()) where += (where.empty() ? "" : ": ") + s.code;
    std::string detail = s.hint;
    if (!where.empty()) detail += (detail.empty() ? "[" : " [") + where + "]";
    add({.level = Message::Error, .text = s.message, .detail = std::move(detail), .hint = s.hint, .where = std::move(where)});
  }
  const std::vector<Message>& all() const { return messages_; }
  const Message* latest() const { return messages_.empty() ? nullptr : &messages_.back(); }
  std::size_t errors() const { return errors_; }
  void clear() { messages_.clear(); errors_ = 0; }

 private:
  void add(Message m) {
    if (m.level == Message::Error) ++errors_;
    messages_.push_back(std::move(m));
    if (messages_.size() > 500) messages_.erase(messages_.begin());
  }
  std::vector<Message> messages_;
  std::size_t errors_ = 0;
};

}  // namespace bs::app

namespace bs::ui {
// The Messages window (toggled from the status bar).
void draw_messages_window(const app::MessageLog& log, bool* open);
}  // namespace bs::ui
