#!/usr/bin/env bash
# Everything blockscope checks on a GPU machine, from a bundle made here, in parts that each fit
# one device call (10 minutes):
#
#   here:   tests/gpu/make_bundle.sh build OUT          (executables + the libraries the machine lacks)
#   there:  tests/gpu/run_on_device.sh OUT RESULTS PART (RESULTS: a folder for the few files kept)
#
# PART (default all, in this order):
#   core     the EGL probe, every gpu-labelled test binary (the fault injection excepted), the
#            headless app through zero-copy interop (screenshots: the SM overlay, the ladder's
#            one-thread-several-pixels overlay, the matmul schedule), bench of the grayscale ladder
#            (both layouts; 8192x8192 and 3840x2160) and of the matmul ladder at 4096^3
#   measured tests/gpu/checks/measured.sh (hardware counters, the Measured tab, against ncu)
#   lines    tests/gpu/checks/lines.sh    (stall samples per line: against ncu's source page, the
#            Source tab's screenshots, the request-to-table time)
#   tensor   tests/gpu/checks/tensor.sh   (see the tensor cores: the screenshots of issue 20, the
#            fragment tags and the pipeline's tables, the data view's cost at 8192^3)
#   sweep    tests/gpu/checks/sweep.sh    (sweeps: wall time, frames, heatmap, bars, NVTX)
#   last     the 3000-launch CUDA soak, compute-sanitizer (sanitize.sh), then your own kernel
#            (tests/gpu/checks/custom.sh: NVRTC, a faulting and an endless kernel in runner
#            processes, and test_custom_gpu as its last step). Seen on the H200: after such a
#            fault, the next process using EGL with CUDA hangs in cudaEventSynchronize; give the
#            machine back after this part.
#   soakloop the 3000-launch CUDA soak again and again, each with a fresh seed, until 20 runs are
#            recorded in RESULTS/soak_loop.txt (one line each: seed, verdict, seconds); a call
#            stops starting runs after SOAK_BUDGET_S (default 480) and the next call with the same
#            RESULTS carries on. Its step passes once 20 runs are recorded and all passed, and
#            says "incomplete" (exit 2) while fewer are. Before the fault-leaving parts.
#   (every part but soakloop and fault ends with the budgets step: tools/budgets/check_budgets.py
#   on RESULTS, each figure of budgets.json found there beside its limit, failing on one missed)
#   fault    the fault injection, alone, on a fresh machine (it leaves the same state; after
#            custom.sh it hung too), and give the machine back after it.
# Every test runs with BLOCKSCOPE_REQUIRE_GPU=1: a GPU test that would skip (no device, no
# interop, no counters) fails instead, so no step is green without having run.
# Prints a verdict per step at the end; exit 1 if any failed.
set -u
bundle="$(cd "${1:-OUT}" && pwd)"
results="${2:-${OUT:-results}}"
part="${3:-all}"
mkdir -p "$results"
log="$results/log_${part}.txt"

# CUDA's own libraries (cudart, cuBLAS) come from the machine's toolkit, not the bundle.
cuda_libs=/usr/local/cuda/lib64
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do [ -e "$d/libcublas.so.13" ] && cuda_libs="$d"; done
if [ ! -e "$cuda_libs/libcublas.so.13" ]; then
  alt=$(python3 -c 'import nvidia.cublas, os; print(os.path.join(list(nvidia.cublas.__path__)[0], "lib"))' 2>/dev/null || true)
  [ -n "$alt" ] && cuda_libs="$cuda_libs:$alt"
fi
export LD_LIBRARY_PATH="$bundle/lib:$cuda_libs:${LD_LIBRARY_PATH:-}"
for f in /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json /usr/share/glvnd/egl_vendor.d/10_nvidia.json; do
  [ -e "$f" ] && { export __EGL_VENDOR_LIBRARY_FILENAMES="$f"; break; }
done
export BLOCKSCOPE_EXE="$bundle/blockscope"
export BLOCKSCOPE_SELFTEST_EXE="$bundle/blockscope-selftest"
export BLOCKSCOPE_KERNEL_RUNNER="$bundle/blockscope-kernel-runner"
export BS_FAKE_CUPTI="$bundle/libfake_cupti_no_permission.so"  # the stand-in libcupti that refuses
export XDG_CONFIG_HOME="$(mktemp -d)"
# On this machine a GPU test must run: its skips are failures (tests/support/skips.hpp).
export BLOCKSCOPE_REQUIRE_GPU=1

