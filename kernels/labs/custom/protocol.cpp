#include "labs/custom/protocol.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace bs::custom::wire {
namespace {

constexpr std::uint32_t kMagic = 0x524b5342;       // "BSKR"
constexpr std::uint64_t kMaxPayload = 1ull << 32;  // a cubin or a schedule, never more

struct Header {
  std::uint32_t magic;
  std::uint32_t type;
  std::uint64_t size;
};

Status closed() { return Status::failure("the kernel runner closed the connection", "", "recv", "closed"); }
Status timeout() { return Status::failure("no answer from the kernel runner in time", "", "recv", "timeout"); }

// Waits until `socket` is readable or the deadline passes.
Status wait_readable(int socket, std::optional<Clock::time_point> deadline) {
  for (;;) {
    int ms = -1;
    if (deadline) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now()).count();
      if (left <= 0) return timeout();
      ms = static_cast<int>(std::min<long long>(left, 60'000));
    }
    pollfd p{socket, POLLIN, 0};
    const int r = poll(&p, 1, ms);
    if (r > 0) return Status::success();
    if (r < 0 && errno != EINTR) return Status::failure("poll failed", "", "poll");
  }
}

// Reads exactly `n` bytes (collecting descriptors that arrive with them).
Status read_exact(int socket, char* out, std::size_t n, std::vector<int>& fds,
                  std::optional<Clock::time_point> deadline) {
  std::size_t got = 0;
  while (got < n) {
    if (Status s = wait_readable(socket, deadline); !s) return s;
    iovec iov{out + got, n - got};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 4)];
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    const ssize_t r = recvmsg(socket, &msg, MSG_CMSG_CLOEXEC);
    if (r < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return closed();
    }
    if (r == 0) return closed();
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
      const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (std::size_t i = 0; i < count; ++i) {
        int fd;
        std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
        fds.push_back(fd);
      }
    }
    got += static_cast<std::size_t>(r);
  }
  return Status::success();
}

}  // namespace

const char* to_string(Msg m) {
  switch (m) {
    case Msg::Hello: return "Hello";
    case Msg::Info: return "Info";
    case Msg::CompileGpu: return "CompileGpu";
    case Msg::Compiled: return "Compiled";
    case Msg::LoadGpu: return "LoadGpu";
    case Msg::LoadCpu: return "LoadCpu";
    case Msg::Loaded: return "Loaded";
    case Msg::SetProblem: return "SetProblem";
    case Msg::Ack: return "Ack";
    case Msg::Launch: return "Launch";
    case Msg::Launched: return "Launched";
    case Msg::FlushL2: return "FlushL2";
    case Msg::Fetch: return "Fetch";
    case Msg::SampleLines: return "SampleLines";
    case Msg::RecordShared: return "RecordShared";
    case Msg::SharedRecorded: return "SharedRecorded";
    case Msg::Lines: return "Lines";
    case Msg::ProfileCounters: return "ProfileCounters";
    case Msg::Counters: return "Counters";
  }
  return "?";
}

Status send(int socket, Msg type, const std::string& payload, const std::vector<int>& fds) {
  Header h{kMagic, static_cast<std::uint32_t>(type), payload.size()};
  std::string frame(reinterpret_cast<const char*>(&h), sizeof h);
  frame += payload;
  std::size_t sent = 0;
  bool fds_sent = fds.empty();
  while (sent < frame.size()) {
    iovec iov{frame.data() + sent, frame.size() - sent};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 4)] = {};
    if (!fds_sent) {
      msg.msg_control = control;
      msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
      cmsghdr* c = CMSG_FIRSTHDR(&msg);
      c->cmsg_level = SOL_SOCKET;
      c->cmsg_type = SCM_RIGHTS;
      c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
      std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
    }
    const ssize_t r = sendmsg(socket, &msg, MSG_NOSIGNAL);
    if (r < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return Status::failure("the kernel runner is gone (the connection broke)", "", "sendmsg", "closed");
    }
    fds_sent = true;
    sent += static_cast<std::size_t>(r);
  }
  return Status::success();
}

Result<Frame> receive(int socket, std::optional<Clock::time_point> deadline) {
  Frame f;
  Header h{};
  if (Status s = read_exact(socket, reinterpret_cast<char*>(&h), sizeof h, f.fds, deadline); !s) {
    for (int fd : f.fds) close(fd);
    return s;
  }
  if (h.magic != kMagic || h.size > kMaxPayload) {
    for (int fd : f.fds) close(fd);
    return Status::failure("the kernel runner sent a malformed message", "", "recv", "protocol");
  }
  f.type = static_cast<Msg>(h.type);
  f.payload.resize(h.size);
  if (Status s = read_exact(socket, f.payload.data(), h.size, f.fds, deadline); !s) {
    for (int fd : f.fds) close(fd);
    return s;
  }
  return f;
}

}  // namespace bs::custom::wire
