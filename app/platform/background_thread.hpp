// Work the window waits on (a simulated launch, a sweep) runs below the window's thread: on a
// machine with few cores the CPU simulator's workers would otherwise take every core from the
// frame loop. Linux keeps a nice value per thread, and threads started from this one (the
// simulator's workers) inherit it.
#pragma once

namespace bs::app {

// Lowers the calling thread's priority (nice 10). Where that is refused, nothing changes.
void run_below_the_window();

}  // namespace bs::app
