// The App in-process on the CPU simulation behind a window the test owns (headless options), as
// the fixtures that drive it through their own window start it. `options` carries what the test
// sets (files, lab, selection, status file); headless and the CPU backend are set here.
#pragma once
#include <memory>

#include "labs/catalog.hpp"
#include "shell/app.hpp"
#include "shell/compute_session.hpp"

namespace bs::app::test {

inline Result<std::unique_ptr<App>> open_cpu_app(Window& window, CliOptions options = {}) {
  auto session = open_compute_session(BackendChoice::Cpu, -1, false);
  if (!session) return session.status();
  options.headless = true;
  options.backend = BackendChoice::Cpu;
  return App::create(window, std::move(options), std::move(session.value()), built_in_labs());
}

}  // namespace bs::app::test
