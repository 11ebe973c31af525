// `blockscope-selftest fault` (see fault.hpp).
#include "fault.hpp"

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "device/cuda_device.hpp"
#include "labs/catalog.hpp"
#include "labs/grayscale/gray_reference.hpp"
#include "platform/window.hpp"
#include "shell/app.hpp"
#include "shell/compute_session.hpp"

namespace bs::selftest {

using namespace bs::app;

int run_fault(const FaultOptions& o) {
  auto window = make_headless_window(1280, 800, o.cuda_device);
  if (!window) {
    std::fprintf(stderr, "fault: cannot create a headless OpenGL context: %s\n", window.status().describe().c_str());
    return kExitFailure;
  }
  const int preferred = o.cuda_device >= 0 ? o.cuda_device : (*window)->egl_cuda_device();
  auto session = open_compute_session(BackendChoice::Cuda, preferred, false);
  if (!session) {
    std::fprintf(stderr, "fault: no usable CUDA device: %s\n", session.status().describe().c_str());
    return kExitNoBackend;
  }
  const int device = session->backend.cuda_device;
  CliOptions options;
  options.headless = true;
  options.backend = BackendChoice::Cuda;
  options.state.lab = "gray";
  options.state.selection.kernel = "gray_2d";
  options.state.selection.block = Dim3{16, 16, 1};
  auto app_r = App::create(**window, options, std::move(session.value()), built_in_labs());
  if (!app_r) {
    std::fprintf(stderr, "fault: cannot start: %s\n", app_r.status().describe().c_str());
    return kExitFailure;
  }
  App& app = *app_r.value();
  for (int f = 0; f < o.frames; ++f) {
    if (f == o.at_frame) {
      const Status s = inject_illegal_address(device);
      std::printf("fault: injected before frame %d: %s\n", f, s.describe().c_str());
      app.request_relaunch();
    }
    app.frame();
    if (f + 1 < o.frames) app.present();
  }
  // What the app said and where it is now.
  bool named = false;
  for (const auto& m : app.messages().all()) {
    if (m.level != Message::Info) std::printf("fault: message: %s - %s\n", m.text.c_str(), m.detail.c_str());
    named |= m.text.find("cudaErrorIllegalAddress") != std::string::npos ||
             m.detail.find("cudaErrorIllegalAddress") != std::string::npos;
  }
  std::printf("backend: %s\n", app.backend_label().c_str());
  std::printf("%s\n", app.summary().c_str());
  int failures = 0;
  auto expect = [&](bool ok, const char* what) {
    std::printf("fault: %s: %s\n", ok ? "ok" : "FAILED", what);
    failures += ok ? 0 : 1;
  };
  expect(app.device_faulted(), "the app saw the fault and moved to the CPU simulation");
  expect(named, "the fault is reported by name (cudaErrorIllegalAddress)");
  expect(app.backend().kind == BackendKind::CpuSimulation, "the backend now is the CPU simulation");
  const LaunchRecord& rec = app.last_launch();
  expect(rec.ok() && rec.check.passed(), "the launch after the fault ran and was verified");
  // The result the view shows (read back from GL) against the reference of the image it kept.
  int w = 0, h = 0;
  std::vector<std::uint8_t> shown = app.current_view()->read_output(&w, &h);
  auto* gray = app.current_view();
  const lab::ProblemInfo p = gray->lab().problem();
  expect(w == p.width && h == p.height && w > 0, "the image is kept");
  if (!o.output.empty()) {
    if (Status s = app.write_output(o.output); !s) expect(false, "the output PNG was written");
    else std::printf("wrote output: %s\n", o.output.c_str());
  }
  app.present();
  std::printf("fault: %s\n", failures == 0 ? "PASSED" : "FAILED");
  return failures == 0 ? kExitOk : kExitFailure;
}

}  // namespace bs::selftest
