// The --status-file snapshot: what the app shows, as JSON, for scripts and tests that drive the
// real window from outside (tests/app/test_xdnd_drop.cpp drops files through XDND and reads this
// to see what happened). A plain struct the App fills at the end of a frame; the writer puts it
// on disk only when something other than the frame number changed, atomically (FILE.tmp, then
// rename), so a reader never sees half a file.
//
//   {"frame":12,"lab":"gray","loading":false,
//    "data":{"name":"photo.png","width":333,"height":217},        (absent when none)
//    "launch":{"kernel":"gray_1d_flat","grid":[283,1,1],"block":[256,1,1],"ok":true,
//              "message":""},                                       (absent before any launch)
//    "output":{"fnv1a64":"8c1f...","width":333,"height":217},       (absent without an output)
//    "status_message":"Loaded photo.png (333 x 217, PNG)","errors":0,   (the newest message that is
//                                         still the news: "" once a later launch of a new selection
//                                         or new data ran after a warning or an error)
//    "messages":[{"level":"info","text":"..."}, ...],               (the last 20, oldest first)
//    "ui":{"help":false,"file_browser":false,"messages_window":false,"fullscreen":false,
//          "text_scale":1,"left_open":true,"side_open":true,"panel":"launch","centre":"data",
//                                         (the side and centre tabs shown, as --panel names them)
//          "launch_in_flight":false,"popup_open":false,
//          "state":"gray_2d, 32x8: 1.23 ms, correct",               (the status bar's line)
//          "notice":"Could not load notes.txt: ...",                 (a new warning or error the
//                                                                      status bar shows, or "")
//          "frame_ms":12.3}}                                        (what the last frame took)
//
// "output" is the kernel's result as read back from the GL texture the view shows, hashed with
// FNV-1a 64 (offset basis 0xcbf29ce484222325, prime 0x100000001b3) over its width * height bytes,
// row-major, top row first; it is present only when the latest launch succeeded.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/dim.hpp"
#include "core/status.hpp"

namespace bs::app {

struct StatusReport {
  long long frame = 0;
  std::string lab;       // "gray" or "matmul"
  bool loading = false;  // the background loader still has files to go

  struct Data {  // the lab's data: an image, the matrices
    std::string name;
    int width = 0, height = 0;
  };
  std::optional<Data> data;

  struct Launch {
    std::string kernel;
    Dim3 grid{0, 0, 0}, block{0, 0, 0};
    bool ok = false;
    std::string message;  // the refusal or failure; empty when ok
  };
  std::optional<Launch> launch;

  struct Output {
    std::uint64_t fnv1a64 = 0;
    int width = 0, height = 0;
  };
  std::optional<Output> output;

  std::string status_message;  // the newest message (the status bar's Messages tooltip; View > Messages)
  std::size_t errors = 0;      // error messages so far (the log keeps only the newest 500)

  struct Entry {
    std::string level;  // "info", "warning", "error"
    std::string text;
  };
  std::vector<Entry> messages;  // the newest kLastMessages, oldest first
  // The window's own state (what the shortcuts and menus change), for tests that drive it.
  struct Ui {
    bool help = false, file_browser = false, messages_window = false, fullscreen = false;
    float text_scale = 1;
    bool left_open = true, side_open = true;
    std::string panel, centre;      // the side and the centre tab shown
    bool launch_in_flight = false;  // a launch runs on the worker thread
    bool popup_open = false;        // a menu, combo or popup is open
    std::string state;              // the status bar's line about the open lab's selection
    std::string notice;             // a warning or error the status bar shows in its colour, or ""
    double frame_ms = 0;            // what the last frame took to draw (the status bar's figure)
  };
  std::optional<Ui> ui;

  static constexpr std::size_t kLastMessages = 20;
};

// FNV-1a 64 of `size` bytes.
std::uint64_t fnv1a64(const std::uint8_t* data, std::size_t size);

// The JSON above (one line). Without the frame number when `with_frame` is false, which is how
// the writer tells whether anything changed.
std::string status_report_json(const StatusReport& report, bool with_frame = true);

// Writes a report to one file whenever it changed.
class StatusFileWriter {
 public:
  explicit StatusFileWriter(std::filesystem::path path) : path_(std::move(path)) {}

  // Writes `report` unless only its frame number differs from the last one written. A failure
  // (folder missing, disk full) is returned every time; the caller decides how often to say so.
  Status update(const StatusReport& report);

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  std::optional<std::string> last_written_;  // without the frame number
};

}  // namespace bs::app
