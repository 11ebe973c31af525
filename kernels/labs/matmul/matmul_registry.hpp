// The matmul ladder: one line a rung. A rung is its file (the kernel body and its traits, see
// matmul_rung.hpp) plus its line below; the enumerator, the kernel list, the refusals, the owner
// map, the simulator and the CUDA launchers all come from here.
//
//   with_rung(kernel, f)           f.template operator()<Traits>() for the kernel's traits
//   with_config(kernel, config, f) f.template operator()<Traits, I>() for the compiled
//                                  instantiation I a configuration names (rungs with a body): the
//                                  one dispatch behind launches, attributes, occupancy and the
//                                  simulator
#pragma once
#include <cstddef>
#include <utility>

#include "labs/matmul/k1_naive.hpp"
#include "labs/matmul/k2_uncoalesced.hpp"
#include "labs/matmul/k3_smem_tiled.hpp"
#include "labs/matmul/k4_blocktile_1d.hpp"
#include "labs/matmul/k5_blocktile_2d.hpp"
#include "labs/matmul/k6_vectorized.hpp"
#include "labs/matmul/k7_warptile.hpp"
#include "labs/matmul/tc1_wmma.hpp"
#include "labs/matmul/tc2_mma_sync.hpp"
#include "labs/matmul/tc3_wgmma.hpp"
#include "labs/matmul/tc4_warp_specialized.hpp"
#include "labs/matmul/tc5_persistent.hpp"
#include "labs/matmul/tc6_cluster_multicast.hpp"
#include "labs/matmul/tc7_tma_store.hpp"

// Rungs a build adds after the ladder without this file naming them: a target that defines
// BS_MATMUL_EXTRA_RUNGS_HEADER (a header that includes the rung files and defines
// BS_MATMUL_EXTRA_RUNGS(X) as their X lines) builds the lab with them at the end of its list.
// bs_matmul_lab_with_rung() in CMakeLists.txt writes that header; tests/matmul_extra uses it.
#if defined(BS_MATMUL_EXTRA_RUNGS_HEADER)
#include BS_MATMUL_EXTRA_RUNGS_HEADER
#else
#define BS_MATMUL_EXTRA_RUNGS(X)
#endif

// X(enumerator of MatmulKernel, traits), in ladder order.
#define BS_MATMUL_RUNGS(X)                    \
  X(Naive, K1Naive)                           \
  X(Uncoalesced, K2Uncoalesced)               \
  X(SmemTiled, K3SmemTiled)                   \
  X(Blocktile1D, K4Blocktile1D)               \
  X(Blocktile2D, K5Blocktile2D)               \
  X(Vectorized, K6Vectorized)                 \
  X(Warptile, K7Warptile)                     \
  X(Tc1Wmma, Tc1Wmma)                         \
  X(Tc2MmaSync, Tc2MmaSync)                   \
  X(Tc3Wgmma, Tc3Wgmma)                       \
  X(Tc4WarpSpecialized, Tc4WarpSpecialized)   \
  X(Tc5Persistent, Tc5Persistent)             \
  X(Tc6ClusterMulticast, Tc6ClusterMulticast) \
  X(Tc7TmaStore, Tc7TmaStore)                 \
  BS_MATMUL_EXTRA_RUNGS(X)

namespace bs::matmul {

#define BS_MATMUL_ENUMERATOR(name, traits) name,
enum class MatmulKernel : int { BS_MATMUL_RUNGS(BS_MATMUL_ENUMERATOR) };
#undef BS_MATMUL_ENUMERATOR

#define BS_MATMUL_COUNT(name, traits) +1
inline constexpr int kMatmulKernelCount = 0 BS_MATMUL_RUNGS(BS_MATMUL_COUNT);
#undef BS_MATMUL_COUNT

template <class F>
bool with_rung(MatmulKernel kernel, F&& f) {
  switch (kernel) {
#define BS_MATMUL_CASE(name, traits) \
  case MatmulKernel::name: f.template operator()<traits>(); return true;
    BS_MATMUL_RUNGS(BS_MATMUL_CASE)
#undef BS_MATMUL_CASE
  }
  return false;
}

// Calls f(std::integral_constant<std::size_t, I>{}) for I == index; a compile-time index lets
// the caller read its table row as template arguments.
template <std::size_t Count, class F>
void visit_index(int index, F&& f) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((index == static_cast<int>(I) ? (f(std::integral_constant<std::size_t, I>{}), 0) : 0), ...);
  }
  (std::make_index_sequence<Count>{});
}

// False when the configuration names no compiled instantiation (or the rung has no body).
template <class F>
bool with_config(MatmulKernel kernel, const MatmulConfig& config, F&& f) {
  bool ran = false;
  with_rung(kernel, [&]<class R>() {
    if constexpr (R::kBody) {
      visit_index<R::kCompiled>(R::compiled_index(config), [&](auto i) {
        f.template operator()<R, decltype(i)::value>();
        ran = true;
      });
    }
  });
  return ran;
}

}  // namespace bs::matmul
