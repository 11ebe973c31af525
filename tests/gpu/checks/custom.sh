#!/usr/bin/env bash
# Issues 11 and 21 on the GPU machine: the user's own kernels compiled by NVRTC (for the device's
# exact architecture: sm_90a on Hopper) and run as kernels of the labs, headless, as a user runs
# them, measured by the labs' one timing policy.
#
#   tests/gpu/checks/custom.sh BUNDLE RESULTS
#
# BUNDLE (tests/gpu/make_bundle.sh) needs: blockscope, blockscope-kernel-runner (next to
# blockscope: the app looks for it there), blockscope-edit-to-result, test_kernel_file,
# test_custom_gpu. The machine needs NVRTC (the toolkit's libnvrtc; the runner opens it at run
# time) and a host C++ compiler (g++: the CPU build the lab replays GPU launches on for owners).
#
# Steps (each limited to 2 minutes):
#   - the lecture's kernels pasted unchanged (1D and 2D grayscale, naive matmul, lecture 5's tiled
#     matmul): headless --kernel-file on cuda, verified (exit 0)
#   - an off-by-one guard (i <= n, block 384 so thread n exists): reported with its block and
#     thread (the GPU does not fault on a one-element overrun; the CPU replay of the launch finds
#     it), exit 1
#   - a syntax error: NVRTC's message names the line, exit 1
#   - an endless loop: stopped at the 2 s limit, the frames keep coming, exit 1
#   - a wrong result: the first wrong pixel named, exit 1
#   - the real per-SM schedule of a user kernel (the traced entry), bench beside the copy ceiling
#     and beside cuBLAS
#   - issue 21: a sweep of a user kernel beside gray_1d_flat at two confidence targets (5% and
#     0.2%): each kernel's repeats per point follow the target, the user kernel's as the rung's
#     (repeats table and a JSON excerpt printed)
#   - the engine's GPU tests (last: they fault and loop on purpose), among them issue 21's: the
#     repeats follow the target through the lab interface, an L2 flush that cannot happen fails
#     the run ("[ flush ]" line), a user kernel's fault is the child's and a sweep goes on
#     ("[ fault ]" lines), Hopper's arch-specific instructions compile for the runner's target
#   - the NVRTC edit-to-result time (target < 1 s; issue 32: a median under 250 ms to the GPU result,
#     the CPU findings (owners, stray accesses) reported apart, when they are ready)
# Writes 4 files into RESULTS:
#   custom_edit_to_result.json  blockscope-edit-to-result --backend cuda (10 edits of the lecture's
#                               1D kernel on the sample: compile, first launch, relaunch, verified;
#                               median_gpu_result_ms and median_findings_ready_ms, issue 32)
#   custom_editor_gpu.png       the window with the kernel editor after --kernel-file on cuda:
#                               NVRTC's registers, shared memory and spills under the code
#   custom_sweep_ci05.json, custom_sweep_ci002.json   the two sweeps of issue 21
# Prints a verdict per step and the lines that matter. Exit 1 if any step failed.
set -u
bundle="$(cd "${1:?usage: custom.sh BUNDLE RESULTS}" && pwd)"
results="${2:?usage: custom.sh BUNDLE RESULTS}"
mkdir -p "$results"
work="$(mktemp -d -t bs_custom.XXXXXX)"
log="$work/log.txt"
: >"$log"

source "$(dirname "$0")/common.sh"
checks_env "$bundle" "$work"

# step NAME EXPECTED_RC PATTERN... -- COMMAND...: the step passes when the command exits with
# EXPECTED_RC and its output holds every PATTERN (grep -E); the matching lines are printed
# (common.sh's step, replaced: this check asks for a given exit code and given lines).
step() {
  local name=$1 want=$2; shift 2
  local patterns=()
  while [ "$1" != "--" ]; do patterns+=("$1"); shift; done
  shift
  local out="$work/$name.out"
  local t0=$SECONDS
  timeout 120 "$@" >"$out" 2>&1
  local rc=$?
  { echo "==== $name (rc $rc): $*"; cat "$out"; } >>"$log"
  local ok=1
  [ "$rc" -eq "$want" ] || ok=0
  for p in "${patterns[@]}"; do grep -qE -- "$p" "$out" || { ok=0; echo "  [$name] missing: $p"; }; done
  [ $ok -eq 1 ] || failed=1
  verdicts+=("$(printf '%-24s %s (rc %d, want %d, %ds)' "$name" "$([ $ok -eq 1 ] && echo ok || echo FAILED)" $rc "$want" $((SECONDS - t0)))")
  for p in "${patterns[@]}"; do grep -E -- "$p" "$out" | head -n 2 | cut -c1-240 | sed "s/^/  [$name] /"; done
}

