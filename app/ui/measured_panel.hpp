// The Measured tab: what the GPU's counters measured for a launch, beside blockscope's own
// prediction for it, with the ratio, and one sentence on where they disagree most. Profiling is
// on demand (a button) and runs off the UI thread (shell/measured_tab.hpp): this panel only
// draws plain inputs and says when the button was pressed. It never names a lab or the shell.
#pragma once
#include "core/launch_counters.hpp"
#include "core/launch_record.hpp"
#include "core/status.hpp"
#include "measured/counter_worker.hpp"

namespace bs::ui {

struct MeasuredInput {
  const LaunchRecord* shown = nullptr;   // the launch the views show (what the button profiles)
  const LaunchRecord* result = nullptr;  // the latest profile of this lab (counters attached)
  // blockscope's model of `shown` alone (no hardware values): shown while no profile of it is,
  // so the CPU backend and a launch not yet profiled still show the predictions.
  const LaunchCounters* model = nullptr;
  Status refusal;  // why the shown launch cannot be profiled (GPU feature,
                   // the copy ceiling, ...); success when it can
  measured::CounterWorker::Progress progress;
  bool launches_paused = false;  // the app holds its own launches while profiling
};

// Returns true when the user pressed "Profile this launch".
bool draw_measured_panel(const MeasuredInput& in);

}  // namespace bs::ui
