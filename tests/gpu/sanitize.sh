#!/usr/bin/env bash
# compute-sanitizer over every CUDA kernel blockscope launches, on the GPU machine, from a bundle
# (tests/gpu/make_bundle.sh) or a build tree. Fails on any report.
#
#   tests/gpu/sanitize.sh BUNDLE_OR_BUILD_DIR RESULTS_DIR
#
# Tools x targets (each run is `compute-sanitizer --tool T --error-exitcode 86 ...`; memcheck
# adds --leak-check full, racecheck --racecheck-report hazard):
#   gray     test_grayscale_gpu, all of it: both kernels, 7 block shapes each (1x1x1 up to 1024,
#            7x3x5, 7x13, 1x256 ...) on 1x1, 1x5000, 1023x767, 4000x3, 8191x1, refusals, traced
#            launches. Small enough for every tool unfiltered.
#   matmul   test_matmul_gpu, trimmed with --gtest_filter because the full ladder (sizes up to
#            1025^3) takes minutes natively and 10-100x that under a sanitizer:
#              memcheck:  GpuLadderSmall.* (every rung, every compiled configuration, plus cuBLAS,
#                         at 1^3, 7^3, 33^3, 37x53x41, 130x67x129), the odd row lengths that take
#                         the scalar (non-float4) paths, refusals and out-of-memory
#              racecheck: GpuLadderSmall at 37x53x41 and 130x67x129 (partial tiles on every edge,
#                         several k-steps: the shared-memory hazards show there)
#              synccheck: GpuLadderSmall at 37x53x41
#              initcheck: GpuLadderSmall.* (all five small shapes)
#   tc       test_matmul_tc_gpu --gtest_filter='Sizes/GpuTcSmall.*': every tensor-core rung (WMMA,
#            mma.sync, and on Hopper wgmma + TMA, warp-specialized, persistent, clusters with
#            multicast) and the cuBLAS anchors at 37x53x41 and 300x521x129 (partial tiles on every
#            edge, TMA's out-of-bounds fill, K not a multiple of the 64-wide slices); with
#            memcheck and racecheck also GpuTcSplit (T7 at 2304x2052x136, where it splits tiles
#            across clusters: flags between blocks, TMA stores and reduce-adds)
#   trace    test_mapping_gpu --gtest_filter='GpuTrace.*' (the block-schedule trace kernels)
#   app      the headless app through CUDA-GL interop (zero-copy into a GL pixel buffer):
#              blockscope --headless --backend cuda --frames 2 on a 1023x767 random PNG with the
#              2D kernel (32x8) and on a 333x211 one with the 1D kernel (block 100)
#            kept to 2 frames because GL interop under a sanitizer is slow.
#
# SANITIZE_TARGETS (default: all) names the targets to run, e.g. SANITIZE_TARGETS="tc matmul".
#
# Time: the whole script stops starting new runs after SANITIZE_BUDGET_S seconds (default 450,
# so it ends inside about 8 minutes); each run has at most SANITIZE_STEP_S seconds (default 150).
# A run cut short or never started counts as a failure and is named in the summary, so a budget
# that is too small is visible, never silently passed.
#
# Writes RESULTS_DIR/sanitize_summary.txt (tool x target -> verdict, errors, seconds) and
# RESULTS_DIR/sanitize.log (every run's output). Exit 0 only when every run passed.
set -u
src="$(cd "${1:?usage: sanitize.sh BUNDLE_OR_BUILD_DIR RESULTS_DIR}" && pwd)"
results="${2:-${OUT:-sanitize-results}}"
mkdir -p "$results"
results="$(cd "$results" && pwd)"
log="$results/sanitize.log"
summary="$results/sanitize_summary.txt"
: >"$log"
budget=${SANITIZE_BUDGET_S:-450}
step_limit=${SANITIZE_STEP_S:-150}
start=$SECONDS

say() { echo "$*" | tee -a "$log"; }

# --- environment: as tests/gpu/run_on_device.sh --------------------------------------------------
cuda_libs=/usr/local/cuda/lib64
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do [ -e "$d/libcublas.so.13" ] && cuda_libs="$d"; done
if [ ! -e "$cuda_libs/libcublas.so.13" ]; then
  alt=$(python3 -c 'import nvidia.cublas, os; print(os.path.join(list(nvidia.cublas.__path__)[0], "lib"))' 2>/dev/null || true)
  [ -n "$alt" ] && cuda_libs="$cuda_libs:$alt"
fi
[ -d "$src/lib" ] && export LD_LIBRARY_PATH="$src/lib:$cuda_libs:${LD_LIBRARY_PATH:-}" \
                  || export LD_LIBRARY_PATH="$cuda_libs:${LD_LIBRARY_PATH:-}"
