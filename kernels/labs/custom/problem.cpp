#include "labs/custom/problem.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace bs::custom {

Problem::Data::~Data() {
  if (map) munmap(map, bytes);
  if (memfd >= 0) close(memfd);
}

Result<Problem> Problem::create(lab::UserProblem p) {
  auto d = std::make_shared<Data>();
  std::size_t total = 0;
  for (const auto& in : p.inputs) {
    d->inputs.push_back(InputBuffer{total, in.size()});
    total += page_align(in.size());
  }
  d->bytes = std::max<std::size_t>(total, 4096);
  d->memfd = memfd_create("blockscope-problem", MFD_CLOEXEC);
  if (d->memfd < 0)
    return Status::failure(std::string("cannot create shared memory for the problem: ") + std::strerror(errno), "",
                           "memfd_create");
  if (ftruncate(d->memfd, static_cast<off_t>(d->bytes)) != 0)
    return Status::failure(std::string("cannot size the problem's shared memory: ") + std::strerror(errno),
                           "is /dev/shm or memory full?", "ftruncate");
  void* m = mmap(nullptr, d->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, d->memfd, 0);
  if (m == MAP_FAILED)
    return Status::failure(std::string("cannot map the problem's shared memory: ") + std::strerror(errno), "", "mmap");
  d->map = static_cast<unsigned char*>(m);
  for (std::size_t i = 0; i < p.inputs.size(); ++i)
    if (!p.inputs[i].empty()) std::memcpy(d->map + d->inputs[i].offset, p.inputs[i].data(), p.inputs[i].size());
  p.inputs.clear();
  p.inputs.shrink_to_fit();
  d->spec = std::move(p);
  Problem out;
  out.d_ = std::move(d);
  return out;
}

const std::string& Problem::form() const {
  static const std::string none;
  return d_ ? d_->spec.form : none;
}

const lab::UserProblem& Problem::spec() const {
  static const lab::UserProblem none;
  return d_ ? d_->spec : none;
}

std::string Problem::summary() const { return d_ ? d_->spec.summary : "no problem"; }

}  // namespace bs::custom
