// The grayscale ladder: the lecture's two kernels, the rungs that take grayscale to the memory
// limit, and CUB's DeviceTransform as the library anchor. For each rung: its stable id, what it
// teaches, its file, how its grid follows from the image and the device, the launches it refuses,
// and exactly which pixels each of its threads owns (IndexScheme) for a given set of buffers.
//
// Section index
//   GrayRung, GrayRungInfo     the table (gray_rungs) and look-ups by id
//   gray_rung_launch_config    the grid rule: block + image + device -> LaunchConfig
//   check_gray_rung_launch     refusals, before any launch
//   gray_rung_scheme           the ownership of a launch (heads and tails depend on the buffers)
//   gray_bytes_moved           the bytes each layout counts
//   simulate_gray_rung         the CPU backend (the GPU's is gray_ladder_cuda.hpp)
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/index_scheme.hpp"
#include "core/launch.hpp"
#include "core/status.hpp"
#include "core/units.hpp"
#include "labs/grayscale/gray_common.hpp"
#include "simulator/grid_simulator.hpp"

namespace bs::gray {

// In ladder order. The last is not ours: CUB's DeviceTransform, timed as the library anchor.
enum class GrayRung : std::uint8_t {
  Flat1D,      // gray_1d_flat      (lecture)
  Grid2D,      // gray_2d           (lecture)
  Ilp4,        // gray_ilp4         4 pixels per thread
  Vec16,       // gray_vec16        16-byte loads and stores, scalar head and tail
  GridStride,  // gray_grid_stride  grid sized from the device, the 16-byte body in a loop
  CubTransform,  // cub_transform   cub::DeviceTransform::Transform (library anchor)
};
inline constexpr int kGrayRungCount = 6;

struct GrayRungInfo {
  GrayRung rung;
  std::string_view id;         // stable: LaunchRecord::kernel, --kernel, bench JSON
  std::string_view label;      // for the kernel list
  std::string_view teaches;    // one sentence: what this rung changes and why
  std::string_view file;       // the file holding its body
  KernelGroup group;           // lecture, ladder or library
  unsigned block_rank;         // 1: blockDim x*y*z flattened; 2: x over columns, y over rows
  Dim3 default_block;
  std::string_view grid_rule;  // how the grid follows from the image (and the device)
  bool grid_stride;            // loops over the image: any grid covers it (fixed grids allowed)
  bool library_anchor;         // timed and verified only: no grid of ours to draw, no simulator
};

const std::vector<GrayRungInfo>& gray_rungs();
const GrayRungInfo& rung_info(GrayRung r);
std::optional<GrayRung> gray_rung_from_id(std::string_view id);
std::optional<GrayLayout> gray_layout_from_name(std::string_view name);  // "planar", "rgba"

// Block shapes the UI offers and bench sweeps.
const std::vector<Dim3>& gray_rung_presets(GrayRung r);

// Pixels per access of the output (IndexScheme::vector) and chunks per thread per pass
// (IndexScheme::per_thread).
unsigned gray_rung_vector(GrayRung r, GrayLayout l);
unsigned gray_rung_per_thread(GrayRung r);

// The grid the rung launches `block` with over a width x height image. The grid-stride rungs size
// it from the device: SMs x blocks resident per SM (mapping/occupancy.hpp, with the kernel's
// registers from `kernel`), never more blocks than the image needs. For the library anchor the
// result is empty (CUB picks its own grid).
LaunchConfig gray_rung_launch_config(GrayRung r, GrayLayout l, Dim3 block, int width, int height,
                                     const DeviceLimits& limits, const KernelAttributes& kernel);

// Refusals on top of CUDA's own rules (validate_launch): no image, an image over 2^31 - 1 pixels,
// blockDim.z > 1 for the 2D kernel, grids with y or z extent for the flattened kernels, and a
// fixed grid too small to cover the image for the rungs that do not loop.
Status check_gray_rung_launch(GrayRung r, GrayLayout l, const LaunchConfig& config, int width,
                              int height, const DeviceLimits& limits,
                              const KernelAttributes* kernel);

// How the launch's threads own the pixels, for these buffers (the vector rungs' scalar head and
// tail depend on where the source and output start). nullopt for the library anchor.
std::optional<IndexScheme> gray_rung_scheme(GrayRung r, GrayLayout l, const GrayArgs& buffers);

// The vector plan the kernel itself computes for these buffers (head, chunks, tail, the streams'
// misalignments); all scalar (head = n) for the scalar rungs.
GrayVecPlan gray_rung_plan(GrayRung r, GrayLayout l, const GrayArgs& buffers);

// The napkin count behind the GB/s figure: 3 bytes read + 1 written per pixel (planar), 4 + 1
// (RGBA), and the sentence that says so.
double gray_bytes_moved(GrayLayout l, int width, int height);
std::string gray_bytes_note(GrayLayout l);
// And the FLOPs: 2 FMAs and a multiply per pixel, 5 in all (whatever the layout).
double gray_flops(int width, int height);

// Runs the rung's own body for every thread of `config` on the simulator. The library anchor is
// refused with a Status (it has no body of ours).
sim::SimResult simulate_gray_rung(sim::GridSimulator& simulator, GrayRung r, GrayLayout l,
                                  const LaunchConfig& config, const GrayArgs& args,
                                  sim::SimOptions options = {});

}  // namespace bs::gray
