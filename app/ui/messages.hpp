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
    add({.level = Message::Error,
         .text = s.message,
         .detail = std::move(detail),
         .hint = s.hint,
         .where = std::move(where)});
  }
  const std::vector<Message>& all() const { return messages_; }
  const Message* latest() const { return messages_.empty() ? nullptr : &messages_.back(); }
  // The newest warning or error (infos after it do not hide it), or nullptr.
  const Message* latest_problem() const {
    for (auto it = messages_.rbegin(); it != messages_.rend(); ++it)
      if (it->level != Message::Info) return &*it;
    return nullptr;
  }
  // Something the user asked for succeeded (a new selection or new data launched and ran): the
  // warnings and errors before it are no longer the news.
  void succeeded() { success_mark_ = added_; }
  // The newest message while it is still the news: a warning or an error that a later success
  // superseded is not (the status file's "status_message"). nullptr when there is none.
  const Message* current() const {
    if (messages_.empty()) return nullptr;
    const Message& m = messages_.back();
    return m.level != Message::Info && success_mark_ >= added_ ? nullptr : &m;
  }
  std::size_t errors() const { return errors_; }
  // Messages added so far, the ones the log no longer keeps included (a change counter).
  std::size_t added() const { return added_; }
  void clear() {
    messages_.clear();
    errors_ = 0;
  }

 private:
  void add(Message m) {
    if (m.level == Message::Error) ++errors_;
    ++added_;
    messages_.push_back(std::move(m));
    if (messages_.size() > 500) messages_.erase(messages_.begin());
  }
  std::vector<Message> messages_;
  std::size_t errors_ = 0;
  std::size_t added_ = 0;
  std::size_t success_mark_ = 0;  // added_ when something last succeeded
};

}  // namespace bs::app

namespace bs::ui {
// The Messages window (toggled from the status bar).
void draw_messages_window(const app::MessageLog& log, bool* open);
}  // namespace bs::ui
