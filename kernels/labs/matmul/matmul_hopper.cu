// The Hopper tensor-core rungs (tc3: wgmma + TMA, tc4: warp-specialized, tc5: persistent, tc6:
// clusters with multicast): one __global__ wrapper template, plain and traced, and a tagged one
// (fragment_record.hpp: the probe launch that records who held each element of C), instantiated for
// every compiled configuration of every rung whose traits say kHopper (matmul_registry.hpp; a
// rung with several names each one's device code as Traits::Device<I>, e.g. tc6's cluster
// sizes); the TMA descriptors; launches with dynamic shared memory and clusters. Compiled for sm_90a only (wgmma and
// setmaxnreg exist nowhere else); kernels/labs/matmul/CMakeLists.txt builds matmul_hopper_none.cpp instead where the
// build has no Hopper architecture.
//
// Sections: 1. kernels  2. tensor maps  3. launches and attributes
#define BS_MATMUL_HOPPER_TU 1  // the rung files' device code (tc3_wgmma.hpp ...)
#include <cuda.h>
#include <cuda_runtime.h>

#include "device/cuda_status.hpp"
#include "device/device_buffer.hpp"
#include "device/device_limits.hpp"
#include "labs/matmul/matmul_hopper.hpp"
#include "trace/block_trace.cuh"

namespace bs::matmul {

// ---------------------------------------------------------------------------------------------
// 1. Kernels. The tensor maps are __grid_constant__ parameters: TMA reads the descriptor from
//    the kernel's parameter space, where the driver put it, with no copy to local memory.
// ---------------------------------------------------------------------------------------------
// `Rung`: the device code of one compiled configuration (kThreads, block()).
// `map_c`: C's descriptor, read by the rungs that store through TMA (T7) where the launcher
// made one (args.c_map non-null); the kernel points args.c_map at it.
__device__ __forceinline__ Bf16Args with_c_map(Bf16Args args, const CUtensorMap& map_c) {
  if (args.c_map) args.c_map = &map_c;
  return args;
}

template <class Rung, bool Traced>
__global__ void __launch_bounds__(Rung::kThreads, 1)
    hopper_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                  const __grid_constant__ CUtensorMap map_c, Bf16Args args, trace::DeviceBlockRecord* records) {
  extern __shared__ __align__(1024) unsigned char smem[];
  if constexpr (Traced) {
    trace::BlockRecorder recorder(records);
    Rung::block(&map_a, &map_b, with_c_map(args, map_c), smem);
  } else {
    Rung::block(&map_a, &map_b, with_c_map(args, map_c), smem);
  }
}

// The tagged variant: the same block on probe operands, its epilogue recording fragment tags.
template <class Rung>
__global__ void __launch_bounds__(Rung::kThreads, 1)
    hopper_tagged_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                         const __grid_constant__ CUtensorMap map_c, Bf16Args args, TagFragments sink) {
  extern __shared__ __align__(1024) unsigned char smem[];
  Rung::block_tagged(&map_a, &map_b, with_c_map(args, map_c), smem, sink);
}

// The pipeline-traced variant of the warp-specialized rungs (T4, T5, T6): the block recorder
// around the same body run with a recording probe (pipeline_probe.cuh). Never timed as the rung.
template <class Rung>
__global__ void __launch_bounds__(Rung::kThreads, 1)
    hopper_pipeline_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                           const __grid_constant__ CUtensorMap map_c, Bf16Args args, trace::DeviceBlockRecord* records,
                           PipelineDeviceArgs events) {
  extern __shared__ __align__(1024) unsigned char smem[];
  trace::BlockRecorder recorder(records);
  PipelineProbe probe;
  probe.out = events;
  Rung::block_probed(&map_a, &map_b, with_c_map(args, map_c), smem, probe);
}