declare -a verdicts
step() {  # name command...
  local name=$1; shift
  echo "==== $name: $*" | tee -a "$log"
  local t0=$SECONDS
  # No step may take the whole call: a hung one is killed and reported.
  if declare -F "$1" >/dev/null; then
    "$@" >>"$log" 2>&1  # a function of this script (its own budget)
  else
    timeout "${STEP_TIMEOUT:-150}" "$@" >>"$log" 2>&1
  fi
  local rc=$?
  local verdict="FAILED rc=$rc"
  [ $rc -eq 0 ] && verdict=ok
  [ $rc -eq 2 ] && [ "$name" = soak_loop ] && verdict="incomplete: run this part again"
  verdicts+=("$(printf '%-28s %s (%ds)' "$name" "$verdict" $((SECONDS - t0)))")
  tail -n 25 "$log" | grep -E "PASSED|FAILED|SKIPPED|interop:|backend:|gl:|launch:|error|soak loop" | tail -n 8
  return 0
}

{
  echo "== $(date -u +%FT%TZ) part $part"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv
  echo "cuda libs: $cuda_libs"; echo "egl vendor: ${__EGL_VENDOR_LIBRARY_FILENAMES:-default}"
} >>"$log" 2>&1
want() { [ "$part" = all ] || [ "$part" = "$1" ]; }

if want core; then
  step egl_probe           "$bundle/bs_egl_probe" 0
  step gray_gpu_tests      "$bundle/test_grayscale_gpu" --gtest_color=no
  step ladder_gpu_tests    "$bundle/test_gray_ladder_gpu" --gtest_color=no
  step interop_gpu_tests   "$bundle/test_gfx_gpu" --gtest_color=no
  step gfx_tests_on_nvidia "$bundle/test_gfx" --gtest_color=no
  step platform_tests      "$bundle/test_platform" --gtest_color=no
  step device_gpu_tests    "$bundle/test_device_gpu" --gtest_color=no
  step mapping_gpu_tests   "$bundle/test_mapping_gpu" --gtest_color=no
  step headless_app_gpu    "$bundle/test_headless_app" --gtest_color=no --gtest_filter='*Gpu*'
  step matmul_gpu_tests    "$bundle/test_matmul_gpu" --gtest_color=no
  step matmul_tc_gpu_tests "$bundle/test_matmul_tc_gpu" --gtest_color=no
  # Fragment tags recorded on the GPU against the PTX ISA model (issue 20): prints the table.
  step matmul_frags_gpu    "$bundle/test_matmul_frags_gpu" --gtest_color=no
  # The warp-specialized pipeline (issue 20): prints the cost/coverage table, writes its JSON and
  # the 4096^3 recordings (for --matmul-pipeline-trace) into RESULTS.
  step pipeline_gpu_tests  env BS_PIPELINE_JSON="$results/pipeline_check.json" BS_PIPELINE_TRACE_DIR="$results" \
                           "$bundle/test_pipeline_gpu" --gtest_color=no
  step matmul_lab_gpu      "$bundle/test_matmul_lab_headless" --gtest_color=no --gtest_filter='*Gpu*'
  step matmul_heatmap_gpu  "$bundle/test_matmul_heatmap_gpu" --gtest_color=no
  step sweep_app_gpu       "$bundle/test_sweep_app" --gtest_color=no --gtest_filter='*Gpu*'
  step kernel_file_gpu     "$bundle/test_kernel_file" --gtest_color=no --gtest_filter='*Gpu*'
  step measured_gpu_tests  "$bundle/test_measured_gpu" --gtest_color=no
  step measured_app_gpu    "$bundle/test_measured_app" --gtest_color=no --gtest_filter='*Gpu*'
  step counters_gpu_tests  "$bundle/test_counters_gpu" --gtest_color=no
  step sampling_gpu_tests  "$bundle/test_sampling_gpu" --gtest_color=no
  step lines_gpu_tests     "$bundle/test_lines_gpu" --gtest_color=no
  step screenshot_by_sm    "$bundle/blockscope" --headless --backend cuda --frames 4 --kernel gray_2d --block 32x8 \
                           --overlay sm --pin 200,150 --panel launch --screenshot "$results/shot_sm.png" \
                           --schedule-json /tmp/bs_schedule.json
  step schedule_json_head  head -c 500 /tmp/bs_schedule.json
  step screenshot_vec16    "$bundle/blockscope" --headless --backend cuda --frames 4 --kernel gray_vec16 --block 128 \
                           --overlay block --hover 300,200 --zoom 8 --panel launch --screenshot "$results/shot_vec16.png"
  step screenshot_matmul   "$bundle/blockscope" --headless --backend cuda --lab matmul --frames 6 --hover 1500,900 \
                           --kernel k7_warptile --panel schedule --screenshot "$results/shot_matmul_schedule.png"
  step screenshot_pipeline "$bundle/blockscope" --headless --backend cuda --lab matmul --set precision=bf16 --frames 6 \
                           --kernel tc4_warp_specialized --panel pipeline --screenshot "$results/shot_pipeline_t4.png"
  for layout in planar rgba; do
    step "bench_gray_$layout" "$bundle/blockscope" bench gray --backend cuda --size 8192x8192 --size 3840x2160 \
                           --set layout=$layout --repeats 30 --warmup 5 --json "$results/bench_gray_$layout.json"
  done
  step bench_matmul        "$bundle/blockscope" bench matmul --backend cuda --size 4096x4096x4096 \
                           --json "$results/bench_matmul.json"
  step bench_matmul_bf16   "$bundle/blockscope" bench matmul --backend cuda --set precision=bf16 \
                           --size 4096x4096x4096 --size 8192x8192x8192 --json "$results/bench_matmul_bf16.json"
