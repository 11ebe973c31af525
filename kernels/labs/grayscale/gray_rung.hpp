// What a grayscale rung is, to the rest of blockscope: the traits every rung file fills in, their
// defaults, and GrayRung, the rung as the lab, the engines and the views hold it. A rung is ONE
// file (gray_1d_flat.hpp ... gray_grid_stride.hpp, gray_cub.hpp) that holds its kernel body and,
// at its end, a traits struct; gray_registry.hpp lists the traits, one line a rung. Nothing else
// names a rung. The matmul ladder is built the same way (labs/matmul/matmul_rung.hpp).
//
// A traits struct (derive from GrayRungBase<Self> and override what differs):
//   static lab::KernelInfo info();       id, label, teaching note, file, group, block shapes and
//                                        presets (or compiled configurations), the grid rule
//   template <GrayLayout L, class Ctx> static BS_HD void body(const Ctx&, const GrayArgs&)
//                                        the per-thread body the simulator and the CUDA wrappers run
//   kBody                                false: no body of ours (the library anchor); then
//                                        launch_cuda(layout, args, stream) launches it on the GPU
//   kPerThread, kGridStride              chunks per thread per pass; loops over the image
//   kUserTemplate                        the user-kernel template the editor opens for it
//   vector(layout), plan(layout, args)   pixels per access and the 16-byte plan (head, tail)
//   launch_config(layout, block, w, h, limits, attributes)   the grid rule
//   check(layout, config, w, h, limits, attributes)          refusals (CUDA's rules included)
//   scheme(layout, args)                 how its threads own the pixels (IndexScheme)
//   owner(record, x, y)                  who stores pixel (x, y): the inspector and the overlay
//   warp_accesses(record, layout, block, warp, step)          a warp's requests (Memory tab and
//                                        the sectors the Measured tab predicts beside counters)
//   counts(layout, w, h)                 bytes moved, what they are, FLOPs
//
// Section index
//   GrayRung              the type-erased rung: its info and its traits' functions
//   GrayCounts            bytes and FLOPs counted for one launch
//   helpers               the flat grid rule, the checks every rung shares, the default access model
//   GrayRungBase          the defaults: a flattened rung, one pixel per access, one per thread
//   make_gray_rung<R>     traits -> GrayRung
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/index_scheme.hpp"
#include "core/launch.hpp"
#include "core/launch_record.hpp"
#include "core/status.hpp"
#include "lab/lab.hpp"
#include "labs/grayscale/gray_common.hpp"
#include "mapping/memory_access.hpp"
#include "mapping/thread_map.hpp"
#include "simulator/grid_simulator.hpp"

