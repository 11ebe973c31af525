// Waiting on a condition, never on the clock. A test that needs something to have happened (a
// worker finished, a file appeared, a frame was drawn, a status changed) polls for exactly that,
// with a deadline only a hang reaches: a fixed sleep is too short on a loaded machine (a failure
// that is not a bug) and too long everywhere else (a slow suite).
//
//   ASSERT_TRUE(bs::test::wait_until([&] { return !loader.busy(); })) << "the loader never finished";
//   ASSERT_TRUE(bs::test::wait_until([&] { return status().at("ui").at("help").boolean; }, 20s));
//
// A sleep that is itself the thing tested (a kernel that must still be running, a stretch of time
// in which nothing may happen) is not a wait: it stays a sleep, with a comment saying so.
#pragma once
#include <chrono>
#include <thread>

namespace bs::test {

// The default deadline: CI under load, the sanitizer build and a software GL renderer are all
// slow, never this slow. Reached only when what is awaited never comes.
inline constexpr std::chrono::milliseconds kGenerousTimeout{120'000};

// Calls `done` until it returns true (then true) or `timeout` has passed (then false, after one
// last call), pausing `poll` between calls.
template <class Done>
bool wait_until(Done&& done, std::chrono::milliseconds timeout = kGenerousTimeout,
                std::chrono::microseconds poll = std::chrono::milliseconds(2)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(poll);
  }
  return done();
}

}  // namespace bs::test
