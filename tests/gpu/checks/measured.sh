#!/usr/bin/env bash
# Issue 12 on the GPU machine: the Measured tab, bench --counters, the counters against ncu, the
# cost of one profiled launch, and what a user without profiling permission sees.
#
#   tests/gpu/checks/measured.sh BUNDLE RESULTS
#
# BUNDLE (tests/gpu/make_bundle.sh) needs: blockscope, blockscope-kernel-runner, counters_probe,
# compare_with_ncu.{sh,py}, user_kernel_vs_ncu.sh, libfake_cupti_no_permission.so,
# test_measured_gpu, test_measured_app, test_counters_gpu, test_custom_gpu.
# Writes 4 files into RESULTS (measured_tab_user_kernel.png: the tab on the lecture's 1D kernel
# from a --kernel-file, the built-in sample, issue 32):
#   measured_tab.png  the Measured tab after --profile, side by side: k1_naive (coalesced),
#                     k2_uncoalesced (uncoalesced), both 1024^3 block 32x32, and k1_naive with the
#                     stand-in libcupti that refuses like the driver refuses a non-admin user
#   sweep_colour_by_sectors.png  a window sweep of gray_2d with counters per point, coloured by
#                     the measured sectors per load
#   measured.txt      every step's verdict and output: the gpu tests, bench --counters (the
#                     counters of each result), the ncu comparison (gated) and at 4096^2 (not
#                     gated), the shared-memory rungs' bank conflicts against ncu (gated), the DRAM-writes history, the wall time of one profiled launch,
#                     the no-permission messages
# Each step is limited to 2 minutes. Exit 1 if any step failed.
set -u
bundle="$(cd "${1:?usage: measured.sh BUNDLE RESULTS}" && pwd)"
results="${2:?usage: measured.sh BUNDLE RESULTS}"
mkdir -p "$results"
out="$results/measured.txt"
work="$(mktemp -d -t bs_measured.XXXXXX)"
: >"$out"

step_default_limit=120
source "$(dirname "$0")/common.sh"
checks_env "$bundle" "$work"
export BS_FAKE_CUPTI="$bundle/libfake_cupti_no_permission.so"

{
  echo "== $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv
  grep -h RmProfilingAdminOnly /proc/driver/nvidia/params 2>/dev/null
  echo "user: $(id -un)"
} >>"$out" 2>&1

app=("$bundle/blockscope" --headless --backend cuda --lab matmul --matmul-size 1024x1024x1024 --block 32x32
     --panel measured --profile --window-size 1600x1000)

# 1. The gpu-labelled tests: real profiles through the lab interface, the worker, the app and the
#    bench; the stand-in libcupti through the bench and the tab.
step test_measured_gpu   "$bundle/test_measured_gpu" --gtest_color=no
step test_measured_app   "$bundle/test_measured_app" --gtest_color=no --gtest_filter='*Gpu*:MeasuredCli*'
step test_counters_gpu   "$bundle/test_counters_gpu" --gtest_color=no

# 2. The Measured tab (the screenshot is written once the profile is on screen).
step tab_k1_coalesced    "${app[@]}" --kernel k1_naive --screenshot "$work/k1.png"
step tab_k2_uncoalesced  "${app[@]}" --kernel k2_uncoalesced --screenshot "$work/k2.png"
step tab_no_permission   "${app[@]}" --kernel k1_naive --cupti "$BS_FAKE_CUPTI" --screenshot "$work/noperm.png"
# The side panel (the right 420 pixels) of each, side by side.
step compose_png python3 - "$results/measured_tab.png" 1180 "$work/k1.png" "$work/k2.png" "$work/noperm.png" <<'EOF'
import struct, sys, zlib
def read_png(path):
    data = open(path, 'rb').read()
    pos, idat = 8, b''
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8]); body = data[pos + 8:pos + 8 + n]; pos += 12 + n
        if kind == b'IHDR':
            w, h, depth, colour, _, _, interlace = struct.unpack('>IIBBBBB', body)
            assert depth == 8 and colour in (2, 6) and interlace == 0; bpp = 4 if colour == 6 else 3
        elif kind == b'IDAT': idat += body
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        s = y * (stride + 1); f, line = raw[s], bytearray(raw[s + 1:s + 1 + stride])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0; b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        if bpp == 3:
            rgba = bytearray(4 * w); rgba[0::4], rgba[1::4], rgba[2::4], rgba[3::4] = line[0::3], line[1::3], line[2::3], b'\xff' * w; line = rgba
        rows.append(line)
    return w, h, rows