for f in /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json /usr/share/glvnd/egl_vendor.d/10_nvidia.json; do
  [ -e "$f" ] && { export __EGL_VENDOR_LIBRARY_FILENAMES="$f"; break; }
done
export XDG_CONFIG_HOME="$(mktemp -d)"
work="$(mktemp -d)"

find_bin() {  # name -> path in a bundle (flat) or a build tree
  for p in "$src/$1" "$src/tests/grayscale/$1" "$src/tests/matmul/$1" "$src/tests/mapping/$1" "$src/app/$1"; do
    [ -x "$p" ] && { echo "$p"; return; }
  done
}
sanitizer="$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)"
gray="$(find_bin test_grayscale_gpu)"
matmul="$(find_bin test_matmul_gpu)"
tc="$(find_bin test_matmul_tc_gpu)"
mapping="$(find_bin test_mapping_gpu)"
heatmap="$(find_bin test_matmul_heatmap_gpu)"
ladder="$(find_bin test_gray_ladder_gpu)"
app="$(find_bin blockscope)"

{
  echo "== sanitize.sh $(date -u +%FT%TZ) on $(hostname)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 || echo "nvidia-smi not available"
  echo "compute-sanitizer: ${sanitizer:-NOT FOUND} $([ -n "$sanitizer" ] && "$sanitizer" --version 2>&1 | tail -n 1)"
  echo "binaries: gray=${gray:-missing} ladder=${ladder:-missing} matmul=${matmul:-missing} tc=${tc:-missing} mapping=${mapping:-missing} heatmap=${heatmap:-missing}"
  echo "budget ${budget}s, at most ${step_limit}s per run"
} | tee -a "$log"

# Random PNGs of odd sizes for the app (stdlib Python only: zlib + struct; no PIL needed).
make_png() {  # path width height
  python3 - "$@" <<'EOF'
import os, struct, sys, zlib
path, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
raw = b"".join(b"\x00" + os.urandom(3 * w) for _ in range(h))
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) \
      + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b"")
open(path, "wb").write(png)
EOF
}
img_big="$work/random_1023x767.png"
img_small="$work/random_333x211.png"
if ! { make_png "$img_big" 1023 767 && make_png "$img_small" 333 211; }; then
  say "python3 could not write test PNGs: the app runs on its built-in 512x512 sample instead"
  img_big=""; img_small=""
fi

declare -a rows
failed=0
row() {  # tool target verdict errors seconds
  rows+=("$(printf '%-10s %-8s %-34s %-8s %ss' "$1" "$2" "$3" "$4" "$5")")
  case "$3" in ok*) ;; *) failed=1 ;; esac
}

# run TOOL TARGET command...: one sanitizer run, judged by its exit status and its summary line.
run() {
  local tool=$1 target=$2; shift 2
  local left=$(( budget - (SECONDS - start) ))
  case " ${SANITIZE_TARGETS:-all} " in *" all "*|*" $target "*) ;; *) return ;; esac
  if [ -z "$sanitizer" ]; then row "$tool" "$target" "FAILED (no compute-sanitizer)" - 0; return; fi
  if [ -z "$1" ] || [ ! -x "$1" ]; then row "$tool" "$target" "FAILED (binary missing)" - 0; return; fi
  if [ "$left" -le 5 ]; then row "$tool" "$target" "NOT RUN (budget ${budget}s spent)" - 0; return; fi
  local limit=$(( left < step_limit ? left : step_limit ))
  local extra=()
  case "$tool" in
    memcheck) extra=(--leak-check full) ;;
    racecheck) extra=(--racecheck-report hazard) ;;
  esac
  local part="$work/part.log"
  echo "==== $tool $target (limit ${limit}s): $*" | tee -a "$log"
  local t0=$SECONDS
  timeout --kill-after=10 "$limit" "$sanitizer" --tool "$tool" --error-exitcode 86 --print-limit 20 \
    "${extra[@]}" "$@" >"$part" 2>&1
  local rc=$? secs=$(( SECONDS - t0 ))
  cat "$part" >>"$log"
  # "ERROR SUMMARY: 0 errors" (memcheck, initcheck, synccheck) or
  # "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)".
  local errors
  errors=$(grep -Eo "ERROR SUMMARY: [0-9]+ error|RACECHECK SUMMARY: [0-9]+ hazard" "$part" | grep -Eo "[0-9]+" | tail -n 1)
  errors=${errors:--}
  local verdict
  if grep -q "Device not supported\|not supported on this platform" "$part"; then
    verdict="FAILED (sanitizer: device not supported here)"
  elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    verdict="FAILED (timed out after ${limit}s)"
  elif [ $rc -eq 86 ]; then
    verdict="FAILED (sanitizer reports)"
  elif grep -q "^\[  SKIPPED \]" "$part" && grep -qi "no usable CUDA device\|no CUDA device" "$part"; then
    verdict="FAILED (tests skipped: no CUDA device)"
  elif [ $rc -eq 4 ] && grep -q "cannot use CUDA" "$part"; then
    verdict="FAILED (no usable CUDA device)"
  elif [ $rc -ne 0 ]; then
    verdict="FAILED (exit $rc: the program itself failed)"
  elif [ "$errors" != "-" ] && [ "$errors" != 0 ]; then
    verdict="FAILED ($errors reported)"
  elif [ "$errors" = "-" ]; then
    verdict="FAILED (no sanitizer summary line)"
  else
    verdict="ok"
  fi
  row "$tool" "$target" "$verdict" "$errors" "$secs"
  echo "---- $tool $target: $verdict (errors $errors, ${secs}s)" | tee -a "$log"
}

