#include "platform/background_thread.hpp"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace bs::app {

void run_below_the_window() { setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10); }

}  // namespace bs::app