{
  echo "== $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  ls "$bundle"/blockscope-kernel-runner
} >>"$log" 2>&1

# The lecture's kernels, exactly as its notebook has them.
cat >"$work/gray_1d.cu" <<'EOF'
__global__ void rgb_to_grayscale_kernel(unsigned char* x, unsigned char* out, int n) {
    int i = blockIdx.x*blockDim.x + threadIdx.x;
    if (i<n) out[i] = 0.2989*x[i] + 0.5870*x[i+n] + 0.1140*x[i+2*n];
}
EOF
cat >"$work/gray_2d.cu" <<'EOF'
__global__ void rgb_to_grayscale_kernel(unsigned char* x, unsigned char* out, int w, int h) {
    int c = blockIdx.x*blockDim.x + threadIdx.x;
    int r = blockIdx.y*blockDim.y + threadIdx.y;

    if (c<w && r<h) {
        int i = r*w + c;
        int n = h*w;
        out[i] = 0.2989*x[i] + 0.5870*x[i+n] + 0.1140*x[i+2*n];
    }
}
EOF
cat >"$work/matmul.cu" <<'EOF'
__global__ void matmul_k(float* m, float* n, float* out, int h, int w, int k) {
    int r = blockIdx.y*blockDim.y + threadIdx.y;
    int c = blockIdx.x*blockDim.x + threadIdx.x;

    if (r>=h || c>=w) return;
    float o = 0;
    for (int i = 0; i<k; ++i) o += m[r*k+i] * n[i*w+c];
    out[r*w+c] = o;
}
EOF
cat >"$work/matmul_tiled.cu" <<'EOF'
constexpr int tw = 16;

__global__ void matmul_ks(float *m, float *n, float *out, int h, int w, int k) {
    __shared__ float ms[tw][tw], ns[tw][tw];
    int tc=threadIdx.x, tr=threadIdx.y;
    int r=blockIdx.y*blockDim.y+tr, c=blockIdx.x*blockDim.x+tc;

    float p=0.0f;
    for (int ph=0; ph < cdiv(k,tw); ++ph) {
        int idx = ph*tw;
        ms[tr][tc] = r<h && idx+tc<k ? m[ tc+idx + r*k ] : 0.0f;
        ns[tr][tc] = c<w && idx+tr<k ? n[(tr+idx)*w + c] : 0.0f;
        __syncthreads();
        for (int i=0; i<tw; ++i) p += ms[tr][i] * ns[i][tc];
        __syncthreads();
    }
    if (r<h && c<w) out[r*w + c] = p;
}
EOF
sed 's/if (i<n)/if (i<=n)/' "$work/gray_1d.cu" >"$work/off_by_one.cu"
printf '%s\n' '__global__ void rgb_to_grayscale_kernel(unsigned char* x, unsigned char* out, int n) {' \
  '    int i = blockIdx.x*blockDim.x + threadIdx.x' \
  '    if (i<n) out[i] = 0.2989*x[i] + 0.5870*x[i+n] + 0.1140*x[i+2*n];' '}' >"$work/syntax.cu"
# Endless on any image over 1000 pixels: the loop's condition is the kernel's argument, so no
# compiler can prove it endless and drop it. (A loop the compiler can prove endless and free of
# effects, such as `volatile int spin = 0; while (spin >= 0) spin = (spin + 1) & 0xffff;`, is
# removed by NVRTC's optimiser on sm_90: the kernel then returns at once and the check reports
# its output WRONG, which is what the app says.)
printf '%s\n' '__global__ void rgb_to_grayscale_kernel(unsigned char* x, unsigned char* out, int n) {' \
  '    int i = blockIdx.x*blockDim.x + threadIdx.x;' '    volatile int spin = 0;' '    while (n > 1000) spin = spin + 1;' \
  '    if (i<n) out[i] = 0.2989*x[i] + 0.5870*x[i+n] + 0.1140*x[i+2*n];' '}' >"$work/endless.cu"