namespace bs::gray {

enum class GrayKernel : int;  // gray_registry.hpp: one enumerator a rung

struct GrayCounts {
  double bytes_moved = 0;
  std::string bytes_note;
  double flops = 0;
};

// A rung as the lab sees it: what the kernel list shows and its traits' functions (filled by
// make_gray_rung from the traits; the lab never asks which rung it is).
struct GrayRung {
  lab::KernelInfo info;
  // Its line in BS_GRAY_RUNGS, through which the CUDA build launches it; none for a rung added
  // to a ladder at run time (a test's), which runs on the simulator only.
  std::optional<GrayKernel> kernel;
  bool body = true;  // a per-thread body of ours: the simulator runs it
  std::string_view user_template;
  LaunchConfig (*launch_config)(GrayLayout, Dim3 block, int width, int height, const DeviceLimits&,
                                const KernelAttributes&) = nullptr;
  Status (*check)(GrayLayout, const LaunchConfig&, int width, int height, const DeviceLimits&,
                  const KernelAttributes*) = nullptr;
  std::optional<IndexScheme> (*scheme)(GrayLayout, const GrayArgs&) = nullptr;
  GrayVecPlan (*plan)(GrayLayout, const GrayArgs&) = nullptr;
  std::optional<mapping::ElementOwner> (*owner)(const LaunchRecord&, long long x, long long y) = nullptr;
  std::vector<mapping::WarpAccess> (*warp_accesses)(const LaunchRecord&, GrayLayout, Dim3 block, unsigned warp,
                                                    int step) = nullptr;
  GrayCounts (*counts)(GrayLayout, int width, int height) = nullptr;
  // Every thread of `config` on the simulator (a Status for a rung without a body).
  sim::SimResult (*simulate)(sim::GridSimulator&, GrayLayout, const LaunchConfig&, const GrayArgs&,
                             sim::SimOptions) = nullptr;
  // One thread of the body on the host (tests record who writes each pixel); null without a body.
  void (*thread)(GrayLayout, const sim::HostCtx&, const GrayArgs&) = nullptr;
};

// ---------------------------------------------------------------------------------------------
// helpers the traits share (gray_ladder.cpp)
// ---------------------------------------------------------------------------------------------

// Block shapes the UI offers and bench sweeps: 1D runs, and 2D rectangles.
const std::vector<Dim3>& gray_flat_presets();
const std::vector<Dim3>& gray_2d_presets();

// The grid of a flattened rung: every chunk of `vector` pixels owned (`per_thread` chunks a
// thread), the scalar head and tail within the first threads; a grid-stride rung's is one wave of
// resident blocks (SMs x blocks per SM from the occupancy calculator, with the kernel's
// registers), never more blocks than the image needs.
LaunchConfig gray_flat_launch_config(Dim3 block, int width, int height, unsigned vector, unsigned per_thread,
                                     bool grid_stride, const DeviceLimits& limits, const KernelAttributes& kernel);

// A flattened kernel numbers its threads by blockIdx.x alone: grids with y or z extent refused.
Status refuse_grid_extent(const LaunchConfig& config);
// A rung that does not loop needs at least its rule's grid (`rule`) to cover the image.
Status refuse_small_grid(std::string_view id, const LaunchConfig& rule, const LaunchConfig& config, int width,
                         int height);

// The 2D rungs: x over columns and y over rows, or (x_over_rows) x over rows and y over columns,
// one pixel a thread. The grid covers the image; blockDim.z must be 1 (each z thread would redo
// its pixel), gridDim.y has CUDA's 65535 limit (the hint names the blockDim.y that keeps to it),
// and a fixed grid must cover the image.
LaunchConfig gray_2d_launch_config(Dim3 block, int width, int height, bool x_over_rows);
Status check_gray_2d_launch(std::string_view id, const LaunchConfig& config, int width, int height,
                            const DeviceLimits& limits, const KernelAttributes* kernel, bool x_over_rows);

// The default access model: the warp's requests from the record's scheme (Flat, 2D, 2D with x
// over rows) in the layout it read; none for other schemes.
std::vector<mapping::WarpAccess> gray_warp_accesses(const LaunchRecord& record, GrayLayout layout, Dim3 block,
                                                    unsigned warp, int step);

// The napkin count behind the GB/s figure: 3 bytes read + 1 written per pixel (planar), 4 + 1
// (RGBA), and the sentence that says so; 2 FMAs and a multiply per pixel, 5 FLOPs.
double gray_bytes_moved(GrayLayout l, int width, int height);
std::string gray_bytes_note(GrayLayout l);
double gray_flops(int width, int height);

// ---------------------------------------------------------------------------------------------
// GrayRungBase: the defaults
// ---------------------------------------------------------------------------------------------

template <class R>
struct GrayRungBase {
  static constexpr bool kBody = true;
  static constexpr unsigned kPerThread = 1;
  static constexpr bool kGridStride = false;
  static constexpr std::string_view kUserTemplate = "gray_1d";  // gray_user_spec.cpp's ids