namespace {

struct HopperRung {
  const void* plain = nullptr;
  const void* traced = nullptr;
  const void* tagged = nullptr;
  const void* pipeline = nullptr;  // the pipeline-traced variant, where the rung has one
  std::size_t smem = 0;
  int b_rows = 0;         // the TMA box of Bt it reads
  bool stores_c = false;  // stores C through TMA and splits tiles (T7)
};

// The device code of configuration I of rung R: R::Device<I> where the rung names one per
// configuration, else the rung itself.
template <class R, std::size_t I>
struct DeviceOf {
  using type = R;
};
template <class R, std::size_t I>
requires requires { typename R::template Device<I>; }
struct DeviceOf<R, I> {
  using type = typename R::template Device<I>;
};

// Both wrappers of the configuration `c` names; empty where it names none (check_matmul_config
// refuses such a configuration before launch).
HopperRung hopper_rung(MatmulKernel k, const MatmulConfig& c) {
  HopperRung r;
  with_rung(k, [&]<class R>() {
    if constexpr (R::kHopper)
      visit_index<R::kCompiled>(R::compiled_index(c), [&](auto i) {
        using D = typename DeviceOf<R, decltype(i)::value>::type;
        r = {reinterpret_cast<const void*>(&hopper_kernel<D, false>),
             reinterpret_cast<const void*>(&hopper_kernel<D, true>),
             reinterpret_cast<const void*>(&hopper_tagged_kernel<D>),
             nullptr,
             D::kSmemBytes,
             D::kBRows};
        if constexpr (requires { D::kStoresC; }) r.stores_c = D::kStoresC;
        if constexpr (requires { &D::block_probed; })
          r.pipeline = reinterpret_cast<const void*>(&hopper_pipeline_kernel<D>);
      });
  });
  return r;
}

// ---------------------------------------------------------------------------------------------
// 2. Tensor maps
// ---------------------------------------------------------------------------------------------
using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                 const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                 CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

Result<EncodeTiled> encode_function() {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
  BS_CUDA_TRY(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found));
#else
  BS_CUDA_TRY(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn, cudaEnableDefault, &found));
#endif
  if (found != cudaDriverEntryPointSuccess || !fn)
    return Status::failure("the CUDA driver has no cuTensorMapEncodeTiled (TMA needs a driver for CUDA 12 or newer)",
                           "update the NVIDIA driver", "cudaGetDriverEntryPoint");
  return reinterpret_cast<EncodeTiled>(fn);
}

// A rows x K BF16 matrix, row pitch ld elements, in boxes of 64 (K) x box_rows, 128-byte swizzle.
Status encode(EncodeTiled fn, TensorMapBytes& out, const Bf16* base, int rows, int K, int ld, int box_rows,
              const char* what) {
  static_assert(sizeof(CUtensorMap) == sizeof(TensorMapBytes) && alignof(CUtensorMap) <= alignof(TensorMapBytes));
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(K), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(ld) * sizeof(Bf16)};
  const cuuint32_t box[2] = {64, static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult r =
      fn(reinterpret_cast<CUtensorMap*>(out.bytes), CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<Bf16*>(base), dims,
         strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
         CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    return Status::failure(std::string("cuTensorMapEncodeTiled refused the ") + what + " descriptor (CUresult " +
                               std::to_string(static_cast<int>(r)) + ")",
                           "TMA needs a 16-byte aligned base and row pitch, and at most 2^32 rows",
                           "cuTensorMapEncodeTiled");
  return Status::success();
}

// C (M x N FP32, row-major) in boxes of 32 columns (128 bytes) x 64 rows, 128-byte swizzle: T7's
// staging boxes. TMA needs a 16-byte aligned base and row pitch, so N % 4 == 0; false where C
// cannot be described so (T7 then stores from registers).
bool c_storable(const Bf16Args& a) { return a.C && a.N % 4 == 0 && reinterpret_cast<std::uintptr_t>(a.C) % 16 == 0; }
Status encode_c(EncodeTiled fn, TensorMapBytes& out, const Bf16Args& a) {
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(a.N), static_cast<cuuint64_t>(a.M)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(a.N) * sizeof(float)};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(kTc7BoxCols), 64};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult r = fn(reinterpret_cast<CUtensorMap*>(out.bytes), CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, a.C, dims,
                        strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                        CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    return Status::failure(
        "cuTensorMapEncodeTiled refused the C descriptor (CUresult " + std::to_string(static_cast<int>(r)) + ")",
        "TMA needs a 16-byte aligned base and row pitch", "cuTensorMapEncodeTiled");
  return Status::success();
}

}  // namespace

