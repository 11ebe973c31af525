#!/usr/bin/env bash
# Issue 22 on the GPU machine: stall samples per source line.
#
#   tests/gpu/checks/lines.sh BUNDLE RESULTS
#
# BUNDLE (tests/gpu/make_bundle.sh) needs: blockscope, lines_vs_ncu.sh, compare_lines.py,
# libfake_cupti_no_permission.so, test_sampling_gpu, test_source_gpu. Writes into RESULTS:
#   lines_vs_ncu.md   the gated table: the lecture's 1D grayscale, k3 and T6 against ncu's source
#                     page (top three lines within 5 points; each sampled instruction's line among
#                     ncu's for 99% of the samples)
#   src_gray.png src_k3.png src_tc6.png src_tc7.png  the Source tab after --profile-lines
#   cmp_gray2d.png    Compare after --compare-block: gray_2d 32x8 against 8x32, line by line
#   src_noperm.png    what a user without profiling permission sees
#   lines.txt         every step's output, and the request-to-table time at 4096^2 (5 runs)
set -u
bundle="$(cd "${1:?usage: lines.sh BUNDLE RESULTS}" && pwd)"
results="${2:?usage: lines.sh BUNDLE RESULTS}"
mkdir -p "$results"
out="$results/lines.txt"
: >"$out"
export PATH="/usr/local/cuda/bin:$PATH"  # cuobjdump and nvdisasm for the SASS column
fail=0
step() {  # name command...
  local name=$1; shift
  echo "==== $name" >>"$out"
  timeout 200 "$@" >>"$out" 2>&1
  local rc=$?
  echo "---- $name rc=$rc" >>"$out"
  [ $rc -eq 0 ] || fail=1
}
step sampling_gpu "$bundle/test_sampling_gpu" --gtest_color=no
step source_gpu "$bundle/test_source_gpu" --gtest_color=no
# Executed instructions and shared wavefronts per instruction (CUPTI's SASS metrics), and the
# no-permission message of that API.
# One process per test, as ctest runs them: on the H200 (driver 580) a second count in one process
# with no PC sampling between fails in cuptiSassMetricsSetConfig (CUPTI_ERROR_OUT_OF_MEMORY) and
# PC sampling gathers nothing after; blockscope always samples, then counts (kernels/sampling/NOTES.md).
for t in ExecutedCountsAreWarpsTimesIterations StrideTwoSharedReadsTakeTwiceTheIdealWavefronts \
         SampleCountsTooAndSamplingStillWorksAfter; do
  step "sass_metrics_$t" env BLOCKSCOPE_REQUIRE_GPU=1 "$bundle/test_sass_metrics_gpu" --gtest_color=no --gtest_filter="*.$t"
done
step sass_metrics_cpu "$bundle/test_sass_metrics_cpu" --gtest_color=no
# Register life ranges from this toolkit's nvcc and nvdisasm (the fresh-cubin test must run here).
step life_ranges env BLOCKSCOPE_REQUIRE_GPU=1 "$bundle/test_source" --gtest_color=no --gtest_filter='LifeRanges.*'
# A user kernel sampled in its runner process, per line of its own source.
step user_lines_gpu env BLOCKSCOPE_REQUIRE_GPU=1 "$bundle/test_custom_gpu" --gtest_color=no \
  --gtest_filter='UserLabGpu.AUserKernelIsSampled*:UserLabGpu.TheRepeats*:CustomGpu.Lecture*'
cat >/tmp/bs_user_tiled.cu <<'CU'
#define TW 16
__global__ void matmul_tiled(float* m, float* n, float* out, int h, int w, int k) {
    __shared__ float ms[TW][TW], ns[TW][TW];
    int tr = threadIdx.y, tc = threadIdx.x;
    int r = blockIdx.y*blockDim.y + tr, c = blockIdx.x*blockDim.x + tc;
    float p = 0.0f;
    for (int ph = 0; ph < cdiv(k, TW); ++ph) {
        int idx = ph*TW;
        ms[tr][tc] = ((r<h) && (idx+tc<k)) ? m[r*k + idx+tc] : 0.0f;
        ns[tr][tc] = ((c<w) && (idx+tr<k)) ? n[(idx+tr)*w + c] : 0.0f;
        __syncthreads();
        for (int i=0; i<TW; ++i) p += ms[tr][i] * ns[i][tc];
        __syncthreads();
    }
    if ((r<h) && (c<w)) out[r*w + c] = p;
}
CU
step lines_vs_ncu bash "$bundle/lines_vs_ncu.sh" "$bundle" "$results"
# A 4096 x 4096 image for the lecture's kernel at the size the issue times.
python3 - <<'PY' >>"$out" 2>&1
import zlib, struct, numpy as np
w = h = 4096
x = np.arange(w)[None, :]; y = np.arange(h)[:, None]
img = np.stack([np.broadcast_to(x * 255 // w, (h, w)), np.broadcast_to(y * 255 // h, (h, w)), (x ^ y) & 255], axis=-1).astype(np.uint8)
raw = np.concatenate([np.zeros((h, 1), np.uint8), img.reshape(h, w * 3)], axis=1).tobytes()
chunk = lambda t, d: struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
open('/tmp/bs_lines_4096.png', 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(raw, 1)) + chunk(b'IEND', b''))
PY
H=("$bundle/blockscope" --headless --backend cuda --window-size 1600x1000 --frames 6)
for i in 1 2 3 4 5; do
  step "request_to_table_4096_$i" "${H[@]}" /tmp/bs_lines_4096.png --lab gray --kernel gray_1d_flat --block 256 --profile-lines
done
grep -h "^lines:" "$out" | grep "from the request" | sed -n '1,5p' | awk '{for(i=1;i<=NF;i++) if($i=="s" && $(i+1)=="from") print $(i-1)}' | sort -n \
  | awk '{a[NR]=$1} END {if (NR) printf("request to table at 4096^2, median of %d: %.3f s\n", NR, a[int((NR+1)/2)])}' >>"$out"
step src_gray "${H[@]}" --lab gray --kernel gray_1d_flat --block 256 --profile-lines --screenshot "$results/src_gray.png"
step src_k3 "${H[@]}" --lab matmul --kernel k3_smem_tiled --matmul-size 4096x4096x4096 --profile-lines \
  --screenshot "$results/src_k3.png"
step src_tc6 "${H[@]}" --lab matmul --set precision=bf16 --kernel tc6_cluster_multicast --matmul-size 4096x4096x4096 \
  --profile-lines --screenshot "$results/src_tc6.png"
step src_tc7 "${H[@]}" --lab matmul --set precision=bf16 --kernel tc7_tma_store --matmul-size 4096x4096x4096 \
  --profile-lines --screenshot "$results/src_tc7.png"
step src_user "${H[@]}" --lab matmul --matmul-size 2048x2048x2048 --kernel-file /tmp/bs_user_tiled.cu --block 16x16 \
  --profile-lines --screenshot "$results/src_user.png"
step cmp_gray2d "${H[@]}" --lab gray --kernel gray_2d --block 32x8 --compare-block 8x32 --screenshot "$results/cmp_gray2d.png"
step src_noperm "${H[@]}" --lab gray --kernel gray_1d_flat --block 256 --profile-lines \
  --cupti "$bundle/libfake_cupti_no_permission.so" --screenshot "$results/src_noperm.png"
grep -q "NVreg_RestrictProfilingToAdminUsers" "$out" || { echo "no-permission message missing" >>"$out"; fail=1; }
exit $fail
