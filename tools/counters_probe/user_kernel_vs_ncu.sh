#!/usr/bin/env bash
# A user kernel's hardware counters in the Measured tab against Nsight Compute (issue 32): the
# lecture's 1D grayscale kernel, compiled by NVRTC and launched in its runner process, profiled by
# blockscope's range profiler in that runner (bench --counters: the path the Measured tab takes,
# Lab::profile_counters_elsewhere), and by `ncu --target-processes all` on the same launches of
# the runner's entry (bs_entry). The built-in gray_1d_flat is measured beside it by blockscope, in
# blockscope's own process, as a second reference (the same bytes: one kernel is the other).
# Gate, as for the built-in rungs (compare_with_ncu.py): DRAM bytes read and written within 2%
# (a 64 KiB floor on writes), achieved occupancy within 2 points.
#
#   tools/counters_probe/user_kernel_vs_ncu.sh BLOCKSCOPE [OUTDIR]
#   environment: NCU (default ncu on PATH, then /usr/local/cuda/bin/ncu), SIZE (default 8192x8192:
#                the output is more than the 50 MB L2, as in compare_with_ncu.sh), REPEATS (5)
# Exit 0 when every gated row passes, 1 when one fails, 2 on a setup problem.
set -uo pipefail
app=${1:?usage: user_kernel_vs_ncu.sh BLOCKSCOPE [OUTDIR]}
out=${2:-$(mktemp -d -t user_vs_ncu.XXXXXX)}
mkdir -p "$out"
size=${SIZE:-8192x8192}
repeats=${REPEATS:-5}
ncu=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
[[ -x "$app" ]] || { echo "user_kernel_vs_ncu: no blockscope at $app" >&2; exit 2; }
[[ -x "$ncu" ]] || { echo "user_kernel_vs_ncu: no ncu at $ncu (set NCU)" >&2; exit 2; }

cat >"$out/gray_1d.cu" <<'CU'
__global__ void rgb_to_grayscale_kernel(unsigned char* x, unsigned char* out, int n) {
    int i = blockIdx.x*blockDim.x + threadIdx.x;
    if (i<n) out[i] = 0.2989*x[i] + 0.5870*x[i+n] + 0.1140*x[i+2*n];
}
CU
common=(bench gray --backend cuda --size "$size" --set layout=planar --block 256 --kernel-file "$out/gray_1d.cu"
        --kernel custom:rgb_to_grayscale_kernel --kernel-time-limit 60)

# 1. blockscope: one profile per run (each pass from an evicted L2), $repeats runs.
for i in $(seq 1 "$repeats"); do
  "$app" "${common[@]}" --kernel gray_1d_flat --repeats 3 --counters --json "$out/blockscope_$i.json" \
    >"$out/blockscope_$i.txt" 2>&1 || { echo "user_kernel_vs_ncu: bench --counters failed:"; cat "$out/blockscope_$i.txt"; exit 1; }
done

# 2. ncu on the runner's launches of the same kernel (every timed launch of the bench; default
#    cache control flushes all caches before each, clocks left alone as blockscope leaves them).
"$ncu" --target-processes all --clock-control none \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active \
  --kernel-name bs_entry --csv --page raw --print-units base --log-file "$out/ncu.csv" \
  "$app" "${common[@]}" --repeats "$repeats" >"$out/ncu_app.txt" 2>&1
[[ -s "$out/ncu.csv" ]] || { echo "user_kernel_vs_ncu: ncu wrote nothing:"; tail -20 "$out/ncu_app.txt"; exit 2; }

# 3. Side by side, medians, gated.
python3 - "$out" "$repeats" <<'PY' | tee "$out/table.txt"
import csv, glob, json, statistics, sys
out, repeats = sys.argv[1], int(sys.argv[2])
bs = {"custom:rgb_to_grayscale_kernel": [], "gray_1d_flat": []}
for path in sorted(glob.glob(out + "/blockscope_*.json")):
    for r in json.load(open(path))["results"]:
        c = r.get("counters") or {}
        if r["kernel"] in bs:
            if not c.get("available"):
                sys.exit(f"no counters for {r['kernel']}: {c.get('message')} ({c.get('hint')})")
            bs[r["kernel"]].append(c)
lines = [l for l in open(out + "/ncu.csv", newline="") if l.startswith('"')]
rows = list(csv.reader(lines))
head = rows[0]
def num(t):
    try: return float((t or "").replace(",", ""))
    except ValueError: return float("nan")
launches = [dict(zip(head, r)) for r in rows[1:] if r[head.index("Kernel Name")] and r[0]]
launches = [l for l in launches if l["Kernel Name"].split("(")[0].strip() == "bs_entry"]
if not launches:
    sys.exit("ncu profiled no bs_entry launch: did --target-processes all reach the runner?")
med = lambda xs: statistics.median(xs) if xs else float("nan")
ncu = {m: med([num(l[m]) for l in launches]) for m in
       ("dram__bytes_read.sum", "dram__bytes_write.sum", "sm__warps_active.avg.pct_of_peak_sustained_active")}
user = bs["custom:rgb_to_grayscale_kernel"]
mine = {"read": med([c["dram_read_bytes"] for c in user]), "written": med([c["dram_write_bytes"] for c in user]),
        "occupancy": med([c["achieved_occupancy_pct"] for c in user])}
rung = bs["gray_1d_flat"]
print(f"user kernel custom:rgb_to_grayscale_kernel: {len(user)} blockscope profiles (in its runner), "
      f"{len(launches)} ncu launches of bs_entry; gray_1d_flat (in blockscope's process) beside it")
failed = False
def row(name, b, n, unit, points=False, floor=0):
    global failed
    if points:
        d = b - n; ok = abs(d) <= 2; diff = f"{d:+.2f} pt"
    else:
        d = (n - b) / b if b else float("nan")
        ok = abs(n - b) <= max(0.02 * abs(b), floor); diff = f"{100 * d:+.2f}%"
    failed |= not ok
    print(f"  {name:22} blockscope {b:>16,.2f} {unit:3}  ncu {n:>16,.2f} {unit:3}  {diff:>9}  {'pass' if ok else 'FAIL'}")
row("DRAM bytes read", mine["read"], ncu["dram__bytes_read.sum"], "B")
row("DRAM bytes written", mine["written"], ncu["dram__bytes_write.sum"], "B", floor=64 * 1024)
row("achieved occupancy", mine["occupancy"], ncu["sm__warps_active.avg.pct_of_peak_sustained_active"], "%", points=True)
if rung:
    print(f"  (gray_1d_flat by blockscope: read {med([c['dram_read_bytes'] for c in rung]):,.0f} B, written "
          f"{med([c['dram_write_bytes'] for c in rung]):,.0f} B, occupancy {med([c['achieved_occupancy_pct'] for c in rung]):.2f}%; "
          f"the lab's count for both: {user[0].get('model', {}).get('bytes')} B)")
print("user kernel vs ncu:", "FAIL" if failed else "pass")
sys.exit(1 if failed else 0)
PY