// The words T7's split tiles signal through (tc7_tma_store.hpp), zeroed once, and the epoch
// counter: each launch raises flags to a value no earlier launch used.
struct TcSplitFlags {
  cuda::DeviceBuffer<unsigned> words;
  unsigned epoch = 0;
};

// ---------------------------------------------------------------------------------------------
// 3. Launches and attributes
// ---------------------------------------------------------------------------------------------
namespace hopper_host {

bool built() { return true; }

Result<TcTensorMaps> encode(const Bf16Args& a) {
  auto fn = encode_function();
  if (!fn) return fn.status();
  TcTensorMaps m;
  if (Status s = matmul::encode(*fn, m.a_128, a.A, a.M, a.K, a.ld, 128, "A"); !s) return s;
  if (Status s = matmul::encode(*fn, m.b_128, a.Bt, a.N, a.K, a.ld, 128, "Bt (128-row box)"); !s) return s;
  if (Status s = matmul::encode(*fn, m.b_256, a.Bt, a.N, a.K, a.ld, 256, "Bt (256-row box)"); !s) return s;
  if (c_storable(a)) {
    if (Status s = encode_c(*fn, m.c, a); !s) return s;
    m.c_base = a.C;
  }
  auto words = cuda::DeviceBuffer<unsigned>::allocate(kTc7FlagWords);
  if (!words) return words.status();
  BS_CUDA_TRY(cudaMemset(words->get(), 0, kTc7FlagWords * sizeof(unsigned)));
  m.split = std::make_shared<TcSplitFlags>(TcSplitFlags{std::move(words.value()), 0});
  m.encoded = true;
  return m;
}

namespace {
// Launches `fn` (one of the rung's kernels) with the rung's shared memory and the launch's grid,
// block and cluster: parameters (map A, map B, args, *third, *fourth), a null pointer where the
// kernel takes fewer.
Status launch_fn(const HopperRung& r, const void* fn, const LaunchConfig& lc, const Bf16Args& a,
                 const TcTensorMaps& maps, void* third, void* fourth, cudaStream_t stream);
}  // namespace

Status launch(MatmulKernel k, const MatmulConfig& c, const LaunchConfig& lc, const Bf16Args& a,
              const TcTensorMaps& maps, trace::DeviceBlockRecord* records, cudaStream_t stream) {
  const HopperRung r = hopper_rung(k, c);
  if (!r.plain) return Status::failure("not a Hopper rung", "", "hopper launch");
  return launch_fn(r, records ? r.traced : r.plain, lc, a, maps, &records, nullptr, stream);
}

bool has_pipeline_trace(MatmulKernel k, const MatmulConfig& c) { return hopper_rung(k, c).pipeline != nullptr; }

Status prepare_pipeline(MatmulKernel k, const MatmulConfig& c) {
  const HopperRung r = hopper_rung(k, c);
  if (!r.pipeline) return Status::failure("this rung has no pipeline-traced variant", "", "hopper prepare_pipeline");
  BS_CUDA_TRY(cudaFuncSetAttribute(r.pipeline, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(r.smem)));
  return Status::success();
}

Status launch_pipeline(MatmulKernel k, const MatmulConfig& c, const LaunchConfig& lc, const Bf16Args& a,
                       const TcTensorMaps& maps, trace::DeviceBlockRecord* records, PipelineDeviceArgs events,
                       cudaStream_t stream) {
  const HopperRung r = hopper_rung(k, c);
  if (!r.pipeline)
    return Status::failure("this rung has no pipeline-traced variant", "pick T4, T5 or T6 (the warp-specialized rungs)",
                           "hopper launch_pipeline");
  if (!records || !events.events || !events.attempted)
    return Status::failure("a pipeline trace needs its block records and event buffer", "", "hopper launch_pipeline");
  return launch_fn(r, r.pipeline, lc, a, maps, &records, &events, stream);
}

namespace {
Status launch_fn(const HopperRung& r, const void* fn, const LaunchConfig& lc, const Bf16Args& a,
                 const TcTensorMaps& maps, void* third, void* fourth, cudaStream_t stream) {
  if (!maps.encoded) return Status::failure("the TMA descriptors of these matrices were not made", "", "hopper launch");
  BS_CUDA_TRY(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(r.smem)));
  const TensorMapBytes& mb = r.b_rows == 256 ? maps.b_256 : maps.b_128;
  Bf16Args args = a;
  TensorMapBytes c_map;  // C's descriptor for the rungs that store through TMA
  if (r.stores_c && c_storable(a)) {
    if (a.C == maps.c_base) {
      c_map = maps.c;
    } else {  // another C than the maps were made for (a view's buffer): described now
      auto fn = encode_function();
      if (!fn) return fn.status();
      if (Status s = encode_c(*fn, c_map, a); !s) return s;
    }
    args.c_map = c_map.bytes;  // non-null: the kernel points it at its own parameter
    if (maps.split) { args.flags = maps.split->words.get(), args.epoch = ++maps.split->epoch, args.split = 1; }
  }
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(lc.grid.x, lc.grid.y, lc.grid.z);
  cfg.blockDim = dim3(lc.block.x, lc.block.y, lc.block.z);
  cfg.dynamicSmemBytes = lc.dynamic_shared_bytes;
  cfg.stream = stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = lc.cluster.x;
  attr[0].val.clusterDim.y = lc.cluster.y;
  attr[0].val.clusterDim.z = lc.cluster.z;
  cfg.attrs = attr;
  cfg.numAttrs = lc.cluster.volume() > 1 ? 1 : 0;
  void* params[] = {const_cast<unsigned char*>(maps.a_128.bytes),
                    const_cast<unsigned char*>(mb.bytes),
                    c_map.bytes,
                    &args,
                    third,
                    fourth};
  BS_CUDA_TRY(cudaLaunchKernelExC(&cfg, fn, params));
  return Status::success();
}
}  // namespace

