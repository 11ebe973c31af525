// A lab's problem as a user kernel receives it (lab::UserProblem, packed by the lab's own spec),
// with its inputs moved into shared memory (a memfd) that every kernel runner maps, so an image
// or two matrices are copied once, not once per run or per kernel. Everything else the lab said
// (the sizes, the output, its counts and its check) is kept as it packed it.
//
// A runner maps the inputs copy-on-write: a kernel that writes to its input changes only its own
// process's copy, never this data.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.hpp"
#include "lab/user_kernel_spec.hpp"

namespace bs::custom {

// Shared regions (a problem's inputs, a run's output and owner maps) each start on a 4 KiB page.
inline std::size_t page_align(std::size_t bytes) { return (bytes + 4095) / 4096 * 4096; }

class Problem {
 public:
  // Moves the inputs of `p` into shared memory.
  static Result<Problem> create(lab::UserProblem p);

  const std::string& form() const;       // the form it was packed for
  const lab::UserProblem& spec() const;  // what the lab packed, its inputs moved out
  std::string summary() const;

  // Internals the engine reads (the layout); not needed by callers.
  struct Data;
  const std::shared_ptr<Data>& data() const { return d_; }

 private:
  std::shared_ptr<Data> d_;
};

struct InputBuffer {
  std::size_t offset = 0;  // bytes into the input memfd
  std::size_t bytes = 0;
};

struct Problem::Data {
  lab::UserProblem spec;  // inputs empty: they are in the memfd
  int memfd = -1;
  std::size_t bytes = 0;
  unsigned char* map = nullptr;     // this process's view of the inputs
  std::vector<InputBuffer> inputs;  // in the order of the form's Input parameters

  Data() = default;
  Data(const Data&) = delete;
  Data& operator=(const Data&) = delete;
  ~Data();
};

}  // namespace bs::custom