printf '%s\n' '__global__ void shifted(unsigned char* x, unsigned char* out, int n) {' \
  '    int i = blockIdx.x*blockDim.x + threadIdx.x;' \
  '    if (i + 1 < n) out[i + 1] = 0.2989*x[i] + 0.5870*x[i+n] + 0.1140*x[i+2*n];' '}' >"$work/shifted.cu"

backend=${BS_CHECK_BACKEND:-cuda}  # cpu: a dry run of this script's mechanics on a machine without a GPU
app=("$bundle/blockscope" --headless --backend "$backend" --frames 3)
step lecture_gray_1d 0 'launch: custom:rgb_to_grayscale_kernel' 'check: correct' 'compiled for the GPU' 'CUDA events' \
  'registers per thread' "${BS_CHECK_ARCH:-sm_90a}" -- \
  "${app[@]}" --kernel-file "$work/gray_1d.cu" --output "$work/gray_1d.png"
step lecture_gray_2d 0 'launch: custom:rgb_to_grayscale_kernel \[block 16x16' 'check: correct' -- \
  "${app[@]}" --kernel-file "$work/gray_2d.cu" --block 16x16
step lecture_matmul 0 'launch: custom:matmul_k' 'check: correct' -- \
  "${app[@]}" --kernel-file "$work/matmul.cu" --matmul-size 1023x1025x511 --block 16x16
step lecture5_tiled 0 'launch: custom:matmul_ks' 'check: correct' -- \
  "${app[@]}" --kernel-file "$work/matmul_tiled.cu" --matmul-size 1023x1025x511 --block 16x16
step off_by_one 1 'thread \(256, 0, 0\) of block \(682, 0, 0\)' 'out-of-bounds' -- \
  "${app[@]}" --kernel-file "$work/off_by_one.cu" --block 384
step syntax_error 1 'syntax\.cu:3' -- "${app[@]}" --kernel-file "$work/syntax.cu"
step endless_loop 1 'stopped after 2\.0 s' 'frames drawn while it compiled and ran' 'check: correct' -- \
  "${app[@]}" --kernel-file "$work/endless.cu" --window-size 640x400
step wrong_result 1 'check: WRONG' 'first wrong pixel' -- "${app[@]}" --kernel-file "$work/shifted.cu"
step schedule_per_sm 0 'check: correct' -- \
  "${app[@]}" --kernel-file "$work/gray_2d.cu" --block 32x8 --schedule-json "$work/schedule.json"
step schedule_json_sms 0 '"simulated": ?false' -- head -c 400 "$work/schedule.json"
step bench_vs_copy 0 'custom:rgb_to_grayscale_kernel' 'copy' -- \
  "$bundle/blockscope" bench gray --backend "$backend" --kernel-file "$work/gray_1d.cu" --kernel custom:rgb_to_grayscale_kernel \
  --kernel gray_1d_flat --kernel copy --size 8192x8192 --block 256 --set layout=planar --repeats 20
step bench_vs_cublas 0 'custom:matmul_k' 'cublas_sgemm' -- \
  "$bundle/blockscope" bench matmul --backend "$backend" --kernel-file "$work/matmul.cu" --kernel custom:matmul_k \
  --kernel k1_naive --kernel cublas_sgemm --size 4096 --block 16x16 --repeats 10
step app_gpu_kernel_file 0 'PASSED' -- "$bundle/test_kernel_file" --gtest_color=no --gtest_filter='*Gpu*'
findings_line=('CPU findings .* ready')  # the GPU's second time (issue 32); a CPU dry run has none
[ "$backend" = cuda ] || findings_line=()
step edit_to_result 0 'edit to result on' ${findings_line[@]+"${findings_line[@]}"} -- \
  "$bundle/blockscope-edit-to-result" --backend "$backend" --iterations 10 --json "$results/custom_edit_to_result.json"