Status launch_tagged(MatmulKernel k, const MatmulConfig& c, const LaunchConfig& lc, const Bf16Args& a,
                     const TcTensorMaps& maps, const TagFragments& sink, cudaStream_t stream) {
  const HopperRung r = hopper_rung(k, c);
  if (!r.tagged) return Status::failure("not a Hopper rung", "", "hopper launch_tagged");
  TagFragments s = sink;
  return launch_fn(r, r.tagged, lc, a, maps, &s, nullptr, stream);
}

Result<KernelAttributes> attributes(MatmulKernel k, const MatmulConfig& c) {
  const HopperRung r = hopper_rung(k, c);
  if (!r.plain) return Status::failure("not a Hopper rung", "", "hopper attributes");
  BS_CUDA_TRY(cudaFuncSetAttribute(r.plain, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(r.smem)));
  auto attrs = cuda::query_kernel_attributes(r.plain);
  if (!attrs) return attrs.status();
  attrs->max_dynamic_shared_bytes = r.smem;
  return attrs;
}

Result<int> max_active_clusters(MatmulKernel k, const MatmulConfig& c, const LaunchConfig& lc) {
  const HopperRung r = hopper_rung(k, c);
  if (!r.plain) return Status::failure("not a Hopper rung", "", "max_active_clusters");
  BS_CUDA_TRY(cudaFuncSetAttribute(r.plain, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(r.smem)));
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(lc.grid.x, lc.grid.y, lc.grid.z);
  cfg.blockDim = dim3(lc.block.x, lc.block.y, lc.block.z);
  cfg.dynamicSmemBytes = lc.dynamic_shared_bytes;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = lc.cluster.x;
  attr[0].val.clusterDim.y = lc.cluster.y;
  attr[0].val.clusterDim.z = lc.cluster.z;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  int clusters = 0;
  BS_CUDA_TRY(cudaOccupancyMaxActiveClusters(&clusters, r.plain, &cfg));
  return clusters;
}

}  // namespace hopper_host
}  // namespace bs::matmul
