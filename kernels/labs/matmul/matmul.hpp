// The matmul lab's host API (no CUDA headers; usable in CPU-only builds).
//
// Sections:
//   1. Matrices: generation patterns and the multi-threaded CPU reference
//   2. Verification: the documented tolerance
//   3. The kernel ladder: registry, configurations, launch shapes, refusals
//   4. Simulation: running a rung's own body on the CPU grid simulator
//
// C = A * B, row-major FP32: A is M x K, B is K x N, C is M x N. FLOPs = 2 * M * N * K.
// The CUDA side (device buffers, launches, cuBLAS) is matmul_cuda.hpp; the benchmark is
// matmul_bench.hpp.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/launch.hpp"
#include "core/check.hpp"
#include "core/launch_record.hpp"
#include "core/status.hpp"
#include "labs/matmul/matmul_common.hpp"
#include "labs/matmul/matmul_configs.hpp"
#include "labs/matmul/matmul_registry.hpp"
#include "simulator/grid_simulator.hpp"

namespace bs::matmul {

// ---------------------------------------------------------------------------------------------
// 1. Matrices
// ---------------------------------------------------------------------------------------------

enum class Pattern {
  Uniform,        // uniform in [-1, 1)
  Normal,         // standard normal (Box-Muller)
  SmallIntegers,  // integers in [-4, 4]: products and sums are exact in FP32 while K < 2^20
  Identity,       // 1 on the diagonal (i == j), 0 elsewhere, for any shape
  Structured,     // ((3i + 5j) mod 17 - 8) / 8: exact, asymmetric, so a transposed or shifted
                  // read shows as a visible stripe pattern in the error heatmap
};

const char* to_string(Pattern p);
bool pattern_from_string(std::string_view name, Pattern& out);  // "uniform", "normal", ...

// rows x cols, row-major. Counter-based (element e's value depends only on seed and e), so the
// same seed gives the same matrix on every machine and any sub-range can be generated alone.
// fill_matrix writes it into `out` (rows * cols floats, may be uninitialised) on the host's cores.
std::vector<float> generate_matrix(int rows, int cols, Pattern pattern, std::uint64_t seed);
void fill_matrix(float* out, int rows, int cols, Pattern pattern, std::uint64_t seed);

// Shapes the UI offers by name. The lecture's: an MNIST-sized layer, 10000 images x 784 pixels
// times 784 x 10 weights (M = 10000, K = 784, N = 10).
struct MatmulPreset {
  std::string name;
  int M, N, K;
  Pattern a_pattern, b_pattern;
};
const std::vector<MatmulPreset>& matmul_presets();

// Refuses sizes that are not >= 1 or whose element count overflows the host's size_t.
Status check_matmul_sizes(long long M, long long N, long long K);

// BF16 (Precision::Bf16): every element rounded to the nearest BF16 (ties to even), kept as
// FP32 (exact), so references, views and verification see the numbers the tensor cores multiply.
void round_to_bf16(std::span<float> m);
// The tensor-core rungs' layouts (tc_common.hpp): A (rows x cols) as rows of ld = pitch(cols)
// BF16, and B (K x N) transposed to N rows of pitch(K), pad columns zero.
std::vector<Bf16> pack_bf16_rows(const float* a, int rows, int cols);
std::vector<Bf16> pack_bf16_transposed(const float* b, int K, int N);
// The same for rows r0..r1-1 of A (columns n0..n1-1 of B) only, into `out` laid out as above
// (rows x bf16_row_pitch(cols), N x bf16_row_pitch(K)); the other rows are not touched.
void pack_bf16_rows_into(const float* a, int cols, int r0, int r1, Bf16* out);
void pack_bf16_transposed_into(const float* b, int K, int N, int n0, int n1, Bf16* out);

// C = A * B on the CPU: blocked (4 rows x 256 columns of C per task), split over `threads`
// std::threads (0: one per hardware thread), accumulating in DOUBLE and rounding once to float.
// So the reference is the exact product to within half an FP32 ulp (plus the double rounding,
// far below that), and what verify() measures is the kernel's own FP32 accumulation error.
Status cpu_reference(const float* A, const float* B, float* C, int M, int N, int K, unsigned threads = 0);

// ---------------------------------------------------------------------------------------------
// 2. Verification
// ---------------------------------------------------------------------------------------------
//
// Tolerance, per element of C:
//
//   tol_ij = 16 * sqrt(K) * u * ||A_i,:||_2 * ||B_:,j||_2 + 1e-30,    u = 2^-24 (FP32 roundoff)
//
// Why: an FP32 dot product of length K carries rounding error bounded by K * u * S_ij with
// S_ij = sum_k |a_ik * b_kj| (the worst case, every rounding in the same direction); rounding
// errors of real data are close to independent, so the error grows like sqrt(K) * u * S_ij
// instead. We use that growth with a factor 16 of headroom (for uniform [0,1) data at K = 4096 it
// is about 60 standard deviations of the observed error), and bound S_ij by Cauchy-Schwarz,
// S_ij <= ||A_i,:|| * ||B_:,j||, which costs O(MK + KN) instead of a second matrix product.
// The worst-case K * u bound would let a kernel that drops one of 4096 terms pass; this one does
// not (one missing term of average size is ~3x the tolerance at K = 4096 for uniform [-1, 1)
// data, more at smaller K; the tests check this).
// NaN or Inf where the reference is finite is always a mismatch.
struct ErrorScale {
  int M = 0, N = 0, K = 0;
  std::vector<double> a_row_norms;  // ||A_i,:||_2, M values
  std::vector<double> b_col_norms;  // ||B_:,j||_2, N values
};
ErrorScale error_scale(const float* A, const float* B, int M, int N, int K);

inline constexpr double kToleranceFactor = 16.0;
inline constexpr double kToleranceFloor = 1e-30;
// Element (i, j)'s tolerance is tolerance_per_unit(scale) * ||A_i,:|| * ||B_:,j|| + kToleranceFloor:
// kToleranceFactor * sqrt(K) units of FP32 rounding (2^-24).
double tolerance_per_unit(const ErrorScale& scale);

struct Verification {
  double max_abs = 0;              // max |got - ref|
  double max_rel = 0;              // max |got - ref| / |ref| over elements with |ref| > 1e-30
  double max_tolerance_ratio = 0;  // max |got - ref| / tol_ij: passed means <= 1
  std::size_t checked = 0;
  std::size_t mismatches = 0;
  long long first_bad_row = -1, first_bad_col = -1;  // first mismatch in row-major order
  float first_bad_got = 0, first_bad_want = 0;
  std::string tolerance;  // the formula, with K filled in
  bool passed = false;
  std::string summary() const;  // one line for tables and the status bar
};

Verification verify(const float* got, const float* ref, int M, int N, const ErrorScale& scale);

// The same verdict in the shape every lab reports (core/check.hpp): the measure that decides is
// the worst error over its tolerance (passes at <= 1); the absolute error goes in the note.
Check to_check(const Verification& v);

// ---------------------------------------------------------------------------------------------
// 3. The kernel ladder
// ---------------------------------------------------------------------------------------------

// The rungs (MatmulKernel, one enumerator a rung, FP32 rungs 1-7 then the tensor-core rungs)
// and the types every rung fills in (MatmulConfig, MatmulKernelInfo, MatmulGeometry) come from
// matmul_registry.hpp and matmul_rung.hpp.
const std::vector<MatmulKernelInfo>& matmul_kernels();
const std::vector<MatmulKernelInfo>& matmul_kernels(Precision precision);  // that precision's rungs
const MatmulKernelInfo& matmul_kernel_info(MatmulKernel kernel);
const MatmulKernelInfo* find_matmul_kernel(std::string_view id);    // nullptr when unknown
bool precision_from_string(std::string_view name, Precision& out);  // "fp32", "bf16"

// The config for a tile of rungs 4-7 (block filled in, label written); for rungs 1-3 pass the
// block. Does not validate: check_matmul_config does.
MatmulConfig make_config(MatmulKernel kernel, const TileParams& tile);
MatmulConfig make_block_config(MatmulKernel kernel, Dim3 block);
std::string describe(MatmulKernel kernel, const MatmulConfig& config);

// The exact grid and block this kernel launches with for an M x N x K product.
LaunchConfig matmul_launch_config(MatmulKernel kernel, const MatmulConfig& config, int M, int N, int K);

// What one block and one thread of this configuration own, for the UI's overlays.
MatmulGeometry matmul_geometry(MatmulKernel kernel, const MatmulConfig& config);

// Shared memory one block of this configuration declares (0 for rungs 1-2; dynamic for the
// Hopper rungs).
std::size_t matmul_shared_bytes(MatmulKernel kernel, const MatmulConfig& config);

// How the configuration's threads own the elements of C (the overlay's scheme).
IndexScheme matmul_scheme(MatmulKernel kernel, const MatmulConfig& config);

// Refuses with the reason: sizes < 1; block not square / not a compiled tile for rung 3;
// broken tiling rules or block != implied thread count for rungs 4-7; a tile outside the
// compiled set; shared memory over the limit (the opt-in limit for the Hopper rungs' dynamic
// shared memory); grid, block or cluster beyond the device's limits. What the device must be
// (RungNeeds) is the backend's to check (MatmulEngine::can_run).
Status check_matmul_config(MatmulKernel kernel, const MatmulConfig& config, int M, int N, int K,
                           const DeviceLimits& limits);

// The napkin numbers every LaunchRecord of this lab carries.
inline double matmul_flops(int M, int N, int K) { return 2.0 * M * N * K; }
// Compulsory traffic: A and B read once, C written once. The effective bandwidth this gives is
// a lower bound on what each kernel really moves (rung 1 moves about K times more).
// BF16: A and B at 2 bytes an element, in the padded layouts the tensor-core rungs read
// (tc_common.hpp), C at 4.
inline double matmul_compulsory_bytes(int M, int N, int K, Precision p = Precision::Fp32) {
  if (p == Precision::Bf16)
    return 2.0 * (static_cast<double>(M) + N) * bf16_row_pitch(K) + 4.0 * static_cast<double>(M) * N;
  return 4.0 * (static_cast<double>(M) * K + static_cast<double>(K) * N + static_cast<double>(M) * N);
}

// ---------------------------------------------------------------------------------------------
// 4. Simulation
// ---------------------------------------------------------------------------------------------

// The simulator runs every thread's own body on the CPU (fibers for the rungs with barriers), so
// it is a few thousand times slower than the GPU. To keep the UI interactive it refuses
// launches above kSimMaxMultiplyAdds = 2^27 multiply-adds (512^3, 1024 x 1024 x 128, ...).
inline constexpr long long kSimMaxMultiplyAdds = 1LL << 27;

// One launch of `kernel` with `config` and launch shape `lc` on the simulator (no checks: the
// lab has validated it); uses_barriers is set from the kernel. The engine behind MatmulLab.
// Each rung takes the buffers of its precision from `buffers`. Rungs the simulator cannot run
// (the Hopper rungs) come back with the reason.
sim::SimResult simulate_kernel(sim::GridSimulator& simulator, MatmulKernel kernel, const MatmulConfig& config,
                               const LaunchConfig& lc, sim::SimOptions options, const MatmulBuffers& buffers);

// Runs `kernel` with `config` on the simulator: C = A * B, host pointers. The record carries
// the grid and block used, the wall time (steady_clock) and the status (refusals included).
// `options` passes schedule recording and cancellation through; uses_barriers is set from the
// kernel.
LaunchRecord simulate_matmul(sim::GridSimulator& simulator, MatmulKernel kernel, const MatmulConfig& config,
                             const float* A, const float* B, float* C, int M, int N, int K,
                             sim::SimOptions options = {});
// The same for the tensor-core rungs: BF16 A and Bt in the padded layouts of tc_common.hpp.
LaunchRecord simulate_matmul_bf16(sim::GridSimulator& simulator, MatmulKernel kernel, const MatmulConfig& config,
                                  const Bf16Args& args, sim::SimOptions options = {});

}  // namespace bs::matmul