  static unsigned vector(GrayLayout) { return 1; }
  static GrayVecPlan plan(GrayLayout, const GrayArgs& a) {
    GrayVecPlan p;
    p.head = a.n;  // all scalar
    return p;
  }
  static LaunchConfig launch_config(GrayLayout l, Dim3 block, int width, int height, const DeviceLimits& limits,
                                    const KernelAttributes& kernel) {
    return gray_flat_launch_config(block, width, height, R::vector(l), R::kPerThread, R::kGridStride, limits, kernel);
  }
  static Status check(GrayLayout l, const LaunchConfig& config, int width, int height, const DeviceLimits& limits,
                      const KernelAttributes* kernel) {
    if (Status s = validate_launch(config, limits, kernel); !s) return s;
    if (Status s = refuse_grid_extent(config); !s) return s;
    if (R::kGridStride) return Status::success();
    return refuse_small_grid(
        R::info().id, R::launch_config(l, config.block, width, height, limits, kernel ? *kernel : KernelAttributes{}),
        config, width, height);
  }
  // Flat: `vector` pixels per access, kPerThread a thread, the scalar head and tail of the plan.
  static std::optional<IndexScheme> scheme(GrayLayout l, const GrayArgs& a) {
    IndexScheme s = IndexScheme::flat();
    s.vector = R::vector(l);
    s.per_thread = R::kPerThread;
    s.grid_stride = R::kGridStride;
    if (s.vector > 1) {
      const GrayVecPlan p = R::plan(l, a);
      s.head = p.head;
      s.tail = p.tail;
    }
    return s;
  }
  static std::optional<mapping::ElementOwner> owner(const LaunchRecord& r, long long x, long long y) {
    return mapping::owner_of(r.scheme, r.config, r.data_width, r.data_height, x, y);
  }
  static std::vector<mapping::WarpAccess> warp_accesses(const LaunchRecord& r, GrayLayout l, Dim3 block, unsigned warp,
                                                        int step) {
    return gray_warp_accesses(r, l, block, warp, step);
  }
  static GrayCounts counts(GrayLayout l, int width, int height) {
    return {gray_bytes_moved(l, width, height), gray_bytes_note(l), gray_flops(width, height)};
  }
};

// ---------------------------------------------------------------------------------------------
// make_gray_rung
// ---------------------------------------------------------------------------------------------

// f.template operator()<L>() for the run-time layout.
template <class F>
void with_layout(GrayLayout l, F&& f) {
  if (l == GrayLayout::Planar) f.template operator()<GrayLayout::Planar>();
  else f.template operator()<GrayLayout::Rgba>();
}

template <class R>
sim::SimResult simulate_rung(sim::GridSimulator& simulator, GrayLayout l, const LaunchConfig& config,
                             const GrayArgs& args, sim::SimOptions options) {
  sim::SimResult result;
  if constexpr (R::kBody) {
    with_layout(l, [&]<GrayLayout L>() {
      result = simulator.run(
          config, [&args](const sim::HostCtx& t) { R::template body<L>(t, args); }, options);
    });
  } else {
    result.status = Status::failure(R::info().id + " is a library anchor: it runs on the GPU only",
                                    "pick one of the ladder's own kernels for the CPU simulation", "simulate");
  }
  return result;
}

template <class R>
void run_thread(GrayLayout l, const sim::HostCtx& t, const GrayArgs& args) {
  with_layout(l, [&]<GrayLayout L>() { R::template body<L>(t, args); });
}

template <class R>
GrayRung make_gray_rung() {
  GrayRung g;
  g.info = R::info();
  g.info.fixed_grid_allowed = R::kGridStride;
  g.body = R::kBody;
  g.user_template = R::kUserTemplate;
  g.launch_config = &R::launch_config;
  g.check = &R::check;
  g.scheme = &R::scheme;
  g.plan = &R::plan;
  g.owner = &R::owner;
  g.warp_accesses = &R::warp_accesses;
  g.counts = &R::counts;
  g.simulate = &simulate_rung<R>;
  if constexpr (R::kBody) g.thread = &run_thread<R>;
  return g;
}

}  // namespace bs::gray
