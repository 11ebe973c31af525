#!/usr/bin/env bash
# The matmul lab on the GPU machine: GPU tests, a compute-sanitizer pass over small sizes, the
# ladder benchmark, and a SASS summary of the fastest rung. Builds nothing.
#
#   tests/matmul/gpu_check.sh [BIN_DIR] [OUT_DIR]
#
# BIN_DIR holds test_matmul_gpu and bs_matmul_bench (and optionally test_matmul), either
# directly or in a build tree's layout (tests/matmul/, kernels/labs/matmul/). Default: build-matmul.
# OUT_DIR receives at most 8 files (logs, bench JSON, SASS). Default: $OUT, else ./matmul-gpu-out.
#
# Environment: SKIP_TESTS=1, SKIP_SANITIZER=1, SKIP_BENCH=1, SKIP_SASS=1 leave a step out;
# BENCH_ARGS replaces the benchmark's size list (default: 4096^3, 2048^3, 1024^3 and the
# lecture's MNIST-sized 10000 x 784 times 784 x 10).
#
# Exit status: 0 when every step that ran passed, 1 otherwise. Each step's verdict is printed at
# the end, so one failing step does not hide the others.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
bin_dir="${1:-$repo/build-matmul}"
out_dir="${2:-${OUT:-$repo/matmul-gpu-out}}"
mkdir -p "$out_dir"

find_bin() {  # name -> path or empty
  for p in "$bin_dir/$1" "$bin_dir/tests/matmul/$1" "$bin_dir/kernels/labs/matmul/$1"; do
    [[ -x "$p" ]] && { echo "$p"; return; }
  done
}
gpu_tests="$(find_bin test_matmul_gpu)"
cpu_tests="$(find_bin test_matmul)"
bench="$(find_bin bs_matmul_bench)"
if [[ -z "$gpu_tests" || -z "$bench" ]]; then
  echo "gpu_check: test_matmul_gpu or bs_matmul_bench not found under $bin_dir (this script builds nothing)" >&2
  exit 1
fi
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}/usr/local/cuda/lib64:/usr/local/cuda/lib"
sanitizer="$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)"
cuobjdump="$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null || true)"

declare -a verdicts
failed=0
record() {  # step status
  verdicts+=("$1: $2")
  [[ "$2" == ok* || "$2" == skipped* ]] || failed=1
}

# --- device -------------------------------------------------------------------------------------
{
  echo "== $(date -u +%FT%TZ) on $(hostname)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,power.limit \
    --format=csv 2>&1 || echo "nvidia-smi not available"
} | tee "$out_dir/device.txt"

# --- tests --------------------------------------------------------------------------------------
if [[ "${SKIP_TESTS:-0}" != 1 ]]; then
  (  # a subshell: its exit sets the step's status, not the script's
    echo "== $gpu_tests (every rung and configuration, all sizes up to 1025, cuBLAS, OOM)"
    "$gpu_tests" --gtest_color=no
    gpu_rc=$?
    echo "== test_matmul_gpu exit status $gpu_rc"
    cpu_rc=0
    if [[ -n "$cpu_tests" ]]; then
      echo "== $cpu_tests (CPU simulator ladder, registry, tolerance)"
      "$cpu_tests" --gtest_color=no --gtest_brief=1
      cpu_rc=$?
      echo "== test_matmul exit status $cpu_rc"
    fi
    exit $(( gpu_rc != 0 || cpu_rc != 0 ))
  ) > "$out_dir/tests.log" 2>&1
  rc=$?
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|device  \]|data seed" "$out_dir/tests.log" | head -40
  if grep -q "SKIPPED" "$out_dir/tests.log" && grep -q "no usable CUDA device" "$out_dir/tests.log"; then
    record tests "FAILED (skipped: no usable CUDA device; see tests.log)"
  elif [[ $rc == 0 ]]; then record tests ok; else record tests "FAILED (see tests.log)"; fi
else
  record tests "skipped (SKIP_TESTS=1)"
fi

