#!/usr/bin/env bash
# Issue 20 on the GPU machine: see the tensor cores. The screenshots the issue asks for, from one
# run, and the data view's cost at 8192^3.
#
#   tests/gpu/checks/tensor.sh BUNDLE RESULTS
#
# (The fragment-tag and pipeline tables come from test_matmul_frags_gpu and test_pipeline_gpu in
# run_on_device.sh's core part; the bank counters against ncu from measured.sh.)
# Writes into RESULTS:
#   shot_t3_hover.png      T3 (wgmma), a pinned element of C: warpgroup, warp, lane, register,
#                          the wgmma tile and k-step, the A and B slices it read; C coloured by
#                          warp; the fragment tags recorded on the GPU beside the model
#   shot_t2_hover.png      T2 (mma.sync) at an odd size: the lane's A and B fragment elements,
#                          C coloured by lane, the record beside the model
#   shot_banks_k3.png      the Memory tab's bank view of k3 (tile 32): conflict-free
#   shot_banks_user.png    the same for a user kernel that stores and reads its tile by column
#                          (at 256^3: the recording replays one block of the user kernel on the
#                          CPU build, which takes matrices up to M*N*K = 2^27)
#                          (the editor's "shared-memory tiles with a bank conflict" template)
#   shot_swizzle_t2.png    T2's bank map before and after its XOR swizzle
#   shot_swizzle_t3.png    T3's 128-byte TMA swizzle map
#   shot_cluster_t6.png    T6's schedule grouped by cluster (recorded %clusterid, %smid)
#   shot_pipeline_t4.png   T4's Pipeline tab, with what the trace costs; shot_pipeline_t5.png T5's,
#                          shot_pipeline_t7.png T7's (the fastest BF16 rung)
#   tensor.txt             every step's verdict and output, with the view-cost lines
# Exit 1 if any step failed.
set -u
bundle="$(cd "${1:?usage: tensor.sh BUNDLE RESULTS}" && pwd)"
results="${2:?usage: tensor.sh BUNDLE RESULTS}"
mkdir -p "$results"
out="$results/tensor.txt"
work="$(mktemp -d -t bs_tensor.XXXXXX)"
: >"$out"

step_default_limit=90
source "$(dirname "$0")/common.sh"
checks_env "$bundle" "$work"

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >>"$out" 2>&1

app=("$bundle/blockscope" --headless --backend cuda --lab matmul --window-size 1600x1000)
bf16=(--set precision=bf16)

step shot_t3_hover "${app[@]}" "${bf16[@]}" --kernel tc3_wgmma --matmul-size 150x200x256 --pin 150,100 \
  --matmul-fragments record --matmul-colour warp --frames 240 --screenshot "$results/shot_t3_hover.png"
step shot_t2_hover "${app[@]}" "${bf16[@]}" --kernel tc2_mma_sync --matmul-size 41x47x150 --pin 37,21 \
  --matmul-fragments record --matmul-colour lane --frames 240 --screenshot "$results/shot_t2_hover.png"
step shot_banks_k3 "${app[@]}" --kernel k3_smem_tiled --config 2 --matmul-size 256x256x256 --pin 5,3 \
  --panel memory --matmul-bank-request 1 --frames 30 --screenshot "$results/shot_banks_k3.png"
step shot_banks_user "${app[@]}" --kernel-file "$bundle/conflict.cu" --block 32x32 --matmul-size 256x256x256 \
  --pin 5,3 --panel memory --matmul-bank-request 1 --frames 30 --screenshot "$results/shot_banks_user.png"
step shot_swizzle_t2 "${app[@]}" "${bf16[@]}" --kernel tc2_mma_sync --matmul-size 1024x1024x1024 --pin 5,3 \
  --panel memory --frames 30 --screenshot "$results/shot_swizzle_t2.png"
step shot_swizzle_t3 "${app[@]}" "${bf16[@]}" --kernel tc3_wgmma --matmul-size 1024x1024x1024 --pin 5,3 \
  --panel memory --frames 30 --screenshot "$results/shot_swizzle_t3.png"
step shot_cluster_t6 "${app[@]}" "${bf16[@]}" --kernel tc6_cluster_multicast --matmul-size 4096x4096x4096 \
  --matmul-colour cluster --panel schedule --frames 30 --screenshot "$results/shot_cluster_t6.png"
for rung in tc4_warp_specialized:t4 tc5_persistent:t5 tc7_tma_store:t7; do
  step "shot_pipeline_${rung#*:}" "${app[@]}" "${bf16[@]}" --kernel "${rung%:*}" --matmul-size 4096x4096x4096 \
    --panel pipeline --frames 30 --screenshot "$results/shot_pipeline_${rung#*:}.png"
done

# The data view's CPU time per frame at 8192^3 (BLOCKSCOPE_VIEW_COST=1: the median on stderr):
# hover on, C coloured by lane, fitted and zoomed in; then with the recorded tags.
for zoom in fit 48; do
  z=(); [ "$zoom" = fit ] || z=(--zoom "$zoom" --center 4100,4100)
  step "view_cost_$zoom" env BLOCKSCOPE_VIEW_COST=1 "${app[@]}" "${bf16[@]}" --kernel tc3_wgmma \
    --matmul-size 8192x8192x8192 --hover 4100,4100 --matmul-colour lane "${z[@]}" --frames 120
done
step_limit=150 step view_cost_record env BLOCKSCOPE_VIEW_COST=1 "${app[@]}" "${bf16[@]}" --kernel tc3_wgmma \
  --matmul-size 8192x8192x8192 --hover 4100,4100 --matmul-colour lane --matmul-fragments record --frames 240 \
  --screenshot "$results/shot_t3_8192.png"

{
  echo
  echo "==== view cost"
  grep -h "data view CPU time" "$out"
  echo "==== summary"
  printf '%s\n' "${verdicts[@]}"
} >>"$out"
tail -n 20 "$out"
rm -rf "$work"
exit $failed