step editor_screenshot 0 'check: correct' -- \
  "${app[@]}" --kernel-file "$work/gray_1d.cu" --window-size 1600x1000 --screenshot "$results/custom_editor_gpu.png"
# Issue 21: one measurement path. The same sweep at a loose and a tight confidence target: the
# user kernel's repeats per point follow the target as the built-in rung's do (the runner has no
# loop of its own; the parent's lab::measure drives every launch).
size=${BS_CHECK_SWEEP_SIZE:-4096x4096}
for ci in 0.05 0.002; do
  step "sweep_ci_$ci" 0 'custom:rgb_to_grayscale_kernel' -- \
    "$bundle/blockscope" sweep gray --backend "$backend" --size "$size" --kernel-file "$work/gray_1d.cu" \
    --kernel custom:rgb_to_grayscale_kernel --kernel gray_1d_flat --blocks 128,256,1024 --target-ci "$ci" \
    --point-budget 2000 --json "$results/custom_sweep_ci${ci#0.}.json"
done
cat >"$work/repeats.py" <<'EOF'
import json, sys
loose, tight = (json.load(open(p)) for p in sys.argv[1:3])
print("timing_policy at 5%:  ", json.dumps(loose["timing_policy"]))
print("timing_policy at 0.2%:", json.dumps(tight["timing_policy"]))
def points(d):
    return {(r["kernel"], r["config"]): r for r in d["results"] if r["outcome"] == "ok"}
def ci(r):
    return 100 * (r["ci_high_ms"] - r["ci_low_ms"]) / (2 * r["median_ms"]) if r["median_ms"] > 0 else 0
a, b = points(loose), points(tight)
print(f"{'kernel':34} {'config':14} {'repeats 5%':>10} {'+-%':>6} {'repeats 0.2%':>12} {'+-%':>6} {'l2_flushed':>10}")
follows = {}
for key in sorted(set(a) & set(b)):
    ra, rb = a[key], b[key]
    print(f"{key[0]:34} {key[1]:14} {ra['repeats']:>10} {ci(ra):>6.2f} {rb['repeats']:>12} {ci(rb):>6.2f} {str(rb['l2_flushed']):>10}")
    f = follows.setdefault(key[0].startswith("custom:"), [0, 0])
    f[0] += ra["repeats"]
    f[1] += rb["repeats"]
user = [r for r in tight["results"] if r["kernel"].startswith("custom:")]
if user:
    r = user[0]
    keys = ("kernel", "config", "outcome", "median_ms", "ci_low_ms", "ci_high_ms", "repeats", "warmup", "l2_flushed",
            "clock", "bytes", "flops")
    print("JSON excerpt (0.2%, user kernel):", json.dumps({k: r[k] for k in keys if k in r}))
for user_kernel, (ra, rb) in sorted(follows.items()):
    print(f"{'user kernel' if user_kernel else 'built-in rung'} follows the target: {'yes' if rb > ra else 'NO'} "
          f"({ra} repeats in all at 5%, {rb} at 0.2%)")
EOF
step sweep_repeats_follow_ci 0 'user kernel follows the target: yes' 'built-in rung follows the target: yes' -- \
  python3 "$work/repeats.py" "$results/custom_sweep_ci05.json" "$results/custom_sweep_ci002.json"
# Last: its faulting and endless kernels leave the GPU where later EGL + CUDA processes hang in
# cudaEventSynchronize (seen twice on an H200: app_gpu_kernel_file and editor_screenshot timed out
# after it; everything before it passed).
step engine_gpu_tests 0 'PASSED' -- "$bundle/test_custom_gpu" --gtest_color=no

echo
echo "== issue 11 (user kernels) on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)"
printf '%s\n' "${verdicts[@]}"
grep -h -A1 -E '^kernel file:' "$work"/lecture_gray_1d.out | tail -n 1
grep -h -E 'edit to result on|CPU findings' "$work"/edit_to_result.out
grep -h -E 'registers per thread' "$work"/lecture_gray_1d.out | head -n 1
grep -h -E '^\[ (flush|fault|timing|findings) \]' "$work"/engine_gpu_tests.out | head -n 12
grep -h -E 'follows the target|^JSON excerpt' "$work"/sweep_repeats_follow_ci.out
echo "full log: $log"
exit $failed
