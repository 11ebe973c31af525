// blockscope-kernel-runner: runs one user-written kernel for blockscope, in a process of its own,
// so a kernel that faults, corrupts memory or never finishes costs this process and nothing of
// blockscope's: blockscope kills it (SIGKILL to its process group) and starts another.
//
//   blockscope-kernel-runner --socket=FD --backend=cpu|gpu [--device=N] [--parent=PID]
//
// It is not a user command: blockscope starts it with one end of a socketpair as FD and talks the
// protocol of kernels/labs/custom/protocol.hpp. It dies with its parent (PR_SET_PDEATHSIG).
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "labs/custom/runner/runner.hpp"

// The protocol version this runner speaks (protocol.hpp). A test builds a stand-in for a stale
// runner with another value.
#ifndef BS_RUNNER_PROTOCOL_VERSION
#define BS_RUNNER_PROTOCOL_VERSION ::bs::custom::wire::kProtocolVersion
#endif

namespace {

using namespace bs::custom;

void unmap(runner::ProblemMaps& m) {
  if (m.input) munmap(m.input, m.head.input_bytes);
  if (m.output) munmap(m.output, m.head.output_bytes);
  m = runner::ProblemMaps{};
}

std::string map_problem(const wire::Frame& f, runner::ProblemMaps& maps) {
  unmap(maps);
  wire::Reader r(f.payload);
  maps.head = r.pod<wire::SetProblemHead>();
  if (!r.ok() || f.fds.size() != 2 || maps.head.nbuffers > 4) return "malformed SetProblem";
  auto map = [](int fd, std::uint64_t bytes, int flags) -> unsigned char* {
    if (bytes == 0) return nullptr;
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, flags, fd, 0);
    return p == MAP_FAILED ? nullptr : static_cast<unsigned char*>(p);
  };
  maps.input = map(f.fds[0], maps.head.input_bytes, MAP_PRIVATE);
  maps.output = map(f.fds[1], maps.head.output_bytes, MAP_SHARED);
  if ((maps.head.input_bytes && !maps.input) || (maps.head.output_bytes && !maps.output))
    return std::string("cannot map the problem's shared memory: ") + std::strerror(errno);
  maps.ready = true;
  return {};
}

