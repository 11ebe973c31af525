#!/usr/bin/env bash
# The hardening proofs that need a GPU, in one call from a bundle made here (issue 5):
#
#   here:   tests/gpu/make_bundle.sh build-gpu OUT        (build-gpu: the gpu-dev preset)
#   there:  tests/gpu/hardening_on_device.sh OUT RESULTS [sanitize|soak|all]
#
#   sanitize  tests/gpu/sanitize.sh: compute-sanitizer memcheck, racecheck, synccheck and
#             initcheck over the grayscale kernels (every block shape, odd sizes), the matmul
#             ladder (every configuration at small odd sizes), the trace kernels and the headless
#             app's CUDA-GL interop path; budget SANITIZE_BUDGET_S (default 360 s here)
#   soak      blockscope soak --backend cuda --launches 3000 (SOAK_LAUNCHES): random valid and
#             invalid launches, random odd-sized images and hostile drops through the headless
#             app; host RSS and device memory sampled after warm-up and at the end; capped at
#             SOAK_SECONDS (default 150) so `all` fits in one 10-minute device call (about 9 minutes at worst)
#
# RESULTS receives 4 files: sanitize_summary.txt, sanitize.log, soak.log, hardening.txt (the
# verdicts). Exit 0 only when every part that ran passed.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bundle="$(cd "${1:-OUT}" && pwd)"
results="${2:-${OUT:-results}}"
what="${3:-all}"
mkdir -p "$results"
results="$(cd "$results" && pwd)"
verdicts="$results/hardening.txt"
: >"$verdicts"
failed=0

# The same environment as tests/gpu/run_on_device.sh: the bundle's libraries, CUDA's from the
# machine's toolkit, NVIDIA's EGL vendor file for the headless context.
cuda_libs=/usr/local/cuda/lib64
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do [ -e "$d/libcublas.so.13" ] && cuda_libs="$d"; done
export LD_LIBRARY_PATH="$bundle/lib:$cuda_libs:${LD_LIBRARY_PATH:-}"
for f in /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json /usr/share/glvnd/egl_vendor.d/10_nvidia.json; do
  [ -e "$f" ] && { export __EGL_VENDOR_LIBRARY_FILENAMES="$f"; break; }
done
export XDG_CONFIG_HOME="$(mktemp -d)"

note() { echo "$*" | tee -a "$verdicts"; }
note "== hardening_on_device.sh $what, $(date -u +%FT%TZ), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo 'no nvidia-smi')"

if [ "$what" = sanitize ] || [ "$what" = all ]; then
  echo "== compute-sanitizer (tests/gpu/sanitize.sh; every run's output in sanitize.log)"
  SANITIZE_BUDGET_S=${SANITIZE_BUDGET_S:-360} "$here/sanitize.sh" "$bundle" "$results"
  rc=$?
  note "sanitize: $([ $rc -eq 0 ] && echo PASSED || echo "FAILED (see sanitize_summary.txt)")"
  [ $rc -eq 0 ] || failed=1
fi

if [ "$what" = soak ] || [ "$what" = all ]; then
  app="$bundle/blockscope"; [ -x "$app" ] || app="$bundle/app/blockscope"  # a bundle or a build tree
  launches=${SOAK_LAUNCHES:-3000}
  seconds=${SOAK_SECONDS:-150}
  echo "== soak: $app soak --backend cuda --launches $launches --seconds $seconds"
  t0=$SECONDS
  timeout --kill-after=10 $(( seconds + 40 )) "$app" soak --backend cuda \
    --launches "$launches" --seconds "$seconds" >"$results/soak.log" 2>&1
  rc=$?
  grep -E "^soak: (seed|[0-9]+ launches|blocks|files|gridDim|PASSED|FAILED|launch )|^soak summary|^  - " "$results/soak.log"
  summary_line=$(grep "^soak summary" "$results/soak.log" || echo "no summary line (rc $rc; see soak.log)")
  case $rc in
    0) note "soak: PASSED in $(( SECONDS - t0 ))s: $summary_line" ;;
    4) note "soak: FAILED (no usable CUDA device: $(tail -n 2 "$results/soak.log" | tr '\n' ' '))"; failed=1 ;;
    124|137) note "soak: FAILED (timed out; see soak.log)"; failed=1 ;;
    *) note "soak: FAILED rc=$rc: $summary_line"; failed=1 ;;
  esac
  grep -q "stopped by --seconds" "$results/soak.log" &&
    note "note: the soak stopped at --seconds $seconds before $launches launches (raise SOAK_SECONDS)"
fi

echo
cat "$verdicts"
rm -rf "$XDG_CONFIG_HOME"
exit $failed