fi
if want measured; then STEP_TIMEOUT=560 step measured_check bash "$bundle/measured.sh" "$bundle" "$results"; fi
if want lines;    then STEP_TIMEOUT=560 step lines_check    bash "$bundle/lines.sh" "$bundle" "$results"; fi
if want tensor;   then STEP_TIMEOUT=560 step tensor_check   bash "$bundle/tensor.sh" "$bundle" "$results"; fi
if want sweep;    then STEP_TIMEOUT=560 step sweep_check    bash "$bundle/sweep.sh" "$bundle" "$results"; fi
if want last; then
  step soak_gpu_test       "$bundle/test_soak" --gtest_color=no --gtest_filter='*GpuRunOf3000*'
  STEP_TIMEOUT=300 step sanitize            env SANITIZE_BUDGET_S="${SANITIZE_BUDGET_S:-180}" bash "$bundle/sanitize.sh" "$bundle" "$results"
  # User kernels that fault and loop forever (in their own runner processes) leave the GPU as
  # the fault injection does: after the soak and the sanitizer; custom.sh runs test_custom_gpu,
  # the faulting one, as its own last step.
  STEP_TIMEOUT=300 step custom_check bash "$bundle/custom.sh" "$bundle" "$results"
fi
if [ "$part" = soakloop ]; then
  # Not part of `all`: it takes 20 soaks (a few device calls).
  soak_loop() {  # appends runs to $results/soak_loop.txt until 20 are recorded or the budget is spent
    local book="$results/soak_loop.txt" budget=${SOAK_BUDGET_S:-480} t0=$SECONDS
    touch "$book"
    while [ "$(grep -c . "$book")" -lt 20 ] && [ $((SECONDS - t0)) -lt "$budget" ]; do
      local n=$(( $(grep -c . "$book") + 1 )) seed=$(( (RANDOM << 30) ^ (RANDOM << 15) ^ RANDOM )) t=$SECONDS
      local out="$results/soak_run_$n.txt"
      timeout 300 "$bundle/blockscope-selftest" soak --backend cuda --launches 3000 --seed "$seed" >"$out" 2>&1
      local rc=$?
      local verdict=PASSED
      [ $rc -eq 0 ] && grep -q "soak: PASSED" "$out" || verdict="FAILED rc=$rc"
      [ "$verdict" = PASSED ] && rm -f "$out"  # a failing run's whole output is kept
      printf 'run %d seed %s %s %ds\n' "$n" "$seed" "$verdict" $((SECONDS - t)) | tee -a "$book"
    done
    local runs passed
    runs=$(grep -c . "$book"); passed=$(grep -c " PASSED " "$book")
    echo "soak loop: $passed of $runs runs passed ($runs of 20 recorded)"
    [ "$passed" -lt "$runs" ] && return 1
    [ "$runs" -lt 20 ] && return 2
    return 0
  }
  STEP_TIMEOUT=590 step soak_loop soak_loop
fi
if want fault; then
  # Last, because it leaves the GPU recovering from a real fault: a sticky fault is reported and
  # the app carries on on the CPU.
  step gpu_fault_recovery  "$bundle/blockscope-selftest" fault --output "$results/fault_after.png"
fi
# The budgets (budgets.json): each figure this run and earlier parts left in RESULTS beside its
# limit, and a line for each one missed (the step fails then: a regression is seen at its run).
if [ "$part" != soakloop ] && [ "$part" != fault ]; then
  step budgets python3 "$bundle/check_budgets.py" "$results" --budgets "$bundle/budgets.json" \
                       --json "$results/budgets_${part}.json"
  tac "$log" | sed -n '/^budgets: /,/^budget  /p' | tac  # the table just written, to the console
fi
echo
printf '%s\n' "${verdicts[@]}" | tee -a "$log"
printf '%s\n' "${verdicts[@]}" | grep -q FAILED && exit 1
printf '%s\n' "${verdicts[@]}" | grep -q incomplete && exit 2
exit 0
