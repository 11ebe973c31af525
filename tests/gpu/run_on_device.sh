#!/usr/bin/env bash
# Everything blockscope checks on a GPU machine, in one call, from a bundle made here:
#
#   here:   tests/gpu/make_bundle.sh build OUT      (executables + the libraries the machine lacks)
#   there:  tests/gpu/run_on_device.sh OUT RESULTS  (RESULTS: a folder for at most 8 files)
#
# Runs: the EGL probe, every gpu-labelled test binary, the headless app through zero-copy
# interop (screenshots by SM and of the schedule), bench gray on 8192x8192, the matmul ladder
# bench, and the hardware counters against Nsight Compute. Prints a verdict per step at the end; exit 1 if any failed.
set -u
bundle="$(cd "${1:-OUT}" && pwd)"
results="${2:-${OUT:-results}}"
mkdir -p "$results"
log="$results/log.txt"

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
export XDG_CONFIG_HOME="$(mktemp -d)"

declare -a verdicts
step() {  # name command...
  local name=$1; shift
  echo "==== $name: $*" | tee -a "$log"
  local t0=$SECONDS
  # No step may take the whole call: a hung one is killed and reported.
  timeout "${STEP_TIMEOUT:-150}" "$@" >>"$log" 2>&1
  local rc=$?
  verdicts+=("$(printf '%-28s %s (%ds)' "$name" "$([ $rc -eq 0 ] && echo ok || echo "FAILED rc=$rc")" $((SECONDS - t0)))")
  tail -n 25 "$log" | grep -E "PASSED|FAILED|SKIPPED|interop:|backend:|gl:|launch:|error" | tail -n 8
  return 0
}

{
  echo "== $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv
  echo "cuda libs: $cuda_libs"; echo "egl vendor: ${__EGL_VENDOR_LIBRARY_FILENAMES:-default}"
} >>"$log" 2>&1

step egl_probe              "$bundle/bs_egl_probe" 0
step gray_gpu_tests         "$bundle/test_grayscale_gpu" --gtest_color=no
step interop_gpu_tests      "$bundle/test_gfx_gpu" --gtest_color=no
step gfx_tests_on_nvidia    "$bundle/test_gfx" --gtest_color=no
step platform_tests         "$bundle/test_platform" --gtest_color=no
step mapping_gpu_tests      "$bundle/test_mapping_gpu" --gtest_color=no
step headless_app_gpu       "$bundle/test_headless_app" --gtest_color=no --gtest_filter='-*Fault*'
step screenshot_by_sm       "$bundle/blockscope" --headless --backend cuda --frames 4 --kernel 2d --block 32x8 \
                            --overlay sm --pin 200,150 --panel stats --screenshot "$results/shot_sm.png" \
                            --schedule-json /tmp/bs_schedule.json
step schedule_json_head     head -c 700 /tmp/bs_schedule.json
step screenshot_schedule    "$bundle/blockscope" --headless --backend cuda --frames 4 --kernel 1d --block 256 \
                            --overlay block --hover 300,200 --panel schedule --screenshot "$results/shot_schedule.png"
step bench_gray             "$bundle/blockscope" bench gray --backend cuda --size 8192x8192 --kernel 1d --kernel 2d \
                            --block 256 --block 16x16 --block 32x8 --block 1024 --repeats 50 --warmup 5 \
                            --json "$results/bench_gray.json"
step matmul_gpu_tests       "$bundle/test_matmul_gpu" --gtest_color=no
step matmul_lab_gpu         "$bundle/test_matmul_lab_headless" --gtest_color=no --gtest_filter='*Gpu*'
step matmul_heatmap_gpu     "$bundle/test_matmul_heatmap_gpu" --gtest_color=no
step screenshot_matmul      "$bundle/blockscope" --headless --backend cuda --lab matmul --frames 6 --hover 1500,900 \
                            --matmul-phase 100 --panel memory --screenshot "$results/shot_matmul.png"
step bench_matmul           "$bundle/blockscope" bench matmul --backend cuda --size 4096x4096x4096 \
                            --json "$results/bench_matmul.json"
# Hardware counters: the tests (one loads a libcupti that refuses as the driver refuses a user
# without profiling permission), then every gated counter against ncu (DRAM bytes, occupancy,
# sectors per request) with the side-by-side table in the log.
step counters_gpu_tests     env BS_FAKE_CUPTI="$bundle/libfake_cupti_no_permission.so" \
                            "$bundle/test_counters_gpu" --gtest_color=no
step counters_vs_ncu        "$bundle/compare_with_ncu.sh" "$bundle/counters_probe" /tmp/bs_counters_vs_ncu
step soak_cuda              "$bundle/blockscope" soak --backend cuda --launches 3000 --seconds 100
# Last, because it leaves the GPU recovering from a real fault (the process after it waited
# for the driver once): a sticky fault is reported and the app carries on on the CPU.
step gpu_fault_recovery     "$bundle/test_headless_app" --gtest_color=no --gtest_filter='*Fault*'
echo
printf '%s\n' "${verdicts[@]}" | tee -a "$log"
printf '%s\n' "${verdicts[@]}" | grep -q FAILED && exit 1
exit 0