out, x0 = sys.argv[1], int(sys.argv[2])
images = [read_png(p) for p in sys.argv[3:]]
h = max(i[1] for i in images); rows = []
for y in range(h):
    r = bytearray()
    for w, ih, px in images: r += (px[y] if y < ih else bytearray(4 * w))[4 * min(x0, w - 1):]
    rows.append(r)
w = len(rows[0]) // 4
chunk = lambda k, b: struct.pack('>I', len(b)) + k + b + struct.pack('>I', zlib.crc32(k + b))
open(out, 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 6, 0, 0, 0)) +
                      chunk(b'IDAT', zlib.compress(b''.join(b'\x00' + bytes(r) for r in rows), 9)) + chunk(b'IEND', b''))
print(f"wrote {out}: {w} x {h}")
EOF

# 2b. A window sweep with hardware counters per point, the map coloured by the measured sectors
#     per load: gray_2d's shapes from 1x256 (a warp spans 32 rows) to 256x1, on the built-in
#     sample (512 x 512).
sweep_cfg="$work/sweep_cfg"
mkdir -p "$sweep_cfg"
printf '%s\n' '# blockscope settings v1' 'sweep.all_blocks = false' \
  'sweep.blocks = 1x256,2x128,4x64,8x32,16x16,32x8,64x4,256x1' 'sweep.counters = true' \
  'sweep.colour_by = load_sectors_measured' >"$sweep_cfg/settings.txt"
step sweep_counters_png  "$bundle/blockscope" --headless --backend cuda --config-dir "$sweep_cfg" --kernel gray_2d \
                         --sweep --window-size 1280x800 --screenshot "$results/sweep_colour_by_sectors.png" \
                         --json "$work/sweep_counters.json"
python3 - "$work/sweep_counters.json" >>"$out" 2>&1 <<'EOF'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    c = r.get("counters") or {}
    m = c.get("model") or {}
    if not c.get("available"):
        print(f'{r["config"]}: no counters: {c.get("error")}')
        continue
    print(f'{r["config"]:<14} {r.get("median_ms") or 0:8.4f} ms  ld sectors/request measured '
          f'{c.get("ld_sectors_per_request")} model {m.get("ld_sectors_per_request")}, DRAM '
          f'{c.get("dram_bandwidth_gbs")} GB/s, L2 hit {c.get("l2_hit_pct")}%, achieved occupancy '
          f'{c.get("achieved_occupancy_pct")}%')
EOF

# 3. bench --counters: the counters of each result, beside the model (and the wall time of each
#    profile); then the same bench with the stand-in libcupti.
step bench_matmul_counters "$bundle/blockscope" bench matmul --backend cuda --size 1024 --kernel k1_naive \
                           --kernel k2_uncoalesced --kernel k3_smem_tiled --kernel cublas_sgemm --block 32x32 \
                           --repeats 10 --counters --json "$work/bench_matmul.json"
step bench_gray_counters   "$bundle/blockscope" bench gray --backend cuda --size 4096x4096 --set layout=planar \
                           --kernel gray_1d_flat --kernel gray_2d --kernel gray_vec16 --kernel cub_transform \
                           --kernel copy --block 256 --block 16x16 --repeats 10 --counters --json "$work/bench_gray.json"
step counters_in_json python3 - "$work/bench_matmul.json" "$work/bench_gray.json" <<'EOF'
import json, statistics, sys
walls = []
for path in sys.argv[1:]:
    for r in json.load(open(path))["results"]:
        c = r.get("counters")
        if not c: continue
        head = f'{r["kernel"]:16} {r["config"][:26]:26}'
        if not c["available"]:
            print(f'{head} no counters: {c["message"]}'); continue
        m = c["model"]; walls.append(c["profile_wall_ms"])
        g = lambda v, f="{:.3g}": "-" if v is None else f.format(v)
        print(f'{head} DRAM r/w {g(c["dram_read_bytes"],"{:,.0f}")}/{g(c["dram_write_bytes"],"{:,.0f}")} B '
              f'(model {g(m["bytes"],"{:,.0f}")}), L2 hit {g(c["l2_hit_pct"])}%, ld/st sectors/request '
              f'{g(c["ld_sectors_per_request"])}/{g(c["st_sectors_per_request"])} (model '
              f'{g(m["ld_sectors_per_request"])}/{g(m["st_sectors_per_request"])}), occupancy '
              f'{g(c["achieved_occupancy_pct"])}% (theory {g(m["theoretical_occupancy_pct"])}%), '
              f'top stall {c["stalls"][0]["reason"] if c["stalls"] else "-"}, {c["passes"]} passes '
              f'{c["profile_wall_ms"]:.0f} ms')