int serve(int sock, runner::Backend& backend) {
  runner::ProblemMaps maps;
  for (;;) {
    auto frame = wire::receive(sock);
    if (!frame) return 0;  // blockscope closed the connection: done
    wire::Frame& f = *frame;
    bs::Status sent;
    switch (f.type) {
      case wire::Msg::Hello: {
        // Answered whatever the parent speaks: it compares the versions and says which is stale.
        wire::Info info = backend.info();
        info.head.protocol_version = BS_RUNNER_PROTOCOL_VERSION;
        sent = wire::send(sock, wire::Msg::Info, wire::encode(info));
        break;
      }
      case wire::Msg::CompileGpu: {
        const std::string unit = wire::Reader(f.payload).str();
        sent = wire::send(sock, wire::Msg::Compiled, wire::encode(backend.compile_gpu(unit)));
        break;
      }
      case wire::Msg::LoadGpu:
      case wire::Msg::LoadCpu: {
        std::string file;        // the GPU's image (cubin or PTX), or the CPU's shared object
        std::uint32_t flag = 0;  // GPU: the image is PTX; CPU: the kernel uses barriers
        wire::Reader(f.payload)(file, flag);
        const wire::Loaded loaded =
            f.type == wire::Msg::LoadGpu ? backend.load_gpu(file, flag) : backend.load_cpu(file, flag);
        sent = wire::send(sock, wire::Msg::Loaded, wire::encode(loaded));
        break;
      }
      case wire::Msg::SetProblem: {
        std::string error = map_problem(f, maps);
        if (error.empty()) error = backend.set_problem(maps);
        sent = wire::send(sock, wire::Msg::Ack, wire::encode_ack(error.empty(), error));
        break;
      }
      case wire::Msg::Launch: {
        wire::Reader r(f.payload);
        const auto launch = r.pod<wire::LaunchHead>();
        wire::Launched result;
        if (!r.ok()) result.message = "malformed Launch";
        else if (!maps.ready) result.message = "no problem set";
        else result = backend.launch(launch, maps);
        sent = wire::send(sock, wire::Msg::Launched, wire::encode(result));
        if (result.head.fatal) return 3;  // a poisoned CUDA context: blockscope starts another
        break;
      }
      case wire::Msg::SampleLines: {
        wire::Reader r(f.payload);
        const auto request = r.pod<wire::SampleLinesHead>();
        const std::string counting_object = r.str();
        wire::Lines result;
        if (!r.ok()) result.profile.status = bs::Status::failure("malformed SampleLines");
        else if (!maps.ready) result.profile.status = bs::Status::failure("no problem set");
        else result = backend.sample_lines(request, counting_object, maps);
        sent = wire::send(sock, wire::Msg::Lines, wire::encode(result));
        if (result.head.fatal) return 3;  // a poisoned CUDA context: blockscope starts another
        break;
      }
      case wire::Msg::ProfileCounters: {
        wire::Reader r(f.payload);
        const auto request = r.pod<wire::ProfileCountersHead>();
        const std::string cupti = r.str();
        wire::Counters result;
        if (!r.ok()) result.status = bs::Status::failure("malformed ProfileCounters");
        else if (!maps.ready) result.status = bs::Status::failure("no problem set");
        else result = backend.profile_counters(request, cupti, maps);
        sent = wire::send(sock, wire::Msg::Counters, wire::encode(result));
        if (result.head.fatal) return 3;  // a poisoned CUDA context: blockscope starts another
        break;
      }
      case wire::Msg::RecordShared: {
        wire::Reader r(f.payload);
        const auto request = r.pod<wire::RecordSharedHead>();
        const std::string object = r.str();
        wire::SharedRecorded result;
        if (!r.ok()) result.message = "malformed RecordShared";
        else if (!maps.ready) result.message = "no problem set";
        else result = backend.record_shared(request, object, maps);
        sent = wire::send(sock, wire::Msg::SharedRecorded, wire::encode(result));
        break;
      }
      case wire::Msg::FlushL2: {
        const std::string error = maps.ready ? backend.flush_l2(maps) : std::string("no problem set");
        sent = wire::send(sock, wire::Msg::Ack, wire::encode_ack(error.empty(), error));
        break;
      }
      case wire::Msg::Fetch: {
        const std::string error = maps.ready ? backend.fetch(maps) : std::string("no problem set");
        sent = wire::send(sock, wire::Msg::Ack, wire::encode_ack(error.empty(), error));
        break;
      }
      default: break;
    }
    for (int fd : f.fds) close(fd);
    if (!sent) return 0;
  }
}

}  // namespace

int main(int argc, char** argv) {
  int sock = -1, device = 0;
  long parent = 0;
  std::string backend_name = "cpu";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* key) -> const char* {
      const std::size_t n = std::strlen(key);
      return a.compare(0, n, key) == 0 ? a.c_str() + n : nullptr;
    };
    if (const char* v = value("--socket=")) sock = std::atoi(v);
    else if (const char* v = value("--backend=")) backend_name = v;
    else if (const char* v = value("--device=")) device = std::atoi(v);
    else if (const char* v = value("--parent=")) parent = std::atol(v);
  }
  if (sock < 0) {
    std::fprintf(stderr,
                 "blockscope-kernel-runner runs user kernels for blockscope and is started by "
                 "it; it is not a command to run by hand.\n");
    return 2;
  }
  // Die with blockscope, so no runner (or GPU context) outlives it.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (parent > 0 && getppid() != parent) return 0;
  // Below blockscope's own priority: a user kernel spinning in an endless loop on every
  // simulator worker must not starve the window while it waits for the time limit. (GPU times
  // come from CUDA events on the device; the simulator's times are not a GPU's anyway.)
  setpriority(PRIO_PROCESS, 0, 10);

  auto backend =
      backend_name == "gpu" ? bs::custom::runner::make_gpu_backend(device) : bs::custom::runner::make_cpu_backend();
  return serve(sock, *backend);
}
