// How busy the rest of the machine was while a simulated launch was timed (issue 36, item 14).
// A CPU simulation's time is a wall time on cores it shares with every other program, so the
// same launch reads about ten times slower on a two-core machine that is building something:
// two simulated times compare only when the load around them was alike. The measure: the busy
// time of all cores (/proc/stat) less this process's own and its children's (a user kernel's
// runner process), over the wall time, in cores. lab::measure takes it around a simulated
// launch's timed repeats (Timing::others_load); core/timing.hpp's load_changed() says when two
// timings were measured under different loads.
//
//   const LoadProbe probe;              // at the first timed repeat
//   ... the timed repeats ...
//   timing.others_load = probe.others_cores();   // -1: unknown (no /proc, too short to tell)
#pragma once
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace bs {

struct CpuSnapshot {
  double machine_busy_s = -1;  // every core's non-idle time since boot; -1: /proc/stat unread
  double ours_s = 0;           // this process's user + system time, and its live children's
  std::chrono::steady_clock::time_point at = std::chrono::steady_clock::now();
};

namespace machine_load_detail {

inline double ticks_per_s() {
  const long t = ::sysconf(_SC_CLK_TCK);
  return t > 0 ? static_cast<double>(t) : 100.0;
}

// utime + stime of /proc/PID/stat, in seconds; 0 when it cannot be read (the child has gone).
inline double process_cpu_s(const std::string& pid) {
  std::ifstream f("/proc/" + pid + "/stat");
  std::string text;
  if (!std::getline(f, text)) return 0;
  const std::size_t close = text.rfind(')');  // the command name may hold spaces
  if (close == std::string::npos) return 0;
  std::istringstream rest(text.substr(close + 2));
  std::string field;
  double utime = 0, stime = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {  // fields 14 and 15: utime, stime
    if (i == 14) utime = std::stod(field);
    if (i == 15) stime = std::stod(field);
  }
  return (utime + stime) / ticks_per_s();
}

}  // namespace machine_load_detail

inline CpuSnapshot cpu_snapshot() {
  namespace fs = std::filesystem;
  CpuSnapshot s;
  if (std::ifstream stat("/proc/stat"); stat) {
    std::string cpu;
    double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    if (stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal && cpu == "cpu")
      s.machine_busy_s = (user + nice + system + irq + softirq + steal) / machine_load_detail::ticks_per_s();
  }
  rusage self{};
  if (::getrusage(RUSAGE_SELF, &self) == 0)
    s.ours_s = static_cast<double>(self.ru_utime.tv_sec + self.ru_stime.tv_sec) +
               1e-6 * static_cast<double>(self.ru_utime.tv_usec + self.ru_stime.tv_usec);
  std::error_code ec;
  for (const auto& task : fs::directory_iterator("/proc/self/task", ec)) {
    std::ifstream children(task.path() / "children");
    std::string pid;
    while (children >> pid) s.ours_s += machine_load_detail::process_cpu_s(pid);
  }
  return s;
}

// Cores other programs kept busy between two snapshots (0 .. the machine's cores); -1 when
// unknown: /proc/stat unread, or under a tenth of a second apart (its clock ticks are 10 ms).
inline double others_cores(const CpuSnapshot& before, const CpuSnapshot& after) {
  const double wall = std::chrono::duration<double>(after.at - before.at).count();
  if (before.machine_busy_s < 0 || after.machine_busy_s < 0 || wall < 0.1) return -1;
  const double others = (after.machine_busy_s - before.machine_busy_s) - (after.ours_s - before.ours_s);
  return others > 0 ? others / wall : 0.0;
}

// A snapshot at construction; others_cores() since then.
class LoadProbe {
 public:
  double others_cores() const { return bs::others_cores(start_, cpu_snapshot()); }

 private:
  CpuSnapshot start_ = cpu_snapshot();
};

}  // namespace bs
