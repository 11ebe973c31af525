// The ladder's registry, read from the rungs' own traits (matmul_registry.hpp): the kernel list,
// configurations, launch shapes, geometry and the rules that refuse a configuration before
// launch. Nothing here names a rung.
#include <algorithm>

#include "labs/matmul/matmul.hpp"

namespace bs::matmul {
namespace {

std::vector<MatmulKernelInfo> build_registry() {
  std::vector<MatmulKernelInfo> r;
  for (int k = 0; k < kMatmulKernelCount; ++k)
    with_rung(static_cast<MatmulKernel>(k), [&]<class R>() {
      MatmulKernelInfo i = R::info();
      i.kernel = static_cast<MatmulKernel>(k);
      i.shared_model = R::kSharedModel;
      i.swizzled_shared = R::kSwizzledShared;
      i.fragments = R::kFragments;
      i.pipeline = R::kPipeline;
      i.swizzle = R::swizzle_map();
      r.push_back(std::move(i));
    });
  return r;
}

std::vector<MatmulKernelInfo> of_precision(Precision p) {
  std::vector<MatmulKernelInfo> v;
  for (const MatmulKernelInfo& k : matmul_kernels())
    if (k.precision == p) v.push_back(k);
  return v;
}

}  // namespace

const char* to_string(Precision p) { return p == Precision::Bf16 ? "bf16" : "fp32"; }

bool precision_from_string(std::string_view name, Precision& out) {
  if (name == "fp32") out = Precision::Fp32;
  else if (name == "bf16") out = Precision::Bf16;
  else return false;
  return true;
}

const std::vector<MatmulKernelInfo>& matmul_kernels() {
  static const std::vector<MatmulKernelInfo> registry = build_registry();  // immutable
  return registry;
}

const std::vector<MatmulKernelInfo>& matmul_kernels(Precision precision) {
  static const std::vector<MatmulKernelInfo> fp32 = of_precision(Precision::Fp32);  // immutable
  static const std::vector<MatmulKernelInfo> bf16 = of_precision(Precision::Bf16);
  return precision == Precision::Bf16 ? bf16 : fp32;
}

const MatmulKernelInfo& matmul_kernel_info(MatmulKernel kernel) {
  return matmul_kernels()[static_cast<std::size_t>(kernel)];
}

const MatmulKernelInfo* find_matmul_kernel(std::string_view id) {
  for (const auto& k : matmul_kernels())
    if (k.id == id) return &k;
  return nullptr;
}

MatmulConfig make_config(MatmulKernel kernel, const TileParams& tile) {
  MatmulConfig c;
  with_rung(kernel, [&]<class R>() { c = tile_config<R>(tile); });
  return c;
}

MatmulConfig make_block_config(MatmulKernel kernel, Dim3 block) {
  MatmulConfig c;
  c.block = block;
  with_rung(kernel, [&]<class R>() {
    if constexpr (requires { R::config_of(block); }) c = R::config_of(block);  // the block implies a tile
    else c.label = R::describe(c);
  });
  return c;
}

std::string describe(MatmulKernel kernel, const MatmulConfig& c) {
  std::string s;
  with_rung(kernel, [&]<class R>() { s = R::describe(c); });
  return s;
}

LaunchConfig matmul_launch_config(MatmulKernel kernel, const MatmulConfig& c, int M, int N, int K) {
  LaunchConfig lc;
  with_rung(kernel, [&]<class R>() { lc = R::launch_config(c, M, N, K); });
  return lc;
}

MatmulGeometry matmul_geometry(MatmulKernel kernel, const MatmulConfig& c) {
  MatmulGeometry g;
  with_rung(kernel, [&]<class R>() { g = R::geometry(c); });
  return g;
}

std::size_t matmul_shared_bytes(MatmulKernel kernel, const MatmulConfig& c) {
  std::size_t b = 0;
  with_rung(kernel, [&]<class R>() { b = R::shared_bytes(c); });
  return b;
}

IndexScheme matmul_scheme(MatmulKernel kernel, const MatmulConfig& c) {
  IndexScheme s;
  with_rung(kernel, [&]<class R>() { s = R::scheme(c); });
  return s;
}

Status check_matmul_config(MatmulKernel kernel, const MatmulConfig& c, int M, int N, int K,
                           const DeviceLimits& limits) {
  if (Status s = check_matmul_sizes(M, N, K); !s) return s;
  const MatmulKernelInfo& info = matmul_kernel_info(kernel);
  Status status = Status::success();
  with_rung(kernel, [&]<class R>() {
    if (status = R::check(c, limits); !status) return;
    // The Hopper rungs' dynamic shared memory may use the opt-in limit; everything else is
    // static and has 48 KB.
    const std::size_t smem = R::shared_bytes(c);
    const std::size_t limit = R::kHopper ? limits.shared_per_block_optin : limits.shared_per_block;
    if (smem > limit) {
      status = refuse(info.id,
                      "the tiles need " + std::to_string(smem) + " bytes of shared memory per block; " + limits.name +
                          " allows " + std::to_string(limit) + (R::kHopper ? " with opt-in" : " without opt-in"),
                      "use smaller BM, BN or BK");
      return;
    }
    if (R::compiled_index(c) < 0) {
      std::string list;
      for (const MatmulConfig& m : info.configs) list += (list.empty() ? "" : "; ") + m.label;
      const std::string what = R::describe(c);
      status = refuse(info.id,
                      what.substr(0, what.find(" | ")) +
                          " is not in the compiled set (tile sizes are template parameters, so "
                          "only these exist as machine code): " +
                          list,
                      "pick one of the compiled configurations");
    }
  });
  if (!status) return status;
  return validate_launch(matmul_launch_config(kernel, c, M, N, K), limits);
}

}  // namespace bs::matmul