# --- compute-sanitizer on small sizes -------------------------------------------------------------
if [[ "${SKIP_SANITIZER:-0}" != 1 ]]; then
  if [[ -z "$sanitizer" ]]; then
    record sanitizer "FAILED (compute-sanitizer not found)"
  else
    (
      echo "== memcheck: every configuration at 1, 7, 33, 37x53x41, 130x67x129 + refusals + OOM"
      "$sanitizer" --tool memcheck --error-exitcode 86 --leak-check full "$gpu_tests" --gtest_color=no \
        --gtest_filter='Sizes/GpuLadderSmall.*:GpuLab.RefusedConfigurationsAreNotLaunched:GpuLab.OutOfMemoryIsAMessage'
      m=$?
      echo "== memcheck exit status $m"
      echo "== racecheck (shared-memory hazards): every configuration at 130x67x129"
      "$sanitizer" --tool racecheck --racecheck-report hazard --error-exitcode 86 "$gpu_tests" --gtest_color=no \
        --gtest_filter='Sizes/GpuLadderSmall.*s130x67x129'
      r=$?
      echo "== racecheck exit status $r"
      echo "== synccheck (barriers): every configuration at 37x53x41"
      "$sanitizer" --tool synccheck --error-exitcode 86 "$gpu_tests" --gtest_color=no \
        --gtest_filter='Sizes/GpuLadderSmall.*s37x53x41'
      s=$?
      echo "== synccheck exit status $s"
      exit $(( m != 0 || r != 0 || s != 0 ))
    ) > "$out_dir/sanitizer.log" 2>&1
    rc=$?
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|exit status|^\[  (PASSED|FAILED) " "$out_dir/sanitizer.log" | head -20
    if [[ $rc == 0 ]]; then record sanitizer ok; else record sanitizer "FAILED (see sanitizer.log)"; fi
  fi
else
  record sanitizer "skipped (SKIP_SANITIZER=1)"
fi

# --- benchmark ------------------------------------------------------------------------------------
if [[ "${SKIP_BENCH:-0}" != 1 ]]; then
  # shellcheck disable=SC2206
  args=(${BENCH_ARGS:---size 4096x4096x4096 --size 2048 --size 1024 --size 10000x10x784})
  "$bench" "${args[@]}" --json "$out_dir/bench.json" 2>&1 | tee "$out_dir/bench.log"
  rc=${PIPESTATUS[0]}
  if [[ $rc == 0 ]]; then record bench "ok ($(grep -m1 'best hand-written' "$out_dir/bench.log" || echo 'see bench.log'))"
  else record bench "FAILED (exit $rc; see bench.log)"; fi
else
  record bench "skipped (SKIP_BENCH=1)"
fi

# --- SASS of the rung-7 kernels -------------------------------------------------------------------
if [[ "${SKIP_SASS:-0}" != 1 ]]; then
  if [[ -z "$cuobjdump" ]]; then
    record sass "skipped (cuobjdump not found)"
  else
    "$cuobjdump" --dump-sass "$bench" > "$out_dir/sass_all.tmp" 2>&1
    # Keep only the k7 functions; summarise the instruction mix of each.
    awk '/Function : /{keep = ($0 ~ /k7_warptile/)} keep' "$out_dir/sass_all.tmp" > "$out_dir/k7_sass.txt"
    rm -f "$out_dir/sass_all.tmp"
    {
      echo "instruction mix per rung-7 kernel (whole function; the main loop is most of it)"
      awk '
        /Function : /{ if (name != "") report(); name = $NF; delete c; total = 0; next }
        match($0, /\/\*[0-9a-f]+\*\/ +/) {
          line = substr($0, RSTART + RLENGTH); sub(/^@!?U?P[0-9T] +/, "", line);
          split(line, w, /[ .;]/); op = w[1]; c[op]++; total++ }
        function report() {
          printf "%s\n  total %d", name, total
          n = split("FFMA LDS LDG STS STG BAR LDL STL BRA", ops, " ")
          for (i = 1; i <= n; i++) printf "  %s %d", ops[i], c[ops[i]]
          printf "  FFMA share %.1f%%\n", total ? 100 * c["FFMA"] / total : 0 }
        END { if (name != "") report() }' "$out_dir/k7_sass.txt"
    } | tee "$out_dir/sass_summary.txt"
    if grep -qE "LDL|STL" "$out_dir/k7_sass.txt"; then
      record sass "FAILED (local-memory spills in a rung-7 kernel; see sass_summary.txt)"
    else
      record sass ok
    fi
  fi
else
  record sass "skipped (SKIP_SASS=1)"
fi

echo
echo "== gpu_check summary (files in $out_dir)"
for v in "${verdicts[@]}"; do echo "  $v"; done
exit $failed