if walls:
    print(f"wall time of one profiled launch: median {statistics.median(walls):.0f} ms "
          f"(min {min(walls):.0f}, max {max(walls):.0f}, {len(walls)} profiles)")
EOF
step bench_no_permission "$bundle/blockscope" bench matmul --backend cuda --size 512 --kernel k1_naive \
                         --block 32x32 --repeats 3 --counters --cupti "$BS_FAKE_CUPTI" --json "$work/noperm.json"

# 4. Against ncu: the gated comparison (the script's default: both grayscale kernels at 8192^2,
#    the two matmul rungs at 4096^3, every output larger than the L2); then, for the record and
#    not gated here, the grayscale kernels at 4096^2, where the 1D kernel's output stays in L2
#    and its DRAM bytes written depend on the launch history in both tools, and that history
#    launch by launch (kernels/counters/NOTES.md says why).
step_limit=300 step ncu_compare "$bundle/compare_with_ncu.sh" "$bundle/counters_probe" "$work/ncu"
echo "==== ncu_compare_4096 (not gated)" >>"$out"
REPEATS=5 PROBE_ARGS="--gray 4096x4096 --kernels gray_1d_flat,gray_2d" timeout 120 \
  "$bundle/compare_with_ncu.sh" "$bundle/counters_probe" "$work/ncu_4096" >>"$out" 2>&1
echo "---- ncu_compare_4096: rc=$? (1: a gated row missed; see NOTES.md)" >>"$out"
# Issue 20's bank check: the rungs that stage tiles in shared memory through the load/store pipe
# (k3..k7; T2's ldmatrix loads), their shared-memory bank conflicts and wavefronts against ncu,
# gated at 2% (compare_with_ncu.py's shared rows only: GATE=shared).
GATE=shared REPEATS=3 PROBE_ARGS="--matmul 4096 --kernels k3_smem_tiled,k4_blocktile_1d,k5_blocktile_2d,k6_vectorized,k7_warptile,tc2_mma_sync" \
  step_limit=400 step ncu_compare_banks "$bundle/compare_with_ncu.sh" "$bundle/counters_probe" "$work/ncu_banks"
step dram_writes_history "$bundle/dram_writes_history.sh" "$bundle/counters_probe" "$work/history"
# Issue 32: a user kernel's counters, read in its runner process (the Measured tab's path for user
# kernels), against ncu --target-processes all on the runner's launches of the same kernel, gated
# as the rungs are (DRAM bytes 2%, occupancy 2 points); then the engine's test of that path and
# the Measured tab on a user kernel (the screenshot shows its rows beside the lab's model).
step_limit=400 step user_kernel_vs_ncu "$bundle/user_kernel_vs_ncu.sh" "$bundle/blockscope" "$work/user_ncu"
step test_custom_gpu_counters "$bundle/test_custom_gpu" --gtest_color=no --gtest_filter='*Counters*'
printf '%s\n' '__global__ void rgb_to_grayscale_kernel(unsigned char* x, unsigned char* out, int n) {' \
  '    int i = blockIdx.x*blockDim.x + threadIdx.x;' \
  '    if (i<n) out[i] = 0.2989*x[i] + 0.5870*x[i+n] + 0.1140*x[i+2*n];' '}' >"$work/gray_1d.cu"
step tab_user_kernel "$bundle/blockscope" --headless --backend cuda \
  --kernel-file "$work/gray_1d.cu" --block 256 --panel measured --profile --window-size 1600x1000 \
  --screenshot "$results/measured_tab_user_kernel.png"

# Summary.
{
  echo
  echo "==== summary"
  printf '%s\n' "${verdicts[@]}"
} | tee -a "$out"
grep -h -E "wall time of one profiled launch|gated row|^  DRAM bytes written|^gray_1d_flat|L2 emptied|DRAM written kB" "$out" | head -30
grep -h -m2 -E "restricts profiling to administrators" "$out" | cut -c1-200
rm -rf "$work"
exit $failed
