# What the GPU checks share (sourced by measured.sh, tensor.sh and custom.sh; not run alone).
#
# checks_env BUNDLE WORK   CUDA's libraries (with CUPTI) and NVIDIA's EGL, found as
#                          run_on_device.sh finds them; the bundle's own libraries first; a
#                          fresh settings folder under WORK, so no earlier run's state leaks in.
# step NAME COMMAND...     runs COMMAND for at most $step_limit seconds (default
#                          $step_default_limit), its output appended to $out; adds a verdict line
#                          to verdicts[] and sets failed=1 when it exits non-zero.

checks_env() {
  local bundle=$1 work=$2 cuda_libs=/usr/local/cuda/lib64 d f
  for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
    [ -e "$d/libcublas.so.13" ] && cuda_libs="$d"
  done
  export LD_LIBRARY_PATH="$bundle/lib:$cuda_libs:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
  for f in /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json /usr/share/glvnd/egl_vendor.d/10_nvidia.json; do
    [ -e "$f" ] && { export __EGL_VENDOR_LIBRARY_FILENAMES="$f"; break; }
  done
  export BLOCKSCOPE_EXE="$bundle/blockscope"
  export BLOCKSCOPE_KERNEL_RUNNER="$bundle/blockscope-kernel-runner"
  export XDG_CONFIG_HOME="$work/config" XDG_CACHE_HOME="$work/cache"
}

declare -a verdicts
failed=0
step_default_limit=${step_default_limit:-120}
step() {
  local name=$1; shift
  echo "==== $name: $*" >>"$out"
  local t0; t0=$(date +%s.%N)
  timeout "${step_limit:-$step_default_limit}" "$@" >>"$out" 2>&1
  local rc=$?
  local dt; dt=$(python3 -c "print(f'{$(date +%s.%N) - $t0:.1f}')")
  [ $rc -eq 0 ] || failed=1
  verdicts+=("$(printf '%-26s %s (%ss)' "$name" "$([ $rc -eq 0 ] && echo ok || echo "FAILED rc=$rc")" "$dt")")
  echo "---- $name: rc=$rc, ${dt}s" >>"$out"
}
