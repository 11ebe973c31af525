// The backend half of the grayscale lab (gray_lab.hpp): memory, launches, the clock and the
// comparison with the reference, once on the CUDA device (gray_engine_cuda.cu) and once on the
// CPU grid simulator (gray_engine_cpu.cpp). The lab itself does everything that does not depend
// on the backend (which rung, which grid, validation, the record), so the two engines stay small
// and alike. Both hold the image in both layouts, 256-byte aligned (as cudaMalloc aligns, and
// HostVector), so a vector rung's scalar head and tail are the same on the CPU as on the GPU.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/check.hpp"
#include "core/launch_record.hpp"
#include "core/status.hpp"
#include "lab/lab.hpp"
#include "labs/grayscale/gray_ladder.hpp"
#include "labs/grayscale/gray_reference.hpp"

namespace bs::gray {

class GrayEngine {
 public:
  virtual ~GrayEngine() = default;

  // The compiled kernel's attributes (cudaFuncGetAttributes) or the simulator's none; `measured`
  // says which. The library anchor has none of ours.
  virtual Result<KernelAttributes> attributes(const GrayRung& rung, GrayLayout l, bool* measured) = 0;

  // cudaOccupancyMaxPotentialBlockSize for the rung's compiled kernel: (min grid, block size);
  // the simulator has no registers to ask about, so it says why not.
  virtual Result<std::pair<int, int>> suggested_block(const GrayRung& rung, GrayLayout l) {
    (void)rung, (void)l;
    return Status::failure("the CPU simulation has no occupancy API to ask", "", "suggested_block");
  }

  // Takes the sources, read-only from now on (n = width * height): the simulation shares them
  // (planar RGB, 3n, always; RGBA, 4n, only while that layout is chosen; no reference: it checks
  // against one made from planar RGB on the fly), the GPU copies them to the device (RGBA and the
  // reference, n; planar null, as makes_planar()). Called again with the same image when the
  // layout changes. On failure the previous ones stay.
  virtual Status upload(SharedBytes planar, SharedBytes rgba, SharedBytes reference, int width, int height) = 0;
  // Whether upload() makes the planar source itself from the RGBA one (the GPU, on the device: the
  // host then makes and uploads 3 bytes a pixel less).
  virtual bool makes_planar() const { return false; }

  // The kernel arguments for output `out` (this backend's memory; null to plan); the sources held.
  virtual GrayArgs args(std::uint8_t* out) const = 0;
  // Where run() writes by default (this backend's memory, width * height bytes), made when first
  // asked for (the window's simulation writes into its own buffer); null when it cannot be made.
  virtual std::uint8_t* own_output() = 0;
  virtual Status download(std::uint8_t* host) = 0;  // own_output() to host

  // One launch, timed by this backend's clock (ms).
  virtual Result<double> launch_timed(const GrayRung& rung, GrayLayout l, const LaunchConfig& config,
                                      const GrayArgs& args) = 0;
  // One more launch of the traced form (the same body), untimed: who ran each block, when, and
  // how many threads each block really ran.
  virtual Result<std::vector<BlockTrace>> launch_traced(const GrayRung& rung, GrayLayout l, const LaunchConfig& config,
                                                        const GrayArgs& args) = 0;
  // The ceiling timed in the same run: a device-to-device copy of `bytes` out of the RGBA source
  // (the lab asks for half the bytes a kernel moves, so the copy reads and writes as much), and
  // its check (the copy equals its source, exactly). The simulator has no copy ceiling.
  virtual Result<double> copy_timed(std::size_t bytes) = 0;
  virtual Check verify_copy(std::size_t bytes) = 0;
  virtual Status flush_l2() = 0;
  virtual std::string clock() const = 0;
  virtual bool simulated() const = 0;

  // `out` against the reference, within 1 (the formula rounds in float; the reference in
  // double): the measure, the count, and the first wrong pixels.
  virtual Check verify(const std::uint8_t* out) = 0;

  // A fresh engine on the same backend (with no data), for Lab::fork.
  virtual Result<std::unique_ptr<GrayEngine>> clone() const = 0;
  // An engine on the same backend holding the same data, sharing this one's inputs (read-only
  // for every kernel) and owning only its output, for Lab::fork: a fork of a 16384^2 image
  // then costs its output's bytes, not another copy of the image. Engines that cannot share
  // (device memory) fail: the fork uploads the data again.
  virtual Result<std::unique_ptr<GrayEngine>> fork_sharing_inputs() const {
    return Status::failure("this engine does not share its inputs", "", "fork_sharing_inputs");
  }
};

std::unique_ptr<GrayEngine> make_cpu_engine(const lab::Backend& backend);
// Fails (as a value) without CUDA or without the device.
Result<std::unique_ptr<GrayEngine>> make_cuda_engine(const lab::Backend& backend);

// The comparisons made on the host: out and ref of n bytes, row width `width`; or out against
// the reference made on the fly from planar RGB (3n bytes), so no reference need be kept.
Check compare_with_reference(const std::uint8_t* out, const std::uint8_t* ref, long long n, long long width);
Check compare_with_planar_reference(const std::uint8_t* out, const std::uint8_t* planar, long long n, long long width);

}  // namespace bs::gray