small='Sizes/GpuLadderSmall.*'
mm_memcheck="$small:GpuLab.OddRowLengthsTakeTheScalarPaths:GpuLab.RefusedConfigurationsAreNotLaunched:GpuLab.OutOfMemoryIsAMessage"
app_2d=(--headless --backend cuda --frames 2 --window-size 800x500 --kernel 2d --block 32x8 --overlay sm ${img_big:+"$img_big"})
app_1d=(--headless --backend cuda --frames 2 --window-size 800x500 --kernel 1d --block 100 ${img_small:+"$img_small"})

# memcheck first on everything (out-of-bounds, misaligned, leaks), then the hazard tools.
# The headless app itself is not run under compute-sanitizer: on the H200 (2026-11-22) every
# run of it (memcheck, racecheck; 2 frames, 800x500) outlived a 150 s limit inside the EGL/GL
# interop setup, while the same kernels run clean and fast under the test binaries above.
# Its GPU path is covered by the gpu-labelled headless tests and the soak instead.
run memcheck  gray   "$gray" --gtest_color=no
run memcheck  matmul "$matmul" --gtest_color=no --gtest_filter="$mm_memcheck"
run memcheck  tc     "$tc" --gtest_color=no --gtest_filter='Sizes/GpuTcSmall.*:GpuTcSplit.*'
run racecheck tc     "$tc" --gtest_color=no --gtest_filter='Sizes/GpuTcSmall.*:GpuTcSplit.*'
run memcheck  trace  "$mapping" --gtest_color=no --gtest_filter='GpuTrace.*'
run memcheck  heatmap "$heatmap" --gtest_color=no
# The grayscale ladder: every rung and both layouts at 1x1, 1x5000, 1023x767, 4000x3, 8191x1 and
# widths that are not a multiple of 16 with unaligned rows; CUB and the copy too.
run memcheck  ladder "$ladder" --gtest_color=no
run racecheck matmul "$matmul" --gtest_color=no --gtest_filter="$small*s37x53x41:$small*s130x67x129"
run racecheck gray   "$gray" --gtest_color=no
run racecheck trace  "$mapping" --gtest_color=no --gtest_filter='GpuTrace.*'
run racecheck heatmap "$heatmap" --gtest_color=no
run synccheck matmul "$matmul" --gtest_color=no --gtest_filter="$small*s37x53x41"
run synccheck tc     "$tc" --gtest_color=no --gtest_filter='Sizes/GpuTcSmall.*s37x53x41'
run synccheck gray   "$gray" --gtest_color=no
run synccheck trace  "$mapping" --gtest_color=no --gtest_filter='GpuTrace.*'
run synccheck heatmap "$heatmap" --gtest_color=no
run initcheck gray   "$gray" --gtest_color=no
run initcheck matmul "$matmul" --gtest_color=no --gtest_filter="$small"
run initcheck tc     "$tc" --gtest_color=no --gtest_filter='Sizes/GpuTcSmall.*'
run initcheck trace  "$mapping" --gtest_color=no --gtest_filter='GpuTrace.*'
run initcheck heatmap "$heatmap" --gtest_color=no
run racecheck ladder "$ladder" --gtest_color=no --gtest_filter='*BitExact*'
run initcheck ladder "$ladder" --gtest_color=no --gtest_filter='*BitExact*'

{
  echo
  echo "== compute-sanitizer summary ($(( SECONDS - start ))s; budget ${budget}s; log: sanitize.log)"
  printf '%-10s %-8s %-34s %-8s %s\n' tool target verdict errors time
  printf '%s\n' "${rows[@]}"
  [ $failed -eq 0 ] && echo "sanitize: PASSED" || echo "sanitize: FAILED"
} | tee "$summary" | tee -a "$log"
rm -rf "$work" "$XDG_CONFIG_HOME"
exit $failed
